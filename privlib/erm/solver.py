"""The exact minimiser of a quadratic over a ball: min wᵀHw + gᵀw subject to ‖w‖ ≤ R.

Every mechanism of the topic solves this problem: the non-private, objective-perturbation (KST12
Alg. 1), output-perturbation (CMS11 Alg. 1) and input-perturbation (Fukuchi, Tran, Sakuma 2017,
arXiv:1710.07425, Alg. 2, eq. 4) estimators all minimise a quadratic in w over W = {‖w‖ ≤ R}. The
paper used CPLEX; the privacy proofs need the exact minimiser, so we solve the trust-region
subproblem exactly in the eigenbasis of H (our addition, not in the paper):

- H = QΛQᵀ, γ = Qᵀg. The KKT conditions are 2(H + νI)w = −g, ν ≥ 0, ν(R − ‖w‖) = 0, H + νI ⪰ 0,
  so w(ν) = −Q(Λ + νI)⁻¹γ/2 and ‖w(ν)‖² = Σ γ_i²/(4(λ_i + ν)²), decreasing in ν.
- Interior: if H ⪰ 0, g lies in range(H) and the minimum-norm unconstrained minimiser −H⁺g/2 is inside
  the ball, it is the answer (when H is singular this is the minimum-norm one of many minimisers).
- Boundary: otherwise ν > max(0, −λ_min) solves the secular equation 1/‖w(ν)‖ = 1/R (nearly linear
  in ν), found by brentq inside the bracket ‖g‖/(2R) − λ_max ≤ ν ≤ ‖g‖/(2R) − λ_min.
- Hard case (λ_min < 0, g ⟂ its eigenspace, ‖w(−λ_min)‖ < R; More & Sorensen 1983): w(−λ_min) plus
  the multiple of an eigenvector of λ_min that reaches the sphere. It only arises for indefinite H;
  the mechanisms always pass a PSD H.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from privlib.core.validation import check_range

_EPS = np.finfo(float).eps


def _check_problem(H, g):
    H = np.asarray(H, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    if H.ndim != 2 or H.shape[0] != H.shape[1] or g.ndim != 1 or g.shape[0] != H.shape[0] or g.shape[0] < 1:
        raise ValueError(f"H must be a d×d matrix and g a length-d vector, got shapes {H.shape} and {g.shape}.")
    if not (np.isfinite(H).all() and np.isfinite(g).all()):
        raise ValueError("H and g must be finite (no NaN or infinity).")
    scale = np.abs(H).max()
    if np.abs(H - H.T).max() > 1e-10 * scale:
        raise ValueError("H must be symmetric: pass (H + Hᵀ)/2 for the same quadratic form.")
    return H, g


def minimise_in_ball(H, g, R) -> np.ndarray:
    """argmin_{‖w‖ ≤ R} wᵀHw + gᵀw for a symmetric d×d matrix H (PSD in every mechanism), exactly.

    Eigendecompose H; return the minimum-norm unconstrained minimiser −H⁺g/2 when H ⪰ 0, g ∈ range(H)
    and it lies in the ball; else brentq on the secular equation 1/‖(H + νI)⁻¹g/2‖ = 1/R for ν ≥ 0; hard
    case (indefinite H, g ⟂ the bottom eigenspace) as in More & Sorensen (1983). Eigenvalues within
    10·d·eps·‖H‖ of 0 and components of g within 10·d·eps·‖g‖ of 0 count as zero. The boundary answer is
    scaled to norm exactly R. Our addition, not in the paper (which used CPLEX).
    """
    H, g = _check_problem(H, g)
    R = check_range(R, "R (the radius of the ball ‖w‖ ≤ R)", low=0.0, low_inclusive=False)
    d = g.shape[0]
    lam, Q = np.linalg.eigh((H + H.T) * 0.5)
    gam = g @ Q
    tol_lam = 10.0 * d * _EPS * max(abs(lam[0]), abs(lam[-1]))
    tol_gam = 10.0 * d * _EPS * math.sqrt(float(g @ g))
    lam[np.abs(lam) <= tol_lam] = 0.0
    gam[np.abs(gam) <= tol_gam] = 0.0
    lam_min = float(lam[0])
    bottom = lam <= lam_min + tol_lam
    active = gam != 0.0
    c = 0.5 * gam[active]
    lam_a = lam[active]

    if lam_min >= 0.0 and not np.any(active & (lam == 0.0)):
        # g ∈ range(H): the minimum-norm unconstrained minimiser, if it lies in the ball.
        coef = -c / lam_a
        if float(coef @ coef) <= R * R:
            return Q[:, active] @ coef
    elif lam_min < 0.0 and not np.any(active & bottom):
        # Hard case candidate: ν = −λ_min, the bottom eigenspace absorbs the rest of the radius.
        coef = -c / (lam_a - lam_min)
        norm_sq = float(coef @ coef)
        if norm_sq <= R * R:
            w = Q[:, active] @ coef
            return w + math.sqrt(R * R - norm_sq) * Q[:, int(np.argmax(bottom))]

    # Boundary: 1/‖w(ν)‖ − 1/R = 0, increasing in ν on (max(0, −λ_min), ∞).
    inv_R = 1.0 / R
    g_norm = math.sqrt(float(c @ c)) * 2.0
    nu_floor = max(0.0, -lam_min)
    low = max(nu_floor, g_norm / (2.0 * R) - float(lam[-1]))
    high = max(g_norm / (2.0 * R) - lam_min, low)

    def secular(nu):
        t = c / (lam_a + nu)
        return 1.0 / math.sqrt(float(t @ t)) - inv_R

    with np.errstate(divide="ignore"):  # at ν = −λ_min the norm is infinite: 1/‖w‖ = 0
        f_low = secular(low)
        if not f_low < 0.0:
            nu = low
        elif secular(high) <= 0.0:
            nu = high
        else:
            nu = brentq(secular, low, high, xtol=4 * _EPS * max(high, 1e-300), rtol=4 * _EPS, maxiter=200)
    coef = -c / (lam_a + nu)
    w = Q[:, active] @ coef
    return w * (R / math.sqrt(float(w @ w)))
