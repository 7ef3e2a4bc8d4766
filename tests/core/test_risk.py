"""A guarantee as attack terms (privlib.core.risk): the closed forms against an independent oracle
(riskcal, Kulynych et al.; test-only), against 50-digit mpmath values and against brute force
(every test of a finite pair, every mechanism of a tiny output space by LP), the corner cases (ε → 0,
ε = 700 and beyond, δ = 0, μ-GDP against its (ε, δ) envelope), the spec's example numbers, and
randomised response attaining its bounds."""
from __future__ import annotations

import contextlib
import itertools
import math
import warnings

import mpmath
import numpy as np
import pytest
from riskcal import analysis as riskcal
from scipy import stats
from scipy.optimize import linprog

from privlib.core.calibration import analytic_gaussian_delta
from privlib.core.mechanism import Guarantee
from privlib.core.randomised_response import RandomisedResponse
from privlib.core.risk import (
    DPCurve,
    FinitePairCurve,
    GDPCurve,
    attack_terms,
    delta_for_people,
    dp_loss_tail,
    gdp_reidentification_bound,
    group_guarantee,
    metric_closed_form,
    metric_dual_bound,
    metric_reidentification_bounds,
    metric_reidentification_lp,
    percent,
    plain_sentence,
    posterior_statement,
    privacy_loss,
    pure_posterior,
    reidentification_bound,
    reidentification_lp,
    tradeoff_curve,
    uniform_reidentification_bound,
)

mpmath.mp.dps = 50
ALPHAS = np.concatenate([[0.0, 1e-12, 1e-6, 1e-3], np.linspace(0.01, 0.99, 99), [1 - 1e-6, 1.0]])


@contextlib.contextmanager
def no_warnings():
    """Every warning (numpy's overflow and invalid value included) raised as an error inside the block."""
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error")
        yield


# ---------------------------------------------------------------------------------------------
# (ε, δ) and pure ε: closed forms against riskcal and mpmath


@pytest.mark.parametrize("epsilon", [0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0])
@pytest.mark.parametrize("delta", [0.0, 1e-6, 1e-3, 0.1])
def test_dp_curve_and_advantage_match_riskcal(epsilon, delta):
    curve = DPCurve(epsilon, delta)
    np.testing.assert_allclose(curve.fnr(ALPHAS), riskcal.get_beta_from_adp(epsilon, delta, ALPHAS),
                               rtol=1e-12, atol=1e-15)
    assert curve.advantage == pytest.approx(riskcal.get_advantage_from_adp(epsilon, delta), rel=1e-12, abs=1e-16)
    assert curve.tpr(0.01) == pytest.approx(1 - riskcal.get_beta_from_adp(epsilon, delta, 0.01), rel=1e-12)


def test_dp_curve_values_against_mpmath():
    for epsilon, delta in [(1, 0), (1, 1e-5), (3, 0.01), (1e-8, 0)]:
        curve = DPCurve(epsilon, delta)
        for alpha in [0, 1e-4, 0.05, 0.3, 0.6, 0.99]:
            e = mpmath.mpf(epsilon)
            exact = max(0, 1 - delta - mpmath.exp(e) * alpha, mpmath.exp(-e) * (1 - delta - alpha))
            assert curve.fnr(alpha) == pytest.approx(float(exact), rel=1e-13, abs=1e-300)
        exact_advantage = (mpmath.exp(mpmath.mpf(epsilon)) - 1 + 2 * mpmath.mpf(delta)) / (mpmath.exp(mpmath.mpf(epsilon)) + 1)
        assert curve.advantage == pytest.approx(float(exact_advantage), rel=1e-14)


def test_epsilon_near_zero_keeps_full_precision():
    # (e^ε − 1)/(e^ε + 1) written directly loses every digit at ε = 1e-12 (e^ε − 1 = 1.00009e-12)
    for epsilon in [1e-300, 1e-100, 1e-12, 1e-6]:
        assert DPCurve(epsilon).advantage == pytest.approx(float(mpmath.tanh(mpmath.mpf(epsilon) / 2)), rel=1e-14)
    curve = DPCurve(1e-300, 1e-6)
    np.testing.assert_allclose(curve.fnr(ALPHAS), np.maximum(1 - 1e-6 - ALPHAS, 0), rtol=1e-14, atol=1e-16)
    assert DPCurve(0.0).advantage == 0.0 and DPCurve(0.0).guessing_chance(0.3) == pytest.approx(0.7)


@pytest.mark.parametrize("epsilon", [700.0, 709.0, 710.0, 1e4, 1e300])
def test_large_epsilon_gives_finite_values_without_warnings(epsilon):
    with no_warnings():
        curve = DPCurve(epsilon, 1e-6)
        beta = curve.fnr(ALPHAS)
        assert np.all(np.isfinite(beta))
        assert beta[0] == 1 - 1e-6 and np.all(beta[2:] <= 1e-300)  # any FPR above e^{−ε} gives β ≈ 0
        assert curve.advantage == 1.0 and curve.guessing_chance(0.5) == pytest.approx(1.0)
        assert uniform_reidentification_bound(10, epsilon) == 1.0
        assert reidentification_bound([0.5, 0.3, 0.2], epsilon) == 1.0
        terms = attack_terms(Guarantee("approximate-dp", "t", epsilon=epsilon, delta=1e-6), candidates=5, people=10)
        assert terms["advantage"] == 1.0
    # at ε = 700 the steep side is still e^ε α exactly: β(e^−700/2) = 1 − δ − 1/2
    assert DPCurve(700.0, 1e-6).fnr(math.exp(-700) / 2) == pytest.approx(0.5 - 1e-6, rel=1e-12)


def test_guessing_chance_is_one_minus_the_least_weighted_error():
    for curve in [DPCurve(1.0), DPCurve(0.5, 0.01), GDPCurve(1.0), GDPCurve(0.2)]:
        grid = np.linspace(0, 1, 200_001)
        for prior in [0.5, 0.2, 0.9, 0.01]:
            least = np.min((1 - prior) * grid + prior * curve.fnr(grid))
            assert curve.guessing_chance(prior) == pytest.approx(1 - least, abs=2e-6)  # the grid's step, squared
    assert DPCurve(1.0).guessing_chance(0.5) == pytest.approx(math.e / (math.e + 1), rel=1e-15)


# ---------------------------------------------------------------------------------------------
# μ-GDP


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0, 5.0])
def test_gdp_curve_and_numbers_match_riskcal(mu):
    curve = GDPCurve(mu)
    np.testing.assert_allclose(curve.fnr(ALPHAS[1:-1]), riskcal.get_beta_from_gdp(mu, ALPHAS[1:-1]), rtol=1e-9)
    assert curve.advantage == pytest.approx(riskcal.get_advantage_from_gdp(mu), rel=1e-12)
    for prior in [0.5, 0.2, 0.7]:  # riskcal's Bayes risk is the least error; μ-GDP is symmetric in the prior
        assert curve.guessing_chance(prior) == pytest.approx(1 - riskcal.get_bayes_risk_from_gdp(mu, prior), rel=1e-9)


def test_gdp_against_mpmath_in_the_tails():
    mu = 1.5
    for alpha in [1e-300, 1e-30, 1e-10, 0.01, 0.5, 1 - 1e-10]:
        exact = mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(alpha) - 1) - mu)
        assert GDPCurve(mu).fnr(alpha) == pytest.approx(float(exact), rel=1e-9)
    assert GDPCurve(1e-9).advantage == pytest.approx(float(mpmath.erf(mpmath.mpf(1e-9) / (2 * mpmath.sqrt(2)))),
                                                     rel=1e-14)
    assert GDPCurve(1.0).advantage == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gdp_delta_is_the_gaussian_profile(mu):
    curve = GDPCurve(mu)
    for epsilon in [0.0, 0.1, 1.0, 3.0, 10.0]:
        assert curve.delta(epsilon) == pytest.approx(analytic_gaussian_delta(epsilon, 1 / mu), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gdp_is_the_envelope_of_its_epsilon_delta_curves(mu):
    """μ-GDP is (ε, δ_μ(ε))-DP for every ε (δ_μ from the independent Balle & Wang code): every such
    curve lies below G_μ, and their upper envelope is G_μ (Dong, Roth & Su 2022, Cor. 2.13)."""
    curve, alphas = GDPCurve(mu), np.linspace(0.0, 1.0, 401)
    envelope = np.zeros_like(alphas)
    for epsilon in np.linspace(0, mu * mu / 2 + 6 * mu, 1500):
        below = DPCurve(epsilon, analytic_gaussian_delta(epsilon, 1 / mu)).fnr(alphas)
        assert np.all(below <= curve.fnr(alphas) + 1e-12)
        envelope = np.maximum(envelope, below)
    np.testing.assert_allclose(envelope, curve.fnr(alphas), atol=2e-3)


@pytest.mark.parametrize("mu", [5e-324, 1e-200, 1e-8, 1e6])
def test_extreme_mu_gives_finite_values_without_warnings(mu):
    with no_warnings():
        curve = GDPCurve(mu)
        assert np.all(np.isfinite(curve.fnr(ALPHAS))) and np.all(np.isfinite(curve.delta([0.0, 1.0, 100.0])))
        assert 0 <= curve.loss_tail(2.0) <= 1 and 0.5 <= curve.guessing_chance(0.3) <= 1
        assert 0.1 <= gdp_reidentification_bound(10, mu) <= 1
        attack_terms(Guarantee("gdp", "t", mu=mu), candidates=10)
    if mu <= 1e-8:  # no information: the curve is 1 − α and δ(ε > 0) = 0 to float64
        np.testing.assert_allclose(GDPCurve(mu).fnr(ALPHAS), 1 - ALPHAS, atol=1e-8)
        assert gdp_reidentification_bound(10, mu) == pytest.approx(0.1, abs=1e-8)


def test_gdp_loss_tail_against_sampling():
    """P(privacy loss > ε′) = Φ(μ/2 − ε′/μ): the loss of y ~ N(μ, 1) against N(0, 1) is μy − μ²/2."""
    mu, rng, n = 1.2, np.random.default_rng(2026), 400_000
    y = rng.normal(mu, 1.0, n)
    for level in [0.0, 0.5, 1.0, 2.0]:
        measured = np.mean(mu * y - mu * mu / 2 > level)
        expected = GDPCurve(mu).loss_tail(level)
        assert abs(measured - expected) <= 4 * math.sqrt(expected * (1 - expected) / n)


# ---------------------------------------------------------------------------------------------
# the exact curve of a finite pair, against every test


def all_tests(p, q):
    """(α, β) of every deterministic test (say "x" on a set S of outputs) of the pair."""
    points = []
    for size in range(p.size + 1):
        for subset in itertools.combinations(range(p.size), size):
            s = list(subset)
            points.append((q[s].sum(), 1 - p[s].sum()))
    return np.array(points)


@pytest.mark.parametrize("seed", range(6))
def test_finite_pair_curve_against_every_test(seed):
    rng = np.random.default_rng(seed)
    p, q = rng.random(6), rng.random(6)
    p[seed % 6] = 0.0  # an output impossible under x
    q[(seed + 1) % 6] = 0.0  # and one impossible under x′
    p, q = p / p.sum(), q / q.sum()
    curve, points = FinitePairCurve(p, q), all_tests(p, q)
    # no test beats the curve, and every vertex is some test (randomised tests mix them)
    assert np.all(points[:, 1] >= curve.fnr(points[:, 0]) - 1e-12)
    for alpha, beta in zip(*curve.vertices):
        assert np.min(np.abs(points[:, 0] - alpha) + np.abs(points[:, 1] - beta)) < 1e-12
    assert curve.advantage == pytest.approx(np.max(1 - points[:, 0] - points[:, 1]), abs=1e-12)
    for epsilon in [0.0, 0.3, 1.0, 2.5]:
        assert curve.delta(epsilon) == pytest.approx(np.max(1 - points[:, 1] - math.exp(epsilon) * points[:, 0]),
                                                     abs=1e-12)
    for prior in [0.5, 0.3]:  # the Bayes rule = the best deterministic test at the prior
        best = 1 - np.min((1 - prior) * points[:, 0] + prior * points[:, 1])
        assert curve.guessing_chance(prior) == pytest.approx(best, abs=1e-12)
    assert curve.privacy_loss == math.inf


def test_finite_pair_loss_and_delta_against_direct_sums():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    curve = FinitePairCurve(p, q)
    assert curve.privacy_loss == pytest.approx(math.log(2.5), rel=1e-15)
    for epsilon in [0.0, 0.5, 0.9, 1.0]:
        assert curve.delta(epsilon) == pytest.approx(np.maximum(p - math.exp(epsilon) * q, 0).sum(), abs=1e-15)
    assert curve.delta(math.log(2.5)) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0, 30.0])
def test_binary_rr_attains_the_pure_epsilon_curve(epsilon):
    rr = RandomisedResponse(2, epsilon)
    exact = FinitePairCurve(rr.probabilities(0), rr.probabilities(1))
    np.testing.assert_allclose(exact.fnr(ALPHAS), DPCurve(epsilon).fnr(ALPHAS), atol=1e-14)
    assert exact.privacy_loss == pytest.approx(epsilon, rel=1e-12)
    assert exact.advantage == pytest.approx(DPCurve(epsilon).advantage, rel=1e-12)


def slopes(curve):
    """The distinct slopes of a piecewise-linear curve's vertices (collinear runs merged)."""
    alpha, beta = curve.vertices
    steps = np.diff(beta) / np.diff(alpha)
    return np.unique(np.round(steps, 9))


@pytest.mark.parametrize("classes, epsilon", [(3, 0.5), (10, 1.0), (100, 2.0)])
def test_c_ary_rr_exact_curve_has_slopes_e_eps_one_and_e_minus_eps(classes, epsilon):
    rr = RandomisedResponse(classes, epsilon)
    exact = FinitePairCurve(rr.probabilities(0), rr.probabilities(1))
    np.testing.assert_allclose(slopes(exact), sorted([-math.exp(epsilon), -1.0, -math.exp(-epsilon)]), rtol=1e-8)
    assert np.all(exact.fnr(ALPHAS) >= DPCurve(epsilon).fnr(ALPHAS) - 1e-14)  # above the bound: RR is ε-DP
    assert exact.privacy_loss == pytest.approx(epsilon, rel=1e-12)


def test_c_ary_rr_advantage_is_not_the_binary_one():
    """The spec's example: C = 10, ε = 1: 0.147, against 0.462 for the binary formula, which a C-ary
    advantage computed with the binary formula would report (and this test would catch)."""
    rr = RandomisedResponse(10, 1.0)
    exact = FinitePairCurve(rr.probabilities(0), rr.probabilities(1))
    assert exact.advantage == pytest.approx((math.e - 1) / (math.e + 9), rel=1e-12)
    assert round(exact.advantage, 3) == 0.147 and round(DPCurve(1.0).advantage, 3) == 0.462
    assert abs(exact.advantage - DPCurve(1.0).advantage) > 0.3


def test_the_exact_curve_catches_rr_calibrated_with_the_binary_formula():
    """k-ary RR with the binary keep probability e^ε/(1 + e^ε) (the rest spread over C − 1 classes)
    spends ε + ln(C − 1): its exact curve falls below f_{ε,0}, and its exact loss shows it."""
    classes, epsilon = 10, 1.0
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    wrong = np.full((2, classes), (1 - keep) / (classes - 1))
    wrong[0, 0] = wrong[1, 1] = keep
    exact = FinitePairCurve(wrong[0], wrong[1])
    assert np.any(exact.fnr(ALPHAS) < DPCurve(epsilon).fnr(ALPHAS) - 0.01)
    assert exact.privacy_loss == pytest.approx(epsilon + math.log(classes - 1), rel=1e-12)
    assert exact.delta(epsilon) > 0.3


# ---------------------------------------------------------------------------------------------
# re-identification among k candidates, against brute force


def best_success_by_enumeration(prior, epsilon, delta, outputs):
    """The largest Σ_o max_w π_w P(o | w) over every (ε, δ)-DP mechanism from k candidates to
    ``outputs`` outputs: for each decision rule g (outputs → candidates), an LP over the mechanism
    P (every pair and every set of outputs S: P(S | w) ≤ e^ε P(S | w′) + δ) maximising
    Σ_o π_g(o) P(o | g(o)); the best rule wins. No post-processing argument is used."""
    k = len(prior)
    sets = [s for size in range(1, outputs + 1) for s in itertools.combinations(range(outputs), size)]
    rows, bounds_ = [], []
    for w, u in itertools.permutations(range(k), 2):
        for s in sets:
            row = np.zeros(k * outputs)
            row[[w * outputs + o for o in s]] += 1.0
            row[[u * outputs + o for o in s]] -= math.exp(epsilon)
            rows.append(row)
            bounds_.append(delta)
    a_eq = np.kron(np.eye(k), np.ones(outputs))
    best = 0.0
    for rule in itertools.product(range(k), repeat=outputs):
        cost = np.zeros(k * outputs)
        for o, w in enumerate(rule):
            cost[w * outputs + o] = -prior[w]
        result = linprog(cost, A_ub=np.array(rows), b_ub=bounds_, A_eq=a_eq, b_eq=np.ones(k), bounds=(0, 1),
                         method="highs")
        best = max(best, -result.fun)
    return best


@pytest.mark.parametrize("prior, epsilon, delta", [
    ([0.5, 0.3, 0.2], 1.0, 0.0),
    ([0.5, 0.3, 0.2], 0.5, 0.05),
    ([1 / 3] * 3, 1.0, 0.02),
    ([0.6, 0.25, 0.15], 2.0, 0.01),
])
def test_reidentification_bounds_equal_the_best_mechanism_by_enumeration(prior, epsilon, delta):
    brute = best_success_by_enumeration(prior, epsilon, delta, outputs=4)
    assert reidentification_bound(prior, epsilon, delta) == pytest.approx(brute, abs=1e-7)
    assert reidentification_lp(prior, epsilon, delta) == pytest.approx(brute, abs=1e-7)


def test_the_spec_example_and_rr_with_prior_attains_it():
    prior, epsilon = np.array([0.5, 0.3, 0.2]), 1.0
    bound = reidentification_bound(prior, epsilon)
    assert round(bound, 3) == 0.585
    # RRWithPrior over the top m = 2: keep w with e^ε/(e^ε + 1) inside the top set, else uniform on it
    m, e = 2, math.exp(epsilon)
    law = np.zeros((3, 3))
    for w in range(3):
        law[w, :m] = 1 / (e + m - 1) if w < m else 1 / m
        if w < m:
            law[w, w] = e / (e + m - 1)
    assert np.all(law[:, None, :] <= e * law[None, :, :] + 1e-15)  # it is ε-DP
    success = np.max(prior[:, None] * law, axis=0).sum()
    assert success == pytest.approx(bound, rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.01), (0.3, 0.1), (2.0, 1e-4)])
def test_uniform_closed_form_is_the_lp_value(k, epsilon, delta):
    assert uniform_reidentification_bound(k, epsilon, delta) == pytest.approx(
        reidentification_lp(np.ones(k), epsilon, delta), abs=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_pure_lp_matches_the_rr_with_prior_formula(seed):
    prior = np.random.default_rng(seed).dirichlet(np.ones(5))
    for epsilon in [0.2, 1.0, 3.0]:
        assert reidentification_lp(prior, epsilon) == pytest.approx(reidentification_bound(prior, epsilon), abs=1e-8)


def test_uniform_rr_attains_the_uniform_bound():
    for classes, epsilon in [(10, 1.0), (4, 0.1), (1000, 5.0)]:
        assert uniform_reidentification_bound(classes, epsilon) == pytest.approx(
            RandomisedResponse(classes, epsilon).keep_probability, rel=1e-13)


def test_gdp_reidentification_bound_is_above_the_gaussian_simplex_attack():
    """k points pairwise μ apart (μ e_i/√2) plus N(0, I): μ-GDP for every pair; the nearest-point guess
    succeeds with a probability (sampled, 4 SE) that the bound must cover, and the bound is below the
    trivial 1."""
    rng, n = np.random.default_rng(7), 200_000
    for k, mu in [(3, 1.0), (10, 2.0)]:
        noise = rng.normal(size=(n, k))
        success = np.mean(np.argmax(noise + np.eye(k)[0] * mu / math.sqrt(2), axis=1) == 0)
        bound = gdp_reidentification_bound(k, mu)
        assert success <= bound + 4 * math.sqrt(success * (1 - success) / n)
        assert bound < 1 and bound >= 1 / k
        assert bound <= min(uniform_reidentification_bound(k, e, float(GDPCurve(mu).delta(e)))
                            for e in np.linspace(0, 10, 101)) + 1e-12


# ---------------------------------------------------------------------------------------------
# metric privacy over a candidate set


def exact_metric_optimum(prior, distances, epsilon):
    """The best mechanism from candidates to guesses under ε·d_X-privacy (P(v | w) ≤ e^{ε d(w, w′)} P(v | w′)
    for every pair and output), by LP: the exact maximum the LP bound must cover."""
    k = len(prior)
    rows = []
    for w, u in itertools.permutations(range(k), 2):
        for v in range(k):
            row = np.zeros(k * k)
            row[w * k + v], row[u * k + v] = 1.0, -math.exp(epsilon * distances[w, u])
            rows.append(row)
    cost = np.zeros(k * k)
    cost[np.arange(k) * (k + 1)] = -np.asarray(prior)
    result = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=np.kron(np.eye(k), np.ones(k)),
                     b_eq=np.ones(k), bounds=(0, 1), method="highs")
    return -result.fun


@pytest.mark.parametrize("seed", range(4))
def test_metric_bounds_are_ordered_and_cover_the_best_mechanism(seed):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(6, 2))
    distances = np.linalg.norm(points[:, None] - points[None], axis=-1)
    prior = rng.dirichlet(np.ones(6))
    for epsilon in [0.5, 1.0, 3.0]:
        bounds = metric_reidentification_bounds(prior, distances, epsilon)
        exact = exact_metric_optimum(prior, distances, epsilon)
        assert prior.max() - 1e-9 <= exact <= bounds.lp + 1e-8
        assert bounds.lp <= bounds.dual + 1e-8 <= bounds.closed_form + 2e-8
        # the dual bound is the minimum over c of c + Σ_v (π_v − c A_v)₊: check it on a fine grid of c
        weight = prior @ np.exp(-epsilon * distances)
        grid = np.linspace(0, 2 * np.max(prior / weight), 20_001)
        values = grid + np.maximum(prior[None] - grid[:, None] * weight[None], 0).sum(axis=1)
        assert bounds.dual == pytest.approx(values.min(), abs=1e-4)
        assert bounds.dual <= values.min() + 1e-12
        assert bounds.closed_form == pytest.approx(np.max(prior / weight), rel=1e-12)


def test_metric_lp_with_all_distances_one_is_the_pure_epsilon_bound():
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    distances = 1.0 - np.eye(4)
    for epsilon in [0.3, 1.0, 2.0]:
        assert metric_reidentification_lp(prior, distances, epsilon) == pytest.approx(
            reidentification_bound(prior, epsilon), abs=1e-8)


def test_the_closed_form_is_set_by_the_most_isolated_candidate():
    """One far-away candidate pushes the closed form to its own prior-weighted share, while the LP and
    the dual bound stay near the crowd's value: the gap the pages show."""
    rng = np.random.default_rng(3)
    points = np.vstack([rng.normal(scale=0.1, size=(40, 2)), [[50.0, 50.0]]])
    distances = np.linalg.norm(points[:, None] - points[None], axis=-1)
    prior = np.full(41, 1 / 41)
    bounds = metric_reidentification_bounds(prior, distances, 1.0)
    assert bounds.closed_form == pytest.approx(1.0, abs=1e-9)  # π_v/(π_v + e^{−50}·…) for the isolated one
    assert bounds.lp < 0.1 and bounds.dual < 0.1


def test_metric_bounds_take_candidates_of_prior_zero_far_away():
    distances = np.array([[0.0, 1.0, 1e6], [1.0, 0.0, 1e6], [1e6, 1e6, 0.0]])
    with no_warnings():
        bounds = metric_reidentification_bounds([0.5, 0.5, 0.0], distances, 1.0)
    two = reidentification_bound([0.5, 0.5], 1.0)  # the far, impossible candidate changes nothing
    assert bounds.lp == pytest.approx(two, abs=1e-8) and bounds.closed_form == pytest.approx(two, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# the posterior, δ for people, group privacy, the curve of a guarantee


def test_pure_posterior_against_mpmath_and_the_spec_sentence():
    for prior, epsilon in [(0.5, 2.0), (0.01, 1.0), (0.9, 0.1), (1e-6, 10.0)]:
        p, e = mpmath.mpf(prior), mpmath.exp(mpmath.mpf(epsilon))
        assert pure_posterior(prior, epsilon) == pytest.approx(float(p * e / (p * e + 1 - p)), rel=1e-14)
    assert pure_posterior(0.5, 700.0) == 1.0 and pure_posterior(0.0, 5.0) == 0.0
    sentence = plain_sentence(Guarantee("pure-dp", "t", epsilon=2))
    assert sentence == "At ε = 2, an attacker who was 50 % sure becomes at most 88 % sure."


def test_epsilon_delta_statements_never_say_the_pure_sentence():
    guarantee = Guarantee("approximate-dp", "t", epsilon=2, delta=1e-6)
    statement = posterior_statement(guarantee)
    assert "at most 88 % sure" not in statement.sentence and "becomes at most" not in statement.sentence
    assert "reveal the input outright" in statement.sentence and "1 in 1,000,000" in statement.sentence
    assert statement.loss == 3.0 and statement.probability == pytest.approx(1e-6 / (1 - math.exp(-1)), rel=1e-12)
    assert dp_loss_tail(1.0, 1e-5, 1.0 + math.log(2)) == pytest.approx(2e-5, rel=1e-12)
    with pytest.raises(ValueError, match="above"):
        posterior_statement(guarantee, posterior=0.6)  # below the ε figure: nothing to say


def test_gdp_posterior_statement_uses_the_loss_tail():
    statement = posterior_statement(Guarantee("gdp", "t", mu=1.0), prior=0.2, posterior=0.6)
    loss = math.log(0.6 / 0.4) - math.log(0.2 / 0.8)
    assert statement.loss == pytest.approx(loss, rel=1e-14)
    assert statement.probability == pytest.approx(stats.norm.cdf(0.5 - loss), rel=1e-12)
    assert "more than 60 % sure" in statement.sentence and "20 % sure" in statement.sentence


def test_no_guarantee_has_no_curve_and_infinite_loss():
    none = Guarantee("none", "no privacy")
    assert tradeoff_curve(none) is None and privacy_loss(none) == math.inf
    assert "No guarantee" in plain_sentence(none)
    terms = attack_terms(none, candidates=5)
    assert terms["curve"] is None and terms["private"] is False and terms["privacy_loss"] is None


def test_the_curve_of_each_guarantee_kind():
    assert isinstance(tradeoff_curve(Guarantee("label-dp", "t", epsilon=1)), DPCurve)
    assert tradeoff_curve(Guarantee("approximate-dp", "t", epsilon=1, delta=1e-5)).delta == 1e-5
    local = tradeoff_curve(Guarantee("local-dp", "t", epsilon=2.0, delta=1e-6, mu=0.7))
    assert isinstance(local, GDPCurve) and local.mu == 0.7
    metric = tradeoff_curve(Guarantee("metric-dp", "t", epsilon=2.0), distance=1.5)
    assert metric.epsilon == 3.0 and privacy_loss(Guarantee("metric-dp", "t", epsilon=2.0), distance=1.5) == 3.0
    with pytest.raises(ValueError, match="distance"):
        tradeoff_curve(Guarantee("metric-dp", "t", epsilon=2.0))
    with pytest.raises(ValueError, match="mu"):
        tradeoff_curve(Guarantee("gdp", "t"))


def test_delta_for_people():
    said = delta_for_people(1e-6, people=1000)
    assert said.one_in == "1 in 1,000,000" and said.expected_people == pytest.approx(1e-3) and not said.warning
    assert delta_for_people(1e-3, people=1000).warning  # δ = 1/n
    assert not delta_for_people(0.000999, people=1000).warning
    assert "public random draw" in delta_for_people(1e-6, public_draw=True).sentence


def test_group_privacy():
    approx = group_guarantee(Guarantee("approximate-dp", "t", epsilon=0.5, delta=1e-6), 4)
    assert approx.epsilon == 2.0 and approx.delta == pytest.approx(4 * math.exp(1.5) * 1e-6, rel=1e-12)
    assert group_guarantee(Guarantee("gdp", "t", mu=0.5), 3).mu == 1.5
    vacuous = group_guarantee(Guarantee("approximate-dp", "t", epsilon=5, delta=1e-3), 10)
    assert (vacuous.kind, vacuous.delta) == ("none", 1.0) and tradeoff_curve(vacuous) is None  # no guarantee left
    # a finite mechanism over 0..20 with P(o | x) ∝ e^{−ε|o − x|}: a pair k apart loses at most kε
    epsilon, outputs = 0.4, np.arange(21)
    law = [np.exp(-epsilon * np.abs(outputs - x)) / np.exp(-epsilon * np.abs(outputs - x)).sum() for x in range(21)]
    for k in [1, 2, 5]:
        group = tradeoff_curve(group_guarantee(Guarantee("pure-dp", "t", epsilon=2 * epsilon), k))
        exact = FinitePairCurve(law[8], law[8 + k])
        assert exact.privacy_loss <= group.privacy_loss + 1e-12
        assert np.all(exact.fnr(ALPHAS) >= group.fnr(ALPHAS) - 1e-12)


def test_percent_and_one_in_are_readable():
    assert [percent(v) for v in (0.8808, 0.001, 0.9997, 0.5)] == ["88 %", "0.1 %", "99.97 %", "50 %"]
    assert [delta_for_people(d).one_in for d in (1e-6, 0.25, 3e-20, 5e-324)] == [
        "1 in 1,000,000", "1 in 4", "1 in 3.33e+19", "less than 1 in 1.8e+308"]


@pytest.mark.parametrize("call, words", [
    (lambda: DPCurve(-1.0), "epsilon"),
    (lambda: DPCurve(1.0, 1.0), "delta"),
    (lambda: DPCurve(1.0).fnr(1.5), "[0, 1]"),
    (lambda: DPCurve(1.0).fnr([0.1, float("nan")]), "[0, 1]"),
    (lambda: GDPCurve(-0.1), "mu"),
    (lambda: DPCurve(1.0).guessing_chance(2.0), "prior"),
    (lambda: FinitePairCurve([0.5, 0.5], [1.0]), "one entry per class"),
    (lambda: FinitePairCurve([0.5, 0.6], [0.5, 0.5]), "sum to 1"),
    (lambda: reidentification_bound([1.0], 1.0), "at least 2"),
    (lambda: reidentification_lp(np.ones(50), 1.0, 0.01), "at most 40"),
    (lambda: reidentification_lp(np.ones(3), 50.0, 0.01), "epsilon"),
    (lambda: metric_closed_form([0.5, 0.5], [[0, 1], [2, 0]], 1.0), "symmetric"),
    (lambda: metric_dual_bound([0.5, 0.5], [[0, 1]], 1.0), "2 × 2"),
    (lambda: delta_for_people(1e-6, people=0), "people"),
    (lambda: group_guarantee(Guarantee("pure-dp", "t", epsilon=1), 0), "k"),
    (lambda: posterior_statement(Guarantee("pure-dp", "t", epsilon=1), prior=1.0), "prior"),
    (lambda: tradeoff_curve({"kind": "pure-dp", "epsilon": 1}), "Guarantee"),
])
def test_bad_input_says_what_to_do(call, words):
    with pytest.raises(ValueError, match=None) as info:
        call()
    assert words in str(info.value)


def test_a_stated_guarantee_is_the_kind_its_numbers_say_and_refuses_mixed_or_missing_ones():
    from privlib.core.risk import stated_guarantee

    assert stated_guarantee(epsilon=2.0).kind == "pure-dp"
    approximate = stated_guarantee(epsilon=2.0, delta=1e-6)
    assert (approximate.kind, approximate.epsilon, approximate.delta) == ("approximate-dp", 2.0, 1e-6)
    gdp = stated_guarantee(mu=0.5)
    assert (gdp.kind, gdp.mu) == ("gdp", 0.5)
    assert isinstance(tradeoff_curve(gdp), GDPCurve)
    for bad in ({"mu": 0.5, "epsilon": 1.0}, {"mu": 0.5, "delta": 1e-6}, {}, {"epsilon": 1.0, "delta": 1.0},
                {"epsilon": -1.0}, {"mu": -0.1}):
        with pytest.raises(ValueError):
            stated_guarantee(**bad)
