"""Private ERM mechanisms: the classes and their registry (the core protocol: keyword-only constructor,
guarantee, release), the noise laws of Output (CMS11) and Obj-Gauss (KST12), convergence to ŵ at a
huge ε, invalid calibrations, and the per-record protocol against the exact fast sampler.

Tolerances are 4 standard errors from the number of fits; fixed seeds."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlib.erm.calibration import obj_gauss_calibration, output_calibration, safe_input_calibration
from privlib.erm.datasets import synthetic_records, synthetic_sums
from privlib.erm.losses import QuadraticSums, make_loss
from privlib.core.mechanism import Mechanism
from privlib.erm.mechanisms import (
    MECHANISMS,
    METHOD_LABELS,
    METHODS,
    FitResult,
    InputPerturbationAsymptotic,
    InputPerturbationSafe,
    NonPrivate,
    ObjectiveGaussian,
    OutputPerturbation,
    check_methods,
    make_mechanism,
)

SQUARED = make_loss("squared")


def toy_sums(n, d=4, seed=0):
    """Sums with a well-conditioned S = n·diag(…) and a b whose minimiser lies well inside R = 100."""
    rng = np.random.default_rng(seed)
    S = n * np.diag(np.linspace(0.1, 0.4, d))
    b = n * rng.uniform(-0.2, 0.2, d)
    return QuadraticSums(S=S, b_sum=b, c_sum=float(n), n=n)


def fit(method, sums, loss, epsilon, delta, rng=None, inflate=1.0, records=None):
    """One release of ``method`` at (ε, δ) (each given only to the classes that take it)."""
    return make_mechanism(method, epsilon=epsilon, delta=delta, inflate=inflate).release(sums, loss, rng, records)


def test_api_names():
    assert METHODS == ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic")
    assert set(METHOD_LABELS) == set(METHODS)
    assert [cls.name for cls in MECHANISMS.values()] == list(METHODS)
    assert all(issubclass(cls, Mechanism) for cls in MECHANISMS.values())
    assert check_methods("output, obj_gauss,output") == ("output", "obj_gauss")
    assert check_methods([ObjectiveGaussian, "non_private"]) == ("obj_gauss", "non_private")
    with pytest.raises(ValueError, match="Unknown method"):
        check_methods(["lasso"])


def test_constructors_validate_once_and_state_the_guarantee():
    assert NonPrivate().guarantee.kind == "none" and not NonPrivate().guarantee.is_private
    with pytest.raises(TypeError):
        NonPrivate(epsilon=1.0)  # the reference takes no ε at all
    with pytest.raises(TypeError):
        OutputPerturbation(1.0)  # keyword-only
    out = OutputPerturbation(epsilon=2.0)
    assert out.guarantee.kind == "pure-dp" and out.guarantee.epsilon == 2.0 and out.delta is None
    assert "replacing one record" in out.guarantee.neighbours
    obj = ObjectiveGaussian(epsilon=1.0, delta=1e-6)
    assert obj.guarantee.kind == "approximate-dp" and (obj.guarantee.epsilon, obj.guarantee.delta) == (1.0, 1e-6)
    safe = InputPerturbationSafe(epsilon=1.0, delta=1e-6, inflate=3.0)
    assert safe.guarantee.kind == "approximate-dp" and safe.parameters == {"inflate": 3.0}
    assert "honestly perturbed" in str(safe.guarantee)
    asym = InputPerturbationAsymptotic(epsilon=1.0, delta=1e-6)
    assert asym.guarantee.kind == "none" and "no guarantee" in str(asym.guarantee)
    for cls in (ObjectiveGaussian, InputPerturbationSafe, InputPerturbationAsymptotic):
        with pytest.raises(ValueError, match="delta"):
            cls(epsilon=1.0, delta=None)  # δ enters the calibration: required
    with pytest.raises(ValueError, match="epsilon"):
        OutputPerturbation(epsilon=0.0)
    with pytest.raises(ValueError, match="inflate"):
        InputPerturbationSafe(epsilon=1.0, delta=1e-6, inflate=0.5)
    assert safe.describe()["parameters"]["inflate"]["low"] == 1.0
    assert make_mechanism("non_private", epsilon=1.0, delta=1e-6).epsilon is None  # a sweep's ε is not passed on
    assert make_mechanism("output", epsilon=1.0, delta=1e-6).delta is None


def test_local_guarantee_of_input_perturbation_is_the_calibration_s():
    """The reference row n = 1000, ε = 1, δ = 1e-5, d = 10: ε_L = 231.85 (exact, BW18); invalid at n = 353."""
    safe = InputPerturbationSafe(epsilon=1.0, delta=1e-5)
    local = safe.local_guarantee(1000, 10, SQUARED)
    assert local.kind == "local-dp" and local.epsilon == pytest.approx(231.85, abs=0.01) and local.delta == 1e-5
    assert safe.local_guarantee(353, 10, SQUARED) is None


def test_output_noise_radius_through_fit():
    """With R = 100 nothing is projected: w − w_Λ is CMS11's noise, density ∝ exp(−‖b‖/scale) with
    scale = 2ζ/(nΛε): radius Gamma(d, scale) (mean d·scale, variance d·scale²), uniform direction."""
    loss = make_loss("squared", R=100.0)
    sums = toy_sums(200_000)
    cal = output_calibration(1.0, sums.n, sums.d, loss.zeta)
    H = sums.S / sums.n + 0.5 * cal.Lambda * np.eye(sums.d)
    w_lam = -np.linalg.solve(H, sums.b_sum / sums.n) / 2
    rng = np.random.default_rng(2)
    mechanism = OutputPerturbation(epsilon=1.0)
    noise = np.array([mechanism.release(sums, loss, rng).w - w_lam for _ in range(4000)])
    radius = np.linalg.norm(noise, axis=1)
    d, scale, draws = sums.d, cal.scale, radius.size
    assert cal.mean_radius == pytest.approx(d * scale)
    assert abs(radius.mean() - cal.mean_radius) < 4 * math.sqrt(d) * scale / math.sqrt(draws)  # Var = d·scale²
    assert abs(radius.var() - d * scale**2) < 4 * d * scale**2 * math.sqrt((6 / d + 2) / draws)
    unit = noise / radius[:, None]
    assert np.all(np.abs(unit.mean(axis=0)) < 4 * math.sqrt(1 / d / draws))  # uniform direction: mean 0


def test_obj_gauss_noise_law():
    """Inside the ball w = −(S/n + Δ/(2n)I)⁻¹(b + g)/(2n), g ~ N(0, β²I): mean and sd of w match."""
    loss = make_loss("squared", R=100.0)
    sums = toy_sums(10**6)
    cal = obj_gauss_calibration(1.0, 1e-6, loss.zeta, loss.lam)
    assert cal.zeta_s == 2 * loss.zeta  # replace-one
    H = sums.S / sums.n + cal.Delta / (2 * sums.n) * np.eye(sums.d)
    mean = -np.linalg.solve(H, sums.b_sum / sums.n) / 2
    sd = cal.beta / (2 * sums.n * np.diag(H))  # H is diagonal
    rng = np.random.default_rng(3)
    W = np.array([fit("obj_gauss", sums, loss, 1.0, 1e-6, rng).w for _ in range(3000)])
    assert np.all(np.abs(W.mean(axis=0) - mean) < 4 * sd / math.sqrt(W.shape[0]))
    assert np.all(np.abs(W.std(axis=0, ddof=1) - sd) < 4 * sd / math.sqrt(2 * (W.shape[0] - 1)))


@pytest.mark.parametrize("method", ["output", "obj_gauss", "input_safe", "input_asymptotic"])
def test_huge_epsilon_approaches_the_non_private_model(method):
    sums = synthetic_sums(SQUARED, 10_000, 10, 5)
    w_hat = fit("non_private", sums, SQUARED, 1.0, 1e-6).w
    w = fit(method, sums, SQUARED, 1e7, 1e-6, np.random.default_rng(4)).w
    assert np.linalg.norm(w - w_hat) < (0.05 if method == "output" else 1e-3)  # Output keeps its ridge Λ ∝ ε^-1/2


def test_non_private_is_least_squares_inside_the_ball():
    X, y = synthetic_records(5000, 6, 8)
    sums = SQUARED.sums(X, y)
    w = fit("non_private", sums, SQUARED, 1.0, 1e-6).w
    np.testing.assert_allclose(w, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-9, atol=1e-12)


def test_every_release_lies_in_the_ball():
    sums = synthetic_sums(SQUARED, 2000, 10, 6)
    rng = np.random.default_rng(7)
    for method in METHODS:
        for _ in range(20):
            result = fit(method, sums, SQUARED, 0.3, 1e-6, rng)
            assert result.w is None or np.linalg.norm(result.w) <= SQUARED.R * (1 + 1e-12)


def test_invalid_safe_calibration_returns_no_model():
    sums = synthetic_sums(SQUARED, 300, 10, 9)
    result = fit("input_safe", sums, SQUARED, 1.0, 1e-6, np.random.default_rng(0))
    assert isinstance(result, FitResult)
    assert result.w is None and not result.valid and result.method == "input_safe"
    assert "invalid" in result.reason and "410" in result.reason  # the smallest valid n at ε = 1, δ = 1e-6
    # the asymptotic match has no validity condition (and no guarantee): it still answers
    assert fit("input_asymptotic", sums, SQUARED, 1.0, 1e-6, np.random.default_rng(0)).valid


def test_per_record_and_fast_routes_agree_in_distribution():
    loss = make_loss("squared")
    n, d, eps, delta = 600, 3, 2.0, 1e-5
    assert safe_input_calibration(eps, delta, n, d).valid
    X, y = synthetic_records(n, d, 10)
    sums = loss.sums(X, y)
    records = (loss.a(X), loss.b(X, y))
    fast_rng, slow_rng = np.random.default_rng(11), np.random.default_rng(12)
    trials = 1500
    fast = np.array([fit("input_safe", sums, loss, eps, delta, fast_rng).w for _ in range(trials)])
    slow = np.array([fit("input_safe", sums, loss, eps, delta, slow_rng, records=records).w for _ in range(trials)])
    se = np.sqrt(fast.var(axis=0, ddof=1) / trials + slow.var(axis=0, ddof=1) / trials)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) < 4 * se)
    for j in range(d):
        assert stats.ks_2samp(fast[:, j], slow[:, j]).pvalue > 0.001
    # and the noise really is there: the spread is far from the non-private point mass
    assert np.all(fast.std(axis=0) > 0.01)


def test_input_errors():
    sums = synthetic_sums(SQUARED, 500, 4, 1)
    with pytest.raises(ValueError, match="Unknown method"):
        fit("ridge", sums, SQUARED, 1.0, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        fit("obj_gauss", sums, SQUARED, 0.0, 1e-6)
    with pytest.raises(ValueError, match="delta"):
        fit("obj_gauss", sums, SQUARED, 1.0, 1.5)
    with pytest.raises(ValueError, match="inflate"):
        fit("input_safe", sums, SQUARED, 1.0, 1e-6, inflate=0.5)
    with pytest.raises(ValueError, match="records"):
        fit("input_safe", sums, SQUARED, 1.0, 1e-6, records=(np.zeros((3, 4)), np.zeros((3, 4))))
