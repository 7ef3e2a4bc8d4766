"""The exponential-mechanism family of word-level mechanisms: SanText, SanText+, TEM, CusText.

Each replaces a word x by a word y drawn with P(y|x) ∝ exp(eps·u(x, y)/2) for a utility u, over
a candidate set that depends on the mechanism (Carvalho et al. 2023; Yue et al. 2021; Chen et al. 2023).
Two facts carry every guarantee here (our derivations, not taken from these papers):

* if |u(x,y) − u(x',y)| ≤ d(x,x') for every y, then P(y|x) ≤ e^{eps·d(x,x')} P(y|x') (the
  numerator and the normaliser each contribute eps·d/2 — hence the 1/2 in the exponent);
* Gumbel-max realises exp(eps·s/2) only with scale 2/eps and argmax(s + G); argmin(d + G) is not a
  softmax. Nothing here uses Gumbel noise: outputs are drawn by inverse CDF from float64 weights.

Numerics (our addition, not in the papers). Every law is computed in float64 log space
(log-sum-exp normalisation), so no weight underflows: probabilities of legitimate outputs are
floored at the smallest normal float (2.2e-308) instead of becoming exact zeros (the official
SanText code's float32 probabilities underflow to 0 at eps=15, a formally infinite privacy loss).
A common floor keeps the privacy inequalities: max(a, f) ≤ e^c·max(b, f) whenever a ≤ e^c·b.
Sampling (`_draw`) is an inverse CDF that stays accurate for tiny probabilities too: the power of
two of the output is drawn first, cumulated from the smallest up, then the output within it, each
with a uniform variate that has full float precision near 0 — so an output of probability 1e-200
is drawn with probability ≈ 1e-200, not 0 (a plain cumulative sum near 1 gives it an empty
interval) and not 2^-53.

Distances are the library's single definition, `EmbeddingSpace.squared_distances` (float64), with
d(x, x) = 0 by definition (the ||a||²+||b||²−2<a,b> formula can leave a rounding residue of ~1e-8
on the diagonal). Rows are computed on demand; no N×N matrix is ever formed.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privlib.core.sampling import TINY, probabilities_from_log_weights, sample_categorical
from privlib.core.mechanism import Guarantee
from privlib.core.validation import check_epsilon, check_positive_int
from privlib.words.mechanisms.base import Mechanism, Parameter

#: Distance rows computed at once by `sample_many` (a (rows x N) float64 block: 32 x 400,000 = 100 MB).
_ROWS_PER_BLOCK = 32


def _distances(sq_row: np.ndarray, row: int) -> np.ndarray:
    """Euclidean distances from one squared-distance row (library formula), d(x, x) = 0."""
    d = np.sqrt(np.maximum(sq_row, 0.0))
    d[row] = 0.0
    return d


def _check_fraction(value, name: str, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}.")
    value = float(value)
    if not (0.0 < value <= 1.0 if low_open else 0.0 <= value <= 1.0):
        interval = "in (0, 1] (greater than 0, at most 1)" if low_open else "between 0 and 1"
        raise ValueError(f"{name} must be {interval}, got {value!r}.")
    return value


class _ExponentialFamily(Mechanism):
    """Shared plumbing: each subclass gives the law of one input row as (support rows,
    probabilities) from that row's distances; output_probabilities, sample and sample_many are
    built on it."""

    has_exact_probabilities = True

    def _law(self, space, row: int, epsilon: float, d: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """(support, probabilities) for input ``row`` with distances ``d`` to every word:
        the probabilities of the rows in ``support`` (None = every row)."""
        raise NotImplementedError

    def _prepare(self, space) -> None:
        """Checks that depend on the space (called before any law is computed)."""

    def _row_law(self, space, row: int, epsilon: float):
        self._prepare(space)
        return self._law(space, row, epsilon, _distances(space.squared_distances(row)[0], row))

    def _outputs(self, support, idx: np.ndarray, rng) -> np.ndarray:
        """Rows for draws ``idx`` from the law's probabilities (TEM resolves its ⊥ here)."""
        return idx if support is None else support[idx]

    def output_probabilities(self, space, word, epsilon: float | None = None) -> np.ndarray:
        """P(output = y | input = word) for every row y at ``epsilon`` (None: this mechanism's
        own): float64, shape (N,), summing to 1."""
        row = space.row(word)
        support, p = self._row_law(space, row, self._epsilon_or_own(epsilon))
        if support is None:
            return p
        full = np.zeros(len(space))
        full[support] = p
        return full

    def _release(self, space, row, size, rng) -> np.ndarray:
        """Drawn exactly from `output_probabilities`."""
        support, p = self._row_law(space, row, self.epsilon)
        return self._outputs(support, sample_categorical(p, size, rng), rng)

    def _sample_many(self, space, rows, eps, rng) -> np.ndarray:
        """Each distinct input row's distances are computed once (in blocks of rows) and serve all
        of its epsilons; every output is drawn from the same exact law as `release`."""
        self._prepare(space)
        out = np.empty(rows.size, dtype=np.int64)
        unique, inverse = np.unique(rows, return_inverse=True)
        by_row = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[by_row], np.arange(unique.size + 1))
        for start in range(0, unique.size, _ROWS_PER_BLOCK):
            block = unique[start:start + _ROWS_PER_BLOCK]
            sq = space.squared_distances(block)
            for k, row in enumerate(block):
                positions = by_row[bounds[start + k]:bounds[start + k + 1]]
                d = _distances(sq[k], int(row))
                for value in np.unique(eps[positions]):
                    where = positions[eps[positions] == value]
                    support, p = self._law(space, int(row), float(value), d)
                    out[where] = self._outputs(support, sample_categorical(p, where.size, rng), rng)
        return out


# ----------------------------------------------------------------------------- SanText
class SanText(_ExponentialFamily):
    """SanText (Yue, Du, Wang, Li, Sun, Chow, Findings ACL 2021, arXiv 2106.01221).

    P(y|x) = exp(−eps·d(x,y)/2) / Σ_{y'∈V} exp(−eps·d(x,y')/2) over the whole vocabulary V (x
    included), d = Euclidean distance between embeddings (Yue et al. 2021, Algorithm 1; the
    comparison mechanism of Asghar et al. 2026, §7, Fig. 9). The exponential mechanism with
    u = −d, which is 1-Lipschitz in x, hence eps·d-privacy (the first fact in the module
    docstring). Computed per row in float64 log space.
    """

    name = "santext"
    label = "SanText (Yue et al. 2021)"
    PARAMETERS: dict = {}

    def _guarantee(self) -> Guarantee:
        return self._d_x_guarantee(
            "eps·d_X-privacy with d = Euclidean distance between embeddings: "
            "P[M(x)=y] <= exp(eps·||x - x'||) P[M(x')=y] for every x, x', y; m words cost m·eps.")

    def _law(self, space, row, epsilon, d):
        return None, probabilities_from_log_weights(-0.5 * epsilon * d)


# ----------------------------------------------------------------------------- SanText+
class SanTextPlus(_ExponentialFamily):
    """SanText+ (Yue et al., Findings ACL 2021, arXiv 2106.01221).

    The vocabulary splits into sensitive words V_S — the least frequent fraction ``w``, i.e. the
    last ⌈w·N⌉ rows, since rows are in frequency order — and the rest V_N.
    * Sensitive x: y ∈ V_S with P(y|x) = e^{−eps·d(x,y)/2} / Σ_{y'∈V_S} e^{−eps·d(x,y')/2}.
    * Non-sensitive x: with probability p the same law over V_S, otherwise x unchanged:
      P(x|x) = 1 − p, P(y|x) = p·C_x·e^{−eps·d(x,y)/2} for y ∈ V_S (Yue et al. 2021).
    ⌈w·N⌉ is exact: the official code takes ``words[-count-1:]``, one word too many (our reading of
    that code, not in the paper), and w is read as the decimal it was written as (0.07·100 is 7,
    although 0.07*100 = 7.000000000000001 in floats).

    Guarantee (our derivation; not checked against the paper's own UMLDP statement): for outputs
    y ∈ V_S, P(y|x) ≤ e^{eps·d(x,x')}·P(y|x') when x, x' are both sensitive or both not, and
    ≤ e^{eps·d(x,x') + ln(1/p)}·P(y|x') for sensitive x, non-sensitive x'. An unchanged
    non-sensitive word (output in V_N) reveals its input: unprotected by design (utility-optimised
    LDP).

    Defaults p = 0.3, w = 0.9 are the README's paper-style settings (with eps = 1); the argparse
    defaults of the official run_SanText.py are p = 0.2, w = 0.5 (repository xiangyue9607/SanText).
    w = 0 is refused: it would leave no sensitive word to sample.
    """

    name = "santext-plus"
    label = "SanText+ (Yue et al. 2021)"
    PARAMETERS = {
        "p": Parameter(0.3, 0.0, 1.0, help="Probability that a non-sensitive word is replaced by a "
                                           "sensitive one (paper README: 0.3)."),
        "w": Parameter(0.9, 0.0, 1.0, help="Fraction of the vocabulary that is sensitive: the least "
                                           "frequent ⌈w·N⌉ words, 0 < w ≤ 1 (paper README: 0.9)."),
    }

    def _set_parameters(self, *, p: float = 0.3, w: float = 0.9) -> None:
        self.p = _check_fraction(p, "p (replacement probability of a non-sensitive word)")
        self.w = _check_fraction(w, "w (fraction of sensitive words)", low_open=True)

    def _guarantee(self) -> Guarantee:
        # Yue et al. 2021 state SanText+ as utility-optimised metric LDP (UMLDP): a metric
        # guarantee for the sensitive outputs only.
        text = (f"For outputs in the sensitive set (the {self.w:g} least frequent fraction): "
                "P[M(x)=y] <= exp(eps·||x - x'||) P[M(x')=y] when x, x' are both sensitive or both not, "
                f"<= exp(eps·||x - x'|| + ln(1/p)), p={self.p:g}, across the split; "
                "a non-sensitive word kept unchanged is not protected (by design).")
        neighbours = ("any two words, for outputs in the sensitive set; the guarantee scales with their embedding "
                      "distance, plus ln(1/p) across the split; a non-sensitive word kept unchanged is unprotected")
        return Guarantee("metric-dp", text, neighbours=neighbours, epsilon=self.epsilon)

    def sensitive_count(self, n_words: int) -> int:
        """⌈w·n_words⌉, with w taken as the decimal it was written as."""
        return math.ceil(Fraction(repr(self.w)) * int(n_words))

    def sensitive_rows(self, space) -> np.ndarray:
        """Rows of V_S: the last ⌈w·N⌉ rows (the least frequent words)."""
        n = len(space)
        return np.arange(n - self.sensitive_count(n), n, dtype=np.int64)

    def _law(self, space, row, epsilon, d):
        n = len(space)
        first = n - self.sensitive_count(n)
        log_w = -0.5 * epsilon * d[first:]
        if row >= first:  # sensitive: the exponential mechanism over V_S
            return np.arange(first, n, dtype=np.int64), probabilities_from_log_weights(log_w)
        # non-sensitive: x itself with probability 1 - p, else the same law over V_S (a product
        # with p < 1 can fall below the floor: floored again, unless p = 0 makes V_S impossible)
        moved = self.p * probabilities_from_log_weights(log_w)
        if self.p > 0:
            np.maximum(moved, TINY, out=moved)
        support = np.concatenate([[row], np.arange(first, n, dtype=np.int64)])
        return support, np.concatenate([[1.0 - self.p], moved])


# ----------------------------------------------------------------------------- TEM
class TEM(_ExponentialFamily):
    """Truncated Exponential Mechanism (Carvalho, Vasiloudis, Feyisetan, Wang, SDM 2023,
    arXiv 2107.07928).

    γ = (2/eps)·ln((1−β)(|V|−1)/β); L_w = {x : d(w,x) ≤ γ} (≤: a word exactly at distance γ is
    inside); outside words L̂_w = V \\ L_w. Exact law (our derivation, not in the paper):
        Z_w = Σ_{x∈L_w} e^{−eps·d(w,x)/2} + |L̂_w|·e^{−eps·γ/2},
        P(x|w) = e^{−eps·d(w,x)/2}/Z_w inside, e^{−eps·γ/2}/Z_w outside,
    i.e. the exponential mechanism with u = −min(d, γ) (1-Lipschitz): eps·d-privacy for every γ
    (our proof of the guarantee); β only bounds P[output ∉ L_w] ≤ β. Sampled as the paper runs it:
    L_w ∪ {⊥} with ⊥ of weight |L̂_w|·e^{−eps·γ/2} (the ⊥ score −γ + (2/eps)·ln|L̂_w|, not MLDP's
    ln(|V|/|L_w|), which breaks the guarantee — our finding, not in the paper), then a uniform
    outside word when ⊥ wins.

    Since inside and outside weights coincide at d = γ, the boundary convention changes how a
    draw is split between L_w and ⊥ but not the output law. For β > (|V|−1)/|V| (β near 1 or a
    tiny vocabulary) γ < 0, L_w is empty and the law is uniform.
    Default β = 0.001 (dp_prompt, pypantera README, MLDP; the paper's own default is unverified).
    """

    name = "tem"
    label = "TEM — truncated exponential mechanism (Carvalho et al. 2023)"
    PARAMETERS = {
        "beta": Parameter(0.001, 0.0, 1.0, help="Utility parameter 0 < β < 1: P[output outside the "
                                                "γ-ball] <= β; sets the threshold γ (not the privacy)."),
    }

    def _set_parameters(self, *, beta: float = 0.001) -> None:
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0.0 < float(beta) < 1.0:
            raise ValueError(f"beta must be a number strictly between 0 and 1 (e.g. 0.001), got {beta!r}.")
        self.beta = float(beta)

    def _guarantee(self) -> Guarantee:
        return self._d_x_guarantee(
            "eps·d_X-privacy with d = Euclidean distance, for every threshold gamma: "
            "P[M(w)=y] <= exp(eps·||w - w'||) P[M(w')=y]; "
            "beta only bounds P[output outside the gamma-ball] <= beta.")

    def threshold(self, n_words: int, epsilon: float) -> float:
        """γ = (2/eps)·ln((1−β)(n_words−1)/β) (Carvalho et al. 2023)."""
        epsilon = check_epsilon(epsilon)
        n_words = check_positive_int(n_words, "n_words", minimum=2)
        return 2.0 / epsilon * math.log((1.0 - self.beta) * (n_words - 1) / self.beta)

    def inside(self, space, word, epsilon: float) -> np.ndarray:
        """Boolean mask of L_w = {x : d(w, x) ≤ γ} (the truncation set, w included when γ ≥ 0)."""
        row = space.row(word)
        gamma = self.threshold(len(space), epsilon)
        return _distances(space.squared_distances(row)[0], row) <= gamma

    def bottom_probability(self, space, word, epsilon: float) -> float:
        """P[⊥ wins] = |L̂_w|·e^{−eps·γ/2}/Z_w = P[output ∉ L_w] (≤ β, our derivation)."""
        support, p = self._row_law(space, space.row(word), check_epsilon(epsilon))
        return float(p[-1])

    def _law(self, space, row, epsilon, d):
        # The support is L_w followed by ⊥ (weight |L̂_w|·e^{-eps·γ/2}, i.e. score
        # −γ + (2/eps)·ln|L̂_w|); `_outputs` maps ⊥ to a uniform word of L̂_w.
        gamma = self.threshold(len(space), epsilon)
        inside = d <= gamma
        rows_in = np.flatnonzero(inside)
        n_out = d.size - rows_in.size
        log_bottom = (-0.5 * epsilon * gamma + math.log(n_out)) if n_out else -np.inf
        p = probabilities_from_log_weights(np.concatenate([-0.5 * epsilon * d[rows_in], [log_bottom]]))
        return (rows_in, inside), p

    def _outputs(self, support, idx, rng):
        rows_in, inside = support
        out = np.empty(idx.size, dtype=np.int64)
        bottom = idx == rows_in.size
        out[~bottom] = rows_in[idx[~bottom]]
        if bottom.any():  # ⊥ won: a uniform word outside the ball
            outside = np.flatnonzero(~inside)
            out[bottom] = outside[rng.integers(0, outside.size, size=int(bottom.sum()))]
        return out

    def output_probabilities(self, space, word, epsilon: float | None = None) -> np.ndarray:
        """P(x|w) for every row x (the exact law above, our derivation) at ``epsilon`` (None: this
        mechanism's own): float64, shape (N,), summing to 1.

        Computed as the equivalent single softmax of −eps·min(d, γ)/2, so an outside word's
        probability is floored like any other rather than being ⊥'s share divided by |L̂_w|."""
        row = space.row(word)
        epsilon = self._epsilon_or_own(epsilon)
        gamma = self.threshold(len(space), epsilon)
        d = _distances(space.squared_distances(row)[0], row)
        return probabilities_from_log_weights(-0.5 * epsilon * np.minimum(d, gamma))


# ----------------------------------------------------------------------------- CusText
#: Heads (group-forming words) whose distances are computed in one float32 product.
_GROUP_BLOCK = 64
#: Columns sampled to bound a head's k-th nearest distance before the exact search.
_SAMPLE_COLUMNS = 4096
#: Re-gather the live vectors when more than this fraction of the gathered ones are assigned.
_COMPACT_WHEN_DEAD = 0.3


@dataclass(frozen=True)
class CusTextGroups:
    """CusText's conservative output-set mapping: a partition of the first ``n`` rows into groups.

    ``group_of[x]`` is x's group; the members of group g are ``members[offsets[g]:offsets[g+1]]``
    (the group's first word, then the others by distance from it). Every member of a group has
    that group as its output set Y.
    """

    k: int
    n: int
    group_of: np.ndarray
    members: np.ndarray
    offsets: np.ndarray
    seconds: float

    def output_set(self, row: int) -> np.ndarray:
        g = self.group_of[row]
        return self.members[self.offsets[g]:self.offsets[g + 1]]

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


class _Partition:
    """The groups of `build_groups` while they are formed: who is assigned where, who is left."""

    def __init__(self, n: int):
        self.group_of = np.full(n, -1, dtype=np.int64)
        self.members = np.empty(n, dtype=np.int64)
        self.offsets = [0]
        self.alive = np.ones(n, dtype=bool)
        self.n_alive = n

    def assign(self, rows: np.ndarray) -> None:
        """Make ``rows`` (in order) the next group."""
        g = len(self.offsets) - 1
        start = self.offsets[-1]
        self.members[start:start + rows.size] = rows
        self.group_of[rows] = g
        self.offsets.append(start + rows.size)
        self.alive[rows] = False
        self.n_alive -= rows.size

    def groups(self, k: int, seconds: float) -> CusTextGroups:
        offsets = np.asarray(self.offsets, dtype=np.int64)
        for a in (self.group_of, self.members, offsets):
            a.flags.writeable = False
        return CusTextGroups(k, self.group_of.size, self.group_of, self.members, offsets, seconds)


def _rescored(vectors, sq_norms, head: int, rows: np.ndarray) -> np.ndarray:
    """Squared distances from ``head`` to ``rows`` in float64 with the library's formula
    ||a||² + ||b||² − 2<a,b>; the head itself gets −1, so it comes first even with duplicate vectors."""
    d = (vectors[rows].astype(np.float64) @ vectors[head].astype(np.float64)) * -2.0
    d += sq_norms[rows]
    d += sq_norms[head]
    np.maximum(d, 0.0, out=d)
    d[rows == head] = -1.0
    return d


def _gathered_columns(vectors, sq32, cols: np.ndarray) -> np.ndarray:
    """The live words ``cols`` as float32 columns [-2b; ||b||²; 1], so that one product with rows
    [a, 1, ||a||²] (`_head_rows`) gives ||a||² + ||b||² − 2<a,b> directly."""
    dim = vectors.shape[1]
    gathered = np.empty((dim + 2, cols.size), dtype=np.float32)
    gathered[:dim] = vectors[cols].T
    gathered[:dim] *= -2.0
    gathered[dim] = sq32[cols]
    gathered[dim + 1] = 1.0
    return gathered


def _head_rows(vectors, sq32, heads: np.ndarray) -> np.ndarray:
    """The heads as float32 rows [a, 1, ||a||²] (see `_gathered_columns`)."""
    dim = vectors.shape[1]
    lhs = np.empty((heads.size, dim + 2), dtype=np.float32)
    lhs[:, :dim] = vectors[heads]
    lhs[:, dim] = 1.0
    lhs[:, dim + 1] = sq32[heads]
    return lhs


def _float32_error(dim: int, sq_norm_head: float, max_norm: float) -> float:
    """A bound δ on |float32 d² − exact d²| from a head to any word: (dim + 5)·2^-24·(|a| + max|b|)².
    The float32 dot product errs by at most ~dim·2^-24·|a||b|, the three additions and the float32
    norms by 2^-24 times terms bounded by (|a| + |b|)²; float64 rescoring errors are 2^-29 times
    smaller still."""
    return (dim + 5) * 2.0**-24 * (math.sqrt(sq_norm_head) + max_norm) ** 2


def _candidates(row: np.ndarray, k: int, stride: int, delta: float) -> np.ndarray:
    """Columns of ``row`` (float32 squared distances, +inf for assigned words) that may be among
    its k nearest: everything within t + 2δ of its k-th smallest value t. A strided sample's k-th
    smallest value bounds t from above, so t is found by partition over the words below it."""
    sample = row[::stride]
    bound = float(np.partition(sample, k - 1)[k - 1]) if sample.size >= k else np.inf
    if np.isfinite(bound):
        near = np.flatnonzero(row <= np.float32(bound))  # >= k words, all live
    else:  # too few live words in the sample: search the whole row
        near = np.flatnonzero(np.isfinite(row))
    t = float(np.partition(row[near], k - 1)[k - 1])  # the row's k-th smallest
    reach = np.float64(t + 2.0 * delta)  # anything farther is surely not among the k nearest
    return near[row[near] <= reach] if reach <= bound else np.flatnonzero(row <= reach)


def build_groups(vectors, sq_norms, k: int, block: int | None = None) -> CusTextGroups:
    """CusText's conservative mapping (Chen et al. 2023, step 1 as in the official code's
    ``get_customized_mapping``, Euclidean/GloVe branch).

    Words are visited in row (= frequency) order; a word not yet assigned takes its k nearest
    unassigned words Y (itself first, then by distance, ties by row) and every member of Y gets
    output set Y. Assigned words are masked out of later searches (the official code overwrites
    their vectors with 1e9, which lets them reappear, at an extreme score, in the last groups);
    so all groups have exactly k words except the last, which has the N mod k words left.

    Cost: about N/k searches over the unassigned words (N²/(2k) distances). Distances to the
    next ``block`` heads are one float32 matrix product over the gathered live vectors
    (assigned ones get +inf); a head's k-th smallest float32 distance t is found by partition
    (over the words below the k-th smallest of a strided sample of columns, a bound from above),
    every live word within t + 2δ (δ bounds the float32 rounding error) is rescored in float64
    with the library's formula ||a||² + ||b||² − 2<a,b>, and the k nearest are taken from those
    — the same sets the float64 search would give. GloVe 6B (400,000 words), K = 20: 8.5 s on an
    idle 2-core Xeon (bench/bench_probabilities.py).
    """
    import time

    started = time.perf_counter()
    block = _GROUP_BLOCK if block is None else block
    vectors = np.asarray(vectors, dtype=np.float32)
    sq_norms = np.asarray(sq_norms, dtype=np.float64)
    n, dim = vectors.shape
    partition = _Partition(n)
    alive = partition.alive
    max_norm = float(np.sqrt(sq_norms.max()))
    sq32 = sq_norms.astype(np.float32)
    cols = np.empty(0, dtype=np.int64)
    gathered = np.empty((dim + 2, 0), dtype=np.float32)
    buffer = np.empty(block * n, dtype=np.float32)  # reused for every block's distances

    while partition.n_alive > 0:
        if partition.n_alive <= k:  # the last group: every word left
            rest = np.flatnonzero(alive)
            partition.assign(rest[np.lexsort((rest, _rescored(vectors, sq_norms, rest[0], rest)))])
            break
        live = alive[cols]
        if cols.size == 0 or live.sum() < (1.0 - _COMPACT_WHEN_DEAD) * cols.size:
            cols = np.flatnonzero(alive)  # gather the live words again (row order kept)
            gathered = _gathered_columns(vectors, sq32, cols)
            live = np.ones(cols.size, dtype=bool)
        else:
            gathered[dim, ~live] = np.inf  # words assigned since the gather: never nearest again
        heads = cols[live][:block]  # the next unassigned words in row (frequency) order
        dist = buffer[:heads.size * cols.size].reshape(heads.size, cols.size)
        np.matmul(_head_rows(vectors, sq32, heads), gathered, out=dist)
        stride = max(1, cols.size // _SAMPLE_COLUMNS)
        killed: list[np.ndarray] = []  # columns assigned by earlier heads of this block
        for j, head in enumerate(heads):
            if not alive[head]:
                continue  # already in an earlier group
            if partition.n_alive <= k:
                break  # the last group is formed above
            row = dist[j]
            if killed:
                row[np.concatenate(killed)] = np.inf
            cand = _candidates(row, k, stride, _float32_error(dim, sq_norms[head], max_norm))
            rows = cols[cand]
            chosen = np.lexsort((rows, _rescored(vectors, sq_norms, head, rows)))[:k]
            partition.assign(rows[chosen])
            killed.append(cand[chosen])
    return partition.groups(k, time.perf_counter() - started)


class CusText(_ExponentialFamily):
    """CusText (Chen, Mo, Wang, Chen, Nie, Wang, Cui, Findings ACL 2023),
    GloVe/Euclidean branch with the conservative (shared output set) mapping.

    1. Mapping (`build_groups`): the vocabulary is partitioned, in frequency order, into groups
       of K words; every word's output set Y is its group (the last group has N mod K words).
    2. Scores, min–max normalised within Y from x's viewpoint:
       u(x,y) = −(d(x,y) − min_Y d(x,·))/(max_Y d(x,·) − min_Y d(x,·)) ∈ [−1, 0]; u = 0 for every
       y when max = min (all of Y at the same distance from x, e.g. a group of one word).
    3. P(y|x) = e^{eps·u(x,y)/2} / Σ_{y'∈Y} e^{eps·u(x,y')/2}; outputs outside Y have probability 0.

    Guarantee (our derivation; not checked against the paper's own definition):
    |u(x,y) − u(x',y)| ≤ 1, so P(y|x) ≤ e^{eps}·P(y|x') only for x, x' in the same group; across
    groups the supports are disjoint and nothing is guaranteed. A last group of one word always
    outputs itself.

    ``vocab_limit``: the mapping covers the first ``vocab_limit`` rows (the most frequent words;
    None = all). The default, 400,000, is the whole of the default GloVe 6B vocabulary: its
    mapping is built once per space and K on first use, in about 9 s on an idle 2-core Xeon
    (19 s with the cores shared; bench/bench_probabilities.py). The cost grows as N²/K, so larger
    spaces are capped there rather than taking minutes. Words beyond the limit are refused (the
    official code would keep them unchanged, unprotected). K = 20 is the official default
    (args.py ``top_k``).
    """

    name = "custext"
    label = "CusText (Chen et al. 2023)"
    PARAMETERS = {
        "k": Parameter(20, 1, 1000, help="Size K of each output set (official default 20); 1 <= K < N."),
        "vocab_limit": Parameter(400_000, 2, None, help="Map only this many of the most frequent words "
                                                        "(400,000 = all of GloVe 6B; the build costs ~N²/K)."),
    }

    def _set_parameters(self, *, k: int = 20, vocab_limit: int | None = 400_000) -> None:
        self.k = check_positive_int(k, "k (output set size K)", minimum=1)
        self.vocab_limit = None if vocab_limit is None else check_positive_int(vocab_limit, "vocab_limit", minimum=2)

    def _guarantee(self) -> Guarantee:
        # Chen et al. 2023 state ε-DP among the words that share an output set.
        return Guarantee(
            "pure-dp",
            f"eps-DP only within a group: P[M(x)=y] <= exp(eps) P[M(x')=y] for x, x' sharing an output "
            f"set (groups of K={self.k} words); no guarantee across groups (disjoint outputs).",
            neighbours=f"two words of the same output set (a group of K={self.k} words); words of different "
                       "groups are not protected from each other",
            epsilon=self.epsilon)

    def _mapped(self, space) -> int:
        return len(space) if self.vocab_limit is None else min(self.vocab_limit, len(space))

    def _prepare(self, space) -> None:
        n = self._mapped(space)
        if self.k >= n:
            raise ValueError(f"K = {self.k} must be smaller than the number of mapped words ({n:,}); "
                             "choose a smaller K.")

    def groups(self, space) -> CusTextGroups:
        """The mapping for ``space`` (built on first use, then cached on the space)."""
        self._prepare(space)
        n = self._mapped(space)
        return space.derived(("custext-groups", self.k, n),
                             lambda: build_groups(space.vectors[:n], space.sq_norms[:n], self.k))

    def output_set(self, space, word) -> np.ndarray:
        """Rows of the output set Y of ``word`` (its group)."""
        row = space.row(word)
        self._check_mapped(space, row)
        return self.groups(space).output_set(row)

    def _check_mapped(self, space, row):
        n = self._mapped(space)
        if row >= n:
            raise ValueError(f"{space.words[row]!r} (row {row:,}) is beyond CusText's vocabulary "
                             f"(vocab_limit = {n:,} most frequent words): raise vocab_limit.")

    def _law(self, space, row, epsilon, d):
        self._check_mapped(space, row)
        y = self.groups(space).output_set(row)
        d = d[y]
        low, high = float(d.min()), float(d.max())
        if high > low:
            u = -(d - low) / (high - low)
        else:  # every candidate equally far: no preference, uniform over Y
            u = np.zeros(d.size)
        return y, probabilities_from_log_weights(0.5 * epsilon * u)
