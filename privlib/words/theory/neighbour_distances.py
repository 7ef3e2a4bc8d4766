"""Why the mechanism outputs the word itself or a distant word: distances to the nearest
neighbours against the gaps between consecutive neighbours (paper §4, §6: Eq. 18-21, Table 2,
Fig. 6; artifact glove/NeighborDistances.ipynb).

The multivariate Laplace mechanism outputs the word x minimising the loss
L(x) = ||w - x||^2 - 2 <x, eta> (Asghar et al. 2026, §6, Eq. 16). Comparing two candidates only
involves the noisy dot product Z = <eta, e> with a unit vector e, whose exact law is
`NoisyDotProduct(n, eps)`:

    Pr[w beats its k-th neighbour x_k] = F_Z(||w - x_k|| / 2)                               (Eq. 18)
    Pr[x_1 beats x_2] = F_Z((||w - x_2||^2 - ||w - x_1||^2) / (2 ||x_1 - x_2||))             (Eq. 19)

Table 2 averages, over words w drawn uniformly from the vocabulary,
z_{w,x1} = ||w - x_1|| / 2 (Eq. 18 with k = 1), z_{x1,x2} (Eq. 19 with x_1, x_2) and
z_{x1,x101} (Eq. 19 with x_1, x_101). In word embeddings z_{w,x1} is large and z_{x1,x2} small:
F_Z(z_{w,x1}) climbs from 1/2 to 1 at epsilons where F_Z(z_{x1,x2}) is still close to 1/2, so
once the noise is small enough to lose against the word itself, the word wins; and while it is
large, the order among the neighbours is a coin toss (paper §6).

Neighbour order: exactly that of `privlib.words.neighbours.neighbour_ranks` (float64 distances, the word
itself at rank 0, ties by row index), computed for the first ``far + 1`` ranks only by
`privlib.words.neighbours.neighbour_order_prefixes` (float32 pre-selection by matrix products in
blocks of rows, bounded memory, partition instead of a full sort, float64 re-score, stable
(distance, row) order, certified against near-ties with a fallback to the single-row
computation). The distances reported are then recomputed from float64 differences.
"""
from __future__ import annotations

import math
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from privlib.core.statistics import binomial_standard_error
from privlib.core.threads import available_cores, single_threaded_blas
from privlib.core.validation import as_generator, check_epsilons, check_positive_int, shown
from privlib.words.embeddings import GLOVE_6B_50D
from privlib.words.experiments import (
    run_word_blocks,
    sample_across_epsilons,
    space_for_tasks,
    space_of_task,
    word_blocks,
)
from privlib.words.mechanisms import MultivariateLaplace
from privlib.words.neighbours import PIVOT_BLOCK, neighbour_order_prefixes
from privlib.words.theory.noisy_dot import NoisyDotProduct

#: The paper's far neighbour for Table 2: x_101 (ranks 1..100 are the "close" neighbours).
FAR_RANK = 101

#: Table 2 of the paper (GloVe-Wiki = GloVe 6B, all 400,000 words, 5,000 random words) and what
#: the artifact's own run printed (glove/NeighborDistances.ipynb, float16 distances): means of
#: (z_{w,x1}, z_{x1,x2}, z_{x1,x101}), by dimension. Asghar et al. 2026, §6, Table 2.
PUBLISHED_TABLE2 = {
    50: {"paper": (1.369, 0.172, 0.757), "artifact": (1.383, 0.165, 0.750)},
    100: {"paper": (1.403, 0.152, 0.616), "artifact": (1.410, 0.146, 0.620)},
    200: {"paper": (2.15, 0.243, 0.823), "artifact": (2.158, 0.218, 0.826)},
    300: {"paper": (2.896, 0.282, 0.999), "artifact": (2.902, 0.223, 0.988)},
}
#: Vocabulary size of GloVe 6B (the only vocabulary of the published GloVe-Wiki rows).
GLOVE_6B_WORDS = 400_000

#: Words whose neighbour order is computed between two progress reports.
_PROGRESS_EVERY = 32
#: Words of one block of Table 2 (one task on a cluster): the words `neighbour_order_prefixes`
#: orders together anyway, so an in-process run does the work it did before blocks. A constant:
#: the blocks never depend on where the table is computed.
TABLE2_BLOCK = PIVOT_BLOCK


def _quantity_names(far: int) -> tuple[str, str, str]:
    return "z_w_x1", "z_x1_x2", f"z_x1_x{far}"


def eq19(d_w_xi, d_w_xj, d_xi_xj, numerator=None) -> np.ndarray:
    """Eq. 19's threshold (||w - x_j||^2 - ||w - x_i||^2) / (2 ||x_i - x_j||), elementwise.

    ``numerator`` may give ||w - x_j||^2 - ||w - x_i||^2 computed more accurately (see
    `neighbour_distances`). Where ||x_i - x_j|| = 0 (identical vectors) the threshold is 0/0,
    undefined: the noise can never separate the two words, which always tie (the mechanism then
    returns the lower row). Those entries are NaN.
    """
    d_w_xi, d_w_xj, d_xi_xj = (np.asarray(a, dtype=np.float64) for a in (d_w_xi, d_w_xj, d_xi_xj))
    num = d_w_xj**2 - d_w_xi**2 if numerator is None else np.asarray(numerator, dtype=np.float64)
    out = np.full(np.broadcast(num, d_xi_xj).shape, np.nan)
    ok = d_xi_xj > 0
    np.divide(num, 2.0 * d_xi_xj, out=out, where=ok)
    return out


@dataclass(frozen=True)
class NeighbourDistances:
    """Per-word distances to the 1st, 2nd and ``far``-th neighbours, and Table 2's statistics.

    Arrays have one entry per input word (``rows``, in increasing row order). ``neighbours``
    holds the rows of x_1, x_2 and x_far (rank 1, 2 and ``far`` in `neighbour_ranks` order).
    Distances are Euclidean, float64. The three Table 2 quantities (`values`):

        z_w_x1   = ||w - x_1|| / 2                                                   (Eq. 18)
        z_x1_x2  = (||w - x_2||^2 - ||w - x_1||^2) / (2 ||x_1 - x_2||)               (Eq. 19)
        z_x1_xF  = (||w - x_F||^2 - ||w - x_1||^2) / (2 ||x_1 - x_F||),  F = far     (Eq. 19)

    Degenerate words: a neighbour with the same vector as w gives z_w_x1 = 0 (it is kept: the
    two words are indistinguishable, Pr = F_Z(0) = 1/2). Eq. 19 is undefined when x_1 and x_2
    (or x_F) have identical vectors: that z is NaN, left out of the means, standard deviations
    and standard errors, and counted by `undefined`.
    """

    embedding: str
    dim: int
    vocab_size: int
    far: int
    rows: np.ndarray = field(repr=False)
    words: tuple = field(repr=False)
    neighbours: np.ndarray = field(repr=False)  # (m, 3): rows of x_1, x_2, x_far
    neighbour_words: tuple = field(repr=False)  # (m,) triples: the words x_1, x_2, x_far
    d_w_x1: np.ndarray = field(repr=False)
    d_w_x2: np.ndarray = field(repr=False)
    d_w_far: np.ndarray = field(repr=False)
    d_x1_x2: np.ndarray = field(repr=False)
    d_x1_far: np.ndarray = field(repr=False)
    num_x1_x2: np.ndarray = field(repr=False)  # ||w - x_2||^2 - ||w - x_1||^2
    num_x1_far: np.ndarray = field(repr=False)

    @property
    def names(self) -> tuple[str, str, str]:
        """("z_w_x1", "z_x1_x2", "z_x1_x101") (the last with this table's ``far``)."""
        return _quantity_names(self.far)

    @property
    def z_w_x1(self) -> np.ndarray:
        """||w - x_1|| / 2 (Eq. 18 with k = 1)."""
        return self.d_w_x1 / 2.0

    @property
    def z_x1_x2(self) -> np.ndarray:
        """Eq. 19 with (x_1, x_2); NaN where x_1 and x_2 have identical vectors."""
        return eq19(self.d_w_x1, self.d_w_x2, self.d_x1_x2, self.num_x1_x2)

    @property
    def z_x1_far(self) -> np.ndarray:
        """Eq. 19 with (x_1, x_far); NaN where x_1 and x_far have identical vectors."""
        return eq19(self.d_w_x1, self.d_w_far, self.d_x1_far, self.num_x1_far)

    def values(self) -> dict[str, np.ndarray]:
        """The three per-word quantities by name (see `names`)."""
        return dict(zip(self.names, (self.z_w_x1, self.z_x1_x2, self.z_x1_far)))

    def __len__(self) -> int:
        return int(self.rows.size)

    def undefined(self) -> dict[str, int]:
        """Number of words for which each quantity is undefined (NaN, see the class docstring)."""
        return {k: int(np.count_nonzero(np.isnan(v))) for k, v in self.values().items()}

    def means(self) -> dict[str, float]:
        """Table 2: the mean of each quantity over the words (undefined values left out)."""
        return {k: _nan_stat(np.nanmean, v) for k, v in self.values().items()}

    def standard_deviations(self) -> dict[str, float]:
        """Per-word standard deviation of each quantity (ddof = 1; NaN with fewer than 2 words)."""
        return {k: _nan_stat(lambda a: np.nanstd(a, ddof=1), v, minimum=2) for k, v in self.values().items()}

    def standard_errors(self) -> dict[str, float]:
        """Standard error of each mean, sd / sqrt(words), as for sampling with replacement (the
        words are drawn without replacement, which makes the true error smaller by the factor
        sqrt(1 - words/N): 0.994 for 5,000 of 400,000 words; left out, so the errors are
        conservative)."""
        sd = self.standard_deviations()
        return {k: sd[k] / math.sqrt(max(np.count_nonzero(~np.isnan(v)), 1)) for k, v in self.values().items()}

    def summary(self) -> list[dict]:
        """One row per quantity: name, mean, standard error, standard deviation, undefined count."""
        means, se, sd, undefined = self.means(), self.standard_errors(), self.standard_deviations(), self.undefined()
        return [{"quantity": k, "mean": means[k], "standard error": se[k], "standard deviation": sd[k],
                 "undefined": undefined[k]} for k in self.names]

    def to_dict(self, per_word: bool = False) -> dict:
        """JSON-ready: ``words`` (how many), the three means under their names, their standard
        errors and deviations; ``per_word`` adds each word with its neighbours and values."""
        out = {"words": len(self), **self.means(), "standard_errors": self.standard_errors(),
               "standard_deviations": self.standard_deviations(), "undefined": self.undefined(),
               "far": self.far, "embedding": self.embedding, "vocab_size": self.vocab_size, "dim": self.dim}
        if per_word:
            def nan_none(a):
                return [None if math.isnan(x) else float(x) for x in a]

            out["per_word"] = {
                "word": list(self.words),
                "x1": [t[0] for t in self.neighbour_words],
                "x2": [t[1] for t in self.neighbour_words],
                f"x{self.far}": [t[2] for t in self.neighbour_words],
                **{k: nan_none(v) for k, v in self.values().items()},
            }
        return out


def _nan_stat(fn, values: np.ndarray, minimum: int = 1) -> float:
    if np.count_nonzero(~np.isnan(values)) < minimum:
        return float("nan")
    return float(fn(values))


def neighbour_distances(space, words=5000, far: int = FAR_RANK, rng=None, progress=None,
                        client=None) -> NeighbourDistances:
    """Table 2's per-word quantities for ``words`` words of ``space``.

    ``words``: a count (drawn uniformly without replacement from the whole vocabulary with
    ``rng``, a seed or Generator, as the paper and its artifact do) or a list of words / rows.
    ``far``: the rank of the far neighbour (paper: 101). ``progress(fraction, message)`` is
    called as words are done (on a cluster: as blocks are done).

    ``client``: a ``dask.distributed.Client`` to order the neighbours of blocks of `TABLE2_BLOCK`
    words on its workers (`neighbour_block`; the space must be loadable there,
    `privlib.words.cluster.SpaceSpec`), or None: in this process, without importing Dask. Nothing
    here is random once the words are drawn, so the table is the same either way, and the same
    as before blocks.

    Method: the first far + 1 entries of each word's `neighbour_ranks` order come from
    `neighbour_order_prefixes` (same float64 distances and tie rule as `neighbour_ranks`; memory
    bounded by blocks of 32 words). The distances are then recomputed from float64 differences,
    ||a - b|| = sqrt(sum((a - b)^2)), and the numerators of Eq. 19 as
    ||w - x_j||^2 - ||w - x_1||^2 = <x_1 - x_j, 2w - x_1 - x_j>, which keeps full relative
    accuracy when two neighbours are almost equally far (no difference of large squares).

    ValueError when the vocabulary has fewer than far + 1 words (the word and its ``far``
    nearest neighbours are needed) or ``far`` < 2.
    """
    n_words = len(space)
    try:
        far = check_positive_int(far, "far (the rank of the far neighbour)", minimum=2)
    except ValueError:
        raise ValueError(f"far (the rank of the far neighbour) must be a whole number at least 2, got {shown(far)}.") from None
    if n_words < far + 1:
        needed = f"{far + 1:,}" if far < 10**12 else "more"  # a 400-digit rank is not repeated
        raise ValueError(
            f"Table 2 needs each word's {shown(far)} nearest neighbours, so at least {needed} words; "
            f"{space.name} has {n_words:,}. Load a larger vocabulary or choose a smaller far rank."
        )
    rows = _input_rows(space, words, rng)
    task_space = space_for_tasks(space, client)
    # exact integer rows from each block; the float64 distances below are computed here, for all
    # words at once, exactly as before blocks
    neighbours = np.concatenate(run_word_blocks(
        client, neighbour_block, [(task_space, rows[a:b], far) for a, b in word_blocks(rows.size, TABLE2_BLOCK)],
        progress), axis=0)
    w = space.vectors[rows].astype(np.float64)
    x1, x2, xf = (space.vectors[neighbours[:, j]].astype(np.float64) for j in range(3))
    return NeighbourDistances(
        embedding=space.name, dim=space.dim, vocab_size=n_words, far=far, rows=_frozen(rows),
        words=tuple(space.words[r] for r in rows), neighbours=_frozen(neighbours),
        neighbour_words=tuple(tuple(space.words[r] for r in triple) for triple in neighbours),
        d_w_x1=_frozen(_norms(w - x1)), d_w_x2=_frozen(_norms(w - x2)), d_w_far=_frozen(_norms(w - xf)),
        d_x1_x2=_frozen(_norms(x1 - x2)), d_x1_far=_frozen(_norms(x1 - xf)),
        num_x1_x2=_frozen(np.einsum("ij,ij->i", x1 - x2, 2.0 * w - x1 - x2)),
        num_x1_far=_frozen(np.einsum("ij,ij->i", x1 - xf, 2.0 * w - x1 - xf)),
    )


def neighbour_block(space, rows, far: int, progress=None) -> np.ndarray:
    """One block of `neighbour_distances`: the rows of x_1, x_2 and x_far (ranks 1, 2 and ``far`` in
    `neighbour_ranks` order) of each word of ``rows``, int64 (rows.size, 3), from
    `neighbour_order_prefixes`. ``space``: a space or its `SpaceSpec`. ``progress(fraction,
    message)`` within the block."""
    space = space_of_task(space)
    rows = np.asarray(rows, dtype=np.int64)
    report = progress or (lambda fraction, message: None)
    out = np.empty((rows.size, 3), dtype=np.int64)
    for done, (i, prefix) in enumerate(neighbour_order_prefixes(space, rows, far + 1), start=1):
        out[i] = prefix[[1, 2, far]]
        if done % _PROGRESS_EVERY == 0 or done == rows.size:
            report(done / rows.size, f"Ordered the neighbours of {done:,} of {rows.size:,} words")
    return out


def _norms(differences: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", differences, differences))


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _input_rows(space, words, rng) -> np.ndarray:
    """Rows of the input words: a count drawn uniformly without replacement (sorted), or the
    given words (strings or row numbers), each validated."""
    if isinstance(words, str):
        words = [words]
    if isinstance(words, (int, np.integer)) and not isinstance(words, bool):
        count = check_positive_int(words, "words (how many to draw)", minimum=1, maximum=len(space))
        return np.sort(as_generator(rng).choice(len(space), size=count, replace=False)).astype(np.int64)
    rows = np.array([space.row(w) for w in words], dtype=np.int64)
    if rows.size == 0:
        raise ValueError("Give at least one word (or a number of words to draw).")
    return rows


def published_table2(space) -> dict | None:
    """The paper's Table 2 row (and the artifact's printed run) when ``space`` is one of the
    embeddings of the published GloVe-Wiki rows: GloVe 6B (all 400,000 words) in 50, 100, 200
    or 300 dimensions (the built-in GloVe 6B 50d, or a file named like glove.6B.100d.txt).
    Returns {"paper": (3 means), "artifact": (3 means), "dim": n} or None."""
    if len(space) != GLOVE_6B_WORDS or space.dim not in PUBLISHED_TABLE2:
        return None
    name = space.name
    builtin = name.startswith(GLOVE_6B_50D) and space.dim == 50
    from_file = re.search(rf"glove\.6b\.{space.dim}d", name, flags=re.IGNORECASE) is not None
    if not (builtin or from_file):
        return None
    return {"dim": space.dim, **PUBLISHED_TABLE2[space.dim]}


# ----------------------------------------------------------------------------- Fig. 6
@dataclass(frozen=True)
class WinProbabilities:
    """Fig. 6: Pr[w beats x_1] = F_Z(z_{w,x1}) (Eq. 18) and Pr[x_1 beats x_2] = F_Z(z_{x1,x2})
    (Eq. 19) against epsilon, exact (NoisyDotProduct(n, eps).cdf), for every word of a
    `NeighbourDistances` table.

    ``w_beats_x1`` and ``x1_beats_x2`` have shape (words, epsilons); x1_beats_x2 is NaN where
    Eq. 19 is undefined. ``at_mean_z`` is F_Z at the mean z over the words — how the paper drew
    Fig. 6 (Monte Carlo at the Table 2 means) — which differs from the mean of F_Z (`mean`)
    since F_Z is not linear.
    """

    n: int
    epsilons: np.ndarray
    w_beats_x1: np.ndarray = field(repr=False)
    x1_beats_x2: np.ndarray = field(repr=False)
    at_mean_z: dict = field(repr=False)

    NAMES = ("w_beats_x1", "x1_beats_x2")

    def mean(self) -> dict[str, np.ndarray]:
        """Average over words of each probability, per epsilon (undefined words left out)."""
        return {k: _nanmean_columns(getattr(self, k)) for k in self.NAMES}

    def quantiles(self, q=(0.1, 0.9)) -> dict[str, np.ndarray]:
        """Per-epsilon quantiles over words of each probability, shape (len(q), epsilons)."""
        q = np.atleast_1d(np.asarray(q, dtype=np.float64))
        out = {}
        for k in self.NAMES:
            values = getattr(self, k)
            keep = ~np.isnan(values).any(axis=1)
            out[k] = (np.quantile(values[keep], q, axis=0) if keep.any()
                      else np.full((q.size, self.epsilons.size), np.nan))
        return out

    def to_dict(self) -> dict:
        return {"n": self.n, "epsilons": self.epsilons.tolist(),
                "mean": {k: v.tolist() for k, v in self.mean().items()},
                "at_mean_z": {k: np.asarray(v).tolist() for k, v in self.at_mean_z.items()}}

    def first_reaching(self, level: float = 0.9, name: str = "w_beats_x1") -> dict | None:
        """The first epsilon at which the mean over words of probability ``name`` reaches
        ``level``, with both mean probabilities there: {"epsilon", "w_beats_x1", "x1_beats_x2"};
        None when no epsilon of the grid does."""
        if name not in self.NAMES:
            raise ValueError(f"name must be one of {', '.join(self.NAMES)}, got {name!r}.")
        mean = self.mean()
        reach = np.flatnonzero(mean[name] >= level)
        if not reach.size:
            return None
        j = int(reach[0])
        return {"epsilon": float(self.epsilons[j]), **{k: float(mean[k][j]) for k in self.NAMES}}


def _nanmean_columns(values: np.ndarray) -> np.ndarray:
    counts = np.count_nonzero(~np.isnan(values), axis=0)
    sums = np.nansum(values, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def win_probabilities(table: NeighbourDistances, epsilons, progress=None) -> WinProbabilities:
    """F_Z(z_{w,x1}) and F_Z(z_{x1,x2}) for each word of ``table`` and each epsilon, computed with
    the exact CDF of the noisy dot product, `NoisyDotProduct(n, eps).cdf` (no Monte Carlo),
    n = the embedding's dimension. ``progress(fraction, message)`` is called per epsilon.

    The epsilons are independent columns, computed on the process's cores (`available_cores`
    threads; NumPy releases the GIL in the quadrature's array arithmetic) with a single-threaded
    BLAS: each column is the one a loop over the epsilons computes, bit for bit (issue 22: 0.8 s of
    the first view of *Why it happens* for 1,000 words and 11 epsilons on one core)."""
    eps = check_epsilons(epsilons)
    z_w, z_12 = table.z_w_x1, table.z_x1_x2
    defined = ~np.isnan(z_12)
    w_beats = np.empty((z_w.size, eps.size))
    x1_beats = np.full((z_w.size, eps.size), np.nan)
    mean_w, mean_12 = float(np.mean(z_w)), table.means()["z_x1_x2"]
    at_mean = {"w_beats_x1": np.empty(eps.size), "x1_beats_x2": np.full(eps.size, np.nan)}

    def column(j: int) -> None:
        law = NoisyDotProduct(table.dim, eps[j])
        w_beats[:, j] = law.cdf(z_w)
        x1_beats[defined, j] = law.cdf(z_12[defined])
        at_mean["w_beats_x1"][j] = law.cdf(mean_w)
        if not math.isnan(mean_12):
            at_mean["x1_beats_x2"][j] = law.cdf(mean_12)

    threads = min(available_cores(), eps.size)
    with single_threaded_blas(), ThreadPoolExecutor(threads, thread_name_prefix="privlib-win") as pool:
        for done, _ in enumerate(pool.map(column, range(eps.size)), start=1):  # in order: raises the first error
            if progress is not None:
                progress(done / eps.size, f"Exact probabilities at ε = {eps[done - 1]:g} ({done} of {eps.size})")
    for a in (w_beats, x1_beats, eps, *at_mean.values()):
        a.flags.writeable = False
    return WinProbabilities(table.dim, eps, w_beats, x1_beats, at_mean)


@dataclass(frozen=True)
class MechanismFrequencies:
    """What the multivariate Laplace mechanism does, beside what Eq. 18-21 predict, for the same
    words (a random subset of a `NeighbourDistances` table).

    ``original``: proportion of outputs that are the input word w; ``nearest``: proportion that
    are its nearest neighbour x_1 (per epsilon, over words x samples per word).
    ``predicted_original``: mean over the words of F_Z(z_{w,x1}) = Pr[w beats x_1] (Eq. 18) — an
    upper bound on Pr[output = w] (w must beat every word, x_1 included), tight when x_1 is the
    only serious rival. ``nearest_bound``: mean of min(1 - F_Z(z_{w,x1}), F_Z(z_{x1,x2})), the
    bound of Eq. 20 and Eq. 21 on Pr[output = x_1] (x_1 must beat w and x_2).
    """

    epsilons: np.ndarray
    rows: np.ndarray = field(repr=False)
    samples_per_word: int
    original: np.ndarray = field(repr=False)
    nearest: np.ndarray = field(repr=False)
    predicted_original: np.ndarray = field(repr=False)
    nearest_bound: np.ndarray = field(repr=False)

    @property
    def trials(self) -> int:
        return int(self.rows.size) * self.samples_per_word

    def standard_errors(self) -> dict[str, np.ndarray]:
        """Binomial standard errors sqrt(p(1-p)/trials) of ``original`` and ``nearest``.

        The trials are independent but not identically distributed (different words), for which
        this is an upper bound on the standard error given the words."""
        return {k: binomial_standard_error(p, self.trials) for k, p in
                (("original", self.original), ("nearest", self.nearest))}

    def to_dict(self) -> dict:
        se = self.standard_errors()
        return {"epsilons": self.epsilons.tolist(), "words": int(self.rows.size),
                "samples_per_word": self.samples_per_word, "original": self.original.tolist(),
                "nearest": self.nearest.tolist(), "standard_errors": {k: v.tolist() for k, v in se.items()},
                "predicted_original": self.predicted_original.tolist(), "nearest_bound": self.nearest_bound.tolist()}


def mechanism_frequencies(space, table: NeighbourDistances, epsilons, words: int = 200, samples_per_word: int = 5,
                          rng=None, progress=None) -> MechanismFrequencies:
    """Run the multivariate Laplace mechanism (exact nearest-neighbour search) ``samples_per_word``
    times per epsilon on ``words`` words drawn without replacement from ``table``'s words, and
    count outputs equal to the word and to its nearest neighbour; with the exact predictions of
    Eq. 18, 20, 21 for the same words (see `MechanismFrequencies`). ``table`` must have been
    computed on ``space``. ``progress(fraction, message)`` is called as epsilons are done.

    The noisy points of many epsilons go to one exact search (`sample_across_epsilons`), which
    draws the very numbers that one `sample_many` call per epsilon, in grid order, would draw."""
    if table.vocab_size != len(space) or table.embedding != space.name or table.dim != space.dim:
        raise ValueError("The neighbour-distance table was computed on another embedding: recompute it on this one.")
    eps = check_epsilons(epsilons)
    rng = as_generator(rng)
    words = check_positive_int(words, "words", minimum=1, maximum=len(table))
    samples_per_word = check_positive_int(samples_per_word, "samples_per_word", minimum=1, maximum=100_000)
    pick = np.sort(rng.choice(len(table), size=words, replace=False))
    rows, x1 = table.rows[pick], table.neighbours[pick, 0]
    z_w, z_12 = table.z_w_x1[pick], table.z_x1_x2[pick]
    inputs = np.repeat(rows, samples_per_word)
    nearest_rows = np.repeat(x1, samples_per_word)
    # the runs of every epsilon, searched together: one `sample_across_epsilons` call per run of
    # increasing epsilons draws exactly what one call per epsilon, in grid order, would draw
    all_outputs = np.empty((eps.size, inputs.size), dtype=np.int64)
    for run in np.split(np.arange(eps.size), np.flatnonzero(np.diff(eps) <= 0) + 1):
        report = None
        if progress is not None:
            def report(done, last, before=int(run[0])):
                progress((before + done) / eps.size,
                         f"Ran the mechanism at ε = {last:g} ({before + done} of {eps.size})")
        all_outputs[run] = sample_across_epsilons(space, MultivariateLaplace.family(), inputs, eps[run], rng, report)
    original, nearest = np.empty(eps.size), np.empty(eps.size)
    predicted, bound = np.empty(eps.size), np.empty(eps.size)
    for j, e in enumerate(eps):
        outputs = all_outputs[j]
        original[j] = np.mean(outputs == inputs)
        nearest[j] = np.mean(outputs == nearest_rows)
        law = NoisyDotProduct(space.dim, e)
        f_w = law.cdf(z_w)
        # x_1 and x_2 with identical vectors always tie, and the lower row (x_1) wins: no bound from Eq. 21
        f_12 = np.where(np.isnan(z_12), 1.0, law.cdf(np.nan_to_num(z_12)))
        predicted[j] = np.mean(f_w)
        bound[j] = np.mean(np.minimum(law.sf(z_w), f_12))
    for a in (eps, rows, original, nearest, predicted, bound):
        a.flags.writeable = False
    return MechanismFrequencies(eps, rows, samples_per_word, original, nearest, predicted, bound)


# ----------------------------------------------------------------------------- one word, and Table 2's rows
def table2_label(name: str) -> str:
    """Short label of a Table 2 quantity: "z_w_x1" -> "z(w, x₁) = ‖w − x₁‖/2", "z_x1_x2" ->
    "z(x₁, x₂)  (Eq. 19)", "z_x1_x101" -> "z(x₁, x101)  (Eq. 19)"; any other name as it is."""
    if name == "z_w_x1":
        return "z(w, x₁) = ‖w − x₁‖/2"
    if name == "z_x1_x2":
        return "z(x₁, x₂)  (Eq. 19)"
    far = re.fullmatch(r"z_x1_x(\d+)", name)
    return f"z(x₁, x{far.group(1)})  (Eq. 19)" if far else name


def table2_rows(table: NeighbourDistances, published: dict | None = None) -> list[dict]:
    """Table 2 as rows, one per quantity: its label (`table2_label`), our mean, its standard
    error, the standard deviation over words and, when ``published`` (`published_table2`) is
    given, the paper's mean and the artifact's printed run beside them."""
    means, se, sd = table.means(), table.standard_errors(), table.standard_deviations()
    rows = []
    for i, name in enumerate(table.names):
        row = {"quantity": table2_label(name), "mean (ours)": means[name], "± standard error": se[name],
               "standard deviation over words": sd[name]}
        if published is not None:
            row["paper (Table 2)"] = published["paper"][i]
            row["artifact's run"] = published["artifact"][i]
        rows.append(row)
    return rows


@dataclass(frozen=True)
class WordNeighbourhood:
    """One word's neighbourhood (paper §6): ``distances`` to its neighbours of rank 0..far (rank 0
    = the word itself, `neighbour_ranks` order) and its row of Table 2 (``table``, one word)."""

    word: str
    far: int
    distances: np.ndarray = field(repr=False)
    table: NeighbourDistances = field(repr=False)

    @property
    def z(self) -> dict[str, float]:
        """The word's three Table 2 quantities by name (NaN where Eq. 19 is undefined)."""
        return {k: float(v[0]) for k, v in self.table.values().items()}

    @property
    def neighbours(self) -> tuple[str, str, str]:
        """The words x_1, x_2 and x_far."""
        return self.table.neighbour_words[0]


def word_neighbourhood(space, word: str, far: int = FAR_RANK) -> WordNeighbourhood:
    """`WordNeighbourhood` of ``word``: the distances of `neighbour_ranks` up to rank ``far`` and
    `neighbour_distances`(space, [word], far). ValueError for a word not in the vocabulary or a
    vocabulary of fewer than far + 1 words."""
    from privlib.words.neighbours import neighbour_ranks

    distances = neighbour_ranks(space, word).distances[: far + 1].copy()
    table = neighbour_distances(space, [word], far=far)
    return WordNeighbourhood(table.words[0], table.far, _frozen(distances), table)
