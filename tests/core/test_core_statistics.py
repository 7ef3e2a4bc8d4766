"""Binomial standard errors and Wilson intervals against scipy."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privlib.core.statistics import binomial_standard_error, wilson_interval


@pytest.mark.parametrize("n", [1, 10, 997, 100_000])
def test_standard_error_is_the_binomial_sd_of_a_proportion(n):
    p = np.linspace(0, 1, 11)
    np.testing.assert_allclose(binomial_standard_error(p, n), stats.binom(n, p).std() / n, rtol=1e-12, atol=1e-300)


def test_standard_error_broadcasts():
    p = np.array([[0.1], [0.5]])
    n = np.array([10, 1000])
    out = binomial_standard_error(p, n)
    assert out.shape == (2, 2)
    assert out[1, 0] == pytest.approx(np.sqrt(0.25 / 10), rel=1e-15)


@pytest.mark.parametrize("n", [5, 20, 333, 10_000])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.999])
def test_wilson_interval_matches_scipy(n, confidence):
    z = stats.norm.ppf(0.5 + confidence / 2)
    ks = np.unique(np.linspace(0, n, 9).astype(int))
    low, high = wilson_interval(ks / n, n, z)
    for k, lo, hi in zip(ks, low, high):
        ci = stats.binomtest(int(k), n).proportion_ci(confidence_level=confidence, method="wilson")
        assert lo == pytest.approx(ci.low, rel=1e-10, abs=1e-14)
        assert hi == pytest.approx(ci.high, rel=1e-10, abs=1e-14)


def test_wilson_bounds_solve_the_score_equation():
    """Each bound p' solves (p - p')^2 = z^2 p'(1 - p')/n (away from the clipping at 0 and 1)."""
    p, n, z = np.array([0.03, 0.2, 0.5, 0.9]), 250, 2.0
    for bound in wilson_interval(p, n, z):
        np.testing.assert_allclose((p - bound) ** 2, z * z * bound * (1 - bound) / n, rtol=1e-10)


def test_wilson_interval_edges():
    low, high = wilson_interval(np.array([0.0, 1.0]), 50, 1.96)
    assert low[0] == 0.0 and high[1] == 1.0 and 0 < high[0] < 0.1 and 0.9 < low[1] < 1
    low, high = wilson_interval(0.3, 10, 0.0)
    assert low == pytest.approx(0.3) and high == pytest.approx(0.3)


@pytest.mark.parametrize("call, message", [
    (lambda: binomial_standard_error(1.5, 10), "p must"),
    (lambda: binomial_standard_error(-0.1, 10), "p must"),
    (lambda: binomial_standard_error(np.nan, 10), "p must"),
    (lambda: binomial_standard_error(0.5, 0), "n .*greater than 0"),
    (lambda: wilson_interval(0.5, -3, 1.96), "n .*greater than 0"),
    (lambda: wilson_interval(0.5, 10, -1.0), "z"),
    (lambda: wilson_interval(0.5, 10, np.inf), "z"),
])
def test_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call()
