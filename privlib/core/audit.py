"""Auditing a mechanism: an empirical lower bound on its privacy loss, measured from its releases.

Differential privacy bounds every test between neighbouring inputs x ("positive") and x′: a test
that says "x" with false-positive rate α = P(says x | x′) and false-negative rate
β = P(says x′ | x) satisfies α + e^ε β ≥ 1 − δ and e^ε α + β ≥ 1 − δ (Kairouz, Oh & Viswanath
2015; Wasserman & Zhou 2010). So any test whose error rates are bounded from above by α_U, β_U
shows

    ε ≥ ε̂ = max{ln((1 − δ − β_U)/α_U), ln((1 − δ − α_U)/β_U)}      (0 when neither is defined),

and for a μ-GDP mechanism (Dong, Roth & Su 2022: β ≥ Φ(Φ⁻¹(1 − α) − μ))

    μ ≥ μ̂ = Φ⁻¹(1 − α_U) − Φ⁻¹(β_U).

The procedure (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021): run the mechanism many times on
each input of a neighbouring pair, split the releases, choose the test (a threshold on a score:
the exact likelihood ratio where the output law is given, a given score function, or by default
the empirical likelihood ratio of discrete outputs / the projection on the mean difference of
numeric outputs) on the first part only, and count false positives and false negatives on the
second. α_U and β_U are one-sided Clopper–Pearson upper bounds at γ/2 each (γ = 1 − confidence),
with γ split equally (Bonferroni) over the tests counted: one for ε̂, and one more for μ̂ on
Gaussian mechanisms. ε̂ above the claimed ε at this confidence is a bug in the mechanism (or in
its claim); ε̂ below it says little by itself: with n releases counted per side, no audit can show
more than its ceiling ln((1 − δ)/α_U(0 of n)) (7.2 at n = 5,000, 95 %), so a small ε̂ may mean a
weak audit, not a strong guarantee.

Where the output law is finite and given, the pair's exact privacy loss max_o |ln P(o | x)/P(o | x′)|
and its exact δ(ε) = Σ_o (P(o | x) − e^ε P(o | x′))₊ (the larger of the two orders) are reported too
(`privlib.core.risk.FinitePairCurve`, the pair's exact trade-off curve).

The mechanism enters as a release function ``release(input, rng, size)`` returning ``size``
outputs (an array whose first axis has ``size`` entries): a small adapter turns any mechanism of
the protocol (`privlib.core.mechanism.Mechanism`) into one, and its ``guarantee`` is the claim.
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from privlib.core.mechanism import Guarantee
from privlib.core.statistics import clopper_pearson_upper
from privlib.core.sweep import Progress, child_rng
from privlib.core.validation import (
    check_delta,
    check_positive_int,
    check_probability_vector,
    check_range,
    check_seed,
    duration,
    refuse_long_work,
    shown,
)

#: ``release(input, rng, size)`` → an array of ``size`` outputs (first axis), each a number, a
#: vector or an integer outcome.
ReleaseFunction = Callable[[object, np.random.Generator, int], np.ndarray]

#: Releases per side of the default audit: 5,000 to choose the test, 5,000 to count (ceiling 7.2 at 95 %).
DEFAULT_RELEASES = 10_000
#: The share of each side's releases that chooses the test (the rest are counted).
DEFAULT_SELECTION = 0.5
#: The first chunks of each side: one release to warm up (imports, caches), then two probes of
#: different sizes, timed to separate a call's fixed cost from the cost per release; the rest is
#: drawn in at most `RELEASE_CHUNKS` chunks (for progress).
FIRST_CHUNKS, RELEASE_CHUNKS = (1, 4, 16), 20
#: Releases of the timing probe drawn (and discarded) when the later chunks are much larger than the
#: probes: on 4 and 16 releases a cheap mechanism's call is all fixed cost, and timing noise could give
#: a cost per release of 0 (randomised response: 10⁹ releases per side were estimated at under 2 s).
TIMING_PROBE = 4096
#: The most bytes of releases an audit holds (both sides of every pair): above it, refused at once.
MAX_RELEASE_BYTES = 4 * 2**30
#: Thresholds tried per end of the score's range (geometrically spaced ranks, dense in the tails
#: where the ε test lives) and in between (evenly spaced ranks).
THRESHOLDS = 256
#: Discrete outputs get the empirical likelihood ratio when the selection part shows at most this
#: share of its releases as distinct outcomes (else too few releases per outcome to estimate it).
MAX_OUTCOME_SHARE = 0.25

#: How the test's score was built, for people.
SCORES = {
    "exact": "the exact likelihood ratio of the given output law",
    "given": "the given score function",
    "empirical": "the empirical likelihood ratio of the selection releases",
    "projection": "the projection on the difference of the selection releases' means",
}


# ---------------------------------------------------------------------------------------------
# error rates → ε and μ


def epsilon_from_error_rates(alpha, beta, delta: float = 0.0):
    """ε̂ = max{ln((1 − δ − β)/α), ln((1 − δ − α)/β)}, 0 where neither is defined or both are below 0.

    The smallest ε with which a test of false-positive rate α and false-negative rate β is
    compatible under (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Theorem 2.1). Vectorised."""
    delta = check_delta(delta, allow_zero=True)
    alpha, beta = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where((1 - delta - beta > 0) & (alpha > 0), np.log((1 - delta - beta) / alpha), 0.0)
        second = np.where((1 - delta - alpha > 0) & (beta > 0), np.log((1 - delta - alpha) / beta), 0.0)
    value = np.maximum(0.0, np.maximum(first, second))
    return float(value) if value.ndim == 0 else value


def mu_from_error_rates(alpha, beta):
    """μ̂ = Φ⁻¹(1 − α) − Φ⁻¹(β), at least 0: the smallest μ with which the test is compatible under
    μ-GDP, whose trade-off curve is β ≥ Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022). Vectorised."""
    from scipy.special import ndtri

    alpha, beta = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        value = ndtri(1 - alpha) - ndtri(beta)
    value = np.maximum(0.0, np.nan_to_num(value, nan=0.0))
    return float(value) if value.ndim == 0 else value


# ---------------------------------------------------------------------------------------------
# exact laws


def _law_pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    """The two output laws of a pair, checked: probability vectors over the same outcomes."""
    p = check_probability_vector(p, "law(x) (the output law of x)", normalise=False)
    q = check_probability_vector(q, "law(x′) (the output law of x′)", normalise=False, length=p.shape[-1])
    if p.ndim != 1:
        raise ValueError("law must give one probability vector over the outcomes per input.")
    return p, q


# ---------------------------------------------------------------------------------------------
# the result


def _number(value):
    """A float for JSON: None for None, infinity and NaN."""
    return None if value is None or not math.isfinite(value) else float(value)


@dataclass(frozen=True)
class AuditTest:
    """One test as counted on the counting part: says "x" when ``direction`` × score ≥
    ``threshold`` (score of ``pair``), with its counts of ``counted`` releases per side, the
    Clopper–Pearson upper bounds ``alpha_upper``/``beta_upper`` and the ``value`` (ε̂ or μ̂,
    ``statistic``) they give."""

    statistic: str
    pair: int
    direction: int
    threshold: float
    counted: int
    false_positives: int
    false_negatives: int
    alpha_upper: float
    beta_upper: float
    value: float

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.counted

    @property
    def false_negative_rate(self) -> float:
        return self.false_negatives / self.counted

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pair": self.pair, "direction": self.direction,
                "threshold": _number(self.threshold), "counted": self.counted,
                "false_positives": self.false_positives, "false_negatives": self.false_negatives,
                "alpha_upper": self.alpha_upper, "beta_upper": self.beta_upper, "value": self.value}


@dataclass(frozen=True, eq=False)
class AuditResult:
    """What an audit found (`audit`). ``epsilon`` is ε̂ and ``mu`` μ̂ (None unless Gaussian), each a
    lower bound that holds with probability at least ``confidence``; ``ceiling`` (``mu_ceiling``)
    the largest value an audit with this many releases counted could show; ``claimed_epsilon``
    and ``claimed_mu`` what the claim allows for the tested pair (None: no claim, or none of that
    kind; infinity: no finite bound at this δ); ``exact_loss`` and ``exact_delta`` (at the claimed
    ε) the pair's exact values where the output law was given (the largest over the pairs)."""

    epsilon: float
    mu: float | None
    ceiling: float
    mu_ceiling: float | None
    confidence: float
    delta: float
    releases: int
    selected: int
    counted: int
    pairs: int
    tests: int
    score: str
    epsilon_test: AuditTest
    mu_test: AuditTest | None
    claim: Guarantee | None
    claimed_epsilon: float | None
    claimed_mu: float | None
    exact_loss: float | None
    exact_delta: float | None
    seed: int
    seconds: float
    estimated_seconds: float | None
    curves: tuple = field(default=(), repr=False)

    @property
    def exceeds_claim(self) -> bool | None:
        """True when ε̂ is above the claimed ε or μ̂ above the claimed μ (at the audit's confidence:
        the mechanism does not keep its guarantee); None without a claim to compare with."""
        verdicts = []
        if self.claimed_epsilon is not None:
            verdicts.append(self.epsilon > self.claimed_epsilon)
        if self.claimed_mu is not None and self.mu is not None:
            verdicts.append(self.mu > self.claimed_mu)
        return any(verdicts) if verdicts else None

    def exact_delta_at(self, epsilon):
        """The exact δ(ε) of the pairs, the largest over both orders of every pair (ε >= 0, finite;
        vectorised), where the output law was given; None otherwise."""
        if not self.curves:
            return None
        value = np.max([curve.delta(epsilon) for pair in self.curves for curve in pair], axis=0)
        return float(value) if np.ndim(value) == 0 else value

    def summary(self) -> str:
        """The finding in plain words."""
        level = f"{100 * self.confidence:g} %"
        parts = [f"At {level} confidence the releases show ε ≥ {self.epsilon:.3g}"
                 + (f" and μ ≥ {self.mu:.3g}" if self.mu is not None else "")]
        claims = []
        if self.claimed_epsilon is not None:
            claims.append(f"ε = {self.claimed_epsilon:.3g}" if math.isfinite(self.claimed_epsilon) else "no finite ε")
        if self.claimed_mu is not None:
            claims.append(f"μ = {self.claimed_mu:.3g}")
        if claims:
            parts[0] += f" (claimed: {', '.join(claims)}{f' at δ = {self.delta:g}' if self.delta else ''})"
        parts[0] += "."
        parts.append(f"With {self.counted:,} releases counted per side, no audit could show more than "
                     f"ε = {self.ceiling:.1f}, so a small value may mean a weak audit, not a strong guarantee.")
        if self.exact_loss is not None:
            parts.append(f"The exact privacy loss of the pair is {self.exact_loss:.3g}.")
        if self.exceeds_claim:
            parts.append("This is above the claim: the mechanism does not keep its guarantee.")
        return " ".join(parts)

    def to_dict(self) -> dict:
        """JSON-ready (strict: infinite or undefined numbers are None)."""
        return {
            "epsilon": self.epsilon, "mu": _number(self.mu), "ceiling": _number(self.ceiling),
            "mu_ceiling": _number(self.mu_ceiling), "confidence": self.confidence, "delta": self.delta,
            "releases": self.releases, "selected": self.selected, "counted": self.counted, "pairs": self.pairs,
            "tests": self.tests, "score": self.score, "epsilon_test": self.epsilon_test.to_dict(),
            "mu_test": None if self.mu_test is None else self.mu_test.to_dict(),
            "claim": None if self.claim is None else self.claim.to_dict(),
            "claimed_epsilon": _number(self.claimed_epsilon), "claimed_mu": _number(self.claimed_mu),
            "exceeds_claim": self.exceeds_claim, "exact_loss": _number(self.exact_loss),
            "exact_loss_infinite": self.exact_loss is not None and math.isinf(self.exact_loss),
            "exact_delta": _number(self.exact_delta), "seed": self.seed, "seconds": self.seconds,
            "estimated_seconds": _number(self.estimated_seconds), "summary": self.summary(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


# ---------------------------------------------------------------------------------------------
# the audit


def _pairs(pair) -> list[tuple]:
    """One pair (x, x′) as a tuple, or several as a list of such tuples."""
    pairs = pair if isinstance(pair, list) else [pair]
    if not pairs:
        raise ValueError("pair is an empty list: give one neighbouring pair (x, x′) or a list of them.")
    for item in pairs:
        if not isinstance(item, tuple) or len(item) != 2:
            raise ValueError(f"pair must be a tuple (x, x′) of two neighbouring inputs, or a list of such tuples; "
                             f"got {shown(item)}.")
    return pairs


def claim_of(mechanism) -> Guarantee:
    """The guarantee a mechanism claims, to audit it against; ValueError for a mechanism with none
    (kind "none": there is no claim, so nothing an audit could contradict)."""
    claim = mechanism.guarantee
    if not claim.is_private:
        raise ValueError(f"{mechanism.label} has no privacy guarantee ({claim.text}), so there is no claim to audit; "
                         "choose a mechanism with a guarantee.")
    return claim


def _claims(claim: Guarantee | None, delta: float, distances: list[float | None], gaussian: bool):
    """Per pair: the claimed ε at the audit's δ (None: nothing to compare; inf: no finite ε) and
    the claimed μ (None unless the claim has one and the audit is Gaussian)."""
    if claim is None or not claim.is_private:
        return [None] * len(distances), [None] * len(distances)
    if claim.delta is not None and delta < claim.delta:
        raise ValueError(f"delta of the audit ({delta:g}) is below the claim's δ ({claim.delta:g}): an (ε, δ) "
                         f"mechanism may show more than ε at a smaller δ. Audit at delta={claim.delta:g} (the default).")
    mu = claim.mu if gaussian else None
    if claim.kind == "gdp" and claim.mu is not None:
        from privlib.core.calibration import analytic_gaussian_epsilon

        epsilon = analytic_gaussian_epsilon(claim.mu, delta) if delta > 0 else math.inf
        if claim.epsilon is not None and claim.delta is not None and delta >= claim.delta:
            epsilon = min(epsilon, claim.epsilon)
        return [epsilon] * len(distances), [mu] * len(distances)
    if claim.epsilon is None:
        return [None] * len(distances), [mu] * len(distances)
    if claim.kind == "metric-dp":
        if any(d is None for d in distances):
            raise ValueError("The claim is ε·d_X-privacy: give distance=d(x, x′) (a number, or one per pair) "
                             "so that the audit can compare with ε·d(x, x′).")
        return [claim.epsilon * d for d in distances], [mu] * len(distances)
    return [claim.epsilon] * len(distances), [mu] * len(distances)


def _distances(distance, count: int) -> list[float | None]:
    if distance is None:
        return [None] * count
    values = list(distance) if isinstance(distance, (list, tuple, np.ndarray)) else [distance] * count
    if len(values) != count:
        raise ValueError(f"distance must be one number or one per pair ({count}), got {len(values)}.")
    return [check_range(d, "distance d(x, x′)", low=0.0) for d in values]


def _chunk_sizes(releases: int) -> list[int]:
    """The fixed chunk schedule of one side (it depends only on ``releases``, so a seed always
    gives the same draws, however long each took): `FIRST_CHUNKS`, then at most `RELEASE_CHUNKS`
    equal chunks."""
    sizes, left = [], releases
    for first in FIRST_CHUNKS:
        take = min(first, left)
        if take:
            sizes.append(take)
            left -= take
    if left:
        per = math.ceil(left / RELEASE_CHUNKS)
        while left:
            sizes.append(min(per, left))
            left -= sizes[-1]
    return sizes


def _checked_outputs(value, size: int) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim == 0 or array.shape[0] != size:
        got = "no array" if array is None else f"shape {array.shape}"
        raise ValueError(f"The release function must return {size:,} outputs (an array whose first axis has one "
                         f"entry per release), got {got}.")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"The release function must return numbers (or integer outcomes), got {array.dtype}.")
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError("The release function returned a NaN or infinite output: an audit needs finite outputs.")
    return array


def _refuse_long(estimate: float, allow_long: bool) -> None:
    refuse_long_work(estimate, allow_long, "This audit", "use fewer releases")


def _draw(release, pairs, releases, seed, progress, allow_long):
    """Every release of every (pair, side), chunk by chunk from ``child_rng(seed, "audit-release",
    pair, side, chunk)``, with the time estimate and the refusal of long work.

    A call of ``size`` releases is taken to cost a + b·size. After the warm-up, the first probe
    (size s₁, t₁ seconds a call) bounds every later call of size s from below by t₁·min(1, s/s₁):
    when that alone is above the limit, the audit is refused at once. The second probe (s₂, t₂)
    gives b = (t₂ − t₁)/(s₂ − s₁), clipped to [0, t₁/s₁] (a >= 0), and a = t₁ − b·s₁, hence the
    estimate, refused above the limit. Each probe's time is its quickest call. When the later chunks
    are much larger than the probes, b is taken from a timing call of `TIMING_PROBE` releases instead
    (its own random stream, its releases discarded: the audit's draws do not change). An audit whose
    releases would take more than `MAX_RELEASE_BYTES` is refused after the first release."""
    sizes = _chunk_sizes(releases)
    calls = [(i, side) for i in range(len(pairs)) for side in (0, 1)]
    total = len(calls) * releases
    chunks = {key: [] for key in calls}
    done, estimate, start = 0, None, time.perf_counter()

    def run(c: int) -> float:
        """Chunk c of every (pair, side); the seconds of its quickest call (a pause of the machine
        during one call does not inflate the estimate)."""
        nonlocal done
        quickest = math.inf
        for i, side in calls:
            began = time.perf_counter()
            rng = child_rng(seed, "audit-release", i, side, c)
            chunks[(i, side)].append(_checked_outputs(release(pairs[i][side], rng, sizes[c]), sizes[c]))
            quickest = min(quickest, time.perf_counter() - began)
            done += sizes[c]
            if progress is not None and estimate is not None:
                progress(0.95 * done / total, f"audit: {done:,} of {total:,} releases")
        return quickest

    probes = len(FIRST_CHUNKS)
    seconds = [run(c) for c in range(min(2, len(sizes)))]
    first = chunks[calls[0]][0]
    held = len(calls) * releases * first.nbytes / max(first.shape[0], 1)
    if held > MAX_RELEASE_BYTES:
        raise ValueError(f"This audit would hold about {held / 2**30:,.1f} GiB of releases (at most "
                         f"{MAX_RELEASE_BYTES / 2**30:g} GiB): use fewer releases.")
    if len(sizes) > 2:
        # a + b·s >= (a + b·s₁)·min(1, s/s₁): a lower bound on every later call from the first probe alone
        lower = len(calls) * sum(seconds[1] * min(1.0, s / sizes[1]) for s in sizes[2:])
        _refuse_long(time.perf_counter() - start + lower, allow_long)
        seconds.append(run(2))
    if len(sizes) > 1:
        s1, t1 = sizes[1], seconds[1]
        # a >= 0 gives b <= t₁/s₁: a slow second probe cannot make the estimate exceed t₁/s₁ a release
        per_release = t1 / s1
        if len(sizes) > 2 and sizes[2] > s1:
            per_release = min(per_release, max(0.0, (seconds[2] - t1) / (sizes[2] - s1)))
        if len(sizes) > probes and max(sizes[probes:]) > 4 * TIMING_PROBE:
            # the later chunks dwarf the probes: time one call of TIMING_PROBE releases (its own stream, discarded)
            # for the cost per release, which the probes' fixed cost hides
            began = time.perf_counter()
            _checked_outputs(release(pairs[0][0], child_rng(seed, "audit-timing"), TIMING_PROBE), TIMING_PROBE)
            per_release = min(t1 / s1, max(0.0, (time.perf_counter() - began - t1) / (TIMING_PROBE - s1)))
        fixed = max(0.0, t1 - per_release * s1)
        estimate = time.perf_counter() - start + len(calls) * sum(fixed + per_release * s for s in sizes[probes:])
        _refuse_long(estimate, allow_long)
        if progress is not None:
            progress(0.95 * done / total, f"audit: about {duration(estimate)} (estimate)")
    for c in range(probes, len(sizes)):
        run(c)
    outputs = {}
    for key, parts in chunks.items():
        try:
            outputs[key] = np.concatenate(parts, axis=0)
        except ValueError:
            raise ValueError("The release function returned outputs of different shapes: every output must have "
                             "the same shape.") from None
    return outputs, estimate


def _scorer(outputs_x, outputs_y, selected, score, law_pair):
    """The score (larger: more like x) of every output of one pair, built from the selection part
    only: (scores of x's releases, scores of x′'s releases, the score's kind)."""
    if law_pair is not None:
        p, q = law_pair
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where((p > 0) | (q > 0), np.log(p) - np.log(q), 0.0)
        scores = []
        for outputs, law, side in ((outputs_x, p, "x"), (outputs_y, q, "x′")):
            flat = outputs.reshape(outputs.shape[0], -1)
            if flat.shape[1] != 1 or outputs.dtype.kind not in "iu":
                raise ValueError("With a law, each output must be one whole number: the index of the outcome "
                                 "in the law's probability vector.")
            index = flat[:, 0].astype(np.int64)
            if index.min() < 0 or index.max() >= p.size:
                raise ValueError(f"An output is outside the law's outcomes 0..{p.size - 1}.")
            if np.any(law[index] == 0):
                raise ValueError(f"The release of {side} gave an outcome its law says is impossible: the release "
                                 f"function and the law disagree.")
            scores.append(ratio[index])
        return scores[0], scores[1], "exact"
    if score is not None:
        result = []
        for outputs in (outputs_x, outputs_y):
            values = np.asarray(score(outputs), dtype=np.float64).reshape(-1)
            if values.size != outputs.shape[0] or np.any(np.isnan(values)):
                raise ValueError("score must return one number (not NaN) per output.")
            result.append(values)
        return result[0], result[1], "given"
    flat_x = outputs_x.reshape(outputs_x.shape[0], -1)
    flat_y = outputs_y.reshape(outputs_y.shape[0], -1)
    if outputs_x.dtype.kind in "biu" and outputs_y.dtype.kind in "biu":
        _, ids = np.unique(np.concatenate([flat_x, flat_y]), axis=0, return_inverse=True)
        ids = ids.reshape(-1)
        ids_x, ids_y = ids[: flat_x.shape[0]], ids[flat_x.shape[0]:]
        count_x = np.bincount(ids_x[:selected], minlength=ids.max() + 1)
        count_y = np.bincount(ids_y[:selected], minlength=ids.max() + 1)
        if np.count_nonzero(count_x + count_y) <= MAX_OUTCOME_SHARE * 2 * selected:
            # add-½ smoothing: an outcome seen on one side only gets a large but finite ratio;
            # one never seen in the selection part gets 0 (no evidence either way)
            ratio = np.log(count_x + 0.5) - np.log(count_y + 0.5)
            return ratio[ids_x], ratio[ids_y], "empirical"
    flat_x, flat_y = flat_x.astype(np.float64), flat_y.astype(np.float64)
    mean_x, mean_y = flat_x[:selected].mean(axis=0), flat_y[:selected].mean(axis=0)
    direction, middle = mean_x - mean_y, (mean_x + mean_y) / 2
    return (flat_x - middle) @ direction, (flat_y - middle) @ direction, "projection"


def _thresholds(scores: np.ndarray) -> np.ndarray:
    """Candidate thresholds: every distinct score when few, else ranks dense in both tails."""
    ordered = np.sort(scores)
    count = ordered.size
    if count > 3 * THRESHOLDS:
        ends = np.unique(np.round(np.geomspace(1, count, THRESHOLDS)).astype(np.int64) - 1)
        ranks = np.concatenate([ends, count - 1 - ends, np.round(np.linspace(0, count - 1, THRESHOLDS)).astype(np.int64)])
        ordered = ordered[np.unique(ranks)]
    return np.unique(ordered)


def _errors(scores_x, scores_y, thresholds):
    """Counts of false negatives (x said x′: score below t) and false positives (x′ said x: score ≥ t)."""
    false_negatives = np.searchsorted(np.sort(scores_x), thresholds, side="left")
    false_positives = scores_y.size - np.searchsorted(np.sort(scores_y), thresholds, side="left")
    return false_positives, false_negatives


def _statistic(statistic: str, alpha_upper, beta_upper, delta: float):
    if statistic == "epsilon":
        return epsilon_from_error_rates(alpha_upper, beta_upper, delta)
    return mu_from_error_rates(alpha_upper, beta_upper)


def audit(release: ReleaseFunction, pair, *, releases: int, seed, confidence: float = 0.95, delta: float | None = None,
          claim: Guarantee | None = None, distance=None, score: Callable[[np.ndarray], np.ndarray] | None = None,
          law: Callable[[object], Sequence[float]] | None = None, gaussian: bool | None = None,
          selection: float = DEFAULT_SELECTION, progress: Progress | None = None,
          allow_long: bool = False) -> AuditResult:
    """Audit a mechanism on a neighbouring pair: the empirical lower bound ε̂ (and μ̂) with
    Clopper–Pearson confidence, against its claim (see the module docstring for the formulas and
    sources).

    - ``release(input, rng, size)``: ``size`` outputs of the mechanism on ``input`` (an array,
      first axis one entry per release; integer outputs are outcomes, float outputs numbers or
      vectors). ``pair``: (x, x′), or a list of pairs (the pair is then chosen on the selection part).
    - ``releases``: per input; a share ``selection`` of them chooses the test, the rest is counted.
      ``seed``: the draws of chunk c of side s of pair i come from ``child_rng(seed, "audit-release",
      i, s, c)``. ``confidence``: 1 − γ of ε̂ and μ̂ together (Bonferroni over the tests counted).
    - ``claim``: the mechanism's `Guarantee`, to compare with (``exceeds_claim``); ``distance``:
      d(x, x′) for a metric-DP claim (one number, or one per pair). ``delta``: the δ of ε̂
      (default: the claim's δ, else 0; never below the claim's).
    - The test's score: ``law(input)`` (a probability vector over outcomes 0..K−1; outputs are then
      outcome indices): the exact likelihood ratio, and the exact loss and δ; else ``score(outputs)``
      (one number per output, larger: more like x, or the opposite: both directions are tried);
      else the empirical likelihood ratio of discrete outputs with few distinct outcomes, or the
      projection on the difference of the two sides' mean outputs.
    - ``gaussian``: also μ̂, and compare it with the claim's μ (default: when the claim states a μ:
      an exactly Gaussian mechanism).
    - ``progress(fraction, message)``; the time of the releases is estimated from the first ones
      (choosing and counting the test adds about 0.05 s at 10⁴ releases per side) and work above
      the long-work limit (`long_work_limit`) is refused unless ``allow_long``.
    """
    if release is None or not callable(release):
        raise ValueError("release must be a function release(input, rng, size) returning size outputs.")
    pairs = _pairs(pair)
    releases = check_positive_int(releases, "releases (per input)", minimum=2)
    seed = check_seed(seed)
    confidence = check_range(confidence, "confidence", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    selection = check_range(selection, "selection (the share of releases that chooses the test)", low=0.0, high=1.0,
                            low_inclusive=False, high_inclusive=False)
    if claim is not None and not isinstance(claim, Guarantee):
        raise ValueError(f"claim must be a Guarantee (a mechanism's .guarantee), got {type(claim).__name__}.")
    if delta is None:
        delta = claim.delta if claim is not None and claim.delta is not None else 0.0
    delta = check_delta(delta, allow_zero=True)
    if score is not None and law is not None:
        raise ValueError("Give either score or law, not both (a law gives the exact likelihood ratio as the score).")
    if score is not None and not callable(score):
        raise ValueError("score must be a function of an array of outputs returning one number per output.")
    if law is not None and not callable(law):
        raise ValueError("law must be a function of an input returning its probability vector over the outcomes.")
    if gaussian is None:
        gaussian = claim is not None and claim.mu is not None
    statistics = ("epsilon", "mu") if gaussian else ("epsilon",)
    distances = _distances(distance, len(pairs))
    claimed_epsilons, claimed_mus = _claims(claim, delta, distances, gaussian)
    laws = tuple(_law_pair(law(x), law(y)) for x, y in pairs) if law is not None else ()

    began = time.perf_counter()
    outputs, estimate = _draw(release, pairs, releases, seed, progress, allow_long)
    selected = min(max(round(selection * releases), 1), releases - 1)
    counted = releases - selected
    # Bonferroni: each statistic's test gets γ/m, split γ/(2m) to each of its two error rates
    level = 1 - (1 - confidence) / (2 * len(statistics))

    scored, kinds = [], set()
    for i in range(len(pairs)):
        scores_x, scores_y, kind = _scorer(outputs[(i, 0)], outputs[(i, 1)], selected, score,
                                           laws[i] if laws else None)
        scored.append((scores_x, scores_y))
        kinds.add(kind)

    tests = []
    for statistic in statistics:
        best = None
        for i, (scores_x, scores_y) in enumerate(scored):
            claimed = claimed_epsilons[i] if statistic == "epsilon" else claimed_mus[i]
            offset = claimed if claimed is not None and math.isfinite(claimed) else 0.0
            for direction in (1, -1):
                chosen_x, chosen_y = direction * scores_x[:selected], direction * scores_y[:selected]
                thresholds = _thresholds(np.concatenate([chosen_x, chosen_y]))
                false_positives, false_negatives = _errors(chosen_x, chosen_y, thresholds)
                # the bound each threshold would give on the counting part at its selection rates
                alpha = clopper_pearson_upper(false_positives * (counted / selected), counted, level)
                beta = clopper_pearson_upper(false_negatives * (counted / selected), counted, level)
                planned = _statistic(statistic, alpha, beta, delta) - offset
                k = int(np.argmax(planned))
                if best is None or planned[k] > best[0]:
                    best = (planned[k], i, direction, float(thresholds[k]))
        _, i, direction, threshold = best
        scores_x, scores_y = scored[i]
        false_positives = int(np.count_nonzero(direction * scores_y[selected:] >= threshold))
        false_negatives = int(np.count_nonzero(direction * scores_x[selected:] < threshold))
        alpha = clopper_pearson_upper(false_positives, counted, level)
        beta = clopper_pearson_upper(false_negatives, counted, level)
        tests.append(AuditTest(statistic, i, direction, threshold, counted, false_positives, false_negatives,
                               float(alpha), float(beta), _statistic(statistic, alpha, beta, delta)))
    epsilon_test = tests[0]
    mu_test = tests[1] if gaussian else None

    zero = clopper_pearson_upper(0, counted, level)
    ceiling = math.log((1 - delta) / zero)
    # the pair's exact curve, both orders (x positive, then x′): loss and δ(ε) are the larger of the two;
    # imported here, as scipy is elsewhere in this module, so that importing privlib.core stays cheap
    from privlib.core.risk import FinitePairCurve

    curves = tuple((FinitePairCurve(p, q), FinitePairCurve(q, p)) for p, q in laws)
    exact_loss = max(forward.privacy_loss for forward, _ in curves) if curves else None
    exact = None
    if curves and all(c is not None and math.isfinite(c) for c in claimed_epsilons):
        exact = max(float(curve.delta(c)) for pair, c in zip(curves, claimed_epsilons) for curve in pair)
    if progress is not None:
        progress(1.0, f"audit: done, ε ≥ {epsilon_test.value:.3g}")
    return AuditResult(
        epsilon=epsilon_test.value, mu=None if mu_test is None else mu_test.value, ceiling=ceiling,
        mu_ceiling=float(mu_from_error_rates(zero, zero)) if gaussian else None, confidence=confidence,
        delta=delta, releases=releases, selected=selected, counted=counted, pairs=len(pairs), tests=len(tests),
        score=" / ".join(SCORES[k] for k in sorted(kinds)), epsilon_test=epsilon_test, mu_test=mu_test, claim=claim,
        claimed_epsilon=claimed_epsilons[epsilon_test.pair],
        claimed_mu=None if mu_test is None else claimed_mus[mu_test.pair], exact_loss=exact_loss,
        exact_delta=exact, seed=seed, seconds=time.perf_counter() - began, estimated_seconds=estimate,
        curves=curves)
