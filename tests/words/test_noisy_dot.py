"""Tests for privlib.words.theory.noisy_dot: the law of Z = <eta, e>, its components and tail bounds.

Reference values come from three independent places: the spec's 30-digit table (dx-text §4),
values computed here once with mpmath at 25-30 digits (copied below with the formula used),
and the paper's own Eq. 13 integrated numerically (NoisyDotProduct.pdf_integral/sf_integral
use only the Gamma and Beta densities, never the Bessel closed form). Statistical tests use
fixed seeds and tolerances derived from the sampling error.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from privlib.words.theory.noisy_dot import (
    AngularComponent,
    NoiseRadius,
    NoisyDotProduct,
    angular_tail_bound,
    chebyshev_tail_bound,
    chernoff_log_tail_bound,
    chernoff_tail_bound,
    empirical_dot_products,
    radius_lower_tail_bound,
    radius_upper_tail_bound,
    thm8_half_width,
    thm8_mass,
    thm8_tail_bound,
)

# ---------------------------------------------------------------------------------------------
# Reference values
# ---------------------------------------------------------------------------------------------

# Spec dx-text §4 (30-digit arithmetic, printed to 12 significant digits):
# (n, eps): (f_Z(0), F_Z(0.5), F_Z(1.369), F_Z(2.0))
SPEC_TABLE = {
    (2, 1): (0.318309886184, 0.647980033244, 0.823574517161, 0.896578463918),
    (50, 1): (0.0567017406689, 0.528326280253, 0.577122611623, 0.611848756798),
    (50, 10): (0.567017406689, 0.760776598187, 0.971975605962, 0.996948463899),
    (100, 10): (0.399940867174, 0.691790160635, 0.914027034496, 0.976449735486),
    (300, 10): (0.230521453817, 0.613669351657, 0.785422109529, 0.875826767525),
}

# P(X > x) for the standardised X = eps Z (eps = 1), mpmath at 25 digits from the G1 - G2
# representation: P(G1 - G2 > x) = ∫_0^∞ g_a(y) Q(a, x + y) dy, a = (n+1)/2, g_a the Gamma(a, 1)
# density and Q the regularised upper incomplete gamma function.
MPMATH_SF = [
    (2, 0.5196152422706631, 0.3468771250087957024920),
    (2, 5.196152422706632, 0.0058036596393671866198),
    (4, 2.23606797749979, 0.1389698029469469278284),
    (10, 3.3166247903554, 0.1485568398771959062313),
    (49, 42.42640687119285, 0.0000000320566085160966),
    (50, 0.7141428428542851, 0.4595784452432122491696),
    (100, 20.09975124224178, 0.0230154723684718212153),
    (300, 12.14454610102823, 0.2415077361307395957724),
    (1000, 9.491575211733824, 0.3820053499694890683084),
    (1000, 47.45787605866913, 0.0667709518765855093979),
    (1000, 126.554336156451, 0.0000334240174154771069),
]

# log P(X > x) far in the tail, x = k sqrt(n+1) (k standard deviations), mpmath at 30 digits:
# log f(x) + log ∫_x^∞ f(t)/f(x) dt with f(t) = t^{n/2} K_{n/2}(t) / (2^{n/2} sqrt(pi) Γ((n+1)/2))
# (mpmath besselk), quadrature error estimates < 1e-30. (n, k, log sf)
MPMATH_LOGSF_TAIL = [
    (2, 40, -68.069439037732520339),
    (2, 80, -137.01107020177628278),
    (4, 40, -84.682533187553951861),
    (10, 20, -54.975223094464004114),
    (10, 80, -247.92230823942192849),
    (49, 40, -218.33631982453791295),
    (50, 80, -489.26522205149102083),
    (51, 20, -93.553080483593311905),
    (100, 40, -283.47074908482660896),
    (100, 80, -652.76415056345428258),  # sf ~ 1e-283: 1 - cdf is useless here
]

N_GRID = [2, 3, 5, 10, 50, 100, 300, 1000]
EPS_GRID = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]


def multivariate_laplace(rng, size, n, epsilon):
    """Local sampler of the mechanism's noise (spec §1): uniform direction (normalised standard
    normal) times a Gamma(n, scale 1/eps) radius. Written here so the tests do not depend on
    privlib.words.mechanisms."""
    direction = rng.standard_normal((size, n))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * rng.gamma(n, 1.0 / epsilon, size)[:, None]


def unit_vector(rng, n):
    v = rng.standard_normal(n)
    return v / np.linalg.norm(v)


# ---------------------------------------------------------------------------------------------
# Exact values
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "eps"), list(SPEC_TABLE))
def test_spec_reference_table(n, eps):
    law = NoisyDotProduct(n, eps)
    f0, c05, c1369, c2 = SPEC_TABLE[(n, eps)]
    assert law.pdf(0.0) == pytest.approx(f0, abs=1e-9, rel=0)
    np.testing.assert_allclose(law.cdf([0.5, 1.369, 2.0]), [c05, c1369, c2], rtol=0, atol=1e-9)
    # the z = 0 limit written out in the spec
    limit = eps * math.gamma(n / 2) / (2 * math.sqrt(math.pi) * math.gamma((n + 1) / 2))
    assert law.pdf(0.0) == pytest.approx(limit, rel=1e-12)


@pytest.mark.parametrize(("n", "x", "expected"), MPMATH_SF)
def test_sf_matches_mpmath_references(n, x, expected):
    # Checked at eps = 2.5 (z = x / eps) so the rescaling is exercised as well.
    law = NoisyDotProduct(n, 2.5)
    assert law.sf(x / 2.5) == pytest.approx(expected, rel=1e-11, abs=1e-13)
    assert law.cdf(-x / 2.5) == pytest.approx(expected, rel=1e-11, abs=1e-13)


@pytest.mark.parametrize(("n", "k", "expected"), MPMATH_LOGSF_TAIL)
def test_logsf_far_tail_matches_mpmath(n, k, expected):
    law = NoisyDotProduct(n, 1.0)
    x = k * math.sqrt(n + 1)
    # absolute error in log sf = relative error in sf
    assert law.logsf(x) == pytest.approx(expected, abs=1e-11, rel=0)
    assert law.logcdf(-x) == pytest.approx(expected, abs=1e-11, rel=0)


@pytest.mark.parametrize("eps", [0.01, 1.0, 1000.0])
def test_n1_is_laplace_and_odd_n_elementary_forms(eps):
    """For odd n, K_{n/2} is elementary. With x = eps z >= 0:
    n = 1: sf = e^{-x}/2 (Laplace); n = 3: f_X = (1+x)e^{-x}/4, sf = (2+x)e^{-x}/4;
    n = 5: f_X = (x^2+3x+3)e^{-x}/16, sf = (x^2+5x+8)e^{-x}/16. Valid far beyond where sf underflows."""
    x = np.array([0.0, 0.3, 1.0, 7.0, 40.0, 700.0, 1e4, 1e7, 1e12])  # kve fails beyond ~1e9
    z = x / eps
    forms = {
        1: (lambda x: np.full_like(x, 0.5), lambda x: np.full_like(x, 0.5)),
        3: (lambda x: (1 + x) / 4, lambda x: (2 + x) / 4),
        5: (lambda x: (x * x + 3 * x + 3) / 16, lambda x: (x * x + 5 * x + 8) / 16),
    }
    for n, (density_poly, sf_poly) in forms.items():
        law = NoisyDotProduct(n, eps)
        np.testing.assert_allclose(law.logpdf(z), math.log(eps) + np.log(density_poly(x)) - x, rtol=1e-14, atol=1e-12)
        np.testing.assert_allclose(law.logsf(z), np.log(sf_poly(x)) - x, rtol=1e-14, atol=1e-12)
        np.testing.assert_allclose(law.logcdf(-z), np.log(sf_poly(x)) - x, rtol=1e-14, atol=1e-12)


def test_cdf_plus_sf_symmetry_and_monotonicity():
    for n in [1, 2, 7, 50, 1000]:
        law = NoisyDotProduct(n, 3.0)
        z = np.linspace(-8, 8, 401) * law.std()
        cdf, sf = law.cdf(z), law.sf(z)
        np.testing.assert_allclose(cdf + sf, 1.0, rtol=0, atol=5e-14)
        np.testing.assert_allclose(law.cdf(-z), sf, rtol=1e-13, atol=0)
        np.testing.assert_allclose(law.pdf(-z), law.pdf(z), rtol=1e-14, atol=0)
        assert np.all(np.diff(cdf) >= 0)
        assert law.cdf(0.0) == law.sf(0.0) == 0.5  # exact by symmetry


def test_ppf_isf_round_trip_including_far_tails():
    for n in [1, 2, 10, 300, 1000]:
        law = NoisyDotProduct(n, 0.7)
        q = np.concatenate([np.logspace(-300, -1, 60), np.linspace(0.1, 0.9, 17)])
        z = law.ppf(q)
        np.testing.assert_allclose(law.logcdf(z), np.log(q), rtol=0, atol=1e-11)
        np.testing.assert_allclose(law.isf(q), -z, rtol=1e-14)
        grid = np.linspace(-6, 6, 49) * law.std()
        np.testing.assert_allclose(law.ppf(law.cdf(grid)), grid, rtol=1e-9, atol=1e-9 * law.std())
    law = NoisyDotProduct(5, 2.0)
    assert law.ppf(0.0) == -np.inf and law.ppf(1.0) == np.inf and law.ppf(0.5) == 0.0
    assert law.isf(0.0) == np.inf and law.isf(1.0) == -np.inf


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=st.integers(1, 2000), log_eps=st.floats(-4.6, 6.9), u=st.floats(-30, 30))
def test_properties_hold_for_any_parameters(n, log_eps, u):
    """For any n, eps and z (u in standard deviations): finite, non-negative, consistent."""
    law = NoisyDotProduct(n, math.exp(log_eps))
    z = u * law.std()
    pdf, cdf, sf = law.pdf(z), law.cdf(z), law.sf(z)
    assert np.isfinite([pdf, cdf, sf, law.logsf(z), law.logpdf(z)]).all()
    assert pdf >= 0 and 0 <= cdf <= 1 and 0 <= sf <= 1
    assert cdf + sf == pytest.approx(1.0, abs=5e-14)
    assert law.cdf(-z) == pytest.approx(sf, rel=1e-12, abs=1e-300)
    # round trip through the tail probability that is small (cdf near 1 cannot resolve z)
    if z <= 0 and cdf > 1e-250:
        assert law.ppf(cdf) == pytest.approx(z, rel=1e-8, abs=1e-8 * law.std())
    if z > 0 and sf > 1e-250:
        assert law.isf(sf) == pytest.approx(z, rel=1e-8, abs=1e-8 * law.std())


@pytest.mark.parametrize(("n", "eps", "half_width"), [(100, 10, 2.612), (10, 10, 0.916)])
def test_interval_99_matches_spec(n, eps, half_width):
    lower, upper = NoisyDotProduct(n, eps).interval(0.99)
    assert lower == -upper
    assert round(upper, 3) == half_width
    assert NoisyDotProduct(n, eps).sf(upper) == pytest.approx(0.005, rel=1e-10)


def test_moments_by_quadrature_and_mgf():
    for n, eps in [(1, 1.0), (2, 0.5), (50, 10.0), (1000, 3.0)]:
        law = NoisyDotProduct(n, eps)
        s = law.std()
        total = integrate.quad(law.pdf, -60 * s, 60 * s, points=[0.0], epsabs=0, epsrel=1e-12, limit=400)[0]
        second = integrate.quad(lambda z: z * z * law.pdf(z), -60 * s, 60 * s, points=[0.0],
                                epsabs=0, epsrel=1e-12, limit=400)[0]
        assert total == pytest.approx(1.0, abs=1e-10)
        assert second == pytest.approx((n + 1) / eps**2, rel=1e-9)  # Thm 9
        assert law.var() == (n + 1) / eps**2 and law.mean() == 0.0 and law.std() == pytest.approx(s)
        t = 0.4 * eps
        mgf = integrate.quad(lambda z: math.exp(t * z + law.logpdf(z)), -200 * s, 200 * s, points=[0.0],
                             epsabs=0, epsrel=1e-12, limit=400)[0]
        assert law.mgf(t) == pytest.approx(mgf, rel=1e-9)
    assert NoisyDotProduct(3, 2.0).mgf(2.0) == np.inf


# ---------------------------------------------------------------------------------------------
# Closed form versus the paper's Eq. 13 integrated numerically
# ---------------------------------------------------------------------------------------------

# Points in units of the standard deviation sqrt(n+1)/eps: 0, the body, and tails down to ~1e-240.
BODY_UNITS = np.array([0.0, 0.02, 0.4, 1.0, 2.0, 3.5, 6.0])
TAIL_UNITS = np.array([10.0, 20.0, 40.0])


@pytest.mark.parametrize("n", N_GRID)
def test_closed_form_matches_eq13_on_grid(n):
    """|pdf/eps difference| and |cdf difference| <= 1e-9 on the grid (measured: < 2e-13), and the
    two agree to 1e-9 relative in the tails (log sf, log pdf; measured < 2e-12), where 1 - cdf
    underflows."""
    for eps in EPS_GRID:
        law = NoisyDotProduct(n, eps)
        z = np.concatenate([-BODY_UNITS[1:3], BODY_UNITS, TAIL_UNITS]) * law.std()
        pdf, pdf13 = law.pdf(z), law.pdf_integral(z)
        cdf, cdf13 = law.cdf(z), law.cdf_integral(z)
        sf, sf13 = law.sf(z), law.sf_integral(z)
        for values in (pdf, cdf, sf):
            assert np.isfinite(values).all() and (values >= 0).all()
        # pdf scales like eps: compare the standardised density pdf/eps (<= 0.4)
        np.testing.assert_allclose(pdf / eps, pdf13 / eps, rtol=0, atol=1e-9)
        np.testing.assert_allclose(cdf, cdf13, rtol=0, atol=1e-9)
        np.testing.assert_allclose(np.log(sf), np.log(sf13), rtol=0, atol=1e-9)
        np.testing.assert_allclose(law.logpdf(z), np.log(pdf13), rtol=0, atol=1e-9)


def test_n1_eq13_is_laplace():
    law = NoisyDotProduct(1, 2.0)
    z = np.array([-3.0, 0.0, 0.4, 5.0])
    np.testing.assert_allclose(law.pdf_integral(z), np.exp(-2.0 * np.abs(z)), rtol=1e-15)
    np.testing.assert_allclose(law.cdf_integral(z), law.cdf(z), rtol=1e-13)


def test_sf_tail_against_gamma_difference_quadrature():
    """sf(x) = E[Q(a, x + G2)] (Z = G1 - G2) by scipy quad: an independent computation of the
    tail, relative agreement 1e-8 down to sf ~ 1e-200, where 1 - cdf is 0."""
    for n, k in [(2, 30), (20, 25), (200, 30), (1000, 15)]:
        a = 0.5 * (n + 1)
        x = k * math.sqrt(n + 1)
        y_peak = max(0.5 * ((a - 1) - x + math.sqrt((x - (a - 1)) ** 2 + 4 * (a - 1) * x)), 1e-3)

        def integrand(y):
            return math.exp((a - 1) * math.log(y) - y - special.gammaln(a)) * special.gammaincc(a, x + y)

        width = 5 * math.sqrt(a) + 10
        pieces = [(0, y_peak), (y_peak, y_peak + width), (y_peak + width, y_peak + 40 * width)]
        reference = sum(integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0]
                        for lo, hi in pieces)
        law = NoisyDotProduct(n, 1.0)
        assert law.cdf(x) == 1.0  # so 1 - cdf would say 0 here; sf must come from its own computation
        assert 0 < law.sf(x) < 1e-20
        assert law.sf(x) == pytest.approx(reference, rel=1e-8)


# ---------------------------------------------------------------------------------------------
# Sampling: rvs, the mechanism's noise, moments
# ---------------------------------------------------------------------------------------------

def test_rvs_passes_ks_and_ks_detects_wrong_law():
    law = NoisyDotProduct(50, 2.0)
    samples = law.rvs(20_000, rng=12345)
    assert stats.kstest(samples, law.cdf).pvalue > 1e-3
    # The same test rejects a law with eps 20% off, and one with n = 25 (power check).
    assert stats.kstest(samples, NoisyDotProduct(50, 2.4).cdf).pvalue < 1e-3
    assert stats.kstest(samples, NoisyDotProduct(25, 2.0).cdf).pvalue < 1e-3
    # and one with the right variance but the wrong shape: Normal(0, sqrt(n+1)/eps) at n = 2
    small = NoisyDotProduct(2, 1.0)
    assert stats.kstest(small.rvs(20_000, rng=7), stats.norm(0, small.std()).cdf).pvalue < 1e-3


def test_rvs_rng_handling():
    law = NoisyDotProduct(10, 1.0)
    np.testing.assert_array_equal(law.rvs(5, rng=3), law.rvs(5, rng=np.random.default_rng(3)))
    assert not np.array_equal(law.rvs(5), law.rvs(5))  # None: fresh OS entropy each time
    assert np.ndim(law.rvs(rng=1)) == 0 and law.rvs((2, 3), rng=1).shape == (2, 3)
    with pytest.raises(ValueError, match="seed"):
        law.rvs(3, rng="abc")


@pytest.mark.parametrize(("n", "eps"), [(2, 1.0), (50, 0.1), (300, 25.0)])
def test_real_noise_dot_products_follow_the_law(n, eps):
    rng = np.random.default_rng(2024 + n)
    noise = multivariate_laplace(rng, 20_000, n, eps)
    w = 3.7 * unit_vector(rng, n)  # a "word vector" of length 3.7 in a random direction
    law = NoisyDotProduct(n, eps)
    z = empirical_dot_products(noise, w)
    assert stats.kstest(z, law.cdf).pvalue > 1e-3
    # normalise=False gives ||w|| Z: its law is the scaled one, and the unscaled law is rejected
    raw = empirical_dot_products(noise, w, normalise=False)
    np.testing.assert_allclose(raw, 3.7 * z, rtol=1e-12, atol=1e-12 * law.std())
    assert stats.kstest(raw / 3.7, law.cdf).pvalue > 1e-3
    assert stats.kstest(raw, law.cdf).pvalue < 1e-3


def test_mechanism_laplace_noise_dot_products_follow_the_law():
    """The library's own sampler (privlib.words.mechanisms.laplace_noise) dotted with a unit vector."""
    from privlib.core.noise import laplace_noise

    n, eps = 100, 4.0
    noise = laplace_noise(n, eps, 20_000, rng=99)
    direction = unit_vector(np.random.default_rng(5), n)
    z = empirical_dot_products(noise, direction)
    assert stats.kstest(z, NoisyDotProduct(n, eps).cdf).pvalue > 1e-3


@pytest.mark.parametrize(("n", "eps"), [(1, 2.0), (10, 1.0), (300, 30.0)])
def test_sample_mean_and_variance_within_four_standard_errors(n, eps):
    """Var Z = (n+1)/eps^2 (Thm 9). SE of the sample variance: sqrt((mu4 - sigma^4)/m) with
    mu4 - sigma^4 = kappa4 + 2 sigma^4, kappa4 = 6(n+1)/eps^4 (twice the 4th cumulant of
    Gamma((n+1)/2, 1/eps))."""
    m = 200_000
    law = NoisyDotProduct(n, eps)
    z = law.rvs(m, rng=n)
    sigma2 = (n + 1) / eps**2
    assert abs(z.mean()) <= 4 * math.sqrt(sigma2 / m)
    se_var = math.sqrt((6 * (n + 1) / eps**4 + 2 * sigma2**2) / m)
    assert abs(z.var() - sigma2) <= 4 * se_var


# ---------------------------------------------------------------------------------------------
# Components
# ---------------------------------------------------------------------------------------------

def test_angular_moments_exact_theorem4():
    assert AngularComponent(3).moment(2, exact=True) == Fraction(1, 3)
    assert AngularComponent(2).moment(2, exact=True) == Fraction(1, 2)
    assert AngularComponent(2).moment(4, exact=True) == Fraction(3, 8)
    assert AngularComponent(4).moment(4, exact=True) == Fraction(1, 8)  # 2!! 3!! / 6!! = 6/48
    assert AngularComponent(5).moment(6, exact=True) == Fraction(15, 5 * 7 * 9)  # 3!! 5!! / 9!!
    assert AngularComponent(7).moment(3, exact=True) == 0 and AngularComponent(7).moment(3) == 0.0
    assert AngularComponent(9).moment(0, exact=True) == 1

    def double_factorial(k):
        return math.prod(range(k, 0, -2)) if k > 0 else 1

    for n in range(2, 12):
        angular = AngularComponent(n)
        assert angular.moment(2, exact=True) == Fraction(1, n)
        assert angular.var() == pytest.approx(1 / n, rel=1e-15)
        for j in range(0, 13, 2):
            theorem4 = Fraction(double_factorial(n - 2) * double_factorial(j - 1), double_factorial(n - 2 + j))
            assert angular.moment(j, exact=True) == theorem4
            assert angular.moment(j) == pytest.approx(float(theorem4), rel=1e-13)


def test_angular_moments_by_quadrature_and_large_n():
    for n in [2, 3, 4, 10, 75]:
        angular = AngularComponent(n)
        alpha = 0.5 * (n - 3)
        # weight='alg' integrates (1+k)^alpha (1-k)^alpha exactly: handles n = 2's endpoint singularity
        mass = integrate.quad(lambda k: 1.0, -1, 1, weight="alg", wvar=(alpha, alpha))[0]
        assert mass / math.exp(special.betaln(0.5 * (n - 1), 0.5)) == pytest.approx(1.0, rel=1e-12)
        for j in [2, 4, 6]:
            value = integrate.quad(lambda k: k**j, -1, 1, weight="alg", wvar=(alpha, alpha))[0]
            value /= math.exp(special.betaln(0.5 * (n - 1), 0.5))
            assert angular.moment(j) == pytest.approx(value, rel=1e-10)
        # plain quadrature of the pdf away from the endpoints, where it is bounded
        assert integrate.quad(angular.pdf, -0.5, 0.5)[0] == pytest.approx(
            angular.cdf(0.5) - angular.cdf(-0.5), rel=1e-10)
    big = AngularComponent(5000)
    assert big.moment(40) == pytest.approx(float(big.moment(40, exact=True)), rel=1e-12)
    np.testing.assert_allclose(AngularComponent(3).pdf([-1.0, 0.2, 1.0, 1.5]), [0.5, 0.5, 0.5, 0.0], rtol=1e-15)
    assert AngularComponent(2).pdf(1.0) == np.inf


def test_angular_component_against_sphere_simulation():
    rng = np.random.default_rng(77)
    m = 40_000
    for n in [2, 3, 10, 60]:
        v = rng.standard_normal((m, n))
        k = v[:, 0] / np.linalg.norm(v, axis=1)  # cosine with the first axis
        angular = AngularComponent(n)
        assert stats.kstest(k, angular.cdf).pvalue > 1e-3
        assert stats.kstest(angular.rvs(m, rng=n), angular.cdf).pvalue > 1e-3
        for j in [2, 4]:
            sample = k**j
            assert abs(sample.mean() - angular.moment(j)) <= 4 * sample.std() / math.sqrt(m)
        np.testing.assert_allclose(angular.cdf([-0.3, 0.1]) + angular.sf([-0.3, 0.1]), 1.0, atol=1e-15)


def test_noise_radius_wraps_gamma():
    radius = NoiseRadius(50, 4.0)
    assert radius.mean() == 12.5 and radius.var() == 50 / 16
    assert radius.cdf(10.0) == pytest.approx(stats.gamma(50, scale=0.25).cdf(10.0), rel=1e-14)
    samples = radius.rvs(20_000, rng=1)
    assert stats.kstest(samples, radius.cdf).pvalue > 1e-3
    law = NoisyDotProduct(50, 4.0)
    assert law.radius.mean() == 12.5 and law.angular.var() == pytest.approx(1 / 50)
    with pytest.raises(ValueError, match="n >= 2"):
        NoisyDotProduct(1, 1.0).angular


@pytest.mark.parametrize("n", [1, 2, 3, 50, 300])
@pytest.mark.parametrize("epsilon", [1e-4, 0.002, 1.0, 37.3])
def test_noise_radius_is_scipy_gamma_bit_for_bit(n, epsilon):
    """NoiseRadius computes scipy.stats.gamma's formulas with scipy.special (no scipy.stats import, issue 22):
    the very same numbers, scalars as numpy floats, on the support, off it (r < 0, r = 0, ±inf) and at NaN."""
    law, reference = NoiseRadius(n, epsilon), stats.gamma(a=n, scale=1 / epsilon)
    rng = np.random.default_rng(n)
    r = np.concatenate([rng.gamma(n, 1 / epsilon, 300), rng.uniform(0, 10 * n / epsilon, 100),
                        [0.0, -0.0, -1.0, 1e-300, 1e300, np.inf, -np.inf, np.nan]])
    q = np.concatenate([rng.uniform(0, 1, 300), [0.0, 1.0, -0.1, 1.1, np.nan, 1e-300, 1 - 1e-16, 0.5]])
    for name, points in [("pdf", r), ("logpdf", r), ("cdf", r), ("sf", r), ("logsf", r), ("ppf", q)]:
        for x in (points, points.reshape(-1, 2), points[0], float(points[-1]), []):
            with np.errstate(all="ignore"):
                ours, theirs = getattr(law, name)(x), getattr(reference, name)(x)
            assert np.shape(ours) == np.shape(theirs) and type(ours) is type(theirs), (name, x)
            np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_the_closed_forms_import_no_scipy_stats_integrate_or_optimize():
    """The Why it happens page's first view (its exact laws: NoiseRadius, NoisyDotProduct.cdf) pays none of these
    imports (~0.8 s, issue 22): they are imported where Eq. 13's integral and Thm 8's minimisation need them."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from privlib.words.theory import analogies, neighbour_distances, noisy_dot\n"
            "noisy_dot.NoiseRadius(2, 0.01).ppf(0.999), noisy_dot.NoisyDotProduct(50, 2.0).cdf([0.5, 3.0])\n"
            "print(sorted(m for m in ('scipy.stats', 'scipy.integrate', 'scipy.optimize') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]
    law = NoisyDotProduct(50, 2.0)  # and the functions that need them import them
    assert law.sf_integral(0.7) == pytest.approx(float(law.sf(0.7)), rel=1e-9)
    assert thm8_half_width(50, 2.0, 0.9).half_width > 0


# ---------------------------------------------------------------------------------------------
# Bounds
# ---------------------------------------------------------------------------------------------

BOUND_NS = [1, 2, 10, 100, 1000]
BOUND_EPS = [0.1, 1.0, 10.0]
SD_MULTIPLES = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0, 40.0])


@pytest.mark.parametrize("n", BOUND_NS)
def test_tail_bounds_hold_against_the_exact_tail(n):
    for eps in BOUND_EPS:
        law = NoisyDotProduct(n, eps)
        t = SD_MULTIPLES * law.std()
        exact_two_sided = 2 * law.sf(t)
        log_exact_two_sided = math.log(2) + law.logsf(t)
        chernoff = chernoff_tail_bound(n, eps, t)
        chebyshev = chebyshev_tail_bound(n, eps, t)
        thm8 = thm8_tail_bound(n, eps, t)
        assert (chernoff >= exact_two_sided * (1 - 1e-12)).all()
        assert (chernoff_log_tail_bound(n, eps, t) >= log_exact_two_sided - 1e-12).all()
        assert (chernoff_tail_bound(n, eps, t, two_sided=False) >= law.sf(t) * (1 - 1e-12)).all()
        assert (chebyshev >= np.minimum(exact_two_sided, 1)).all()
        assert (thm8 >= exact_two_sided * (1 - 1e-12)).all()
        for bound in (chernoff, chebyshev, thm8):
            assert ((0 <= bound) & (bound <= 1)).all()
        # tightness: Chernoff beats Chebyshev from 4 sd on, and has the right exponent far out
        assert (chernoff[SD_MULTIPLES >= 4] <= chebyshev[SD_MULTIPLES >= 4]).all()
        ratio = chernoff_log_tail_bound(n, eps, t[-1]) / log_exact_two_sided[-1]
        assert 0.9 <= ratio <= 1.0  # log bound / log exact at 40 sd (-> 1 as t -> inf)


def test_chernoff_closed_form_minimiser_is_the_minimum():
    n, eps, z = 30, 2.0, 9.0
    s = np.linspace(1e-6, 1 - 1e-6, 200_001)
    brute = np.min(-s * eps * z - 0.5 * (n + 1) * np.log1p(-s * s))
    assert chernoff_log_tail_bound(n, eps, z, two_sided=False) == pytest.approx(brute, abs=1e-8)
    assert chernoff_tail_bound(n, eps, -1.0, two_sided=False) == 1.0
    # closed form at one point: n = 3 (a = 2), eps = 1, z = 4: s* = 4/(2 + sqrt(20)),
    # bound e^{-4 s*} (1 - s*^2)^{-2}; two-sided is twice that (clipped to 1)
    s_star = 4 / (2 + math.sqrt(20))
    one_sided = math.exp(-4 * s_star) / (1 - s_star**2) ** 2
    assert chernoff_tail_bound(3, 1.0, 4.0, two_sided=False) == pytest.approx(one_sided, rel=1e-14)
    assert chernoff_tail_bound(3, 1.0, 4.0) == pytest.approx(2 * one_sided, rel=1e-14)
    t = np.linspace(0, 30, 61)
    np.testing.assert_allclose(chernoff_tail_bound(7, 2.0, t),
                               np.minimum(1, 2 * chernoff_tail_bound(7, 2.0, t, two_sided=False)), rtol=1e-14)


def test_chebyshev_for_the_mean_of_m_samples():
    """The mean of m iid copies of Z is exactly NoisyDotProduct(m(n+1) - 1, m eps) (sum of
    G1 - G2's), so Cor. 2 can be checked against an exact tail."""
    for n, eps, m in [(10, 1.0, 1), (10, 1.0, 5), (300, 10.0, 40)]:
        mean_law = NoisyDotProduct(m * (n + 1) - 1, m * eps)
        assert mean_law.var() == pytest.approx((n + 1) / (m * eps**2))
        t = np.array([0.5, 1, 2, 3, 5]) * mean_law.std()
        bound = chebyshev_tail_bound(n, eps, t, m=m)
        assert (bound >= 2 * mean_law.sf(t)).all()
        np.testing.assert_allclose(bound[1:], np.minimum(1, (n + 1) / (m * eps**2 * t[1:] ** 2)))


def test_angular_and_radius_bounds_hold():
    for n in [2, 5, 50, 500]:
        angular = AngularComponent(n)
        k = np.linspace(0, 1, 41)
        assert (angular_tail_bound(n, k) >= 2 * angular.sf(k) * (1 - 1e-12)).all()  # Cor. 1
        # ... and it is the Gaussian tail rate: within a factor 2 exp(...) of exact at c = 3
        assert angular_tail_bound(n, 3 / math.sqrt(n)) == pytest.approx(2 * math.exp(-4.5))
        for eps in [0.5, 20.0]:
            radius = NoiseRadius(n, eps)
            r = np.linspace(0, 4, 81) * n / eps
            assert (radius_upper_tail_bound(n, eps, r) >= radius.sf(r) * (1 - 1e-12)).all()  # Thm 7
            assert (radius_lower_tail_bound(n, eps, r) >= radius.cdf(r) * (1 - 1e-12)).all()
    # the closed forms at one point: c = 2 -> (2/e)^n and (2 e^{-1/2})^{-n}
    assert radius_upper_tail_bound(10, 1.0, 20.0) == pytest.approx((2 / math.e) ** 10)
    assert radius_lower_tail_bound(10, 1.0, 5.0) == pytest.approx((2 * math.exp(-0.5)) ** -10)
    assert radius_lower_tail_bound(10, 1.0, 0.0) == 0.0


def test_thm8_examples():
    """Spec §4: n=10, eps=10, 99% -> 2.76 (= the optimum, 2.7608); n=100, eps=10, 99% -> 4.8,
    which is not the optimum (4.7152) but a hand-picked pair such as (c1, c2) = (3.3, 1.45)."""
    small = thm8_half_width(10, 10, 0.99)
    assert round(small.half_width, 2) == 2.76
    assert small.half_width == pytest.approx(small.c1 * small.c2 * math.sqrt(10) / 10)
    assert thm8_mass(10, 10, small.c1, small.c2) == pytest.approx(0.99, abs=1e-9)
    big = thm8_half_width(100, 10, 0.99)
    assert big.half_width <= 4.8 and round(big.half_width, 2) == 4.72
    assert thm8_mass(100, 10, big.c1, big.c2) == pytest.approx(0.99, abs=1e-9)
    # reproduction of the paper's 4.8
    assert thm8_mass(100, 10, 3.3, 1.45) >= 0.99 and round(3.3 * 1.45 * math.sqrt(100) / 10, 1) == 4.8
    # the tail-bound form is the same theorem: at the optimal half-width it gives exactly 1 - mass
    for n, result in [(10, small), (100, big)]:
        assert thm8_tail_bound(n, 10, result.half_width) == pytest.approx(0.01, rel=1e-6)
        assert thm8_tail_bound(n, 10, 1.02 * result.half_width) < 0.01 < thm8_tail_bound(n, 10, 0.98 * result.half_width)
    # the optimum really is optimal: no admissible pair on a fine grid does better
    c1, c2 = np.meshgrid(np.linspace(2.5, 4.5, 801), np.linspace(1.01, 3.0, 801))
    ok = thm8_mass(100, 10, c1, c2) >= 0.99
    assert (c1 * c2)[ok].min() >= big.half_width * (1 - 1e-4)
    # and the guarantee holds: exact mass inside, and the exact half-width is smaller
    for n, result in [(10, small), (100, big)]:
        law = NoisyDotProduct(n, 10)
        assert 1 - 2 * law.sf(result.half_width) >= 0.99
        assert law.interval(0.99)[1] < result.half_width


# ---------------------------------------------------------------------------------------------
# Empirical helper and argument checks
# ---------------------------------------------------------------------------------------------

def test_empirical_dot_products_shapes_and_errors():
    noise = np.arange(12.0).reshape(4, 3)
    w = np.array([3.0, 0.0, 4.0])
    np.testing.assert_allclose(empirical_dot_products(noise, w), noise @ (w / 5))
    np.testing.assert_allclose(empirical_dot_products(noise, w, normalise=False), noise @ w)
    assert empirical_dot_products(noise[0], w).shape == ()
    with pytest.raises(ValueError, match="same n"):
        empirical_dot_products(noise, np.ones(4))
    with pytest.raises(ValueError, match="zero vector"):
        empirical_dot_products(noise, np.zeros(3))
    with pytest.raises(ValueError, match="NaN or inf"):
        empirical_dot_products(noise, np.array([1.0, np.nan, 0.0]))


@pytest.mark.parametrize("eps", [0, -1.0, float("inf"), float("nan"), "1"])
def test_bad_epsilon_is_rejected(eps):
    with pytest.raises(ValueError, match="epsilon"):
        NoisyDotProduct(10, eps)
    with pytest.raises(ValueError, match="epsilon"):
        chernoff_tail_bound(10, eps, 1.0)


@pytest.mark.parametrize("n", [0, -3, 2.5, "10", None])
def test_bad_dimension_is_rejected(n):
    with pytest.raises(ValueError, match="embedding dimension"):
        NoisyDotProduct(n, 1.0)


def test_other_bad_inputs_are_rejected():
    law = NoisyDotProduct(10, 1.0)
    for confidence in [0, 1, 1.5, -0.2, float("nan")]:
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            law.interval(confidence)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        thm8_half_width(10, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        law.ppf([0.5, 1.2])
    with pytest.raises(ValueError, match="NaN"):
        law.cdf(float("nan"))
    with pytest.raises(ValueError, match=">= 0"):
        chebyshev_tail_bound(10, 1.0, -1.0)
    with pytest.raises(ValueError, match="n = 1"):
        AngularComponent(1)
    with pytest.raises(ValueError, match="moment order"):
        AngularComponent(4).moment(-2)
    with pytest.raises(ValueError, match="c2 > 1"):
        thm8_mass(10, 1.0, 3.0, 1.0)
    assert NoisyDotProduct(10.0, 1).n == 10  # whole-number floats are accepted


@pytest.mark.parametrize("eps", [1e300, 1e-300, 1e101, 1e-101])
def test_epsilon_beyond_the_float_range_of_the_law_is_rejected(eps):
    with pytest.raises(ValueError, match="epsilon between"):
        NoisyDotProduct(50, eps)
    with pytest.raises(ValueError, match="epsilon between"):
        chebyshev_tail_bound(50, eps, 1.0)


def test_chernoff_bound_far_in_the_tail_is_zero_not_one():
    # s* rounds to 1 when eps z >> (n + 1)/2; the bound must keep falling, not jump back to 1
    z = np.array([1e3, 1e20, 1e300, 1.7e308])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow to 0 is the answer
        log_bound = chernoff_log_tail_bound(50, 10.0, z)
        assert np.all(chernoff_tail_bound(50, 10.0, z) == 0.0)
    assert np.all(np.diff(log_bound) <= 0) and np.all(np.isfinite(log_bound)) and log_bound[-1] < -1e299
    # continuous with the direct formula where that is accurate
    x, a = 10.0 * 2.0, 25.5
    s = x / (a + math.hypot(a, x))
    assert chernoff_log_tail_bound(50, 10.0, 2.0) == pytest.approx(-s * x - a * math.log1p(-s * s) + math.log(2))
