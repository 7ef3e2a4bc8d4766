"""The private ERM mechanisms: each returns a w in the ball W = {‖w‖ ≤ R}, or says why it cannot.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425 (the paper); KST12 = Kifer, Smith, Thakurta (2012), COLT,
Alg. 1; CMS11 = Chaudhuri, Monteleoni, Sarwate (2011), JMLR, Alg. 1 (output perturbation). Every
mechanism sees the records only through the sums S = Σ a aᵀ, b_sum = Σ b, c_sum, n of a quadratic loss,
J(w) = (wᵀSw + b_sumᵀw + c_sum)/n, and solves min wᵀHw + gᵀw over ‖w‖ ≤ R exactly
(``solver.minimise_in_ball``). Neighbours replace one record, for every mechanism.

- ``non_private``: ŵ = argmin_{‖w‖≤R} J(w) (paper §3.1): H = S/n, g = b_sum/n.
- ``output`` (CMS11 Alg. 1): w_Λ = argmin_{‖w‖≤R} J(w) + (Λ/2)‖w‖² (H = S/n + (Λ/2)I), released as
  w_Λ + b with ‖b‖ ~ Gamma(shape d, scale 2ζ/(nΛε)) and a uniform direction: pure ε-DP, Λ from
  ``calibration.output_calibration`` (default Λ = √(2ζd/(nε)), our public rule). The result is then
  projected onto the ball (w·R/‖w‖ when ‖w‖ > R): post-processing, so still ε-DP (our choice; it keeps
  every released w in W, where J(w) − J(ŵ) ≥ 0).
- ``obj_gauss`` (KST12 Alg. 1): argmin_{‖w‖≤R} J(w) + (Δ/(2n))‖w‖² + gᵀw/n, g ~ N(0, β²I_d), with
  Δ = 2λ/ε and β² = ζ_s²(8 ln(2/δ) + 4ε)/ε², ζ_s = 2ζ (replace-one).
- ``input_safe`` / ``input_asymptotic`` (paper Alg. 1–2, eq. 4): the contributors send
  ã = a + N(0, σ_a²I), b̃ = b + N(0, σ_b²I); the database solves argmin_{‖w‖≤R} wᵀH̃w + g̃ᵀw with
  H̃ = Σ ã ãᵀ/n, g̃ = Σ b̃/n. σ's from ``calibration.safe_input_calibration`` (our addition: a proven
  (ε, δ)-DP calibration; invalid when n is too small, and then no model is returned — never a silent
  fallback) or ``calibration.asymptotic_input_calibration`` (the paper's n → ∞ match, reconstructed
  from its prose: NOT a guarantee). The sums come from ``sampler.exact_noisy_sums`` (same law, O(d³))
  unless the records (a, b) are given, which forces the per-record protocol.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from privlib.core.validation import as_generator, check_delta, check_epsilon, check_range
from privlib.erm.calibration import (
    asymptotic_input_calibration,
    obj_gauss_calibration,
    output_calibration,
    safe_input_calibration,
)
from privlib.erm.losses import QuadraticLoss, QuadraticSums
from privlib.erm.sampler import exact_noisy_sums, per_record_noisy_sums, records_pair
from privlib.erm.solver import minimise_in_ball

METHODS = ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic")
METHOD_LABELS = {"non_private": "Non-private", "output": "Output perturbation (CMS11)",
                 "obj_gauss": "Objective perturbation (Obj-Gauss, KST12)",
                 "input_safe": "Input perturbation (safe calibration)",
                 "input_asymptotic": "Input perturbation (asymptotic match, no guarantee)"}
#: Methods whose noise is set by the input calibration (and scaled by ``inflate``).
INPUT_METHODS = ("input_safe", "input_asymptotic")
#: Whether output perturbation projects its release onto the ball (post-processing).
PROJECT_OUTPUT = True


@dataclass(frozen=True)
class FitResult:
    """One fitted model: ``w`` (None when the calibration is invalid), ``valid`` and, when invalid, the
    ``reason`` in a plain sentence."""

    method: str
    w: np.ndarray | None
    valid: bool
    reason: str


def check_method(method) -> str:
    """``method`` if it is one of ``METHODS``, else a ValueError listing them."""
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}: choose one of {', '.join(METHODS)}.")
    return method


def check_methods(methods) -> tuple[str, ...]:
    """A non-empty tuple of distinct method names (a list or a comma-separated string), order kept."""
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    out: list[str] = []
    for m in methods or ():
        if check_method(m) not in out:
            out.append(m)
    if not out:
        raise ValueError(f"Give at least one method: {', '.join(METHODS)}.")
    return tuple(out)


@lru_cache(maxsize=4096)
def input_calibration(route: str, epsilon: float, delta: float, n: int, d: int, R: float, A: float, B: float,
                      inflate: float):
    """The input calibration of ``route`` ("safe" or "asymptotic"), cached (a sweep asks for the same
    (ε, δ, n) once per trial)."""
    maker = safe_input_calibration if route == "safe" else asymptotic_input_calibration
    return maker(epsilon, delta, n, d, R=R, A=A, B=B, inflate=inflate)


@lru_cache(maxsize=4096)
def _obj_gauss_cal(epsilon: float, delta: float, zeta: float, lam: float):
    return obj_gauss_calibration(epsilon, delta, zeta, lam, replace_one=True)


@lru_cache(maxsize=4096)
def _output_cal(epsilon: float, n: int, d: int, zeta: float):
    return output_calibration(epsilon, n, d, zeta)


def gamma_ball_noise(d: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    """CMS11's noise b with density ∝ exp(−‖b‖/scale): radius ~ Gamma(shape d, scale), direction
    uniform on the sphere (a normalised N(0, I_d) draw). Draws: the direction, then the radius."""
    direction = rng.standard_normal(d)
    direction /= np.linalg.norm(direction)
    return rng.gamma(d, scale) * direction


def project_to_ball(w: np.ndarray, R: float) -> np.ndarray:
    """w·R/‖w‖ when ‖w‖ > R, else w (the Euclidean projection onto the ball)."""
    norm = float(np.linalg.norm(w))
    return w * (R / norm) if norm > R else w


def fit(method: str, sums: QuadraticSums, loss: QuadraticLoss, epsilon: float, delta: float, rng=None,
        inflate: float = 1.0, records=None) -> FitResult:
    """Fit ``method`` (one of ``METHODS``; module docstring for the formulas) on the training sums.

    ``epsilon``, ``delta``: the model's guarantee (``output`` is pure ε-DP and ignores δ;
    ``non_private`` ignores both). ``inflate`` m ≥ 1 multiplies both input-noise variances (input
    methods only). ``records`` = (a, b), the (n, d) arrays of a(z_i), b(z_i), forces the per-record
    route of the input methods (the protocol itself); otherwise their noisy sums are drawn by
    ``sampler.exact_noisy_sums``. The agreed n of the calibration is ``sums.n``. An invalid safe
    calibration gives FitResult(w=None, valid=False, reason=...)."""
    method = check_method(method)
    if not isinstance(sums, QuadraticSums):
        raise ValueError("sums must be a QuadraticSums (loss.sums(X, y)).")
    if not isinstance(loss, QuadraticLoss):
        raise ValueError("loss must be a QuadraticLoss (losses.make_loss).")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    inflate = check_range(inflate, "inflate m (the factor on both input-noise variances)", low=1.0)
    rng = as_generator(rng)
    n, d, R = sums.n, sums.d, loss.R
    if records is not None:
        a, b = records_pair(*records)
        if a.shape != (n, d):
            raise ValueError(f"records must hold the n = {n} records of the sums (shape ({n}, {d})), got {a.shape}.")
    if method == "non_private":
        return FitResult(method, minimise_in_ball(sums.S / n, sums.b_sum / n, R), True, "")
    if method == "output":
        cal = _output_cal(epsilon, n, d, loss.zeta)
        w_lam = minimise_in_ball(sums.S / n + (0.5 * cal.Lambda) * np.eye(d), sums.b_sum / n, R)
        w = w_lam + gamma_ball_noise(d, cal.scale, rng)
        return FitResult(method, project_to_ball(w, R) if PROJECT_OUTPUT else w, True, "")
    if method == "obj_gauss":
        cal = _obj_gauss_cal(epsilon, delta, loss.zeta, loss.lam)
        g = cal.beta * rng.standard_normal(d)
        H = sums.S / n + (cal.Delta / (2.0 * n)) * np.eye(d)
        return FitResult(method, minimise_in_ball(H, (sums.b_sum + g) / n, R), True, "")
    route = "safe" if method == "input_safe" else "asymptotic"
    cal = input_calibration(route, epsilon, delta, n, d, R, loss.A, loss.B, inflate)
    if not cal.valid:
        return FitResult(method, None, False, cal.reason)
    if records is None:
        H, g = exact_noisy_sums(sums, cal.sigma_a, cal.sigma_b, rng)
    else:
        H, g = per_record_noisy_sums(a, b, cal.sigma_a, cal.sigma_b, rng)
    return FitResult(method, minimise_in_ball(H / n, g / n, R), True, "")


__all__ = [
    "INPUT_METHODS",
    "METHODS",
    "METHOD_LABELS",
    "PROJECT_OUTPUT",
    "FitResult",
    "check_method",
    "check_methods",
    "fit",
    "gamma_ball_noise",
    "input_calibration",
    "project_to_ball",
]
