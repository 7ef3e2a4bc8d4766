"""The post-processing fix of the seed paper (Asghar, Carpentier, Zhao, Kaafar, PoPETs 2026,
§7 "Proposed Fix", Fig. 8; arXiv 2411.13784).

The multivariate Laplace mechanism almost never outputs a close neighbour of the input word: its
output is either the word itself (large epsilon) or a distant word (small epsilon). The fix keeps
its output only as a *pivot* x* = NN(phi(w) + Z) and then outputs the word x with

    P(x | x*) = q^r (1 - q) / (1 - q^N),   q = exp(-c·eps),   r = rank_{x*}(x),

r the rank of x among the neighbours of x* (rank 0 = x* itself, ties by row: `neighbour_ranks`),
N = |V|. The second step reads only x*, never w, so it is post-processing: the fix is exactly as
eps·d_X-private as the multivariate Laplace mechanism (Asghar et al. 2026, §7); epsilon (with c)
only shapes how far from the pivot the output goes.

Sampling (the rank law is a geometric law truncated to 0..N-1, so the N weights never need to be
written down): r is drawn by inverse CDF, and the word of rank r around x* is read from x*'s
neighbour order — only its first max(r) + 1 entries, computed once per distinct pivot
(`neighbour_order_prefixes`), never a samples x N matrix of ranks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privlib.core.mechanism import Guarantee
from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.words.mechanisms.base import Mechanism, Parameter, rows_and_epsilons
from privlib.words.mechanisms.laplace import MultivariateLaplace
from privlib.words.neighbours import DEFAULT_CLOSE, neighbour_order_prefixes, neighbour_ranks, words_at_ranks

#: Default c for GloVe 6B 50d (all 400,000 words), chosen by `calibrate_c`: the c that maximises
#: the proportion of close outputs (ranks 1..100 of the input word) at epsilon_ref = 10, the
#: epsilon at which the plain mechanism returns the input word about half the time on this
#: embedding. Run: seed 0, 1,000 uniformly drawn words, one pivot each, c on the default grid
#: (81 values, 12 % apart): best grid value 0.00501 (rounded to 0.005); close 0.545 (SE 0.014)
#: against 0.073 for the plain mechanism on the same pivots; original 0.027 (plain 0.522),
#: distant 0.428 (plain 0.405: a distant pivot cannot be repaired); every c in 0.0032..0.0089 is
#: within one SE of the best. The paper hand-picked 0.04 for GloVe 300d and 0.007 for word2vec
#: 300d: c has no universal value (it depends on the vocabulary and the epsilon range).
DEFAULT_C = 0.005

#: epsilon at which `DEFAULT_C` was calibrated (see above).
CALIBRATION_EPSILON = 10.0

#: Exponential draws above this are replaced by this value plus a fresh draw (memorylessness), so
#: the rank law has no float64 cut-off: every rank keeps a positive probability
#: (our addition, not in the paper: no legitimate output may get probability exactly 0).
_EXP_REDRAW = 30.0

#: Smallest rate a = c·eps used in arithmetic (a smaller one, e.g. from a subnormal epsilon, would
#: underflow log(1 - e^{-a}); at such rates the law is uniform to double precision anyway).
_MIN_RATE = 1e-290



# ----------------------------------------------------------------------------- the rank law
def truncated_geometric_log_pmf(n_words: int, rate: float) -> np.ndarray:
    """log P(r) for r = 0..n_words-1 of the fix's rank law, float64:

        P(r) = q^r (1 - q) / (1 - q^N),  q = e^{-rate},  rate = c·eps

    (Asghar et al. 2026, §7; the normaliser summed in closed form is our addition),
    in log space, log P(r) = -rate·r + log(1 - e^{-rate}) - log(1 - e^{-rate N}), so large ranks
    keep full relative precision instead of underflowing (our addition, not in the paper).
    """
    n_words = check_positive_int(n_words, "n_words", minimum=1)
    rate = max(float(rate), _MIN_RATE)
    r = np.arange(n_words, dtype=np.float64)
    return -rate * r + math.log(-math.expm1(-rate)) - math.log(-math.expm1(-rate * n_words))


def ranks_from_exponentials(exponentials, rates, n_words: int) -> np.ndarray:
    """Inverse CDF of the truncated geometric law, driven by E = -log V, V ~ U(0, 1]:

        r = floor( log(q^N + V (1 - q^N)) / log q ),   q = e^{-a}

    (P(r >= k) = (q^k - q^N)/(1 - q^N) = P(V <= that), so r has the law of
    `truncated_geometric_log_pmf`). Computed as r = floor(-L / a) with
    L = logaddexp(-a N, -E + log(1 - e^{-a N})): no 1 - U cancellation, so the far tail is as
    precise as the near one. Results are clipped to 0..N-1 (rounding at the very edge).
    """
    e = np.asarray(exponentials, dtype=np.float64)
    a = np.maximum(np.asarray(rates, dtype=np.float64), _MIN_RATE)
    n = float(n_words)
    log_norm = np.log(-np.expm1(-a * n))
    level = np.logaddexp(-a * n, -e + log_norm)
    r = np.floor(-level / a)
    return np.clip(r, 0, n_words - 1).astype(np.int64)


def sample_ranks(n_words: int, rates, rng=None) -> np.ndarray:
    """One rank per entry of ``rates`` (a = c·eps, scalar or array) from the truncated geometric
    law on 0..n_words-1 (`truncated_geometric_log_pmf`), by inverse CDF.

    The exponential draw E is unbounded: numpy's sampler cannot return more than about 44, which
    would cut the rank law at r ~ 44/a; draws above 30 are replaced by 30 plus a fresh draw (the
    exponential law is memoryless, so this is exact), hence no rank has probability 0 (our
    addition, not in the paper).
    """
    rng = as_generator(rng)
    rates = np.atleast_1d(np.asarray(rates, dtype=np.float64))
    e = rng.standard_exponential(rates.shape)
    offset = np.zeros_like(e)
    while (far := e > _EXP_REDRAW).any():
        offset[far] += _EXP_REDRAW
        e[far] = rng.standard_exponential(int(far.sum()))
    return ranks_from_exponentials(e + offset, rates, n_words)


# ----------------------------------------------------------------------------- the mechanism
class PostProcessingFix(Mechanism):
    """The paper's fix (§7): pivot x* = exact NN of phi(w) + Z (Z multivariate Laplace,
    `MultivariateLaplace`), then x with P(x | x*) = q^r (1 - q)/(1 - q^N), q = e^{-c·eps},
    r = rank_{x*}(x). Asghar et al. 2026, §7, Fig. 8; artifact utils/dx.py.

    ``c`` sets how far from the pivot the output strays (mean rank ~ 1/(c·eps) when that is
    << N). It has no universal value: the paper hand-picked 0.04 (GloVe 300d) and 0.007
    (word2vec 300d); the default `DEFAULT_C` is for GloVe 6B 50d, chosen by `calibrate_c`.
    The pivot's law has no closed form, so ``has_exact_probabilities`` is False; the second
    step's law is exact: `output_probabilities_given_pivot`.
    """

    name = "postprocessing-fix"
    label = "Post-processing fix (Asghar et al. 2026)"
    PARAMETERS = {
        "c": Parameter(
            DEFAULT_C, 1e-5, 10.0, label="c (rank decay around the pivot)",
            help="Rank decay: output rank r around the pivot has weight exp(-c·eps·r). Larger c stays "
                 "nearer the pivot. Default calibrated for GloVe 6B 50d; paper: 0.04 (GloVe 300d).",
        ),
    }
    has_exact_probabilities = False

    def _set_parameters(self, *, c: float = DEFAULT_C) -> None:
        spec = self.PARAMETERS["c"]
        if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)):
            raise ValueError(f"c must be a number, got {c!r}.")
        c = float(c)
        if not math.isfinite(c) or not spec.low <= c <= spec.high:
            raise ValueError(
                f"c must be a number between {spec.low:g} and {spec.high:g} (the rank decay per unit of "
                f"epsilon; default {DEFAULT_C:g} for GloVe 50d), got {c!r}."
            )
        self.c = c
        self._pivots = MultivariateLaplace.family(nearest="exact")

    def _guarantee(self) -> Guarantee:
        # the rank step reads only the pivot: post-processing of the multivariate Laplace mechanism
        return self._d_x_guarantee(
            "eps·d_X-privacy with d = Euclidean distance, as the multivariate Laplace mechanism: "
            "the rank step reads only the pivot (post-processing); m words cost m·eps.")

    # -- the post-processing step alone
    def post_process(self, space, pivots, epsilon, rng=None) -> np.ndarray:
        """The fix's second step: one output per pivot row (``epsilon`` one value or one per
        pivot), int64. Reads nothing but the pivots and the public embedding."""
        pivots, eps = rows_and_epsilons(pivots, epsilon)
        if pivots.size and (pivots.min() < 0 or pivots.max() >= len(space)):
            raise ValueError(f"Pivot rows must be between 0 and {len(space) - 1}.")
        return self._post_process(space, pivots, eps, as_generator(rng))

    def _post_process(self, space, pivots, eps, rng) -> np.ndarray:
        ranks = sample_ranks(len(space), self.c * eps, rng)
        return words_at_ranks(space, pivots, ranks)

    def output_probabilities_given_pivot(self, space, pivot, epsilon: float | None = None,
                                         log: bool = False) -> np.ndarray:
        """P(x | x*) for every row x given the pivot x* (a word or row) at ``epsilon`` (None: this
        mechanism's own), float64, exact: q^{r(x)} (1 - q)/(1 - q^N) with
        r = `neighbour_ranks`(space, pivot).rank, computed in log space (``log=True`` returns the
        logarithms, finite for every word)."""
        epsilon = self._epsilon_or_own(epsilon)
        ranks = neighbour_ranks(space, pivot).rank
        logp = truncated_geometric_log_pmf(len(space), self.c * epsilon)[ranks]
        return logp if log else np.exp(logp)

    # -- the whole mechanism
    def release_with_pivots(self, space, word, size: int = 1, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """(outputs, pivots) of ``size`` runs for ``word`` at this mechanism's ε, both int64 (size,)."""
        self._own_epsilon()
        row = space.row(word)
        size = check_positive_int(size, "size", minimum=0)
        return self._release_with_pivots(space, row, size, as_generator(rng))

    def sample_with_pivots(self, space, word, epsilon: float, size: int = 1, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """`release_with_pivots` at an explicit ε (the one-word kernel of a family)."""
        return self.with_epsilon(epsilon).release_with_pivots(space, word, size, rng)

    def _release_with_pivots(self, space, row, size, rng) -> tuple[np.ndarray, np.ndarray]:
        pivots = self._pivots.with_epsilon(self.epsilon).release(space, row, size, rng)
        return self._post_process(space, pivots, np.full(size, self.epsilon), rng), pivots

    def _release(self, space, row, size, rng) -> np.ndarray:
        return self._release_with_pivots(space, row, size, rng)[0]

    def _sample_many(self, space, rows, eps, rng) -> np.ndarray:
        """Pivots come from one batched search; each distinct pivot's neighbour order is computed once."""
        pivots = self._pivots.sample_many(space, rows, eps, rng)
        return self._post_process(space, pivots, eps, rng)


# ----------------------------------------------------------------------------- choosing c
@dataclass(frozen=True)
class Calibration:
    """What `calibrate_c` measured. Proportions are means over the input words; for each c in
    ``grid`` they are exact given the sampled pivots (only the pivots are Monte Carlo)."""

    c: float                       # the grid value with the largest close proportion
    epsilon_ref: float
    close_k: int                   # K: ranks 1..K of the input word are "close"
    words: int                     # input words drawn uniformly (seeded), without replacement
    pivots_per_word: int
    grid: np.ndarray = field(repr=False)
    original: np.ndarray = field(repr=False)  # per grid value
    close: np.ndarray = field(repr=False)
    distant: np.ndarray = field(repr=False)
    close_at_c: float = 0.0
    original_at_c: float = 0.0
    distant_at_c: float = 0.0
    standard_error: float = 0.0    # of close_at_c, over input words
    flat_range: tuple = ()         # grid values whose close proportion is within 1 SE of the best
    plain: dict = field(default_factory=dict)  # the pivots' own classes = the plain mechanism
    tail_bound: float = 0.0        # mass of ranks beyond the orders computed (counted as distant)

    def table(self) -> list[dict]:
        return [{"c": float(c), "original": float(o), "close": float(k), "distant": float(d)}
                for c, o, k, d in zip(self.grid, self.original, self.close, self.distant)]


def calibrate_c(space, epsilon_ref: float = CALIBRATION_EPSILON, words: int = 1000, close: int = DEFAULT_CLOSE,
                grid=None, pivots_per_word: int = 1, rng=0, tolerance: float = 1e-9) -> Calibration:
    """Choose the fix's c for an embedding by an explicit rule (the paper picked c by hand).

    Rule: c = the value on ``grid`` (default 81 log-spaced values from 1e-4 to 1, 12 % apart)
    that maximises the expected proportion of *close* outputs — ranks 1..K (K = ``close``,
    paper: 100) among the neighbours of the input word — at epsilon = ``epsilon_ref``, averaged
    over ``words`` input words drawn uniformly without replacement (seeded by ``rng``).
    Why this rule: the plain mechanism's failure is exactly the missing close outputs (paper §2,
    Fig. 2), and the fix can only supply them where pivots land at or near the word, i.e. from
    the transition of Fig. 2 upwards. The default epsilon_ref = 10 is where, on GloVe 6B 50d
    (all words), the plain mechanism returns the input word about half the time.

    Cheap and exact given the pivots: for each word, ``pivots_per_word`` pivots are drawn from
    the plain mechanism; then for every c the close proportion is
    sum_r P_c(r)·[word of rank r around the pivot is close to w], with the exact truncated
    geometric P_c (`truncated_geometric_log_pmf`) — no sampling of the second step, and every c is
    judged on the same pivots. Orders are computed up to the rank R beyond which every c of the
    grid has mass <= ``tolerance`` (that mass is counted as distant; reported as tail_bound).

    Result on GloVe 6B 50d, all 400,000 words (epsilon_ref = 10, 1,000 words, seed 0, 13 s on
    2 cores): c = 0.00501 with close 0.545 ± 0.014 (plain mechanism: 0.073), original 0.027
    (plain 0.522), distant 0.428 (plain 0.405); flat range 0.0032..0.0089 -> `DEFAULT_C` = 0.005.
    """
    epsilon_ref = check_epsilon(epsilon_ref)
    rng = as_generator(rng)
    n = len(space)
    words = check_positive_int(words, "words", minimum=2, maximum=n)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=n - 1)
    pivots_per_word = check_positive_int(pivots_per_word, "pivots_per_word", maximum=100)
    grid = np.geomspace(1e-4, 1.0, 81) if grid is None else np.sort(np.atleast_1d(np.asarray(grid, dtype=np.float64)))
    if grid.size == 0 or not np.all(np.isfinite(grid)) or grid.min() <= 0:
        raise ValueError("The grid of c values must hold positive finite numbers.")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance must be between 0 and 1, got {tolerance!r}.")

    rows = rng.choice(n, size=words, replace=False)
    inputs = np.repeat(rows, pivots_per_word)
    pivots = MultivariateLaplace.family().sample_many(space, inputs, epsilon_ref, rng)

    rates = grid * epsilon_ref
    length = int(min(n, math.ceil(math.log(tolerance) / -rates.min()) + 1))
    # P[r, j]: the rank law for grid value j on ranks 0..length-1
    weights = np.exp(np.stack([truncated_geometric_log_pmf(n, a)[:length] for a in rates], axis=1))
    tail_bound = float(1.0 - weights.sum(axis=0).min())

    close_sets = {}
    for i, prefix in neighbour_order_prefixes(space, rows, close + 1):
        close_sets[int(rows[i])] = np.sort(prefix[1:])
    pair_close = np.empty((inputs.size, grid.size))
    pair_orig = np.empty((inputs.size, grid.size))
    unique, inverse = np.unique(pivots, return_inverse=True)
    groups = np.split(np.argsort(inverse, kind="stable"), np.cumsum(np.bincount(inverse))[:-1])
    for g, prefix in neighbour_order_prefixes(space, unique, length):
        for pair in groups[g]:
            w = int(inputs[pair])
            is_close = np.isin(prefix, close_sets[w], assume_unique=True).astype(np.float64)
            is_orig = (prefix == w).astype(np.float64)
            pair_close[pair] = is_close @ weights[: prefix.size]
            pair_orig[pair] = is_orig @ weights[: prefix.size]
    # per input word (mean over its pivots), then over words
    per_word_close = pair_close.reshape(words, pivots_per_word, -1).mean(axis=1)
    per_word_orig = pair_orig.reshape(words, pivots_per_word, -1).mean(axis=1)
    close_mean = per_word_close.mean(axis=0)
    orig_mean = per_word_orig.mean(axis=0)
    best = int(np.argmax(close_mean))
    se = float(per_word_close[:, best].std(ddof=1) / math.sqrt(words))
    flat = grid[close_mean >= close_mean[best] - se]

    pivot_original = pivots == inputs
    pivot_close = np.array([np.isin(p, close_sets[int(w)]) for p, w in zip(pivots, inputs)], dtype=bool)
    plain = {
        "original": float(pivot_original.mean()),
        "close": float(pivot_close.mean()),
        "distant": float(1.0 - pivot_original.mean() - pivot_close.mean()),
    }
    return Calibration(
        c=float(grid[best]), epsilon_ref=epsilon_ref, close_k=close, words=words,
        pivots_per_word=pivots_per_word, grid=grid, original=orig_mean, close=close_mean,
        distant=1.0 - orig_mean - close_mean, close_at_c=float(close_mean[best]),
        original_at_c=float(orig_mean[best]), distant_at_c=float(1.0 - orig_mean[best] - close_mean[best]),
        standard_error=se, flat_range=(float(flat.min()), float(flat.max())), plain=plain,
        tail_bound=tail_bound,
    )
