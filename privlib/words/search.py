"""Nearest-neighbour search over an embedding space (Euclidean).

`ExactSearch` is the default: it returns exactly the word a float64 brute-force search returns
(lowest index on ties), at the speed of blocked float32 matrix products.
`AnnoySearch` is an optional approximate backend (Annoy's own ``euclidean`` metric); its recall
is measured with `nearest_recall`, never assumed.
"""
from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from privlib.core.noise import laplace_noise
from privlib.core.validation import as_generator, check_epsilon, check_positive_int

# Block sizes measured on a 2-core Xeon (bench/bench_nearest.py): a (1000 x 4096) float32
# score block is 16 MB, small enough to stay cheap to reduce, large enough for BLAS to be efficient.
QUERY_BLOCK = 1000
WORD_BLOCK = 4096
_UNIT_ROUNDOFF32 = 2.0**-24
#: Beyond this a float32 score could overflow (max float32 is 3.4e38).
MAX_COORDINATE = 1e30


def _threads() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def _over_query_blocks(m: int, scan) -> None:
    """Call ``scan(slice)`` over m queries cut into one block per thread (at most QUERY_BLOCK
    each), on all cores, each thread with a single-threaded BLAS (25-40 % faster here than one
    thread with a multi-threaded BLAS); one block runs in this thread."""
    chunk = max(1, min(QUERY_BLOCK, -(-m // _threads())))
    starts = range(0, m, chunk)
    if len(starts) == 1:
        scan(slice(0, m))
        return
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(_threads()) as pool:
        list(pool.map(lambda s: scan(slice(s, s + chunk)), starts))


class ExactSearch:
    """Exact Euclidean nearest neighbour of many query points, with bounded memory.

    Method (the "norm trick" with a fused arg-min): for a query q the nearest word minimises
    s(x) = ||x||^2 - 2<q, x> (||q||^2 is common to all x). Rows are augmented once to
    [x, ||x||^2] and queries to [-2q, 1], so one float32 matrix product per block gives s directly;
    each block is reduced at once to the smallest and second-smallest score per query, so no
    score matrix larger than one (QUERY_BLOCK x WORD_BLOCK) block ever exists. Query blocks run
    on all cores, each thread with a single-threaded BLAS.

    Exactness: the float32 score of every word is within tau(q) = (n + 4) u (2||q|| X + X^2)
    of its exact value (u = 2^-24, X = the largest word norm; the standard dot-product rounding
    bound with input rounding). When the second-best float32 score is within 2 tau of the best,
    the answer could differ from exact arithmetic, so every word within 2 tau is re-scored in
    float64 as sum((x - q)^2) — the same formula as a float64 brute-force search — and the
    smallest wins (lowest index on ties). Large noise (small epsilon) raises tau; the re-score
    keeps the answer exact.
    """

    def __init__(self, space):
        self.space = space
        vectors = space.vectors
        n_words, dim = vectors.shape
        augmented = np.empty((n_words, dim + 1), dtype=np.float32)
        augmented[:, :dim] = vectors
        augmented[:, dim] = space.sq_norms
        augmented.flags.writeable = False
        self._augmented = augmented
        self._max_norm = float(np.sqrt(space.sq_norms.max()))
        self._tau_factor = (dim + 4) * _UNIT_ROUNDOFF32 * 1.01

    @property
    def augmented_vectors(self) -> np.ndarray:
        """The read-only float32 rows [x, ||x||^2] that every score s(x) = ||x||^2 - 2<q, x> is
        computed from (a query q enters as [-2q, 1])."""
        return self._augmented

    @property
    def max_norm(self) -> float:
        """X = the largest word norm (in the rounding bounds)."""
        return self._max_norm

    def score_error_bound(self, query_norms) -> np.ndarray:
        """tau(q) = (n + 4) u (2 ||q|| X + X^2): every float32 score of a query of norm ||q|| is
        within tau(q) of its exact value (u = 2^-24, with 1 % slack; see the class docstring)."""
        return self._tau_factor * (2.0 * np.asarray(query_norms, dtype=np.float64) * self._max_norm + self._max_norm**2)

    def nearest(self, points) -> np.ndarray:
        """Index (int64) of the nearest word to each row of ``points`` (shape (m, n) or (n,))."""
        single = np.ndim(points) == 1
        q, queries = self._checked_queries(points)
        m = q.shape[0]
        if m == 0:
            return np.empty(0, dtype=np.int64)
        best, second, arg = self._first_pass(queries)
        q_norm = np.sqrt(np.einsum("ij,ij->i", q, q))
        tau = self.score_error_bound(q_norm)
        ambiguous = np.flatnonzero(second.astype(np.float64) <= best.astype(np.float64) + 2.0 * tau)
        if ambiguous.size:
            arg[ambiguous] = self._rescore(q[ambiguous], queries[ambiguous], best[ambiguous] + 2.0 * tau[ambiguous])
        return arg[0] if single else arg

    # -- pass 1: best and second-best float32 score per query
    def _first_pass(self, queries):
        m = queries.shape[0]
        best = np.full(m, np.inf, dtype=np.float32)
        second = np.full(m, np.inf, dtype=np.float32)
        arg = np.zeros(m, dtype=np.int64)
        _over_query_blocks(m, lambda sl: self._scan(queries[sl], best[sl], second[sl], arg[sl]))
        return best, second, arg

    def _scan(self, queries, best, second, arg):
        """Fill best/second/arg (views) for one block of queries, word block by word block."""
        rows = np.arange(queries.shape[0])
        out = np.empty((queries.shape[0], WORD_BLOCK), dtype=np.float32)
        for start in range(0, self._augmented.shape[0], WORD_BLOCK):
            block = self._augmented[start:start + WORD_BLOCK]
            scores = np.matmul(queries, block.T, out=out[:, : block.shape[0]])
            i = scores.argmin(axis=1)
            v = scores[rows, i]
            scores[rows, i] = np.inf
            v2 = scores.min(axis=1) if block.shape[0] > 1 else np.full_like(v, np.inf)
            better = v < best  # strict: on equal float32 scores the lower index stays
            second[:] = np.where(better, np.minimum(best, v2), np.minimum(second, v))
            best[better] = v[better]
            arg[better] = i[better] + start

    # -- pass 2: float64 re-score of every word whose float32 score is within the bound
    def _ranked_candidates(self, q64, queries, limits):
        """For blocks of queries: (offset, query, word) of every word whose float32 score is at
        most ``limits``, sorted by query, then float64 distance sum((x - q)^2), then row; and a
        mask of each query's first candidate."""
        vectors = self.space.vectors
        for j0 in range(0, q64.shape[0], QUERY_BLOCK):
            qb = queries[j0:j0 + QUERY_BLOCK]
            lim = limits[j0:j0 + QUERY_BLOCK].astype(np.float32)
            lim = np.nextafter(lim, np.float32(np.inf))  # include scores equal to the limit
            cand_q, cand_x = [], []
            for start in range(0, vectors.shape[0], WORD_BLOCK):
                scores = qb @ self._augmented[start:start + WORD_BLOCK].T
                r, c = np.nonzero(scores <= lim[:, None])
                cand_q.append(r)
                cand_x.append(c + start)
            cq = np.concatenate(cand_q)
            cx = np.concatenate(cand_x)
            diff = vectors[cx].astype(np.float64) - q64[j0 + cq]
            d = np.einsum("ij,ij->i", diff, diff)
            order = np.lexsort((cx, d, cq))  # by query, then distance, then index
            cq, cx = cq[order], cx[order]
            head = np.ones(order.size, dtype=bool)
            head[1:] = cq[1:] != cq[:-1]
            yield j0, cq, cx, head

    def _rescore(self, q64, queries, limits):
        found = np.empty(q64.shape[0], dtype=np.int64)
        for j0, cq, cx, head in self._ranked_candidates(q64, queries, limits):
            found[j0 + cq[head]] = cx[head]
        return found


    # -- first and second nearest (the Vickrey mechanism's pair)
    def nearest_two(self, points) -> tuple[np.ndarray, np.ndarray]:
        """The nearest and the second-nearest word to each row of ``points``, as two int64 arrays
        (scalars for one (n,) point), exact in the sense of `nearest`.

        "Exact" means: the first two words when the vocabulary is sorted by the float64
        sum((x - q)^2) and then by row index (so ``first`` always equals `nearest`, and on a tie
        the lower row comes first); the pair is sorted, d(q, first) <= d(q, second) (the
        Vickrey mechanism of Xu et al. 2021 needs that order).

        Method: one float32 pass keeps, per query, the best, second and third scores and the rows
        of the first two. Every float32 score is within tau of its exact value (see the class
        docstring). When best + 2 tau < second and second + 2 tau < third, both ranks are
        certain; otherwise every word whose float32 score is within 2 tau of the second-best is
        re-scored in float64 (the exact second-best score is at most second + tau, so any word
        that could be first or second is among them) and the two smallest by (distance, row) win.
        """
        q, queries = self._checked_queries(points)
        single = q.shape[0] == 1 and np.ndim(points) == 1
        m = q.shape[0]
        if m == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        best, second, third, arg1, arg2 = self._first_pass_two(queries)
        q_norm = np.sqrt(np.einsum("ij,ij->i", q, q))
        tau = self.score_error_bound(q_norm)
        b1, b2, b3 = (v.astype(np.float64) for v in (best, second, third))
        ambiguous = np.flatnonzero((b2 <= b1 + 2.0 * tau) | (b3 <= b2 + 2.0 * tau))
        if ambiguous.size:
            f, s = self._rescore_two(q[ambiguous], queries[ambiguous], b2[ambiguous] + 2.0 * tau[ambiguous])
            arg1[ambiguous] = f
            arg2[ambiguous] = s
        return (arg1[0], arg2[0]) if single else (arg1, arg2)

    def _checked_queries(self, points):
        """(float64 points (m, n), float32 augmented queries [-2q, 1]) with the checks of `nearest`."""
        q = np.atleast_2d(np.asarray(points, dtype=np.float64))
        dim = self.space.dim
        if q.ndim != 2 or q.shape[1] != dim:
            raise ValueError(f"Query points have dimension {q.shape[-1]}, the embedding has {dim}.")
        if not np.isfinite(q).all():
            raise ValueError("Query points contain NaN or infinite values.")
        if q.size and np.abs(q).max() > MAX_COORDINATE:
            raise ValueError(
                "The noisy points are too far out for a float32 search (coordinates above 1e30): "
                "epsilon is far too small to be meaningful (use epsilon > 1e-20)."
            )
        queries = np.empty((q.shape[0], dim + 1), dtype=np.float32)
        queries[:, :dim] = -2.0 * q
        queries[:, dim] = 1.0
        return q, queries

    def _first_pass_two(self, queries):
        m = queries.shape[0]
        best, second, third = (np.full(m, np.inf, dtype=np.float32) for _ in range(3))
        arg1 = np.zeros(m, dtype=np.int64)
        arg2 = np.zeros(m, dtype=np.int64)
        _over_query_blocks(m, lambda sl: self._scan_two(queries[sl], best[sl], second[sl], third[sl], arg1[sl], arg2[sl]))
        return best, second, third, arg1, arg2

    def _scan_two(self, queries, best, second, third, arg1, arg2):
        """Fill the three smallest float32 scores and the rows of the first two (views) for one
        block of queries, word block by word block."""
        m = queries.shape[0]
        rows = np.arange(m)
        out = np.empty((m, WORD_BLOCK), dtype=np.float32)
        none = np.full(m, -1, dtype=np.int64)
        for start in range(0, self._augmented.shape[0], WORD_BLOCK):
            block = self._augmented[start:start + WORD_BLOCK]
            scores = np.matmul(queries, block.T, out=out[:, : block.shape[0]])
            i1 = scores.argmin(axis=1)
            v1 = scores[rows, i1]
            scores[rows, i1] = np.inf
            i2 = scores.argmin(axis=1)  # a one-word block gives v2 = inf (never chosen over a word)
            v2 = scores[rows, i2]
            scores[rows, i2] = np.inf
            v3 = scores.min(axis=1)
            # merge the running top three with the block's top three (stable: on equal float32
            # scores the earlier, lower row stays first; such near-ties are re-scored anyway)
            values = np.stack([best, second, third, v1, v2, v3], axis=1)
            args = np.stack([arg1, arg2, none, i1 + start, i2 + start, none], axis=1)
            order = np.argsort(values, axis=1, kind="stable")[:, :3]
            top = np.take_along_axis(values, order, axis=1)
            top_args = np.take_along_axis(args, order[:, :2], axis=1)
            best[:], second[:], third[:] = top[:, 0], top[:, 1], top[:, 2]
            arg1[:], arg2[:] = top_args[:, 0], top_args[:, 1]

    def _rescore_two(self, q64, queries, limits):
        """First and second word by (float64 distance, row) among the words whose float32 score
        is at most ``limits`` (per query)."""
        first = np.empty(q64.shape[0], dtype=np.int64)
        second = np.empty(q64.shape[0], dtype=np.int64)
        for j0, cq, cx, head in self._ranked_candidates(q64, queries, limits):
            starts = np.flatnonzero(head)  # each query has at least two candidates (its f32 top two)
            first[j0 + cq[starts]] = cx[starts]
            second[j0 + cq[starts]] = cx[starts + 1]
        return first, second


class AnnoySearch:
    """Approximate nearest neighbour with Annoy's ``euclidean`` metric (random-projection forest).

    Built once per embedding (keyed by the space's fingerprint and ``n_trees``) and cached on
    disk in ``cache_dir`` (default: ~/.cache/epsilon-lab/annoy). ``search_k`` trades speed for
    recall (-1 = Annoy's default, n_trees * n). Its recall@1 against `ExactSearch` is measured by
    `nearest_recall`; outputs differ from the exact mechanism's where it misses.
    """

    def __init__(self, space, n_trees: int = 50, search_k: int = -1, cache_dir=None, seed: int = 0):
        from annoy import AnnoyIndex

        self.space = space
        self.n_trees = check_positive_int(n_trees, "n_trees", maximum=1000)
        self.search_k = int(search_k)
        cache = Path(cache_dir) if cache_dir is not None else Path.home() / ".cache" / "epsilon-lab" / "annoy"
        cache.mkdir(parents=True, exist_ok=True)
        self.path = cache / f"{space.fingerprint}-{self.n_trees}t-s{seed}.ann"
        index = AnnoyIndex(space.dim, "euclidean")
        if not self.path.exists():
            index.set_seed(seed)
            for i, v in enumerate(space.vectors):
                index.add_item(i, v)
            index.build(self.n_trees, n_jobs=_threads())
            # write to a temporary name first, so a half-written file is never taken as the cache
            fd, tmp = tempfile.mkstemp(dir=cache, suffix=".ann.tmp")
            os.close(fd)
            index.save(tmp)
            index.unload()
            os.replace(tmp, self.path)
            index = AnnoyIndex(space.dim, "euclidean")
        index.load(str(self.path))
        self._index = index

    def nearest(self, points) -> np.ndarray:
        q = np.atleast_2d(np.asarray(points, dtype=np.float64))
        if q.shape[1] != self.space.dim:
            raise ValueError(f"Query points have dimension {q.shape[1]}, the embedding has {self.space.dim}.")
        get = self._index.get_nns_by_vector
        return np.array([get(row, 1, search_k=self.search_k)[0] for row in q], dtype=np.int64)


def nearest_recall(space, approximate, epsilon: float, n_words: int = 200, samples_per_word: int = 5, rng=None) -> dict:
    """recall@1 of an approximate search against `ExactSearch` on noisy queries.

    Queries are what the mechanism really asks: w + eta for ``n_words`` uniformly drawn words
    and multivariate Laplace noise eta at ``epsilon``. Returns the recall, the number of
    queries and its binomial standard error.
    """
    epsilon = check_epsilon(epsilon)
    rng = as_generator(rng)
    words = rng.choice(len(space), size=min(n_words, len(space)), replace=False)
    points = np.repeat(space.vectors[words].astype(np.float64), samples_per_word, axis=0)
    points += laplace_noise(space.dim, epsilon, points.shape[0], rng)
    exact = space.nearest(points)
    approx = approximate.nearest(points)
    recall = float(np.mean(exact == approx))
    m = points.shape[0]
    return {"epsilon": epsilon, "queries": m, "recall_at_1": recall,
            "standard_error": float(np.sqrt(max(recall * (1 - recall), 1e-300) / m))}
