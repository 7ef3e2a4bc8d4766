"""The "Attacker's view" section of the Label DP page under AppTest (issue 23): it renders at the
defaults without an exception, its sentences are the library's (`privlib.label_dp.attacks`) for the
page's seed, data, model and randomiser, the target's answer follows the target, and the attack on
the models waits for its button when its estimate is over `ui.AUTOMATIC_SECONDS` (then the button
runs it). Costs are fixed (tests/conftest.py sets a 1 µs fit; the button test fixes slower ones), so
what starts by itself does not depend on the machine's load; no test asserts seconds."""
import math

import pytest
from apptest_counting import opened_page

from privlib.core.risk import largest_epsilon_under
from privlib.label_dp import attacks
from privlib.label_dp import sweep as sweep_module
from privlib.label_dp.datasets import load_dataset

PAGE = "pages/label_dp.py"
LN_1_5 = math.log(1.5)
#: The page's ε grid (pages/label_dp.py EPSILONS) and its defaults: Fig. 1 (Δ = 0.5, n = 300, d = 50),
#: the centroid, RR, consensus retraining, 20 runs from seed 1000, ε = ln 1.5.
EPSILONS = (0.05, 0.1, 0.25, LN_1_5, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)

pytestmark = pytest.mark.slow  # a Streamlit script run per step


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def _answers(at) -> str:
    (text,) = [m for m in _markdown(at) if "keeps the attacker who sees" in m or "The answers come" in m]
    return text


@pytest.fixture(scope="module")
def page():
    import streamlit as st

    st.cache_data.clear()
    return opened_page(PAGE, "label DP (attacker's view)")


@pytest.fixture(scope="module")
def library():
    data = load_dataset("fig1", delta_sep=0.5, n=300, d=50)
    noisy = attacks.noisy_label_attacks(data, "rr", EPSILONS, seed=1000, model="centroid")
    measured = attacks.model_attack(data, "rr", EPSILONS, repeats=20, seed=1000, model="centroid",
                                    modes=("baseline", "consensus"))
    return noisy, measured


def test_the_section_renders_at_the_defaults(page):
    _ok(page)
    assert "Attacker's view" in [h.value for h in page.subheader]
    keys = {chart.key for chart in page.get("plotly_chart")}
    assert {"ldp_attack_roc", "ldp_attack_noisy", "ldp_attack_models", "ldp_attack_frontier"} <= keys
    assert page.number_input(key="ldp_attack_target").value == 0.75


def test_the_sentences_are_the_library_s_for_the_same_seed(page, library):
    noisy, measured = library
    text = "\n".join(_markdown(page))
    at = EPSILONS.index(LN_1_5)
    assert attacks.noisy_label_sentence(noisy[at]) in text
    for mode in ("baseline", "consensus"):
        assert attacks.model_attack_sentence(measured, LN_1_5, mode) in text
    expected = largest_epsilon_under(0.75, EPSILONS, [a.bound for a in noisy])
    assert attacks.target_sentence(0.75, expected, "the attacker who sees the noisy label",
                                   "by the guarantee's bound with this class prior") in _answers(page)


def test_the_target_answer_follows_the_target(page, library):
    noisy, measured = library
    before = _answers(page)
    page.number_input(key="ldp_attack_target").set_value(0.55).run()
    _ok(page)
    after = _answers(page)
    assert after != before
    # binary RR with a near-uniform prior: e^ε/(e^ε + 1) ≤ 0.55 holds up to ε ≈ 0.2, so 0.1 of the grid
    expected = largest_epsilon_under(0.55, EPSILONS, [a.bound for a in noisy])
    assert expected == 0.1
    assert attacks.target_sentence(0.55, expected, "the attacker who sees the noisy label",
                                   "by the guarantee's bound with this class prior") in after
    measured_answer = largest_epsilon_under(0.55, EPSILONS, measured.success("consensus"),
                                            measured.standard_error("consensus"))
    assert attacks.target_sentence(0.55, measured_answer, "the attacker who sees "
                                   + attacks.MODEL_ATTACK_LABELS["consensus"], "measured, + 2 SE") in after


def test_a_slow_model_attack_waits_for_its_button_and_the_button_runs_it():
    import streamlit as st

    def slow_fit(data, model="logistic", runs=2):
        return 1e-6 if model == "centroid" else 0.05

    def slow_run(data, randomiser="rr", model="logistic", modes=None, runs=2):
        return 1e-6 if model == "centroid" else 0.2  # 12 runs: 2.4 s, over AUTOMATIC_SECONDS

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep_module, "fit_seconds", slow_fit)
        patch.setattr(sweep_module, "run_seconds", slow_run)
        st.cache_data.clear()
        at = opened_page(PAGE, "label DP (attack on request)")
        at.selectbox(key="ldp_model").set_value("logistic").run()
        at.slider(key="ldp_repeats").set_value(1).run()
        _ok(at)
        assert "ldp_attack_models" not in {chart.key for chart in at.get("plotly_chart")}
        buttons = [b for b in at.button if b.key == "ldp_run_model_attack"]
        assert len(buttons) == 1 and "Attack the models" in buttons[0].label
        buttons[0].click().run()
        _ok(at)
        assert {"ldp_attack_models", "ldp_attack_frontier"} <= {chart.key for chart in at.get("plotly_chart")}
        text = "\n".join(_markdown(at))
        assert "From the baseline model's prediction." in text and "s_ref" in text
