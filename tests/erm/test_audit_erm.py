"""The audit of the private-learning mechanisms against their claims (privlib.erm.audit over
privlib.core.audit): each private method stays under its claim at γ = 1e-3 with fixed seeds, a
noise scale n times too small is caught with the same settings, the methods without a guarantee are
refused, and the pair is a replace-one pair."""
import dataclasses

import numpy as np
import pytest

import privlib.erm.mechanisms as erm_mechanisms
from privlib.erm.audit import AUDIT_FEATURES, AUDIT_RECORDS, audit_mechanism, neighbouring_sums

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
