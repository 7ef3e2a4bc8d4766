"""Figures of the label-DP topic: traces, labels and the numbers they plot (the given-label line
against the closed form e^ε/(e^ε + C − 1) and its reference values; the theory charts against the
reference values of α and α̂), the geometry of the scatter chart, and that the builders are pure."""
import copy
import math

import numpy as np
import pytest

from privlib.label_dp import theory
from privlib.label_dp.datasets import digits, fig1_mixture
from privlib.label_dp.mechanisms import RR
from privlib.label_dp.retraining import retrain
from privlib.label_dp.sweep import retraining_sweep
from privlib.presentation.label_dp import figures as F

EPS = [0.1, 1.0, 2.0, 4.0]


def trace(fig, start):
    found = [t for t in fig.data if t.name and t.name.startswith(start)]
    assert found, [t.name for t in fig.data]
    return found[0]


def exact(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, [t.name for t in fig.data]
    return found[0]


@pytest.mark.parametrize("classes, epsilon, keep", [
    (2, math.log(1.5), 0.6), (2, 1.0, 0.7310585786), (4, 0.3, 0.3103224420), (4, 0.5, 0.3546612444),
    (4, 0.8, 0.4258967558), (10, 1.0, 0.2319693167), (10, 2.0, 0.4508530604), (10, 3.0, 0.6905678577),
    (100, 3.0, 0.1686647887), (100, 4.0, 0.3554609871), (100, 5.0, 0.5998596018)])
def test_given_label_accuracy_reference_values(classes, epsilon, keep):
    assert F.given_label_accuracy([epsilon], classes)[0] == pytest.approx(keep, abs=1e-10)


def test_accuracy_chart_lines_bands_reference_lines_and_marker():
    curves = {"baseline": {"mean": [0.2, 0.5, 0.8, 0.9], "sd": [0.01, 0.02, 0.03, 0.04]},
              "consensus": ([0.25, 0.6, 0.9, 0.95], [0.02] * 4), "full": [0.22, 0.55, 0.85, 0.93]}
    before = copy.deepcopy(curves)
    fig = F.accuracy_vs_epsilon(EPS, curves, 10, nonprivate=0.97, chosen_epsilon=2.0, repeats=5)
    assert curves == before  # the input is not modified
    assert fig.to_json() == F.accuracy_vs_epsilon(EPS, curves, 10, nonprivate=0.97, chosen_epsilon=2.0,
                                                  repeats=5).to_json()  # pure
    base = exact(fig, "baseline (no retraining)")
    assert list(base.x) == EPS and list(base.y) == [0.2, 0.5, 0.8, 0.9]
    band = exact(fig, "baseline (no retraining) ± SD")
    assert band.fill == "toself" and list(band.y[:4]) == pytest.approx([0.21, 0.52, 0.83, 0.94])
    assert list(band.y[4:]) == pytest.approx([0.86, 0.77, 0.48, 0.19])  # mean − SD, reversed
    assert not [t for t in fig.data if t.name == "full retraining ± SD"]  # no SD given: no band
    assert set(trace(fig, "non-private").y) == {0.97}
    given = trace(fig, "given-label accuracy")
    assert "C = 10" in given.name and given.line.dash == "dot"
    assert np.allclose(given.y, [math.exp(e) / (math.exp(e) + 9) for e in given.x], rtol=1e-12)
    assert min(given.x) == pytest.approx(0.1) and max(given.x) == pytest.approx(4.0)
    marker = trace(fig, "chosen ε = 2")
    assert set(marker.x) == {2.0} and sorted(marker.y) == [0.8, 0.85, 0.9]
    assert fig.layout.xaxis.type == "log" and "more privacy" in fig.layout.xaxis.title.text
    (note,) = [a for a in fig.layout.annotations if a.text == "ε = 2"]
    assert note.x == pytest.approx(math.log10(2.0))  # annotations on a log axis are placed by log10(x)
    assert fig.layout.shapes[0].x0 == 2.0
    assert not [t for t in F.accuracy_vs_epsilon(EPS, curves, 10, chosen_epsilon=3.0).data
                if t.name.startswith("chosen")]  # off the grid: only the vertical line


def test_label_accuracy_chart_and_bars():
    series = {"given_label_accuracy": [0.15, 0.23, 0.45, 0.86], "predicted_label_accuracy": [0.25, 0.5, 0.85, 0.96],
              "consensus_label_accuracy": [0.28, 0.58, 0.93, 0.99], "consensus_fraction": [0.24, 0.27, 0.45, 0.84]}
    fig = F.label_accuracy_vs_epsilon(EPS, series, classes=10, chosen_epsilon=1.0)
    assert list(trace(fig, "given labels").y) == series["given_label_accuracy"]
    assert trace(fig, "consensus fraction").line.dash == "dash"
    assert sorted(trace(fig, "chosen ε = 1").y) == sorted([0.23, 0.5, 0.58, 0.27])
    assert fig.layout.xaxis.type == "log" and "more privacy" in fig.layout.xaxis.title.text
    assert "diagnostic" in fig.layout.yaxis.title.text
    bars = F.label_accuracy_bars({k: v[1] for k, v in series.items()}, {"given_label_accuracy": 0.01}, epsilon=1.0)
    bar = bars.data[0]
    assert list(bar.y) == [0.23, 0.5, 0.58, 0.27]
    assert list(bar.customdata) == ["given labels ŷ", "predicted labels ỹ", "ỹ on the consensus set",
                                    "consensus fraction"]
    # each value is written under its bar (in its category label), not above it where the error bar is
    assert [x.split("<br>")[-1] for x in bar.x] == ["<b>23.0%</b>", "<b>50.0%</b>", "<b>58.0%</b>", "<b>27.0%</b>"]
    assert not bar.text and bar.textposition is None and not bars.layout.annotations
    assert list(bar.marker.pattern.shape) == ["", "", "", "/"]  # the fraction is a size, not an accuracy
    assert bar.error_y.array[0] == 0.01 and np.isnan(bar.error_y.array[1])
    assert "ε = 1" in bars.layout.title.text


def test_gain_heatmap_cells_centre_and_chosen_cell():
    gain = np.array([[0.10, -0.20, np.nan, 0.0], [0.0, 0.05, 0.10, 0.02]])
    fig = F.gain_heatmap(EPS, [0.2, 0.5], gain, chosen_epsilon=2.0, chosen_separation=0.5)
    heat = fig.data[0]
    assert list(heat.x) == ["0.1", "1", "2", "4"] and list(heat.y) == ["0.2", "0.5"]
    assert np.array_equal(np.asarray(heat.z, dtype=float), gain, equal_nan=True)
    assert heat.zmid == 0 and heat.zmin == -0.2 and heat.zmax == 0.2  # symmetric: white = no gain
    assert heat.text[0][2] == "" and heat.text[0][1] == "-0.200"
    (box,) = fig.layout.shapes
    assert (box.x0, box.x1, box.y0, box.y1) == (1.5, 2.5, 0.5, 1.5)  # column ε = 2, row Δ = 0.5
    assert "more privacy" in fig.layout.xaxis.title.text and "consensus" in fig.layout.title.text
    assert not F.gain_heatmap(EPS, [0.2, 0.5], gain, chosen_epsilon=3.0, chosen_separation=0.5).layout.shapes
    with pytest.raises(ValueError, match="shape"):
        F.gain_heatmap(EPS, [0.2], gain)


def test_plane_coordinates_first_two_and_principal_components():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 6)) @ np.diag([3.0, 0.5, 2.0, 0.3, 0.2, 0.1]) + 5.0
    z, centre, basis = F.plane_coordinates(X, first_two=True)
    assert np.array_equal(z, X[:, :2]) and not centre.any()
    z, centre, basis = F.plane_coordinates(X)
    assert np.allclose(basis.T @ basis, np.eye(2), atol=1e-12)
    assert np.allclose(centre, X.mean(axis=0))
    # the plane captures the two largest eigenvalues of the covariance (independent oracle: eigh)
    top = np.sort(np.linalg.eigvalsh(np.cov(X, rowvar=False)))[::-1][:2]
    assert np.allclose(np.sort(np.var(z, axis=0, ddof=1))[::-1], top, rtol=1e-10)
    assert all(basis[np.argmax(np.abs(basis[:, k])), k] > 0 for k in range(2))  # deterministic sign
    with pytest.raises(ValueError):
        F.plane_coordinates(X[:, :1])


def test_boundary_in_plane_is_the_rule_restricted_to_the_plane():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 5))
    _, centre, basis = F.plane_coordinates(X)
    theta, b = rng.standard_normal(5), 0.3
    w, c = F.boundary_in_plane(theta, b, centre, basis)
    for t in (-2.0, 0.0, 1.5):  # points of the line w·z + c = 0 lie on ⟨θ, x⟩ + b = 0
        z = -c * w / (w @ w) + t * np.array([-w[1], w[0]])
        assert theta @ (centre + basis @ z) + b == pytest.approx(0.0, abs=1e-12)


def test_data_scatter_marks_flips_consensus_and_draws_boundaries_in_both_panels():
    rng = np.random.default_rng(1)
    z = rng.standard_normal((60, 2))
    clean = (z[:, 0] > 0).astype(int)
    given = np.where(rng.random(60) < 0.3, 1 - clean, clean)
    predicted = clean.copy()
    consensus = predicted == given
    fig = F.data_scatter(z, given, predicted, consensus, 2, clean=clean, class_names=["−1", "+1"],
                         boundaries=[{"label": "before", "w": np.array([1.0, 0.2]), "c": 0.1, "dash": "dash"}])
    flips = int((given != clean).sum())
    crosses = [t for t in fig.data if t.marker.symbol == "x"]
    assert sum(len(t.x) for t in crosses) == flips and f"{flips} flipped" in fig.layout.annotations[0].text
    filled = [t for t in fig.data if t.name and "(consensus)" in t.name]
    assert sum(len(t.x) for t in filled) == int(consensus.sum())
    assert f"({int(consensus.sum())} of 60)" in fig.layout.annotations[1].text
    lines = [t for t in fig.data if t.name == "before"]
    assert len(lines) == 2 and {t.xaxis for t in lines} == {"x", "x2"}
    for x, y in zip(lines[0].x, lines[0].y):
        assert x * 1.0 + y * 0.2 + 0.1 == pytest.approx(0.0, abs=1e-12)
    # no clean labels: no flip markers
    assert not [t for t in F.data_scatter(z, given, predicted, consensus, 2).data if t.marker.symbol == "x"]


def test_run_scatter_of_a_fig1_run_draws_the_linear_boundaries():
    data = fig1_mixture(0.5)
    run = retrain(data, RR(epsilon=math.log(1.5)), "centroid", "consensus", rng=1000)
    fig = F.run_scatter(run, data)
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert shown == ["class −1", "class +1", "boundary before retraining (baseline)",
                     "boundary after consensus retraining", "true boundary x⁽¹⁾ = 0"]
    theta, _ = run.models["baseline"].linear_rule()
    before = trace(fig, "boundary before")
    for x, y in zip(before.x, before.y):  # ⟨θ, x⟩ = 0 with x₃.. = 0
        assert theta[0] * x + theta[1] * y == pytest.approx(0.0, abs=1e-9)
    assert fig.layout.xaxis.title.text.startswith("x⁽¹⁾")


def test_run_scatter_of_a_multiclass_run_draws_predicted_regions():
    data = digits()
    run = retrain(data, RR(epsilon=2.0), "logistic", "consensus", rng=1000, modes=("baseline", "consensus"))
    fig = F.run_scatter(run, data, grid=30)
    regions = [t for t in fig.data if t.type == "heatmap"]
    assert len(regions) == 2 and np.asarray(regions[0].z).shape == (30, 30)
    assert set(np.unique(np.asarray(regions[1].z))) <= set(range(10))
    assert not [t for t in fig.data if t.name and t.name.startswith("boundary")]
    assert "principal component" in fig.layout.xaxis.title.text



def test_run_scatter_holds_blas_single_threaded_while_it_projects_and_predicts(monkeypatch):
    """The figure itself (not the page calling it) runs its linear algebra with one BLAS thread
    (`privlib.core.threads.single_threaded_blas`): BLAS is at 2 threads around the call, at 1 inside
    the projection and the raster's predictions, and back at 2 after."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from privlib.core.threads import BlasHold

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"}

    seen = []
    projection = F.plane_coordinates

    def recording_projection(*args, **kwargs):
        seen.append(("projection", blas_threads()))
        return projection(*args, **kwargs)

    monkeypatch.setattr(F, "plane_coordinates", recording_projection)
    data = digits()
    run = retrain(data, RR(epsilon=2.0), "logistic", "consensus", rng=1000, modes=("baseline", "consensus"))
    model = run.models["baseline"]
    predict = model.predict
    monkeypatch.setattr(model, "predict", lambda X: seen.append(("predict", blas_threads())) or predict(X))
    BlasHold.release_control()
    with threadpool_limits(limits=2, user_api="blas"):
        BlasHold.release_control()
        assert blas_threads() == {2}
        F.run_scatter(run, data, grid=10)
        assert blas_threads() == {2}
        BlasHold.release_control()
    BlasHold.release_control()
    assert [what for what, _ in seen] == ["projection", "predict"] and all(t == {1} for _, t in seen), seen

def test_sweep_to_figures_end_to_end():
    """A real sweep (3 repetitions, not the page's 20) drawn by every sweep chart: the curves are the
    sweep's means, read through the result object."""
    data = fig1_mixture(0.5)
    result = retraining_sweep(data, "rr", EPS, repeats=3, seed=1000, model="centroid")
    fig = F.sweep_accuracy_chart(result, chosen_epsilon=1.0)
    assert np.allclose(exact(fig, "consensus retraining").y, result.mean("consensus"))
    assert np.allclose(exact(fig, "baseline (no retraining)").y, result.mean("baseline"))
    band = exact(fig, "full retraining ± SD")
    assert np.allclose(band.y[:4], np.clip(result.mean("full") + result.sd("full"), 0, 1))
    assert "over 3 runs" in exact(fig, "full retraining").hovertemplate
    assert "C = 2" in trace(fig, "given-label accuracy").name
    assert fig.layout.yaxis.title.text == "population accuracy (closed form)"  # not "accuracy (population (…))"
    assert list(trace(fig, "non-private").y) == pytest.approx([np.mean(result.nonprivate)] * 2)
    labels = F.sweep_label_chart(result, chosen_epsilon=1.0)
    assert np.allclose(trace(labels, "consensus fraction").y, result.per_repeat("consensus_fraction").mean(axis=1))
    bars = F.sweep_label_bars(result, 1.0).data[0]
    assert bars.y[0] == pytest.approx(result.per_repeat("given_label_accuracy")[1].mean())
    assert bars.error_y.array[0] == pytest.approx(result.per_repeat("given_label_accuracy")[1].std(ddof=1))
    # on a fresh X_U consensus is undefined: no consensus curve
    fresh = retraining_sweep(data, "rr", EPS[:2], repeats=2, seed=1000, model="centroid", fresh_unlabelled=True)
    assert not [t for t in F.sweep_accuracy_chart(fresh).data if t.name.startswith("consensus")]
    # a sweep of two randomisers: each chart draws the one asked for
    both = retraining_sweep(data, ["rr", "lp2st"], EPS[:2], repeats=2, seed=1000, model="centroid")
    lp = F.sweep_accuracy_chart(both, randomiser="lp2st")
    assert np.allclose(exact(lp, "full retraining").y, both.mean("full", "lp2st"))


def test_theory_charts_plot_the_reference_values_and_draw_nothing_where_vacuous():
    cos = np.array([0.0005, 0.008, 0.5, 1.0])
    bounds = theory.per_point_bounds(2e6, 50, 0.5, 0.3, 0.3, cos)
    fig = F.per_point_chart(bounds)
    alpha = trace(fig, "α(x)")
    assert alpha.y[1] == pytest.approx(0.7219626995, abs=1e-9)  # n = 2·10⁶, p = 0.3, cos β = 0.008
    alpha1 = trace(fig, "α₁(x)")
    assert np.isnan(alpha1.y[0]) and alpha1.y[1] == pytest.approx(0.9996644169, abs=1e-9)
    (shade,) = fig.layout.shapes
    assert shade.x1 == pytest.approx(7.1787e-4, rel=1e-4)  # 16p₂/μ
    assert fig.layout.xaxis.type == "log"
    small = F.per_point_chart(theory.per_point_bounds(300, 50, 0.5, 0.3, 0.4, np.linspace(0, 1, 5)))
    assert small.layout.xaxis.type == "linear"
    assert trace(small, "α(x)").y[2] == pytest.approx(0.1709708818, abs=1e-9)  # n = 300, cos β = 0.5
    assert trace(small, "α̂(x)").y[2] == pytest.approx(0.9889528709, abs=1e-9)
    assert "anywhere" in small.layout.annotations[0].text  # 16p₂/μ > 1: vacuous on the whole range

    population = {"n": np.array([1e4, 1e6, 1e7]), "eq59": np.array([0.0948, 0.988, 1.0]),
                  "eq65": np.array([-0.1, 0.7769, 0.99]), "eq141": np.array([np.nan, np.nan, 0.99]),
                  "eq141_from_n": 4.79e6}
    fig = F.population_chart(population, {"acc(θ̂₀)": ([1e4], [0.7], [0.02])})
    eq65 = trace(fig, "eq. 65")
    assert np.isnan(eq65.y[0]) and eq65.y[1] == pytest.approx(0.7769)  # a bound ≤ 0 is not drawn
    assert trace(fig, "acc(θ̂₀) (simulated").error_y.array[0] == 0.02
    note = fig.layout.annotations[0]
    assert note.text.replace("<br>", " ").endswith("vacuous below n ≈ 4.79e+06")
    assert note.xanchor == "right"  # left of the line, whose right side is too narrow for it at half width
    assert fig.layout.annotations[0].x == pytest.approx(math.log10(4.79e6))
    assert fig.layout.xaxis.type == "log"
