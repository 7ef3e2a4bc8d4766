"""Nearest-neighbour search over an embedding space (Euclidean).

`ExactSearch` is the default: it returns exactly the word a float64 brute-force search returns
(lowest index on ties), at the speed of blocked float32 matrix products.
`AnnoySearch` is an optional approximate backend (Annoy's own ``euclidean`` metric); its recall
is measured with `nearest_recall`, never assumed.
"""
from __future__ import annotations

import itertools
import math
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.threads import available_cores, single_threaded_blas
from privlib.core.validation import as_generator, check_epsilon, check_positive_int, shown

# Block sizes measured on the 2-core AMD EPYC (single-threaded CPU time of the block minima of 1,000
# queries): a (1024 words x 1000 queries) float32 score block is 4 MB and is reduced while still in
# the cache; 4096-word blocks (16 MB) took about 25 % more CPU per query, 256-512 words no less.
QUERY_BLOCK = 1000
WORD_BLOCK = 1024
#: Step 2 of `ExactSearch.nearest` scores (query, candidate block) pairs this many at a time (8 MB).
SETTLE_PAIRS = 2048
_UNIT_ROUNDOFF32 = 2.0**-24
#: Beyond this a float32 score could overflow (max float32 is 3.4e38).
MAX_COORDINATE = 1e30


#: Environment variable that sets the number of threads the search (and every scan of the
#: vocabulary) uses in this process; unset: one per core the process may run on. A Dask
#: worker process started by `privlib.words.cluster` gets its own thread count here, so workers
#: sharing a machine do not each start one thread per core (2 workers x 2 threads on 2 cores ran
#: the corpus benchmark slower than one process).
THREADS_VARIABLE = "PRIVLIB_THREADS"
#: The most threads `THREADS_VARIABLE` may ask for (each holds a 4 MB score block and its share of
#: the block minima); the default, one per core, has no cap.
MAX_THREADS = 1024


def search_threads() -> int:
    """Threads of the search's pool: `THREADS_VARIABLE` when set (a whole number from 1 to
    `MAX_THREADS`), else one per core this process may run on
    (`privlib.core.threads.available_cores`: containers and taskset give fewer than the machine's)."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return available_cores()
    try:
        threads = int(text)
    except ValueError:
        threads = 0
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"{THREADS_VARIABLE} must be a whole number of threads from 1 to {MAX_THREADS}, "
                         f"got {shown(text)}: set it to the cores this process may use, or unset it.")
    return threads


class SearchPiece(NamedTuple):
    """One task of a search: the queries ``queries`` against the words ``words`` (row slices)."""

    queries: slice
    words: slice


def search_pieces(queries: int, words: int, threads: int, query_block: int = QUERY_BLOCK,
                  word_block: int = WORD_BLOCK) -> list[SearchPiece]:
    """How a search of ``queries`` points over ``words`` rows is cut for ``threads`` workers: a grid
    of c query chunks (at most ``query_block`` queries each: memory) by s word slices (whole word
    blocks of ``word_block``, in order), so every (query, word) pair is in exactly one piece.
    Listed chunk by chunk, the slices of a chunk in word order. Chunk and slice sizes differ by
    at most one query or block, so the pieces are equal work.

    With c0 = ceil(queries / query_block) and T = ``threads``:

    - T = 1: c = c0, s = 1.
    - c0 >= T (many queries): c = c0 rounded up to a multiple of T, s = 1 (2,500 queries on 2
      threads: 4 x 625, not 1,000 + 1,000 + 500); each chunk reads the whole vocabulary.
    - c0 < T (few queries): c = c0 and s = T / gcd(c0, T), so c x s is a multiple of T (2,000
      queries on 16 threads: 2 chunks x 8 slices of 50,000 GloVe words; 1 query: 16 slices). Why
      slices rather than more, smaller chunks: each word block is then read from memory once per
      chunk instead of once per thread, and each product keeps up to ``query_block`` query
      columns (a product of 125 columns runs further from BLAS's peak than one of 1,000).
    - When a small vocabulary has fewer word blocks than the slices wanted: one slice per block,
      and the queries cut into up to ceil(T / blocks) chunks (one query each at most).

    So there are at least min(T, queries x word blocks) pieces, a multiple of T whenever the
    vocabulary has enough blocks; none when ``queries`` or ``words`` is 0.
    """
    if queries <= 0 or words <= 0:
        return []
    threads = max(1, int(threads))
    n_blocks = -(-words // word_block)
    chunks = -(-queries // query_block)
    slices = 1
    if threads > 1 and chunks >= threads:
        chunks = min(queries, -(-chunks // threads) * threads)
    elif threads > 1:
        slices = threads // math.gcd(chunks, threads)
        if slices > n_blocks:
            slices = n_blocks
            chunks = min(queries, max(chunks, -(-threads // n_blocks)))
    query_edges = [queries * k // chunks for k in range(chunks + 1)]
    block_edges = [n_blocks * k // slices for k in range(slices + 1)]
    return [SearchPiece(slice(q0, q1), slice(b0 * word_block, min(b1 * word_block, words)))
            for q0, q1 in itertools.pairwise(query_edges) for b0, b1 in itertools.pairwise(block_edges)]


def _even_parts(m: int, parts: int) -> list[slice]:
    """``min(parts, m)`` consecutive slices of range(m) whose sizes differ by at most one."""
    parts = max(1, min(parts, m))
    return [slice(m * k // parts, m * (k + 1) // parts) for k in range(parts)]


class SearchWorkers:
    """The process-wide worker threads of every search, and the single-threaded BLAS they need.

    ``threads``: the pool's size; None (the process's pool) = `search_threads()`, read when the
    pool starts. A search cuts its work for this many threads (`search_pieces`).

    Why one pool for the process: the app serves many sessions from threads that share one space.
    A pool per call (the former design) put 2 x users scanning threads on 2 cores, each with its
    own 16 MB score block; one pool of `search_threads()` workers keeps the number of scanning threads
    equal to the number of cores, and its FIFO queue finishes calls in the order they came
    (with 10 equal interactions the first is done after 1/10 of the total, not all at the end).

    The workers run a single-threaded BLAS through the process-wide counted hold of
    `privlib.core.threads` (per-call ``threadpool_limits`` is racy across sessions; see there).
    """

    def __init__(self, threads: int | None = None):
        self._requested = threads
        self._lock = threading.Lock()
        self._executor = None
        self._threads = None
        self._local = threading.local()

    def reset_after_fork(self) -> None:
        """A forked child has none of the parent's threads: start again from nothing."""
        self.__init__(self._requested)

    def _started(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                threads = self._requested if self._requested is not None else search_threads()
                self._executor = ThreadPoolExecutor(threads, thread_name_prefix="privlib-search",
                                                    initializer=self._mark_worker)
                self._threads = threads
            return self._executor

    @property
    def threads(self) -> int:
        """The number of worker threads (the pool starts if it had not)."""
        self._started()
        return self._threads

    def shutdown(self) -> None:
        """Stop the worker threads once their queued work is done; a later `run` starts a new pool."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    @staticmethod
    def single_threaded_blas():
        """The process-wide single-threaded-BLAS hold (`privlib.core.threads.single_threaded_blas`)."""
        return single_threaded_blas()

    def _mark_worker(self) -> None:
        self._local.worker = True

    def run(self, tasks) -> list:
        """Results of the callables ``tasks`` (no arguments), in order, computed on the workers
        with a single-threaded BLAS. From a worker itself they run inline: a worker waiting for
        the queue it serves could deadlock it."""
        if getattr(self._local, "worker", False):
            return [task() for task in tasks]
        executor = self._started()
        with self.single_threaded_blas():
            futures = [executor.submit(task) for task in tasks]
            return [f.result() for f in futures]


SEARCH_WORKERS = SearchWorkers()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=SEARCH_WORKERS.reset_after_fork)


def _round_up32(values) -> np.ndarray:
    """float32 limits rounded up past any rounding of the sum that made them (a limit must not
    exclude a score equal to it)."""
    return np.nextafter(np.asarray(values, dtype=np.float64).astype(np.float32), np.float32(np.inf))


def _merge_top_three(running, other) -> None:
    """Merge ``other`` = (v1, v2, v3, i1, i2), three smallest float32 scores and the rows of the
    first two, into ``running`` (the same five arrays, updated in place), per query. The merge is
    stable, ``running`` first: on equal scores the earlier (lower) rows stay first, so merging word
    blocks or word slices in word order gives the first two rows by (score, row)."""
    best, second, third, arg1, arg2 = running
    v1, v2, v3, i1, i2 = other
    none = np.full(best.size, -1, dtype=np.int64)
    values = np.stack([best, second, third, v1, v2, v3], axis=1)
    args = np.stack([arg1, arg2, none, i1, i2, none], axis=1)
    order = np.argsort(values, axis=1, kind="stable")[:, :3]
    top = np.take_along_axis(values, order, axis=1)
    top_args = np.take_along_axis(args, order[:, :2], axis=1)
    best[:], second[:], third[:] = top[:, 0], top[:, 1], top[:, 2]
    arg1[:], arg2[:] = top_args[:, 0], top_args[:, 1]


class ExactSearch:
    """Exact Euclidean nearest neighbour of many query points, with bounded memory.

    Scores (the "norm trick"): for a query q the nearest word minimises s(x) = ||x||^2 - 2<q, x>
    (||q||^2 is common to all x). Rows are augmented once to [x, ||x||^2] and queries to [-2q, 1],
    so one float32 matrix product per block of words gives s directly. Every float32 score is
    within tau(q) = (n + 4) u (2||q|| X + X^2) of its exact value (u = 2^-24, X = the largest word
    norm; the standard dot-product rounding bound with input rounding), whatever the blocking.

    1. Block minima (the bulk of the work): for every query and every block of WORD_BLOCK words,
       only the smallest float32 score. The product is taken as (words x queries), where the
       minimum over words is a cheap column reduction, and no index is tracked.
    2. Settling: with b = the smallest block minimum, the exact nearest word x° has
       s(x°) <= b + tau, so its float32 score is <= b + 2 tau: only the blocks whose minimum is
       within 2 tau of b can hold it (usually one block). Those blocks are scored again for this
       query, giving the smallest score v (word a) and the second smallest v2 among them. When
       v2 > v + 2 tau, a is the exact answer (every other word is further by more than the
       rounding can hide, in or outside the candidate blocks).
    3. Otherwise (a near tie, or an exact one: duplicate vectors) every word of the candidate
       blocks whose float32 score is within 2 tau of v is re-scored in float64 as sum((x - q)^2) —
       the same formula as a float64 brute-force search — and the smallest wins (lowest index on
       ties). Large noise (small epsilon) raises tau; the re-score keeps the answer exact.

    Why this shape: the former re-score scanned the whole vocabulary again for a call's few
    ambiguous queries, in the calling thread, where OpenBLAS split each of its small products over
    2 threads once there were 3 or more such queries: 0.44 s for 3 queries on a busy machine (0.14 s
    single-threaded), on top of ~2 s for 2,000 queries. Random vocabulary words (mostly rare words,
    in the crowded centre of the embedding) gave 3 or more near ties in 5 of 12 calls of 2,000
    queries at epsilon = 10, 'king' never; hence random words ran 1.5-1.8x slower. Now a re-score
    touches only the candidate blocks, single-threaded, and a pass keeps one minimum per block
    instead of the best, second best and arg-min of every 16 MB score block. The work is cut into
    pieces (`search_pieces`) so that T workers have at least T pieces: query chunks when there are
    at least T chunks of QUERY_BLOCK queries, else slices of the vocabulary, each word block read
    once per chunk, not once per worker; step 2 then runs in T parts of the queries. The answer
    does not depend on the cut: every step is exact whatever rounding a product's shape brings.
    Work runs on the process-wide workers (`SearchWorkers`), with BLAS single-threaded for the
    whole call.
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
        tau = self.score_error_bound(np.sqrt(np.einsum("ij,ij->i", q, q)))
        # the whole call, also the parts in this thread (a few queries' products in steps 2 and 3
        # would otherwise be split over BLAS threads: 0.44 s instead of 0.14 s for 3 queries on a
        # busy machine with the former full-vocabulary re-score)
        with SEARCH_WORKERS.single_threaded_blas():
            arg = self._nearest(q, queries, tau)
        return arg[0] if single else arg

    def _nearest(self, q, queries, tau) -> np.ndarray:
        m = q.shape[0]
        arg = np.empty(m, dtype=np.int64)
        n_words = self._augmented.shape[0]
        threads = SEARCH_WORKERS.threads
        pieces = search_pieces(m, n_words, threads, QUERY_BLOCK, WORD_BLOCK)
        chunks = list(dict.fromkeys((p.queries.start, p.queries.stop) for p in pieces))  # in order
        if len(chunks) == len(pieces):
            # query chunks only: steps 1 and 2 of a chunk in one task (memory: one chunk per worker)
            settled = zip((a for a, _ in chunks),
                          SEARCH_WORKERS.run([lambda a=a, b=b: self._search_chunk(queries[a:b], tau[a:b])
                                              for a, b in chunks]))
        else:
            # vocabulary slices (fewer than T chunks, so at most T x QUERY_BLOCK queries' minima):
            # the block minima of every piece, then step 2 in T parts of the queries
            minima = np.empty((-(-n_words // WORD_BLOCK), m), dtype=np.float32)
            columns = {(a, b): np.ascontiguousarray(queries[a:b].T) for a, b in chunks}

            def fill(piece):
                first, stop = piece.words.start // WORD_BLOCK, -(-piece.words.stop // WORD_BLOCK)
                self._block_minima(columns[piece.queries.start, piece.queries.stop],
                                   minima[first:stop, piece.queries], first)

            SEARCH_WORKERS.run([lambda p=p: fill(p) for p in pieces])
            parts = _even_parts(m, threads)
            settled = zip((part.start for part in parts),
                          SEARCH_WORKERS.run([lambda c=c: self._settle(queries[c], minima[:, c], tau[c])
                                              for c in parts]))
        ambiguous, limits, candidate_blocks = [], [], []
        for offset, (found, amb, lim, cand) in settled:
            arg[offset:offset + found.size] = found
            ambiguous.append(amb + offset)
            limits.append(lim)
            candidate_blocks.append(cand)
        ambiguous = np.concatenate(ambiguous)
        if ambiguous.size:
            arg[ambiguous] = self._rescore(q[ambiguous], queries[ambiguous], np.concatenate(limits),
                                           np.concatenate(candidate_blocks, axis=1))
        return arg

    # -- step 1: the smallest float32 score of each word block, per query
    def _block_minima(self, queries_t, minima, first_block: int) -> None:
        """Fill ``minima`` (blocks x queries, a view) from block ``first_block`` on; ``queries_t``
        holds the augmented queries as columns (a (words x queries) product per block)."""
        augmented = self._augmented
        out = np.empty((WORD_BLOCK, queries_t.shape[1]), dtype=np.float32)
        for k in range(minima.shape[0]):
            start = (first_block + k) * WORD_BLOCK
            block = augmented[start:start + WORD_BLOCK]
            scores = np.matmul(block, queries_t, out=out[: block.shape[0]])
            np.min(scores, axis=0, out=minima[k])

    def _search_chunk(self, queries, tau):
        """Steps 1 and 2 for one chunk of queries over the whole vocabulary (one worker's task)."""
        n_blocks = -(-self._augmented.shape[0] // WORD_BLOCK)
        minima = np.empty((n_blocks, queries.shape[0]), dtype=np.float32)
        self._block_minima(np.ascontiguousarray(queries.T), minima, 0)
        return self._settle(queries, minima, tau)

    # -- step 2: settle each query in its candidate blocks
    def _settle(self, queries, minima, tau):
        """(answer per query, positions of the ambiguous queries, their float64 limits v + 2 tau,
        their candidate-block masks (blocks x ambiguous)) from the block minima (blocks x queries).

        Candidate blocks of a query: minimum <= b + 2 tau (b = its smallest block minimum). They
        are scored again block by block, for all queries that need the block at once."""
        m = queries.shape[0]
        best = minima.min(axis=0)
        need = minima <= _round_up32(best.astype(np.float64) + 2.0 * tau)  # (blocks, queries)
        blocks, owners = np.nonzero(need)  # sorted by block, then query: one product per block
        v1 = np.empty(blocks.size, dtype=np.float32)
        v2 = np.empty(blocks.size, dtype=np.float32)
        i1 = np.empty(blocks.size, dtype=np.int64)
        for p0 in range(0, blocks.size, SETTLE_PAIRS):  # bounded memory: SETTLE_PAIRS score rows at a time
            p1 = min(p0 + SETTLE_PAIRS, blocks.size)
            b, pair_queries = blocks[p0:p1], queries[owners[p0:p1]]
            scores = np.full((p1 - p0, WORD_BLOCK), np.inf, dtype=np.float32)  # a short last block stays inf
            bounds = np.flatnonzero(np.diff(b)) + 1
            for lo, hi in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [b.size]])):
                start = int(b[lo]) * WORD_BLOCK
                block = self._augmented[start:start + WORD_BLOCK]
                # (words x queries) then transposed: about twice as fast as (queries x words) for a few queries
                scores[lo:hi, : block.shape[0]] = (block @ pair_queries[lo:hi].T).T
            rows = np.arange(p1 - p0)
            i = scores.argmin(axis=1)
            v1[p0:p1] = scores[rows, i]
            i1[p0:p1] = i + b * WORD_BLOCK
            scores[rows, i] = np.inf
            v2[p0:p1] = scores.min(axis=1)  # inf for a one-word block
        # per query: its pair (block) with the smallest score, then the next pair of the same query
        order = np.lexsort((i1, v1, owners))
        first = np.ones(order.size, dtype=bool)
        first[1:] = owners[order[1:]] != owners[order[:-1]]
        heads = np.flatnonzero(first)  # one per query, in query order (its best block always qualifies)
        win = order[heads]
        value, found = v1[win], i1[win]
        second = v2[win]
        nxt = heads + 1
        more = nxt < order.size
        more[more] = ~first[nxt[more]]
        second[more] = np.minimum(second[more], v1[order[nxt[more]]])
        ambiguous = np.flatnonzero(second.astype(np.float64) <= value.astype(np.float64) + 2.0 * tau)
        assert heads.size == m
        return found, ambiguous, value[ambiguous].astype(np.float64) + 2.0 * tau[ambiguous], need[:, ambiguous]

    # -- step 3: float64 re-score of every candidate-block word whose float32 score is within the bound
    def _rescore(self, q64, queries, limits, candidate_blocks):
        """The float64 nearest among the words of each query's candidate blocks (a column of
        ``candidate_blocks``) whose float32 score is at most its limit; ties: lowest row."""
        found = np.empty(q64.shape[0], dtype=np.int64)
        for j0 in range(0, q64.shape[0], QUERY_BLOCK):
            lim = _round_up32(limits[j0:j0 + QUERY_BLOCK])
            blocks, owners = np.nonzero(candidate_blocks[:, j0:j0 + QUERY_BLOCK])
            bounds = np.flatnonzero(np.diff(blocks)) + 1
            cand_q, cand_x = [], []
            for lo, hi in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [blocks.size]])):
                start = int(blocks[lo]) * WORD_BLOCK
                mine = owners[lo:hi]
                scores = queries[j0 + mine] @ self._augmented[start:start + WORD_BLOCK].T
                r, c = np.nonzero(scores <= lim[mine, None])
                cand_q.append(mine[r])
                cand_x.append(c + start)
            cq, cx, head = self._by_float64_distance(q64[j0:], np.concatenate(cand_q), np.concatenate(cand_x))
            found[j0 + cq[head]] = cx[head]
        return found

    def _by_float64_distance(self, q64, cq, cx):
        """Candidate pairs (query ``cq``, word ``cx``) sorted by query, then float64 distance
        sum((x - q)^2), then row; with a mask of each query's first (nearest) candidate."""
        diff = self.space.vectors[cx].astype(np.float64) - q64[cq]
        d = np.einsum("ij,ij->i", diff, diff)
        order = np.lexsort((cx, d, cq))  # by query, then distance, then index
        cq, cx = cq[order], cx[order]
        head = np.ones(order.size, dtype=bool)
        head[1:] = cq[1:] != cq[:-1]
        return cq, cx, head

    # -- the full-vocabulary re-score of `nearest_two`
    def _ranked_candidates(self, q64, queries, limits):
        """For blocks of queries: (offset, query, word) of every word whose float32 score is at
        most ``limits``, sorted by query, then float64 distance sum((x - q)^2), then row; and a
        mask of each query's first candidate. Each block's scan is cut into `search_pieces` on the
        workers (the sort makes the order of the pieces irrelevant)."""
        n_words = self._augmented.shape[0]
        for j0 in range(0, q64.shape[0], QUERY_BLOCK):
            qb = queries[j0:j0 + QUERY_BLOCK]
            lim = _round_up32(limits[j0:j0 + QUERY_BLOCK])
            pieces = search_pieces(qb.shape[0], n_words, SEARCH_WORKERS.threads, QUERY_BLOCK, WORD_BLOCK)
            found = SEARCH_WORKERS.run([lambda p=p, qb=qb, lim=lim: self._candidates_within(qb[p.queries],
                                                                                           lim[p.queries], p.words)
                                        for p in pieces])
            cand_q = [r + p.queries.start for p, (r, _) in zip(pieces, found)]
            cand_x = [c for _, c in found]
            cq, cx, head = self._by_float64_distance(q64[j0:], np.concatenate(cand_q), np.concatenate(cand_x))
            yield j0, cq, cx, head

    def _candidates_within(self, queries, limits, words: slice):
        """(query, row) of every word of the rows ``words`` whose float32 score is at most
        ``limits`` (float32, per query)."""
        cand_q, cand_x = [], []
        for start in range(words.start, words.stop, WORD_BLOCK):
            scores = queries @ self._augmented[start:min(start + WORD_BLOCK, words.stop)].T
            r, c = np.nonzero(scores <= limits[:, None])
            cand_q.append(r)
            cand_x.append(c + start)
        return np.concatenate(cand_q), np.concatenate(cand_x)

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
        with SEARCH_WORKERS.single_threaded_blas():  # also for the re-score in this thread (see `nearest`)
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
            raise ValueError("The query points hold NaN or infinite values: for noisy points, the noise overflowed, "
                             "so epsilon is far too small to be meaningful (use epsilon > 1e-20).")
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
        """(best, second, third, arg1, arg2) per query: `_scan_two` over `search_pieces`, the word
        slices of a query chunk merged in word order (`_merge_top_three`: the same first two rows
        as one scan of the whole vocabulary)."""
        m = queries.shape[0]
        pieces = search_pieces(m, self._augmented.shape[0], SEARCH_WORKERS.threads, QUERY_BLOCK, WORD_BLOCK)
        tops = SEARCH_WORKERS.run([lambda p=p: self._scan_two(queries[p.queries], p.words) for p in pieces])
        best, second, third = (np.empty(m, dtype=np.float32) for _ in range(3))
        arg1 = np.empty(m, dtype=np.int64)
        arg2 = np.empty(m, dtype=np.int64)
        for piece, top in zip(pieces, tops):  # chunk by chunk, each chunk's slices in word order
            running = tuple(a[piece.queries] for a in (best, second, third, arg1, arg2))
            if piece.words.start == 0:
                for view, value in zip(running, top):
                    view[:] = value
            else:
                _merge_top_three(running, top)
        return best, second, third, arg1, arg2

    def _scan_two(self, queries, words: slice):
        """(best, second, third, arg1, arg2): the three smallest float32 scores and the rows of the
        first two among the rows ``words``, for a chunk of queries, word block by word block."""
        m = queries.shape[0]
        best, second, third = (np.full(m, np.inf, dtype=np.float32) for _ in range(3))
        arg1 = np.zeros(m, dtype=np.int64)
        arg2 = np.zeros(m, dtype=np.int64)
        rows = np.arange(m)
        out = np.empty((m, WORD_BLOCK), dtype=np.float32)
        for start in range(words.start, words.stop, WORD_BLOCK):
            block = self._augmented[start:min(start + WORD_BLOCK, words.stop)]
            scores = np.matmul(queries, block.T, out=out[:, : block.shape[0]])
            i1 = scores.argmin(axis=1)
            v1 = scores[rows, i1]
            scores[rows, i1] = np.inf
            i2 = scores.argmin(axis=1)  # a one-word block gives v2 = inf (never chosen over a word)
            v2 = scores[rows, i2]
            scores[rows, i2] = np.inf
            v3 = scores.min(axis=1)
            # the running top three and the block's (stable: on equal float32 scores the earlier,
            # lower row stays first; such near-ties are re-scored anyway)
            _merge_top_three((best, second, third, arg1, arg2), (v1, v2, v3, i1 + start, i2 + start))
        return best, second, third, arg1, arg2

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
            index.build(self.n_trees, n_jobs=search_threads())
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
