"""A guarantee as attack terms: what the best attacker can achieve against a DP guarantee.

Convention (one for the whole project, audits included): two hypotheses about one secret, the input
was x ("positive") or x′; a test says "x" or "x′". FPR α = P(says x | input x′), TPR = P(says x |
input x), FNR β = 1 − TPR. A guarantee is a lower bound β ≥ f(α) on every test for every
neighbouring pair: its **trade-off curve** f (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015;
Dong, Roth & Su 2022, "Gaussian differential privacy", JRSS B).

- Curves (`TradeoffCurve`): `DPCurve` for (ε, δ)-DP and pure ε-DP (δ = 0), `GDPCurve` for μ-GDP
  (only where the mechanism is exactly Gaussian), `FinitePairCurve` for the exact curve of a pair of
  finite output laws; `tradeoff_curve(guarantee)` gives the curve of a `Guarantee` by its kind
  (None for "none").
- Numbers of a curve: the maximal advantage, TPR at a given FPR, the chance of guessing right
  between the two inputs with a prior (Kulynych et al. 2024, "Attack-aware noise calibration for
  differential privacy", NeurIPS), the privacy loss.
- The posterior (`posterior_statement`, `plain_sentence`), δ for people (`delta_for_people`), group
  privacy (`group_guarantee`).
- Re-identification among k candidates every two of which are neighbours: pure ε with a prior
  (`reidentification_bound`; Ghazi et al. 2021's RRWithPrior attains it), (ε, δ) with the uniform
  closed form or the exact k-candidate linear programme (`reidentification_lp`), μ-GDP through its
  (ε, δ(ε)) envelope, and metric privacy over a candidate set with distances (Chatzikokolakis et
  al. 2013): the LP bound, its cheap dual bound and the closed form (`metric_reidentification_bounds`).

Closed forms throughout, vectorised in numpy/scipy and written so that ε in the hundreds (e^700) and
beyond neither overflows nor loses the answer; riskcal (Kulynych et al.) is the tests' independent
oracle, not a run-time dependency (its closed forms overflow to NaN above ε ≈ 709 and it brings
dp-accounting with it). Arguments are validated once in the public functions (ValueError saying what
to do).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import expit, log_ndtr, logit, ndtr, ndtri

from privlib.core.mechanism import Guarantee
from privlib.core.validation import (
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_probability_vector,
    check_range,
    shown,
)

#: The largest μ accepted: Φ⁻¹ spans about ±38 in float64, so every μ above ~80 already gives the
#: curve β = 0 for all α > 0; 1e6 leaves room while keeping μ/2 ± ε′/μ finite.
MU_MAX = 1e6
#: The most candidates the exact (ε, δ) k-candidate LP takes: it has k³ variables.
LP_CANDIDATES_MAX = 40
#: The largest ε of the (ε, δ) k-candidate LP: its coefficients hold e^ε, and HiGHS' tolerances (1e-7)
#: do not resolve coefficients that differ by more than ~1e9. Above it every bound is within
#: (k − 1)e^{−ε} of 1.
LP_EPSILON_MAX = 20.0
#: The most candidates the metric-privacy bounds take (dense k × k distances: 8 GB at 30,000).
METRIC_CANDIDATES_MAX = 20_000
#: The false positive rates at which TPR is reported (1 % and 0.1 %, the usual membership-inference points).
REPORTED_FPRS = (0.01, 0.001)


# ---------------------------------------------------------------------------------------------
# validation


def check_rates(values, name: str = "fpr") -> np.ndarray:
    """``values`` (a number or an array of numbers) as a float64 array of error rates in [0, 1], or a
    ValueError naming ``name``. Values outside by at most 1e-12 (a rate summed from probabilities,
    1.0000000000000002) are clipped into it."""
    try:
        array = None if isinstance(values, (str, bytes)) else np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        array = None
    if array is None:
        raise ValueError(f"{name} must be a number in [0, 1] or an array of them, got {shown(values)}.")
    if not np.all(np.isfinite(array)) or np.any((array < -1e-12) | (array > 1 + 1e-12)):
        raise ValueError(f"{name} must lie in [0, 1] (an error rate), got {shown(values)}.")
    return np.clip(array, 0.0, 1.0)


def check_mu(mu) -> float:
    """μ of μ-GDP: a finite number with 0 ≤ μ ≤ `MU_MAX` (μ = Δ₂/σ for a Gaussian mechanism)."""
    return check_range(mu, "mu (sensitivity / sigma of the Gaussian mechanism)", low=0.0, high=MU_MAX)


def check_guarantee(guarantee) -> Guarantee:
    """``guarantee`` itself when it is a `Guarantee` (a mechanism's ``.guarantee``), else a ValueError."""
    if isinstance(guarantee, Guarantee):
        return guarantee
    raise ValueError(f"guarantee must be a privlib.core.Guarantee (a mechanism's .guarantee), got {shown(guarantee)}.")


def as_result(array):
    """A 0-d result as a float, else the array (numbers in, numbers out)."""
    array = np.asarray(array, dtype=np.float64)
    return float(array) if array.ndim == 0 else array


def percent(value: float) -> str:
    """A probability for people: "88 %", "0.1 %", "99.97 %" — enough digits (up to 4) that a value near
    0 or 1 is not shown as 0 % or 100 %; below that, scientific ("3.2e-07 %"); within 1e-6 of 1: "100 %"."""
    value = float(value)
    if value in (0.0, 1.0):
        return f"{100 * value:.0f} %"
    for digits in range(5):
        shown_value = round(100 * value, digits)
        if shown_value not in (0.0, 100.0) and (digits > 0 or 0.01 <= value <= 0.99):
            return f"{100 * value:.{digits}f} %"
    return f"{100 * value:.1e} %" if value < 0.5 else "100 %"


def one_in(probability: float) -> str:
    """"1 in 1,000,000" for 1e-6 (the reciprocal rounded to 3 significant figures; "1 in 1e+20" from
    1e15 on, "less than 1 in 1.8e+308" where the reciprocal is beyond float64)."""
    with np.errstate(over="ignore"):
        reciprocal = float(np.float64(1.0) / np.float64(probability))
    if not math.isfinite(reciprocal):
        return "less than 1 in 1.8e+308"
    rounded = float(f"{reciprocal:.3g}")
    if rounded >= 1e15:
        return f"1 in {rounded:.3g}"
    return f"1 in {rounded:,.0f}" if rounded >= 10 else f"1 in {rounded:g}"


# ---------------------------------------------------------------------------------------------
# trade-off curves


class TradeoffCurve:
    """A trade-off curve f: FPR α → least FNR β = f(α) of any test (see the module docstring).

    Subclasses give ``fnr`` and the closed forms of the numbers; ``tpr`` (1 − f), ``points`` and
    ``tpr_at_reported_fprs`` are shared. ``kind`` names the curve ("dp", "gdp", "finite-pair"),
    ``label`` its parameters for people.
    """

    kind = ""

    @property
    def label(self) -> str:
        raise NotImplementedError

    def fnr(self, fpr):
        """The least FNR β = f(α) at FPR α (a number or an array in [0, 1])."""
        raise NotImplementedError

    def tpr(self, fpr):
        """The greatest TPR 1 − f(α) of any test at FPR α."""
        return as_result(1.0 - np.asarray(self.fnr(fpr)))

    @property
    def advantage(self) -> float:
        """The maximal advantage max_α (TPR − FPR) = max_α (1 − α − f(α))."""
        raise NotImplementedError

    def guessing_chance(self, prior: float) -> float:
        """The best chance of guessing right between x (prior probability ``prior``) and x′:
        1 − min_α[(1 − p)α + p f(α)] (Kulynych et al. 2024, the Bayes risk), on average over outputs."""
        raise NotImplementedError

    @property
    def privacy_loss(self) -> float:
        """The largest privacy loss max_o |ln P(o | x)/P(o | x′)| the curve allows (∞ where δ > 0)."""
        raise NotImplementedError

    def kinks(self) -> np.ndarray:
        """FPRs where the curve bends (added to sampled points so a drawn curve keeps its corners)."""
        return np.empty(0)

    def points(self, count: int = 101) -> tuple[np.ndarray, np.ndarray]:
        """(fpr, fnr) sampled on ``count`` evenly spaced FPRs in [0, 1], a log-spaced run from 1e-6
        (where strong attacks live) and the curve's kinks, sorted."""
        count = check_positive_int(count, "count (points of the curve)", minimum=2, maximum=100_000)
        fpr = np.unique(np.concatenate([np.linspace(0.0, 1.0, count), np.geomspace(1e-6, 1e-2, 9), self.kinks()]))
        fpr = fpr[(fpr >= 0) & (fpr <= 1)]
        return fpr, np.asarray(self.fnr(fpr), dtype=np.float64)

    def tpr_at_reported_fprs(self) -> dict[float, float]:
        """TPR at each FPR of `REPORTED_FPRS` (1 % and 0.1 %)."""
        return {fpr: float(self.tpr(fpr)) for fpr in REPORTED_FPRS}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label})"


class DPCurve(TradeoffCurve):
    """The curve of (ε, δ)-DP, f(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)} (Kairouz, Oh &
    Viswanath 2015, Thm 2.1; Dong, Roth & Su 2022, Prop. 2.5); δ = 0 is pure ε-DP, f_{ε,0}, which
    binary randomised response attains exactly. ε = 0 is allowed (f(α) = 1 − δ − α)."""

    kind = "dp"

    def __init__(self, epsilon: float, delta: float = 0.0):
        self.epsilon = check_epsilon(epsilon, allow_zero=True)
        self.delta = check_delta(delta, allow_zero=True)

    @property
    def label(self) -> str:
        return f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")

    def fnr(self, fpr):
        alpha = check_rates(fpr, "fpr")
        with np.errstate(divide="ignore", over="ignore"):
            # e^ε α as exp(ε + ln α): finite for α > 0 up to e^709, 0 at α = 0, +inf (not NaN) beyond.
            steep = 1.0 - self.delta - np.exp(self.epsilon + np.log(alpha))
        shallow = math.exp(-self.epsilon) * (1.0 - self.delta - alpha)
        return as_result(np.maximum(0.0, np.maximum(steep, shallow)))

    def kinks(self) -> np.ndarray:
        # the corner on the diagonal β = α at (1 − δ)/(1 + e^ε), and α = 1 − δ where β reaches 0
        return np.array([(1.0 - self.delta) * expit(-self.epsilon), 1.0 - self.delta])

    @property
    def advantage(self) -> float:
        """(e^ε − 1 + 2δ)/(e^ε + 1) = tanh(ε/2) + 2δ/(e^ε + 1) (Kairouz et al. 2015; Kulynych et al.
        2024): exact as ε → 0 and without overflow at large ε."""
        return float(math.tanh(self.epsilon / 2) + 2 * self.delta * expit(-self.epsilon))

    def guessing_chance(self, prior: float) -> float:
        """1 − (1 − δ) min{p, 1 − p, 1/(1 + e^ε)}: the minimum of the linear (1 − p)α + p f(α) over
        the convex piecewise-linear f is at one of its vertices α = 0, (1 − δ)/(1 + e^ε), 1 − δ."""
        p = check_probability(prior, "prior (the probability of x before the output)")
        return float(1.0 - (1.0 - self.delta) * min(p, 1.0 - p, float(expit(-self.epsilon))))

    @property
    def privacy_loss(self) -> float:
        """ε for pure ε-DP; ∞ when δ > 0 (an output of probability up to δ may have any ratio)."""
        return self.epsilon if self.delta == 0 else math.inf


class GDPCurve(TradeoffCurve):
    """The curve of μ-GDP, G_μ(α) = Φ(Φ⁻¹(1 − α) − μ): testing N(0, 1) against N(μ, 1) (Dong, Roth &
    Su 2022, Def. 2.6). Exactly the curve of releasing data + N(0, σ²I) with ℓ₂ sensitivity Δ₂,
    μ = Δ₂/σ; not of mechanisms that release an argmin of noisy data (Obj-Gauss): draw their (ε, δ)
    curve only. Computed as Φ(−Φ⁻¹(α) − μ), which keeps full precision at small α."""

    kind = "gdp"

    def __init__(self, mu: float):
        self.mu = check_mu(mu)

    @property
    def label(self) -> str:
        return f"μ = {self.mu:g}"

    def fnr(self, fpr):
        alpha = check_rates(fpr, "fpr")
        return as_result(ndtr(-ndtri(alpha) - self.mu))

    @property
    def advantage(self) -> float:
        """2Φ(μ/2) − 1 = erf(μ/(2√2)) (Dong, Roth & Su 2022, Cor. 2.13), exact as μ → 0."""
        return float(math.erf(self.mu / (2 * math.sqrt(2))))

    def guessing_chance(self, prior: float) -> float:
        """1 − [(1 − p)Φ(−t) + pΦ(t − μ)] with the likelihood-ratio threshold t = μ/2 + ln((1 − p)/p)/μ
        (the Bayes test of N(μ, 1), prior p, against N(0, 1)); max(p, 1 − p) at μ = 0."""
        p = check_probability(prior, "prior (the probability of x before the output)")
        if p in (0.0, 1.0):
            return 1.0
        if self.mu == 0:
            return max(p, 1.0 - p)
        t = self.mu / 2 + (math.log1p(-p) - math.log(p)) / self.mu
        return float(1.0 - ((1.0 - p) * ndtr(-t) + p * ndtr(t - self.mu)))

    @property
    def privacy_loss(self) -> float:
        """∞ for μ > 0: the privacy loss of a Gaussian pair, N(μ²/2, μ²), is unbounded."""
        return math.inf if self.mu > 0 else 0.0

    def loss_tail(self, loss):
        """P(privacy loss > ε′) = Φ(μ/2 − ε′/μ) (the loss of N(μ, 1) against N(0, 1) under the first
        is N(μ²/2, μ²); Dong, Roth & Su 2022, §2.3)."""
        level = np.asarray(loss, dtype=np.float64)
        if not np.all(np.isfinite(level)):
            raise ValueError(f"the privacy-loss level must be a finite number, got {shown(loss)}.")
        if self.mu == 0:
            return as_result(np.where(level < 0, 1.0, 0.0))
        with np.errstate(over="ignore"):  # ε′/μ beyond float64 at a tiny μ: Φ(∓∞), the right limit
            return as_result(ndtr(self.mu / 2 - level / self.mu))

    def delta(self, epsilon):
        """δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), the exact (ε, δ) profile of μ-GDP (Balle & Wang
        2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13), vectorised in ε ≥ 0 and evaluated in log space:
        log Φ(a) + log(1 − exp(ε + log Φ(b) − log Φ(a))), so e^ε is never formed."""
        eps = np.asarray(epsilon, dtype=np.float64)
        if not np.all(np.isfinite(eps)) or np.any(eps < 0):
            raise ValueError(f"epsilon must be finite numbers >= 0, got {shown(epsilon)}.")
        if self.mu == 0:
            return as_result(np.zeros_like(eps))
        with np.errstate(over="ignore", invalid="ignore"):  # ε/μ beyond float64 at a tiny μ: δ = 0
            a = self.mu / 2 - eps / self.mu
            b = -self.mu / 2 - eps / self.mu
            log_a, log_b = log_ndtr(a), log_ndtr(b)
            exponent = np.minimum(eps + log_b - log_a, -1e-300)  # ≤ 0 in exact arithmetic
            delta = np.exp(log_a + np.log(-np.expm1(exponent)))
        return as_result(np.where(np.isfinite(log_a), delta, 0.0))


class FinitePairCurve(TradeoffCurve):
    """The exact curve of a pair of finite output laws P = P(· | x), Q = P(· | x′): the Neyman–Pearson
    tests, which say "x" on the outputs of largest likelihood ratio P/Q first, trace the lower convex
    hull with vertices (Σ_{o ≤ j} Q(o), 1 − Σ_{o ≤ j} P(o)) over outputs sorted by decreasing P/Q
    (Neyman & Pearson 1933; Dong, Roth & Su 2022, §2.1). Exact for randomised response, the
    exponential mechanisms and sign flips; binary RR gives f_{ε,0}, C-ary RR a curve of slopes
    −e^ε, −1, −e^{−ε}.

    ``p``, ``q``: probability vectors over the same outputs (each summing to 1 within 1e-9). The curve
    is of the ordered pair (x positive); swap them for the other order.
    """

    kind = "finite-pair"

    def __init__(self, p, q):
        p = check_probability_vector(p, "p (the output law under x)", normalise=False)
        q = check_probability_vector(q, "q (the output law under x′)", normalise=False, length=p.shape[-1])
        if p.ndim != 1:
            raise ValueError("p and q must each be one probability vector (one entry per output).")
        keep = (p > 0) | (q > 0)
        self.p, self.q = p[keep], q[keep]
        with np.errstate(divide="ignore"):
            self.log_ratio = np.log(self.p) - np.log(self.q)  # +inf where q = 0, −inf where p = 0
        order = np.argsort(-self.log_ratio, kind="stable")
        only_under_x = self.q[order] == 0  # ratio ∞: one vertex at α = 0
        head = float(self.p[order][only_under_x].sum())
        rest = order[~only_under_x]
        alpha = np.minimum(np.concatenate([[0.0, 0.0], np.cumsum(self.q[rest])]), 1.0)
        beta = np.maximum(1.0 - np.concatenate([[0.0, head], head + np.cumsum(self.p[rest])]), 0.0)
        alpha[-1], beta[-1] = 1.0, 0.0  # the sums are 1 within rounding
        self.vertices = (alpha[1:], beta[1:])  # (0, 1 − P(q = 0)) first

    @property
    def label(self) -> str:
        return f"the exact curve of a pair of laws over {self.p.size:,} outputs"

    def fnr(self, fpr):
        alpha = check_rates(fpr, "fpr")
        return as_result(np.interp(alpha, *self.vertices))

    def kinks(self) -> np.ndarray:
        return self.vertices[0]

    @property
    def advantage(self) -> float:
        """The total variation distance Σ_o (P(o) − Q(o))₊ = δ(0)."""
        return float(np.maximum(self.p - self.q, 0.0).sum())

    def guessing_chance(self, prior: float) -> float:
        """Σ_o max{p P(o), (1 − p) Q(o)}: the Bayes rule picks the likelier input for each output."""
        p = check_probability(prior, "prior (the probability of x before the output)")
        return float(np.maximum(p * self.p, (1.0 - p) * self.q).sum())

    @property
    def privacy_loss(self) -> float:
        """The exact privacy loss max_o |ln P(o)/Q(o)| (∞ when an output is possible under one input only)."""
        return float(np.abs(self.log_ratio).max())

    def delta(self, epsilon):
        """The exact δ(ε′) = Σ_o (P(o) − e^{ε′} Q(o))₊ of the ordered pair, vectorised in ε′ ≥ 0:
        each term is P(o)(1 − e^{ε′ − L_o})₊ with L_o = ln P(o)/Q(o), so e^{ε′} is never formed."""
        eps = np.asarray(epsilon, dtype=np.float64)
        if not np.all(np.isfinite(eps)) or np.any(eps < 0):
            raise ValueError(f"epsilon must be finite numbers >= 0, got {shown(epsilon)}.")
        with np.errstate(invalid="ignore"):
            gap = eps[..., None] - self.log_ratio  # −inf where q = 0: the whole P(o) counts
        terms = np.where(gap < 0, self.p * -np.expm1(np.minimum(gap, 0.0)), 0.0)
        return as_result(terms.sum(axis=-1))


def tradeoff_curve(guarantee: Guarantee, distance: float | None = None) -> TradeoffCurve | None:
    """The curve of a `Guarantee` by its kind; None for "none" (no curve: the loss is ∞).

    pure-dp and label-dp: f_{ε,0} (with δ if the guarantee carries one); approximate-dp: f_{ε,δ};
    gdp: G_μ; local-dp: G_μ when it carries μ (exactly Gaussian), else f_{ε,δ}; metric-dp: f_{εd,0}
    for a pair at ``distance`` d (ε·d_X-privacy prices the pair at ε·d; Chatzikokolakis et al. 2013).
    """
    kind = check_guarantee(guarantee).kind
    if kind == "none":
        return None
    if kind == "gdp" or (kind == "local-dp" and guarantee.mu is not None):
        if guarantee.mu is None:
            raise ValueError("A gdp guarantee must carry mu: give Guarantee(..., mu=...).")
        return GDPCurve(guarantee.mu)
    if guarantee.epsilon is None:
        raise ValueError(f"A {kind} guarantee must carry epsilon: give Guarantee(..., epsilon=...).")
    if kind == "approximate-dp" and guarantee.delta is None:
        raise ValueError("An approximate-dp guarantee must carry delta: give Guarantee(..., delta=...).")
    delta = guarantee.delta or 0.0
    if kind == "metric-dp":
        if distance is None:
            raise ValueError("A metric-dp guarantee prices each pair by its distance: give distance= (d(x, x′)).")
        d = check_range(distance, "distance (d(x, x′) between the two inputs)", low=0.0)
        return DPCurve(guarantee.epsilon * d, delta)
    return DPCurve(guarantee.epsilon, delta)


def privacy_loss(guarantee: Guarantee, distance: float | None = None) -> float:
    """The largest privacy loss the guarantee allows: ε (ε·d for metric-dp at ``distance``) for pure
    guarantees, ∞ with a δ > 0, for μ-GDP (μ > 0) and for "none"."""
    curve = tradeoff_curve(guarantee, distance)
    return math.inf if curve is None else curve.privacy_loss


# ---------------------------------------------------------------------------------------------
# the posterior, δ for people, group privacy


def pure_posterior(prior, epsilon):
    """The largest posterior after any one output of an ε-DP mechanism for a prior p:
    p e^ε/(p e^ε + 1 − p) = expit(logit p + ε) (Wasserman & Zhou 2010; Kasiviswanathan & Smith 2014),
    exact at p ∈ {0, 1} and without overflow at large ε. Vectorised in p and ε."""
    p = check_rates(prior, "prior")
    eps = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(eps)) or np.any(eps < 0):
        raise ValueError(f"epsilon must be finite numbers >= 0, got {shown(epsilon)}.")
    with np.errstate(divide="ignore"):
        return as_result(expit(logit(p) + eps))


def dp_loss_tail(epsilon: float, delta: float, loss: float) -> float:
    """Under (ε, δ)-DP the privacy loss exceeds ε′ > ε with probability at most δ/(1 − e^{ε − ε′})
    (Kasiviswanathan & Smith 2014, "On the semantics of differential privacy"), capped at 1."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, allow_zero=True)
    loss = check_range(loss, "loss (the privacy-loss level ε′)", low=epsilon, low_inclusive=False)
    return float(min(1.0, delta / -math.expm1(epsilon - loss)))


@dataclass(frozen=True)
class PosteriorStatement:
    """What one output does to an attacker's belief, in the words the guarantee allows.

    ``prior``: the attacker's belief in x before; ``posterior``: the belief the sentence is about
    (the pure-ε maximum for pure guarantees; the level X whose exceedance is bounded otherwise);
    ``probability``: how likely the posterior exceeds it (0 for pure guarantees, 1 for none);
    ``loss``: the privacy-loss level ε′ = logit X − logit p (∞ for none; null in ``to_dict``);
    ``sentence``: for people."""

    kind: str
    prior: float
    posterior: float | None
    loss: float | None
    probability: float
    sentence: str

    def to_dict(self) -> dict:
        loss = self.loss if self.loss is None or math.isfinite(self.loss) else None  # strict JSON: ∞ as null
        return {"kind": self.kind, "prior": self.prior, "posterior": self.posterior, "loss": loss,
                "probability": self.probability, "sentence": self.sentence}


def posterior_statement(guarantee: Guarantee, prior: float = 0.5, distance: float | None = None,
                        posterior: float | None = None) -> PosteriorStatement:
    """The posterior statement of a guarantee, as the spec words it per kind:

    - pure ε (pure-dp, label-dp, local-dp without δ, metric-dp at ``distance``: ε·d): after any one
      output the belief is at most p e^ε/(p e^ε + 1 − p) ("who was 50 % sure is at most 88 % sure");
    - (ε, δ): never that sentence: one output may reveal the input outright with probability up to
      δ, and the posterior exceeds the pure figure at loss level ε′ > ε (default ε + 1, or the ε′ of
      ``posterior``) with probability at most δ/(1 − e^{ε − ε′});
    - μ-GDP: P(posterior > X) = Φ(μ/2 − ε′/μ) with ε′ = logit X − logit p (default X: 80 % of the way
      from p to certainty, 90 % for p = 50 %);
    - none: no guarantee, the posterior can reach 1.
    """
    p = check_probability(prior, "prior (the attacker's belief in x before the output)", open_low=True,
                          open_high=True)
    curve = tradeoff_curve(guarantee, distance)
    if posterior is not None:
        posterior = check_probability(posterior, "posterior (the belief level X)", open_low=True, open_high=True)
        if posterior <= p:
            raise ValueError(f"posterior (the belief level X) must be above the prior {p:g}: the statement bounds "
                             f"how likely the belief rises past X.")
    before = percent(p)
    if curve is None:
        return PosteriorStatement("none", p, 1.0, math.inf, 1.0,
                                  "No guarantee: one output can reveal the input outright (privacy loss ∞).")
    if isinstance(curve, GDPCurve):
        level = posterior if posterior is not None else p + 0.8 * (1.0 - p)
        loss = float(logit(level) - logit(p))
        chance = float(curve.loss_tail(loss))
        return PosteriorStatement(
            "gdp", p, level, loss, chance,
            f"At μ = {curve.mu:g}, an attacker who was {before} sure becomes more than {percent(level)} sure "
            f"with probability at most {percent(chance)} (no bound holds with certainty: the privacy loss of a "
            f"Gaussian release is unbounded).")
    where = (f"For two inputs at distance {distance:g} (ε·d = {curve.epsilon:g}), " if guarantee.kind == "metric-dp"
             else f"At ε = {curve.epsilon:g}, ")
    if curve.delta == 0:
        top = float(pure_posterior(p, curve.epsilon))
        return PosteriorStatement(guarantee.kind, p, top, curve.epsilon, 0.0,
                                  f"{where}an attacker who was {before} sure becomes at most {percent(top)} sure.")
    if posterior is not None:
        loss = float(logit(posterior) - logit(p))
    else:  # ε′ = ε + 1; at ε near 1e300 ε + 1 rounds to ε, so the next float up (the bound is then 1)
        loss = curve.epsilon + 1.0 if curve.epsilon + 1.0 > curve.epsilon else math.nextafter(curve.epsilon, math.inf)
    if loss <= curve.epsilon:
        raise ValueError(f"posterior (the belief level X) must be above the ε-figure "
                         f"{percent(float(pure_posterior(p, curve.epsilon)))}: below it the (ε, δ) statement "
                         f"says nothing more.")
    level = float(pure_posterior(p, loss))
    chance = dp_loss_tail(curve.epsilon, curve.delta, loss)
    return PosteriorStatement(
        guarantee.kind, p, level, loss, chance,
        f"{where}δ = {curve.delta:g}: one output may reveal the input outright with probability up to δ "
        f"({one_in(curve.delta)}), and an attacker who was {before} sure ends up more than {percent(level)} sure "
        f"(privacy loss above {loss:.3g}) with probability at most {chance:.3g}.")


def plain_sentence(guarantee: Guarantee, prior: float = 0.5, distance: float | None = None) -> str:
    """One sentence for people about the guarantee: its posterior statement (`posterior_statement`),
    e.g. "At ε = 2, an attacker who was 50 % sure becomes at most 88 % sure."."""
    return posterior_statement(guarantee, prior, distance).sentence


@dataclass(frozen=True)
class DeltaForPeople:
    """δ as people read it: ``one_in`` ("1 in 1,000,000"), ``expected_people`` = n·δ (None without
    n), ``warning`` (δ ≥ 1/n: the guarantee allows revealing about one person's data outright), and
    ``sentence``."""

    delta: float
    people: int | None
    one_in: str
    expected_people: float | None
    warning: bool
    sentence: str

    def to_dict(self) -> dict:
        return {"delta": self.delta, "people": self.people, "one_in": self.one_in,
                "expected_people": self.expected_people, "warning": self.warning, "sentence": self.sentence}


def delta_for_people(delta: float, people: int | None = None, public_draw: bool = False) -> DeltaForPeople:
    """δ said for people: "1 in 1/δ" and n·δ for n ``people`` in the data, with a warning when δ ≥ 1/n
    (a mechanism that publishes one random person's record outright is (0, 1/n)-DP; Dwork & Roth 2014,
    §2.3). ``public_draw``: δ covers a public random draw (e.g. Li & Li's projection matrix W, Alg. 6,
    Thm 3.4): at the drawn W an adversarial input can beat the curve, which the sentence says."""
    delta = check_delta(delta)
    if people is not None:
        people = check_positive_int(people, "people (n, the number of people in the data)")
    expected = None if people is None else people * delta
    warning = people is not None and delta >= 1.0 / people
    sentence = f"δ = {delta:g}: the guarantee may fail with probability {one_in(delta)}"
    if people is not None:
        sentence += f"; over {people:,} people that is {expected:.3g} people expected"
        if warning:
            sentence += (f". Warning: δ is at least 1/n (1/{people:,}), so a mechanism that publishes one "
                         f"person's data outright would meet it: use δ much smaller than 1/n")
    if public_draw:
        sentence += ("; δ is over a public random draw: once it is drawn, an input chosen against it can beat "
                     "the curve")
    return DeltaForPeople(delta, people, one_in(delta), expected, warning, sentence + ".")


def stated_guarantee(epsilon: float | None = None, delta: float = 0.0, mu: float | None = None) -> Guarantee:
    """The guarantee a person states: μ-GDP (``mu``), (ε, δ)-DP (δ > 0) or ε-DP (δ = 0) — what the
    ``bounds`` command and the "What ε means" page turn into attack terms. μ goes without ε and δ
    (μ-GDP has its own δ for every ε)."""
    if mu is not None:
        if epsilon is not None or delta:
            raise ValueError("Give μ alone, or ε (and δ): μ-GDP has its own δ for every ε.")
        mu = check_mu(mu)
        return Guarantee("gdp", f"μ-GDP with μ = {mu:g}", mu=mu)
    if epsilon is None:
        raise ValueError("Give ε (and δ), or μ for μ-GDP.")
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, allow_zero=True)
    if delta:
        return Guarantee("approximate-dp", f"(ε, δ)-DP with ε = {epsilon:g}, δ = {delta:g}", epsilon=epsilon,
                         delta=delta)
    return Guarantee("pure-dp", f"ε-DP with ε = {epsilon:g}", epsilon=epsilon)


def group_guarantee(guarantee: Guarantee, k: int) -> Guarantee:
    """The guarantee for k changed units (group privacy; Dwork & Roth 2014, Thm 2.2; Dong, Roth & Su
    2022, Prop. 2.13): kε for pure ε, (kε, k e^{(k−1)ε} δ) for (ε, δ) (δ reaching 1: kind "none", no guarantee), kμ for
    μ-GDP; metric-dp: kε (a pair k times as far apart); "none" stays none."""
    check_guarantee(guarantee)
    k = check_positive_int(k, "k (the number of changed units)")
    if guarantee.kind == "none" or k == 1:
        return guarantee
    numbers_ = {}
    if guarantee.epsilon is not None:
        numbers_["epsilon"] = k * guarantee.epsilon
    if guarantee.delta is not None and guarantee.delta > 0:
        eps = guarantee.epsilon or 0.0
        log_delta = math.log(k) + (k - 1) * eps + math.log(guarantee.delta)
        numbers_["delta"] = 1.0 if log_delta >= 0 else math.exp(log_delta)
    if guarantee.mu is not None:
        numbers_["mu"] = k * guarantee.mu
    shown_numbers = ", ".join(f"{name} = {value:g}" for name, value in numbers_.items())
    if numbers_.get("delta") == 1.0:  # δ reaches 1: no guarantee is left for a group this large
        return replace(guarantee, kind="none", text=f"no guarantee for a group of {k:,} units: {shown_numbers} "
                                                    f"({guarantee.text})",
                       neighbours=f"{k:,} changed units ({guarantee.neighbours})" if guarantee.neighbours else "",
                       **numbers_)
    return replace(guarantee, text=f"for a group of {k:,} units: {shown_numbers} ({guarantee.text})",
                   neighbours=f"{k:,} changed units ({guarantee.neighbours})" if guarantee.neighbours else "",
                   **numbers_)


# ---------------------------------------------------------------------------------------------
# re-identification among k candidates


def check_prior(prior, name: str = "prior (over the candidates)") -> np.ndarray:
    """A prior over at least 2 candidates: weights, normalised to sum 1."""
    prior = check_probability_vector(prior, name, normalise=True, min_length=2)
    if prior.ndim != 1:
        raise ValueError(f"{name} must be one list of weights (one per candidate).")
    return prior


def check_candidates(candidates) -> int:
    """The number k of candidates: a whole number from 2 to 2^53."""
    return check_positive_int(candidates, "candidates (k, the number of candidates)", minimum=2, maximum=2**53)


def reidentification_bound(prior, epsilon: float, delta: float = 0.0) -> float:
    """The largest chance of naming the right one of k candidates (every two neighbours) with the
    prior π, under ε-DP (δ = 0) or (ε, δ)-DP: success = Σ_o max_w π_w P(o | w) at best.

    Pure ε: max_m e^ε S_m/(e^ε + m − 1), S_m the sum of the m largest π (exact: RRWithPrior, Ghazi et
    al. 2021, attains it), evaluated as S_m/(1 + (m − 1)e^{−ε}). (ε, δ) with a uniform prior:
    (e^ε + (k − 1)δ)/(e^ε + k − 1) (`uniform_reidentification_bound`); other priors: the exact
    k-candidate LP (`reidentification_lp`).
    """
    prior = check_prior(prior)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, allow_zero=True)
    if delta == 0:
        top = np.cumsum(np.sort(prior)[::-1])
        m = np.arange(1, prior.size + 1)
        return float(min(1.0, np.max(top / (1.0 + (m - 1) * math.exp(-epsilon)))))
    if np.ptp(prior) <= 1e-15:
        return uniform_reidentification_bound(prior.size, epsilon, delta)
    return reidentification_lp(prior, epsilon, delta)


def uniform_reidentification_bound(candidates: int, epsilon: float, delta: float = 0.0) -> float:
    """(e^ε + (k − 1)δ)/(e^ε + k − 1) for k candidates under a uniform prior and (ε, δ)-DP, evaluated as
    (1 + (k − 1)δe^{−ε})/(1 + (k − 1)e^{−ε}); δ = 0: e^ε/(e^ε + k − 1), attained by k-ary randomised
    response. A valid bound for every k (each row of the k × k guessing matrix sums to 1 and each of
    its entries is at least e^{−ε}(M[v, v] − δ)); the exact LP meets it for small k."""
    k = check_candidates(candidates)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, allow_zero=True)
    spread = (k - 1) * math.exp(-epsilon)
    return float(min(1.0, (1.0 + spread * delta) / (1.0 + spread)))


def reidentification_lp(prior, epsilon: float, delta: float = 0.0) -> float:
    """The exact largest re-identification success among k candidates under (ε, δ)-DP, by the
    k-candidate linear programme (scipy.optimize.linprog, HiGHS).

    Without loss of generality the mechanism outputs its guess (post-processing keeps (ε, δ)-DP and
    the success): maximise Σ_v π_v M[v, v] over k × k row-stochastic M with, for every ordered pair
    (w, w′), Σ_v (M[w, v] − e^ε M[w′, v])₊ ≤ δ — written with slacks s ≥ M[w, v] − e^ε M[w′, v],
    s ≥ 0, Σ_v s ≤ δ (equivalent to the condition on every set of outputs). k³ variables: at most
    `LP_CANDIDATES_MAX` candidates and ε ≤ `LP_EPSILON_MAX`.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    prior = check_prior(prior)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    delta = check_delta(delta, allow_zero=True)
    k = prior.size
    if k > LP_CANDIDATES_MAX:
        raise ValueError(f"The k-candidate LP takes at most {LP_CANDIDATES_MAX} candidates (it has k³ variables), "
                         f"got {k:,}: use uniform_reidentification_bound for a uniform prior.")
    if epsilon > LP_EPSILON_MAX:
        raise ValueError(f"The k-candidate LP needs epsilon <= {LP_EPSILON_MAX:g} (its coefficients hold e^ε), "
                         f"got {epsilon:g}; there every bound is within (k − 1)e^(−ε) of 1.")
    scale = math.exp(epsilon)
    pairs = [(w, u) for w in range(k) for u in range(k) if w != u]
    n_m, n_s = k * k, len(pairs) * k
    rows, cols, vals = [], [], []
    row = 0
    for index, (w, u) in enumerate(pairs):
        for v in range(k):  # M[w, v] − e^ε M[u, v] − s[w, u, v] ≤ 0
            rows += [row, row, row]
            cols += [w * k + v, u * k + v, n_m + index * k + v]
            vals += [1.0, -scale, -1.0]
            row += 1
    for index in range(len(pairs)):  # Σ_v s[w, u, v] ≤ δ
        rows += [row] * k
        cols += list(range(n_m + index * k, n_m + (index + 1) * k))
        vals += [1.0] * k
        row += 1
    a_ub = sparse.csr_matrix((vals, (rows, cols)), shape=(row, n_m + n_s))
    b_ub = np.concatenate([np.zeros(len(pairs) * k), np.full(len(pairs), delta)])
    a_eq = sparse.csr_matrix((np.ones(n_m), (np.repeat(np.arange(k), k), np.arange(n_m))), shape=(k, n_m + n_s))
    cost = np.zeros(n_m + n_s)
    cost[np.arange(k) * (k + 1)] = -prior
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(k), bounds=(0, None), method="highs")
    if result.status != 0:
        raise ValueError(f"The k-candidate LP did not solve ({result.message}); try fewer candidates.")
    return float(min(1.0, -result.fun))


def gdp_reidentification_bound(candidates: int, mu: float) -> float:
    """A valid bound on re-identification among k candidates (uniform prior) under μ-GDP: μ-GDP is
    (ε, δ_μ(ε))-DP for every ε ≥ 0 (`GDPCurve.delta`), so the uniform (ε, δ) bound holds at each ε
    and its minimum over ε is taken (a grid, then refined; any ε gives a valid bound)."""
    from scipy.optimize import minimize_scalar

    k = check_candidates(candidates)
    curve = GDPCurve(mu)
    if curve.mu == 0:
        return 1.0 / k

    def bound(eps):
        eps = np.asarray(eps, dtype=np.float64)
        spread = (k - 1) * np.exp(-eps)
        return (1.0 + spread * np.asarray(curve.delta(eps))) / (1.0 + spread)

    top = curve.mu ** 2 / 2 + 40 * curve.mu + math.log(k) + 40  # δ_μ(ε) and (k − 1)e^{−ε} both negligible beyond
    grid = np.linspace(0.0, top, 4001)
    values = bound(grid)
    best = int(np.argmin(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    refined = minimize_scalar(lambda e: float(bound(e)), bounds=(low, high), method="bounded",
                              options={"xatol": 1e-12 * max(1.0, high)})
    return float(min(1.0, values[best], bound(refined.x)))


# ---------------------------------------------------------------------------------------------
# metric privacy over a candidate set


def check_distances(distances, size: int) -> np.ndarray:
    """A ``size`` × ``size`` matrix of finite distances ≥ 0 (symmetric, zero diagonal, within 1e-9)."""
    try:
        matrix = np.asarray(distances, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"distances must be a square matrix of numbers, got {shown(distances)}.") from None
    if matrix.shape != (size, size):
        raise ValueError(f"distances must be a {size:,} × {size:,} matrix (one row and column per candidate), "
                         f"got shape {matrix.shape}.")
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError("distances must be finite numbers >= 0.")
    scale = max(1.0, float(matrix.max(initial=0.0)))
    if np.any(np.abs(np.diag(matrix)) > 1e-9 * scale) or np.any(np.abs(matrix - matrix.T) > 1e-9 * scale):
        raise ValueError("distances must be symmetric with a zero diagonal (d(v, v) = 0, d(v, w) = d(w, v)).")
    return matrix


def metric_inputs(prior, distances, epsilon):
    prior = check_prior(prior)
    if prior.size > METRIC_CANDIDATES_MAX:
        raise ValueError(f"The metric-privacy bounds take at most {METRIC_CANDIDATES_MAX:,} candidates (dense "
                         f"k × k distances), got {prior.size:,}.")
    matrix = check_distances(distances, prior.size)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    return prior, np.exp(-epsilon * matrix)  # kernel[w, v] = e^{−ε d(w, v)}


def isolation(prior: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """π_v/A_v, 0 where π_v = 0 (A_v ≥ π_v since d(v, v) = 0, so only a candidate of prior 0 can have
    A_v = 0, when every e^{−ε d} underflows)."""
    return np.divide(prior, weight, out=np.zeros_like(prior), where=prior > 0)


def metric_closed_form(prior, distances, epsilon: float) -> float:
    """max_v π_v/Σ_w π_w e^{−ε d(w, v)}: a valid bound on re-identification under ε·d_X-privacy, set by
    the most isolated candidate (Σ_v t_v A_v ≤ 1 with A_v = Σ_w π_w e^{−ε d(w, v)} follows from the LP's
    constraints; see `metric_reidentification_lp`)."""
    prior, kernel = metric_inputs(prior, distances, epsilon)
    return float(min(1.0, np.max(isolation(prior, prior @ kernel))))


def metric_dual_bound(prior, distances, epsilon: float) -> float:
    """The cheap valid bound min_{c ≥ 0}[c + Σ_v (π_v − c Σ_w π_w e^{−ε d(w, v)})₊]: the LP's dual at
    y_w = c π_w, so never below the LP bound and never above the closed form (its value at the
    largest breakpoint). The minimum of this convex piecewise-linear function of c is at c = 0 or at a
    breakpoint c_v = π_v/A_v: all breakpoints are evaluated at once, in O(k log k) after A."""
    prior, kernel = metric_inputs(prior, distances, epsilon)
    weight = prior @ kernel  # A_v
    breaks = isolation(prior, weight)
    order = np.argsort(breaks)
    c, pi, a = breaks[order], prior[order], weight[order]
    # for c = c_j the positive terms are those v with c_v > c_j: the suffix after j (ties add 0)
    suffix_pi = np.concatenate([np.cumsum(pi[::-1])[::-1][1:], [0.0]])
    suffix_a = np.concatenate([np.cumsum(a[::-1])[::-1][1:], [0.0]])
    values = c + suffix_pi - c * suffix_a
    return float(min(1.0, values.min()))


def metric_reidentification_lp(prior, distances, epsilon: float) -> float:
    """The LP bound on re-identification under ε·d_X-privacy: maximise Σ_v π_v t_v subject to
    Σ_v e^{−ε d(v, w)} t_v ≤ 1 for every w and 0 ≤ t ≤ 1, t_v = P(guess v | input v) (from
    P(guess v | w) ≥ e^{−ε d(v, w)} t_v and Σ_v P(guess v | w) = 1). scipy's HiGHS on the dense k × k
    constraints: seconds for a few hundred candidates, up to minutes for 2,000 (3 s for 300, 3.5 min for
    2,000 measured on 2 loaded cores); `metric_dual_bound` is the cheap valid alternative."""
    from scipy.optimize import linprog

    prior, kernel = metric_inputs(prior, distances, epsilon)
    result = linprog(-prior, A_ub=kernel, b_ub=np.ones(prior.size), bounds=(0.0, 1.0), method="highs")
    if result.status != 0:
        raise ValueError(f"The metric-privacy LP did not solve ({result.message}).")
    return float(min(1.0, -result.fun))


@dataclass(frozen=True)
class MetricReidentificationBounds:
    """The three bounds on re-identification under ε·d_X-privacy over one candidate set, loosest last:
    ``lp`` (None when not computed) ≤ ``dual`` ≤ ``closed_form``; ``prior_max`` = max π (guessing
    without the output)."""

    epsilon: float
    candidates: int
    prior_max: float
    lp: float | None
    dual: float
    closed_form: float

    def to_dict(self) -> dict:
        return {"epsilon": self.epsilon, "candidates": self.candidates, "prior_max": self.prior_max, "lp": self.lp,
                "dual": self.dual, "closed_form": self.closed_form}


def metric_reidentification_bounds(prior, distances, epsilon: float, lp: bool = True) -> MetricReidentificationBounds:
    """`metric_reidentification_lp` (when ``lp``), `metric_dual_bound` and `metric_closed_form` together,
    so the gap between them can be shown (the closed form is set by the most isolated candidate)."""
    prior = check_prior(prior)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    return MetricReidentificationBounds(
        epsilon, int(prior.size), float(prior.max()),
        metric_reidentification_lp(prior, distances, epsilon) if lp else None,
        metric_dual_bound(prior, distances, epsilon), metric_closed_form(prior, distances, epsilon))


# ---------------------------------------------------------------------------------------------
# choosing ε for an attack target


#: Standard errors added to a measured attack success before it is compared with a target: + 2 SE,
#: about a one-sided 97.7 % upper limit for a normal estimate (the ±2 SE of every attacker's view).
TARGET_STANDARD_ERRORS = 2.0


def largest_epsilon_under(target: float, epsilons, successes, standard_errors=None, *,
                          z: float = TARGET_STANDARD_ERRORS) -> float | None:
    """The largest ε of the grid ``epsilons`` (any order) that keeps an attack at most ``target``: the
    largest grid ε such that at it **and at every smaller grid ε** the attack's success — the exact value
    (a bound, an exact Bayes success: ``standard_errors`` None or 0), or the measured success plus ``z``
    standard errors — is at most ``target`` (equality meets it). None when even the smallest ε of the grid
    misses it. A NaN or None success (an ε where the attack is undefined) or a NaN standard error never
    meets it. The one rule of every page, command and Choose epsilon.

    Why the prefix and not "any grid ε under the target": a measured success need not be monotone in ε
    (sampling error; a sampled attack refitted at each ε), so past the true crossing a measured curve
    can dip back under the target by chance, and the more grid points past it, the likelier such a dip
    (a multiple-comparisons error). Requiring every smaller ε to pass too means a dip after a failure
    never counts, and the answer is a whole range [smallest ε, answer] in which the attack stayed under
    the target. Adding z SE (not taking the estimate) makes a measured answer cautious: at each ε the true
    success is under the measured one + 2 SE with about 97.7 % confidence (normal approximation; the
    spec's ±2 SE); ``z`` = −2 gives the optimistic end of the ±2 SE range (never the answer). Where the success is an upper bound on every
    attacker (the guarantee's), the answer holds for every attacker; where it is one attack's success,
    only for that attack (a lower bound on the best attacker's).

    ValueError (saying what to give) for a target outside [0, 1], an empty or repeated grid, an ε that is
    not a finite number ≥ 0, successes or standard errors not one per ε, or a negative standard error."""
    target = check_range(target, "target (the attack success you accept)", low=0.0, high=1.0)
    z = check_range(z, "z (standard errors added to a measured success)")
    try:
        grid = None if isinstance(epsilons, (str, bytes)) else np.atleast_1d(np.asarray(epsilons, dtype=object))
    except (TypeError, ValueError):
        grid = None
    if grid is None or grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"epsilons must be a non-empty flat list of numbers (the grid), got {shown(epsilons)}.")
    grid = np.array([check_epsilon(e, allow_zero=True) for e in grid.tolist()], dtype=np.float64)
    if np.unique(grid).size != grid.size:
        raise ValueError(f"epsilons must be distinct (each grid ε once), got {shown(epsilons)}.")
    values = _per_epsilon(successes, grid.size, "successes")
    if standard_errors is not None:
        se = _per_epsilon(standard_errors, grid.size, "standard_errors")
        if np.any(se < 0):
            raise ValueError(f"standard_errors must be at least 0, got {shown(standard_errors)}.")
        values = values + z * se
    best = None
    for i in np.argsort(grid, kind="stable"):
        if not values[i] <= target:  # NaN fails too
            break
        best = float(grid[i])
    return best


def _per_epsilon(values, size: int, name: str) -> np.ndarray:
    """``values`` as a float64 array of one value per grid ε (None → NaN), or a ValueError naming ``name``."""
    try:
        array = None if isinstance(values, (str, bytes)) else np.atleast_1d(np.asarray(
            [np.nan if v is None else v for v in np.atleast_1d(np.asarray(values, dtype=object)).tolist()],
            dtype=np.float64))
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != (size,):
        raise ValueError(f"{name} must hold one number per epsilon ({size}), got {shown(values)}.")
    return array


# ---------------------------------------------------------------------------------------------
# all the attack terms of one guarantee


def attack_terms(guarantee: Guarantee, prior: float = 0.5, candidates: int | None = None,
                 people: int | None = None, distance: float | None = None, points: int = 101) -> dict:
    """Every attack term of a guarantee as one JSON-ready dict: its curve's maximal advantage, TPR at
    FPR 1 % and 0.1 %, the guessing chance at ``prior``, the posterior statement, the privacy loss
    (None for ∞), the k-candidate bound for ``candidates`` (uniform prior), δ for ``people`` and the
    sampled curve (``points`` evenly spaced FPRs plus small ones and the kinks). "none": no curve."""
    prior = check_probability(prior, "prior (the attacker's belief in x before the output)", open_low=True,
                              open_high=True)
    curve = tradeoff_curve(guarantee, distance)
    statement = posterior_statement(guarantee, prior, distance)
    terms = {"guarantee": guarantee.to_dict(), "private": curve is not None, "prior": prior,
             "posterior": statement.to_dict(), "sentence": statement.sentence}
    if curve is None:
        return terms | {"advantage": 1.0, "tpr_at_fpr": [{"fpr": f, "tpr": 1.0} for f in REPORTED_FPRS],
                        "guessing_chance": 1.0, "privacy_loss": None, "reidentification": None,
                        "delta_for_people": None, "curve": None}
    loss = curve.privacy_loss
    terms |= {"curve_label": curve.label, "advantage": curve.advantage,
              "tpr_at_fpr": [{"fpr": f, "tpr": t} for f, t in curve.tpr_at_reported_fprs().items()],
              "guessing_chance": curve.guessing_chance(prior), "privacy_loss": loss if math.isfinite(loss) else None}
    if candidates is None:
        terms["reidentification"] = None
    else:
        k = check_candidates(candidates)
        bound = (gdp_reidentification_bound(k, curve.mu) if isinstance(curve, GDPCurve)
                 else uniform_reidentification_bound(k, curve.epsilon, curve.delta))
        terms["reidentification"] = {"candidates": k, "prior": 1.0 / k, "bound": bound,
                                     "method": "the (ε, δ(ε)) envelope of μ-GDP" if isinstance(curve, GDPCurve)
                                     else "closed form, uniform prior"}
    terms["delta_for_people"] = (delta_for_people(curve.delta, people).to_dict()
                                 if isinstance(curve, DPCurve) and curve.delta > 0 else None)
    fpr, fnr = curve.points(points)
    terms["curve"] = {"fpr": fpr, "fnr": fnr}
    return terms


__all__ = [
    "LP_CANDIDATES_MAX",
    "LP_EPSILON_MAX",
    "METRIC_CANDIDATES_MAX",
    "MU_MAX",
    "REPORTED_FPRS",
    "TARGET_STANDARD_ERRORS",
    "DPCurve",
    "DeltaForPeople",
    "FinitePairCurve",
    "GDPCurve",
    "MetricReidentificationBounds",
    "PosteriorStatement",
    "TradeoffCurve",
    "attack_terms",
    "check_guarantee",
    "check_rates",
    "delta_for_people",
    "dp_loss_tail",
    "gdp_reidentification_bound",
    "group_guarantee",
    "largest_epsilon_under",
    "metric_closed_form",
    "metric_dual_bound",
    "metric_reidentification_bounds",
    "metric_reidentification_lp",
    "percent",
    "plain_sentence",
    "posterior_statement",
    "privacy_loss",
    "pure_posterior",
    "reidentification_bound",
    "reidentification_lp",
    "tradeoff_curve",
    "uniform_reidentification_bound",
]
