"""Neighbour ranks (paper §2, dx-text.md §2): rank_w(x) is the position of x when the vocabulary is
sorted by distance from w (stable: ties by row order), with rank_w(w) = 0."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privlib.words.embeddings import EmbeddingSpace
from privlib.words.neighbours import (
    CLOSE,
    DEFAULT_CLOSE,
    DISTANT,
    ORIGINAL,
    classify_outputs,
    classify_ranks,
    neighbour_ranks,
    output_ranks,
)


def reference_order(space, row: int) -> np.ndarray:
    """Stable float64 argsort of the direct squared distances sum((x - w)^2), word itself first."""
    x = space.vectors.astype(np.float64)
    diff = x - x[row]
    d = np.einsum("ij,ij->i", diff, diff)
    d[row] = -1.0
    return np.argsort(d, kind="stable")


def reference_class(rank: np.ndarray, close: int) -> np.ndarray:
    return np.where(rank == 0, ORIGINAL, np.where(rank <= close, CLOSE, DISTANT))


# ----------------------------------------------------------------------------- neighbour_ranks
def test_order_matches_stable_float64_argsort_random(gaussian_space):
    for row in (0, 1, 777, 2999):
        nr = neighbour_ranks(gaussian_space, row)
        np.testing.assert_array_equal(nr.order, reference_order(gaussian_space, row))


def test_order_matches_stable_argsort_with_exact_ties(integer_space):
    # integer vectors: all distances are exact, ties are frequent and must follow row order
    for row in range(0, 600, 37):
        nr = neighbour_ranks(integer_space, row)
        np.testing.assert_array_equal(nr.order, reference_order(integer_space, row))
        d = nr.distances
        assert np.any(d[1:-1] == d[2:])  # the test data really has ties


def test_order_matches_on_glove(glove_small):
    for word in ("king", "the", "paris"):
        row = glove_small.index(word)
        nr = neighbour_ranks(glove_small, word)
        assert nr.word == word and nr.row == row
        np.testing.assert_array_equal(nr.order, reference_order(glove_small, row))
    king = neighbour_ranks(glove_small, "king")
    assert glove_small.words[king.order[0]] == "king"
    assert "queen" in {glove_small.words[i] for i in king.order[1:6]}


def test_word_itself_is_rank_zero_even_with_an_earlier_duplicate():
    vectors = np.array([[1.0, 2.0], [5.0, 5.0], [1.0, 2.0], [1.0, 2.0], [0.0, 0.0]])
    space = EmbeddingSpace.from_arrays(["a", "b", "a2", "a3", "z"], vectors)
    nr = neighbour_ranks(space, "a3")
    assert nr.row == 3
    np.testing.assert_array_equal(nr.order, [3, 0, 2, 4, 1])  # itself, then duplicates by row, then by distance
    np.testing.assert_array_equal(nr.distances[:3], [0.0, 0.0, 0.0])
    assert nr.distances[3] == pytest.approx(np.sqrt(5.0), rel=1e-15)
    assert nr.rank_of(3) == 0 and nr.rank_of(0) == 1 and nr.rank_of(2) == 2


def test_rank_is_the_inverse_of_order_and_distances_ascend(gaussian_space, integer_space, glove_small):
    for space, row in ((gaussian_space, 12), (integer_space, 5), (glove_small, 691)):
        nr = neighbour_ranks(space, row)
        n = len(space)
        np.testing.assert_array_equal(np.sort(nr.order), np.arange(n))  # a permutation
        np.testing.assert_array_equal(nr.rank[nr.order], np.arange(n))
        np.testing.assert_array_equal(nr.order[nr.rank], np.arange(n))
        np.testing.assert_array_equal(nr.rank_of(nr.order[[0, 5, n - 1]]), [0, 5, n - 1])
        assert nr.rank_of(row) == 0
        assert nr.distances[0] == 0.0
        assert np.all(np.diff(nr.distances) >= 0)
        # distances are the Euclidean distances of the ranked words
        x = space.vectors.astype(np.float64)
        direct = np.sqrt(np.einsum("ij,ij->i", x - x[row], x - x[row]))
        some = np.array([1, 2, n // 2, n - 1])
        tol = 1e-6 * (1 + direct[nr.order[some]])
        assert np.all(np.abs(nr.distances[some] - direct[nr.order[some]]) <= tol)
        np.testing.assert_array_equal(nr.distance_of(nr.order[some]), nr.distances[some])


def test_neighbour_ranks_are_read_only_and_accept_numpy_ints(gaussian_space):
    nr = neighbour_ranks(gaussian_space, np.int64(4))
    assert nr.row == 4 and nr.word == "w4"
    for a in (nr.order, nr.rank, nr.distances):
        assert not a.flags.writeable
    with pytest.raises(ValueError):
        nr.order[0] = 1


def test_neighbour_ranks_unknown_word(glove_small):
    with pytest.raises(ValueError, match="Did you mean 'king'"):
        neighbour_ranks(glove_small, "King")


# ----------------------------------------------------------------------------- classify_ranks
def test_classify_ranks_counts():
    ranks = np.array([0, 0, 1, 100, 101, 5000, 50, 0, 2])
    assert classify_ranks(ranks) == {"original": 3, "close": 4, "distant": 2}
    assert classify_ranks(ranks, close=1) == {"original": 3, "close": 1, "distant": 5}
    assert classify_ranks(ranks, close=101) == {"original": 3, "close": 5, "distant": 1}
    assert classify_ranks(np.array([], dtype=np.int64)) == {"original": 0, "close": 0, "distant": 0}
    assert DEFAULT_CLOSE == 100  # the paper's K


@pytest.mark.parametrize("close", [0, -1, 2.5, True, "100"])
def test_classify_ranks_rejects_bad_k(close):
    with pytest.raises(ValueError, match="close"):
        classify_ranks([0, 1], close=close)


# ----------------------------------------------------------------------------- classify_outputs
def _boundary_outputs(nr, close, rng, k):
    """k outputs per word: random words, the word itself, and the words around rank K."""
    n = nr.order.size
    around = nr.order[[r for r in (close - 1, close, close + 1, close + 2) if 0 <= r < n]]
    picks = np.concatenate([[nr.row], around, rng.integers(0, n, k)])
    return picks[:k] if picks.size >= k else np.resize(picks, k)


@pytest.mark.parametrize("close", [1, 2, 5, 17, 100])
@pytest.mark.parametrize("block", [1, 7, 32])
def test_classify_outputs_agrees_with_neighbour_ranks(gaussian_space, integer_space, close, block):
    rng = np.random.default_rng(close * 100 + block)
    for space in (gaussian_space, integer_space):
        rows = rng.choice(len(space), 70, replace=False)
        ranked = [neighbour_ranks(space, r) for r in rows]
        outputs = np.array([_boundary_outputs(nr, close, rng, 12) for nr in ranked])
        classes = classify_outputs(space, rows, outputs, close=close, block=block)
        assert classes.shape == outputs.shape
        expected = np.array([reference_class(nr.rank_of(out), close) for nr, out in zip(ranked, outputs)])
        np.testing.assert_array_equal(classes, expected)


def test_classify_outputs_exact_ties_straddling_k(integer_space):
    """Words tied at exactly the K-th neighbour's distance: those whose stable rank is <= K are
    close, the rest distant. Checked for every word of the vocabulary as output."""
    rng = np.random.default_rng(3)
    rows = rng.choice(len(integer_space), 40, replace=False)
    n = len(integer_space)
    straddles = 0
    for close in (3, 10, 50):
        outputs = np.tile(np.arange(n), (rows.size, 1))
        classes = classify_outputs(integer_space, rows, outputs, close=close)
        for i, r in enumerate(rows):
            nr = neighbour_ranks(integer_space, r)
            np.testing.assert_array_equal(classes[i], reference_class(nr.rank, close))
            t = nr.distances[close]
            tied = np.flatnonzero(nr.distances == t)
            straddles += bool(tied.min() <= close < tied.max())
    assert straddles >= 20  # the boundary-tie branch was exercised many times


def test_classify_outputs_duplicated_vectors_at_the_boundary():
    # word 0 at the origin; words 1..6 at distance 1; four exact copies of one vector at distance 2
    vectors = [[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [0.6, 0.8], [0.8, 0.6], [2, 0], [2, 0], [2, 0], [2, 0], [5, 5]]
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], np.array(vectors, dtype=np.float32))
    outputs = np.arange(len(vectors))[None, :]
    # K = 8: ranks 7 and 8 are copies 7 and 8; copies 9 and 10 (ranks 9, 10) are distant
    classes = classify_outputs(space, [0], outputs, close=8)[0]
    np.testing.assert_array_equal(classes, [ORIGINAL] + [CLOSE] * 8 + [DISTANT] * 3)
    nr = neighbour_ranks(space, 0)
    np.testing.assert_array_equal(nr.order, np.arange(len(vectors)))
    # the same with the input word's own vector duplicated at a lower row
    classes = classify_outputs(space, [8], outputs, close=2)[0]
    np.testing.assert_array_equal(classes, reference_class(neighbour_ranks(space, 8).rank, 2))
    assert classes[8] == ORIGINAL and classes[7] == CLOSE and classes[9] == CLOSE and classes[10] == DISTANT


def test_classify_outputs_on_glove_near_k(glove_small):
    rows = glove_small.indices(["king", "the", "paris", "computer", "blue"])
    ranked = [neighbour_ranks(glove_small, r) for r in rows]
    outputs = np.array([nr.order[[0, 1, 99, 100, 101, 102, 5000]] for nr in ranked])
    classes = classify_outputs(glove_small, rows, outputs, close=100)
    np.testing.assert_array_equal(classes, [[ORIGINAL, CLOSE, CLOSE, CLOSE, DISTANT, DISTANT, DISTANT]] * 5)


def test_classify_outputs_shapes_progress_and_validation(gaussian_space):
    rows = np.arange(70)
    calls = []
    classes = classify_outputs(gaussian_space, rows, rows, close=5, block=32, progress=lambda d, t: calls.append((d, t)))
    assert classes.shape == (70, 1) and classes.dtype == np.int8
    assert np.all(classes == ORIGINAL)  # every output is its own input
    assert calls == [(32, 70), (64, 70), (70, 70)]
    for bad in (0, len(gaussian_space), -3):
        with pytest.raises(ValueError, match="close"):
            classify_outputs(gaussian_space, rows, rows, close=bad)
    top = classify_outputs(gaussian_space, [0], [[1, 2]], close=len(gaussian_space) - 1)
    assert np.all(top == CLOSE)  # K = N - 1: every other word is close


@settings(max_examples=120, deadline=None, derandomize=True, database=None)
@given(data=st.data(), n_words=st.integers(3, 30), dim=st.integers(1, 3))
def test_ranks_property_small_integer_spaces(data, n_words, dim):
    # exact arithmetic with many ties and duplicates: neighbour_ranks is the stable argsort, and
    # classify_outputs agrees with it for every (word, output) pair and every K
    vectors = data.draw(hnp.arrays(np.int8, (n_words, dim), elements=st.integers(-2, 2)))
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(n_words)], vectors)
    close = data.draw(st.integers(1, n_words - 1))
    rows = np.arange(n_words)
    classes = classify_outputs(space, rows, np.tile(rows, (n_words, 1)), close=close,
                               block=data.draw(st.integers(1, 8)))
    for row in rows:
        nr = neighbour_ranks(space, int(row))
        np.testing.assert_array_equal(nr.order, reference_order(space, int(row)))
        np.testing.assert_array_equal(classes[row], reference_class(nr.rank, close))


def test_classify_outputs_agrees_with_neighbour_ranks_on_rounding_level_near_ties():
    # Rows that are permutations of one vector sit at mathematically equal distances from a
    # constant vector; float64 sums in different orders make them differ by a few ulps. A word's
    # distances computed inside a block of rows can round differently from those computed alone,
    # so classify_outputs must settle near-threshold cases exactly as neighbour_ranks does.
    rng = np.random.default_rng(11)
    base = rng.standard_normal(24)
    perms = np.array([rng.permutation(base) for _ in range(400)])
    centre = np.full((1, 24), base.mean())
    others = rng.standard_normal((200, 24)) * 3
    vectors = np.vstack([centre, perms, others, centre + 1e-3 * rng.standard_normal((40, 24))])
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors)
    rows = np.array([0] + list(range(401, 441)) + list(range(601, 641)))
    outputs = rng.integers(0, len(space), size=(rows.size, 60))
    outputs[:, :40] = rng.integers(1, 401, size=(rows.size, 40))  # the tied permutations
    for close in (5, 100, 250, 399):
        got = classify_outputs(space, rows, outputs, close=close, block=16)
        for i, row in enumerate(rows):
            expected = reference_class(neighbour_ranks(space, int(row)).rank_of(outputs[i]), close)
            np.testing.assert_array_equal(got[i], expected, err_msg=f"row {row}, K={close}")


def test_negative_or_too_large_rows_are_rejected(gaussian_space):
    for row in (-1, len(gaussian_space)):
        with pytest.raises(ValueError, match="outside the vocabulary"):
            neighbour_ranks(gaussian_space, row)


@pytest.mark.parametrize("block", [1, 7, 32])
def test_output_ranks_equal_neighbour_ranks(gaussian_space, integer_space, block):
    rng = np.random.default_rng(block)
    for space in (gaussian_space, integer_space):  # integer_space: duplicates and exact ties
        rows = rng.integers(0, len(space), 300)
        rows[:20] = rows[0]  # a word repeated, as in a text
        outputs = rng.integers(0, len(space), 300)
        outputs[20:40] = rows[20:40]  # some outputs are the input itself
        got = output_ranks(space, rows, outputs, block=block)
        expected = [neighbour_ranks(space, int(r)).rank[o] for r, o in zip(rows, outputs)]
        np.testing.assert_array_equal(got, expected)


def test_output_ranks_on_rounding_level_near_ties_and_progress():
    # permutations of one vector: mathematically equal distances that differ by ulps when
    # computed in a block; output_ranks must settle them as neighbour_ranks does
    rng = np.random.default_rng(5)
    base = rng.standard_normal(24)
    vectors = np.vstack([np.full((1, 24), base.mean()), [rng.permutation(base) for _ in range(300)],
                         rng.standard_normal((100, 24))])
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors)
    rows = np.concatenate([np.zeros(100, dtype=np.int64), rng.integers(1, 301, 100)])
    outputs = rng.integers(1, 301, 200)
    calls = []
    got = output_ranks(space, rows, outputs, block=8, progress=lambda done, total: calls.append((done, total)))
    expected = [neighbour_ranks(space, int(r)).rank[o] for r, o in zip(rows, outputs)]
    np.testing.assert_array_equal(got, expected)
    assert calls[-1][0] == calls[-1][1] == np.unique(rows).size
    with pytest.raises(ValueError, match="one output per input"):
        output_ranks(space, [1, 2], [3])
