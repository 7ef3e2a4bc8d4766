"""Nearest-word search: ExactSearch must return exactly what a float64 brute-force search returns
(lowest index on ties); AnnoySearch is approximate, cached on disk, and measured by recall."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import near_tie_queries
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import privlib.words.search as search_module
from privlib.core.noise import laplace_noise
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MultivariateLaplace
from privlib.words.search import AnnoySearch, ExactSearch, nearest_recall


def _space(rng, n_words, dim, scale=1.0):
    vectors = (rng.standard_normal((n_words, dim)) * scale).astype(np.float32)
    return EmbeddingSpace.from_arrays([f"w{i}" for i in range(n_words)], vectors)


# ----------------------------------------------------------------------------- exactness, random data
@pytest.mark.parametrize(
    "n_words, dim, m",
    [
        (5000, 7, 1500),  # N not a multiple of WORD_BLOCK, m not a multiple of QUERY_BLOCK, two threads
        (2 * 4096 + 1, 3, 1),  # last word block holds a single word; one query
        (4096, 5, 1000),  # exact multiples of both blocks
        (10, 1, 2001),  # one dimension; three query chunks
        (2, 2, 3),  # the smallest vocabulary
    ],
)
def test_exact_search_matches_brute_force_random(brute_force, n_words, dim, m):
    rng = np.random.default_rng(n_words * 31 + dim * 7 + m)
    space = _space(rng, n_words, dim)
    # near the words, far away (large noise) and in between
    centres = space.vectors[rng.integers(0, n_words, m)].astype(np.float64)
    radii = rng.choice([0.01, 0.3, 3.0, 300.0], size=(m, 1))
    queries = centres + radii * rng.standard_normal((m, dim))
    found = space.nearest(queries)
    assert found.dtype == np.int64
    assert found.shape == (m,)
    np.testing.assert_array_equal(found, brute_force(space.vectors, queries))


def test_one_dimensional_query_returns_a_scalar(brute_force, gaussian_space):
    rng = np.random.default_rng(5)
    for _ in range(5):
        q = rng.standard_normal(gaussian_space.dim) * 2
        found = gaussian_space.nearest(q)
        assert np.ndim(found) == 0
        assert int(found) == brute_force(gaussian_space.vectors, q)[0]


def test_each_word_is_its_own_nearest(gaussian_space):
    np.testing.assert_array_equal(gaussian_space.nearest(gaussian_space.vectors), np.arange(len(gaussian_space)))


def test_empty_query_batch(gaussian_space):
    out = gaussian_space.nearest(np.empty((0, gaussian_space.dim)))
    assert out.shape == (0,)
    assert out.dtype == np.int64


# ----------------------------------------------------------------------------- ties
def test_exact_ties_break_to_lowest_index_integer_grid(brute_force, integer_space):
    # Integer words and half-integer queries: every distance is exact, ties are everywhere.
    rng = np.random.default_rng(17)
    queries = rng.integers(-8, 9, size=(3000, 3)) / 2.0
    found = integer_space.nearest(queries)
    expected = brute_force(integer_space.vectors, queries)
    np.testing.assert_array_equal(found, expected)
    # the construction really produces ties: many queries have two or more nearest words
    x = integer_space.vectors.astype(np.float64)
    d = ((x[None, :, :] - queries[:, None, :]) ** 2).sum(axis=2)
    n_tied = (d == d.min(axis=1, keepdims=True)).sum(axis=1)
    assert np.mean(n_tied >= 2) > 0.5
    # and on ties the answer is the lowest of the tied indices
    tied = n_tied >= 2
    lowest = np.argmax(d == d.min(axis=1, keepdims=True), axis=1)
    np.testing.assert_array_equal(found[tied], lowest[tied])


def test_duplicate_vectors_resolve_to_the_first_copy(rescore_calls):
    rng = np.random.default_rng(23)
    base = rng.standard_normal((3000, 50)).astype(np.float32)
    # copies placed in different word blocks (4096 words each) and the last block
    vectors = np.concatenate([base, base[::-1], base])
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(9000)], vectors)
    probe = rng.integers(0, 3000, 400)
    np.testing.assert_array_equal(space.nearest(vectors[probe]), probe)
    np.testing.assert_array_equal(space.nearest(vectors[6000 + probe]), probe)
    np.testing.assert_array_equal(space.nearest(vectors[3000 + probe]), 2999 - probe)
    assert rescore_calls == [400, 400, 400]  # equal float32 scores always go to the float64 path


@pytest.mark.parametrize("word_block, query_block, m", [(7, 5, 400), (1, 1, 40), (64, 3, 400)])
def test_tiny_blocks_give_the_same_answer(monkeypatch, brute_force, integer_space, word_block, query_block, m):
    # The block sizes are memory knobs, not part of the answer: with blocks of a few words and
    # queries the cross-block best/second-best bookkeeping and the re-score path are exercised.
    monkeypatch.setattr(search_module, "WORD_BLOCK", word_block)
    monkeypatch.setattr(search_module, "QUERY_BLOCK", query_block)
    rng = np.random.default_rng(word_block)
    queries = np.concatenate([rng.integers(-8, 9, size=(m - m // 4, 3)) / 2.0, rng.standard_normal((m // 4, 3)) * 40])
    found = ExactSearch(integer_space).nearest(queries)
    np.testing.assert_array_equal(found, brute_force(integer_space.vectors, queries))


@pytest.fixture()
def rescore_calls(monkeypatch):
    """Records how many queries each call of the float64 re-score path receives."""
    calls = []
    original = ExactSearch._rescore

    def spy(self, q64, *rest):
        calls.append(q64.shape[0])
        return original(self, q64, *rest)

    monkeypatch.setattr(ExactSearch, "_rescore", spy)
    return calls


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    data=st.data(),
    n_words=st.integers(2, 40),
    dim=st.integers(1, 4),
)
def test_exact_search_property_small_integer_spaces(brute_force, data, n_words, dim):
    # exact arithmetic (small integers and halves): any answer other than the lowest-index
    # minimiser of the distance is a bug, whatever the ties
    vectors = data.draw(hnp.arrays(np.int8, (n_words, dim), elements=st.integers(-4, 4)))
    queries = data.draw(hnp.arrays(np.int8, (data.draw(st.integers(1, 12)), dim), elements=st.integers(-10, 10))) / 2.0
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(n_words)], vectors)
    np.testing.assert_array_equal(space.nearest(queries), brute_force(space.vectors, queries))


# ----------------------------------------------------------------------------- real GloVe queries
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 5.0, 30.0, 1000.0])
def test_glove_small_noisy_queries_match_brute_force(brute_force, glove_small, epsilon):
    rng = np.random.default_rng(int(epsilon * 10))
    rows = rng.integers(0, len(glove_small), 150)
    queries = glove_small.vectors[rows].astype(np.float64) + laplace_noise(50, epsilon, rows.size, rng)
    np.testing.assert_array_equal(glove_small.nearest(queries), brute_force(glove_small.vectors, queries))


def test_glove_full_noisy_queries_match_brute_force(brute_force, glove):
    rng = np.random.default_rng(99)
    eps = np.repeat([0.5, 1.0, 10.0, 100.0], 6)
    rows = rng.integers(0, len(glove), eps.size)
    queries = glove.vectors[rows].astype(np.float64)
    for k, e in enumerate(eps):
        queries[k] += laplace_noise(50, e, 1, rng)[0]
    np.testing.assert_array_equal(glove.nearest(queries), brute_force(glove.vectors, queries))


def test_glove_exact_ties_at_midpoints(brute_force, glove_small, rescore_calls):
    """The midpoint of a word and its nearest neighbour is exactly equidistant from both, and no
    other word is closer (a closer word would be nearer to the first word than its nearest
    neighbour is). float32 scores cannot separate the two: the float64 re-score must, lowest index."""
    rng = np.random.default_rng(4)
    x = glove_small.vectors.astype(np.float64)
    checked = 0
    for i in rng.choice(len(glove_small), 40, replace=False):
        diff = x - x[i]
        d = np.einsum("ij,ij->i", diff, diff)
        d[i] = np.inf
        j = int(np.argmin(d))
        mid = (x[i] + x[j]) / 2.0  # exact in float64 for float32 inputs
        if not np.array_equal(x[i] - mid, mid - x[j]):  # a difference was rounded (huge exponent gap)
            continue
        checked += 1
        expected = min(int(i), j)
        assert brute_force(glove_small.vectors, mid)[0] == expected
        assert glove_small.nearest(mid) == expected
        assert glove_small.nearest(mid[None, :])[0] == expected
    assert checked >= 30
    assert len(rescore_calls) == 2 * checked  # every one of these queries took the float64 path


@pytest.mark.parametrize("epsilon", [0.5, 1.0])
def test_glove_near_ties_under_large_noise(brute_force, glove_small, epsilon, rescore_calls):
    """Small epsilon: queries ~n/eps = 50-100 from the words, where float32 scores carry errors
    of ~1e-2. Each query is moved next to the bisector of its two nearest words so the two
    distances differ by 1e-6..1e-4 (squared): invisible to float32, unambiguous in float64."""
    rng = np.random.default_rng(int(100 * epsilon))
    queries = near_tie_queries(glove_small, epsilon, rng)
    x = glove_small.vectors.astype(np.float64)
    expected = brute_force(glove_small.vectors, queries)
    np.testing.assert_array_equal(glove_small.nearest(queries), expected)
    # the constructed near-ties (a third word may have moved ahead of a few) went to the float64 path
    x_q = [np.sort(np.einsum("ij,ij->i", x - q, x - q))[:2] for q in queries]
    near_ties = sum(d2 - d1 < 1e-4 for d1, d2 in x_q)
    assert near_ties >= 50
    assert len(rescore_calls) == 1 and rescore_calls[0] >= near_ties
    # the cases are beyond float32: a plain float32 norm-trick search gets some of them wrong
    v32 = glove_small.vectors
    naive = np.argmin(
        (v32 * v32).sum(axis=1)[None, :] - 2.0 * (queries.astype(np.float32) @ v32.T), axis=1
    )
    assert np.any(naive != expected)


# ----------------------------------------------------------------------------- workloads, batching, threads
def _random_word_queries(space, n_words, epsilon, seed):
    """The random-word workload of the sweeps: one noisy copy of each of ``n_words`` words drawn
    from the whole vocabulary, drawn as `MultivariateLaplace.sample_many` draws them."""
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(space), n_words, replace=False))
    return rows, space.vectors[rows].astype(np.float64) + laplace_noise(space.dim, epsilon, rows.size, seed + 1)


@pytest.mark.parametrize("epsilon", [2.0, 10.0])
def test_glove_random_word_workload_matches_brute_force(brute_force, glove, epsilon):
    # the workload that used to be ~2x slower than one repeated word (each call re-scanned the
    # whole vocabulary for its few near-tie queries); the sample_many path and the search agree
    rows, queries = _random_word_queries(glove, 120, epsilon, seed=int(epsilon))
    expected = brute_force(glove.vectors, queries)
    np.testing.assert_array_equal(glove.nearest(queries), expected)
    outputs = MultivariateLaplace.family().sample_many(glove, rows, epsilon,
                                                       rng=np.random.default_rng(int(epsilon) + 1))
    np.testing.assert_array_equal(outputs, expected)


def test_glove_small_random_word_workload_in_large_batches_matches_brute_force(brute_force, glove_small):
    # 2,500 queries: more than QUERY_BLOCK, so query chunks run on the workers (4 x 625 on 2 threads)
    _, queries = _random_word_queries(glove_small, 2500, 10.0, seed=3)
    np.testing.assert_array_equal(glove_small.nearest(queries), brute_force(glove_small.vectors, queries))


def test_batch_sizes_do_not_change_the_answer(brute_force, glove_small):
    # one call (query chunks on the workers), calls of 7 (word blocks shared by the workers), one by one
    _, queries = _random_word_queries(glove_small, 1200, 5.0, seed=8)
    expected = brute_force(glove_small.vectors, queries)
    np.testing.assert_array_equal(glove_small.nearest(queries), expected)
    np.testing.assert_array_equal(np.concatenate([glove_small.nearest(queries[a:a + 7]) for a in range(0, 140, 7)]),
                                  expected[:140])
    np.testing.assert_array_equal([glove_small.nearest(q) for q in queries[:20]], expected[:20])


def test_settling_in_small_pieces_gives_the_same_answer(monkeypatch, brute_force, integer_space):
    # candidate (query, block) pairs scored a few at a time, blocks of a few words, ties everywhere
    monkeypatch.setattr(search_module, "SETTLE_PAIRS", 3)
    monkeypatch.setattr(search_module, "WORD_BLOCK", 5)
    rng = np.random.default_rng(12)
    queries = rng.integers(-8, 9, size=(300, 3)) / 2.0
    expected = brute_force(integer_space.vectors, queries)
    np.testing.assert_array_equal(ExactSearch(integer_space).nearest(queries), expected)


def _blas_threads():
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]


def test_concurrent_searches_are_exact_and_leave_blas_as_it_was(brute_force, glove_small):
    # Streamlit sessions are threads sharing one space: concurrent calls must give each caller its
    # own exact answers, and the process's BLAS thread count must be restored when the last ends
    # (per-call threadpool_limits from concurrent calls used to leave it at 1)
    from concurrent.futures import ThreadPoolExecutor

    _, queries = _random_word_queries(glove_small, 1600, 10.0, seed=5)
    expected = brute_force(glove_small.vectors, queries)
    sizes = [1, 7, 200, 1600] * 2
    before = _blas_threads()
    with ThreadPoolExecutor(len(sizes)) as sessions:
        found = list(sessions.map(lambda n: [glove_small.nearest(queries[:n]) for _ in range(2)], sizes))
    for n, outs in zip(sizes, found):
        for out in outs:
            np.testing.assert_array_equal(out, expected[:n])
    assert _blas_threads() == before


def test_blas_is_single_threaded_only_while_a_search_runs(glove_small):
    workers = search_module.SEARCH_WORKERS
    before = _blas_threads()
    with workers.single_threaded_blas():
        assert set(_blas_threads()) == {1}
        with workers.single_threaded_blas():  # nested (a search inside a search's caller)
            glove_small.nearest(glove_small.vectors[:10])
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before


def test_a_search_from_a_worker_runs_inline(glove_small):
    # a worker waiting on the queue it serves could deadlock: nested calls run in the worker itself
    points = glove_small.vectors[:30].astype(np.float64) + 0.01
    inner = search_module.SEARCH_WORKERS.run([lambda: glove_small.nearest(points) for _ in range(4)])
    for out in inner:
        np.testing.assert_array_equal(out, glove_small.nearest(points))


# ----------------------------------------------------------------------------- design and errors
def test_block_constants_are_modest():
    assert isinstance(search_module.QUERY_BLOCK, int) and search_module.QUERY_BLOCK >= 1
    assert isinstance(search_module.WORD_BLOCK, int) and search_module.WORD_BLOCK >= 1
    # one float32 score block (the largest temporary of a search) stays below 64 MB
    assert search_module.QUERY_BLOCK * search_module.WORD_BLOCK * 4 <= 64 * 2**20


@pytest.mark.parametrize(
    "points, pattern",
    [
        (np.zeros((3, 7)), "dimension 7"),
        (np.zeros(9), "dimension 9"),
        (np.array([[0.0] * 7 + [np.nan]]), "NaN or infinite"),
        (np.array([[0.0] * 7 + [np.inf]]), "NaN or infinite"),
        (np.array([0.0] * 7 + [-np.inf]), "NaN or infinite"),
    ],
)
def test_bad_queries_raise_value_error(gaussian_space, points, pattern):
    with pytest.raises(ValueError, match=pattern):
        gaussian_space.nearest(points)


def test_exact_search_is_built_once(gaussian_space):
    assert gaussian_space.exact_search is gaussian_space.exact_search
    assert isinstance(gaussian_space.exact_search, ExactSearch)


# ----------------------------------------------------------------------------- Annoy
@pytest.fixture()
def separated_space():
    """120 words on a 5-D lattice with spacing 10: nearest-word cells are far apart."""
    rng = np.random.default_rng(8)
    points = rng.choice(np.arange(8) * 10.0, size=(400, 5))
    points = np.unique(points, axis=0)[:120]
    rng.shuffle(points)
    return EmbeddingSpace.from_arrays([f"p{i}" for i in range(len(points))], points)


def test_annoy_builds_once_and_reuses_cache(tmp_path, separated_space):
    first = AnnoySearch(separated_space, n_trees=10, cache_dir=tmp_path)
    assert first.path.parent == tmp_path
    assert first.path.exists()
    assert separated_space.fingerprint in first.path.name
    stamp = first.path.stat().st_mtime_ns
    listing = sorted(p.name for p in tmp_path.iterdir())
    assert listing == [first.path.name]  # no temporary file left behind
    second = AnnoySearch(separated_space, n_trees=10, cache_dir=tmp_path)
    assert second.path == first.path
    assert second.path.stat().st_mtime_ns == stamp  # loaded, not rebuilt
    assert sorted(p.name for p in tmp_path.iterdir()) == listing
    other = AnnoySearch(separated_space, n_trees=11, cache_dir=tmp_path)  # a different key
    assert other.path != first.path
    np.testing.assert_array_equal(first.nearest(separated_space.vectors), second.nearest(separated_space.vectors))


def test_annoy_returns_valid_indices(tmp_path, glove_small):
    annoy = AnnoySearch(glove_small, n_trees=5, cache_dir=tmp_path)
    rng = np.random.default_rng(1)
    queries = glove_small.vectors[:200].astype(np.float64) + laplace_noise(50, 10.0, 200, rng)
    found = annoy.nearest(queries)
    assert found.dtype == np.int64 and found.shape == (200,)
    assert np.all((found >= 0) & (found < len(glove_small)))
    assert np.ndim(annoy.nearest(queries[0])) == 1  # a single point is a batch of one
    with pytest.raises(ValueError, match="dimension"):
        annoy.nearest(np.zeros((2, 49)))


def test_nearest_recall_report(tmp_path, glove_small):
    annoy = AnnoySearch(glove_small, n_trees=5, cache_dir=tmp_path)
    report = nearest_recall(glove_small, annoy, epsilon=10, n_words=60, samples_per_word=3, rng=2)
    assert report["queries"] == 180
    assert report["epsilon"] == 10.0
    r = report["recall_at_1"]
    assert 0.0 <= r <= 1.0
    assert report["standard_error"] == pytest.approx(np.sqrt(r * (1 - r) / 180), rel=1e-12, abs=1e-100)
    with pytest.raises(ValueError, match="epsilon"):
        nearest_recall(glove_small, annoy, epsilon=0)


def test_annoy_recall_is_one_on_a_well_separated_space(tmp_path, separated_space):
    # eps = 10 in 5-D: noise radius ~ Gamma(5, 0.1), mean 0.5, P(R > 5) < 1e-20, so every noisy
    # query stays in its word's cell (half-spacing 5) and that word is far closer than any other.
    annoy = AnnoySearch(separated_space, n_trees=10, cache_dir=tmp_path)
    report = nearest_recall(separated_space, annoy, epsilon=10, n_words=120, samples_per_word=5, rng=3)
    assert report["recall_at_1"] == 1.0
    assert report["queries"] == 600


def test_annoy_parameter_validation(tmp_path, separated_space):
    with pytest.raises(ValueError, match="n_trees"):
        AnnoySearch(separated_space, n_trees=0, cache_dir=tmp_path)


def test_absurdly_small_epsilon_is_explained_not_overflowed(gaussian_space):
    with pytest.raises(ValueError, match="epsilon is far too small"):
        gaussian_space.nearest(np.full((2, gaussian_space.dim), 1e31))


def test_the_search_threads_follow_the_environment(monkeypatch):
    # a Dask worker sharing the machine's cores with others runs PRIVLIB_THREADS search threads
    # (privlib.words.cluster sets 1 on a local cluster): 2 workers x 2 threads on 2 cores ran slower
    import os

    monkeypatch.delenv(search_module.THREADS_VARIABLE, raising=False)
    assert search_module.search_threads() == len(os.sched_getaffinity(0))  # one per core, no cap
    monkeypatch.setenv(search_module.THREADS_VARIABLE, "1")
    assert search_module.search_threads() == 1
    monkeypatch.setenv(search_module.THREADS_VARIABLE, "three")
    with pytest.raises(ValueError, match="PRIVLIB_THREADS must be a whole number"):
        search_module.search_threads()


def test_a_local_clusters_workers_run_one_search_thread_each(dask_client):
    from privlib.words.search import search_threads

    assert set(dask_client.run(search_threads).values()) == {1}
