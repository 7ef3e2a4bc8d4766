"""`RecentDraws`, the memory of recent multivariate Laplace runs that lets the post-processing fix
reuse the plain mechanism's search for its pivots, returns what a fresh run returns and leaves the
generator where a fresh run leaves it; `output_ranks` with many outputs per word (the histogram
route) ranks exact ties as the single-row computation does. (That the faster pages give the numbers
of the code they replaced is checked against that code by bench/same_numbers.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MultivariateLaplace, PostProcessingFix
from privlib.words.mechanisms.base import SAMPLE_BATCH
from privlib.words.mechanisms.laplace import RECENT_MAX_ROWS
from privlib.words.search import ExactSearch

WORDS = 60_000


# ----------------------------------------------------------------------------- RecentDraws
@pytest.fixture(scope="module")
def space():
    return EmbeddingSpace.glove_6b_50d(vocab_size=WORDS)


def _counting_nearest(monkeypatch):
    calls = []
    original = ExactSearch.nearest

    def nearest(self, points):
        calls.append(np.atleast_2d(points).shape[0])
        return original(self, points)

    monkeypatch.setattr(ExactSearch, "nearest", nearest)
    return calls


def test_a_repeated_laplace_run_is_recalled_with_the_generator_moved_on(space, monkeypatch):
    fresh = EmbeddingSpace.from_arrays(space.words, space.vectors)  # no remembered runs
    rows = np.arange(0, 3000, 7)
    eps = np.repeat([1.0, 10.0], rows.size // 2 + 1)[:rows.size]
    first, second = np.random.default_rng(5), np.random.default_rng(5)
    calls = _counting_nearest(monkeypatch)
    a = MultivariateLaplace.family().sample_many(fresh, rows, eps, first)
    b = MultivariateLaplace.family().sample_many(fresh, rows, eps, second)  # recalled: no search
    assert len(calls) == 1
    np.testing.assert_array_equal(a, b)
    assert first.bit_generator.state == second.bit_generator.state
    np.testing.assert_array_equal(first.random(5), second.random(5))
    b[:] = -1  # the caller's copy: the remembered outputs are not changed by it
    laplace = MultivariateLaplace.family()
    np.testing.assert_array_equal(laplace.sample_many(fresh, rows, eps, np.random.default_rng(5)), a)
    # another state, other rows or other epsilons are other runs
    MultivariateLaplace.family().sample_many(fresh, rows, eps, np.random.default_rng(6))
    MultivariateLaplace.family().sample_many(fresh, rows[1:], eps[1:], np.random.default_rng(5))
    MultivariateLaplace.family().sample_many(fresh, rows, eps * 2, np.random.default_rng(5))
    assert len(calls) == 4


def test_the_fix_reuses_the_plain_mechanisms_search_for_its_pivots(space, monkeypatch):
    fresh = EmbeddingSpace.from_arrays(space.words, space.vectors)
    rows = np.repeat(np.arange(0, 400, 10), 5)
    calls = _counting_nearest(monkeypatch)
    plain = MultivariateLaplace.family().sample_many(fresh, rows, 8.0, np.random.default_rng(2))
    fix = PostProcessingFix.family().sample_many(fresh, rows, 8.0, np.random.default_rng(2))
    assert calls == [rows.size]  # the fix's pivots came from the remembered run
    # the very outputs a space with no memory gives
    other = EmbeddingSpace.from_arrays(space.words, space.vectors)
    fix_family, laplace = PostProcessingFix.family(), MultivariateLaplace.family()
    np.testing.assert_array_equal(fix_family.sample_many(other, rows, 8.0, np.random.default_rng(2)), fix)
    np.testing.assert_array_equal(laplace.sample_many(other, rows, 8.0, np.random.default_rng(2)), plain)


def test_runs_beyond_the_limit_are_not_remembered(space, monkeypatch):
    tiny = EmbeddingSpace.from_arrays(space.words[:50], space.vectors[:50])
    rows = np.zeros(RECENT_MAX_ROWS + 1, dtype=np.int64)
    calls = _counting_nearest(monkeypatch)
    a = MultivariateLaplace.family().sample_many(tiny, rows, 50.0, np.random.default_rng(1))
    b = MultivariateLaplace.family().sample_many(tiny, rows, 50.0, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert len(calls) == 2 * (-(-rows.size // SAMPLE_BATCH))  # searched again, batch by batch


# ----------------------------------------------------------------------------- ranks without a sort
@pytest.mark.parametrize("values", [(-1, 0, 1), (0, 1), (0,)])
def test_output_ranks_of_many_outputs_per_word_with_exact_ties(values):
    """Every word of a small integer space (duplicated vectors, many equal distances; in the last
    case all vectors equal) as the output of every word: each word has more distinct outputs than
    `output_ranks` counts one by one, so all go through its histogram, and must get the stable ranks
    of `neighbour_ranks`."""
    from privlib.words.neighbours import neighbour_ranks, output_ranks

    rng = np.random.default_rng(len(values))
    vectors = rng.choice(values, size=(90, 3)).astype(np.float32)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors)
    rows = np.repeat(np.arange(len(space)), len(space))
    outputs = np.tile(np.arange(len(space)), len(space))
    got = output_ranks(space, rows, outputs, block=16).reshape(len(space), len(space))
    for w in range(len(space)):
        np.testing.assert_array_equal(got[w], neighbour_ranks(space, w).rank)
