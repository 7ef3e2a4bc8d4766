"""Neighbour distances (paper Table 2), the exact win probabilities of Fig. 6 and the mechanism's
frequencies beside them."""
import math

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace
from privlib.words.neighbours import neighbour_ranks
from privlib.words.theory.neighbour_distances import (
    FAR_RANK,
    PUBLISHED_TABLE2,
    eq19,
    mechanism_frequencies,
    neighbour_distances,
    published_table2,
    win_probabilities,
)
from privlib.words.theory.noisy_dot import NoisyDotProduct


@pytest.fixture(scope="module")
def plane():
    """Five words in the plane at exactly representable points (distances computed by hand below)."""
    return EmbeddingSpace.from_arrays(["a", "b", "c", "d", "e"],
                                      [[0, 0], [1, 0], [0, 2], [3, 0], [0, -4]], name="plane")


def test_hand_computed_values_on_a_small_space(plane):
    table = neighbour_distances(plane, ["a", "b", "d"], far=3)
    assert table.names == ("z_w_x1", "z_x1_x2", "z_x1_x3")
    # a = (0,0): neighbours b (1), c (2), d (3)
    # b = (1,0): neighbours a (1), d (2), c (sqrt 5)
    # d = (3,0): neighbours b (2), a (3), c (sqrt 13)
    assert [list(t) for t in table.neighbour_words] == [["b", "c", "d"], ["a", "d", "c"], ["b", "a", "c"]]
    np.testing.assert_allclose(table.z_w_x1, [0.5, 0.5, 1.0], rtol=1e-15)
    # Eq. 19: (||w-x2||^2 - ||w-x1||^2) / (2 ||x1-x2||)
    np.testing.assert_allclose(table.z_x1_x2, [3 / (2 * math.sqrt(5)), 3 / (2 * 3), 5 / (2 * 1)], rtol=1e-14)
    np.testing.assert_allclose(table.z_x1_far, [8 / (2 * 2), 4 / (2 * 2), 9 / (2 * math.sqrt(5))], rtol=1e-14)
    means = table.means()
    assert means["z_w_x1"] == pytest.approx(2 / 3, rel=1e-15)
    assert means["z_x1_x2"] == pytest.approx((3 / (2 * math.sqrt(5)) + 0.5 + 2.5) / 3, rel=1e-14)
    sd = table.standard_deviations()
    assert sd["z_w_x1"] == pytest.approx(np.std([0.5, 0.5, 1.0], ddof=1), rel=1e-14)
    assert table.standard_errors()["z_w_x1"] == pytest.approx(sd["z_w_x1"] / math.sqrt(3), rel=1e-14)
    assert table.undefined() == {"z_w_x1": 0, "z_x1_x2": 0, "z_x1_x3": 0}


def test_identical_vectors_follow_the_documented_rule():
    # p and q share a vector: for w, x1 = p and x2 = q tie (lower row first) and Eq. 19 is 0/0
    space = EmbeddingSpace.from_arrays(["w", "p", "q", "r", "s"], [[0, 0], [1, 0], [1, 0], [0, 3], [5, 5]])
    table = neighbour_distances(space, ["w", "p"], far=3)
    assert table.neighbour_words[0] == ("p", "q", "r")
    assert table.z_w_x1[0] == 0.5
    assert math.isnan(table.z_x1_x2[0])
    assert table.undefined()["z_x1_x2"] == 1
    # p's nearest neighbour is its twin q: distance 0, kept (Pr[p beats q] = F_Z(0) = 1/2)
    assert table.neighbour_words[1][0] == "q" and table.z_w_x1[1] == 0.0
    assert table.means()["z_x1_x2"] == pytest.approx(table.z_x1_x2[1], rel=1e-15)  # the NaN is left out
    d = table.to_dict(per_word=True)
    assert d["per_word"]["z_x1_x2"][0] is None and d["undefined"]["z_x1_x2"] == 1


def test_eq19_is_nan_only_for_a_zero_denominator():
    z = eq19([1.0, 1.0], [2.0, 1.0], [1.0, 0.0])
    assert z[0] == pytest.approx(1.5) and math.isnan(z[1])


@pytest.mark.parametrize("far, words, message", [
    (101, ["a"], "at least 102"),
    (1, ["a"], "at least 2"),
    (3, 0, "at least 1"),
    (3, 6, "at most 5"),
    (3, ["zzz"], "not in the vocabulary"),
    (3, [], "at least one word"),
])
def test_bad_arguments_say_what_to_do(plane, far, words, message):
    with pytest.raises(ValueError, match=message):
        neighbour_distances(plane, words, far=far)


@pytest.mark.parametrize("fixture", ["integer_space", "gaussian_space"])
def test_neighbour_order_is_that_of_neighbour_ranks(fixture, request):
    space = request.getfixturevalue(fixture)  # integer_space: duplicate vectors and exact ties everywhere
    table = neighbour_distances(space, 150, far=FAR_RANK, rng=3)
    for row, neighbours, d1 in zip(table.rows, table.neighbours, table.d_w_x1):
        ranks = neighbour_ranks(space, int(row))
        np.testing.assert_array_equal(neighbours, ranks.order[[1, 2, FAR_RANK]])
        assert d1 == pytest.approx(ranks.distances[1], abs=1e-12)


def test_sample_is_seeded_uniform_without_replacement_and_reports_progress(gaussian_space):
    calls = []
    a = neighbour_distances(gaussian_space, 200, far=5, rng=11, progress=lambda f, m: calls.append(f))
    b = neighbour_distances(gaussian_space, 200, far=5, rng=11)
    np.testing.assert_array_equal(a.rows, b.rows)
    assert np.unique(a.rows).size == 200 and np.all(np.diff(a.rows) > 0)
    assert calls and calls[-1] == 1.0 and calls == sorted(calls)
    expected = np.sort(np.random.default_rng(11).choice(len(gaussian_space), 200, replace=False))
    np.testing.assert_array_equal(a.rows, expected)


def test_published_row_only_for_the_papers_embeddings(glove, glove_small, plane):
    row = published_table2(glove)
    assert row["paper"] == (1.369, 0.172, 0.757) and row["artifact"] == (1.383, 0.165, 0.750)
    assert published_table2(glove_small) is None  # not the paper's vocabulary
    assert published_table2(plane) is None
    assert set(PUBLISHED_TABLE2) == {50, 100, 200, 300}


# ----------------------------------------------------------------------------- Fig. 6
@pytest.fixture(scope="module")
def gaussian_table(gaussian_space):
    return neighbour_distances(gaussian_space, 300, far=20, rng=5)


def test_win_probabilities_are_the_exact_cdf(gaussian_table):
    eps = [0.5, 3.0, 40.0]
    wp = win_probabilities(gaussian_table, eps)
    assert wp.w_beats_x1.shape == (300, 3)
    for j, e in enumerate(eps):
        law = NoisyDotProduct(8, e)
        np.testing.assert_array_equal(wp.w_beats_x1[:, j], law.cdf(gaussian_table.z_w_x1))
        np.testing.assert_array_equal(wp.x1_beats_x2[:, j], law.cdf(gaussian_table.z_x1_x2))
        assert wp.at_mean_z["w_beats_x1"][j] == law.cdf(np.mean(gaussian_table.z_w_x1))
    np.testing.assert_allclose(wp.mean()["w_beats_x1"], wp.w_beats_x1.mean(axis=0), rtol=1e-15)


def test_win_probabilities_on_the_cores_are_the_columns_of_a_loop_in_grid_order(gaussian_table, monkeypatch):
    """The epsilons are computed on worker threads (issue 22): each column is still `NoisyDotProduct.cdf`'s, bit for
    bit, in the grid's order (unsorted here), whatever the number of threads, and progress goes up in that order."""
    from privlib.words.theory import neighbour_distances as module

    eps = [7.0, 0.5, 30.0, 2.0, 0.1]
    calls = []
    for cores in (1, 2, 3):
        monkeypatch.setattr(module, "available_cores", lambda cores=cores: cores)
        calls.clear()
        wp = win_probabilities(gaussian_table, eps, progress=lambda fraction, message: calls.append((fraction, message)))
        for j, e in enumerate(eps):
            law = NoisyDotProduct(8, e)
            np.testing.assert_array_equal(wp.w_beats_x1[:, j], law.cdf(gaussian_table.z_w_x1))
            np.testing.assert_array_equal(wp.x1_beats_x2[:, j], law.cdf(gaussian_table.z_x1_x2))
            assert wp.at_mean_z["x1_beats_x2"][j] == law.cdf(gaussian_table.means()["z_x1_x2"])
        assert [f for f, _ in calls] == [0.2, 0.4, 0.6, 0.8, 1.0]
        assert [m.split(" (")[0] for _, m in calls] == [f"Exact probabilities at ε = {e:g}" for e in eps]


def test_win_probabilities_rise_monotonically_from_one_half_to_one(gaussian_table):
    eps = np.geomspace(1e-7, 1e7, 29)
    wp = win_probabilities(gaussian_table, eps)
    for name in ("w_beats_x1", "x1_beats_x2"):
        p = getattr(wp, name)
        assert np.all(np.diff(p, axis=1) >= -1e-13), name  # non-decreasing in epsilon (z >= 0)
        assert np.all(np.abs(p[:, 0] - 0.5) < 1e-5), name  # eps -> 0: the noise swamps every gap
        assert np.all(p[:, -1] > 1 - 1e-9), name  # eps -> inf: the nearer word always wins
    # at every epsilon the word beats its nearest neighbour more surely than x1 beats x2 on average
    mean = wp.mean()
    assert np.all(mean["w_beats_x1"][5:-5] > mean["x1_beats_x2"][5:-5])


def test_eq18_predicts_the_mechanism_exactly_when_x1_is_the_only_rival():
    # w's only rival is x1 (the third word is 10^4 away): P(output = w) = F_Z(||w - x1|| / 2) exactly
    space = EmbeddingSpace.from_arrays(["w", "x", "far"], [[0, 0, 0], [1, 0, 0], [1e4, 0, 0]])
    table = neighbour_distances(space, ["w"], far=2)
    freq = mechanism_frequencies(space, table, [1.0, 3.0, 8.0], words=1, samples_per_word=20_000, rng=4)
    se = freq.standard_errors()["original"]
    expected = NoisyDotProduct(3, 1.0).cdf(0.5), NoisyDotProduct(3, 3.0).cdf(0.5), NoisyDotProduct(3, 8.0).cdf(0.5)
    np.testing.assert_allclose(freq.predicted_original, expected, rtol=1e-15)
    assert np.all(np.abs(freq.original - freq.predicted_original) <= 4 * se), (freq.original, expected)
    assert np.all(np.abs(freq.original + freq.nearest - 1) < 1e-12)  # "far" never wins


def test_mechanism_stays_within_the_bounds_of_eq18_to_eq21(glove_small):
    table = neighbour_distances(glove_small, 400, rng=2)
    eps = [2.0, 8.0, 15.0, 40.0]
    freq = mechanism_frequencies(glove_small, table, eps, words=100, samples_per_word=20, rng=9)
    se = freq.standard_errors()
    assert freq.trials == 2000
    assert np.all(freq.original <= freq.predicted_original + 4 * np.maximum(se["original"], 1 / freq.trials))
    assert np.all(freq.nearest <= freq.nearest_bound + 4 * np.maximum(se["nearest"], 1 / freq.trials))
    assert freq.original[-1] > 0.95 and freq.predicted_original[-1] > 0.99  # large epsilon: the word itself


def test_mechanism_frequencies_need_the_table_of_the_same_embedding(gaussian_table, glove_small):
    with pytest.raises(ValueError, match="another embedding"):
        mechanism_frequencies(glove_small, gaussian_table, [1.0])


@pytest.mark.slow
def test_reproduces_the_published_glove_50d_row(glove):
    """Paper Table 2, GloVe-Wiki 50d: (1.369, 0.172, 0.757) over 5,000 random words. Our 5,000 words
    are another random sample, so each mean must be within 4 standard errors (4 sd / sqrt(5000))."""
    table = neighbour_distances(glove, 5000, rng=0)
    means, sd = table.means(), table.standard_deviations()
    for name, published in zip(table.names, PUBLISHED_TABLE2[50]["paper"]):
        tolerance = 4 * sd[name] / math.sqrt(5000)
        assert abs(means[name] - published) <= tolerance, (name, means[name], published, tolerance)
    assert table.undefined() == {name: 0 for name in table.names}
