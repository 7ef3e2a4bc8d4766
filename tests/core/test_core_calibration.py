"""Noise calibration: the analytic Gaussian mechanism against published values, an external oracle
(dp_accounting) and its own defining equation; the closed-form bounds; the Laplace scale."""
from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from dp_accounting.gaussian_mechanism import get_sigma_gaussian
from scipy import stats

from privlib.core.calibration import (
    analytic_gaussian_delta,
    analytic_gaussian_epsilon,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    kenthapadi_gaussian_sigma,
    laplace_scale,
)


def naive_delta(epsilon, sigma, sensitivity=1.0):
    """Balle & Wang (2018) Thm 8 written directly with scipy.stats.norm (fine for moderate epsilon)."""
    return (stats.norm.cdf(sensitivity / (2 * sigma) - epsilon * sigma / sensitivity)
            - np.exp(epsilon) * stats.norm.cdf(-sensitivity / (2 * sigma) - epsilon * sigma / sensitivity))


# ----------------------------------------------------------------------------- analytic sigma
@pytest.mark.parametrize("epsilon, expected", [
    (0.1, 36.30469043), (0.5, 8.057618481), (1, 4.224678889), (2, 2.230476271), (5, 0.9800490003),
    (10, 0.5410868318), (20, 0.3090846812), (50, 0.1565928704), (100, 0.09783722397),
])
def test_analytic_sigma_reference_values(epsilon, expected):
    assert analytic_gaussian_sigma(epsilon, 1e-6) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("epsilon, delta, sensitivity, expected", [
    (1, 1e-5, 1.0, 3.730631635),
    (1000, 1e-6, 1.0, 0.02485036669),
    (3, 1e-6, 2.5, 3.859653544),
])
def test_analytic_sigma_more_reference_values(epsilon, delta, sensitivity, expected):
    assert analytic_gaussian_sigma(epsilon, delta, sensitivity) == pytest.approx(expected, rel=1e-9)


EPSILONS = [1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0, 300.0, 1000.0]
DELTAS = [1e-2, 1e-5, 1e-8, 1e-12]


def test_analytic_sigma_matches_dp_accounting():
    # Oracle: dp_accounting.gaussian_mechanism.get_sigma_gaussian (Google's implementation of the
    # same Balle & Wang root, with scipy.stats.norm.logcdf). Its own precision: brentq stops at an
    # absolute xtol of 1e-12 in sigma (6e-12 relative for sigma ~ 1.6e-4 at epsilon = 1000,
    # delta = 1e-2), and for epsilon <= 0.01 both implementations lose ~3 digits of log delta to
    # the cancellation in eps + log Phi(b) - log Phi(a), which moves the root by up to ~2e-12
    # relative (both measured against a 50-digit mpmath root; see the next test). Hence the
    # tolerance 2e-12 absolute + 1e-11 relative. Largest observed difference: 2.5e-12 relative.
    worst = 0.0
    for epsilon in EPSILONS:
        for delta in DELTAS:
            ours = analytic_gaussian_sigma(epsilon, delta)
            oracle = get_sigma_gaussian(epsilon, delta)
            assert abs(ours - oracle) <= 2e-12 + 1e-11 * oracle, (epsilon, delta, ours, oracle)
            worst = max(worst, abs(ours - oracle) / oracle)
    assert worst < 1e-11


@pytest.mark.parametrize("epsilon, delta", [(1e-3, 1e-12), (1e-3, 1e-15), (0.1, 1e-6), (1.0, 1e-5),
                                            (10.0, 1e-10), (1000.0, 1e-2), (1000.0, 1e-12)])
def test_analytic_sigma_matches_high_precision_root(epsilon, delta):
    """The defining equation solved in 50-digit arithmetic (mpmath, installed with dp-accounting)."""
    mp = mpmath.mp
    ours = analytic_gaussian_sigma(epsilon, delta)
    with mpmath.workdps(50):
        eps, target = mp.mpf(epsilon), mp.log(mp.mpf(delta))

        def log_delta(s):
            return mp.log(mp.ncdf(1 / (2 * s) - eps * s) - mp.exp(eps) * mp.ncdf(-1 / (2 * s) - eps * s)) - target

        exact = mp.findroot(log_delta, mp.mpf(ours))
    assert abs(ours - float(exact)) <= 1e-11 * float(exact)


@pytest.mark.parametrize("delta", [1e-1, 1e-3, 1e-6, 1e-9, 1e-12, 1e-15])
def test_analytic_sigma_solves_its_equation(delta):
    """delta(sigma*) = delta: the mechanism at sigma* is exactly (epsilon, delta)-DP, for epsilon
    from 1e-3 to 1e3 and delta down to 1e-15 (no nan, no warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for epsilon in np.geomspace(1e-3, 1e3, 13):
            for sensitivity in (1.0, 0.3, 7.0):
                sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
                assert math.isfinite(sigma) and sigma > 0
                assert analytic_gaussian_delta(epsilon, sigma, sensitivity) == pytest.approx(delta, rel=1e-9)
                # sigma* is the smallest such sigma: a slightly smaller one is not (epsilon, delta)-DP
                assert analytic_gaussian_delta(epsilon, sigma * (1 - 1e-6), sensitivity) > delta


def test_analytic_sigma_scales_with_sensitivity_and_decreases():
    for sensitivity in (0.01, 2.5, 1e4):
        assert analytic_gaussian_sigma(2.0, 1e-6, sensitivity) == pytest.approx(
            sensitivity * analytic_gaussian_sigma(2.0, 1e-6), rel=1e-12)
    by_epsilon = [analytic_gaussian_sigma(e, 1e-6) for e in np.geomspace(1e-3, 1e3, 25)]
    assert np.all(np.diff(by_epsilon) < 0)
    by_delta = [analytic_gaussian_sigma(1.0, d) for d in np.geomspace(1e-15, 0.5, 25)]
    assert np.all(np.diff(by_delta) < 0)


def test_analytic_sigma_at_huge_epsilon_where_naive_formula_fails():
    with np.errstate(all="ignore"):
        assert not np.isfinite(naive_delta(1000.0, 0.02485036669))  # e^1000 overflows: nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sigma = analytic_gaussian_sigma(1000.0, 1e-15)
        assert math.isfinite(sigma) and analytic_gaussian_delta(1000.0, sigma) == pytest.approx(1e-15, rel=1e-9)


# ----------------------------------------------------------------------------- delta(epsilon), epsilon(mu)
def test_analytic_delta_reference_values():
    assert analytic_gaussian_delta(1.0, 1.0) == pytest.approx(0.1269367375, rel=1e-9)
    assert analytic_gaussian_delta(0.0, 1.0) == pytest.approx(0.3829249225, rel=1e-9)


@pytest.mark.parametrize("sigma", [0.2, 1.0, 3.0, 40.0])
def test_analytic_delta_matches_textbook_formula(sigma):
    # at epsilon = 0, delta is the total variation distance 2 Phi(Delta/(2 sigma)) - 1
    assert analytic_gaussian_delta(0.0, sigma) == pytest.approx(2 * stats.norm.cdf(0.5 / sigma) - 1, rel=1e-12)
    for epsilon in (0.01, 0.5, 1.0, 3.0):
        expected = naive_delta(epsilon, sigma, 2.0)
        if expected > 1e-8:  # where the naive difference has no cancellation problem
            assert analytic_gaussian_delta(epsilon, sigma, 2.0) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("mu, delta, expected", [
    (0.5, 1e-5, 1.9930914044), (1, 1e-5, 4.3771780957), (2, 1e-5, 9.9972561464),
    (10, 1e-6, 96.7172719639), (50, 1e-5, 1462.2850159648),
])
def test_analytic_epsilon_reference_values(mu, delta, expected):
    assert analytic_gaussian_epsilon(mu, delta) == pytest.approx(expected, rel=1e-9)


def test_analytic_epsilon_inverts_sigma():
    for epsilon in (1e-3, 0.1, 1.0, 10.0, 100.0, 2000.0):
        for delta in (1e-3, 1e-9, 1e-15):
            mu = 1.0 / analytic_gaussian_sigma(epsilon, delta)
            assert analytic_gaussian_epsilon(mu, delta) == pytest.approx(epsilon, rel=1e-8)


def test_analytic_epsilon_is_zero_when_already_zero_delta_private():
    delta0 = 2 * stats.norm.cdf(0.25) - 1  # delta(0) for mu = 0.5
    assert analytic_gaussian_epsilon(0.5, delta0 * 1.01) == 0.0
    assert analytic_gaussian_epsilon(0.5, delta0 * 0.99) > 0


# ----------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("epsilon, expected", [
    (0.1, 52.7551), (0.5, 10.7016), (1, 5.44344), (2, 2.81207), (10, 0.690152),
])
def test_kenthapadi_reference_values(epsilon, expected):
    assert kenthapadi_gaussian_sigma(epsilon, 1e-6, 1.0) == pytest.approx(expected, rel=1e-5)  # 6 significant digits


@pytest.mark.parametrize("epsilon, expected", [(0.1, 52.988), (0.5, 10.5976)])
def test_classical_reference_values(epsilon, expected):
    assert classical_gaussian_sigma(epsilon, 1e-6) == pytest.approx(expected, rel=1e-5)


def test_closed_forms_are_private_but_not_tight():
    """The sufficient sigmas really are (epsilon, delta)-DP (checked with the exact delta curve)
    and are larger than the optimal one."""
    for delta in (1e-3, 1e-6, 1e-10):
        for epsilon in (0.01, 0.1, 0.5, 0.9):
            sigma = classical_gaussian_sigma(epsilon, delta, 2.0)
            assert analytic_gaussian_delta(epsilon, sigma, 2.0) <= delta
            assert sigma > analytic_gaussian_sigma(epsilon, delta, 2.0)
        for epsilon in (0.01, 0.5, 1.0, 5.0, 50.0):
            sigma = kenthapadi_gaussian_sigma(epsilon, delta, 2.0)
            assert analytic_gaussian_delta(epsilon, sigma, 2.0) <= delta
            assert sigma > analytic_gaussian_sigma(epsilon, delta, 2.0)


@pytest.mark.parametrize("epsilon", [1.0, 1.5, 10.0])
def test_classical_refuses_epsilon_at_least_one(epsilon):
    with pytest.raises(ValueError, match="epsilon < 1.*analytic_gaussian_sigma"):
        classical_gaussian_sigma(epsilon, 1e-6)


@pytest.mark.parametrize("delta", [0.5, 0.7])
def test_kenthapadi_needs_small_delta(delta):
    with pytest.raises(ValueError, match="delta < 1/2"):
        kenthapadi_gaussian_sigma(1.0, delta, 1.0)


# ----------------------------------------------------------------------------- Laplace
@pytest.mark.parametrize("epsilon, sensitivity", [(0.1, 1.0), (1.0, 3.0), (7.0, 0.5)])
def test_laplace_scale_gives_epsilon_dp(epsilon, sensitivity):
    """Privacy loss log p(x - 0)/p(x - Delta) of Laplace(b) noise is at most epsilon, attained."""
    b = laplace_scale(epsilon, sensitivity)
    x = np.linspace(-10 * b, 10 * b + sensitivity, 2001)
    loss = stats.laplace.logpdf(x, 0, b) - stats.laplace.logpdf(x, sensitivity, b)
    assert loss.max() <= epsilon * (1 + 1e-12)
    assert loss.max() == pytest.approx(epsilon, rel=1e-9)


# ----------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("call, message", [
    (lambda: analytic_gaussian_sigma(0, 1e-6), "epsilon"),
    (lambda: analytic_gaussian_sigma(-1, 1e-6), "epsilon"),
    (lambda: analytic_gaussian_sigma(float("inf"), 1e-6), "epsilon"),
    (lambda: analytic_gaussian_sigma(1, 0), "delta"),
    (lambda: analytic_gaussian_sigma(1, 1), "delta"),
    (lambda: analytic_gaussian_sigma(1, float("nan")), "delta"),
    (lambda: analytic_gaussian_sigma(1, 1e-6, 0), "sensitivity"),
    (lambda: analytic_gaussian_sigma(1, 1e-6, -2), "sensitivity"),
    (lambda: analytic_gaussian_delta(-0.1, 1.0), "epsilon"),
    (lambda: analytic_gaussian_delta(1.0, 0.0), "sigma"),
    (lambda: analytic_gaussian_delta(1.0, float("inf")), "sigma"),
    (lambda: analytic_gaussian_epsilon(0.0, 1e-5), "mu"),
    (lambda: analytic_gaussian_epsilon(1.0, 2.0), "delta"),
    (lambda: classical_gaussian_sigma(0.5, 0), "delta"),
    (lambda: kenthapadi_gaussian_sigma(0, 1e-6, 1.0), "epsilon"),
    (lambda: laplace_scale(0), "epsilon"),
    (lambda: laplace_scale(1.0, "1"), "sensitivity"),
])
def test_bad_inputs_raise_helpful_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----------------------------------------------------------------------------- extremes: exact or refused
def mp_delta(epsilon, sigma):
    """delta(epsilon) of the Gaussian mechanism (sensitivity 1) at 80 digits (Balle & Wang Thm 8)."""
    with mpmath.workdps(80):
        e, s = mpmath.mpf(epsilon), mpmath.mpf(sigma)
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


EXTREME_EPSILONS = [1e-300, 1e-20, 1e-8, 1e-3, 1.0, 1e3, 1e6, 1e8, 1e10, 1e20, 1e300]
EXTREME_DELTAS = [1e-300, 1e-15, 1e-6, 0.5, 0.999999]


@pytest.mark.parametrize("epsilon", EXTREME_EPSILONS)
@pytest.mark.parametrize("delta", EXTREME_DELTAS)
def test_analytic_sigma_is_exact_or_refused_at_the_extremes(epsilon, delta):
    # the old solver floored delta(s) at ~1e-16 for a huge s, so at epsilon = 1e-20 and delta = 1e-300
    # it returned sigma = 6.5e15, whose true delta is 1.1e-16: 1e284 times the delta asked for
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            sigma = analytic_gaussian_sigma(epsilon, delta)
        except ValueError as error:
            assert "cannot be computed accurately" in str(error) and len(str(error)) <= 300
            return
    assert 0 < sigma < math.inf
    # the root: delta is reached at sigma, and sigma cannot be smaller by more than 1e-6 relative
    assert mp_delta(epsilon, sigma) <= delta * (1 + 1e-6)
    assert mp_delta(epsilon, sigma * (1 - 1e-6)) > delta


def test_analytic_sigma_accepted_extremes_include_the_usual_range():
    for epsilon in (1e-3, 1.0, 1e3, 1e6):
        for delta in (1e-300, 1e-15, 1e-6, 0.5):
            analytic_gaussian_sigma(epsilon, delta)  # no ValueError


@pytest.mark.parametrize("epsilon, sigma", [(1e-300, 1e100), (1e-8, 1e3), (1e-8, 3635030674.95432), (1e20, 7.07e-11),
                                            (1.0, 4.224678889326841), (1e-300, 398942.28), (0.0, 1e10)])
def test_analytic_delta_is_exact_or_refused(epsilon, sigma):
    try:
        delta = analytic_gaussian_delta(epsilon, sigma)
    except ValueError as error:
        assert "cannot be computed accurately" in str(error)
        return
    assert delta == pytest.approx(float(mp_delta(epsilon, sigma)), rel=1e-6)


@pytest.mark.parametrize("mu", [1e-300, 1e-100, 1e-10, 1.0, 1e3, 1e10, 1e149])
@pytest.mark.parametrize("delta", [1e-300, 1e-6, 0.5])
def test_analytic_epsilon_is_exact_or_refused(mu, delta):
    try:
        epsilon = analytic_gaussian_epsilon(mu, delta)
    except ValueError as error:
        assert "cannot be computed accurately" in str(error)
        return
    if epsilon == 0:
        assert mp_delta(0, 1 / mu) <= delta * (1 + 1e-12)
    else:
        assert mp_delta(epsilon, 1 / mu) <= delta * (1 + 1e-6)
        assert mp_delta(epsilon * (1 - 1e-6), 1 / mu) > delta


@pytest.mark.parametrize("call, message", [
    (lambda: analytic_gaussian_epsilon(1e150, 1e-6), r"mu .* at most 1e\+149"),
    (lambda: analytic_gaussian_epsilon(1e308, 1e-6), r"mu .* at most 1e\+149"),
    (lambda: laplace_scale(1e-300, 1e300), r"not a usable noise scale"),
    (lambda: kenthapadi_gaussian_sigma(1e-300, 1e-300, 1e10), r"not a usable noise scale"),
    (lambda: classical_gaussian_sigma(1e-300, 1e-6, 1e300), r"not a usable noise scale"),
    (lambda: analytic_gaussian_sigma(1e-308, 1e-6), r"epsilon must be between 1e-300"),
    (lambda: analytic_gaussian_delta(1.0, 1e300, 1e-300), r"sigma/sensitivity"),
])
def test_calibration_refuses_what_float64_cannot_hold(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message) as error:
            call()
    assert len(str(error.value)) <= 300
