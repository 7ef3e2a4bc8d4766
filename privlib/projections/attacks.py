"""What an attacker learns from a random-projection release (spec "attacks and audits" §1 and §3,
random projections; Li & Li, "Differential Privacy with Random Projections and Sign Random
Projections").

The unit of protection is ONE attribute of one vector (β-adjacency, Li & Li Def 2.3): every
mechanism here bounds telling two vectors apart that differ in one coordinate by at most β — and
nothing else. Two attacks show both sides of that promise.

* **Attribute inference (covered by the guarantee).** The attacker knows every coordinate of a
  vector but one, and tests two values β apart for it (x, "positive", and x′: the pair of
  `privlib.projections.audit.neighbouring_pair`, −β/2 and +β/2 in the attribute whose projection row
  has the largest norm, so the realised sensitivity Δ₂ is attained and the pair is the hardest one
  the guarantee covers). Its best test is the likelihood-ratio test (Neyman & Pearson 1933):
  - Gaussian releases (Raw-data-G-OPT, the DP-RP-G family, DP-OPORP): the log-likelihood ratio is
    (o − (c + c′)/2)·(c − c′)/σ², c and c′ the projections of x and x′; scaled to z = that
    score·σ/‖c − c′‖ it is N(μ_i/2, 1) under x and N(−μ_i/2, 1) under x′ with
    μ_i = ‖c − c′‖/σ = β‖W_{i,:}‖₂/(√k σ) (‖w_i‖ = 1 for OPORP), so the ROC is exactly
    G_{μ_i}(α) = Φ(Φ⁻¹(1 − α) − μ_i) (Dong, Roth & Su 2022), and μ_i = μ = Δ₂/σ for the attribute of
    the largest row norm: the guarantee's own curve is attained.
  - Sign releases (DP-SignRP-RR, DP-SignOPORP-RR, their smooth versions, the iDP ones): the bits are
    independent given the vector, with P(bit = +1) from the mechanism's exact ``plus_probabilities``;
    only the bits whose law differs between the two values carry information (for randomised
    response: those whose sign differs). Bits with the same pair of laws are grouped, the number of
    "+" bits in each group is binomial, and the product of those binomials is the pair's exact
    finite output law: its exact trade-off curve (`privlib.core.risk.FinitePairCurve`) and exact
    δ(ε′) = Σ_o (P(o | x) − e^{ε′} P(o | x′))₊.
  - DP-RP-L (Laplace noise): the log-likelihood ratio Σ_j (|o_j − c′_j| − |o_j − c_j|)/b is measured
    only (no exact curve here).
  Beside the exact curve, the attack is SIMULATED on fresh releases (``releases`` per value, seeded):
  the first half chooses the threshold of the 1 % false-positive-rate test, the second half counts
  it (held out), and gives the ROC, the AUC with its DeLong standard error, TPR at that FPR and the
  Bayes attacker's success at prior ½ (say "x" when the likelihood ratio is above 1) with binomial
  standard errors. Where the law is exact the counted rates of the chosen threshold are binomial
  around their exact values (``expected_tpr`` / ``expected_fpr``), which the tests check at 4 SE.

* **Record linkage (NOT covered by the per-attribute guarantee).** The attacker holds every original
  row of the data set (the candidates) and the public projection, sees the release of some rows
  (the targets) and links each released row to the candidate whose projection is nearest: Euclidean
  for real outputs (the maximum-likelihood match under Gaussian noise), Hamming for sign outputs
  (ties broken uniformly at random). Success is the share linked right, with its binomial standard
  error, against chance 1/n. Two rows differ in many coordinates, so the per-attribute ε does not
  bound it; the pair's OWN guarantee is shown instead: μ_uv = ‖Wᵀ(u − v)‖₂/(√k σ) for the Gaussian
  releases, ε‖Wᵀ(u − v)‖₁/(√k Δ₁) for DP-RP-L, and for signs the exact pure loss
  Σ_j max(|ln(a_j/b_j)|, |ln((1 − a_j)/(1 − b_j))|) of the bit laws a, b of u and v (at most Σ_j ε′_j:
  kε/N₊ for DP-SignRP-RR, Alg 6) — for each target against its nearest other candidate (the pair
  hardest to tell apart), as a median over targets.

* **Over an ε grid** (`attack_curves`): the guarantee's bound on the attribute attacker's success at
  prior ½ (its `guessing_chance`), the exact success (or the simulated one for DP-RP-L) and the
  measured linkage with its standard errors; `largest_epsilon_under` answers "the largest ε of the
  grid that keeps the attack under a target", by the bound and — separately — by the measurement
  (±2 SE).

* **Cost** (`attack_seconds`): the work is counted (values drawn, multiply-adds, scored pairs) at
  rates measured once on the project's 2-core machine; work above the long-work limit
  (`privlib.core.validation.long_work_limit`) is refused unless ``allow_long``.

Draws: the attribute attack's releases from ``child_rng(seed, "rp-attribute", name, ε, side)``, the
linkage targets from ``child_rng(seed, "rp-linkage-targets", n)`` and its releases and tie-breaks
from ``child_rng(seed, "rp-linkage", name, ε)``; the public projection from the mechanism's own
``seed`` parameter (``parameters``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from privlib.core.mechanism import Guarantee
from privlib.core.risk import FinitePairCurve, GDPCurve, TradeoffCurve, tradeoff_curve
from privlib.core.risk import largest_epsilon_under as largest_epsilon_under_grid
from privlib.core.statistics import binomial_standard_error
from privlib.core.sweep import Progress, SweepResult, child_rng
from privlib.core.validation import (
    check_epsilons,
    check_positive_int,
    check_probability,
    check_seed,
    refuse_long_work,
)
from privlib.projections.audit import likelihood_score, neighbouring_pair
from privlib.projections.datasets import Dataset, load_dataset
from privlib.projections.mechanisms import (
    DPRPL,
    MECHANISMS,
    DPSignRPRR,
    GaussianNoiseMechanism,
    ProjectionMechanism,
    SignMechanism,
    make_mechanism,
)
from privlib.projections.sweep import DEFAULT_EPSILONS  # the ε grid of success against ε: the retrieval sweep's

#: Releases per value of the simulated attribute attack (half choose the threshold, half are counted).
DEFAULT_RELEASES = 10_000
#: The false-positive rate of the reported test (TPR at 1 % FPR).
TARGET_FPR = 0.01
#: The attribute attacker's prior on the two values (the baseline: guessing gets 50 %).
PRIOR = 0.5
#: Released rows (targets) of the linkage attack; every row of the data set is a candidate.
DEFAULT_TARGETS = 2000
#: Targets whose pair guarantees (against every candidate) are computed for the median shown.
PAIR_TARGETS = 200
#: Default attack success the user accepts (the target of `largest_epsilon_under`), for attribute inference.
DEFAULT_TARGET = 0.6
#: Standard errors on either side of a measured value ("± 2 SE").
INTERVAL_Z = 2.0
#: The most outcomes of a sign pair's exact law (the product of the groups' binomials).
MAX_OUTCOMES = 2_000_000
#: The most released values held at once while simulating (memory: 8 bytes each).
CHUNK_VALUES = 4_000_000
#: The most columns (bits × distinct bit laws) of the sign pair losses' indicator product (its lookup
#: table holds that many values per candidate).
INDICATOR_COLUMNS = 2048
#: Points of a measured ROC kept for charts and JSON.
ROC_POINTS = 300
#: The attacks of `attack_curves` and `largest_epsilon_under`.
ATTACKS = ("attribute", "linkage")


# ---------------------------------------------------------------------------------------------
# cost


@dataclass(frozen=True)
class Rates:
    """Seconds per unit of work on the project's 2-core machine (measured once with
    bench/bench_rp_attacks.py; rough, enough to tell seconds from minutes): a released value (noise or
    coins, scoring it), a multiply-add (projections and nearest-candidate scores, BLAS), a scored
    (target, candidate) pair (argmax, tie-breaks), an element of a pair-guarantee comparison (L1 and
    the sign losses are elementwise), and the fixed cost of one call (checks, public parameters)."""

    seconds_per_value: float = 60e-9
    seconds_per_multiply_add: float = 0.4e-9
    seconds_per_pair: float = 15e-9
    seconds_per_pair_element: float = 12e-9
    seconds_per_call: float = 5e-3


#: The rates measured on the project's machine.
MEASURED = Rates()


def _width(mechanism: ProjectionMechanism, p: int) -> int:
    return p if mechanism.kind is None else mechanism.k


def attack_seconds(name: str, *, p: int, k: int, epsilons: int = 1, releases: int = DEFAULT_RELEASES,
                   candidates: int = 0, targets: int = 0, rates: Rates = MEASURED) -> float:
    """Estimated seconds of the attacks on mechanism ``name`` at ``epsilons`` values of ε: the attribute
    attack with ``releases`` per value (0: not run) and the linkage of ``targets`` released rows among
    ``candidates`` (0: not run), for p-dimensional data projected to k values (Raw-data-G-OPT releases
    p). Counts the values drawn, the multiply-adds and the scored pairs (module docstring)."""
    p = check_positive_int(p, "p (the data dimension)")
    k = check_positive_int(k, "k (the number of projections)")
    epsilons = check_positive_int(epsilons, "epsilons (the number of ε values)")
    width = p if name == "raw-data-g-opt" else k
    seconds = epsilons * rates.seconds_per_call  # the mechanism, its public parameters and the exact curve per ε
    if releases:
        seconds += epsilons * (2 * releases * width * rates.seconds_per_value + 4 * rates.seconds_per_call)
    if candidates and targets:
        pairs = float(candidates) * min(targets, candidates)
        projection = 0.0 if name == "raw-data-g-opt" else candidates * p * k * rates.seconds_per_multiply_add
        per_epsilon = (pairs * (width * rates.seconds_per_multiply_add + rates.seconds_per_pair)
                       + targets * width * rates.seconds_per_value + rates.seconds_per_call)
        guarantees = float(min(PAIR_TARGETS, targets)) * candidates * width * rates.seconds_per_pair_element
        seconds += projection + epsilons * (per_epsilon + guarantees)
    return seconds


def attack_nbytes(name: str, *, p: int, k: int, candidates: int = 0, targets: int = 0) -> float:
    """Estimated peak bytes of the attacks' arrays (float64): the public projection (p·k), the
    candidates' projections and originals, a chunk of released values (`CHUNK_VALUES`, twice: the
    release and its projection), one block of nearest-candidate scores (512 targets) and the pair
    guarantees of `PAIR_TARGETS` targets (with the sign losses' indicator product). A float, so that
    absurd sizes cannot overflow."""
    width = float(p) if name == "raw-data-g-opt" else float(k)
    rows = float(candidates)
    kept = float(p) * k + rows * (width + p)
    pairs = 512.0 * rows + 3.0 * min(PAIR_TARGETS, targets or PAIR_TARGETS) * rows
    signs = INDICATOR_COLUMNS * rows * 2 if MECHANISMS.get(name, ProjectionMechanism).output == "sign" else 0.0
    return 8.0 * (kept + 2 * CHUNK_VALUES + pairs + signs)


#: How to make an attack smaller, in its refusal of long work (`refuse_long_work`).
SMALLER = "use fewer releases, targets or ε values"


# ---------------------------------------------------------------------------------------------
# measured ROC


def auc_with_standard_error(scores_x: np.ndarray, scores_y: np.ndarray) -> tuple[float, float]:
    """The area under the ROC of "say x when the score is high" — the Mann–Whitney statistic
    P(S_x > S_y) + ½P(S_x = S_y) — and its DeLong standard error (DeLong, DeLong & Clarke-Pearson
    1988: the variances of the placement values V10_i = share of y-scores below x_i, ties ½, and V01_j
    = share of x-scores above y_j, over n_x and n_y). The placements are counted by binary search in
    the sorted scores (ties ½; infinite scores are ordinary values): the same numbers as the midranks
    of ``scipy.stats.rankdata`` (a midrank in both samples minus that in its own is the count below
    plus half the ties), without importing scipy.stats."""
    n_x, n_y = scores_x.size, scores_y.size
    sorted_x, sorted_y = np.sort(scores_x), np.sort(scores_y)
    if np.isnan(sorted_x[-1]) or np.isnan(sorted_y[-1]):  # sorted last: a NaN score makes the AUC NaN, as midranks do
        return math.nan, math.nan
    v10 = (np.searchsorted(sorted_y, scores_x, side="left") + np.searchsorted(sorted_y, scores_x, side="right")) \
        / 2.0 / n_y
    v01 = 1.0 - (np.searchsorted(sorted_x, scores_y, side="left") + np.searchsorted(sorted_x, scores_y, side="right")) \
        / 2.0 / n_x
    auc = float(v10.mean())
    variance = v10.var(ddof=1) / n_x + v01.var(ddof=1) / n_y
    return auc, float(math.sqrt(max(variance, 0.0)))


def roc_curve(scores_x: np.ndarray, scores_y: np.ndarray, points: int = ROC_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of the tests "say x when score ≥ t" over thresholds t at every distinct score when
    they are few, else at ranks of the x′ scores dense in both tails (geometric) and even in between,
    from (0, 0) to (1, 1)."""
    values = np.unique(np.concatenate([scores_x, scores_y]))
    if values.size > points:
        ordered = np.sort(scores_y)
        count = ordered.size
        ends = np.unique(np.round(np.geomspace(1, count, points // 3)).astype(np.int64) - 1)
        ranks = np.unique(np.concatenate([ends, count - 1 - ends,
                                          np.round(np.linspace(0, count - 1, points // 3)).astype(np.int64)]))
        values = np.unique(ordered[ranks])
    sorted_x, sorted_y = np.sort(scores_x), np.sort(scores_y)
    tpr = 1.0 - np.searchsorted(sorted_x, values, side="left") / sorted_x.size
    fpr = 1.0 - np.searchsorted(sorted_y, values, side="left") / sorted_y.size
    fpr = np.concatenate([[0.0], fpr[::-1], [1.0]])
    tpr = np.concatenate([[0.0], tpr[::-1], [1.0]])
    return fpr, tpr


def threshold_at_fpr(scores_y: np.ndarray, candidates: np.ndarray, target: float) -> float:
    """The smallest of ``candidates`` (and +∞) whose test "score ≥ t" has FPR at most ``target`` on the
    x′ scores ``scores_y`` (the most powerful such test among them)."""
    values = np.unique(np.concatenate([candidates, [np.inf]]))
    sorted_y = np.sort(scores_y)
    fpr = 1.0 - np.searchsorted(sorted_y, values, side="left") / sorted_y.size
    allowed = values[fpr <= target]
    return float(allowed.min())


@dataclass(frozen=True, eq=False)
class MeasuredAttack:
    """The simulated likelihood-ratio attack on one pair (held out): ``releases`` per value, the first
    ``selected`` choose the threshold of the `TARGET_FPR` test, the last ``counted`` are counted.

    ``fpr``, ``tpr``: its ROC on the counted releases; ``auc`` and its DeLong standard error;
    ``threshold`` (on the score: the log-likelihood ratio, or z for the Gaussian releases), ``tpr_at``
    and ``fpr_at`` its counted rates with binomial standard errors and, where the law is exact, their
    exact values ``expected_tpr`` / ``expected_fpr``; ``success``: the Bayes attacker at prior ½ (says
    x when the ratio is above 1, a tie counts ½) on the counted releases, with its standard error."""

    releases: int
    selected: int
    counted: int
    fpr: np.ndarray
    tpr: np.ndarray
    auc: float
    auc_standard_error: float
    threshold: float
    tpr_at: float
    fpr_at: float
    tpr_at_standard_error: float
    fpr_at_standard_error: float
    expected_tpr: float | None
    expected_fpr: float | None
    success: float
    success_standard_error: float

    def to_dict(self) -> dict:
        return {"releases": self.releases, "selected": self.selected, "counted": self.counted,
                "target_fpr": TARGET_FPR, "threshold": _finite(self.threshold), "tpr_at": self.tpr_at,
                "tpr_at_standard_error": self.tpr_at_standard_error, "fpr_at": self.fpr_at,
                "fpr_at_standard_error": self.fpr_at_standard_error, "expected_tpr": self.expected_tpr,
                "expected_fpr": self.expected_fpr, "auc": self.auc, "auc_standard_error": self.auc_standard_error,
                "success": self.success, "success_standard_error": self.success_standard_error,
                "roc": {"fpr": self.fpr.tolist(), "tpr": self.tpr.tolist()}}


def _finite(value):
    """A number for strict JSON: None for ±∞ and NaN."""
    return None if value is None or not math.isfinite(value) else float(value)


def measure(scores_x: np.ndarray, scores_y: np.ndarray, exact_rates=None) -> MeasuredAttack:
    """`MeasuredAttack` of the scores of x's and x′'s releases (larger: more like x; the log-likelihood
    ratio, so 0 is the Bayes threshold at prior ½). ``exact_rates(t)``: the exact (TPR, FPR) of
    "score ≥ t", where known."""
    releases = scores_x.size
    selected = releases // 2
    counted = releases - selected
    threshold = threshold_at_fpr(scores_y[:selected], np.concatenate([scores_x[:selected], scores_y[:selected]]),
                                 TARGET_FPR)
    held_x, held_y = scores_x[selected:], scores_y[selected:]
    tpr_at = float(np.mean(held_x >= threshold))
    fpr_at = float(np.mean(held_y >= threshold))
    fpr, tpr = roc_curve(held_x, held_y)
    auc, auc_se = auc_with_standard_error(held_x, held_y)
    right = (np.sum(held_x > 0) + 0.5 * np.sum(held_x == 0) + np.sum(held_y < 0) + 0.5 * np.sum(held_y == 0))
    success = float(right / (2 * counted))
    expected = exact_rates(threshold) if exact_rates is not None else (None, None)
    return MeasuredAttack(
        releases, selected, counted, fpr, tpr, auc, auc_se, threshold, tpr_at, fpr_at,
        float(binomial_standard_error(tpr_at, counted)), float(binomial_standard_error(fpr_at, counted)),
        None if expected[0] is None else float(expected[0]), None if expected[1] is None else float(expected[1]),
        success, float(binomial_standard_error(success, 2 * counted)))


# ---------------------------------------------------------------------------------------------
# the exact law of a sign pair


@dataclass(frozen=True, eq=False)
class SignPairLaw:
    """The exact law of the informative bits of a sign release under x and x′ (module docstring):
    bits whose pair of laws (a_j, b_j) = (P(+1 | x), P(+1 | x′)) is the same form a group (a bit with
    a_j < b_j counts its "−1" as "+", so that a ≥ b in every group); the counts of "+" per group are
    independent binomials. ``bits``: the informative bits (indices), ``flipped``: those counted by
    "−1", ``groups``: the group of each informative bit, ``a``/``b``/``sizes`` per group;
    ``p``/``q``: the joint law of the counts (ravelled, C order over ``sizes`` + 1) under x and x′;
    ``log_ratio``: ln p/q per outcome (the likelihood-ratio test's score)."""

    bits: np.ndarray
    flipped: np.ndarray
    groups: np.ndarray
    a: np.ndarray
    b: np.ndarray
    sizes: np.ndarray
    p: np.ndarray
    q: np.ndarray
    log_ratio: np.ndarray

    @property
    def curve(self) -> FinitePairCurve:
        """The pair's exact trade-off curve (x positive)."""
        return FinitePairCurve(self.p, self.q)

    def outcomes(self, outputs: np.ndarray) -> np.ndarray:
        """The outcome index (into ``p``/``q``) of each released row of ±1 bits."""
        bits = np.asarray(outputs)[:, self.bits]
        plus = np.where(self.flipped, bits < 0, bits > 0)
        counts = np.zeros((bits.shape[0], self.sizes.size), dtype=np.int64)
        for g in range(self.sizes.size):
            counts[:, g] = plus[:, self.groups == g].sum(axis=1)
        if not self.sizes.size:
            return np.zeros(bits.shape[0], dtype=np.int64)
        return np.ravel_multi_index(tuple(counts.T), tuple(self.sizes + 1))

    def rates(self, threshold: float) -> tuple[float, float]:
        """The exact (TPR, FPR) of "say x when ln p/q ≥ threshold"."""
        says_x = self.log_ratio >= threshold
        return float(self.p[says_x].sum()), float(self.q[says_x].sum())


def sign_pair_law(plus_x, plus_y) -> SignPairLaw:
    """`SignPairLaw` of independent bits with P(+1) = ``plus_x`` under x and ``plus_y`` under x′ (each
    a vector over the k bits). Exact: the joint law is the product of each group's binomial
    Bin(m_g, a_g) against Bin(m_g, b_g) (a sufficient statistic of the bits: the likelihood ratio
    depends on them only through the counts)."""
    a_all, b_all = np.asarray(plus_x, dtype=np.float64), np.asarray(plus_y, dtype=np.float64)
    bits = np.flatnonzero(a_all != b_all)
    a, b = a_all[bits], b_all[bits]
    flipped = a < b
    a, b = np.where(flipped, 1.0 - a, a), np.where(flipped, 1.0 - b, b)
    pairs, groups = np.unique(np.stack([a, b], axis=1), axis=0, return_inverse=True) if bits.size else \
        (np.empty((0, 2)), np.empty(0, dtype=np.int64))
    groups = np.asarray(groups).reshape(-1)
    sizes = np.bincount(groups, minlength=pairs.shape[0]).astype(np.int64)
    outcomes = float(np.prod(sizes + 1.0))
    if outcomes > MAX_OUTCOMES:
        raise ValueError(f"The sign pair's exact law has {outcomes:.3g} outcomes (more than {MAX_OUTCOMES:,}): "
                         "use fewer projections k.")
    # imported here: scipy.stats takes about half a second to import, and a page's first view needs none of it
    from scipy.stats import binom

    p, q = np.ones(1), np.ones(1)
    for (a_g, b_g), m in zip(pairs, sizes):
        counts = np.arange(m + 1)
        p = np.multiply.outer(p, binom.pmf(counts, m, a_g)).reshape(-1)
        q = np.multiply.outer(q, binom.pmf(counts, m, b_g)).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.where((p > 0) | (q > 0), np.log(p) - np.log(q), 0.0)
    return SignPairLaw(bits, flipped, groups, pairs[:, 0] if pairs.size else np.empty(0),
                       pairs[:, 1] if pairs.size else np.empty(0), sizes, p, q, log_ratio)


# ---------------------------------------------------------------------------------------------
# attribute inference


def _mechanism(name: str, epsilon: float, delta, p: int, parameters: Mapping | None) -> ProjectionMechanism:
    parameters = dict(parameters or {})
    if "p" in parameters and parameters["p"] != p:
        raise ValueError(f"parameters give p = {parameters['p']!r} but the data has p = {p}: drop p from parameters.")
    parameters["p"] = p
    return make_mechanism(name, epsilon=epsilon, delta=delta, **parameters)


def attribute_pair(mechanism: ProjectionMechanism, p: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(x, x′, i): `neighbouring_pair` (−β/2 and +β/2 in the attribute i of the largest projection row
    norm), or a ValueError when β/2 is too small to be told from 0 in floating point."""
    x, y = neighbouring_pair(mechanism, p)
    differ = np.flatnonzero(x != y)
    if not differ.size:
        raise ValueError(f"beta = {mechanism.beta:g} is too small: the two values ±beta/2 are both 0 in floating "
                         "point; use a larger beta (e.g. 1).")
    return x, y, int(differ[0])


def _needs_rows(mechanism: ProjectionMechanism) -> bool:
    """Whether releasing from projected rows needs the original rows too (DP-SignRP-RR's norm bound m > 0)."""
    return isinstance(mechanism, DPSignRPRR) and mechanism.m > 0


def _draw(mechanism: ProjectionMechanism, vector: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` releases of ``vector`` (from its projection, drawn once), in chunks of at most
    `CHUNK_VALUES` values, concatenated."""
    projected = mechanism.project(vector[None])
    chunk = max(1, CHUNK_VALUES // max(projected.shape[1], vector.size if _needs_rows(mechanism) else 1))
    parts = []
    for start in range(0, size, chunk):
        rows = min(chunk, size - start)
        original = np.repeat(vector[None], rows, axis=0) if _needs_rows(mechanism) else None
        parts.append(mechanism.release_projected(np.repeat(projected, rows, axis=0), rng, X=original).values)
    return np.concatenate(parts, axis=0)


@dataclass(frozen=True, eq=False)
class AttributeInference:
    """The attribute attack on one mechanism at one ε (module docstring): the attribute ``attribute``
    of p, its two values β apart, the guarantee (``guarantee``, its curve ``bound``, None without a
    guarantee), the pair's exact curve (``exact``: G_{μ_i} for the Gaussian releases, the finite
    pair's curve for signs, None for DP-RP-L), ``mu`` (μ_i, Gaussian releases only),
    ``informative_bits`` (sign releases only) and the simulated attack ``measured``."""

    mechanism: str
    label: str
    epsilon: float
    delta: float | None
    beta: float
    k: int
    p: int
    attribute: int
    guarantee: Guarantee
    bound: TradeoffCurve | None
    exact: TradeoffCurve | None
    mu: float | None
    informative_bits: int | None
    measured: MeasuredAttack
    seed: int

    @property
    def bound_success(self) -> float | None:
        """The guarantee's limit on guessing the value right at prior ½ (None: no guarantee)."""
        return None if self.bound is None else self.bound.guessing_chance(PRIOR)

    @property
    def exact_success(self) -> float | None:
        """The best attacker's chance at prior ½ from the exact curve (None where there is none)."""
        return None if self.exact is None else self.exact.guessing_chance(PRIOR)

    @property
    def exact_auc(self) -> float | None:
        """The exact curve's AUC: Φ(μ/√2) for G_μ, the area under the finite pair's vertices."""
        if self.exact is None:
            return None
        if isinstance(self.exact, GDPCurve):
            return float(ndtr(self.exact.mu / math.sqrt(2.0)))
        fpr, fnr = self.exact.vertices
        tpr = 1.0 - fnr
        return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))

    @property
    def sentence(self) -> str:
        return attribute_sentence(self)

    def to_dict(self) -> dict:
        exact_tpr = None if self.exact is None else float(self.exact.tpr(TARGET_FPR))
        bound_tpr = None if self.bound is None else float(self.bound.tpr(TARGET_FPR))
        return {"attack": "attribute inference", "mechanism": self.mechanism, "label": self.label,
                "epsilon": self.epsilon, "delta": self.delta, "beta": self.beta, "k": self.k, "p": self.p,
                "attribute": self.attribute, "guarantee": self.guarantee.to_dict(),
                "bound": None if self.bound is None else self.bound.label,
                "exact": None if self.exact is None else self.exact.label, "mu": self.mu,
                "informative_bits": self.informative_bits, "prior": PRIOR, "bound_success": self.bound_success,
                "exact_success": self.exact_success, "exact_auc": self.exact_auc,
                "bound_tpr_at_target_fpr": bound_tpr, "exact_tpr_at_target_fpr": exact_tpr,
                "measured": self.measured.to_dict(), "seed": self.seed, "sentence": self.sentence}


def attribute_inference(name: str, *, epsilon: float, delta: float | None = None, p: int,
                        releases: int = DEFAULT_RELEASES, seed=0, parameters: Mapping | None = None,
                        progress: Progress | None = None, allow_long: bool = False) -> AttributeInference:
    """The attribute attack (module docstring) on mechanism ``name`` of `MECHANISMS` at ``epsilon``
    (``delta`` for the (ε, δ) mechanisms; ``parameters``: its ``PARAMETERS`` — β, k, the projection's
    public ``seed``, t, m, …) for p-dimensional data, simulated with ``releases`` per value from
    ``seed``. ``progress(fraction, message)``; refused above the long-work limit unless
    ``allow_long``."""
    seed = check_seed(seed)
    releases = check_positive_int(releases, "releases (per value)", minimum=20, maximum=10**8)
    p = check_positive_int(p, "p (the data dimension)")
    mechanism = _mechanism(name, epsilon, delta, p, parameters)
    refuse_long_work(attack_seconds(name, p=p, k=mechanism.k, releases=releases), allow_long,
                     "The attribute attack", SMALLER)
    report = progress or (lambda fraction, message: None)
    report(0.0, f"{mechanism.label}: {2 * releases:,} releases")
    x, y, attribute = attribute_pair(mechanism, p)
    guarantee = mechanism.guarantee
    mu = informative = None
    exact_rates = None
    if isinstance(mechanism, GaussianNoiseMechanism):
        sigma = mechanism.public_parameters(p)["sigma"]
        centre_x, centre_y = mechanism.project(x[None])[0], mechanism.project(y[None])[0]
        difference, middle = centre_x - centre_y, (centre_x + centre_y) / 2
        # ‖c − c′‖ scaled first: for a tiny β its square underflows to 0 and the unscaled norm would be 0
        largest = float(np.max(np.abs(difference)))
        norm = largest * float(np.linalg.norm(difference / largest)) if largest > 0 else 0.0
        if not norm > 0:
            raise ValueError(f"beta = {mechanism.beta:g} is too small: the pair's projections are equal in floating "
                             "point; use a larger beta (e.g. 1).")
        mu = norm / sigma
        exact = GDPCurve(mu)
        direction = difference / norm

        def score(outputs):  # z = log-likelihood ratio · σ/‖c − c′‖: N(±μ/2, 1)
            return (outputs - middle) @ direction / sigma

        def exact_rates(t):
            return float(ndtr(mu / 2 - t)), float(ndtr(-mu / 2 - t))
    elif isinstance(mechanism, SignMechanism):
        plus_x = mechanism.plus_probabilities(mechanism.project(x[None]), x[None])[0]
        plus_y = mechanism.plus_probabilities(mechanism.project(y[None]), y[None])[0]
        law = sign_pair_law(plus_x, plus_y)
        exact = law.curve
        informative = int(law.bits.size)

        def score(outputs):
            return law.log_ratio[law.outcomes(outputs)]

        exact_rates = law.rates
    else:  # DP-RP-L: Σ_j |o_j − c′_j| − |o_j − c_j| over the Laplace scale b is the log-likelihood ratio
        exact = None
        scale = mechanism.public_parameters(p)["laplace_scale"]
        raw = likelihood_score(mechanism, x, y)

        def score(outputs):
            return raw(outputs) / scale
    scores = []
    for side, vector in enumerate((x, y)):
        rng = child_rng(seed, "rp-attribute", mechanism.name, float(mechanism.epsilon), side)
        scores.append(score(_draw(mechanism, vector, releases, rng)))
        report(0.45 * (side + 1), f"{mechanism.label}: {(side + 1) * releases:,} of {2 * releases:,} releases")
    measured = measure(scores[0], scores[1], exact_rates)
    report(1.0, f"{mechanism.label}: done")
    return AttributeInference(mechanism.name, mechanism.label, float(mechanism.epsilon), mechanism.delta,
                              mechanism.beta, mechanism.k, p, attribute, guarantee, tradeoff_curve(guarantee), exact,
                              mu, informative, measured, seed)


# ---------------------------------------------------------------------------------------------
# record linkage


def _dataset(data) -> Dataset:
    return data if isinstance(data, Dataset) else load_dataset(data)


def candidate_rows(data) -> np.ndarray:
    """Every row of the data set (database, then queries): the linkage attacker's candidates."""
    data = _dataset(data)
    return np.concatenate([data.X, data.Q], axis=0)


def target_rows(count: int, targets: int, seed) -> np.ndarray:
    """The released rows: ``targets`` of the ``count`` candidates drawn without replacement from
    ``child_rng(seed, "rp-linkage-targets", count)`` (all of them when there are no more), sorted."""
    if targets >= count:
        return np.arange(count)
    return np.sort(child_rng(seed, "rp-linkage-targets", count).choice(count, size=targets, replace=False))


def nearest_candidates(released: np.ndarray, projected: np.ndarray, sign: bool, rng: np.random.Generator,
                       chunk: int = 512) -> np.ndarray:
    """The index of the candidate nearest to each released row: the largest o·c − ‖c‖²/2 (Euclidean)
    for real outputs; for signs the largest o·sgn(c) (Hamming distance (k − o·sgn(c))/2, a zero
    projection counting half), ties broken uniformly at random (a uniform jitter below the integer
    step)."""
    if sign:
        reference = np.sign(projected)
        offset = 0.0
    else:
        reference = projected
        offset = 0.5 * np.einsum("ij,ij->i", projected, projected)
    found = np.empty(released.shape[0], dtype=np.int64)
    for start in range(0, released.shape[0], chunk):
        scores = released[start:start + chunk].astype(np.float64) @ reference.T - offset
        if sign:
            scores += 0.5 * rng.random(scores.shape)
        found[start:start + chunk] = np.argmax(scores, axis=1)
    return found


def pair_losses(mechanism: ProjectionMechanism, projected_u: np.ndarray, projected: np.ndarray,
                rows_u: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
    """The pair's own guarantee between each row u of ``projected_u`` and each candidate of
    ``projected`` (a (len u, n) array): μ_uv = ‖c_u − c_v‖₂/σ (Gaussian releases), the ε-DP loss
    ‖c_u − c_v‖₁/b (DP-RP-L, b = Δ₁/ε) or, for signs, the exact loss of the product of bit laws
    Σ_j max(|ln a_j/b_j|, |ln (1 − a_j)/(1 − b_j)|) (∞ where one law has a certain bit the other can
    flip). ``rows_u``/``rows``: the original rows (DP-SignRP-RR with m > 0 checks them)."""
    public = mechanism.public_parameters(mechanism.p)
    if isinstance(mechanism, GaussianNoiseMechanism):
        squared = (np.einsum("ij,ij->i", projected_u, projected_u)[:, None]
                   + np.einsum("ij,ij->i", projected, projected)[None, :] - 2.0 * projected_u @ projected.T)
        return np.sqrt(np.maximum(squared, 0.0)) / public["sigma"]
    if isinstance(mechanism, DPRPL):
        return np.stack([np.abs(row - projected).sum(axis=1) for row in projected_u]) / public["laplace_scale"]
    plus_u = mechanism.plus_probabilities(projected_u, rows_u)
    plus = mechanism.plus_probabilities(projected, rows)
    # a bit's law takes few values (keep/flip levels): with the table T[s, t] of the loss between the
    # s-th and t-th value, Σ_j T[code_u_j, code_v_j] is one product of indicators (BLAS), and the
    # infinite entries (a certain bit against one that can flip) are counted by a second product
    levels, codes = np.unique(np.concatenate([plus_u, plus]), return_inverse=True)
    codes = codes.reshape(-1, plus.shape[1])
    codes_u, codes_v = codes[:plus_u.shape[0]], codes[plus_u.shape[0]:]
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.abs(np.log(levels)[:, None] - np.log(levels)[None, :])
        down = np.abs(np.log1p(-levels)[:, None] - np.log1p(-levels)[None, :])
    table = np.maximum(np.nan_to_num(up, nan=0.0, posinf=np.inf), np.nan_to_num(down, nan=0.0, posinf=np.inf))
    np.fill_diagonal(table, 0.0)
    bits, count = plus.shape[1], levels.size
    if count * bits > INDICATOR_COLUMNS:  # too many distinct levels for the indicator product: bit by bit
        out = np.zeros((plus_u.shape[0], plus.shape[0]))
        for j in range(bits):
            out += table[codes_u[:, j][:, None], codes_v[:, j][None, :]]
        return out
    indicator = np.zeros((plus_u.shape[0], bits * count))
    indicator[np.arange(plus_u.shape[0])[:, None], np.arange(bits)[None, :] * count + codes_u] = 1.0
    finite = np.where(np.isfinite(table), table, 0.0)
    lookup = finite[:, codes_v].transpose(2, 0, 1).reshape(bits * count, -1)  # [(j, s), v] = T[s, code_v_j]
    infinite = np.isinf(table).astype(np.float64)[:, codes_v].transpose(2, 0, 1).reshape(bits * count, -1)
    return np.where(indicator @ infinite > 0, np.inf, indicator @ lookup)


@dataclass(frozen=True, eq=False)
class Linkage:
    """The linkage attack on one mechanism at one ε: ``targets`` released rows among ``candidates``,
    ``hits`` linked right; ``pair_nearest``: the median over the first `PAIR_TARGETS` targets of the
    pair's own guarantee against the target's nearest other candidate (μ_uv for the Gaussian
    releases, an ε_uv otherwise: ``pair_kind`` "gdp" or "pure-dp"; None where it is unbounded) and
    ``pair_median`` over all their pairs; ``guarantee``: the per-attribute guarantee, which does not
    cover linkage."""

    mechanism: str
    label: str
    epsilon: float
    dataset: str
    candidates: int
    targets: int
    hits: int
    pair_kind: str
    pair_nearest: float | None
    pair_median: float | None
    guarantee: Guarantee
    seed: int

    @property
    def success(self) -> float:
        return self.hits / self.targets

    @property
    def standard_error(self) -> float:
        return float(binomial_standard_error(self.success, self.targets))

    @property
    def chance(self) -> float:
        """Naming a candidate without seeing anything: 1/n."""
        return 1.0 / self.candidates

    @property
    def sentence(self) -> str:
        return linkage_sentence(self)

    def to_dict(self) -> dict:
        return {"attack": "record linkage", "mechanism": self.mechanism, "label": self.label,
                "epsilon": self.epsilon, "dataset": self.dataset, "candidates": self.candidates,
                "targets": self.targets, "hits": self.hits, "success": self.success,
                "standard_error": self.standard_error, "chance": self.chance, "covered": False,
                "pair_guarantee": {"kind": self.pair_kind, "nearest_median": self.pair_nearest,
                                   "median": self.pair_median},
                "guarantee": self.guarantee.to_dict(), "seed": self.seed, "sentence": self.sentence}


class _LinkageSetup:
    """What every ε of one linkage shares: the data, the candidates' projection (public), the targets."""

    def __init__(self, name, data, delta, targets, seed, parameters):
        self.data = _dataset(data)
        self.rows = candidate_rows(self.data)
        self.seed = check_seed(seed)
        targets = check_positive_int(targets, "targets (released rows)", maximum=10**8)
        self.targets = target_rows(self.rows.shape[0], targets, self.seed)
        self.name, self.delta, self.parameters = name, delta, dict(parameters or {})
        self.projected = None

    def mechanism(self, epsilon) -> ProjectionMechanism:
        mechanism = _mechanism(self.name, epsilon, self.delta, self.data.p, self.parameters)
        if self.projected is None:
            self.projected = mechanism.project(self.rows)  # the public projection: the same at every ε
        return mechanism

    def run(self, epsilon) -> Linkage:
        mechanism = self.mechanism(epsilon)
        rng = child_rng(self.seed, "rp-linkage", mechanism.name, float(mechanism.epsilon))
        original = self.rows[self.targets] if _needs_rows(mechanism) else None
        released = mechanism.release_projected(self.projected[self.targets], rng, X=original).values
        found = nearest_candidates(released, self.projected, isinstance(mechanism, SignMechanism), rng)
        hits = int(np.count_nonzero(found == self.targets))
        first = self.targets[:PAIR_TARGETS]
        losses = pair_losses(mechanism, self.projected[first], self.projected, self.rows[first], self.rows)
        other = np.arange(losses.shape[1])[None, :] != first[:, None]  # a row against itself is no pair
        with np.errstate(over="ignore", invalid="ignore"):  # a median between two infinite losses is ∞
            nearest = float(np.median(np.where(other, losses, np.inf).min(axis=1))) if losses.shape[1] > 1 else math.inf
            median = float(np.median(losses[other])) if losses.shape[1] > 1 else math.inf
        kind = "gdp" if isinstance(mechanism, GaussianNoiseMechanism) else "pure-dp"
        return Linkage(mechanism.name, mechanism.label, float(mechanism.epsilon), self.data.name,
                       int(self.rows.shape[0]), int(self.targets.size), hits, kind, _finite(nearest), _finite(median),
                       mechanism.guarantee, self.seed)


def record_linkage(name: str, *, epsilon: float, delta: float | None = None, dataset="digits",
                   targets: int = DEFAULT_TARGETS, seed=0, parameters: Mapping | None = None,
                   progress: Progress | None = None, allow_long: bool = False) -> Linkage:
    """The linkage attack (module docstring) on mechanism ``name`` at ``epsilon`` over ``dataset`` (a
    name or a `Dataset`): ``targets`` released rows among all its rows, from ``seed``
    (``parameters``: the mechanism's ``PARAMETERS``). ``progress(fraction, message)``; refused
    above the long-work limit unless ``allow_long``."""
    setup = _LinkageSetup(name, dataset, delta, targets, seed, parameters)
    k = _mechanism(name, epsilon, delta, setup.data.p, parameters).k
    refuse_long_work(attack_seconds(name, p=setup.data.p, k=k, releases=0, candidates=setup.rows.shape[0],
                                    targets=setup.targets.size), allow_long, "The linkage attack", SMALLER)
    report = progress or (lambda fraction, message: None)
    report(0.0, f"linking {setup.targets.size:,} released rows")
    result = setup.run(epsilon)
    report(1.0, "linkage: done")
    return result


# ---------------------------------------------------------------------------------------------
# over an ε grid, and the largest ε under a target


@dataclass(frozen=True, eq=False)
class AttackCurves:
    """Both attacks on one mechanism over an ε grid: ``attribute_bound`` (the guarantee's limit on
    the attribute attacker's success at prior ½; NaN where there is none), ``attribute_success`` and
    its standard errors (exact: 0; DP-RP-L: simulated), ``linkage_success`` and its standard errors
    (None when not run), ``linkage_chance`` (1/n) and ``pair_nearest`` (the median pair guarantee
    of the linkage, per ε)."""

    mechanism: str
    label: str
    epsilons: np.ndarray
    attribute_bound: np.ndarray
    attribute_success: np.ndarray
    attribute_standard_error: np.ndarray
    attribute_exact: bool
    linkage_success: np.ndarray | None
    linkage_standard_error: np.ndarray | None
    linkage_chance: float | None
    pair_nearest: np.ndarray | None
    pair_kind: str | None

    def to_dict(self) -> dict:
        def listed(values):
            return None if values is None else [_finite(v) for v in np.asarray(values, dtype=np.float64)]

        return {"mechanism": self.mechanism, "label": self.label, "epsilons": self.epsilons.tolist(),
                "prior": PRIOR, "attribute_bound": listed(self.attribute_bound),
                "attribute_success": listed(self.attribute_success),
                "attribute_standard_error": listed(self.attribute_standard_error),
                "attribute_exact": self.attribute_exact, "linkage_success": listed(self.linkage_success),
                "linkage_standard_error": listed(self.linkage_standard_error), "linkage_chance": self.linkage_chance,
                "pair_nearest": listed(self.pair_nearest), "pair_kind": self.pair_kind}


#: Releases per value of the simulated attribute attack at each ε of `attack_curves` (DP-RP-L only).
CURVE_RELEASES = 4000


def attribute_curve_seconds(name: str, *, p: int, k: int, epsilons: int = len(DEFAULT_EPSILONS)) -> float:
    """Estimated seconds of `attack_curves` without linkage: closed forms, except DP-RP-L's attribute
    attack, simulated with `CURVE_RELEASES` per value (`attack_seconds`)."""
    return attack_seconds(name, p=p, k=k, epsilons=epsilons,
                          releases=CURVE_RELEASES if issubclass(MECHANISMS.get(name, ProjectionMechanism), DPRPL) else 0)


def attack_curves(name: str, *, epsilons=DEFAULT_EPSILONS, delta: float | None = None, dataset="digits",
                  linkage: bool = True, targets: int = DEFAULT_TARGETS, seed=0, parameters: Mapping | None = None,
                  progress: Progress | None = None, allow_long: bool = False) -> AttackCurves:
    """`AttackCurves` of mechanism ``name`` over ``epsilons``: the attribute attack's bound and exact
    success (free: closed forms; DP-RP-L simulated with `CURVE_RELEASES` per value) and, with
    ``linkage``, the linkage attack at each ε (the same numbers as `record_linkage` with the same
    seed)."""
    eps = check_epsilons(epsilons)
    data = _dataset(dataset)
    seed = check_seed(seed)
    probe = _mechanism(name, float(eps[0]), delta, data.p, parameters)
    simulated = isinstance(probe, DPRPL)
    rows = candidate_rows(data).shape[0] if linkage else 0
    seconds = attack_seconds(name, p=data.p, k=probe.k, epsilons=eps.size, releases=CURVE_RELEASES if simulated else 0,
                             candidates=rows, targets=min(targets, rows) if linkage else 0)
    refuse_long_work(seconds, allow_long, "The attacks over ε", SMALLER)
    report = progress or (lambda fraction, message: None)
    bound = np.full(eps.size, np.nan)
    success, success_se = np.empty(eps.size), np.zeros(eps.size)
    link = link_se = pairs = None
    setup = _LinkageSetup(name, data, delta, targets, seed, parameters) if linkage else None
    if linkage:
        link, link_se, pairs = np.empty(eps.size), np.empty(eps.size), np.empty(eps.size)
    kind = None
    pair = attribute_pair(probe, data.p)[:2]  # the attribute pair depends on the public projection only, not on ε
    for j, epsilon in enumerate(eps):
        mechanism = _mechanism(name, float(epsilon), delta, data.p, parameters)
        curve = tradeoff_curve(mechanism.guarantee)
        bound[j] = np.nan if curve is None else curve.guessing_chance(PRIOR)
        if simulated:
            attack = attribute_inference(name, epsilon=float(epsilon), delta=delta, p=data.p, releases=CURVE_RELEASES,
                                         seed=seed, parameters=parameters, allow_long=True)
            success[j], success_se[j] = attack.measured.success, attack.measured.success_standard_error
        else:
            success[j] = exact_attribute_curve(mechanism, data.p, pair).guessing_chance(PRIOR)
        if linkage:
            result = setup.run(float(epsilon))
            link[j], link_se[j] = result.success, result.standard_error
            pairs[j] = np.nan if result.pair_nearest is None else result.pair_nearest
            kind = result.pair_kind
        report((j + 1) / eps.size, f"{probe.label}: ε = {epsilon:g} done")
    return AttackCurves(probe.name, probe.label, eps, bound, success, success_se, not simulated, link, link_se,
                        None if not linkage else 1.0 / rows, pairs, kind)


def exact_attribute_curve(mechanism: ProjectionMechanism, p: int, pair=None) -> TradeoffCurve:
    """The attribute pair's exact curve without simulating: G_{μ_i} (Gaussian releases) or the sign
    pair's finite curve; ValueError for DP-RP-L (no exact curve here). ``pair``: the attribute pair
    (x, x′) when already found (`neighbouring_pair`, which projects every unit vector)."""
    x, y = attribute_pair(mechanism, p)[:2] if pair is None else pair
    if isinstance(mechanism, GaussianNoiseMechanism):
        difference = mechanism.project(x[None])[0] - mechanism.project(y[None])[0]
        return GDPCurve(float(np.linalg.norm(difference)) / mechanism.public_parameters(p)["sigma"])
    if isinstance(mechanism, SignMechanism):
        plus_x = mechanism.plus_probabilities(mechanism.project(x[None]), x[None])[0]
        plus_y = mechanism.plus_probabilities(mechanism.project(y[None]), y[None])[0]
        return sign_pair_law(plus_x, plus_y).curve
    raise ValueError(f"{mechanism.label} has no exact attribute curve here (Laplace noise): simulate it with "
                     "attribute_inference.")


def attack_utility_frontier(result: SweepResult, curves, metric: str = "precision") -> dict[str, tuple]:
    """Attribute-inference success against utility through ε, one entry per mechanism (the points of
    `privlib.presentation.risk.frontier_chart`): for each `AttackCurves` of ``curves``, at the ε values
    both it and the sweep ``result`` hold, ``label`` → (the sweep's ``metric`` — precision@R by default —
    as a mean over its repetitions, the attack's success at prior ½, ε), ε increasing. Both come from
    results already computed (`privlib.projections.sweep.sweep` and `attack_curves`), paired by ε:
    nothing is released again. ValueError when a mechanism of ``curves`` is not in the sweep, when
    they share no ε, or for an unknown metric."""
    if metric not in result.metrics:
        raise ValueError(f"metric must be one of the sweep's metrics ({', '.join(result.metrics)}), got {metric!r}.")
    points = {}
    for curve in curves:
        if curve.mechanism not in result.mechanisms:
            raise ValueError(f"{curve.label} is not in the sweep ({', '.join(result.mechanisms)}): sweep it too.")
        common, in_sweep, in_curve = np.intersect1d(result.epsilons, curve.epsilons, return_indices=True)
        if not common.size:
            raise ValueError(f"The sweep and the attack on {curve.label} share no ε: give them the same grid.")
        utility = np.asarray(result.mean(curve.mechanism, metric), dtype=np.float64)[in_sweep]
        points[curve.label] = (utility, np.asarray(curve.attribute_success, dtype=np.float64)[in_curve], common)
    return points


@dataclass(frozen=True)
class EpsilonTarget:
    """The largest ε of a grid that keeps ``attack`` ("attribute" or "linkage") at most ``target``:
    ``by_bound`` (the guarantee's bound, for every attacker; None when no ε of the grid meets it or
    no guarantee covers the attack), ``by_measure`` (the exact success, or a measured success + 2 SE:
    cautious) and ``by_measure_optimistic`` (measured − 2 SE; equal for exact values); ``below_baseline``:
    the target is under what guessing without the release gets; ``sentence`` for people."""

    target: float
    attack: str
    mechanism: str
    by_bound: float | None
    by_measure: float | None
    by_measure_optimistic: float | None
    exact: bool
    below_baseline: bool
    sentence: str

    def to_dict(self) -> dict:
        return {"target": self.target, "attack": self.attack, "mechanism": self.mechanism, "by_bound": self.by_bound,
                "by_measure": self.by_measure, "by_measure_optimistic": self.by_measure_optimistic,
                "exact": self.exact, "below_baseline": self.below_baseline, "sentence": self.sentence}


def largest_epsilon_under(target: float, curves: AttackCurves, attack: str = "attribute") -> EpsilonTarget:
    """The largest ε of ``curves``' grid that keeps ``attack`` ("attribute": guessing the attribute
    right at prior ½; "linkage": linking a release to its row) at most ``target``: by the
    guarantee's bound (attribute only — no guarantee covers linkage) and, separately, by the
    measurement (the exact success; a simulated or measured one with ± `INTERVAL_Z` SE): each by
    `privlib.core.risk.largest_epsilon_under`, the one rule (the prefix of the grid under the target)."""
    target = check_probability(target, "target (the attack success you accept)")
    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {', '.join(ATTACKS)}, got {attack!r}.")
    eps = curves.epsilons
    if attack == "attribute":
        values, se, exact, baseline = curves.attribute_success, curves.attribute_standard_error, \
            curves.attribute_exact, PRIOR
        guaranteed = bool(np.all(np.isfinite(curves.attribute_bound)))
        by_bound = largest_epsilon_under_grid(target, eps, curves.attribute_bound) if guaranteed else None
        what = "guessing one attribute right (two values β apart, prior ½)"
        baseline_text = "guessing without the release already gets 50 %"
    else:
        if curves.linkage_success is None:
            raise ValueError("These curves hold no linkage: compute them with attack_curves(..., linkage=True).")
        values, se, exact, baseline = curves.linkage_success, curves.linkage_standard_error, False, \
            curves.linkage_chance
        guaranteed, by_bound = False, None
        what = "linking a release to its row"
        baseline_text = f"guessing a row without the release already gets {_share(baseline)}"
    se = None if exact else se
    cautious = largest_epsilon_under_grid(target, eps, values, se, z=INTERVAL_Z)
    optimistic = largest_epsilon_under_grid(target, eps, values, se, z=-INTERVAL_Z)
    below = target < baseline
    lowest, highest = float(eps.min()), float(eps.max())

    def said(value, how):
        if value is None:
            return f"no ε of the grid (from {lowest:g}) {how}"
        return f"ε = {value:g}{' (the top of the grid)' if value == highest else ''} {how}"

    if below:
        sentence = f"No ε keeps {what} under {_share(target)}: {baseline_text}."
    else:
        if attack == "linkage":
            bound_part = "no ε by a guarantee (the per-attribute guarantee does not cover whole rows)"
        elif guaranteed:
            bound_part = said(by_bound, "by the guarantee's bound, which holds for every attacker")
        else:
            bound_part = f"no ε by a guarantee ({curves.label} gives none)"
        if exact:
            measure_part = said(cautious, "by the exact attack")
        else:
            measure_part = said(cautious, f"by the measured attack with +{INTERVAL_Z:g} SE") + (
                "" if optimistic == cautious else f" ({said(optimistic, f'with −{INTERVAL_Z:g} SE')})")
        sentence = (f"The largest ε that keeps {what} under {_share(target)} with {curves.label}: {bound_part}; "
                    f"{measure_part}.")
    return EpsilonTarget(target, attack, curves.mechanism, by_bound, cautious, optimistic, exact, below, sentence)


# ---------------------------------------------------------------------------------------------
# sentences


def _share(value: float) -> str:
    """A probability in a sentence to 3 significant figures ("97.3 %", "0.0556 %")."""
    return f"{100 * float(value):.3g} %"


def _measured(value: float, standard_error: float) -> str:
    return f"{_share(value)} ± {_share(INTERVAL_Z * standard_error)}"


def attribute_sentence(result: AttributeInference) -> str:
    """"At ε = 5, somebody who sees one DP-OPORP release of a vector and knows all its other
    coordinates guesses which of two values β apart one coordinate holds right X % of the time
    (…); guessing without the release gets 50 %; the guarantee allows at most Z %." — ±2 SE where
    measured; "no guarantee" said plainly where there is none."""
    measured = _measured(result.measured.success, result.measured.success_standard_error)
    if result.exact is not None:
        how = f"exactly; {measured} measured over {2 * result.measured.counted:,} held-out releases, ±2 SE"
        success = _share(result.exact_success)
    else:
        how = f"measured over {2 * result.measured.counted:,} held-out releases, ±2 SE"
        success = measured
    if result.bound is None:
        limit = f"there is no guarantee: {result.label} is not differential privacy"
    else:
        limit = f"the guarantee allows at most {_share(result.bound_success)}"
    return (f"At ε = {result.epsilon:g}, somebody who sees one {result.label} release of a vector and knows all its "
            f"other coordinates guesses which of two values β = {result.beta:g} apart one coordinate holds right "
            f"{success} of the time ({how}); guessing without the release gets 50 %; {limit}.")


def linkage_sentence(result: Linkage) -> str:
    """"At ε = 5, somebody who holds the n original rows and sees the DP-OPORP releases of T of them
    links a release to its row X ± Y % of the time; guessing gets 1/n; the per-attribute guarantee
    does not cover this: …" with the pair's own guarantee."""
    if result.pair_nearest is None:
        pair = "a row and its closest other row have no finite pair guarantee"
    elif result.pair_kind == "gdp":
        pair = (f"telling a row from its closest other row is only μ_uv = {result.pair_nearest:.3g}-GDP "
                f"(median), against μ = {result.guarantee.mu:.3g} for one attribute" if result.guarantee.mu else
                f"telling a row from its closest other row is only μ_uv = {result.pair_nearest:.3g}-GDP (median)")
    else:
        pair = (f"telling a row from its closest other row is only {result.pair_nearest:.3g}-DP (median), against "
                f"ε = {result.epsilon:g} for one attribute")
    limit = (f"the per-attribute guarantee does not cover this: {pair}" if result.guarantee.is_private else
             f"there is no guarantee at all ({result.label} is not differential privacy), and a per-attribute one "
             "would not cover this anyway")
    return (f"At ε = {result.epsilon:g}, somebody who holds the {result.candidates:,} original rows of "
            f"{result.dataset} and sees the {result.label} releases of {result.targets:,} of them links a release "
            f"to its row {_measured(result.success, result.standard_error)} of the time (±2 SE); guessing gets "
            f"{_share(result.chance)}; {limit}.")


__all__ = [
    "ATTACKS",
    "DEFAULT_EPSILONS",
    "DEFAULT_RELEASES",
    "DEFAULT_TARGET",
    "DEFAULT_TARGETS",
    "MEASURED",
    "PRIOR",
    "TARGET_FPR",
    "AttackCurves",
    "AttributeInference",
    "EpsilonTarget",
    "Linkage",
    "MeasuredAttack",
    "Rates",
    "SignPairLaw",
    "attack_curves",
    "attack_nbytes",
    "attack_seconds",
    "attack_utility_frontier",
    "attribute_curve_seconds",
    "attribute_inference",
    "attribute_pair",
    "attribute_sentence",
    "auc_with_standard_error",
    "candidate_rows",
    "exact_attribute_curve",
    "largest_epsilon_under",
    "linkage_sentence",
    "measure",
    "nearest_candidates",
    "pair_losses",
    "record_linkage",
    "refuse_long_work",
    "roc_curve",
    "sign_pair_law",
    "target_rows",
    "threshold_at_fpr",
]
