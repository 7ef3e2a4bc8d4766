"""How the exact search cuts its work for T threads (`search_pieces`), and that the cut never changes
an answer: T = 1..16 worker threads (real threads, even on a 2-core machine) give exactly the
one-thread answers of `nearest` and `nearest_two`, exact ties included."""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privlib.words.search as search_module
from privlib.core.threads import available_cores
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.search import ExactSearch, SearchWorkers, search_pieces, search_threads


# ----------------------------------------------------------------------------- the plan
def _check_plan(pieces, queries, words, threads, query_block, word_block):
    """Every (query, word) pair in exactly one piece, chunks of at most query_block queries, word
    slices of whole blocks in word order; at least min(T, queries x blocks) pieces."""
    # listed chunk by chunk, each chunk's slices in word order (what the merge of nearest_two needs):
    # the chunks follow each other from query 0 to the last, and so do a chunk's slices from word 0
    # to the last, so every (query, word) pair is in exactly one piece
    chunks = {}
    for piece in pieces:
        assert piece.queries.step is None and piece.words.step is None
        assert piece.queries.stop - piece.queries.start <= query_block
        assert piece.words.start % word_block == 0
        assert piece.words.stop % word_block == 0 or piece.words.stop == words
        chunks.setdefault((piece.queries.start, piece.queries.stop), []).append(piece.words)
    edges = [a for a, _ in chunks] + [queries]
    assert [b for _, b in chunks] == edges[1:] and edges[0] == 0  # consecutive, from 0 to queries
    assert all(a < b for a, b in chunks)
    for slices in chunks.values():
        assert [w.start for w in slices] == [0] + [w.stop for w in slices[:-1]]
        assert slices[-1].stop == words and all(w.start < w.stop for w in slices)
    starts = [(p.queries.start, p.words.start) for p in pieces]
    assert starts == sorted(starts)  # not interleaved
    if queries * words <= 10_000:  # small: count every pair
        covered = np.zeros((queries, words), dtype=np.int64)
        for piece in pieces:
            covered[piece.queries, piece.words] += 1
        np.testing.assert_array_equal(covered, 1)
    n_blocks = -(-words // word_block)
    if threads > 1:
        assert len(pieces) >= min(threads, queries * n_blocks)
    else:
        assert len(pieces) == -(-queries // query_block)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(queries=st.integers(1, 60), words=st.integers(2, 90), threads=st.integers(1, 20),
       query_block=st.integers(1, 25), word_block=st.integers(1, 30))
def test_the_pieces_cover_every_pair_once_and_give_every_thread_work(queries, words, threads, query_block,
                                                                     word_block):
    pieces = search_pieces(queries, words, threads, query_block, word_block)
    _check_plan(pieces, queries, words, threads, query_block, word_block)


@pytest.mark.parametrize("threads", range(1, 17))
@pytest.mark.parametrize("queries", [1, 5, 999, 1000, 1001, 2000, 2500, 15_999, 20_000])
def test_the_pieces_of_glove_searches_are_a_multiple_of_the_threads(queries, threads):
    # 400,000 words (391 blocks of 1,024): enough blocks to cut for any of these thread counts,
    # so the pieces are equal work on T threads (their number a multiple of T)
    pieces = search_pieces(queries, 400_000, threads)
    _check_plan(pieces, queries, 400_000, threads, 1000, 1024)
    assert len(pieces) % threads == 0


@pytest.mark.parametrize(
    "queries, threads, chunks, slices",
    [
        (2000, 16, 2, 8),  # the case: 2 chunks of 1,000 queries x 8 slices of the vocabulary
        (1, 16, 1, 16),
        (2000, 2, 2, 1),  # enough chunks for 2 threads: chunks only, each reads the vocabulary once
        (2500, 2, 4, 1),  # 4 x 625, not 1,000 + 1,000 + 500
        (3000, 16, 3, 16),  # c x s a multiple of 16
        (20_000, 16, 32, 1),
        (20_000, 1, 20, 1),
        (700, 1, 1, 1),
    ],
)
def test_the_cut_of_a_glove_search(queries, threads, chunks, slices):
    pieces = search_pieces(queries, 400_000, threads)
    assert len({(p.queries.start, p.queries.stop) for p in pieces}) == chunks
    assert len({(p.words.start, p.words.stop) for p in pieces}) == slices
    assert len(pieces) == chunks * slices


def test_a_small_vocabulary_is_cut_into_its_blocks_and_the_queries_finer():
    # 3 blocks cannot make 16 slices: 3 slices x 6 chunks of queries (one query each at most)
    pieces = search_pieces(10, 3 * 1024, 16)
    assert len({(p.words.start, p.words.stop) for p in pieces}) == 3
    assert len(pieces) == 3 * 6
    # 2 queries x 1 block: the two pieces there are
    assert len(search_pieces(2, 5, 16)) == 2
    assert search_pieces(0, 5, 4) == []


# ----------------------------------------------------------------------------- thread counts
def test_the_default_is_every_core_the_process_may_use(monkeypatch):
    # no cap: a 16-core machine runs 16 search threads (8 before)
    monkeypatch.delenv(search_module.THREADS_VARIABLE, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert available_cores() == 16
    assert search_threads() == 16
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})  # taskset -c 3
    assert search_threads() == 1


@pytest.mark.parametrize("value", ["0", "-2", "2.5", "1025", "x" * 10_000])
def test_a_bad_thread_count_is_refused(monkeypatch, value):
    monkeypatch.setenv(search_module.THREADS_VARIABLE, value)
    with pytest.raises(ValueError, match="PRIVLIB_THREADS must be a whole number of threads from 1 to 1024") as info:
        search_threads()
    assert len(str(info.value)) < 300


def test_the_pool_has_the_threads_it_was_made_with(monkeypatch):
    monkeypatch.setenv(search_module.THREADS_VARIABLE, "3")
    workers = SearchWorkers()
    try:
        assert workers.threads == 3
        monkeypatch.setenv(search_module.THREADS_VARIABLE, "5")  # read once, when the pool starts
        assert workers.threads == 3
        names = workers.run([lambda: __import__("threading").current_thread().name for _ in range(6)])
        assert all(name.startswith("privlib-search") for name in names)
    finally:
        workers.shutdown()
    fixed = SearchWorkers(threads=7)
    try:
        assert fixed.threads == 7
    finally:
        fixed.shutdown()


@pytest.fixture()
def with_threads(monkeypatch):
    """``with_threads(T)``: the search's workers become a pool of T threads (shut down afterwards)."""
    pools = []

    def use(threads: int) -> SearchWorkers:
        workers = SearchWorkers(threads=threads)
        pools.append(workers)
        monkeypatch.setattr(search_module, "SEARCH_WORKERS", workers)
        return workers

    yield use
    for workers in pools:
        workers.shutdown()


@pytest.fixture()
def submitted(monkeypatch):
    """The number of tasks of each `SearchWorkers.run` call."""
    counts = []
    original = SearchWorkers.run

    def spy(self, tasks):
        tasks = list(tasks)
        counts.append(len(tasks))
        return original(self, tasks)

    monkeypatch.setattr(SearchWorkers, "run", spy)
    return counts


@pytest.mark.parametrize("method", ["nearest", "nearest_two"])
def test_one_query_gives_every_thread_a_piece(glove_small, with_threads, submitted, method):
    # one query on 16 threads: 16 slices of the 20,000 words (nearest_two scanned it in one piece)
    with_threads(16)
    getattr(ExactSearch(glove_small), method)(glove_small.vectors[:1].astype(np.float64) + 0.01)
    assert submitted[0] == 16


# ----------------------------------------------------------------------------- same answers whatever the cut
def _tie_space(rng, n_words, dim):
    """Small-integer words (exact arithmetic: every tie is a true tie), with the first rows copied
    at the end, so duplicates lie in different word slices."""
    base = rng.integers(-3, 4, size=(n_words, dim))
    vectors = np.concatenate([base, base[: max(1, n_words // 3)]])
    return EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors)


def _tie_queries(rng, space, m):
    """Half-integer points (equidistant from many words), words themselves (a duplicate's copies
    at distance 0) and far points; the first is word 0, whose copy is the first row after the
    originals (an exact tie between the first and the last slice)."""
    kinds = rng.integers(0, 3, m)
    points = rng.integers(-8, 9, size=(m, space.dim)) / 2.0
    on_words = space.vectors[rng.integers(0, len(space), m)].astype(np.float64)
    far = rng.standard_normal((m, space.dim)) * 50.0
    queries = np.where(kinds[:, None] == 0, points, np.where(kinds[:, None] == 1, on_words, far))
    queries[0] = space.vectors[0]
    return queries


def _answers(space, queries):
    search = ExactSearch(space)
    return search.nearest(queries), *search.nearest_two(queries)


def _brute_force_answers(vectors, queries):
    """(nearest, first, second) by (float64 sum((x - q)^2), row): the exact answers."""
    x = np.asarray(vectors, dtype=np.float64)
    first, second = [], []
    for q in queries:
        d = np.einsum("ij,ij->i", x - q, x - q)
        order = np.lexsort((np.arange(d.size), d))
        first.append(order[0])
        second.append(order[1])
    return np.array(first), np.array(first), np.array(second)


@pytest.mark.parametrize(
    "n_words, dim, m",
    [
        (2, 2, 1),  # K = 2 of 3 words (with the copy): the whole vocabulary
        (3, 1, 5),  # fewer queries than threads
        (9, 2, 1),
        (40, 3, 13),  # queries not a multiple of the query chunk
        (120, 3, 64),
        (300, 4, 23),
    ],
)
def test_every_thread_count_gives_the_one_thread_answers(monkeypatch, with_threads, n_words, dim, m):
    # blocks of 4 words and chunks of 5 queries: small spaces get many slices and chunks
    monkeypatch.setattr(search_module, "WORD_BLOCK", 4)
    monkeypatch.setattr(search_module, "QUERY_BLOCK", 5)
    rng = np.random.default_rng(n_words * 7 + m)
    space = _tie_space(rng, n_words, dim)
    queries = _tie_queries(rng, space, m)
    with_threads(1)
    one = _answers(space, queries)
    for found, expected in zip(one, _brute_force_answers(space.vectors, queries)):
        np.testing.assert_array_equal(found, expected)
    # the construction plants exact ties: some query has two words at its smallest distance
    x = space.vectors.astype(np.float64)
    d = ((x[None, :, :] - queries[:, None, :]) ** 2).sum(axis=2)
    assert ((d == d.min(axis=1, keepdims=True)).sum(axis=1) >= 2).any()
    for threads in range(2, 17):
        with_threads(threads)
        for found, expected in zip(_answers(space, queries), one):
            np.testing.assert_array_equal(found, expected, err_msg=f"{threads} threads")


@pytest.mark.parametrize("m", [1, 3, 1000, 1500, 2001])
def test_glove_answers_do_not_depend_on_the_threads(glove_small, with_threads, submitted, m):
    # real blocks (1,024 words, 1,000 queries): 20 blocks of GloVe's 20,000 most frequent words,
    # noisy queries at epsilon = 5, and midpoints of word pairs (equidistant from both words)
    rng = np.random.default_rng(m)
    x = glove_small.vectors.astype(np.float64)
    rows = rng.integers(0, len(glove_small), m)
    queries = x[rows] + rng.laplace(0.0, 1 / 5, size=(m, glove_small.dim))
    queries[::3] = (x[rows[::3]] + x[(rows[::3] + 1) % len(glove_small)]) / 2.0
    with_threads(1)
    one = _answers(glove_small, queries)
    for found, expected in zip(one, _brute_force_answers(glove_small.vectors, queries[:60])):
        np.testing.assert_array_equal(found[:60], expected)
    for threads in (2, 3, 16):
        with_threads(threads)
        submitted.clear()
        for found, expected in zip(_answers(glove_small, queries), one):
            np.testing.assert_array_equal(found, expected, err_msg=f"{threads} threads")
        assert min(submitted) >= min(threads, m)  # each run of the workers had a piece per thread


def test_every_word_block_and_query_chunk_combination_of_nearest_two(monkeypatch, with_threads):
    # the merge of word slices against one scan, over many cuts of the same search
    rng = np.random.default_rng(5)
    space = _tie_space(rng, 50, 2)
    queries = _tie_queries(rng, space, 17)
    with_threads(1)
    expected = ExactSearch(space).nearest_two(queries)
    np.testing.assert_array_equal(expected, _brute_force_answers(space.vectors, queries)[1:])
    for word_block, query_block, threads in itertools.product([1, 3, 8], [1, 4, 17], [2, 5, 12]):
        monkeypatch.setattr(search_module, "WORD_BLOCK", word_block)
        monkeypatch.setattr(search_module, "QUERY_BLOCK", query_block)
        with_threads(threads)
        first, second = ExactSearch(space).nearest_two(queries)
        np.testing.assert_array_equal(first, expected[0])
        np.testing.assert_array_equal(second, expected[1])
