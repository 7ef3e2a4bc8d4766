"""Figure builders: the data in each chart is the data given, in the right place."""
import numpy as np
import pytest

from privlib.core.sweep import SweepResult
from privlib.presentation.words import figures
from privlib.words.experiments import SWEEP_METRICS, EpsilonSweep, epsilon_sweep, sweep


def test_log_rank_bins_cover_all_ranks_and_split_at_k():
    for n, k in [(400_000, 100), (1000, 10), (50, 48)]:
        edges = figures.log_rank_bins(n, k)
        assert edges[0] == 1 and edges[1] == 2  # rank 0 alone in [1, 2)
        assert edges[-1] == n + 1
        assert (k + 2) in edges  # no bin mixes close and distant
        assert np.all(np.diff(edges) > 0)


def test_rank_histogram_mass_and_colours():
    ranks = np.array([0] * 50 + [1, 2, 3, 100] * 10 + [101, 5000, 399_999] * 3)
    values, counts = np.unique(ranks, return_counts=True)
    fig = figures.rank_histogram(values, counts / ranks.size, 400_000, 100)
    bar = fig.data[0]
    mass = np.array(bar.customdata)[:, 2]
    assert mass.sum() == pytest.approx(1.0)
    lo = np.array(bar.customdata)[:, 0].astype(int)  # first rank of each bin
    hi = np.array(bar.customdata)[:, 1].astype(int)
    colours = list(bar.marker.color)
    for a, b, c in zip(lo, hi, colours):
        if b == 0:
            assert c == figures.COLOURS["original"]
        elif b <= 100:
            assert c == figures.COLOURS["close"] and a >= 1
        else:
            assert c == figures.COLOURS["distant"] and a >= 101
    # density = fraction / width: summing back gives 1
    widths = hi - lo + 1
    assert np.sum(np.array(bar.y) * widths) == pytest.approx(1.0)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert len(fig.layout.shapes) == 3  # the shaded regions


def _sweep(eps, p_orig):
    """A two-word sweep whose words both have the share ``p_orig`` of original outputs."""
    p_orig = np.asarray(p_orig, float)
    per_word = np.stack([p_orig, np.zeros_like(p_orig), 1 - p_orig], axis=-1)  # (epsilons, metrics)
    values = np.repeat(per_word[None, :, None, :], 2, axis=2)
    result = SweepResult(("multivariate-laplace",), np.asarray(eps, float), SWEEP_METRICS, values, seed=0)
    return EpsilonSweep(result, ("a", "b"), 100, samples_per_word=4)


def test_proportions_vs_epsilon_lines_bands_and_direction_label():
    fig = figures.proportions_vs_epsilon([("word", _sweep([1, 10, 100], [0, 0.5, 1])),
                                          ("average", _sweep([1, 10, 100], [0, 0.25, 1]))])
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == 6  # 3 outcomes x 2 sweeps
    assert list(lines[0].y) == [0, 0.5, 1]
    assert "more privacy" in fig.layout.xaxis.title.text
    assert fig.layout.xaxis.type == "log"  # two decades of epsilon


def test_sweep_to_figure_end_to_end(gaussian_space):
    # the library's sweep result goes straight into the figure: one line per mechanism and
    # metric, at the result's means, with bands of +-2 standard errors over the 7 repetitions
    result = sweep(gaussian_space, ["multivariate-laplace", "postprocessing-fix"], [0.5, 5.0, 50.0],
                   repeats=7, seed=3, close=10)
    fig = figures.proportions_vs_epsilon(result, title="Fig. 2")
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(lines) == len(bands) == 2 * 3 and result.repeats == 7
    for line, band, (m, k) in zip(lines, bands, [(m, k) for m in result.mechanisms for k in result.metrics]):
        assert result.label(m) in line.name
        np.testing.assert_allclose(line.y, result.mean(m, k))
        upper = np.clip(result.mean(m, k) + 2 * result.standard_error(m, k), 0, 1)
        np.testing.assert_allclose(band.y[:3], upper)
    assert fig.layout.title.text == "Fig. 2" and "more privacy" in fig.layout.xaxis.title.text
    # a list of labelled results mixes the words' result objects and SweepResults
    one = epsilon_sweep(gaussian_space, [0.5, 5.0, 50.0], 7, close=10, rng=3)
    sets = [("sweep", one), ("both", result)]
    mixed = figures.proportions_vs_epsilon(sets, shown=figures.curve_set_labels(sets))
    assert len([t for t in mixed.data if t.mode == "lines+markers"]) == 3 * 3
    np.testing.assert_allclose(mixed.data[1].y, one.proportions["original"])


def test_proportions_bar_sums_to_one():
    fig = figures.proportions_bar({"original": 0.2, "close": 0.1, "distant": 0.7})
    assert sum(t.x[0] for t in fig.data) == pytest.approx(1.0)


def test_density_cdf_and_tail_figures():
    grid = np.linspace(-3, 3, 11)
    samples = np.random.default_rng(0).standard_normal(1000)
    fig = figures.density_with_samples(grid, np.exp(-grid**2 / 2), samples, integral_pdf=np.ones(11))
    assert [t.type for t in fig.data] == ["bar", "scatter", "scatter"]
    centres, density, widths = figures.histogram_density(samples)
    assert np.sum(density * widths) == pytest.approx(1.0)
    fig = figures.cdf_with_samples(grid, np.linspace(0, 1, 11), samples)
    emp = fig.data[0]
    assert emp.y[-1] == pytest.approx(1.0) and np.all(np.diff(emp.x) >= 0)
    fig = figures.tail_bounds(grid, np.full(11, 0.1), {"a": np.full(11, 5.0)})
    assert max(fig.data[1].y) == 1.0  # bounds are capped at probability 1
    assert fig.layout.yaxis.type == "log"
