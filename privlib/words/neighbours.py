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
from privlib.words.search import SEARCH_WORKERS, search_threads

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


#: `output_ranks` counts the words closer than each of a word's outputs one by one (O(N) each) when
#: the word has at most this many distinct outputs, else all at once from a histogram of its
#: distance row (`_closer_counts`, a few O(N) passes; a sort of the row costs about ten).
_COUNT_UP_TO = 4
#: Bins of that histogram.
_RANK_BINS = 1 << 16


def _closer_counts(d: np.ndarray, values: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """For each v of ``values`` (taken from the distance row ``d``): (#{x : d[x] < v}, whether more
    than one x has v - margin <= d[x] <= v + margin), exactly, without sorting ``d``.

    Every d[x] falls in one of `_RANK_BINS` equal bins b(x) = floor((d[x] - min d) * scale), a
    non-decreasing function of d[x]. The words in bins below b(v - margin) are all closer than
    v; the few words in the bins from b(v - margin) to b(v + margin) (the "members") are sorted
    and counted exactly."""
    lo = float(d.min())
    span = float(d.max()) - lo
    scale = (_RANK_BINS - 1) / span if span > 0 else 0.0

    def bins(x):
        return np.clip((x - lo) * scale, 0, _RANK_BINS - 1).astype(np.int64)

    b = bins(d)
    below = np.zeros(_RANK_BINS + 1, dtype=np.int64)
    np.cumsum(np.bincount(b, minlength=_RANK_BINS), out=below[1:])  # below[j] = #{x : b(x) < j}
    low, high = values - margin, values + margin
    b_low, b_high = bins(low), bins(high)
    marks = np.zeros(_RANK_BINS + 1, dtype=np.int64)
    np.add.at(marks, b_low, 1)
    np.add.at(marks, b_high + 1, -1)
    marked = np.cumsum(marks[:-1]) > 0
    members = np.flatnonzero(marked[b])
    order = np.argsort(d[members], kind="stable")
    member_d, member_b = d[members][order], b[members][order]  # member_b is non-decreasing too
    closer = below[b_low] + np.maximum(np.searchsorted(member_d, values) - np.searchsorted(member_b, b_low), 0)
    near = np.searchsorted(member_d, high, "right") - np.searchsorted(member_d, low) > 1
    return closer, near


def output_ranks(space, rows, outputs, block: int = 32, progress=None) -> np.ndarray:
    """rank_{w}(y) for pairs (w, y) = (rows[i], outputs[i]): the position of output y among the
    neighbours of input w (same order and tie rule as `neighbour_ranks`).

    rank_w(y) = #{x : d(w,x) < d(w,y)} + #{x < y : d(w,x) = d(w,y)}, with w itself first.
    Inputs are grouped by word and their distances computed ``block`` words at a time; each
    distinct output of a word is ranked once: by counting (O(N) each) when a word has at most
    `_COUNT_UP_TO` distinct outputs, else all together from a histogram of the word's distance
    row (`_closer_counts`, no sort). An output with another word within rounding distance of it
    (`_tie_margin`) is ranked by the single-row computation of `neighbour_ranks`.
    ``progress(done, total)`` is called after each block of distinct words.
    """
    rows = np.asarray(rows, dtype=np.int64).ravel()
    outputs = np.asarray(outputs, dtype=np.int64).ravel()
    if rows.shape != outputs.shape:
        raise ValueError("output_ranks needs one output per input row.")
    ranks = np.zeros(rows.size, dtype=np.int64)
    words, inverse = np.unique(rows, return_inverse=True)
    by_word = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[by_word], np.arange(words.size + 1))
    for s in range(0, words.size, block):
        r = words[s:s + block]
        d = space.squared_distances(r)
        d[np.arange(r.size), r] = -1.0  # the word itself is rank 0
        margin = _tie_margin(space, r)
        for i in range(r.size):
            pairs = by_word[bounds[s + i]:bounds[s + i + 1]]
            pairs = pairs[outputs[pairs] != r[i]]
            if pairs.size == 0:
                continue
            distinct, back = np.unique(outputs[pairs], return_inverse=True)
            v = d[i, distinct]
            if distinct.size > _COUNT_UP_TO:
                found, near = _closer_counts(d[i], v, margin[i])
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
    epsilon). For y != w, rank_w(y) <= K iff y is among the first K + 1 words of w's neighbour
    order (`neighbour_ranks`), which `neighbour_order_prefixes` finds without sorting the
    vocabulary (a float32 pre-selection in blocks of words, certified exact, with the float64
    computation of `neighbour_ranks` as the fallback): same distances and tie rule, each distinct
    input word once. ``progress(done, total)`` is called as the rows are done, at least after
    each ``block`` rows.
    """
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    block = check_positive_int(block, "block", minimum=1)
    rows = np.asarray(rows, dtype=np.int64)
    outputs = np.asarray(outputs, dtype=np.int64).reshape(rows.size, -1)
    classes = np.full(outputs.shape, DISTANT, dtype=np.int8)
    words, inverse = np.unique(rows, return_inverse=True)
    by_word = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[by_word], np.arange(words.size + 1))
    done = 0
    for g, prefix in neighbour_order_prefixes(space, words, close + 1):
        near = np.sort(prefix[1:])  # the words of ranks 1..K
        members = by_word[bounds[g]:bounds[g + 1]]
        out = outputs[members]
        position = np.minimum(np.searchsorted(near, out), near.size - 1)
        cls = np.where(near[position] == out, CLOSE, DISTANT).astype(np.int8)
        cls[out == words[g]] = ORIGINAL
        classes[members] = cls
        before, done = done, done + members.size
        if progress is not None and (done // block > before // block or done == rows.size):
            progress(done, rows.size)
    return classes


#: Pivots whose neighbour order is computed together: their float32 scores are computed
#: `SCORE_CHUNK` words at a time (a 1 MB block for 256 pivots, which stays in the cache); more
#: pivots per block make the matrix products more efficient, fewer keep the first prefixes coming
#: sooner (measured on the 2-core EPYC: 256 x 1024 about 25 % less time per pivot than 128 x 32768).
PIVOT_BLOCK = 256

#: `certified_prefixes` guesses each pivot's score threshold from an evenly spaced sample of about
#: this many words, at `THRESHOLD_SLACK` times the wanted fraction of words (plus 16), then keeps
#: the words below the guess in one pass over `SCORE_CHUNK` words at a time (a cache-sized
#: score block), the vocabulary split between `scan_threads` threads, instead of partitioning a
#: full score row per pivot.
THRESHOLD_SAMPLE = 8192
THRESHOLD_SLACK = 2.0
SCORE_CHUNK = 1024

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
    """The prefixes of `_prefix_direct` for a block of rows (`_certified_part`), the rows shared
    between the search's worker threads (`SEARCH_WORKERS`) when there are at least
    `PARALLEL_ROWS` per thread (every step then runs on all cores), else the vocabulary shared
    between them in the float32 pass."""
    rows = np.asarray(rows, dtype=np.int64)
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), rows.shape)
    count = min(scan_threads(), rows.size // PARALLEL_ROWS)
    if count <= 1:
        return _certified_part(space, rows, lengths, score_chunk, threshold_sample, threshold_slack)
    parts = np.array_split(np.arange(rows.size), count)
    done = SEARCH_WORKERS.run([lambda part=part: _certified_part(space, rows[part], lengths[part], score_chunk,
                                                                 threshold_sample, threshold_slack)
                               for part in parts])
    return [prefix for part in done for prefix in part]


#: `certified_prefixes` shares the rows of a block between threads from this many rows per thread.
PARALLEL_ROWS = 32


def _certified_part(space, rows, lengths, score_chunk: int = SCORE_CHUNK, threshold_sample: int = THRESHOLD_SAMPLE,
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
       score row is used. Same t, same candidates either way.
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
    chosen = queries[filtered]

    def scan(starts):
        kept = []
        block = np.empty((chosen.shape[0], score_chunk), dtype=np.float32)  # reused: no page faults
        below = np.empty(block.shape, dtype=bool)
        for start in starts:
            words = augmented[start:start + score_chunk]
            scores = np.matmul(chosen, words.T, out=block[:, :words.shape[0]])
            flat = np.flatnonzero(np.less_equal(scores, keep[:, None], out=below[:, :words.shape[0]]))
            r, c = np.divmod(flat, scores.shape[1])  # np.flatnonzero: 10x faster than a 2-D np.nonzero
            kept.append((r, c + start, scores[r, c]))
        return kept

    starts = range(0, n, score_chunk) if filtered.size else range(0)
    kept = [piece for part in _in_threads(scan, starts) for piece in part]  # in word order
    if kept:
        r, c, sc = (np.concatenate(a) for a in zip(*kept))
    else:
        r, c, sc = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    by_score = np.argsort(_pivot_score_keys(r, sc), kind="stable")  # by pivot, then float32 score
    r, c, sc = filtered[r[by_score]], c[by_score], sc[by_score]  # r: the pivot's position in ``rows``
    bounds = np.searchsorted(r, np.arange(rows.size + 1))
    start, count = bounds[:-1], np.diff(bounds)
    # t = the (k+1)-th smallest kept score, when at least k + 1 kept scores are <= g
    held = count > lengths
    held[held] = sc[(start + lengths)[held]] <= guess[held]
    out: list = [None] * rows.size
    for i in np.flatnonzero(~held):  # no guess, or it fell short: the whole score row
        scores = queries[i] @ augmented.T
        t = float(np.partition(scores, lengths[i])[lengths[i]])
        out[i] = _certified_prefix(space, int(rows[i]), int(lengths[i]),
                                   np.flatnonzero(scores <= _round_up(t + 2.0 * tau[i])), p64[i], margin[i])
    # 2 and 3 for all the other rows at once
    limit = np.zeros(rows.size, dtype=np.float32)
    pivots = np.flatnonzero(held)
    limit[pivots] = _round_up(sc[start[pivots] + lengths[pivots]].astype(np.float64) + 2.0 * tau[pivots])
    take = held[r] & (sc <= limit[r])
    for i, prefix in zip(pivots, _certified_prefix_block(space, rows, lengths, r[take], c[take], p64, margin)):
        out[i] = prefix
    return out


def _pivot_score_keys(pivots, scores) -> np.ndarray:
    """int64 keys ordered as (pivot, float32 score) pairs are (pivots >= 0, below 2^31): the pivot
    in the high 32 bits, the score's bits in the low 32, mapped so that unsigned order is float
    order (negative scores: all bits flipped; others: the sign bit set). One argsort of them is
    ~4x faster than np.lexsort((scores, pivots))."""
    bits = np.asarray(scores, dtype=np.float32).view(np.int32).astype(np.int64)
    return (np.asarray(pivots, dtype=np.int64) << 32) | np.where(bits < 0, ~bits, bits | 0x80000000)


def _certified_prefix_block(space, rows, lengths, owner, cand, p64, margin, pairs: int = 32_768) -> list:
    """`_certified_prefix` for many rows at once: ``cand[j]`` is a candidate of row
    ``rows[owner[j]]`` (``owner`` non-decreasing, each owner with at least lengths + 1 candidates);
    one list entry per distinct owner, in order. The float64 distances are computed ``pairs``
    (owner, candidate) pairs at a time."""
    if owner.size == 0:  # every row took the whole-score-row route (a prefix of most of a small vocabulary)
        return []
    d = np.empty(cand.size)
    for s in range(0, cand.size, pairs):
        o, x = owner[s:s + pairs], cand[s:s + pairs]
        d[s:s + pairs] = np.einsum("ij,ij->i", space.vectors[x].astype(np.float64), p64[o])
    d *= -2.0
    d += space.sq_norms[cand]
    d += space.sq_norms[rows[owner]]
    np.maximum(d, 0.0, out=d)
    d[cand == rows[owner]] = -1.0
    order = np.lexsort((cand, d, owner))  # by owner, then (distance, row)
    owner, cand, d = owner[order], cand[order], d[order]
    firsts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    k = lengths[owner[firsts]]
    # pairs of consecutive distances of one owner within its margin (near ties), counted up to each position
    ties = np.r_[0, np.cumsum((np.diff(d) <= margin[owner[1:]]) & (owner[1:] == owner[:-1]))]
    certain = ties[firsts + k] == ties[firsts]  # none among each owner's first k + 1
    return [cand[f:f + length] if ok else None for f, length, ok in zip(firsts, k, certain)]


def scan_threads() -> int:
    """Parts a pass over the vocabulary is cut into (`certified_prefixes`): one per thread of the
    search's workers (`privlib.words.search.search_threads`), which run them."""
    return search_threads()


def _in_threads(work, items) -> list:
    """[work(part) for each of `scan_threads` contiguous parts of ``items``], run at once on the
    search's process-wide worker threads (`SEARCH_WORKERS`: one pool and one single-threaded BLAS
    for every scan of the process, whichever session it serves; numpy releases the GIL in products
    and comparisons, and several single-threaded products beat one multi-threaded one here)."""
    items = list(items)
    count = min(scan_threads(), len(items))
    if count <= 1:
        return [work(items)]
    parts = [items[i * len(items) // count:(i + 1) * len(items) // count] for i in range(count)]
    return SEARCH_WORKERS.run([lambda part=part: work(part) for part in parts])


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
    up to the largest rank asked of it; not at all when only rank 0 (the pivot itself) is asked."""
    pivots = np.atleast_1d(np.asarray(pivots, dtype=np.int64))
    ranks = np.atleast_1d(np.asarray(ranks, dtype=np.int64))
    if pivots.shape != ranks.shape:
        raise ValueError(f"Give one rank per pivot: {pivots.size} pivots, {ranks.size} ranks.")
    out = np.empty(pivots.size, dtype=np.int64)
    if pivots.size == 0:
        return out
    if ranks.min() < 0 or ranks.max() >= len(space):
        raise ValueError(f"Ranks must be between 0 and {len(space) - 1}.")
    out[:] = pivots  # rank 0 is the pivot itself
    asked = ranks > 0
    unique, inverse = np.unique(pivots[asked], return_inverse=True)
    need = np.zeros(unique.size, dtype=np.int64)
    np.maximum.at(need, inverse, ranks[asked])
    by_pivot = np.flatnonzero(asked)[np.argsort(inverse, kind="stable")]
    groups = np.split(by_pivot, np.cumsum(np.bincount(inverse, minlength=unique.size))[:-1])
    for g, prefix in neighbour_order_prefixes(space, unique, need + 1):
        members = groups[g]
        out[members] = prefix[ranks[members]]
    return out
