"""The auditor (privlib.core.audit) on core's own mechanisms: correct calibrations stay under their
claims, wrong ones are caught with the same settings, the ceiling, the exact laws, progress, the
time estimate and the refusal of long work.

Every audit here runs at γ = 1e-3 (confidence 0.999) with fixed seeds and 10⁴ releases per side
(5,000 choose the test, 5,000 are counted), unless a test says otherwise.
"""
from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from privlib.core.audit import (
    audit,
    epsilon_from_error_rates,
    mu_from_error_rates,
)
from privlib.core.calibration import analytic_gaussian_sigma
from privlib.core.mechanism import Guarantee
from privlib.core.noise import gaussian_noise, laplace_scalar_noise
from privlib.core.randomised_response import RandomisedResponse, binary_flip_probability
from privlib.core.validation import LONG_WORK_VARIABLE

#: The module itself (its clock is replaced in the time tests), whatever privlib.core exports as `audit`.
audit_module = importlib.import_module("privlib.core.audit")

CONFIDENCE = 0.999
RELEASES = 10_000
SEEDS = (0, 1)


# ---------------------------------------------------------------------------------------------
# adapters: core's mechanisms as release functions (input, rng, size) → outputs, and their claims


def pure(epsilon: float) -> Guarantee:
    return Guarantee(kind="pure-dp", text=f"{epsilon}-DP", epsilon=epsilon)


def randomised_response(classes: int, epsilon: float):
    """k-ary RR of the input class (outputs: class indices) and its output law."""
    mechanism = RandomisedResponse(classes, epsilon)
    return (lambda x, rng, size: mechanism.sample(np.full(size, x), rng)), mechanism.probabilities


def rr_with_binary_formula(classes: int, epsilon: float):
    """The bug: keep with the binary probability e^ε/(1 + e^ε), the other C − 1 classes share the rest."""
    keep = 1 - binary_flip_probability(epsilon)

    def law(x):
        row = np.full(classes, (1 - keep) / (classes - 1))
        row[x] = keep
        return row

    return (lambda x, rng, size: rng.choice(classes, size=size, p=law(x))), law


def laplace(epsilon: float, scale_epsilon: float | None = None):
    """The Laplace mechanism of a query of sensitivity 1 (x ∈ {0, 1}), scale 1/ε."""
    scale = 1 / (scale_epsilon or epsilon)
    return lambda x, rng, size: x + laplace_scalar_noise(scale, size, rng)


def gaussian(sigma: float):
    return lambda x, rng, size: x + gaussian_noise(sigma, size, rng)


def gaussian_claim(epsilon: float, delta: float) -> tuple[float, Guarantee]:
    """The analytic σ (Balle & Wang 2018) and the claim of the exactly Gaussian mechanism: μ = Δ/σ."""
    sigma = analytic_gaussian_sigma(epsilon, delta)
    return sigma, Guarantee(kind="gdp", text="Gaussian", epsilon=epsilon, delta=delta, mu=1 / sigma)


def sign_flip(flip: float):
    """A sign in {−1, +1} flipped with probability ``flip`` (binary RR on the sign)."""
    return lambda x, rng, size: np.where(rng.random(size) < flip, -x, x).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# correct mechanisms stay under their claims; the audit has power (ε̂ is not trivially 0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_binary_rr_stays_under_its_claim_and_comes_close(epsilon, seed):
    release, _ = randomised_response(2, epsilon)
    result = audit(release, (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE, claim=pure(epsilon))
    assert result.epsilon <= epsilon and result.exceeds_claim is False
    # binary RR attains its bound: the best test's ε̂ at 5,000 counted is about ε − 0.1 (one SD 0.03 to 0.06)
    assert result.epsilon >= 0.75 * epsilon
    assert result.score == "the empirical likelihood ratio of the selection releases"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("epsilon", [1.0, 3.0])
@pytest.mark.parametrize("exact", [False, True])
def test_k_ary_rr_stays_under_its_claim(epsilon, exact, seed):
    release, law = randomised_response(10, epsilon)
    result = audit(release, (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE, claim=pure(epsilon),
                   law=law if exact else None)
    assert result.epsilon <= epsilon and result.exceeds_claim is False
    assert result.epsilon >= 0.5 * epsilon


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_laplace_stays_under_its_claim(epsilon, seed):
    result = audit(laplace(epsilon), (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE,
                   claim=pure(epsilon))
    assert result.epsilon <= epsilon and result.exceeds_claim is False
    assert result.epsilon >= 0.5 * epsilon
    assert result.score == "the projection on the difference of the selection releases' means"


@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_with_analytic_sigma_stays_under_its_claim(seed):
    sigma, claim = gaussian_claim(1.0, 1e-5)
    result = audit(gaussian(sigma), (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE, claim=claim)
    assert result.tests == 2 and result.delta == 1e-5
    assert result.mu <= claim.mu and result.epsilon <= 1.0 and result.exceeds_claim is False
    # μ = 0.268; the balanced test's μ̂ at 5,000 counted per side is about μ − 0.12 (SD 0.03)
    assert result.mu >= 0.25 * claim.mu
    data = result.to_dict()
    assert data["mu_test"]["statistic"] == "mu" and data["claimed_mu"] == pytest.approx(claim.mu)
    assert "μ ≥" in result.summary()


def test_gaussian_vector_release_uses_the_projection():
    """A 3-dimensional Gaussian release of a vector query moved by Δ₂ = 1 along (0.6, 0, 0.8)."""
    sigma, claim = gaussian_claim(1.0, 1e-5)
    shift = np.array([0.6, 0.0, 0.8])

    def release(x, rng, size):
        return x * shift + gaussian_noise(sigma, (size, 3), rng)

    result = audit(release, (0, 1), releases=RELEASES, seed=0, confidence=CONFIDENCE, claim=claim)
    assert 0.25 * claim.mu <= result.mu <= claim.mu


# ---------------------------------------------------------------------------------------------
# wrong calibrations are caught with the same settings


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("exact", [False, True])
def test_k_ary_rr_with_the_binary_formula_is_caught(exact, seed):
    release, law = rr_with_binary_formula(10, 1.0)
    result = audit(release, (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE, claim=pure(1.0),
                   law=law if exact else None)
    assert result.exceeds_claim is True and result.epsilon > 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_at_half_the_analytic_sigma_is_caught_by_mu(seed):
    sigma, claim = gaussian_claim(1.0, 1e-5)
    result = audit(gaussian(sigma / 2), (0, 1), releases=RELEASES, seed=seed, confidence=CONFIDENCE, claim=claim)
    assert result.mu > claim.mu and result.exceeds_claim is True


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("epsilon", [1.0, 2.0])
def test_sign_flip_at_the_wrong_probability_is_caught(epsilon, seed):
    """Flipping with e^−ε/2 instead of 1/(1 + e^ε): the true ε is ln((1 − e^−ε/2)/(e^−ε/2)), 1.49 at ε = 1."""
    result = audit(sign_flip(math.exp(-epsilon) / 2), (1, -1), releases=RELEASES, seed=seed, confidence=CONFIDENCE,
                   claim=pure(epsilon))
    assert result.exceeds_claim is True
    # and the right probability is not flagged, with the same settings
    right = audit(sign_flip(binary_flip_probability(epsilon)), (1, -1), releases=RELEASES, seed=seed,
                  confidence=CONFIDENCE, claim=pure(epsilon))
    assert right.exceeds_claim is False


def test_laplace_at_the_wrong_scale_is_caught():
    """Scale 1/(2ε) for a claim of ε: the true ε is 2ε."""
    result = audit(laplace(1.0, scale_epsilon=2.0), (0, 1), releases=RELEASES, seed=0, confidence=CONFIDENCE,
                   claim=pure(1.0))
    assert result.exceeds_claim is True


# ---------------------------------------------------------------------------------------------
# the ceiling


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_ceiling_is_7_2_with_5000_counted_per_side_at_95_percent(delta):
    """Spec §4: with 5,000 releases counted per side, γ = 0.05 (0.025 for each rate) and δ = 0 or
    1e-5, ε̂ at zero false positives is at most ln((1 − δ)/α_U) = 7.2. A mechanism that releases
    its input reaches it (no false positive, no false negative)."""
    result = audit(lambda x, rng, size: np.full(size, x), (0, 1), releases=10_000, seed=0, delta=delta)
    alpha_upper = -math.expm1(math.log(0.025) / 5000)
    assert result.counted == 5000 and result.confidence == 0.95
    assert result.ceiling == pytest.approx(math.log((1 - delta) / alpha_upper), rel=1e-12)
    assert round(result.ceiling, 1) == 7.2
    assert result.epsilon_test.false_positives == 0 and result.epsilon_test.false_negatives == 0
    assert result.ceiling - 1e-3 < result.epsilon <= result.ceiling
    assert "no audit could show more than ε = 7.2" in result.summary()


def test_gaussian_audit_splits_gamma_over_its_two_tests():
    """Two tests counted (ε̂ and μ̂): each rate's bound is at γ/4, so the ceiling is lower."""
    _, claim = gaussian_claim(1.0, 1e-5)
    result = audit(lambda x, rng, size: np.full(size, float(x)), (0, 1), releases=10_000, seed=0, claim=claim)
    assert result.tests == 2
    assert result.ceiling == pytest.approx(math.log((1 - 1e-5) / -math.expm1(math.log(0.0125) / 5000)), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# exact laws


@pytest.mark.parametrize("classes", [2, 10])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exact_loss_and_delta_of_rr_are_the_closed_forms(classes, epsilon):
    """RR: loss ε; δ(ε′) = (e^ε − e^ε′)/(e^ε + C − 1) for ε′ < ε (only the kept class contributes), 0 beyond."""
    release, law = randomised_response(classes, epsilon)
    result = audit(release, (0, 1), releases=200, seed=0, claim=pure(epsilon), law=law)
    assert result.exact_loss == pytest.approx(epsilon, rel=1e-12)
    assert result.exact_delta == pytest.approx(0.0, abs=1e-15)
    grid = np.array([0.0, epsilon / 3, epsilon / 2, 0.99 * epsilon, epsilon, 2 * epsilon])
    expected = np.clip((math.exp(epsilon) - np.exp(grid)) / (math.exp(epsilon) + classes - 1), 0, None)
    np.testing.assert_allclose(result.exact_delta_at(grid), expected, rtol=1e-12, atol=1e-15)


def test_exact_loss_of_the_binary_formula_bug():
    """Keep e^ε/(1 + e^ε), others (1 − keep)/(C − 1): the loss is ε + ln(C − 1) and δ(ε) > 0."""
    release, law = rr_with_binary_formula(10, 1.0)
    result = audit(release, (0, 1), releases=200, seed=0, claim=pure(1.0), law=law)
    assert result.exact_loss == pytest.approx(1.0 + math.log(9), rel=1e-12)
    keep, other = law(0)[0], law(0)[1]
    assert result.exact_delta == pytest.approx(keep - math.e * other, rel=1e-12)


def test_exact_loss_is_infinite_when_an_outcome_is_impossible_on_one_side():
    """x gives outcomes 0, 1 (½ each), x′ gives 0, 1 (¼ each) or 2 (½): outcome 2 names x′ outright.
    Loss ∞; δ(ε) is the larger order: x′'s ½ on outcome 2 at every ε (x's order is 0 from ε = ln 2)."""
    laws = {0: np.array([0.5, 0.5, 0.0]), 1: np.array([0.25, 0.25, 0.5])}

    def release(x, rng, size):
        return rng.choice(3, size=size, p=laws[x])

    result = audit(release, (0, 1), releases=RELEASES, seed=0, confidence=CONFIDENCE, claim=pure(1.0),
                   law=laws.__getitem__)
    assert result.exact_loss == math.inf and result.exact_delta == pytest.approx(0.5)
    np.testing.assert_allclose(result.exact_delta_at([0.0, 1.0, 50.0]), [0.5, 0.5, 0.5])
    data = result.to_dict()
    assert data["exact_loss"] is None and data["exact_loss_infinite"] is True
    # "x′ on outcome 2" never errs on x: no false negative, ε̂ = ln((1 − α_U)/β_U) with α_U ≈ ½, about 5.8
    assert result.exceeds_claim is True and result.epsilon_test.false_negatives == 0
    with pytest.raises(ValueError, match="sum to 1"):
        audit(release, (0, 1), releases=100, seed=0, law=lambda x: [0.5, 0.6, 0.0])


def test_release_that_disagrees_with_its_law_is_refused():
    release, _ = randomised_response(3, 1.0)
    with pytest.raises(ValueError, match="impossible"):
        audit(release, (0, 1), releases=100, seed=0, law=lambda x: np.eye(3)[x])


# ---------------------------------------------------------------------------------------------
# the conversions


def test_epsilon_and_mu_from_error_rates():
    assert epsilon_from_error_rates(0.1, 0.2) == pytest.approx(max(math.log(0.8 / 0.1), math.log(0.9 / 0.2)))
    assert epsilon_from_error_rates(0.1, 0.2, 0.05) == pytest.approx(math.log(0.75 / 0.1))
    assert epsilon_from_error_rates(0.6, 0.5) == 0.0  # worse than guessing: nothing shown
    assert epsilon_from_error_rates(1.0, 1.0) == 0.0
    # binary RR's own error rates give exactly its ε
    flip = binary_flip_probability(1.3)
    assert epsilon_from_error_rates(flip, flip) == pytest.approx(1.3, rel=1e-12)
    # the μ-GDP curve's own points give exactly μ
    from scipy.stats import norm

    alpha = np.array([0.01, 0.2, 0.5])
    assert mu_from_error_rates(alpha, norm.cdf(norm.ppf(1 - alpha) - 0.7)) == pytest.approx(0.7, rel=1e-9)
    assert mu_from_error_rates(0.7, 0.7) == 0.0


# ---------------------------------------------------------------------------------------------
# pairs, claims, reproducibility, progress, time and refusal


def test_several_pairs_choose_the_informative_one_on_the_selection_part():
    release, _ = randomised_response(4, 2.0)
    result = audit(release, [(0, 0), (2, 3)], releases=RELEASES, seed=0, confidence=CONFIDENCE, claim=pure(2.0))
    assert result.pairs == 2 and result.epsilon_test.pair == 1 and result.tests == 1
    assert 1.0 <= result.epsilon <= 2.0


def test_metric_claim_needs_the_distance_and_scales_with_it():
    claim = Guarantee(kind="metric-dp", text="ε d_X", epsilon=0.5)
    with pytest.raises(ValueError, match="distance"):
        audit(laplace(1.0), (0, 1), releases=100, seed=0, claim=claim)
    result = audit(laplace(1.0), (0, 1), releases=RELEASES, seed=0, confidence=CONFIDENCE, claim=claim, distance=2.0)
    assert result.claimed_epsilon == 1.0 and result.exceeds_claim is False


def test_delta_defaults_to_the_claims_and_may_not_be_smaller():
    sigma, claim = gaussian_claim(1.0, 1e-5)
    with pytest.raises(ValueError, match="below the claim"):
        audit(gaussian(sigma), (0, 1), releases=100, seed=0, claim=claim, delta=1e-6)
    assert audit(gaussian(sigma), (0, 1), releases=100, seed=0, claim=claim).delta == 1e-5


def test_same_seed_same_result_and_strict_json():
    release, _ = randomised_response(5, 1.0)
    first = audit(release, (0, 1), releases=2000, seed=7, claim=pure(1.0))
    second = audit(release, (0, 1), releases=2000, seed=7, claim=pure(1.0))
    other = audit(release, (0, 1), releases=2000, seed=8, claim=pure(1.0))
    assert first.epsilon_test == second.epsilon_test and first.epsilon == second.epsilon
    assert other.epsilon_test != first.epsilon_test
    payload = first.to_json()
    assert "NaN" not in payload and "Infinity" not in payload
    assert first.to_dict()["exceeds_claim"] is False and first.to_dict()["claim"]["kind"] == "pure-dp"


def test_progress_reports_the_estimate_and_ends_at_one():
    calls = []
    audit(laplace(1.0), (0, 1), releases=2000, seed=0, progress=lambda f, m: calls.append((f, m)))
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] == 1.0
    assert "estimate" in calls[0][1] and len(calls) > 10


class FakeClock:
    """A clock that only the release function moves: ``fixed`` seconds a call plus ``per_release``
    seconds a release, so the estimate is checked exactly, whatever the machine's load."""

    def __init__(self, fixed: float, per_release: float):
        self.now, self.calls, self.fixed, self.per_release = 0.0, 0, fixed, per_release

    def perf_counter(self) -> float:
        return self.now

    def release(self, x, rng, size):
        self.now += self.fixed + self.per_release * size
        self.calls += 1
        return x + rng.standard_normal(size)


def test_estimate_is_the_fixed_cost_of_a_call_plus_the_cost_per_release(monkeypatch):
    clock = FakeClock(fixed=0.01, per_release=1e-4)
    monkeypatch.setattr(audit_module, "time", clock)
    result = audit(clock.release, (0, 1), releases=RELEASES, seed=0)
    assert clock.calls == 2 * 23  # warm-up, two probes, 20 chunks per side
    assert result.estimated_seconds == pytest.approx(clock.now, rel=1e-9)
    assert result.estimated_seconds == pytest.approx(2 * 23 * 0.01 + 2 * RELEASES * 1e-4, rel=1e-9)


def test_long_audit_is_refused_after_the_first_probe_when_its_calls_alone_are_too_long(monkeypatch):
    """1 s a call, whatever its size: after 4 calls (warm-up and first probe of both sides) the 42
    calls left cannot take less than 42 s."""
    monkeypatch.setenv(LONG_WORK_VARIABLE, "10")
    clock = FakeClock(fixed=1.0, per_release=0.0)
    monkeypatch.setattr(audit_module, "time", clock)
    with pytest.raises(ValueError, match=r"about 46 s .*limit 10 s.*allow_long=True"):
        audit(clock.release, (0, 1), releases=RELEASES, seed=0)
    assert clock.calls == 4


def test_long_audit_is_refused_with_the_estimate(monkeypatch):
    """2 ms a release: 20,000 releases take 40 s, above a limit of 5 s; refused after the probes."""
    monkeypatch.setenv(LONG_WORK_VARIABLE, "5")
    clock = FakeClock(fixed=0.0, per_release=0.002)
    monkeypatch.setattr(audit_module, "time", clock)
    with pytest.raises(ValueError, match=r"about 40 s .*allow_long=True"):
        audit(clock.release, (0, 1), releases=RELEASES, seed=0)
    assert clock.calls == 6
    result = audit(clock.release, (0, 1), releases=RELEASES, seed=0, allow_long=True)
    assert result.estimated_seconds == pytest.approx(40.0, rel=1e-9)


def test_allow_long_runs_work_above_the_limit(monkeypatch):
    monkeypatch.setenv(LONG_WORK_VARIABLE, "0")
    with pytest.raises(ValueError, match="allow_long"):
        audit(laplace(1.0), (0, 1), releases=100, seed=0)
    result = audit(laplace(1.0), (0, 1), releases=100, seed=0, allow_long=True)
    assert result.estimated_seconds > 0 and result.seconds > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"release": lambda x, rng, size: np.zeros(size + 1)}, "must return"),
    ({"release": lambda x, rng, size: np.array(["a"] * size)}, "numbers"),
    ({"release": lambda x, rng, size: np.full(size, np.nan)}, "NaN"),
    ({"pair": [0, 1]}, "tuple"),
    ({"pair": (0, 1, 2)}, "tuple"),
    ({"releases": 1}, "releases"),
    ({"confidence": 1.0}, "confidence"),
    ({"selection": 0.0}, "selection"),
    ({"claim": "ε = 1"}, "Guarantee"),
    ({"score": abs, "law": lambda x: [0.5, 0.5]}, "either"),
    ({"score": lambda outputs: np.zeros(3)}, "one number"),
])
def test_bad_arguments(kwargs, message):
    arguments = {"release": laplace(1.0), "pair": (0, 1), "releases": 100, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        audit(arguments.pop("release"), arguments.pop("pair"), **arguments)


def test_the_test_is_chosen_on_the_first_part_and_counted_on_the_second():
    """x's first 5,000 releases are 1 (except its first 100) and its last 5,000 are 0; x′'s are all 0.
    The test chosen on the first part (say x at 1) must then miss every counted release of x:
    5,000 false negatives of 5,000 counted (5,100 of 10,000 if the first part were counted too),
    and no false positive."""
    drawn = {}

    def release(x, rng, size):
        start = drawn.get(x, 0)
        drawn[x] = start + size
        index = np.arange(start, start + size)
        return np.where((index >= 100) & (index < 5000) & (x == 1), 1.0, 0.0)

    result = audit(release, (1, 0), releases=10_000, seed=0)
    assert result.selected == result.counted == 5000
    assert result.epsilon_test.false_negatives == 5000 and result.epsilon_test.false_positives == 0
    assert result.epsilon == 0.0


def test_many_distinct_discrete_outputs_fall_back_to_the_projection():
    """16 sign bits, each flipped by binary RR at ε; x and x′ differ in one bit, so the pair is ε-DP.
    2^16 outcomes are too many for an empirical likelihood ratio from 5,000 releases."""
    epsilon, flip = 1.0, binary_flip_probability(1.0)
    x, x_prime = np.ones(16, dtype=np.int64), np.ones(16, dtype=np.int64)
    x_prime[3] = -1

    def release(signs, rng, size):
        return np.where(rng.random((size, 16)) < flip, -signs, signs)

    result = audit(release, (x, x_prime), releases=RELEASES, seed=0, confidence=CONFIDENCE, claim=pure(epsilon))
    assert result.score == "the projection on the difference of the selection releases' means"
    assert 0.5 * epsilon <= result.epsilon <= epsilon


class StepClock(FakeClock):
    """A cheap mechanism whose small calls are all fixed cost: 1 ms a call up to 16 releases (the probes cannot
    tell a cost per release), 1 ms + 1 µs a release above; a call of more than 10⁵ releases fails the test (the
    audit should have been refused before drawing it)."""

    def release(self, x, rng, size):
        assert size <= 10**5, f"drew a chunk of {size:,} releases"
        self.now += 0.001 + (0.0 if size <= 16 else 1e-6 * size)
        self.calls += 1
        return x + rng.standard_normal(size)


def test_a_cheap_mechanisms_long_audit_is_refused_by_its_timing_probe(monkeypatch):
    """10⁸ releases a side at 1 µs each take 200 s: refused at a 10 s limit (the probes alone gave a cost per
    release of 0: randomised response's 10⁹ releases a side once ran out of memory instead)."""
    monkeypatch.setenv(LONG_WORK_VARIABLE, "10")
    clock = StepClock(fixed=0.0, per_release=0.0)
    monkeypatch.setattr(audit_module, "time", clock)
    with pytest.raises(ValueError, match=r"about 3 min .*allow_long=True"):
        audit(clock.release, (0, 1), releases=10**8, seed=0)


def test_the_timing_probe_leaves_the_audits_draws_unchanged(monkeypatch):
    monkeypatch.setattr(audit_module, "TIMING_PROBE", 8)  # a probe: the later chunks (99) are over 4·8
    probed = audit(laplace(1.0), (0, 1), releases=2_000, seed=3).to_dict()
    monkeypatch.setattr(audit_module, "TIMING_PROBE", 10**9)  # never
    plain = audit(laplace(1.0), (0, 1), releases=2_000, seed=3).to_dict()
    for timing in ("seconds", "estimated_seconds"):
        probed.pop(timing, None), plain.pop(timing, None)
    assert probed == plain


def test_an_audit_whose_releases_would_not_fit_in_memory_is_refused_at_once():
    calls = []

    def wide(x, rng, size):  # 8 kB a release: 10⁶ releases a side hold 16 GB
        calls.append(size)
        return np.full((size, 1000), float(x)) + rng.standard_normal((size, 1000))

    with pytest.raises(ValueError, match=r"about 14.9 GiB of releases .*use fewer releases"):
        audit(wide, (0, 1), releases=10**6, seed=0, allow_long=True)
    assert max(calls) <= 4
