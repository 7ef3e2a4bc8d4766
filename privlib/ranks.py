"""Neighbour ranks: where an output word sits among the input word's neighbours.

rank_w(x) = position of x when the vocabulary is sorted by Euclidean distance from w, with
rank_w(w) = 0 and ties broken by row order (stable sort). Paper §2, Fig. 2; the artifact's
``rank_neighbors``. An output is "original" at rank 0, "close" at 1..K (paper: K = 100) and
"distant" beyond.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib.validation import check_positive_int

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
