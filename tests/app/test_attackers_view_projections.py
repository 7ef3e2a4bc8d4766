"""The "Attacker's view" section of the Random projections page in-process (AppTest): it renders without an
exception at the defaults, its sentence is the library's for the same seed, the attack/utility frontier pairs the
sweep's precision with the library's attack (the attacked mechanism at once, the others from a button), the
target's answer follows the target, and the linkage attack (heavy: on request) runs from its button."""
import base64
import json

import numpy as np
import pytest
from apptest_counting import opened_page

from privlib.projections import attacks
from privlib.projections.datasets import load_dataset

PAGE = "pages/random_projections.py"

pytestmark = pytest.mark.slow  # the page's default view sweeps 3 mechanisms on MNIST (a few seconds)


@pytest.fixture(scope="module")
def page():
    return opened_page(PAGE, "random projections")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def _titles(at) -> list[str]:
    return [json.dumps(json.loads(chart.proto.spec)["layout"].get("title"), ensure_ascii=False)
            for chart in at.get("plotly_chart")]


def test_the_section_renders_at_the_defaults_with_the_librarys_sentence(page):
    _ok(page)
    assert "Attacker's view" in [h.value for h in page.subheader]
    assert page.selectbox(key="rp_attack_mechanism").value == "dp-oporp"
    expected = attacks.attribute_inference("dp-oporp", epsilon=5.0, delta=1e-6, p=784, seed=0,
                                           parameters={"k": 32, "beta": 1.0, "seed": 0})
    assert expected.sentence in _markdown(page)
    titles = _titles(page)
    assert any("Attribute inference at ε = 5" in t for t in titles)
    assert any("Attribute inference against ε" in t for t in titles)
    # MNIST's linkage across ε is heavy: it waits for its button
    assert page.button(key="rp_linkage_run") is not None
    assert not any("Record linkage" in t for t in titles)


def _values(array) -> np.ndarray:
    """A trace's numbers: a list, or Plotly's typed array ({"dtype", "bdata"}: base64 of the bytes)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).astype(np.float64)
    return np.asarray(array, dtype=np.float64)


def _chart(at, title: str) -> dict:
    found = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
             if title in json.dumps(json.loads(c.proto.spec)["layout"].get("title"), ensure_ascii=False)]
    assert len(found) == 1, title
    return found[0]


def test_the_frontier_pairs_the_sweep_with_the_attack_and_adds_the_others_on_request(page):
    _ok(page)
    frontier = _chart(page, "Attack success against retrieval quality")
    assert [t["name"] for t in frontier["data"]] == ["DP-OPORP", "guessing without the release"]
    line = frontier["data"][0]
    # x: the precision of the retrieval chart's DP-OPORP line (the same sweep); y: the library's exact attack
    precision = next(t for t in _chart(page, "precision@50 on mnist")["data"] if t.get("name") == "DP-OPORP")
    assert np.array_equal(_values(line["x"]), _values(precision["y"]))
    curves = attacks.attack_curves("dp-oporp", epsilons=attacks.DEFAULT_EPSILONS, delta=1e-6,
                                   dataset=load_dataset("mnist"), linkage=False, seed=0,
                                   parameters={"k": 32, "beta": 1.0, "seed": 0})
    assert np.array_equal(_values(line["y"]), curves.attribute_success)
    assert np.array_equal(_values(line["customdata"]), np.asarray(attacks.DEFAULT_EPSILONS))
    assert any(c.value.startswith("Each point is one ε of the grid") for c in page.caption)
    page.button(key="rp_frontier_run").click().run()
    _ok(page)
    frontier = _chart(page, "Attack success against retrieval quality")
    assert [t["name"] for t in frontier["data"]] == ["DP-OPORP", "DP-SignOPORP-RR", "DP-SignOPORP-RR-smooth",
                                                     "guessing without the release"]
    smooth = attacks.attack_curves("dp-signoporp-rr-smooth", epsilons=attacks.DEFAULT_EPSILONS, delta=1e-6,
                                   dataset=load_dataset("mnist"), linkage=False, seed=0,
                                   parameters={"k": 32, "beta": 1.0, "seed": 0, "t": 1})
    assert np.array_equal(_values(frontier["data"][2]["y"]), smooth.attribute_success)
    assert not [b for b in page.button if b.key == "rp_frontier_run"]  # drawn: no button left


def test_the_target_answer_follows_the_target(page):
    def answer(at):
        return [m for m in _markdown(at) if m.startswith("The largest ε that keeps guessing one attribute")]

    before = answer(page)
    assert len(before) == 1 and "under 60 %" in before[0]
    page.number_input(key="rp_attack_target").set_value(0.9).run()
    _ok(page)
    after = answer(page)
    assert len(after) == 1 and "under 90 %" in after[0] and after != before
    # the library's answer over the page's grid, for the same settings
    curves = attacks.attack_curves("dp-oporp", epsilons=attacks.DEFAULT_EPSILONS, delta=1e-6,
                                   dataset=load_dataset("mnist"), linkage=False, seed=0,
                                   parameters={"k": 32, "beta": 1.0, "seed": 0})
    assert after[0] == attacks.largest_epsilon_under(0.9, curves, "attribute").sentence


def test_the_linkage_runs_from_its_button_on_the_digits():
    at = opened_page(PAGE, "random projections")
    at.selectbox(key="rp_dataset").set_value("digits").run()
    _ok(at)
    at.button(key="rp_linkage_run").click().run()
    _ok(at)
    expected = attacks.record_linkage("dp-oporp", epsilon=5.0, delta=1e-6, dataset="digits", seed=0,
                                      parameters={"k": 32, "beta": 1.0, "seed": 0})
    assert expected.sentence in _markdown(at)
    assert any("Record linkage against ε" in t for t in _titles(at))
    sentences = [m for m in _markdown(at) if m.startswith("The largest ε that keeps linking")]
    assert len(sentences) == 1 and "does not cover" in sentences[0]
