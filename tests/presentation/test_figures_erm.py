"""Figures of the private-learning topic: every chart plots the numbers of the privlib.erm result it is
given (a real sweep's SweepResult, meters, trade-off, inside view and calibration — no fakes), with the
labels the page must show ("rate O(1/n), not a bound", "invalid for ε ≥ 1", the model guarantee and the
tags), and the builders are pure and import only privlib.erm and the shared style."""
import ast
import copy
import math
from pathlib import Path

import numpy as np
import pytest

from privlib.erm.calibration import calibrate, privacy_meters
from privlib.erm.mechanisms import METHOD_LABELS, METHODS
from privlib.erm.sweep import inflation_tradeoff, inside_view, n_sweep
from privlib.erm.sweep import sweep as epsilon_sweep
from privlib.presentation.erm import figures as F

ROOT = Path(__file__).resolve().parents[2]
NS = (300, 1000, 3000)


@pytest.fixture(scope="module")
def sweep():
    return n_sweep("synthetic", METHODS, NS, epsilon=1.0, delta=1e-6, d=10, repeats=3, seed=0)


def named(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, [t.name for t in fig.data]
    return found[0]


def same(actual, expected):
    """Arrays equal, NaN where NaN (plotly keeps NaN as NaN in a float array)."""
    np.testing.assert_array_equal(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float))


def test_method_labels_carry_the_library_label_and_the_tag():
    assert F.method_label("input_safe") == METHOD_LABELS["input_safe"] + " (beyond the paper)"
    assert F.method_label("input_asymptotic") == METHOD_LABELS["input_asymptotic"] + " [R]"
    assert F.method_label("obj_gauss") == METHOD_LABELS["obj_gauss"] and "KST12" in F.method_label("obj_gauss")
    assert set(F.METHOD_COLOURS) == set(METHODS)


def test_metric_chart_plots_the_sweep_means_and_sd_bands(sweep):
    fig = F.sweep_metric_chart(sweep, chosen=1000, invalid_below=410)
    assert sweep.mechanisms == METHODS
    for m in sweep.mechanisms:
        line = named(fig, F.method_label(m))
        same(line.x, NS)
        same(line.y, sweep.mean(m, "rmse"))
        same(np.asarray(line.customdata)[:, 0], sweep.sd(m, "rmse"))
    # the safe input calibration does not exist at n = 300 (ε = 1, δ = 1e-6: n ≥ 410): a gap, not a value
    assert sweep.count("input_safe", "rmse")[0] == 0 and np.isnan(named(fig, F.method_label("input_safe")).y[0])
    band = named(fig, F.method_label("obj_gauss") + " ± SD")
    mean, sd = sweep.mean("obj_gauss", "rmse"), sweep.sd("obj_gauss", "rmse")
    assert band.fill == "toself" and band.mode == "lines"
    np.testing.assert_allclose(band.y, np.concatenate([mean + sd, (mean - sd)[::-1]]))
    safe_band = named(fig, F.method_label("input_safe") + " ± SD")
    assert list(safe_band.x) == [1000, 3000, 3000, 1000]  # only where the calibration is valid
    assert not [t for t in fig.data if t.name == F.method_label("non_private") + " ± SD"]
    assert named(fig, F.method_label("non_private")).line.dash == "dash"
    marker = named(fig, "chosen n = 1,000")
    assert sorted(marker.y) == sorted(float(sweep.mean(m, "rmse")[1]) for m in METHODS)
    (shade,) = [s for s in fig.layout.shapes if s.type == "rect"]
    assert shade.x1 == 410
    assert any("Input (safe) invalid" in a.text for a in fig.layout.annotations)
    assert fig.layout.xaxis.type == "log" and "n, the number of contributors" in fig.layout.xaxis.title.text
    assert "RMSE" in fig.layout.yaxis.title.text


def test_excess_risk_chart_is_log_log_with_a_slope_minus_one_reference(sweep):
    fig = F.sweep_excess_chart(sweep)
    assert not [t for t in fig.data if t.name == F.method_label("non_private")]  # zero excess: not on a log axis
    for m in METHODS[1:]:
        excess = sweep.mean(m, "excess_risk")
        same(named(fig, F.method_label(m)).y, np.where(excess > 0, excess, np.nan))
    rate = named(fig, "rate O(1/n), not a bound")
    assert rate.line.dash == "dash"
    x, y = np.asarray(rate.x, dtype=float), np.asarray(rate.y, dtype=float)
    np.testing.assert_allclose(x * y, x[0] * y[0], rtol=1e-12)  # slope −1 on log–log axes
    first = [sweep.mean(m, "excess_risk")[0] for m in METHODS[1:] if np.isfinite(sweep.mean(m, "excess_risk")[0])]
    assert y[0] == pytest.approx(math.exp(np.mean(np.log(first))), rel=1e-12)  # through the curves' geometric mean
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_epsilon_axis_says_which_way_is_more_privacy_and_has_no_rate_line():
    sweep = epsilon_sweep("diabetes", ("non_private", "obj_gauss", "input_safe"), (1.0, 10.0), delta=1e-5,
                          repeats=2, seed=0)
    fig = F.sweep_metric_chart(sweep, chosen=10.0)
    assert "more privacy" in fig.layout.xaxis.title.text
    same(named(fig, F.method_label("obj_gauss")).x, [1.0, 10.0])
    assert np.isnan(named(fig, F.method_label("input_safe")).y[0])  # invalid at ε = 1 (needs ε > 1.16)
    assert named(fig, "chosen ε = 10")
    excess = F.sweep_excess_chart(sweep)
    assert not [t for t in excess.data if t.name == F.RATE_LABEL]


def test_meters_chart_plots_the_accountant_and_the_exact_and_classic_local_epsilon():
    ns = (353, 1000, 10_000)
    meters = privacy_meters(1.0, 1e-5, ns, 10)
    fig = F.meters_chart(meters, 1.0, chosen_n=1000)
    model = next(t for t in fig.data if t.name.startswith("model ε (accountant)"))
    assert F.MODEL_GUARANTEE in model.name
    exact = next(t for t in fig.data if t.name.startswith("contributor ε_L (exact"))
    classic = next(t for t in fig.data if "classic formula" in t.name)
    assert "invalid for ε ≥ 1" in classic.name and classic.line.dash == "dash"
    same(model.y, meters.epsilon_model)
    same(exact.y, meters.epsilon_L)
    same(classic.y, meters.epsilon_L_classic)
    # the reference values (d = 10, R = 1, A = 1, B = 2, ε = 1, δ = 1e-5): n = 353 invalid; n = 1000
    assert np.isnan(model.y[0]) and np.isnan(exact.y[0])
    assert model.y[1] == pytest.approx(0.9055, abs=5e-5) and exact.y[1] == pytest.approx(231.85, abs=0.01)
    assert exact.y[2] == pytest.approx(7060.7, abs=0.1)
    assert set(named(fig, "target ε = 1").y) == {1.0}
    assert any("invalid" in a.text for a in fig.layout.annotations)
    assert next(s for s in fig.layout.shapes if s.type == "rect").x1 == 1000  # shaded up to the first valid n
    assert fig.layout.yaxis.type == "log" and "more privacy" in fig.layout.yaxis.title.text


def test_tradeoff_chart_plots_local_epsilon_against_rmse_coloured_by_model_epsilon():
    tradeoff = inflation_tradeoff(dataset="synthetic", n=10_000, epsilon=1.0, delta=1e-5, inflations=(1.0, 100.0),
                                  repeats=2, seed=0)
    fig = F.tradeoff_chart(tradeoff, chosen_m=100.0)
    points = fig.data[0]
    same(points.x, tradeoff.epsilon_L)
    same(points.y, tradeoff.mean)
    same(points.marker.color, tradeoff.epsilon_model)
    # each point's m is a tick of the top axis, at the point's ε_L (not a label over the error bars)
    top = fig.layout.xaxis2
    assert list(top.ticktext) == ["1", "100"] and list(top.tickvals) == list(points.x) and not points.text
    assert list(top.range) == list(fig.layout.xaxis.range) and "m (local multiplier)" in top.title.text
    # the reference row n = 10⁴ with m = 100: ε_model 0.1228, ε_L 113.78
    assert points.marker.color[1] == pytest.approx(0.1228, abs=5e-5) and points.x[1] == pytest.approx(113.78, abs=0.01)
    marker = named(fig, "chosen m = 100")
    assert list(marker.x) == [points.x[1]] and list(marker.y) == [points.y[1]]
    assert fig.layout.xaxis.type == "log" and "ε_L" in fig.layout.xaxis.title.text


def test_inside_view_chart_and_rows_show_the_raw_and_submitted_records():
    view = inside_view(n_records=50, dataset="synthetic", epsilon=1.0, delta=1e-5, n=1000, d=10, seed=3)
    fig = F.view_chart(view)
    raw = [t for t in fig.data if t.name.startswith("raw")]
    sent = [t for t in fig.data if t.name.startswith("submitted")]
    assert len(raw) == len(sent) == 2  # a on the left, b on the right
    same(raw[0].x, view.a[:, 0])
    same(raw[0].y, view.a[:, 1])
    same(sent[0].x, view.a_tilde[:, 0])
    same(raw[1].y, view.b[:, 1])
    same(sent[1].y, view.b_tilde[:, 1])
    bounds = [t for t in fig.data if t.name.startswith("public bounds")]
    assert max(np.hypot(bounds[0].x, bounds[0].y)) == pytest.approx(view.calibration.A)
    assert max(np.hypot(bounds[1].x, bounds[1].y)) == pytest.approx(view.calibration.B)
    rows = F.view_rows(view, count=4)
    assert [r["contributor"] for r in rows] == [1, 2, 3, 4]
    assert rows[0]["raw a"] == "(" + ", ".join(f"{v:+.3f}" for v in view.a[0, :3]) + ", …)"
    assert rows[2]["submitted b̃"] == "(" + ", ".join(f"{v:+.3f}" for v in view.b_tilde[2, :3]) + ", …)"
    assert rows[1]["‖b‖ → ‖b̃‖"] == f"{np.linalg.norm(view.b[1]):.3f} → {np.linalg.norm(view.b_tilde[1]):.3f}"


def test_explainer_chart_compares_the_ridge_and_the_linear_term_with_kst12():
    safe = calibrate(1.0, 1e-5, 1000, 10)
    asymptotic = calibrate(1.0, 1e-5, 1000, 10, route="asymptotic")
    fig = F.calibration_explainer_chart(safe, asymptotic)
    ridge, linear = fig.data
    # KST12 (ζ = 4, λ = 2, replace-one): Δ = 4, so Δ/(2n) = 0.002; β² = 4 × 1626.377299
    np.testing.assert_allclose(ridge.y, [0.002, safe.input.sigma_a**2, asymptotic.input.sigma_a**2], rtol=1e-12)
    np.testing.assert_allclose(linear.y, [math.sqrt(4 * 1626.377299), math.sqrt(1000) * safe.input.sigma_b,
                                          math.sqrt(1000) * asymptotic.input.sigma_b], rtol=1e-9)
    # the asymptotic match is exactly KST12's ridge and linear term; the safe calibration pays more for finite n
    assert ridge.y[2] == pytest.approx(ridge.y[0], rel=1e-12) and linear.y[2] == pytest.approx(linear.y[0], rel=1e-12)
    assert ridge.y[1] > ridge.y[0] and linear.y[1] > linear.y[0]
    assert ridge.y[1] == pytest.approx(0.11292974**2, rel=1e-6)
    invalid = F.calibration_explainer_chart(calibrate(1.0, 1e-5, 353, 10))
    assert list(invalid.data[0].text) == ["Δ/(2n) = 0.00567", "invalid"]


def test_builders_are_pure():
    curves = {"obj_gauss": {"mean": [0.3, 0.2], "sd": [0.01, 0.02]}, "input_safe": {"mean": [np.nan, 0.25],
                                                                                  "sd": [np.nan, 0.03]}}
    before = copy.deepcopy(curves)
    first = F.metric_vs_axis([100, 1000], curves, chosen=1000, invalid_below=410).to_json()
    assert F.metric_vs_axis([100, 1000], curves, chosen=1000, invalid_below=410).to_json() == first
    assert curves.keys() == before.keys() and all(
        np.array_equal(curves[k]["mean"], before[k]["mean"], equal_nan=True) for k in curves)


def test_figures_import_only_privlib_erm_and_the_style_and_never_streamlit():
    tree = ast.parse((ROOT / "privlib/presentation/erm/figures.py").read_text())
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    privlib = {m for m in modules if m.startswith("privlib")}
    assert "privlib.presentation.style" in privlib
    assert all(m.startswith("privlib.erm") or m == "privlib.presentation.style" for m in privlib), privlib
    assert not any(m.split(".")[0] == "streamlit" for m in modules)


def test_metric_chart_draws_the_constant_predictor_of_the_sweep(sweep):
    fig = F.sweep_metric_chart(sweep)
    lines = [t for t in fig.data if t.name == F.CONSTANT_LABEL]
    assert len(lines) == 1 and lines[0].line.dash == "dot"
    np.testing.assert_array_equal(np.asarray(lines[0].y, dtype=float), sweep.mean("output", "constant_rmse"))
    np.testing.assert_array_equal(np.asarray(lines[0].x, dtype=float), np.asarray(NS, dtype=float))


def test_end_to_end_sweep_to_figures_with_seven_repeats():
    """A fresh sweep (7 repeats, classification: the accuracy metric) straight into both charts: every line
    is the result's mean, the hover says how many repeats, the accuracy axis is labelled."""
    result = n_sweep("synthetic", ("non_private", "obj_gauss", "output"), (500, 5000), epsilon=2.0, delta=1e-6,
                     d=5, repeats=7, seed=11, task="classification")
    fig = F.sweep_metric_chart(result, chosen=5000)
    for m in result.mechanisms:
        line = named(fig, F.method_label(m))
        same(line.y, result.mean(m, "accuracy"))
        assert "over 7 repeats" in line.hovertemplate
    assert "accuracy" in fig.layout.yaxis.title.text
    assert np.all(np.asarray(named(fig, F.method_label("obj_gauss")).y, dtype=float) > 0.5)  # better than chance
    excess = F.sweep_excess_chart(result)
    same(named(excess, F.method_label("output")).y, result.mean("output", "excess_risk"))
