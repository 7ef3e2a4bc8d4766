"""Neighbour ranks: where an output word sits among the input word's neighbours.

rank_w(x) = position of x when the vocabulary is sorted by Euclidean distance from w, with
rank_w(w) = 0 and ties broken by row order (stable sort). Paper §2, Fig. 2; the artifact's
``rank_neighbors``. An output is "original" at rank 0, "close" at 1..K (paper: K = 100) and
"distant" beyond.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib.core.validation import check_positive_int

#: The paper's close-neighbour cut-off K.
DEFAULT_CLOSE = 100


@dataclass(frozen=True)
class NeighbourRanks:
    """All words ordered by distance from one word, with O(1) rank look-up.

    ``order[r]`` is the row of the word at rank r; ``rank[x]`` the rank of row x;
    ``distances[r]`` the Euclidean distance of the rank-r word.
    """

    word: str
    row: int
    order: np.ndarray
    rank: np.ndarray
    distances: np.ndarray

    def rank_of(self, rows) -> np.ndarray:
        """Ranks of the words at ``rows`` (vectorised look-up)."""
        return self.rank[np.asarray(rows, dtype=np.int64)]

    def distance_of(self, rows) -> np.ndarray:
        return self.distances[self.rank_of(rows)]


def neighbour_ranks(space, word) -> NeighbourRanks:
    """Rank every vocabulary word by its distance from ``word`` (a word or a row index)."""
    row = space.row(word)
    sq = space.squared_distances(row)[0]
    sq[row] = -1.0  # the word itself is rank 0 even if another word has an identical vector
    order = np.argsort(sq, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    sq[row] = 0.0
    distances = np.sqrt(sq[order])
    for a in (order, rank, distances):
        a.flags.writeable = False
    return NeighbourRanks(space.words[row], row, order, rank, distances)


def _ranks_from_row(space, row: int, outputs) -> np.ndarray:
    """Stable ranks of ``outputs`` among the neighbours of ``row`` without sorting: the number of
    words strictly closer, plus the words at the same distance with a lower row (self first)."""
    d = space.squared_distances(row)[0]
    d[row] = -1.0
    dy = d[outputs]
    return np.array([np.count_nonzero(d < v) + np.count_nonzero(d[:y] == v) if y != row else 0
                     for y, v in zip(outputs, dy)], dtype=np.int64)


def _tie_margin(space, rows) -> np.ndarray:
    """Squared distances of ``rows`` computed in a block can differ from the single-row
    computation of `neighbour_ranks` by a few ulps (BLAS sums in another order); within this
    margin a comparison is settled by the single-row computation, so both always agree."""
    max_sq = float(space.sq_norms.max())
    return 8 * (space.dim + 2) * 2.0**-53 * (np.sqrt(space.sq_norms[rows]) + np.sqrt(max_sq)) ** 2


#: `output_ranks` sorts a word's distance row once it has more distinct outputs than this (a sort of
#: 400,000 distances costs about as much as counting for 10-20 outputs).
_SORT_ABOVE = 16


def output_ranks(space, rows, outputs, block: int = 32, progress=None) -> np.ndarray:
    """rank_{w}(y) for pairs (w, y) = (rows[i], outputs[i]): the position of output y among the
    neighbours of input w (same order and tie rule as `neighbour_ranks`).

    rank_w(y) = #{x : d(w,x) < d(w,y)} + #{x < y : d(w,x) = d(w,y)}, with w itself first.
    Inputs are grouped by word and their distances computed ``block`` words at a time; each
    distinct output of a word is ranked once: by counting (O(N) each) when a word has few distinct
    outputs, by one sort of the word's distance row and binary searches when it has more than
    `_SORT_ABOVE` (many samples per word, e.g. choosing epsilon). ``progress(done, total)`` is
    called after each block of distinct words.
    """
    rows = np.asarray(rows, dtype=np.int64).ravel()
    outputs = np.asarray(outputs, dtype=np.int64).ravel()
    if rows.shape != outputs.shape:
        raise ValueError("output_ranks needs one output per input row.")
    ranks = np.zeros(rows.size, dtype=np.int64)
    words, inverse = np.unique(rows, return_inverse=True)
    for s in range(0, words.size, block):
        r = words[s:s + block]
        d = space.squared_distances(r)
        local = np.arange(r.size)
        d[local, r] = -1.0  # the word itself is rank 0
        margin = _tie_margin(space, r)
        for i in range(r.size):
            pairs = np.flatnonzero(inverse == s + i)
            pairs = pairs[outputs[pairs] != r[i]]
            if pairs.size == 0:
                continue
            distinct, back = np.unique(outputs[pairs], return_inverse=True)
            v = d[i, distinct]
            if distinct.size > _SORT_ABOVE:  # one sort serves every output of this word
                row = np.sort(d[i])
                found = np.searchsorted(row, v)  # words strictly closer
                near = (np.searchsorted(row, v + margin[i], "right") - np.searchsorted(row, v - margin[i])) > 1
            else:
                found = np.array([np.count_nonzero(d[i] < x) for x in v], dtype=np.int64)
                near = np.array([np.count_nonzero(np.abs(d[i] - x) <= margin[i]) > 1 for x in v], dtype=bool)
            if near.any():  # a near tie: decide with the single-row computation
                found[near] = _ranks_from_row(space, int(r[i]), distinct[near])
            ranks[pairs] = found[back]
        if progress is not None:
            progress(min(s + block, words.size), words.size)
    return ranks


def classify_ranks(ranks, close: int = DEFAULT_CLOSE) -> dict[str, int]:
    """Counts of original (rank 0), close (1..close) and distant (> close) ranks."""
    close = check_positive_int(close, "close (K)", minimum=1)
    ranks = np.asarray(ranks)
    original = int(np.count_nonzero(ranks == 0))
    near = int(np.count_nonzero((ranks >= 1) & (ranks <= close)))
    return {"original": original, "close": near, "distant": int(ranks.size) - original - near}


#: Class codes returned by `classify_outputs`.
ORIGINAL, CLOSE, DISTANT = 0, 1, 2


def classify_outputs(space, rows, outputs, close: int = DEFAULT_CLOSE, block: int = 32, progress=None) -> np.ndarray:
    """Class (ORIGINAL / CLOSE / DISTANT) of each output of each input word, without sorting.

    ``rows``: m input rows; ``outputs``: (m, k) output rows (k outputs per input, e.g. one per
    epsilon). Sorting the whole vocabulary for every word would cost m·N·log N; instead, for
    each word the squared distance t_K of its rank-K neighbour is found by partition, and for
    y != w: rank_w(y) <= K iff d^2(w,y) < t_K, or d^2(w,y) = t_K and y's stable rank is <= K
    (exact ties, counted exactly). Same distances and tie rule as `neighbour_ranks`.
    ``progress(done, total)`` is called after each block of words.
    """
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    rows = np.asarray(rows, dtype=np.int64)
    outputs = np.asarray(outputs, dtype=np.int64).reshape(rows.size, -1)
    classes = np.full(outputs.shape, DISTANT, dtype=np.int8)
    for s in range(0, rows.size, block):
        r = rows[s:s + block]
        d = space.squared_distances(r)
        local = np.arange(r.size)
        d[local, r] = -1.0  # the word itself is rank 0
        # row by row: np.partition along axis 1 of a 2-D array is about 10x slower here
        t = np.array([np.partition(row, close)[close] for row in d])
        out = outputs[s:s + block]
        dy = d[local[:, None], out]
        cls = classes[s:s + block]
        cls[dy < t[:, None]] = CLOSE
        margin = _tie_margin(space, r)  # within it, the single-row computation decides
        for i, j in zip(*np.nonzero((np.abs(dy - t[:, None]) <= margin[:, None]) & (out != r[:, None]))):
            exact = _ranks_from_row(space, int(r[i]), out[i, j : j + 1])[0]
            cls[i, j] = CLOSE if exact <= close else DISTANT
        cls[out == r[:, None]] = ORIGINAL
        if progress is not None:
            progress(min(s + block, rows.size), rows.size)
    return classes


#: Pivots whose neighbour order is computed together (their scores are computed `SCORE_CHUNK`
#: words at a time: a 16 MB float32 block).
PIVOT_BLOCK = 128

#: `certified_prefixes` guesses each pivot's score threshold from an evenly spaced sample of about
#: this many words, at `THRESHOLD_SLACK` times the wanted fraction of words (plus 16), then keeps
#: the words below the guess in one pass over `SCORE_CHUNK` words at a time (a cache-sized
#: score block) instead of partitioning a full score row per pivot.
THRESHOLD_SAMPLE = 8192
THRESHOLD_SLACK = 2.0
SCORE_CHUNK = 32_768

#: Vocabularies up to this size get each pivot's order from the float64 distances of all words
#: directly (cheap there); larger ones use a float32 pre-selection (`certified_prefixes`).
DIRECT_MAX_WORDS = 50_000

_UNIT_ROUNDOFF64 = 2.0**-53


# ----------------------------------------------------------------------------- neighbour orders
def neighbour_order_prefixes(space, rows, lengths, method: str = "auto"):
    """For each row, ``neighbour_ranks(space, row).order[:length]`` — the same words in the same
    order (rank 0 = the row itself, ties by row index) — without sorting the whole vocabulary.

    Yields (position in ``rows``, prefix) pairs, PIVOT_BLOCK rows at a time, so a caller can use
    and drop each prefix (memory stays bounded for many long prefixes).
    ``method``: "direct" (float64 distances to every word, `_prefix_direct`), "fast" (float32
    pre-selection, `certified_prefixes`, exact with a fallback to direct) or "auto" (direct on small
    vocabularies or prefixes longer than N/4, fast otherwise).
    """
    if method not in ("auto", "direct", "fast"):
        raise ValueError(f"method must be 'auto', 'direct' or 'fast', got {method!r}.")
    rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
    n = len(space)
    lengths = np.clip(np.broadcast_to(np.asarray(lengths, dtype=np.int64), rows.shape), 1, n)
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise ValueError(f"Word rows must be between 0 and {n - 1}.")
    if method == "direct" or (method == "auto" and n <= DIRECT_MAX_WORDS):
        direct = np.ones(rows.size, dtype=bool)
    elif method == "fast":
        direct = lengths >= n  # the fast path needs one word beyond the prefix
    else:
        direct = lengths > n // 4
    return _iter_prefixes(space, rows, lengths, direct)


def _iter_prefixes(space, rows, lengths, direct):
    for i in np.flatnonzero(direct):
        yield int(i), _prefix_direct(space, int(rows[i]), int(lengths[i]))
    fast = np.flatnonzero(~direct)
    for b in range(0, fast.size, PIVOT_BLOCK):
        block = fast[b:b + PIVOT_BLOCK]
        for i, prefix in zip(block, certified_prefixes(space, rows[block], lengths[block])):
            if prefix is None:  # a near-tie the float32 route cannot order for certain
                prefix = _prefix_direct(space, int(rows[i]), int(lengths[i]))
            yield int(i), prefix


def _prefix_direct(space, row: int, length: int) -> np.ndarray:
    """``neighbour_ranks(space, row).order[:length]`` from the very same float64 distances
    (`EmbeddingSpace.squared_distances` of one row) and tie rule, by partition instead of a sort:
    the words strictly below the length-th smallest distance t, then those at exactly t in row
    order (as a stable sort puts them), then sorted by (distance, row)."""
    d = space.squared_distances(row)[0]
    d[row] = -1.0  # the word itself is rank 0, as in neighbour_ranks
    if length >= d.size:
        return np.argsort(d, kind="stable")
    t = np.partition(d, length - 1)[length - 1]
    less = np.flatnonzero(d < t)
    equal = np.flatnonzero(d == t)[: length - less.size]
    take = np.concatenate([less, equal])
    return take[np.lexsort((take, d[take]))]


def certified_prefixes(space, rows, lengths, score_chunk: int = SCORE_CHUNK, threshold_sample: int = THRESHOLD_SAMPLE,
                       threshold_slack: float = THRESHOLD_SLACK) -> list:
    """The prefixes of `_prefix_direct` for a block of rows, each list entry an array, or None
    where this route cannot certify the order (then the caller uses `_prefix_direct`).

    1. Candidates: float32 scores s(x) = ||x||^2 - 2<p, x> of every word (the `ExactSearch`
       augmented matrix); each is within tau of its exact value (ExactSearch's bound). With t =
       the (k+1)-th smallest float32 score (k = length), every word whose exact rank is <= k has
       a float32 score <= t + 2 tau: those are the candidates. t is found without partitioning
       all N scores: a guess g >= t is read off the scores of an evenly spaced sample of words
       (`threshold_sample`), then one pass over the words in cache-sized chunks keeps only the
       scores <= g + 2 tau; t is the (k+1)-th smallest of those when at least k + 1 of them are
       <= g (so the k + 1 smallest scores of all are among them), and otherwise the row's whole
       score row is used (`_candidates_from_row`). Same t, same candidates either way.
    2. The candidates' float64 squared distances, by the formula of `squared_distances`
       (||p||^2 + ||x||^2 - 2<p, x>, clipped at 0; only the summation order of <p, x> differs),
       sorted by (distance, row) with the row itself first.
    3. Certificate: both float64 computations are within e = (n + 2) u (||p|| + X)^2 of the exact
       value (X = the largest word norm), so when each of the first k + 1 sorted distances is
       more than margin = 8 (n + 2) u (||p|| + X)^2 > 4e above the previous one, neighbour_ranks
       orders these words, and the boundary to the rest, the same way. Otherwise (an exact or
       near tie inside the prefix, e.g. duplicate vectors) the row gets None.
    """
    search = space.exact_search
    augmented = search.augmented_vectors
    n, dim = len(space), space.dim
    rows = np.asarray(rows, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    p64 = space.vectors[rows].astype(np.float64)
    queries = np.empty((rows.size, dim + 1), dtype=np.float32)
    queries[:, :dim] = -2.0 * p64  # exact: -2 times a float32 value
    queries[:, dim] = 1.0
    norms = np.sqrt(space.sq_norms[rows])
    tau = search.score_error_bound(norms)
    margin = 8 * (dim + 2) * _UNIT_ROUNDOFF64 * (norms + search.max_norm) ** 2

    # 1a. a guess g_i >= t_i from a sample of the scores (inf: no useful guess, use the whole row)
    sample = queries @ augmented[:: max(1, n // threshold_sample)].T
    m = sample.shape[1]
    position = np.ceil((lengths + 1) * (m / n) * threshold_slack).astype(np.int64) + 16
    guess = np.full(rows.size, np.inf, dtype=np.float32)
    for i in np.flatnonzero(position < m):
        guess[i] = np.partition(sample[i], position[i])[position[i]]
    # 1b. one pass over the words keeps the scores <= g + 2 tau (rounded up)
    filtered = np.flatnonzero(np.isfinite(guess))
    keep = _round_up(guess[filtered] + 2.0 * tau[filtered])
    kept_rows, kept_cols, kept_scores = [], [], []
    for start in range(0, n, score_chunk):
        scores = queries[filtered] @ augmented[start:start + score_chunk].T
        flat = np.flatnonzero(scores <= keep[:, None])  # 10x faster than a 2-D np.nonzero
        r, c = np.divmod(flat, scores.shape[1])
        kept_rows.append(r)
        kept_cols.append(c + start)
        kept_scores.append(scores[r, c])
    r, c, sc = (np.concatenate(a) if a else np.empty(0) for a in (kept_rows, kept_cols, kept_scores))
    by_row = np.argsort(r, kind="stable")  # rows ascend within a chunk, not across chunks
    r, c, sc = r[by_row], c[by_row], sc[by_row]
    bounds = np.searchsorted(r, np.arange(filtered.size + 1))
    found = {int(i): (c[bounds[j]:bounds[j + 1]], sc[bounds[j]:bounds[j + 1]]) for j, i in enumerate(filtered)}

    out = []
    for i, (row, k) in enumerate(zip(rows, lengths)):
        cols, scores = found.get(i, (None, None))
        if cols is None or np.count_nonzero(scores <= guess[i]) < k + 1:  # no guess, or it fell short
            cols, scores = np.arange(n), queries[i] @ augmented.T
        t = float(np.partition(scores, k)[k])
        out.append(_certified_prefix(space, int(row), int(k), cols[scores <= _round_up(t + 2.0 * tau[i])],
                                     p64[i], margin[i]))
    return out


def _certified_prefix(space, row: int, k: int, cand, p64, margin: float):
    """Steps 2 and 3 of `certified_prefixes`: the k nearest of the candidates ``cand`` to ``row``
    (vector ``p64``) by float64 squared distance, (distance, row) order, the row itself first; or
    None when two of the first k + 1 distances are within ``margin`` (the order is not certain)."""
    d = space.vectors[cand].astype(np.float64) @ p64
    d *= -2.0
    d += space.sq_norms[cand]
    d += space.sq_norms[row]
    np.maximum(d, 0.0, out=d)
    d[cand == row] = -1.0
    order = np.lexsort((cand, d))[: k + 1]
    return cand[order[:k]] if np.all(np.diff(d[order]) > margin) else None


def _round_up(values):
    """float32 values rounded up past any rounding of the sum that made them (a limit that must
    not exclude a score equal to it)."""
    return np.nextafter(np.asarray(values, dtype=np.float32), np.float32(np.inf))


def words_at_ranks(space, pivots, ranks) -> np.ndarray:
    """The word of rank ``ranks[i]`` among the neighbours of ``pivots[i]`` (rank_{x*} of
    `neighbour_ranks`), for all i, int64. Each distinct pivot's order is computed once, and only
    up to the largest rank asked of it."""
    pivots = np.atleast_1d(np.asarray(pivots, dtype=np.int64))
    ranks = np.atleast_1d(np.asarray(ranks, dtype=np.int64))
    if pivots.shape != ranks.shape:
        raise ValueError(f"Give one rank per pivot: {pivots.size} pivots, {ranks.size} ranks.")
    out = np.empty(pivots.size, dtype=np.int64)
    if pivots.size == 0:
        return out
    if ranks.min() < 0 or ranks.max() >= len(space):
        raise ValueError(f"Ranks must be between 0 and {len(space) - 1}.")
    unique, inverse = np.unique(pivots, return_inverse=True)
    need = np.zeros(unique.size, dtype=np.int64)
    np.maximum.at(need, inverse, ranks)
    by_pivot = np.argsort(inverse, kind="stable")
    groups = np.split(by_pivot, np.cumsum(np.bincount(inverse, minlength=unique.size))[:-1])
    for g, prefix in neighbour_order_prefixes(space, unique, need + 1):
        members = groups[g]
        out[members] = prefix[ranks[members]]
    return out
