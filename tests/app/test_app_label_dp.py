"""The "Label DP" page in-process (AppTest): it renders every chart without an exception and with the
privacy meter, moving ε reruns no sweep (the sweep covers the ε grid; ε moves the markers and picks
the scatter run), the Fig. 1 presets reproduce the paper's setting within sampling error, the theory
tab flags vacuous bounds, and a real dataset switches to fast defaults."""
import base64
import json
import math
import time

import numpy as np
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.label_dp import sweep as sweep_module

PAGE = "pages/label_dp.py"
LN_1_5 = math.log(1.5)

pytestmark = pytest.mark.slow  # a Streamlit script run per step; the first one sweeps and draws the theory


@pytest.fixture(scope="module")
def counted():
    """The sweeps the page really computes (cache misses)."""
    with counting_calls(sweep_module, "sweep") as calls:
        yield calls


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "label DP")


def _spec(chart) -> dict:
    return json.loads(chart.proto.spec)


def _text(chart) -> str:
    spec = _spec(chart)
    names = [t.get("name") or "" for t in spec["data"]]
    notes = [a.get("text", "") for a in spec["layout"].get("annotations", [])]
    return " | ".join(names + notes + [json.dumps(spec["layout"].get("title"), ensure_ascii=False)])


def _array(value) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array {dtype, bdata (base64)}."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def _curve(chart, name: str, epsilon: float) -> float:
    """The y value of trace ``name`` at ε (the accuracy chart's data)."""
    (trace,) = [t for t in _spec(chart)["data"] if t.get("name") == name]
    xs, ys = _array(trace["x"]), _array(trace["y"])
    i = int(np.argmin(np.abs(np.log(xs) - math.log(epsilon))))
    assert xs[i] == pytest.approx(epsilon, rel=1e-9)
    return float(ys[i])


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_default_view_renders_every_chart_and_the_privacy_meter(page, counted):
    _ok(page)
    assert page.title[0].value == "Label DP: randomised response and retraining"
    charts = page.get("plotly_chart")
    # accuracy, scatter, label lines, label bars, heat map, the attacker's view's four, two theory charts
    assert len(charts) == 11
    main = _text(charts[0])
    assert "consensus retraining" in main and "non-private" in main and "chosen ε = 0.405" in main
    assert "e^ε/(e^ε + C − 1), C = 2" in main
    assert "flipped (×)" in _text(charts[1]) and "boundary after consensus retraining" in _text(charts[1])
    meter = next(i.value for i in page.info if i.value.startswith("**Privacy.**"))
    for sentence in ("Each run is ε-label DP", "every label is randomised once per run",
                     "retraining is post-processing", "features are not protected",
                     ("Flip markers, label-accuracy bars and the non-private line use clean labels: they are teaching "
                      "diagnostics, not private, and never feed training or the choice of variant")):
        assert sentence in meter
    assert "ε-DP" not in meter.replace("ε-label DP", "")
    assert any("Why consensus works" in s.value for s in page.success)
    assert any("entrenches its mistakes" in w.value for w in page.warning)
    assert len(counted) == 1 + 6  # the sweep, and one per separation of the heat map
    metrics = {m.label: m.value for m in page.metric}
    assert metrics["P(keep)"] == "0.600" and metrics["P(flip)"] == "0.400"  # ε = ln 1.5, C = 2: (C − 1)/(e^ε + C − 1)


def test_moving_epsilon_reruns_no_sweep(page, counted):
    before = len(counted)
    timings = []
    for eps in (2.0, 0.5, 2.0):
        started = time.perf_counter()
        page.select_slider(key="ldp_epsilon").set_value(eps).run()
        timings.append(time.perf_counter() - started)
        _ok(page)
        assert f"chosen ε = {eps:.3g}" in _text(page.get("plotly_chart")[0])
        assert f"One run at ε = {eps:.3g}" in _text(page.get("plotly_chart")[1])
    print("label DP: epsilon changes rendered in " + ", ".join(f"{t:.2f}" for t in timings)
          + " s (AppTest, in process; the last one fully cached)")
    assert len(counted) == before  # the sweep and the heat map are reused (time is measured in bench/, not here)
    metrics = {m.label: m.value for m in page.metric}
    assert metrics["P(keep)"] == f"{math.exp(2) / (math.exp(2) + 1):.3f}"


def test_figure_1_presets_reproduce_the_paper_setting(page, counted):
    page.button(key="ldp_preset_Fig. 1, Δ = 0.3").click().run()
    _ok(page)
    assert page.select_slider(key="ldp_epsilon").value == LN_1_5
    assert page.select_slider(key="ldp_delta").value == 0.3 and page.select_slider(key="ldp_d").value == 50
    assert page.selectbox(key="ldp_variant").value == "full" and page.slider(key="ldp_repeats").value == 20
    main = page.get("plotly_chart")[0]
    # spec Fig. 1 table, Δ = 0.3 (2,000 repetitions): baseline 0.654 ± 0.046, full 0.637 ± 0.047; here 20 runs
    for name, reference, sd in (("baseline (no retraining)", 0.654, 0.046), ("full retraining", 0.637, 0.047)):
        assert abs(_curve(main, name, LN_1_5) - reference) < 4 * sd / math.sqrt(20), name
    page.button(key="ldp_preset_Fig. 1, Δ = 0.5").click().run()
    _ok(page)
    main = page.get("plotly_chart")[0]
    for name, reference, sd in (("baseline (no retraining)", 0.835, 0.069), ("full retraining", 0.954, 0.052)):
        assert abs(_curve(main, name, LN_1_5) - reference) < 4 * sd / math.sqrt(20), name
    assert _curve(main, "full retraining", LN_1_5) > _curve(main, "baseline (no retraining)", LN_1_5)
    # d = 2, n = 200: full retraining helps at Δ = 0.3 (gain +0.017 ± 0.001 over 400 runs) and hurts at
    # Δ = 0.2 (−0.056 ± 0.003); 20 runs have an SE of about 0.006 and 0.014
    for preset, sign in (("d = 2, Δ = 0.3 (retraining helps)", 1), ("d = 2, Δ = 0.2 (retraining hurts)", -1)):
        page.button(key=f"ldp_preset_{preset}").click().run()
        _ok(page)
        assert page.select_slider(key="ldp_d").value == 2 and page.select_slider(key="ldp_n").value == 200
        main = page.get("plotly_chart")[0]
        gain = _curve(main, "full retraining", LN_1_5) - _curve(main, "baseline (no retraining)", LN_1_5)
        assert sign * gain > 0, (preset, gain)


def test_theory_tab_flags_vacuous_bounds_and_lists_theta_results(page):
    _ok(page)
    warnings = [w.value for w in page.warning]
    assert any("Vacuous below n ≈ 2.31e+06" in w and "4.79e+06" in w for w in warnings)
    assert any("illustrative, not a proven bound for this law" in w for w in warnings)
    theta = next(m.value for m in page.markdown if "Thm 2, upper bound" in m.value)
    assert theta.count("Θ: constants not given") == 6 and "Remark 4" in theta
    charts = page.get("plotly_chart")
    assert "α₁(x)" in _text(charts[-2]) and "eq. 141" in _text(charts[-1])
    page.radio(key="ldp_law").set_value("compliant").run()
    _ok(page)
    assert not any("illustrative" in w.value for w in page.warning)
    page.select_slider(key="ldp_theory_d").set_value(16).run()
    _ok(page)
    assert any("vacuous for every n at d = 16" in w.value for w in page.warning)
    page.radio(key="ldp_law").set_value("two_point").run()
    page.select_slider(key="ldp_theory_d").set_value(50).run()


def test_fresh_unlabelled_set_has_no_consensus_curve(page):
    page.selectbox(key="ldp_variant").set_value("consensus").run()
    page.radio(key="ldp_fresh").set_value(True).run()
    _ok(page)
    main = _text(page.get("plotly_chart")[0])
    assert "full retraining" in main and "consensus retraining" not in main
    assert any("Kept the baseline model" in c.value and "undefined" in c.value for c in page.caption)
    page.radio(key="ldp_fresh").set_value(False).run()
    _ok(page)


def test_a_real_dataset_switches_to_fast_defaults_and_draws_regions(page, counted):
    page.toggle(key="ldp_heatmap").set_value(False).run()
    before = len(counted)
    page.selectbox(key="ldp_dataset").set_value("mnist").run()
    _ok(page)
    assert page.selectbox(key="ldp_model").value == "logistic" and page.slider(key="ldp_repeats").value == 5
    assert len(counted) == before + 1
    charts = page.get("plotly_chart")
    assert len(charts) == 10  # no heat map
    assert "C = 10" in _text(charts[0])
    scatter = _spec(charts[1])
    assert [t for t in scatter["data"] if t["type"] == "heatmap"]  # predicted regions on the PCA plane
    assert "principal component" in json.dumps(scatter["layout"]["xaxis"], ensure_ascii=False)


def test_digits_with_three_classes_drives_the_experiment(page, counted):
    page.toggle(key="ldp_heatmap").set_value(False).run()
    page.selectbox(key="ldp_dataset").set_value("digits").run()
    _ok(page)
    assert page.number_input(key="ldp_classes").value == 10
    before = len(counted)
    page.number_input(key="ldp_classes").set_value(3).run()
    _ok(page)
    assert len(counted) == before + 1  # C is part of the sweep's cache key
    assert counted[-1].classes == 3 and set(np.unique(counted[-1].y_train)) == {0, 1, 2}
    assert "C = 3" in _text(page.get("plotly_chart")[0])
    metrics = {m.label: m.value for m in page.metric}
    eps = page.select_slider(key="ldp_epsilon").value
    assert metrics["P(keep)"] == f"{math.exp(eps) / (math.exp(eps) + 2):.3f}"
    assert any("first C = 3 digit classes" in c.value for c in page.caption)
    page.selectbox(key="ldp_dataset").set_value("fig1").run()
    _ok(page)
    assert any("**Classes C:** 2" in m.value for m in page.markdown)
    assert not [w for w in page.number_input if w.key == "ldp_classes"]
