"""The audit of the private-learning mechanisms against their claims (privlib.erm.audit over
privlib.core.audit): each private method stays under its claim at γ = 1e-3 with fixed seeds, a
noise scale n times too small is caught with the same settings, the methods without a guarantee are
refused, and the pair is a replace-one pair."""
import dataclasses

import numpy as np
import pytest

import privlib.erm.mechanisms as erm_mechanisms
from privlib.core.audit import RELEASE_CHUNKS
from privlib.core.validation import LongWorkRefused
from privlib.erm.audit import (
    AUDIT_FEATURES,
    AUDIT_RECORDS,
    PROBE_RELEASES,
    audit_mechanism,
    audit_seconds,
    neighbouring_sums,
    probe_size,
)

CONFIDENCE = 0.999
DELTA = 1e-6
#: Each release solves one model: few releases.
RELEASES = 1000


@pytest.mark.parametrize("name", ["output", "obj_gauss", "input_safe"])
def test_every_private_method_stays_under_its_claim(name):
    result = audit_mechanism(name, epsilon=4.0, delta=DELTA, releases=RELEASES, seed=0, confidence=CONFIDENCE)
    assert result.claimed_epsilon == 4.0 and result.exceeds_claim is False and result.epsilon <= 4.0


def test_a_noise_scale_n_times_too_small_is_caught(monkeypatch):
    """The bug: output perturbation's Laplace scale 2ζ/(nΛε) divided by n once more."""
    calibration = erm_mechanisms.cached_output_calibration

    def too_small(epsilon, n, d, zeta):
        right = calibration(epsilon, n, d, zeta)
        return dataclasses.replace(right, scale=right.scale / n)

    monkeypatch.setattr(erm_mechanisms, "cached_output_calibration", too_small)
    result = audit_mechanism("output", epsilon=1.0, releases=RELEASES, seed=0, confidence=CONFIDENCE)
    assert result.exceeds_claim is True and result.epsilon > 1.0


@pytest.mark.parametrize("name", ["non_private", "input_asymptotic"])
def test_methods_without_a_guarantee_are_refused(name):
    with pytest.raises(ValueError, match="no privacy guarantee"):
        audit_mechanism(name, epsilon=1.0, delta=DELTA, releases=100, seed=0)


def test_the_pair_replaces_one_record():
    first, second = neighbouring_sums()
    assert first.n == second.n == AUDIT_RECORDS and first.d == AUDIT_FEATURES
    np.testing.assert_array_equal(first.S, second.S)  # the same features, x* = e_d in both
    change = np.zeros(AUDIT_FEATURES)
    change[-1] = -4.0  # b = −2yx: y = +1 against y = −1 at x = e_d
    np.testing.assert_allclose(first.b_sum - second.b_sum, change, atol=1e-12)
    assert first.S[-1, -1] == pytest.approx(1.0)  # only x* has a last feature


def test_an_invalid_safe_calibration_says_so():
    with pytest.raises(ValueError, match="gives no model"):
        audit_mechanism("input_safe", epsilon=0.05, delta=DELTA, releases=100, seed=0)


def test_unknown_parameter_is_refused():
    with pytest.raises(ValueError, match="no parameter"):
        audit_mechanism("output", epsilon=1.0, releases=100, seed=0, parameters={"inflate": 2})


# ---------------------------------------------------------------------------------------------
# the time estimate (a cost model a + b·size per call stands in for the clock: no wall-clock assert)


def test_the_probe_has_the_size_of_the_audits_chunks():
    assert probe_size(10_000) == 10_000 // RELEASE_CHUNKS
    assert probe_size(100) == 100 // RELEASE_CHUNKS and probe_size(2) == 1
    assert probe_size(10**7) == PROBE_RELEASES


@pytest.mark.parametrize("fixed, per_release", [(2e-4, 1e-5), (0.0, 1e-4), (1e-3, 0.0)])
def test_the_estimate_scales_with_the_releases_and_counts_each_calls_fixed_cost(fixed, per_release):
    """A call of s releases costs a + b·s: the audit makes about releases/s calls per data set, so the
    estimate is 2·releases·(a/s + b) — linear in the releases once the chunks reach `PROBE_RELEASES`, and
    never only the fixed cost of a tiny probe spread over every release (the core probes' 4 and 16)."""
    sizes = []

    def cost(size):
        sizes.append(size)
        return fixed + per_release * size

    for releases in (100, 10_000, 100_000, 10**6, 10**7):
        s = probe_size(releases)
        assert audit_seconds(releases, cost) == pytest.approx(2 * releases * (fixed / s + per_release))
        assert sizes[-1] == s
    big = RELEASE_CHUNKS * PROBE_RELEASES
    assert audit_seconds(2 * big, cost) == pytest.approx(2 * audit_seconds(big, cost))
    assert audit_seconds(10 * big, cost) == pytest.approx(10 * audit_seconds(big, cost))
    # fewer releases a call below that: the fixed cost weighs more per release, never less
    assert audit_seconds(big // 10, cost) >= audit_seconds(big, cost) / 10 * (1 - 1e-12)


def test_the_audit_reports_and_refuses_by_its_estimate(monkeypatch):
    import privlib.erm.audit as erm_audit

    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "60")
    monkeypatch.setattr(erm_audit, "release_seconds", lambda release, sums, size, rng: 1e-3 + 1e-6 * size)
    result = audit_mechanism("output", epsilon=1.0, releases=2_000, seed=0)
    assert result.estimated_seconds == pytest.approx(audit_seconds(2_000, lambda size: 1e-3 + 1e-6 * size))

    def no_audit(*args, **kwargs):
        raise AssertionError("released")

    monkeypatch.setattr(erm_audit, "audit", no_audit)
    monkeypatch.setattr(erm_audit, "release_seconds", lambda release, sums, size, rng: 0.01 * size)
    with pytest.raises(LongWorkRefused, match="allow_long=True") as refused:
        audit_mechanism("output", epsilon=1.0, releases=10_000, seed=0)
    assert refused.value.seconds == pytest.approx(2 * 10_000 * 0.01)
