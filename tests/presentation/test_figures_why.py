"""Figure builders of the "Why it happens" page: pure functions, checked without a browser."""
import numpy as np
import plotly.graph_objects as go
import pytest

from privlib.presentation.words import figures
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.theory.analogies import (
    PointMap,
    keep_rates,
    laplace_1d_proportions,
    planar_noise,
    simulate_laplace_1d,
)
from privlib.words.theory.neighbour_distances import mechanism_frequencies, neighbour_distances, win_probabilities


@pytest.fixture(scope="module")
def table(gaussian_space):
    return neighbour_distances(gaussian_space, 100, far=10, rng=1)


def test_one_dimension_reuses_the_proportions_chart_with_a_labelled_log_epsilon_axis():
    eps = np.geomspace(0.001, 10, 9)
    fig = figures.proportions_vs_epsilon([("exact", laplace_1d_proportions(eps)),
                                          ("simulated", simulate_laplace_1d(eps, 200, rng=0))])
    assert fig.layout.xaxis.title.text == figures.EPSILON_AXIS and fig.layout.xaxis.type == "log"
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == 6 and {t.name.split(" — ")[1] for t in lines} == {"exact", "simulated"}


def test_neighbour_distance_profile_shows_distances_and_gaps():
    d = np.array([0.0, 2.0, 2.1, 2.15, 2.3])
    fig = figures.neighbour_distance_profile(d, "w", k=3)
    bars, line = fig.data
    np.testing.assert_allclose(bars.y, [2.0, 0.1, 0.05], rtol=1e-12)  # word -> x1, then x1 -> x2, x2 -> x3
    np.testing.assert_allclose(bars.x, [0.5, 1.5, 2.5])
    assert bars.marker.color[0] != bars.marker.color[1]  # the jump to the nearest neighbour stands out
    np.testing.assert_array_equal(line.y, d[:4])
    assert "2.000" in fig.layout.annotations[0].text


def test_gap_distributions_mark_our_means_and_the_papers(table):
    published = {"z_w_x1": 1.0, "z_x1_x2": 0.1}
    fig = figures.neighbour_gap_distributions(table.values(), table.means(), published)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 3
    assert all(abs(sum(t.y) - 1) < 1e-9 for t in bars)  # each histogram is a fraction of the words
    # the means are legend lines, not labels written over the bars (issue 22)
    assert not fig.layout.annotations
    lines = [t for t in fig.data if t.type == "scatter"]
    assert sum(t.name.startswith("mean") for t in lines) == 3 and sum(t.name.startswith("paper") for t in lines) == 2
    mean_w = next(t for t in lines if t.name.startswith("mean z(w, x₁)"))
    assert list(mean_w.x) == [table.means()["z_w_x1"]] * 2
    assert next(t for t in lines if t.name.startswith("paper's mean z(w, x₁)")).x[0] == 1.0
    assert bars[2].name.startswith("z(x₁, x₁₀)")


def test_win_probabilities_chart_with_mechanism_and_one_word(gaussian_space, table):
    eps = [0.5, 2.0, 8.0, 30.0]
    wp = win_probabilities(table, eps)
    freq = mechanism_frequencies(gaussian_space, table, eps, words=20, samples_per_word=2, rng=0)
    one = win_probabilities(neighbour_distances(gaussian_space, ["w3"], far=10), eps)
    fig = figures.win_probabilities_vs_epsilon(wp, freq, ("w3", one))
    names = [t.name for t in fig.data]
    assert any("Eq. 18" in n for n in names) and any("Eq. 19" in n for n in names)
    assert any("“w3”" in n for n in names) and any("mechanism" in n for n in names)
    assert fig.layout.xaxis.title.text == figures.EPSILON_AXIS
    mean_line = next(t for t in fig.data if t.name and t.name.endswith("mean over words") and "Eq. 18" in t.name)
    np.testing.assert_allclose(mean_line.y, wp.mean()["w_beats_x1"])


def test_map_and_keep_rate_charts():
    m = PointMap.us_states()
    rates = keep_rates(m, [0.001, 0.01], samples=50, rng=0)
    fig = figures.location_map(m, rates.rates[:, 0], 0.001, highlight=["Hawaii"])
    assert fig.layout.yaxis.scaleanchor == "x"  # kilometres on both axes at the same scale
    assert "<b>Hawaii</b>" in fig.data[0].text and "0.001" in fig.layout.title.text
    curve = figures.keep_rate_vs_epsilon(rates, ["Hawaii", "Kansas"])
    assert [t.name for t in curve.data if t.name] == ["Hawaii", "Kansas"]
    assert "per km" in curve.layout.xaxis.title.text and "more privacy" in curve.layout.xaxis.title.text


def test_noise_scatter_draws_the_mean_radius():
    noise = planar_noise(0.5, 100, rng=0)
    fig = figures.noise_scatter(noise.noise, 0.5)
    circle = fig.data[1]
    np.testing.assert_allclose(np.hypot(circle.x, circle.y), 4.0)
    assert isinstance(fig, go.Figure) and fig.layout.yaxis.scaleanchor == "x"


def test_builders_accept_a_space_without_published_values():
    space = EmbeddingSpace.from_arrays([f"v{i}" for i in range(30)], np.random.default_rng(0).standard_normal((30, 4)))
    t = neighbour_distances(space, 10, far=5, rng=0)
    fig = figures.neighbour_gap_distributions(t.values(), t.means(), None)
    assert not any(a.text.startswith("paper") for a in fig.layout.annotations)
