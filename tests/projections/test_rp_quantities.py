"""Closed forms of privlib.projections.quantities against the paper's reference values, exact
enumeration and Monte Carlo (fixed seeds, tolerances of 4 standard errors)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from privlib.core.randomised_response import binary_flip_probability
from privlib.projections.estimators import inner_product
from privlib.projections.quantities import (
    analytic_rp_sigma,
    at_risk_rate_clt,
    delta2_quantile,
    expected_empty_bins,
    keep_probability,
    lemma33_bound,
    lemma37_bound,
    n_plus,
    p_plus,
    p_plus_check,
    sigma_against_epsilon,
    sketch_term_gaussian,
    sketch_term_oporp,
    sketch_term_rademacher,
    smooth_flip_probability,
    smooth_levels,
    v_rr,
    variance_oporp,
    variance_ratio_R,
    variance_raw,
    variance_rp_gaussian,
    variance_rp_rademacher,
)

EPSILONS = [0.1, 0.5, 1, 2, 5, 10, 20, 50, 100]
SIGMA_OPT = [36.30469043, 8.057618481, 4.224678889, 2.230476271, 0.9800490003, 0.5410868318, 0.3090846812,
             0.1565928704, 0.09783722397]
SIGMA_K = [52.7551, 10.7016, 5.44344, 2.81207, 1.22688, 0.690152, 0.41119, 0.225948, 0.150874]
SIGMA_CL = [52.988, 10.5976, 5.2988, 2.6494, 1.05976, 0.52988, 0.26494, 0.105976, 0.052988]


def sample_variance_and_se(values):
    """The sample variance and its standard error sqrt((m4 - s^4)/n) from the fourth central moment."""
    values = np.asarray(values, dtype=np.float64)
    centred = values - values.mean()
    s2 = centred.var(ddof=1)
    m4 = np.mean(centred**4)
    return s2, math.sqrt(max(m4 - s2**2, 0.0) / values.size)


# ------------------------------------------------------------------ sigma against epsilon (Fig. 1)

def test_optimal_sigma_table():
    curve = sigma_against_epsilon(EPSILONS, 1e-6, 1.0, "optimal")
    np.testing.assert_allclose(curve.sigma, SIGMA_OPT, rtol=1e-9)
    assert curve.valid.all()


def test_kenthapadi_and_classical_tables():
    kent = sigma_against_epsilon(EPSILONS, 1e-6, 1.0, "kenthapadi")
    np.testing.assert_allclose(kent.sigma, SIGMA_K, rtol=1e-5)
    assert kent.valid.all()
    classical = sigma_against_epsilon(EPSILONS, 1e-6, 1.0, "classical")
    np.testing.assert_allclose(classical.sigma, SIGMA_CL, rtol=1e-5)
    np.testing.assert_array_equal(classical.valid, np.asarray(EPSILONS) < 1)


def test_sigma_scales_with_sensitivity_and_balle_wang_values():
    assert sigma_against_epsilon([3], 1e-6, 2.5).sigma[0] == pytest.approx(3.859653544, rel=1e-9)
    assert sigma_against_epsilon([1], 1e-5, 1).sigma[0] == pytest.approx(3.730631635, rel=1e-9)
    assert sigma_against_epsilon([1000], 1e-6, 1).sigma[0] == pytest.approx(0.02485036669, rel=1e-9)


def test_classical_crosses_below_optimal_at_8_782_and_optimal_needs_96_717_for_0_1():
    def gap(e):
        return (sigma_against_epsilon([e], 1e-6, 1, "classical").sigma[0]
                - sigma_against_epsilon([e], 1e-6, 1, "optimal").sigma[0])

    assert brentq(gap, 5, 15) == pytest.approx(8.782, abs=5e-4)
    assert brentq(lambda e: sigma_against_epsilon([e], 1e-6, 1).sigma[0] - 0.1, 50, 150) == pytest.approx(
        96.717, abs=5e-4)


def test_analytic_rp_sigma_theorem_3_4():
    assert analytic_rp_sigma(1, 1e-6, 1, 784, 256) == pytest.approx(7.347686, abs=5e-7)
    assert analytic_rp_sigma(10, 1e-6, 1, 784, 256) == pytest.approx(0.9236837, abs=5e-8)
    curve = sigma_against_epsilon([1, 10], 1e-6, 1, "analytic", p=784, k=256)
    np.testing.assert_allclose(curve.sigma, [7.347686, 0.9236837], atol=5e-7)
    # It is the Lemma 3.3 bound at delta/2 times Kenthapadi's factor at delta/2.
    kent_half = sigma_against_epsilon([2.0], 0.5e-6, 1, "kenthapadi").sigma[0]
    assert analytic_rp_sigma(2.0, 1e-6, 1, 784, 256) == pytest.approx(
        lemma33_bound(1, 784, 256, 0.5e-6) * kent_half, rel=1e-12)


def test_sigma_against_epsilon_rejects_bad_input():
    with pytest.raises(ValueError, match="Unknown method"):
        sigma_against_epsilon([1], 1e-6, 1, "laplace")
    with pytest.raises(ValueError, match="p=... and k=..."):
        sigma_against_epsilon([1], 1e-6, 1, "analytic")
    with pytest.raises(ValueError):
        sigma_against_epsilon([0.0], 1e-6, 1)
    with pytest.raises(ValueError, match="delta < 1/2"):
        analytic_rp_sigma(1, 0.6, 1, 10, 2)


# ------------------------------------------------------------------ P+ (eq. 26) and N+ (eq. 27)

P_PLUS_TABLE = {1: 0.0634510349, 10: 0.1489766737, 100: 0.2162759830, 1000: 0.2686604157, 1024: 0.2691464912,
                10**4: 0.3120979772, 10**6: 0.3827194650}


@pytest.mark.parametrize("p", sorted(P_PLUS_TABLE))
def test_p_plus_table_and_second_route(p):
    value = p_plus(0.1, p)
    assert value == pytest.approx(P_PLUS_TABLE[p], abs=1e-9)
    assert abs(value - p_plus_check(0.1, p)) < 1e-12


@pytest.mark.parametrize("r", [0.01, 0.1, 0.5, 1.0, 3.0])
def test_p_plus_at_p_1_is_two_over_pi_atan_r(r):
    exact = 2.0 / math.pi * math.atan(r)
    assert abs(p_plus(r, 1) - exact) < 1e-12
    assert abs(p_plus_check(r, 1) - exact) < 1e-12


def test_p_plus_vectorised_monotone_and_zero_at_r_0():
    r = np.array([0.0, 0.05, 0.1, 0.2, 0.5, 1.0])
    values = p_plus(r, 1024)
    assert values.shape == r.shape and values[0] == 0.0
    assert np.all(np.diff(values) > 0)
    assert values[2] == pytest.approx(P_PLUS_TABLE[1024], abs=1e-9)
    np.testing.assert_allclose(p_plus_check(r, 1024), values, atol=1e-12)


def test_p_plus_is_the_probability_that_z_is_below_r_times_the_largest_of_p_normals():
    rng = np.random.default_rng(2024)
    draws, r, p = 200_000, 0.1, 10
    z = np.abs(rng.standard_normal(draws))
    largest = np.abs(rng.standard_normal((draws, p))).max(axis=1)
    rate = np.mean(z < r * largest)
    se = math.sqrt(P_PLUS_TABLE[p] * (1 - P_PLUS_TABLE[p]) / draws)
    assert abs(rate - p_plus(r, p)) < 4 * se


def test_n_plus_fig5_values():
    assert p_plus(1 / 10, 1024) == pytest.approx(0.2691464912, abs=1e-10)
    assert n_plus(1024, 512, 1e-6, 10) == pytest.approx(206.8022620, abs=1e-6)
    assert n_plus(1024, 512, 1e-6, 5) == pytest.approx(351.942661, abs=1e-6)
    assert n_plus(1024, 512, 1e-6, 20) == pytest.approx(121.357631, abs=1e-6)
    assert n_plus(1024, 512, 1e-6, 2) == 512.0  # capped at k
    assert n_plus(1024, 512, 1e-6, 0) == 512.0  # no norm bound: pure epsilon-DP (Remark 4.1)


def test_n_plus_formula_and_the_11_9_percent_flip():
    f, k, ell = p_plus(0.1, 1024), 512, math.log(1e6)
    expected = f * k + 0.5 * (ell + math.sqrt(ell**2 + 8 * f * k * ell))
    assert n_plus(1024, 512, 1e-6, 10, beta=1.0) == pytest.approx(expected, rel=1e-14)
    # beta and m enter only through r = beta/m.
    assert n_plus(1024, 512, 1e-6, 20, beta=2.0) == pytest.approx(expected, rel=1e-14)
    assert binary_flip_probability(400 / 200) == pytest.approx(0.1192029, abs=5e-8)
    assert binary_flip_probability(400 / n_plus(1024, 512, 1e-6, 10)) == pytest.approx(0.1262848, abs=5e-8)


def test_n_plus_rejects_m_below_beta():
    with pytest.raises(ValueError, match="at least beta"):
        n_plus(1024, 512, 1e-6, 0.5)
    with pytest.raises(ValueError):
        n_plus(1024, 512, 0.0, 10)


# ------------------------------------------------------------------ keep / flip probabilities

def test_keep_probabilities():
    np.testing.assert_allclose(keep_probability([0.1, 1, 2, 5]),
                               [0.5249791875, 0.7310585786, 0.8807970780, 0.9933071491], atol=1e-10)
    assert keep_probability(math.inf) == 1.0 and binary_flip_probability(math.inf) == 0.0
    assert keep_probability(0.0) == 0.5 == binary_flip_probability(0.0)
    e = np.array([0.3, 7.0, 50.0])
    np.testing.assert_allclose(keep_probability(e) + binary_flip_probability(e), 1.0, rtol=1e-15)
    with np.errstate(over="raise"):
        assert binary_flip_probability(2000.0) == 0.0 or binary_flip_probability(2000.0) < 1e-300
    with pytest.raises(ValueError):
        keep_probability(-1.0)


def test_smooth_flip_probabilities_fig6():
    np.testing.assert_allclose(smooth_flip_probability([1, 2, 3, 5], 1.0, 1.0, 1),
                               [0.2689414214, 0.1192029220, 0.0474258732, 0.0066928509], atol=1e-10)
    # L = ceil(|z|/D): 2.5/1 -> 3, and epsilon/k per level.
    assert smooth_flip_probability(2.5, 1.0, 4.0, 4) == pytest.approx(1 / (math.e**3 + 1), rel=1e-14)
    assert smooth_flip_probability(0.0, 1.0, 1.0) == 0.5  # x = 0: a fair coin
    np.testing.assert_array_equal(smooth_levels([0.0, 0.1, 1.0, 1.0001, -2.2], 1.0), [0, 1, 1, 2, 3])


def test_at_risk_rate_clt():
    assert at_risk_rate_clt(1.0, 10.0) == pytest.approx(2 * 0.5398278372770290 - 1, abs=1e-12)  # 2 Phi(0.1) - 1


# ------------------------------------------------------------------ variances (eqs. 19-23)

U_SMALL = np.array([1.0, 0.5, 0.0, 0.25])
V_SMALL = np.array([0.5, 1.0, 0.25, 0.0])


def test_variance_check_example():
    assert variance_raw(U_SMALL, V_SMALL, 0.3) == pytest.approx(0.26865, abs=1e-14)
    assert variance_rp_rademacher(U_SMALL, V_SMALL, 0.3, 2) == pytest.approx(1.113778125, abs=1e-14)
    assert variance_oporp(U_SMALL, V_SMALL, 0.3, 2) == pytest.approx(0.82666875, abs=1e-14)
    assert variance_rp_gaussian(U_SMALL, V_SMALL, 0.3, 2) == pytest.approx(1.613778125, abs=1e-14)
    np.testing.assert_allclose(variance_raw(U_SMALL, V_SMALL, [0.0, 0.3]), [0.0, 0.26865], atol=1e-14)


def oporp_sketch_values(u, v, k):
    """sum_j x_j y_j for EVERY OPORP of u, v (all permutations of the zero-padded vectors and all
    sign vectors w), bins of consecutive positions, no 1/sqrt(k) (Alg 4)."""
    padded = k * -(-u.size // k)
    u = np.concatenate([u, np.zeros(padded - u.size)])
    v = np.concatenate([v, np.zeros(padded - v.size)])
    values = []
    for perm in itertools.permutations(range(padded)):
        for w in itertools.product((-1.0, 1.0), repeat=padded):
            x = (np.asarray(w) * u[list(perm)]).reshape(k, -1).sum(axis=1)
            y = (np.asarray(w) * v[list(perm)]).reshape(k, -1).sum(axis=1)
            values.append(x @ y)
    return np.array(values)


def rademacher_sketch_values(u, v, k):
    """sum_j x_j y_j with x = W^T u/sqrt(k) for EVERY p x k sign matrix W."""
    values = []
    for entries in itertools.product((-1.0, 1.0), repeat=u.size * k):
        W = np.asarray(entries).reshape(u.size, k)
        values.append((W.T @ u) @ (W.T @ v) / k)
    return np.array(values)


def test_exact_enumeration_of_oporp_and_rademacher_sketches():
    oporp = oporp_sketch_values(U_SMALL, V_SMALL, 2)  # 24 permutations x 16 sign vectors
    rademacher = rademacher_sketch_values(U_SMALL, V_SMALL, 2)  # all 256 matrices
    assert oporp.size == 384 and rademacher.size == 256
    inner = U_SMALL @ V_SMALL
    assert oporp.mean() == pytest.approx(inner, abs=1e-14)  # unbiased
    assert rademacher.mean() == pytest.approx(inner, abs=1e-14)
    assert oporp.var() == pytest.approx(0.57421875, abs=1e-14)
    assert rademacher.var() == pytest.approx(0.861328125, abs=1e-14)
    assert sketch_term_oporp(U_SMALL, V_SMALL, 2) == pytest.approx(0.57421875, abs=1e-14)
    assert sketch_term_rademacher(U_SMALL, V_SMALL, 2) == pytest.approx(0.861328125, abs=1e-14)
    # The variances are the noise terms plus these sketch terms (the noise is independent of W).
    noise = 0.3**2 * (U_SMALL @ U_SMALL + V_SMALL @ V_SMALL) + 2 * 0.3**4
    assert variance_oporp(U_SMALL, V_SMALL, 0.3, 2) == pytest.approx(noise + oporp.var(), abs=1e-14)
    assert variance_rp_rademacher(U_SMALL, V_SMALL, 0.3, 2) == pytest.approx(noise + rademacher.var(), abs=1e-14)


def test_oporp_variance_uses_the_padded_dimension():
    # p = 3, k = 2: pad to p' = 4 before permuting; eq. (22) with p' (factor 2/3), not p (factor 1/2).
    u, v = np.array([1.0, 0.5, 0.25]), np.array([0.5, 1.0, 0.75])
    exact = oporp_sketch_values(u, v, 2).var()
    assert sketch_term_oporp(u, v, 2) == pytest.approx(exact, abs=1e-14)
    assert sketch_term_oporp(u, v, 2) == pytest.approx(sketch_term_rademacher(u, v, 2) * 2 / 3, rel=1e-14)
    assert sketch_term_oporp(u, v, 3) == 0.0  # one coordinate per bin: no cross terms


def _mc_vectors(p=200):
    """u, v in [0, 1]^200 with 10 large shared coordinates, so that the Rademacher, OPORP and
    Gaussian sketch terms differ by more than the Monte Carlo error."""
    rng = np.random.default_rng(11)
    u = rng.uniform(0, 0.1, p)
    v = rng.uniform(0, 0.1, p)
    u[:10] = rng.uniform(0.7, 1.0, 10)
    v[:10] = rng.uniform(0.7, 1.0, 10)
    return u, v


def test_variances_against_monte_carlo():
    p, k, sigma, reps = 200, 20, 0.3, 32000
    u, v = _mc_vectors(p)
    rng = np.random.default_rng(5)
    raw, rade, gauss, oporp = (np.empty(reps) for _ in range(4))
    chunk = 500
    for start in range(0, reps, chunk):
        n = chunk
        raw[start:start + n] = inner_product(u + sigma * rng.standard_normal((n, p)),
                                             v + sigma * rng.standard_normal((n, p)))
        signs = 2.0 * rng.integers(0, 2, size=(n, p, k), dtype=np.int8) - 1.0
        for out, W in ((rade, signs), (gauss, rng.standard_normal((n, p, k)))):
            x = np.einsum("i,nij->nj", u, W) / math.sqrt(k) + sigma * rng.standard_normal((n, k))
            y = np.einsum("i,nij->nj", v, W) / math.sqrt(k) + sigma * rng.standard_normal((n, k))
            out[start:start + n] = inner_product(x, y)
        perms = np.argsort(rng.random((n, p)), axis=1)
        w = 2.0 * rng.integers(0, 2, size=(n, p)) - 1.0
        x = (w * u[perms]).reshape(n, k, p // k).sum(axis=2) + sigma * rng.standard_normal((n, k))
        y = (w * v[perms]).reshape(n, k, p // k).sum(axis=2) + sigma * rng.standard_normal((n, k))
        oporp[start:start + n] = inner_product(x, y)
    for values, formula in ((raw, variance_raw(u, v, sigma)), (rade, variance_rp_rademacher(u, v, sigma, k)),
                            (gauss, variance_rp_gaussian(u, v, sigma, k)), (oporp, variance_oporp(u, v, sigma, k))):
        assert abs(values.mean() - u @ v) < 4 * values.std() / math.sqrt(reps)  # unbiased
        s2, se = sample_variance_and_se(values)
        assert abs(s2 - formula) < 4 * se, (s2, formula, se)
    # The check has power: the three sketch terms are about 9 standard errors apart.
    s2_rade, se_rade = sample_variance_and_se(rade)
    assert abs(s2_rade - variance_rp_gaussian(u, v, sigma, k)) > 4 * se_rade
    assert abs(s2_rade - variance_oporp(u, v, sigma, k)) > 4 * se_rade


def test_gaussian_sketch_term_exceeds_rademacher_by_twice_sum_of_squares_products():
    u, v = _mc_vectors()
    assert sketch_term_gaussian(u, v, 20) - sketch_term_rademacher(u, v, 20) == pytest.approx(
        2 * np.sum(u**2 * v**2) / 20, rel=1e-12)


def test_variance_ratio_R():
    assert variance_ratio_R(0.1, 1000, 100) == pytest.approx(3.0, rel=1e-14)
    assert variance_ratio_R(0.1, 1000, 10) == pytest.approx(0.991736, abs=5e-7)
    assert variance_ratio_R(1.0, 10**4, 100) == pytest.approx(98.049211, abs=5e-7)
    assert brentq(lambda s: variance_ratio_R(s, 1000, 10) - 1, 0.05, 0.2) == pytest.approx(0.10025, abs=5e-6)
    assert variance_ratio_R(1e4, 1000, 10) == pytest.approx(100.0, rel=1e-6)  # tends to p/k
    # Unit-norm orthogonal vectors with no shared support: eq. (23) is exactly variance_raw / variance_rp.
    u, v = np.eye(1000)[0], np.eye(1000)[1]
    assert variance_ratio_R(0.2, 1000, 10) == pytest.approx(
        variance_raw(u, v, 0.2) / variance_rp_rademacher(u, v, 0.2, 10), rel=1e-14)


# ------------------------------------------------------------------ V_RR (Thm 4.6)

def test_v_rr_reference_values_and_paper_form():
    assert v_rr(math.pi / 4, 1.0) == pytest.approx(53.4874, abs=5e-5)
    assert v_rr(math.pi / 2, 5.0) == pytest.approx(2.604055, abs=5e-7)
    for theta in (0.3, 1.2, 2.9):
        for eps in (0.1, 0.7, 3.0, 12.0):
            e = math.exp(eps)
            paper = theta * (math.pi - theta) + 2 * math.pi**2 * e / (e - 1) ** 2 + 4 * math.pi**2 * e**2 / (e - 1) ** 4
            assert v_rr(theta, eps) == pytest.approx(paper, rel=1e-12)
            # Derivation: P~ = P a + b, a = tanh^2(eps/2), b = 1/(2 cosh^2(eps/2)); V = pi^2 P~(1 - P~)/a^2.
            a, b, P = math.tanh(eps / 2) ** 2, 0.5 / math.cosh(eps / 2) ** 2, 1 - theta / math.pi
            observed = P * a + b
            assert a + 2 * b == pytest.approx(1.0, rel=1e-14)
            assert v_rr(theta, eps) == pytest.approx(math.pi**2 * observed * (1 - observed) / a**2, rel=1e-10)
    assert v_rr(1.0, math.inf) == pytest.approx(1.0 * (math.pi - 1.0), rel=1e-15)
    np.testing.assert_allclose(v_rr(np.array([math.pi / 4, math.pi / 2]), np.array([1.0, 5.0])),
                               [53.4874, 2.604055], atol=5e-5)
    with np.errstate(over="raise"):
        assert v_rr(1.0, 5000.0) == pytest.approx(1.0 * (math.pi - 1.0), rel=1e-15)
    with pytest.raises(ValueError):
        v_rr(1.0, 0.0)
    with pytest.raises(ValueError):
        v_rr(4.0, 1.0)


# ------------------------------------------------------------------ empty bins, sensitivities

def test_expected_empty_bins():
    assert expected_empty_bins(1024, 256, 80) == pytest.approx(184.80, abs=5e-3)
    assert expected_empty_bins(4, 2, 1) == pytest.approx(1.0, rel=1e-15)  # one nonzero: one of 2 bins empty
    assert expected_empty_bins(1024, 256, 0) == 256.0
    assert expected_empty_bins(1024, 256, 1024) == 0.0
    np.testing.assert_allclose(expected_empty_bins(1024, 256, [0, 80]), [256.0, 184.80424818], atol=1e-6)
    with pytest.raises(ValueError):
        expected_empty_bins(100, 10, 101)


@pytest.mark.parametrize("p, k, z", [(1024, 256, 80), (2048, 128, 80), (1000, 64, 30)])  # 1000: padded to 1024
def test_expected_empty_bins_against_monte_carlo(p, k, z):
    rng = np.random.default_rng(p + k + z)
    padded, reps = k * -(-p // k), 4000
    u = np.zeros(padded)
    u[:z] = 1.0  # z nonzeros among the first p coordinates; zero-padding after
    perms = np.argsort(rng.random((reps, padded)), axis=1)
    empty = (u[perms].reshape(reps, k, padded // k).sum(axis=2) == 0).sum(axis=1)
    assert abs(empty.mean() - expected_empty_bins(p, k, z)) < 4 * empty.std(ddof=1) / math.sqrt(reps)


def test_lemma_bounds():
    assert lemma37_bound(1.0, 784, 256, 1e-6) == pytest.approx(19.9, abs=0.05)
    assert lemma37_bound(2.0, 784, 256, 1e-6) == pytest.approx(2 * lemma37_bound(1.0, 784, 256, 1e-6), rel=1e-15)
    t = math.log(784 / 1e-6) / 256
    assert lemma33_bound(1.0, 784, 256, 1e-6) == pytest.approx(math.sqrt(1 + 2 * math.sqrt(t) + 2 * t), rel=1e-15)
    # The bound holds: the realised Delta_2 exceeds it with probability at most delta.
    assert delta2_quantile("gaussian", 1 - 1e-3, 784, 256) < lemma33_bound(1.0, 784, 256, 1e-3)


def test_delta2_medians():
    assert delta2_quantile("gaussian", 0.5, 784, 256) == pytest.approx(1.1399, abs=5e-5)
    assert delta2_quantile("sparse", 0.5, 784, 256, s=3) == pytest.approx(1.1302, abs=5e-5)
    assert delta2_quantile("sparse", 0.5, 784, 256, s=10) == pytest.approx(1.2809, abs=5e-5)
    assert delta2_quantile("sparse", 0.5, 784, 256, s=1) == 1.0 == delta2_quantile("rademacher", 0.5, 784, 256)
    assert delta2_quantile("oporp", 0.5, 784, 256, beta=2.0) == 2.0
    with pytest.raises(ValueError, match="uniform"):
        delta2_quantile("uniform", 0.5, 784, 256)


@pytest.mark.parametrize("kind, s", [("gaussian", 3), ("sparse", 3)])
def test_delta2_quantile_against_simulated_projections(kind, s):
    p, k, reps, q = 100, 32, 2000, 0.5
    rng = np.random.default_rng(17)
    if kind == "gaussian":
        W = rng.standard_normal((reps, p, k))
    else:
        W = math.sqrt(s) * rng.choice([-1.0, 0.0, 1.0], p=[1 / (2 * s), 1 - 1 / s, 1 / (2 * s)], size=(reps, p, k))
    realised = np.sqrt((W**2).sum(axis=2).max(axis=1) / k)  # eq. (13), beta = 1
    quantile = delta2_quantile(kind, q, p, k, s=s)
    below = np.mean(realised <= quantile)
    # For the discrete law P(Delta_2 <= quantile) >= q and P(Delta_2 < quantile) <= q.
    se = math.sqrt(q * (1 - q) / reps)
    assert below > q - 4 * se
    assert np.mean(realised < quantile) < q + 4 * se


def test_optimal_k_reference_values_and_trend():
    """§4.1.2's k*: the spec's example (θ = π/3, p = 1024, m = 10, δ = 1e-6, ε = 100): exact 50, two-term
    124, the paper's formula 815; every version grows with ε."""
    import math

    from privlib.projections.quantities import optimal_k, p_plus, v_rr

    best = optimal_k(math.pi / 3, 100, 1024, 10, 1e-6)
    assert best.exact == 50 and round(best.two_term) == 124 and round(best.paper) == 815
    # the exact k is the minimiser: its neighbours have a larger variance (eq. 27 and Thm 4.6 directly)
    F, ell = p_plus(0.1, 1024), math.log(1e6)

    def variance(k):
        at_risk = min(F * k + 0.5 * (ell + math.sqrt(ell * ell + 8 * F * k * ell)), k)
        return v_rr(math.pi / 3, 100 / at_risk) / k

    assert variance(49) > variance(50) < variance(51)
    exact = [optimal_k(math.pi / 3, eps, 1024, 10, 1e-6).exact for eps in (10, 50, 200, 1000)]
    assert exact == sorted(exact) and exact[0] < exact[-1]
    with pytest.raises(ValueError, match="m"):
        optimal_k(math.pi / 3, 100, 1024, 0.5, 1e-6)  # m below beta: no norm bound to speak of
