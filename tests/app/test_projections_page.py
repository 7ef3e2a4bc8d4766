"""The "Random projections" page's charts and notes (AppTest through the router): every chart
against ε marks the chosen ε, every log axis is labelled in full, no chart draws more than eight
lines by default, the at-risk rate of Figs. 7–8 is shown with a sentence under it, the paper's
slips the code corrects are listed, and adding a mechanism or a check computes only that."""
import base64
import json
import re

import numpy as np
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.presentation.projections.corrections import PAPER_CORRECTIONS
from privlib.presentation.style import tick_text
from privlib.projections import sweep as rp_sweep

PAGE = "pages/random_projections.py"

pytestmark = pytest.mark.slow  # the default view sweeps three mechanisms on MNIST (a few seconds)


@pytest.fixture(scope="module")
def counted():
    """The one-mechanism sweeps the page really computes (cache misses), by mechanism."""
    def mechanism(args, kwargs):
        return tuple(kwargs.get("mechanisms", args[1] if len(args) > 1 else ()))

    with counting_calls(rp_sweep, "sweep", mechanism) as calls:
        yield calls


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "random projections")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]

def _table(at) -> dict[str, list[str]]:
    """The per-mechanism table (Markdown: `figures.markdown_table`) as its columns of cell texts."""
    tables = [m.value for m in at.markdown if m.value.startswith("| mechanism |")]
    assert len(tables) == 1
    rows = [[re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in tables[0].splitlines()]
    header, body = rows[0], rows[2:]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}



def _charts(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _x_title(spec) -> str:
    title = spec["layout"].get("xaxis", {}).get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


def _marked_at(spec) -> list[float]:
    """The x of every vertical line of the chart (``add_vline``)."""
    return [shape["x0"] for shape in spec["layout"].get("shapes", []) if shape.get("x0") == shape.get("x1")]


def _lines(spec) -> list[str]:
    """The legend entries of a chart (the chosen-ε marker of the precision chart is not a line)."""
    return [t.get("name", "") for t in spec["data"]
            if t.get("showlegend", True) and not t.get("name", "").startswith("chosen ε")]


def _values(array) -> np.ndarray:
    """A plotted array of a spec: a list, or plotly's typed array {"dtype", "bdata" (base64)}."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_default_view_sweeps_a_few_mechanisms_and_says_how_many_are_hidden(page, counted):
    _ok(page)
    assert sorted(name for (name,) in counted) == sorted(
        ["dp-oporp", "dp-signoporp-rr", "dp-signoporp-rr-smooth"])  # one sweep per mechanism
    assert len(_table(page)["mechanism"]) == 3
    hidden = len(rp_sweep.DP_MECHANISMS) - 3
    assert f"Showing 3 of the {len(rp_sweep.DP_MECHANISMS)} DP mechanisms ({hidden} hidden" in _captions(page)
    assert "To answer in seconds" in _captions(page)


def test_no_chart_has_more_than_eight_lines_by_default(page):
    charts = _charts(page)
    assert len(charts) == 14  # 11, and the attacker's view: the trade-off curve, attack success against ε, the frontier
    for spec in charts:
        assert 1 <= len(_lines(spec)) <= 8, _lines(spec)


def test_every_log_axis_is_labelled_in_full(page):
    axes = []
    for spec in _charts(page):
        for name in ("xaxis", "yaxis"):
            axis = spec["layout"].get(name, {})
            if axis.get("type") == "log":
                axes.append(axis)
                assert axis.get("tickmode") == "array" and axis["tickvals"], axis
                assert axis["ticktext"] == [tick_text(v) for v in axis["tickvals"]]
                assert not any(text.endswith(("μ", "n", "m", "k")) for text in axis["ticktext"])
    assert len(axes) >= 9  # precision, σ (x, y), Δ₂, R (x, y), variance (x, y), angle (x, y), at-risk


def test_every_chart_against_epsilon_marks_the_chosen_epsilon(page):
    against_epsilon = [spec for spec in _charts(page) if _x_title(spec).startswith("ε")]
    assert len(against_epsilon) == 5  # precision, σ, variance, angle SD, attribute attack
    for spec in against_epsilon:
        assert _marked_at(spec) == [5.0], _x_title(spec)
        assert any(a.get("text") == "ε = 5" for a in spec["layout"]["annotations"])
    page.select_slider(key="rp_epsilon").set_value(2.0).run()
    _ok(page)
    for spec in (s for s in _charts(page) if _x_title(s).startswith("ε")):
        assert _marked_at(spec) == [2.0]
    page.select_slider(key="rp_epsilon").set_value(5.0).run()


def test_the_at_risk_rate_of_figs_7_and_8_is_charted_with_a_sentence(page):
    at_risk = [spec for spec in _charts(page) if any("(eq. 31)" in name for name in _lines(spec))]
    assert len(at_risk) == 1
    spec = at_risk[0]
    assert {"Rademacher, β = 1 (eq. 31)", "Gaussian, β = 1 (eq. 32)", "Rademacher, β = 0.1 (eq. 31)",
            "Gaussian, β = 0.1 (eq. 32)"} == set(_lines(spec))
    assert _marked_at(spec) == [784.0]  # MNIST's p
    rademacher = next(t for t in spec["data"] if t["name"] == "Rademacher, β = 1 (eq. 31)")
    gaussian = next(t for t in spec["data"] if t["name"] == "Gaussian, β = 1 (eq. 32)")
    r, g = _values(rademacher["y"]), _values(gaussian["y"])
    assert r.size == g.size >= 10 and np.all((0 < r) & (r < g) & (g < 1))  # Rademacher puts fewer bits at risk
    assert "share of bits at risk" in _captions(page) and "Figs. 7–8" in _captions(page)


def test_the_papers_slips_the_code_corrects_are_listed(page):
    box = next(e for e in page.expander if "slips corrected" in e.label)
    assert f"({len(PAPER_CORRECTIONS)} slips corrected)" in box.label
    text = " ".join(m.value for m in box.markdown)
    assert text.count("\n- ") == len(PAPER_CORRECTIONS) - 1  # one line each
    assert "**Alg 7 (DP-SignRP-RR-smooth).** The paper prints" in text and "both unscaled" in text
    assert "k* = εθ(π−θ)/F" in text


def test_the_monte_carlo_check_runs_only_on_request(page):
    def variance_traces():
        spec = next(s for s in _charts(page) if any("(eq. 19)" in t.get("name", "") for t in s["data"]))
        return [t["name"] for t in spec["data"]]

    assert not any("simulated" in name for name in variance_traces())
    page.toggle(key="rp_variance_check").set_value(True).run()
    _ok(page)
    assert sum("simulated" in name for name in variance_traces()) == 3
    assert "Monte Carlo check" in _captions(page)
    page.toggle(key="rp_variance_check").set_value(False).run()
    _ok(page)


def test_adding_a_mechanism_sweeps_only_it_and_a_setting_only_its_readers(page, counted):
    """On the small digits data (which settings a sweep reads does not depend on the data; MNIST's sweeps
    cost 10 times as much), then back to MNIST, whose sweeps are cached since the first view."""
    before = len(counted)
    page.selectbox(key="rp_dataset").set_value("digits").run()
    _ok(page)
    assert sorted(counted[before:]) == [("dp-oporp",), ("dp-signoporp-rr",), ("dp-signoporp-rr-smooth",)]
    before = len(counted)
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp", "dp-signoporp-rr", "dp-signoporp-rr-smooth",
                                                     "dp-rp-g-opt-b"]).run()
    _ok(page)
    assert counted[before:] == [("dp-rp-g-opt-b",)]
    assert "(7 hidden" in _captions(page)
    before = len(counted)
    page.select_slider(key="rp_t").set_value(2).run()  # only the DP-SignOPORPs read t
    _ok(page)
    assert sorted(counted[before:]) == [("dp-signoporp-rr",), ("dp-signoporp-rr-smooth",)]
    before = len(counted)
    page.selectbox(key="rp_projection").set_value("gaussian").run()  # only DP-RP-G-OPT-B reads it
    _ok(page)
    assert counted[before:] == [("dp-rp-g-opt-b",)]
    page.selectbox(key="rp_projection").set_value("rademacher").run()
    page.select_slider(key="rp_t").set_value(1).run()
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp", "dp-signoporp-rr", "dp-signoporp-rr-smooth"]).run()
    _ok(page)
    before = len(counted)
    page.selectbox(key="rp_dataset").set_value("mnist").run()
    _ok(page)
    assert counted[before:] == []  # the first view's sweeps, cached
