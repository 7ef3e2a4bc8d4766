"""Noise samplers against their laws (fixed seeds): KS tests for the continuous ones, the exact pmf
and variance for the two-sided geometric."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlib.core.noise import gaussian_noise, geometric_noise, laplace_noise, laplace_scalar_noise

P_MIN = 1e-3  # a correct sampler fails a test at this level 0.1% of the time; seeds are fixed


@pytest.mark.parametrize("sigma, seed", [(0.3, 1), (1.0, 2), (25.0, 3)])
def test_gaussian_noise_is_normal(sigma, seed):
    draws = gaussian_noise(sigma, (100, 200), rng=seed)
    assert draws.shape == (100, 200) and draws.dtype == np.float64
    assert stats.kstest(draws.ravel(), stats.norm(0, sigma).cdf).pvalue > P_MIN
    # and the test has power: the same draws are not N(0, (1.1 sigma)^2)
    assert stats.kstest(draws.ravel(), stats.norm(0, 1.1 * sigma).cdf).pvalue < P_MIN


@pytest.mark.parametrize("scale, seed", [(0.2, 4), (1.0, 5), (10.0, 6)])
def test_laplace_scalar_noise_is_laplace(scale, seed):
    draws = laplace_scalar_noise(scale, 20_000, rng=seed)
    assert draws.shape == (20_000,)
    assert stats.kstest(draws, stats.laplace(0, scale).cdf).pvalue > P_MIN
    assert stats.kstest(draws, stats.norm(0, scale * math.sqrt(2)).cdf).pvalue < P_MIN  # same variance, wrong law


def geometric_pmf(k, epsilon):
    a = math.exp(-epsilon)
    return (1 - a) / (1 + a) * a ** np.abs(k)


@pytest.mark.parametrize("epsilon, seed", [(0.3, 7), (0.7, 8), (2.0, 9)])
def test_geometric_noise_pmf(epsilon, seed):
    n = 200_000
    draws = geometric_noise(epsilon, n, rng=seed)
    assert draws.dtype == np.int64 and draws.shape == (n,)
    # the pmf is proportional to exp(-epsilon |k|) and sums to 1
    support = np.arange(-400, 401)
    assert geometric_pmf(support, epsilon).sum() == pytest.approx(1.0, rel=1e-12)
    # each frequent value within 4 standard errors of its probability
    values = np.arange(-8, 9)
    p = geometric_pmf(values, epsilon)
    observed = np.array([(draws == k).mean() for k in values])
    assert np.all(np.abs(observed - p) <= 4 * np.sqrt(p * (1 - p) / n)), (observed, p)
    # chi-squared over the cells with an expected count of at least 5 (tails pooled)
    edge = int(np.max(np.nonzero(n * geometric_pmf(np.arange(0, 400), epsilon) >= 5)))
    cells = np.arange(-edge, edge + 1)
    expected = n * np.append(geometric_pmf(cells, epsilon), 1 - geometric_pmf(cells, epsilon).sum())
    counts = np.append([(draws == k).sum() for k in cells], (np.abs(draws) > edge).sum())
    assert stats.chisquare(counts, expected).pvalue > P_MIN


@pytest.mark.parametrize("epsilon, seed", [(0.1, 10), (0.5, 11), (1.5, 12)])
def test_geometric_noise_variance(epsilon, seed):
    a = math.exp(-epsilon)
    closed_form = 2 * a / (1 - a) ** 2
    support = np.arange(-3000, 3001)
    pmf = geometric_pmf(support, epsilon)
    assert (pmf * support**2).sum() == pytest.approx(closed_form, rel=1e-9)  # the formula itself
    fourth = (pmf * support.astype(float) ** 4).sum()
    n = 100_000
    draws = geometric_noise(epsilon, n, rng=seed).astype(float)
    se_variance = math.sqrt((fourth - closed_form**2) / n)
    assert abs((draws**2).mean() - closed_form) <= 4 * se_variance
    assert abs(draws.mean()) <= 4 * math.sqrt(closed_form / n)


def test_geometric_noise_extremes_and_shapes():
    assert np.all(geometric_noise(1000.0, (3, 4), rng=0) == 0)
    assert geometric_noise(1.0, 0, rng=0).shape == (0,)
    np.testing.assert_array_equal(geometric_noise(0.5, 50, rng=5), geometric_noise(0.5, 50, rng=5))
    small = geometric_noise(1e-6, 1000, rng=1)
    assert np.abs(small).max() > 1e5  # scale ~ 1/epsilon


def test_noise_shapes_and_reproducibility():
    assert gaussian_noise(1.0, 7, rng=0).shape == (7,)
    assert gaussian_noise(1.0, (2, 3, 4), rng=0).shape == (2, 3, 4)
    assert laplace_scalar_noise(1.0, (0, 2), rng=0).shape == (0, 2)
    np.testing.assert_array_equal(gaussian_noise(2.0, 10, rng=42), gaussian_noise(2.0, 10, rng=42))
    rng = np.random.default_rng(3)
    assert not np.array_equal(laplace_scalar_noise(1.0, 10, rng), laplace_scalar_noise(1.0, 10, rng))


def test_multivariate_laplace_radius_is_gamma():
    dim, epsilon = 5, 2.0
    radius = np.linalg.norm(laplace_noise(dim, epsilon, 20_000, rng=13), axis=1)
    assert stats.kstest(radius, stats.gamma(dim, scale=1 / epsilon).cdf).pvalue > P_MIN


@pytest.mark.parametrize("call, message", [
    (lambda: gaussian_noise(0.0, 3), "sigma"),
    (lambda: gaussian_noise(-1.0, 3), "sigma"),
    (lambda: gaussian_noise(float("nan"), 3), "sigma"),
    (lambda: gaussian_noise(1.0, -1), "size"),
    (lambda: gaussian_noise(1.0, 2.5), "size"),
    (lambda: gaussian_noise(1.0, (2, -1)), "size"),
    (lambda: gaussian_noise(1.0, "3"), "size"),
    (lambda: laplace_scalar_noise(0.0, 3), "scale"),
    (lambda: laplace_scalar_noise(float("inf"), 3), "scale"),
    (lambda: geometric_noise(0.0, 3), "epsilon"),
    (lambda: geometric_noise(-2.0, 3), "epsilon"),
    (lambda: geometric_noise(1.0, None), "size"),
    (lambda: gaussian_noise(1.0, 3, rng=-1), "seed"),
])
def test_noise_rejects_bad_parameters(call, message):
    with pytest.raises(ValueError, match=message):
        call()
