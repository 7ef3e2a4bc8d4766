"""privlib.erm.calibration: reference values, independent re-computations and simulations of the
high-probability events the safe input calibration rests on."""
from __future__ import annotations

import itertools
import json
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, stats

from privlib.core.calibration import analytic_gaussian_delta
from privlib.erm.calibration import (
    NEIGHBOURS,
    ErmCalibration,
    InputCalibration,
    asymptotic_input_calibration,
    calibrate,
    input_accountant,
    local_guarantee,
    obj_gauss_calibration,
    obj_gauss_epsilon,
    output_calibration,
    privacy_meters,
    safe_input_calibration,
    smallest_valid_n,
)


def assert_printed(value, printed: str):
    """value agrees with the printed decimal string to its last digit (half a unit, and a hair for
    values printed by rounding an already rounded number)."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    assert abs(value - float(printed)) <= 0.51 * 10.0**-decimals, (value, printed)


# ----------------------------------------------------------------------------------------- KST12

def test_neighbours_are_replace_one():
    assert NEIGHBOURS == "replace-one"


@pytest.mark.parametrize("epsilon, delta, Delta, beta_sq", [(1.0, 1e-5, 4.0, "1626.377299"),
                                                            (0.5, 1e-6, 8.0, "7556.432762")])
def test_obj_gauss_reference_values(epsilon, delta, Delta, beta_sq):
    add_remove = obj_gauss_calibration(epsilon, delta, zeta=4.0, lam=2.0, replace_one=False)
    assert add_remove.Delta == Delta and add_remove.zeta_s == 4.0
    assert_printed(add_remove.beta**2, beta_sq)
    replace = obj_gauss_calibration(epsilon, delta, zeta=4.0, lam=2.0)
    assert replace.zeta_s == 8.0 and replace.Delta == Delta
    assert replace.beta**2 == pytest.approx(4 * add_remove.beta**2, rel=1e-14)
    assert replace.to_dict() == {"Delta": Delta, "beta": replace.beta, "zeta_s": 8.0}
    if epsilon == 1.0:
        assert_printed(add_remove.beta, "40.32836841")


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 1.0, 7.0, 100.0])
@pytest.mark.parametrize("delta", [1e-9, 1e-5, 0.1])
@pytest.mark.parametrize("replace_one", [True, False])
def test_obj_gauss_inversion_round_trip(epsilon, delta, replace_one):
    cal = obj_gauss_calibration(epsilon, delta, zeta=2.5, lam=1.0, replace_one=replace_one)
    assert obj_gauss_epsilon(cal.beta, delta, cal.zeta_s) == pytest.approx(epsilon, rel=1e-12)


def kst12_noise_part(beta, delta, shift):
    """KST12's bound on the linear-noise part of the privacy loss for a gradient shift of norm ``shift``:
    (‖v‖² + 2|⟨g, v⟩|)/(2β²) with |⟨g, v⟩| ≤ β‖v‖√(2 ln(2/δ)) except with probability δ."""
    u = shift / beta
    return u**2 / 2 + u * math.sqrt(2 * math.log(2 / delta))


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.5, 1e-6), (0.1, 1e-8), (5.0, 1e-3)])
def test_add_remove_zeta_under_replace_one_proves_only_one_and_a_half_epsilon(epsilon, delta):
    zeta = 4.0
    published = obj_gauss_calibration(epsilon, delta, zeta, 2.0, replace_one=False)
    # With the shift it was calibrated for, the noise part is within ε/2 ...
    assert kst12_noise_part(published.beta, delta, zeta) <= epsilon / 2 * (1 + 1e-12)
    # ... but one replaced record shifts the gradient sum by up to 2ζ: the noise part exceeds ε/2 (≈ ε).
    wrong = kst12_noise_part(published.beta, delta, 2 * zeta)
    assert wrong > epsilon / 2
    assert wrong == pytest.approx(epsilon, rel=0.25)
    # The replace-one calibration (ζ_s = 2ζ) restores ε/2.
    fixed = obj_gauss_calibration(epsilon, delta, zeta, 2.0)
    assert kst12_noise_part(fixed.beta, delta, 2 * zeta) <= epsilon / 2 * (1 + 1e-12)


# ------------------------------------------------------------------------- analytic Gaussian (BW18)

AGM_REFERENCE = [(0.5, 1e-5, "1.9930914044"), (1.0, 1e-5, "4.3771780957"), (2.0, 1e-5, "9.9972561464"),
                 (10.0, 1e-6, "96.7172719639"), (50.0, 1e-5, "1462.2850159648")]


@pytest.mark.parametrize("mu, delta, expected", AGM_REFERENCE)
def test_local_guarantee_reference_epsilons(mu, delta, expected):
    lg = local_guarantee(sigma_a=2.0 / mu, sigma_b=1.0, A=1.0, B=0.0, delta_L=delta)  # μ = 2A/σ_a
    assert lg.mu == pytest.approx(mu, rel=1e-15)
    assert_printed(lg.epsilon_L, expected)
    assert lg.epsilon_L_classic == pytest.approx(math.sqrt(2 * math.log(1.25 / delta)) * mu)
    assert lg.classic_valid is False and lg.delta_L == delta


def test_delta_curve_and_classic_reference():
    assert_printed(analytic_gaussian_delta(1.0, sigma=1.0), "0.1269367375")
    assert_printed(analytic_gaussian_delta(0.0, sigma=1.0), "0.3829249225")
    assert analytic_gaussian_delta(0.0, sigma=1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)
    classic = local_guarantee(sigma_a=0.2, sigma_b=1.0, A=1.0, B=0.0, delta_L=1e-6)
    assert_printed(classic.epsilon_L_classic, "52.99")
    small = local_guarantee(sigma_a=200.0, sigma_b=1e6, A=1.0, B=2.0, delta_L=1e-5)
    assert small.classic_valid is True and small.epsilon_L == 0.0 or small.epsilon_L < small.epsilon_L_classic
    assert set(classic.to_dict()) == {"mu", "epsilon_L", "epsilon_L_classic", "classic_valid", "delta_L"}


@pytest.mark.parametrize("mu, delta", [(0.5, 1e-5), (1.0, 1e-5), (2.0, 1e-5), (10.0, 1e-6)])
def test_epsilon_L_against_dp_accounting_pld(mu, delta):
    """dp_accounting's privacy-loss distribution (test-only oracle). Its pessimistic estimate is an upper
    bound within the value discretisation (1e-3 here) of the exact ε."""
    from dp_accounting.pld import privacy_loss_distribution

    interval = 1e-3
    pld = privacy_loss_distribution.from_gaussian_mechanism(standard_deviation=1.0 / mu, sensitivity=1.0,
                                                            value_discretization_interval=interval)
    oracle = pld.get_epsilon_for_delta(delta)
    ours = local_guarantee(2.0 / mu, 1.0, 1.0, 0.0, delta).epsilon_L
    assert ours <= oracle + 1e-9
    assert oracle - ours <= 2 * interval


@pytest.mark.parametrize("mu, delta", [(0.5, 1e-5), (2.0, 1e-5), (17.73, 1e-5), (50.0, 1e-5), (291.6, 1e-6)])
def test_epsilon_L_solves_dp_accountings_exact_delta(mu, delta):
    """dp_accounting's closed-form δ(ε) of the Gaussian mechanism at our ε_L is the target δ. (Its PLD at
    μ = 50 truncates the loss range near ε = 1463.24 and cannot resolve ε_L = 1462.285 there.)"""
    from dp_accounting.pld import privacy_loss_mechanism

    ours = local_guarantee(2.0 / mu, 1.0, 1.0, 0.0, delta).epsilon_L
    gaussian = privacy_loss_mechanism.GaussianPrivacyLoss(standard_deviation=1.0 / mu, sensitivity=1.0)
    assert gaussian.get_delta_for_epsilon(ours) == pytest.approx(delta, rel=1e-9)
    assert gaussian.get_delta_for_epsilon(ours * (1 - 1e-6)) > delta


# ----------------------------------------------------------------------------- safe input calibration

SAFE_ROWS = [
    # n, ε, δ, σ_a, σ_b, r, s, G, ε_model, μ_L, ε_L
    (1000, 1.0, 1e-5, "0.11292974", "5.0332578", "7.59495", "23.2638", "14.8616", "0.9055", "17.73", "231.85"),
    (10_000, 1.0, 1e-5, "0.01745521", "0.9703763", "7.59495", "91.7604", "9.06057", "0.9055", "114.65", "7060.7"),
    (100_000, 0.5, 1e-6, "0.0068597695", "0.61493158", "8.01579", "307.587", "8.43989", "0.4731", "291.6",
     "43908.5"),
]


@pytest.mark.parametrize("row", SAFE_ROWS, ids=lambda row: f"n={row[0]}")
def test_safe_calibration_table(row):
    n, eps, delta, sigma_a, sigma_b, r, s, G, eps_model, mu_L, eps_L = row
    cal = safe_input_calibration(eps, delta, n, d=10, R=1.0, A=1.0, B=2.0)
    assert cal.valid and cal.guaranteed and cal.route == "safe" and cal.reason == ""
    for value, printed in [(cal.sigma_a, sigma_a), (cal.sigma_b, sigma_b), (cal.r, r), (cal.s, s), (cal.G, G),
                           (cal.epsilon_model, eps_model)]:
        assert_printed(value, printed)
    # The split: Jacobian ln(1 + ε/2), noise ε/2.
    assert cal.epsilon_jacobian == pytest.approx(math.log1p(eps / 2), rel=1e-12)
    assert cal.epsilon_noise == pytest.approx(eps / 2, rel=1e-12)
    if n == 1000:
        assert_printed(cal.epsilon_jacobian, "0.4055")
        assert_printed(cal.epsilon_noise, "0.5")
    lg = local_guarantee(cal.sigma_a, cal.sigma_b, 1.0, 2.0, delta)
    assert_printed(lg.mu, mu_L)
    assert_printed(lg.epsilon_L, eps_L)
    full = calibrate(eps, delta, n, 10)
    assert full.input == cal and full.local == lg
    # The accountant reproduces the split from the σ's alone.
    total, jac, noise = input_accountant(cal.sigma_a, cal.sigma_b, n, 10, 1.0, 1.0, 2.0, delta)
    assert (total, jac, noise) == pytest.approx((cal.epsilon_model, cal.epsilon_jacobian, cal.epsilon_noise))


def test_t3_reference_values():
    assert_printed(safe_input_calibration(1.0, 1e-5, 1000, 10).t3, "5.30825343")
    assert_printed(safe_input_calibration(1.0, 1e-6, 1000, 10).t3, "5.73839761")
    # k = min(3, d): in d = 2 the subspace V has dimension 2.
    assert safe_input_calibration(1.0, 1e-5, 1000, 2).t3 == pytest.approx(math.sqrt(stats.chi2.isf(1e-5 / 3, 2)))


@pytest.mark.parametrize("seed", range(8))
def test_calibrated_accountant_is_exactly_the_split(seed):
    rng = np.random.default_rng(seed)
    eps = float(10 ** rng.uniform(-1.5, 1.5))
    delta = float(10 ** rng.uniform(-9, -3))
    d = int(rng.integers(1, 51))
    n = smallest_valid_n(eps, delta, d) + int(10 ** rng.uniform(0, 5))
    R, A, B = float(rng.uniform(0.1, 3)), float(rng.uniform(0.1, 2)), float(rng.uniform(0, 3))
    cal = safe_input_calibration(eps, delta, n, d, R=R, A=A, B=B)
    assert cal.valid
    assert cal.epsilon_model == pytest.approx(math.log1p(eps / 2) + eps / 2, rel=1e-10)
    assert cal.epsilon_model <= eps


def test_invalid_n_353_never_falls_back():
    cal = safe_input_calibration(1.0, 1e-5, 353, 10)
    assert not cal.valid and not cal.guaranteed and cal.route == "safe"
    assert math.isnan(cal.sigma_a) and math.isnan(cal.sigma_b) and math.isnan(cal.epsilon_model)
    assert_printed(cal.min_epsilon, "1.0856")
    assert "1.0856" in cal.reason and "353" in cal.reason and f"{cal.min_n}" in cal.reason
    assert cal.min_n == smallest_valid_n(1.0, 1e-5, 10)
    full = calibrate(1.0, 1e-5, 353, 10)
    assert full.local is None and full.input.route == "safe" and not full.input.valid
    as_dict = full.to_dict()
    assert as_dict["input"]["sigma_a"] is None and as_dict["local"] is None
    json.dumps(as_dict, allow_nan=False)
    # Just above the needed ε it is valid.
    assert safe_input_calibration(1.0857, 1e-5, 353, 10).valid


def test_tiny_n_is_invalid_at_any_epsilon():
    cal = safe_input_calibration(100.0, 1e-5, 12, 10)
    assert not cal.valid and cal.s < 0 and math.isinf(cal.min_epsilon)
    assert "more records" in cal.reason
    total, jac, noise = input_accountant(1.0, 1.0, 12, 10, 1.0, 1.0, 2.0, 1e-5)
    assert math.isinf(total) and math.isinf(jac) and math.isfinite(noise)


def test_smallest_valid_n():
    assert smallest_valid_n(1.0, 1e-6, 10) == 410
    for eps, delta, d in [(1.0, 1e-6, 10), (1.0, 1e-5, 10), (0.3, 1e-8, 3), (10.0, 1e-3, 50), (1.0, 1e-5, 1)]:
        n = smallest_valid_n(eps, delta, d)
        assert safe_input_calibration(eps, delta, n, d).valid
        assert not safe_input_calibration(eps, delta, n - 1, d).valid
        assert safe_input_calibration(eps, delta, n, d).min_n == n
        assert smallest_valid_n(eps, delta, d, A=7.0) == n  # independent of A
    cal = safe_input_calibration(1.0, 1e-5, 2000, 10)
    assert safe_input_calibration(cal.min_epsilon * (1 + 1e-9), 1e-5, 2000, 10).valid
    assert not safe_input_calibration(cal.min_epsilon * (1 - 1e-9), 1e-5, 2000, 10).valid


def test_inflation_row_and_floor():
    base = safe_input_calibration(1.0, 1e-5, 10_000, 10)
    inflated = calibrate(1.0, 1e-5, 10_000, 10, inflate=100)
    assert inflated.input.sigma_a == pytest.approx(10 * base.sigma_a, rel=1e-14)
    assert inflated.input.sigma_b == pytest.approx(10 * base.sigma_b, rel=1e-14)
    assert inflated.input.inflate == 100.0
    assert_printed(inflated.input.epsilon_model, "0.1228")
    assert_printed(inflated.local.epsilon_L, "113.78")
    # ε_model falls with m, to a floor (G grows with σ_a): ln(1 + r²/s²) + z²/2 + z t₃, z = 8RAr(σ_a/σ_b)/√n.
    ms = [1, 10, 100, 1e4, 1e12]
    values = [safe_input_calibration(1.0, 1e-5, 10_000, 10, inflate=m).epsilon_model for m in ms]
    assert all(a > b for a, b in itertools.pairwise(values))
    z = 8 * base.r * base.sigma_a / base.sigma_b / 100
    floor = math.log1p(base.r**2 / base.s**2) + z**2 / 2 + z * base.t3
    assert values[-1] == pytest.approx(floor, rel=1e-5)
    assert 0.06 < floor < 0.07


def test_asymptotic_route_is_not_a_guarantee():
    n, eps, delta = 1000, 1.0, 1e-5
    cal = asymptotic_input_calibration(eps, delta, n, 10)
    assert cal.route == "asymptotic" and cal.valid and cal.guaranteed is False
    kst = obj_gauss_calibration(eps, delta, zeta=4.0, lam=2.0)  # ζ_s = 2ζ
    assert cal.sigma_b == pytest.approx(kst.beta / math.sqrt(n), rel=1e-14)
    assert cal.sigma_a == pytest.approx(math.sqrt(2.0 / (n * eps)), rel=1e-14)
    assert cal.epsilon_model > eps  # the safe proof does not cover these σ's at n = 10³
    inflated = asymptotic_input_calibration(eps, delta, n, 10, inflate=4)
    assert inflated.sigma_a == pytest.approx(2 * cal.sigma_a)
    full = calibrate(eps, delta, n, 10, route="asymptotic")
    assert full.input.guaranteed is False and full.local is not None
    assert full.to_dict()["input"]["guaranteed"] is False
    # Even where the safe route is invalid, the asymptotic σ's exist but are flagged.
    small = asymptotic_input_calibration(eps, delta, 100, 10)
    assert small.valid and not small.guaranteed and small.epsilon_model > 5 * eps
    tiny = asymptotic_input_calibration(eps, delta, 20, 10)  # s < 0: the safe proof gives nothing
    assert tiny.valid and not tiny.guaranteed and math.isinf(tiny.epsilon_model)
    assert tiny.to_dict()["epsilon_model"] is None


# ------------------------------------------------------------------ 50-digit independent re-computation

def test_safe_row_in_50_digit_mpmath():
    """The n = 10³ row recomputed from the formulas with mpmath (χ²₃ tail in closed form, BW18 root)."""
    mp.mp.dps = 50
    eps, delta, n, d, R, A, B = mp.mpf(1), mp.mpf("1e-5"), mp.mpf(1000), mp.mpf(10), mp.mpf(1), mp.mpf(1), mp.mpf(2)
    L3 = mp.log(3 / delta)
    r = mp.sqrt(d + 2 * mp.sqrt(d * L3) + 2 * L3)
    s = mp.sqrt(n - 1 - d) - mp.sqrt(d) - mp.sqrt(2 * L3)
    sigma_a = A / (s * mp.sqrt(eps / 2) - r)
    G = 4 * R * A**2 + 8 * R * A * sigma_a * r + 2 * B

    def chi2_3_sf(x):
        return mp.erfc(mp.sqrt(x / 2)) + mp.sqrt(2 * x / mp.pi) * mp.exp(-x / 2)

    t3 = mp.sqrt(mp.findroot(lambda x: chi2_3_sf(x) - delta / 3, 28))
    z_star = mp.sqrt(t3**2 + eps) - t3
    sigma_b = G / (z_star * mp.sqrt(n))
    z = G / (sigma_b * mp.sqrt(n))
    eps_model = mp.log(1 + (A + sigma_a * r) ** 2 / (sigma_a**2 * s**2)) + z**2 / 2 + z * t3
    mu = mp.sqrt((2 * A / sigma_a) ** 2 + (2 * B / sigma_b) ** 2)

    def bw18_delta(e):
        return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)

    eps_L = mp.findroot(lambda e: bw18_delta(e) - delta, 230)
    mp.mp.dps = 15

    cal = calibrate(1.0, 1e-5, 1000, 10)
    for ours, exact in [(cal.input.r, r), (cal.input.s, s), (cal.input.sigma_a, sigma_a), (cal.input.G, G),
                        (cal.input.t3, t3), (cal.input.sigma_b, sigma_b), (cal.input.epsilon_model, eps_model),
                        (cal.local.mu, mu)]:
        assert ours == pytest.approx(float(exact), rel=1e-11)
    assert cal.local.epsilon_L == pytest.approx(float(eps_L), rel=1e-10)
    assert float(eps_model) == pytest.approx(math.log(1.5) + 0.5, rel=1e-40 + 1e-15)


# --------------------------------------------------------------------------- simulated probabilities

def binomial_slack(p, draws):
    return 4 * math.sqrt(p * (1 - p) / draws)


def test_simulated_norm_event_laurent_massart():
    """(i) ‖η‖ > σ_a r happens with rate ≤ δ/3 (δ = 0.3 so that δ/3 = 0.1 is measurable)."""
    delta, d, sigma, draws = 0.3, 10, 0.37, 200_000
    r = safe_input_calibration(1.0, delta, 10_000, d).r
    eta = np.random.default_rng(101).normal(scale=sigma, size=(draws, d))
    norms = np.linalg.norm(eta, axis=1)
    rate = float(np.mean(norms > sigma * r))
    assert rate <= delta / 3 + binomial_slack(delta / 3, draws)
    # The test has power: a radius √d (no deviation term) fails far more often than δ/3.
    assert float(np.mean(norms > sigma * math.sqrt(d))) > 0.3


def test_simulated_wishart_event_davidson_szarek():
    """(ii) λ_min(Wishart_d(n−1−d, σ_a²I)) < σ_a²s² happens with rate ≤ δ/3."""
    delta, d, n, sigma, draws = 0.3, 5, 40, 0.37, 20_000
    s = safe_input_calibration(1.0, delta, n, d).s
    assert s > 0
    m = n - 1 - d
    Z = np.random.default_rng(102).normal(scale=sigma, size=(draws, m, d))
    lam_min = np.linalg.eigvalsh(np.einsum("kij,kil->kjl", Z, Z))[:, 0]
    rate = float(np.mean(lam_min < sigma**2 * s**2))
    assert rate <= delta / 3 + binomial_slack(delta / 3, draws)
    # Power: without the √(2 ln(3/δ)) deviation term, the edge (√m − √d)² fails more often than δ/3.
    assert float(np.mean(lam_min < sigma**2 * (math.sqrt(m) - math.sqrt(d)) ** 2)) > delta / 3


def test_simulated_projected_noise_chi2_threshold():
    """(iii) ‖P_V g‖²/(nσ_b²) > t₃² for a fixed 3-dim subspace V happens with rate ≈ δ/3; the 1-D tail
    √(2 ln(6/δ)) that a fixed direction would allow is exceeded more often than δ/3."""
    delta, d, n, sigma_b, draws = 0.3, 10, 50, 0.8, 200_000
    t3 = safe_input_calibration(1.0, delta, 10_000, d).t3
    rng = np.random.default_rng(103)
    V = np.linalg.qr(rng.normal(size=(d, 3)))[0]
    g = rng.normal(scale=math.sqrt(n) * sigma_b, size=(draws, d))
    proj = np.linalg.norm(g @ V, axis=1) / (math.sqrt(n) * sigma_b)
    rate = float(np.mean(proj > t3))
    assert abs(rate - delta / 3) <= binomial_slack(delta / 3, draws)
    one_d = math.sqrt(2 * math.log(6 / delta))
    assert float(np.mean(proj > one_d)) > delta / 3 + binomial_slack(delta / 3, draws)


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (0.1, 1e-6), (0.05, 1e-6), (0.12, 1e-5)])
def test_one_dimensional_tail_calibration_is_wrong_for_small_epsilon(epsilon, delta):
    """The earlier calibration with √(2 ln(6/δ)) in place of t₃ understates σ_b by 2–3%; its true ε_model
    (the accountant) exceeds ε for small ε."""
    n, d = 100_000, 10
    cal = safe_input_calibration(epsilon, delta, n, d)
    t1 = math.sqrt(2 * math.log(6 / delta))
    z_wrong = math.sqrt(t1**2 + epsilon) - t1
    sigma_b_wrong = cal.G / (z_wrong * math.sqrt(n))
    assert 0.96 < sigma_b_wrong / cal.sigma_b < 0.98
    true_eps, _, _ = input_accountant(cal.sigma_a, sigma_b_wrong, n, d, 1.0, 1.0, 2.0, delta)
    assert true_eps > epsilon


def test_one_dimensional_tail_is_harmless_at_larger_epsilon():
    n, d, delta, epsilon = 100_000, 10, 1e-5, 0.5
    cal = safe_input_calibration(epsilon, delta, n, d)
    t1 = math.sqrt(2 * math.log(6 / delta))
    sigma_b_wrong = cal.G / ((math.sqrt(t1**2 + epsilon) - t1) * math.sqrt(n))
    assert input_accountant(cal.sigma_a, sigma_b_wrong, n, d, 1.0, 1.0, 2.0, delta)[0] < epsilon


# ------------------------------------------------------------------------------------------- output

def test_output_reference_and_gamma_radius():
    out = output_calibration(1.0, 1000, 10, 4.0, Lambda=0.1)
    assert out.scale == pytest.approx(0.08) and out.mean_radius == pytest.approx(0.8)
    assert out.to_dict() == {"Lambda": 0.1, "scale": out.scale, "mean_radius": out.mean_radius}
    # Monte Carlo: ‖b‖ ~ Gamma(d, scale) has mean 0.8 (within 4 SE).
    radii = np.random.default_rng(104).gamma(shape=10, scale=out.scale, size=200_000)
    assert abs(radii.mean() - 0.8) <= 4 * radii.std() / math.sqrt(radii.size)
    # The density ∝ exp(−‖b‖/scale) in R^10 has radial law ∝ r⁹ exp(−r/scale): mean d·scale.
    num = integrate.quad(lambda t: t**10 * math.exp(-t / out.scale), 0, np.inf)[0]
    den = integrate.quad(lambda t: t**9 * math.exp(-t / out.scale), 0, np.inf)[0]
    assert num / den == pytest.approx(0.8, rel=1e-8)
    # Replace-one sensitivity 2ζ/(nΛ) moves ‖b‖/scale by at most ε: pure ε-DP.
    assert (2 * 4.0 / (1000 * 0.1)) / out.scale == pytest.approx(1.0)


def test_output_default_lambda():
    out = output_calibration(2.0, 5000, 7, 3.0)
    assert out.Lambda == pytest.approx(math.sqrt(2 * 3.0 * 7 / (5000 * 2.0)))
    assert out.mean_radius == pytest.approx(7 * 2 * 3.0 / (5000 * out.Lambda * 2.0))


# --------------------------------------------------------------------------------- calibrate, meters

def test_calibrate_to_dict_keys():
    cal = calibrate(1.0, 1e-5, 1000, 10)
    assert isinstance(cal, ErmCalibration) and isinstance(cal.input, InputCalibration)
    out = cal.to_dict()
    assert set(out) == {"obj_gauss", "input", "local", "output"}
    assert set(out["obj_gauss"]) == {"Delta", "beta", "zeta_s"}
    assert set(out["input"]) == {"valid", "sigma_a", "sigma_b", "r", "s", "G", "epsilon_model", "epsilon_jacobian",
                                 "epsilon_noise", "route", "guaranteed", "inflate", "min_epsilon", "min_n", "reason"}
    assert set(out["local"]) == {"mu", "epsilon_L", "epsilon_L_classic", "classic_valid", "delta_L"}
    assert set(out["output"]) == {"Lambda", "scale", "mean_radius"}
    json.dumps(out, allow_nan=False)
    assert cal.obj_gauss.zeta == 4.0 and cal.obj_gauss.lam == 2.0 and cal.obj_gauss.zeta_s == 8.0


def test_privacy_meters_match_calibrate():
    ns = np.unique(np.round(np.logspace(2, 5, 60)).astype(int))
    meters = privacy_meters(1.0, 1e-5, ns, 10, inflate=3.0)
    assert meters.ns.shape == meters.epsilon_L.shape == meters.valid.shape == ns.shape
    for i in [0, 20, 25, 40, len(ns) - 1]:
        cal = calibrate(1.0, 1e-5, int(ns[i]), 10, inflate=3.0)
        assert bool(meters.valid[i]) == cal.input.valid
        if cal.input.valid:
            assert meters.epsilon_model[i] == pytest.approx(cal.input.epsilon_model, rel=1e-12)
            assert meters.epsilon_L[i] == pytest.approx(cal.local.epsilon_L, rel=1e-12)
            assert meters.epsilon_L_classic[i] == pytest.approx(cal.local.epsilon_L_classic, rel=1e-12)
        else:
            assert math.isnan(meters.epsilon_model[i]) and math.isnan(meters.epsilon_L[i])
    assert not meters.valid[0] and meters.valid[-1]
    out = meters.to_dict()
    assert set(out) == {"ns", "epsilon_model", "epsilon_L", "epsilon_L_classic", "valid"}
    assert out["epsilon_L"][0] is None
    json.dumps(out, allow_nan=False)


# ---------------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, match", [
    (lambda: input_accountant(-1.0, 1.0, 100, 3, 1.0, 1.0, 2.0, 1e-5), "sigma_a"),
    (lambda: input_accountant(1.0, 0.0, 100, 3, 1.0, 1.0, 2.0, 1e-5), "sigma_b"),
    (lambda: local_guarantee(-0.1, 1.0, 1.0, 2.0, 1e-5), "sigma_a"),
    (lambda: safe_input_calibration(1.0, 1.0, 1000, 10), "delta"),
    (lambda: safe_input_calibration(1.0, 1e-5, 0, 10), "n"),
    (lambda: safe_input_calibration(0.0, 1e-5, 1000, 10), "epsilon"),
    (lambda: safe_input_calibration(1.0, 1e-5, 1000, 0), "d"),
    (lambda: safe_input_calibration(1.0, 1e-5, 1000, 10, inflate=0.5), "inflate"),
    (lambda: safe_input_calibration(1.0, 1e-5, 1000, 10, R=0.0), "R"),
    (lambda: safe_input_calibration(1.0, 1e-5, 1000, 10, A=-1.0), "A"),
    (lambda: safe_input_calibration(1.0, 1e-5, 1000.5, 10), "whole number"),
    (lambda: asymptotic_input_calibration(1.0, 1e-5, 1000, 10, inflate=0.0), "inflate"),
    (lambda: calibrate(1.0, 1e-5, 1000, 10, route="exact"), "route"),
    (lambda: obj_gauss_calibration(1.0, 1e-5, zeta=0.0, lam=2.0), "zeta"),
    (lambda: obj_gauss_epsilon(0.0, 1e-5, 8.0), "beta"),
    (lambda: output_calibration(1.0, 1000, 10, 4.0, Lambda=0.0), "Lambda"),
    (lambda: output_calibration(1.0, 1000, 10, 4.0, Lambda=-1.0), "Lambda"),
    (lambda: smallest_valid_n(1.0, 2.0, 10), "delta"),
    (lambda: privacy_meters(1.0, 1e-5, [], 10), "ns"),
    (lambda: privacy_meters(1.0, 1e-5, [100, 0], 10), "n"),
    (lambda: privacy_meters(1.0, 1e-5, [100, 1000], 10, inflate=0.9), "inflate"),
])
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
