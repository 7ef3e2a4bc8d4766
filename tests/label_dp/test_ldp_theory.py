"""The retraining paper's bounds with explicit constants (Thm 1, Thm 4, eqs. 59/65/141) against the
reference table (float64 and 40-digit mpmath agree to ≤ 1e-15), thresholds and flags."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.label_dp.datasets import COMPLIANT_LAW, TWO_POINT_LAW, UniformAbsLaw
from privlib.label_dp.theory import (
    FLAG_ILLUSTRATIVE,
    FLAG_LOOSE,
    FLAG_THETA,
    FLAG_VACUOUS,
    THETA_ONLY_RESULTS,
    alpha,
    alpha1,
    alpha_hat,
    bound_flag,
    eq59_expectation,
    eq65,
    eq141,
    law_flag,
    nu0,
    p2,
    per_point_bounds,
    population_accuracy,
    population_bounds,
    simulate_centroid,
    thm4_threshold,
    thm4_vacuous_for_every_n,
    vacuous_below_n,
)


@pytest.mark.parametrize("n, mu, p, cos, a, a_hat", [
    (300, 0.5, 0.4, 0.5, 0.1709708818, 0.9889528709),
    (3000, 0.5, 0.4, 0.5, 0.8466450332, 0.9999998877),
    (1000, 0.4, 0.3, 0.2, 0.2258580312, 0.9712040687),
])
def test_thm1_rows(n, mu, p, cos, a, a_hat):
    assert alpha(n, mu, p, cos) == pytest.approx(a, abs=5e-11)
    assert alpha_hat(n, mu, p, cos) == pytest.approx(a_hat, abs=5e-11)


def test_thm4_row_defined():
    n, d, mu, gamma, p, cos = 2e6, 50, 0.5, 0.3, 0.3, 0.008
    assert p2(n, d, mu, gamma, p) == pytest.approx(2.2433546682e-5, rel=5e-11)
    assert thm4_threshold(n, d, mu, gamma, p) == pytest.approx(7.1787e-4, abs=5e-8)
    assert alpha1(n, d, mu, gamma, p, cos) == pytest.approx(0.9996644169, abs=5e-11)
    assert alpha(n, mu, p, cos) == pytest.approx(0.7219626995, abs=5e-11)


def test_thm4_row_undefined():
    n, d, mu, gamma, p, cos = 1e6, 100, 0.5, 0.3, 0.2, 0.012
    assert p2(n, d, mu, gamma, p) == pytest.approx(1.1708798327e-3, rel=5e-11)
    assert thm4_threshold(n, d, mu, gamma, p) == pytest.approx(0.037468, abs=5e-7)
    assert thm4_threshold(n, d, mu, gamma, p) > cos
    assert math.isnan(alpha1(n, d, mu, gamma, p, cos))
    curve = alpha1(n, d, mu, gamma, p, np.array([0.0, 0.012, 0.037, 0.0375, 0.5, 1.0]))
    assert np.isnan(curve[:3]).all() and np.isfinite(curve[3:]).all()


@pytest.mark.parametrize("n, e65, e59", [(1e4, 0.01488806, 0.09479697), (1e6, 0.77686984, 0.98809518)])
def test_population_rows(n, e65, e59):
    assert eq65(n, 50, 0.5, 0.3, 0.4) == pytest.approx(e65, abs=5e-9)
    assert eq59_expectation(n, 50, 0.4, TWO_POINT_LAW) == pytest.approx(e59, abs=5e-9)


def test_eq59_quadrature_agrees_with_monte_carlo():
    rng = np.random.default_rng(59)
    m, d, n, p = 400_000, 50, 1e4, 0.4
    a = TWO_POINT_LAW.sample(m, rng)
    r = rng.chisquare(d - 1, m)
    values = alpha(n, 0.5, p, np.sqrt(a * a / (a * a + r)))
    se = values.std() / math.sqrt(m)
    assert abs(values.mean() - eq59_expectation(n, d, p, TWO_POINT_LAW)) < 4 * se


def test_eq141_validity_and_value():
    d, p = 50, 0.4
    assert math.isnan(eq141(4.7e6, d, p, TWO_POINT_LAW))  # ν₀ < 16p₂/μ
    assert 0.99 < eq141(5e6, d, p, TWO_POINT_LAW) <= 1.0
    # with γ = 1 (an override) ν₀ = 0.082 cuts off most 0.3-atoms: the indicator matters
    n, gamma = 1e6, 1.0
    value = eq141(n, d, p, TWO_POINT_LAW, gamma=gamma)
    v = nu0(d, gamma)
    assert v >= thm4_threshold(n, d, 0.5, gamma, p)
    rng = np.random.default_rng(141)
    m = 400_000
    a = TWO_POINT_LAW.sample(m, rng)
    c = np.sqrt(a * a / (a * a + rng.chisquare(d - 1, m)))
    vals = np.where(c >= v, alpha1(n, d, 0.5, gamma, p, np.maximum(c, v)), 0.0)
    assert 0.04 < value < 0.2
    assert abs(vals.mean() - value) < 4 * vals.std() / math.sqrt(m)


def test_vacuity_thresholds():
    assert vacuous_below_n(50, 0.5, 0.3, 0.4) == pytest.approx(2.31e6, rel=5e-3)
    assert vacuous_below_n(50, 0.5, 0.3, 0.4, nu0(50, 0.3)) == pytest.approx(4.8e6, rel=1e-2)
    n = vacuous_below_n(50, 0.5, 0.3, 0.4)
    assert thm4_threshold(n * 1.0001, 50, 0.5, 0.3, 0.4) <= 1.0 < thm4_threshold(n * 0.9999, 50, 0.5, 0.3, 0.4)
    assert thm4_vacuous_for_every_n(16, 0.5) and not thm4_vacuous_for_every_n(17, 0.5)
    assert vacuous_below_n(16, 0.5, 0.3, 0.4) == math.inf


def test_alpha_hat_limits():
    assert alpha_hat(300, 0.5, 0.4, 1.0) == 1.0  # cot β infinite
    assert alpha_hat(300, 0.5, 0.4, 0.0) == pytest.approx(1 - 1 / (3 * math.sqrt(2 * math.pi)), rel=1e-14)
    assert alpha(300, 0.5, 0.5, 0.9) == 0.0  # p = ½: no information


def test_flags_and_theta_only_results():
    assert eq65(10, 2, 0.5, 0.3, 0.4) < 0
    assert bound_flag(eq65(10, 2, 0.5, 0.3, 0.4)) == FLAG_VACUOUS
    assert bound_flag(eq65(1e4, 50, 0.5, 0.3, 0.4)) == FLAG_LOOSE
    assert bound_flag(eq65(1e6, 50, 0.5, 0.3, 0.4)) is None
    assert bound_flag(float("nan")) == FLAG_VACUOUS
    assert law_flag(TWO_POINT_LAW) == FLAG_ILLUSTRATIVE
    assert law_flag(UniformAbsLaw(0.5)) == FLAG_ILLUSTRATIVE
    assert law_flag(COMPLIANT_LAW) is None
    assert FLAG_THETA == "Θ: constants not given"
    names = {name for name, _ in THETA_ONLY_RESULTS}
    assert {"Thm 2, upper bound", "Thm 3", "Thm 5", "Cor. 1", "Remark 1", "Remark 4"} <= names
    assert all(isinstance(text, str) for _, text in THETA_ONLY_RESULTS)


def test_curves_helpers():
    grid = np.linspace(0, 1, 11)
    b = per_point_bounds(3000, 50, 0.5, 0.3, 0.4, grid)
    assert np.all(b["alpha"] <= b["alpha_hat"])
    assert np.isnan(b["alpha1"]).all()  # n = 3000 is far below the Thm 4 range
    pop = population_bounds([1e4, 1e6], 50, 0.4)
    np.testing.assert_allclose(pop["eq65"], [0.01488806, 0.77686984], atol=5e-9)
    assert np.isnan(pop["eq141"]).all()
    assert pop["law_flag"] == FLAG_ILLUSTRATIVE


def test_fig1_flip_probability_from_core():
    """The paper's p = 0.4 is ε = ln 1.5: the core's binary flip probability and, back, its keep
    probability 1 − p with C = 2 (the theory takes p; label DP has no copy of either)."""
    from privlib.core.randomised_response import RandomisedResponse, binary_flip_probability

    assert binary_flip_probability(math.log(1.5)) == pytest.approx(0.4, rel=1e-14)
    assert RandomisedResponse.epsilon_from_keep(1 - 0.4, 2) == pytest.approx(math.log(1.5), rel=1e-14)
    with pytest.raises(ValueError):
        RandomisedResponse.epsilon_from_keep(1 - 0.6, 2)


def test_population_accuracy_closed_form_against_quadrature():
    from scipy import integrate
    from scipy.stats import norm

    delta = 0.5
    theta = np.array([0.8, 0.3, -0.2, 0.1])
    rest = np.linalg.norm(theta[1:])
    exact = integrate.quad(lambda u: norm.cdf(theta[0] * u / rest), delta, 5 * delta, epsabs=1e-14)[0] / (4 * delta)
    assert population_accuracy(theta, UniformAbsLaw(delta)) == pytest.approx(exact, abs=1e-13)
    two = 75 / 79 * norm.cdf(0.3 * 0.8 / rest) + 4 / 79 * norm.cdf(4.25 * 0.8 / rest)
    assert population_accuracy(theta, TWO_POINT_LAW) == pytest.approx(two, rel=1e-14)


def test_simulate_centroid_shapes_and_eq2():
    sim = simulate_centroid(TWO_POINT_LAW, 2000, 10, 0.2, reps=3, seed=1)
    assert sim["acc0"].shape == (3,) and np.all((sim["acc0"] > 0.5) & (sim["acc0"] <= 1))
    assert np.all((sim["acc1"] > 0.5) & (sim["acc1"] <= 1))
