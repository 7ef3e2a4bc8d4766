"""The "What ε means" page in-process (AppTest): it renders at its defaults without running an audit,
its numbers are privlib.core.risk's (and the closed forms of the spec) for a typed ε, (ε, δ) or μ,
bad input gets the library's explanation instead of a traceback, and the audit button runs the
topic's audit and shows ε̂ within the claim for a correct mechanism."""
import math

import pytest
from apptest_counting import opened_page
from scipy.stats import norm

from privlib.core.mechanism import Guarantee
from privlib.core.risk import attack_terms, group_guarantee, posterior_statement
from privlib.erm import audit as erm_audit
from privlib.label_dp import audit as label_dp_audit
from privlib.label_dp.audit import audit_mechanism
from privlib.projections import audit as projections_audit
from privlib.words import audit as words_audit

PAGE = "pages/what_epsilon_means.py"


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _metrics(at) -> dict:
    """label → (shown value, the number its help starts with ("0.4621: …"), or None)."""
    return {m.label: (m.value, _number(m.proto.help.split(":")[0])) for m in at.metric}


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _typed(at, **values):
    """Set the page's inputs (widget key suffix → value) one by one, rerunning after each."""
    for key, value in values.items():
        widget = at.radio(key="wem_kind") if key == "kind" else at.number_input(key=f"wem_{key}")
        widget.set_value(value).run()
    return at


@pytest.fixture(scope="module")
def page():
    return opened_page(PAGE, "what epsilon means")


def test_defaults_render_every_part_and_run_no_audit(page):
    _ok(page)
    assert page.title[0].value == "What ε means"
    assert [h.value for h in page.header] == ["A guarantee as a limit on attackers", "What one unit is, topic by topic",
                                              "Audit a mechanism against its claim"]
    assert "Smaller ε, δ or μ = more privacy" in page.info[0].value
    assert len(page.get("plotly_chart")) == 1  # the trade-off curve; the audit's chart only after a run
    links = sorted(link.proto.page for link in page.get("page_link"))
    assert links == ["label_dp", "neighbour_ranks", "private_learning", "random_projections"]
    units = _markdown(page)
    # the units are the audit modules' own (one home): "<unit>: <the pair audited>"
    for module, unit in ((words_audit, "one word"), (projections_audit, "one attribute of one vector"),
                         (label_dp_audit, "one training label"), (erm_audit, "one record (replace-one)")):
        assert module.UNIT_OF_PROTECTION.startswith(f"{unit}: ")
        assert f"\n{unit}\n" in units
    assert not any(m.label.startswith("ε̂") for m in page.metric)  # nothing heavy before the button
    # the audit and the take-home panel's notebook and report: each on request
    assert [b.label for b in page.button] == ["Run the audit", "Notebook and report"]


def _expected_dp(epsilon: float, delta: float) -> dict:
    """The spec's closed forms for (ε, δ)-DP (§1, §2), written here independently of privlib."""
    e = math.exp(epsilon)
    tpr = {a: min(1.0, e * a + delta, 1 - (1 - delta - a) / e) for a in (0.01, 0.001)}
    return {"Maximal advantage": (e - 1 + 2 * delta) / (e + 1), "TPR at FPR 1 %": tpr[0.01],
            "TPR at FPR 0.1 %": tpr[0.001], "Right between two inputs": 1 - (1 - delta) / (1 + e),
            "Naming 1 of 10": (e + 9 * delta) / (e + 9)}


def _expected_gdp(mu: float) -> dict:
    """μ-GDP (§1): advantage 2Φ(μ/2) − 1, TPR = 1 − Φ(Φ⁻¹(1 − α) − μ), Bayes at prior ½: Φ(μ/2)."""
    tpr = {a: 1 - norm.cdf(norm.ppf(1 - a) - mu) for a in (0.01, 0.001)}
    return {"Maximal advantage": 2 * norm.cdf(mu / 2) - 1, "TPR at FPR 1 %": tpr[0.01],
            "TPR at FPR 0.1 %": tpr[0.001], "Right between two inputs": norm.cdf(mu / 2)}


@pytest.mark.parametrize(("typed", "guarantee", "expected"), [
    ({"epsilon": 2.0}, Guarantee("pure-dp", "", epsilon=2.0), _expected_dp(2.0, 0.0)),
    ({"epsilon": 1.0, "delta": 1e-3}, Guarantee("approximate-dp", "", epsilon=1.0, delta=1e-3),
     _expected_dp(1.0, 1e-3)),
    ({"kind": "gdp", "mu": 1.5}, Guarantee("gdp", "", mu=1.5), _expected_gdp(1.5)),
], ids=["pure", "approximate", "gdp"])
def test_the_numbers_are_core_risks_and_the_closed_forms(typed, guarantee, expected):
    at = _typed(opened_page(PAGE, "what epsilon means"), **typed)
    _ok(at)
    shown = _metrics(at)
    terms = attack_terms(guarantee, prior=0.5, candidates=10, people=10_000)  # what `privlib bounds` prints
    core = {"Maximal advantage": terms["advantage"], "TPR at FPR 1 %": terms["tpr_at_fpr"][0]["tpr"],
            "TPR at FPR 0.1 %": terms["tpr_at_fpr"][1]["tpr"], "Right between two inputs": terms["guessing_chance"],
            "Naming 1 of 10": terms["reidentification"]["bound"]}
    for label, value in core.items():
        assert shown[label][0] == f"{100 * value:.4g} %", label
        assert shown[label][1] == pytest.approx(value, rel=1e-5), label
        if label in expected:
            assert shown[label][1] == pytest.approx(expected[label], rel=1e-5), label
    sentence = posterior_statement(guarantee, 0.5).sentence
    text = _markdown(at)
    assert f"**What one output does to a belief.** {sentence}" in text
    if guarantee.kind == "approximate-dp":  # never the pure-ε sentence with a δ
        assert "becomes at most" not in sentence and "outright with probability up to δ" in sentence
        assert "1 in 1,000" in text  # δ for people
    elif guarantee.kind == "pure-dp":
        # who was 50 % sure is at most e^ε/(e^ε + 1) sure: 88 % at ε = 2
        assert "becomes at most 88 % sure" in sentence
        assert "δ = 0: the ε guarantee holds for every output" in text
    else:
        assert "with probability at most" in sentence and "μ-GDP has no single δ" in text
    # group privacy: two changed units
    grouped = group_guarantee(guarantee, 2)
    assert posterior_statement(grouped, 0.5).sentence in text
    assert f"guarantee is {attack_terms(grouped)['curve_label']}:" in text


def test_delta_for_people_warns_when_delta_is_at_least_one_over_n():
    at = _typed(opened_page(PAGE, "what epsilon means"), delta=1e-5, people=1_000_000)
    _ok(at)
    assert any("over 1,000,000 people that is 10 people expected" in w.value and "Warning: δ is at least 1/n"
               in w.value for w in at.warning)
    _typed(at, delta=1e-9)
    _ok(at)
    assert not at.warning
    assert "1 in 1,000,000,000; over 1,000,000 people that is 0.001 people expected." in _markdown(at)


def test_a_group_beyond_delta_one_is_said_to_be_unprotected():
    at = _typed(opened_page(PAGE, "what epsilon means"), epsilon=5.0, delta=0.01, group=10)
    _ok(at)
    # 10·e^(9·5)·0.01 is far above 1: the group guarantee is vacuous, said in words (not an exception)
    assert any("says nothing about a group this large" in w.value for w in at.warning)


@pytest.mark.parametrize(("typed", "message"), [
    ({"delta": 1.0}, "delta must be a number with 0 <= delta < 1"),
    ({"delta": -1e-6}, "delta must be a number with 0 <= delta < 1"),
    ({"epsilon": -1.0}, "epsilon must be a finite number of at least 0"),
    ({"kind": "gdp", "mu": -0.5}, "mu (sensitivity / sigma of the Gaussian mechanism) must be"),
], ids=["delta-one", "delta-negative", "epsilon-negative", "mu-negative"])
def test_bad_input_is_explained_not_a_traceback(typed, message):
    at = _typed(opened_page(PAGE, "what epsilon means"), **typed)
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and message in at.error[0].value
    assert not at.get("plotly_chart")  # nothing drawn from a bad guarantee


def test_the_audit_button_runs_the_topics_audit_within_the_claim(page):
    page.button(key="wem_audit_run").click().run()
    _ok(page)
    shown = _metrics(page)
    # the default: label DP's randomised response at ε = 1, 10,000 releases per label, seed 0
    direct = audit_mechanism("rr", epsilon=1.0, releases=10_000, seed=0)
    estimate = shown["ε̂ (95 % lower bound)"][1]
    assert estimate == pytest.approx(direct.epsilon, rel=1e-5) and estimate > 0
    assert shown["Claimed ε"][0] == "1"
    assert estimate <= 1.0  # a correct mechanism: ε̂ within the claim
    assert shown["Audit's ceiling"][0] == f"{direct.ceiling:.3g}"
    exact = next(m for m in page.metric if m.label == "Exact loss")
    assert exact.value == "1"  # k-ary RR: ln(e^ε) for the pair (a, b)
    assert any("found no attack stronger than the claim allows" in s.value for s in page.success)
    assert len(page.get("plotly_chart")) == 2  # the audit's test against the claim


def test_a_long_audit_is_refused_with_its_estimate_until_allowed(monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0")
    at = opened_page(PAGE, "what epsilon means")
    at.number_input(key="wem_audit_seed").set_value(7).run()  # a work of its own (the cache holds seed 0's)
    at.button(key="wem_audit_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    refusal = [w.value for w in at.warning if "This audit would take about" in w.value]
    assert refusal and "run it anyway below" in refusal[0] and "allow_long" not in refusal[0]
    assert not any(m.label.startswith("ε̂") for m in at.metric)
    at.button(key="wem_audit_long").click().run()
    _ok(at)
    estimate = next(m for m in at.metric if m.label.startswith("ε̂"))
    assert 0 < _number(estimate.proto.help.split(":")[0]) <= 1.0
