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


# ----------------------------------------------------------------------------- the extremes of each sampler
# Each sampler is tested against its exact law at the smallest and the largest accepted scale and in
# between; values beyond are refused. N draws per case; KS and chi-squared at P_MIN (seeds fixed),
# moments within 4 standard errors from the law's own moments.
TINY = np.finfo(np.float64).tiny  # the smallest normal float64: no draw may be subnormal (rounded)
N = 20_000


def assert_normal_finite(draws):
    """Every draw finite and either 0 or a normal float64 (a subnormal has lost precision)."""
    assert np.all(np.isfinite(draws))
    assert np.all((draws == 0) | (np.abs(draws) >= TINY))


@pytest.mark.parametrize("scale, seed", [(1e-290, 21), (3e-200, 22), (1.0, 23), (7e150, 24), (1e306, 25)])
def test_laplace_scalar_noise_at_extreme_scales_follows_its_law(scale, seed):
    draws = laplace_scalar_noise(scale, N, rng=seed)
    assert_normal_finite(draws)
    assert stats.kstest(draws, stats.laplace(0, scale).cdf).pvalue > P_MIN
    z = draws / scale  # Laplace(1): mean 0, variance 2, fourth moment 24
    assert abs(z.mean()) <= 4 * math.sqrt(2 / N)
    assert abs((z**2).mean() - 2) <= 4 * math.sqrt((24 - 4) / N)


@pytest.mark.parametrize("sigma, seed", [(1e-290, 31), (5e-120, 32), (1.0, 33), (2e200, 34), (1e306, 35)])
def test_gaussian_noise_at_extreme_scales_follows_its_law(sigma, seed):
    draws = gaussian_noise(sigma, N, rng=seed)
    assert_normal_finite(draws)
    assert stats.kstest(draws, stats.norm(0, sigma).cdf).pvalue > P_MIN
    z = draws / sigma  # N(0, 1): variance 1, fourth moment 3
    assert abs(z.mean()) <= 4 * math.sqrt(1 / N)
    assert abs((z**2).mean() - 1) <= 4 * math.sqrt((3 - 1) / N)


@pytest.mark.parametrize("dim, epsilon, seed", [
    (1, 1e-300, 41), (1, 1e290, 42), (2, 1e-300, 43), (2, 1.0, 44), (2, 1e290, 45),
    (300, 3e-304, 46), (300, 1e-300, 47), (300, 1e290, 48), (5, 1e-150, 49),
])
def test_multivariate_laplace_at_extreme_epsilons_follows_its_law(dim, epsilon, seed):
    if epsilon < dim * 1e-306 or epsilon < 1e-300:
        with pytest.raises(ValueError, match="epsilon"):
            laplace_noise(dim, epsilon, 10, rng=seed)
        return
    n = 5_000 if dim > 10 else N
    noise = laplace_noise(dim, epsilon, n, rng=seed)
    assert noise.shape == (n, dim)
    assert_normal_finite(noise)
    scaled = noise * epsilon  # exact up to rounding: the law at epsilon = 1 (radius Gamma(dim, 1))
    radius = np.linalg.norm(scaled, axis=1)
    assert stats.kstest(radius, stats.gamma(dim).cdf).pvalue > P_MIN
    assert abs(radius.mean() - dim) <= 4 * math.sqrt(dim / n)  # Gamma(dim, 1): mean = variance = dim
    u = scaled[:, 0] / radius  # a coordinate of a uniform direction: (u + 1)/2 ~ Beta((d-1)/2, (d-1)/2)
    if dim == 1:
        assert np.all(np.abs(u) == 1)
        assert abs((u > 0).mean() - 0.5) <= 4 * math.sqrt(0.25 / n)
    else:
        assert stats.kstest((u + 1) / 2, stats.beta((dim - 1) / 2, (dim - 1) / 2).cdf).pvalue > P_MIN


def geometric_cdf(k, epsilon):
    """P(K <= k) of the two-sided geometric law, exact in float64 for every epsilon (no 1 - a)."""
    k = np.asarray(k, dtype=np.float64)
    a = math.exp(-epsilon)
    upper = 1 - np.exp(-epsilon * (np.abs(k) + 1)) / (1 + a)  # k >= 0: 1 - a^(k+1)/(1+a)
    lower = np.exp(-epsilon * np.abs(k)) / (1 + a)  # k < 0: a^|k|/(1+a)
    return np.where(k >= 0, upper, lower)


def geometric_moments(epsilon):
    """(variance, fourth central moment) of the two-sided geometric law: K = G1 - G2 with G geometric
    on {0, 1, ...} of ratio a, so kappa2 = 2a/(1-a)^2 and kappa4 = 2a(1 + 4a + a^2)/(1-a)^4 (the
    cumulants of G doubled) and E K^4 = kappa4 + 3 kappa2^2. (1 - a = -expm1(-eps): exact at tiny eps.)"""
    a = math.exp(-epsilon)
    one_minus_a = -math.expm1(-epsilon)
    kappa2 = 2 * a / one_minus_a**2
    kappa4 = 2 * a * (1 + 4 * a + a * a) / one_minus_a**4
    return kappa2, kappa4 + 3 * kappa2**2


def test_geometric_moments_formula_matches_the_pmf():
    for epsilon in (0.3, 1.0, 2.0):
        support = np.arange(-3000, 3001)
        pmf = geometric_pmf(support, epsilon)
        variance, fourth = geometric_moments(epsilon)
        assert (pmf * support**2.0).sum() == pytest.approx(variance, rel=1e-12)
        assert (pmf * support**4.0).sum() == pytest.approx(fourth, rel=1e-12)
        assert np.diff(geometric_cdf(support, epsilon)) == pytest.approx(pmf[1:], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("epsilon, seed", [(1e-14, 51), (1e-10, 52), (1e-6, 53), (0.05, 54), (1.0, 55), (4.0, 56)])
def test_geometric_noise_at_extreme_epsilons_follows_its_law(epsilon, seed):
    draws = geometric_noise(epsilon, N, rng=seed)
    assert draws.dtype == np.int64
    # binned chi-squared against the exact CDF: integer cell edges at ~25 quantiles of the law
    edges = np.unique(np.round(stats.laplace(0, 1 / epsilon).ppf(np.linspace(0.03, 0.97, 25))))
    cdf = geometric_cdf(edges, epsilon)
    expected = N * np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    counts = np.bincount(np.searchsorted(edges, draws, side="left"), minlength=edges.size + 1)
    keep = expected > 0
    assert expected[keep].min() >= 5
    assert stats.chisquare(counts[keep], expected[keep]).pvalue > P_MIN
    variance, fourth = geometric_moments(epsilon)
    x = draws.astype(np.float64)
    assert abs(x.mean()) <= 4 * math.sqrt(variance / N)
    assert abs((x**2).mean() - variance) <= 4 * math.sqrt((fourth - variance**2) / N)


def test_geometric_noise_at_the_smallest_epsilon_is_not_zero_or_clipped():
    # the old sampler returned all zeros at tiny epsilon (both counts clipped to the int64 maximum);
    # at the smallest accepted epsilon the noise has its full size, ~1/epsilon = 1e14
    draws = geometric_noise(1e-14, 1000, rng=57)
    assert np.median(np.abs(draws)) > 1e13
    assert np.abs(draws).max() < 2**53
    assert len(np.unique(draws)) == draws.size


@pytest.mark.parametrize("epsilon", [37.5, 100.0, 1e300])
def test_geometric_noise_at_huge_epsilon_is_zero(epsilon):
    # P(K != 0) = 2a/(1 + a) < 2e-16 here, below the resolution of the uniform draws
    assert np.all(geometric_noise(epsilon, N, rng=58) == 0)


@pytest.mark.parametrize("call, message", [
    (lambda: geometric_noise(1e-100, 5), r"at least 1e-14"),
    (lambda: geometric_noise(9.9e-15, 5), r"at least 1e-14"),
    (lambda: geometric_noise(1e-308, 5), r"between 1e-300 and 1e\+300"),
    (lambda: laplace_noise(3, 1e-308, 2), r"between 1e-300 and 1e\+300"),
    (lambda: laplace_noise(3, 1e291, 2), r"between 1e-300 and 1e\+290"),
    (lambda: laplace_noise(10**7, 1e-300, 1), r"between 1e-299 and 1e\+290"),
    (lambda: laplace_scalar_noise(1e307, 3), r"between 1e-290 and 1e\+306.*larger epsilon"),
    (lambda: laplace_scalar_noise(1e308, 3), r"between 1e-290 and 1e\+306"),
    (lambda: laplace_scalar_noise(9e-291, 3), r"between 1e-290 and 1e\+306"),
    (lambda: laplace_scalar_noise(5e-324, 3), r"between 1e-290 and 1e\+306"),
    (lambda: gaussian_noise(1.1e306, 3), r"sigma .* between 1e-290 and 1e\+306"),
    (lambda: gaussian_noise(1e-300, 3), r"sigma .* between 1e-290 and 1e\+306"),
])
def test_noise_refuses_scales_float64_cannot_hold(call, message):
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert len(str(error.value)) <= 300


@pytest.mark.parametrize("call", [
    lambda: laplace_scalar_noise(1e306, 10**4, rng=1), lambda: laplace_scalar_noise(1e-290, 10**4, rng=1),
    lambda: gaussian_noise(1e306, 10**4, rng=1), lambda: laplace_noise(1, 1e-300, 10**4, rng=1),
    lambda: laplace_noise(3, 1e290, 10**4, rng=1), lambda: geometric_noise(1e-14, 10**4, rng=1),
])
def test_noise_at_the_accepted_ends_raises_no_float_warnings(call):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or underflow would be a RuntimeWarning
        call()
