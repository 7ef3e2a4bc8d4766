"""Noise calibration for private ERM: objective, input and output perturbation, and their accountants.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425 (the paper); KST12 = Kifer, Smith, Thakurta (2012), "Private
convex empirical risk minimization and high-dimensional regression", COLT, Alg. 1; CMS11 = Chaudhuri,
Monteleoni, Sarwate (2011), "Differentially private empirical risk minimization", JMLR, Alg. 1 (output
perturbation); BW18 = Balle & Wang (2018), analytic Gaussian mechanism.

Neighbouring datasets replace one record (``NEIGHBOURS``), for every mechanism; with ζ the gradient
bound of one record, one record then moves the gradient sum by at most ζ_s = 2ζ.

- ``obj_gauss_calibration``: KST12 Alg. 1 (Obj-Gauss), Δ = 2λ/ε and β² = ζ_s²(8 ln(2/δ) + 4ε)/ε².
- ``safe_input_calibration``: σ_a, σ_b that make input perturbation (ε, δ)-DP for the released
  minimiser at any data, with δ split in thirds (our addition, not in the paper: the paper's σ
  formulas are lost). ``input_accountant`` is its privacy accountant for any σ_a, σ_b.
- ``asymptotic_input_calibration``: matching input to objective perturbation as n → ∞
  (reconstructed from the paper's prose). For teaching only: NOT a guarantee.
- ``local_guarantee``: the per-contributor guarantee (the paper's Cor. 1), exact via BW18 (our addition).
- ``output_calibration``: CMS11 output perturbation, pure ε-DP.
- ``calibrate`` and ``privacy_meters``: everything shown for one n, and the two meters over many n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from privlib.core.calibration import analytic_gaussian_epsilon
from privlib.core.validation import check_delta, check_epsilon, check_positive_int, check_range, shown

#: The neighbouring relation of every mechanism here: the paper's Def. 1 ("differ in at most one
#: element") read as replacing one record.
NEIGHBOURS = "replace-one"

ROUTES = ("safe", "asymptotic")


def _finite_or_none(value):
    """A float for JSON, None for NaN or ±inf (strict JSON has neither)."""
    value = float(value)
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------------------------- checks

def count_text(n: int) -> str:
    """A count for a message: 1,000 with separators, 1e+100 from 10¹⁵ on, or its number of digits beyond
    float64 (a 401-digit d is never repeated in full)."""
    if n < 10**15:
        return f"{n:,}"
    if n < 10**300:
        return f"{float(n):.3g}"
    return f"a number of {len(str(n)) if n.bit_length() < 14_000 else int(n.bit_length() * 0.30103) + 1:,} digits"

def _check_n(n) -> int:
    return check_positive_int(n, "n (the agreed lower bound on the number of records)")


def _check_d(d) -> int:
    return check_positive_int(d, "d (the dimension of w)")


#: The largest R, A or B accepted: ζ = 2RA² + B and its square stay finite in float64 (1e50³ = 1e150, squared
#: 1e300). Features are scaled into the unit ball, so usual values are about 1.
GEOMETRY_MAX = 1e50


def _check_geometry(R, A, B) -> tuple[float, float, float]:
    R = check_range(R, "R (the radius of the parameter ball ‖w‖ ≤ R)", low=0.0, low_inclusive=False,
                    high=GEOMETRY_MAX)
    A = check_range(A, "A (the public bound on ‖a(z)‖)", low=0.0, low_inclusive=False, high=GEOMETRY_MAX)
    B = check_range(B, "B (the public bound on ‖b(z)‖)", low=0.0, high=GEOMETRY_MAX)
    return R, A, B


def _check_inflate(inflate) -> float:
    return check_range(inflate, "inflate m (the factor on both noise variances; 1 = calibrated noise)", low=1.0,
                       high=GEOMETRY_MAX)


def _check_sigma(sigma, name: str) -> float:
    return check_range(sigma, f"{name} (a noise standard deviation)", low=0.0, low_inclusive=False)


# ------------------------------------------------------------------------------------------ KST12

@dataclass(frozen=True)
class ObjGaussCalibration:
    """KST12 Alg. 1 (Obj-Gauss): w = argmin_{‖w‖≤R} J(w) + (Δ/(2n))‖w‖² + gᵀw/n, g ~ N(0, β²I_d).

    Δ = 2λ/ε (the smallest ridge KST12 allows) and β² = ζ_s²(8 ln(2/δ) + 4ε)/ε²; ``beta`` is the
    standard deviation β. ζ_s = 2ζ under replace-one neighbours, ζ under add/remove.
    """

    epsilon: float
    delta: float
    zeta: float
    lam: float
    zeta_s: float
    Delta: float
    beta: float

    def to_dict(self) -> dict:
        return {"Delta": self.Delta, "beta": self.beta, "zeta_s": self.zeta_s}


def obj_gauss_calibration(epsilon, delta, zeta, lam, replace_one=True) -> ObjGaussCalibration:
    """KST12 Alg. 1: Δ = 2λ/ε, β² = ζ_s²(8 ln(2/δ) + 4ε)/ε², ζ_s = 2ζ (replace-one) or ζ (add/remove).

    KST12 is usually restated for add/remove neighbours (ζ_s = ζ); under replace-one one record moves
    the gradient sum by up to 2ζ, and plugging in ζ would prove only (1.5ε, δ) (our addition).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    zeta = check_range(zeta, "zeta (the bound on one record's gradient norm)", low=0.0, low_inclusive=False)
    lam = check_range(lam, "lam (the bound on one record's Hessian eigenvalues)", low=0.0)
    zeta_s = 2.0 * zeta if replace_one else zeta
    squared = epsilon * epsilon
    if 0.0 < squared < math.inf:
        beta = math.sqrt(zeta_s**2 * (8.0 * math.log(2.0 / delta) + 4.0 * epsilon) / squared)
    else:  # ε² under- or overflows at the ends of ε's range: the same β without squaring ε
        beta = zeta_s * math.sqrt(8.0 * math.log(2.0 / delta) + 4.0 * epsilon) / epsilon
    Delta = 2.0 * lam / epsilon
    if not (math.isfinite(beta) and math.isfinite(Delta)):
        raise ValueError(f"Obj-Gauss's noise cannot be represented at ε = {epsilon:g} (its standard deviation "
                         "would overflow): use a larger ε or smaller loss bounds.")
    return ObjGaussCalibration(epsilon=epsilon, delta=delta, zeta=zeta, lam=lam, zeta_s=zeta_s,
                               Delta=Delta, beta=beta)


def obj_gauss_epsilon(beta, delta, zeta_s) -> float:
    """The ε that KST12's β² = ζ_s²(8 ln(2/δ) + 4ε)/ε² gives, solved for ε:

    ε = [2ζ_s² + √(4ζ_s⁴ + 8β²ζ_s² ln(2/δ))]/β²  (the positive root of β²ε² − 4ζ_s²ε − 8ζ_s² ln(2/δ) = 0).
    """
    beta = _check_sigma(beta, "beta")
    delta = check_delta(delta)
    zeta_s = check_range(zeta_s, "zeta_s (the change of the gradient sum by one record)", low=0.0,
                         low_inclusive=False)
    z2 = zeta_s**2
    return (2.0 * z2 + math.sqrt(4.0 * z2**2 + 8.0 * beta**2 * z2 * math.log(2.0 / delta))) / beta**2


# ------------------------------------------------------------------------------- input perturbation

def _log3(delta):
    delta = np.asarray(delta, dtype=np.float64)
    with np.errstate(over="ignore"):
        ratio = 3.0 / delta
    # 3/δ overflows for δ below ~3e-308: ln 3 − ln δ is the same number without the overflow
    return np.where(np.isfinite(ratio), np.log(np.where(np.isfinite(ratio), ratio, 1.0)), math.log(3.0) - np.log(delta))


def _r(d, delta):
    """Laurent–Massart: ‖η‖ ≤ σ_a r w.p. ≥ 1 − δ/3 for η ~ N(0, σ_a²I_d), r = √(d + 2√(d L₃) + 2L₃)."""
    L3 = _log3(delta)
    return np.sqrt(d + 2.0 * np.sqrt(d * L3) + 2.0 * L3)


def _s(n, d, delta):
    """Davidson–Szarek: λ_min(Wishart_d(m, σ_a²I)) ≥ σ_a²s² w.p. ≥ 1 − δ/3 with m = n − 1 − d,
    s = √m − √d − √(2L₃) (negative, hence no bound, when m is too small)."""
    m = np.maximum(np.asarray(n, dtype=np.float64) - 1.0 - d, 0.0)
    return np.sqrt(m) - math.sqrt(d) - np.sqrt(2.0 * _log3(delta))


def _t3(d, delta) -> float:
    """t₃ = √(χ²_k.isf(δ/3)), k = min(3, d): ‖P_V g‖/√(nσ_b²) ≤ t₃ w.p. ≥ 1 − δ/3 for a fixed
    subspace V of dimension k."""
    return float(np.sqrt(special.chdtri(min(3, d), delta / 3.0)))  # chdtri = chi2.isf, without importing scipy.stats


def _G(sigma_a, r, R, A, B):
    """G = 4RA² + 8RAσ_a r + 2B: the bound on the change of the gradient of the noisy objective when one
    record is replaced (same noise η on the record; the ηηᵀ terms cancel)."""
    return 4.0 * R * A**2 + 8.0 * R * A * sigma_a * r + 2.0 * B


def _accountant(sigma_a, sigma_b, n, d, R, A, B, delta):
    """Vectorised accountant: (ε_model, ε_jacobian, ε_noise) as arrays; see ``input_accountant``."""
    sigma_a = np.asarray(sigma_a, dtype=np.float64)
    sigma_b = np.asarray(sigma_b, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    r = _r(d, delta)
    s = _s(n, d, delta)
    t3 = _t3(d, delta)
    A_tilde = A + sigma_a * r
    with np.errstate(divide="ignore", invalid="ignore"):
        jac = np.where(s > 0, np.log1p(A_tilde**2 / (sigma_a**2 * np.where(s > 0, s, 1.0) ** 2)), np.inf)
        z = _G(sigma_a, r, R, A, B) / (sigma_b * np.sqrt(n))
    noise = z**2 / 2.0 + z * t3
    return jac + noise, jac, noise


def input_accountant(sigma_a, sigma_b, n, d, R, A, B, delta) -> tuple[float, float, float]:
    """(ε_model, ε_jacobian, ε_noise) of input perturbation with noise σ_a on a and σ_b on b, n records.

    Our addition, not in the paper (its Thm 1 conditions and σ formulas are lost). Replace-one
    neighbours; the total δ is split in thirds (‖η_k‖ ≤ σ_a r, the Wishart bound with s, and the χ²
    bound t₃ on the linear noise):

        ε_jacobian = ln(1 + Ã²/(σ_a² s²)),  Ã = A + σ_a r,
        ε_noise = z²/2 + z t₃,  z = G/(σ_b √n),  G = 4RA² + 8RAσ_a r + 2B,

    with r, s, t₃ as in ``safe_input_calibration``. ε_jacobian is inf when s ≤ 0 (n too small for
    the Wishart bound). Sketch: conditionally on all η, w_in is KST12's Obj-Gauss on the records
    (ã_i, b_i) with linear noise Σξ and no ridge; the Jacobian ratio is ≤ 1 + Ã²/λ_min(Σ_{i≠k} ã_iã_iᵀ),
    and the linear noise's privacy loss is ≤ z²/2 + z‖P_V g‖/√(nσ_b²) with V the (≤ 3)-dimensional
    span of ã_k, ã'_k, b_k − b'_k.
    """
    sigma_a = _check_sigma(sigma_a, "sigma_a")
    sigma_b = _check_sigma(sigma_b, "sigma_b")
    n = _check_n(n)
    d = _check_d(d)
    R, A, B = _check_geometry(R, A, B)
    delta = check_delta(delta)
    total, jac, noise = _accountant(sigma_a, sigma_b, n, d, R, A, B, delta)
    return float(total), float(jac), float(noise)


def _min_epsilon(n, d, delta):
    """The smallest ε (exclusive) at which s√(ε/2) > r: 2(r/s)², inf when s ≤ 0."""
    r = _r(d, delta)
    s = _s(n, d, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, 2.0 * (r / np.where(s > 0, s, 1.0)) ** 2, np.inf)


def _is_valid(epsilon, n, d, delta):
    s = _s(n, d, delta)
    return (s > 0) & (s * np.sqrt(epsilon / 2.0) > _r(d, delta))


#: Above this many records the rounding guard of `_smallest_valid_n` stops: float64 no longer tells n from n − 1
#: (2⁵³), so the closed form is the answer.
EXACT_COUNT = 2**53


def _smallest_valid_n(epsilon, delta, d) -> int:
    target = float(_r(d, delta)) / math.sqrt(epsilon / 2.0) + math.sqrt(d) + math.sqrt(2.0 * float(_log3(delta)))
    # A tiny ε (or a huge d) makes target² overflow: no count of records that float64 can carry would do.
    bound = target * target + 1.0 + d if target < 1e150 else math.inf
    if not math.isfinite(bound):
        raise ValueError(f"The safe input calibration would need more than 1e300 records at ε = {epsilon:g}, "
                         f"d = {shown(d)}: use a larger ε or a smaller d.")
    n = max(math.floor(bound) + 1, 1)  # √(n − 1 − d) > target
    if n > EXACT_COUNT:
        return n
    while n > 1 and _is_valid(epsilon, n - 1, d, delta):  # guard against rounding of the closed form
        n -= 1
    while not _is_valid(epsilon, n, d, delta):
        n += 1
    return n


def smallest_valid_n(epsilon, delta, d, A=1.0) -> int:
    """The smallest n at which the safe input calibration exists: s√(ε/2) > r, i.e.

    n > (r/√(ε/2) + √d + √(2 ln(3/δ)))² + 1 + d. Independent of A (σ_a scales with A). Our addition,
    not in the paper. 410 at ε = 1, δ = 1e-6, d = 10.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = _check_d(d)
    check_range(A, "A (the public bound on ‖a(z)‖)", low=0.0, low_inclusive=False)
    return _smallest_valid_n(epsilon, delta, d)


@dataclass(frozen=True)
class InputCalibration:
    """The noise of input perturbation (paper Alg. 1: ã = a + N(0, σ_a²I), b̃ = b + N(0, σ_b²I)).

    ``route`` "safe" (a proven (ε, δ)-DP calibration, our addition) or "asymptotic" (the paper's
    infinite-n match, reconstructed from the paper's prose: never a guarantee). ``sigma_a``,
    ``sigma_b`` are standard deviations, already multiplied by √inflate; NaN when invalid.
    ``epsilon_model`` etc. are the accountant at those σ's. ``min_epsilon`` is the smallest ε that
    makes the safe calibration valid at this n, ``min_n`` the smallest valid n at this ε.
    """

    route: str
    epsilon: float
    delta: float
    n: int
    d: int
    R: float
    A: float
    B: float
    inflate: float
    valid: bool
    guaranteed: bool
    sigma_a: float
    sigma_b: float
    r: float
    s: float
    G: float
    t3: float
    epsilon_model: float
    epsilon_jacobian: float
    epsilon_noise: float
    min_epsilon: float
    min_n: int
    reason: str

    def to_dict(self) -> dict:
        """JSON-ready; NaN and infinite numbers become None."""
        return {"valid": self.valid, "sigma_a": _finite_or_none(self.sigma_a),
                "sigma_b": _finite_or_none(self.sigma_b), "r": _finite_or_none(self.r), "s": _finite_or_none(self.s),
                "G": _finite_or_none(self.G), "epsilon_model": _finite_or_none(self.epsilon_model),
                "epsilon_jacobian": _finite_or_none(self.epsilon_jacobian),
                "epsilon_noise": _finite_or_none(self.epsilon_noise), "route": self.route,
                "guaranteed": self.guaranteed, "inflate": self.inflate,
                "min_epsilon": _finite_or_none(self.min_epsilon), "min_n": self.min_n, "reason": self.reason}


def _check_input_args(epsilon, delta, n, d, R, A, B, inflate):
    return (check_epsilon(epsilon), check_delta(delta), _check_n(n), _check_d(d), *_check_geometry(R, A, B),
            _check_inflate(inflate))


def _input_calibration(route, epsilon, delta, n, d, R, A, B, inflate, sigma_a, sigma_b, valid, reason):
    r = float(_r(d, delta))
    s = float(_s(n, d, delta))
    if valid:
        sigma_a *= math.sqrt(inflate)
        sigma_b *= math.sqrt(inflate)
        total, jac, noise = (float(v) for v in _accountant(sigma_a, sigma_b, n, d, R, A, B, delta))
        G = float(_G(sigma_a, r, R, A, B))
    else:
        sigma_a = sigma_b = total = jac = noise = G = math.nan
    return InputCalibration(
        route=route, epsilon=epsilon, delta=delta, n=n, d=d, R=R, A=A, B=B, inflate=inflate, valid=valid,
        guaranteed=bool(valid and route == "safe"), sigma_a=sigma_a, sigma_b=sigma_b, r=r, s=s, G=G,
        t3=_t3(d, delta), epsilon_model=total, epsilon_jacobian=jac, epsilon_noise=noise,
        min_epsilon=float(_min_epsilon(n, d, delta)), min_n=_smallest_valid_n(epsilon, delta, d), reason=reason)


def safe_input_calibration(epsilon, delta, n, d, R=1.0, A=1.0, B=2.0, inflate=1.0) -> InputCalibration:
    """σ_a, σ_b that make w_in = argmin_{‖w‖≤R} (1/n)Σ[(wᵀã_i)² + b̃_iᵀw] (ε, δ)-DP, replace-one.

    Our addition, not in the paper (its σ formulas, Cor. 2–3, are lost). n is the agreed lower bound on
    the number of honestly perturbed records; L₃ = ln(3/δ) (δ split in thirds):

    - r = √(d + 2√(d L₃) + 2L₃) (Laurent–Massart: ‖η‖ ≤ σ_a r w.p. ≥ 1 − δ/3);
    - s = √(n−1−d) − √d − √(2L₃) (Davidson–Szarek: λ_min(Wishart_d(n−1−d, σ_a²I)) ≥ σ_a²s² w.p. ≥ 1 − δ/3);
    - valid iff s√(ε/2) > r; then σ_a = A/(s√(ε/2) − r), so that ln(1 + Ã²/(σ_a²s²)) = ln(1 + ε/2);
    - G = 4RA² + 8RAσ_a r + 2B, t₃ = √(χ²_{min(3,d)}.isf(δ/3)), z* = √(t₃² + ε) − t₃ (z²/2 + z t₃ = ε/2),
      σ_b = G/(z*√n).

    Then ε_model = ln(1 + ε/2) + ε/2 ≤ ε. The proof needs at least n records perturbed exactly this way
    (n counts honest records, not records received) and the exact minimiser over the ball. With
    ``inflate`` m both variances are multiplied by m (σ's by √m) and ε_model is recomputed by
    ``input_accountant``. When invalid the σ's are NaN and ``reason`` says which ε or n is needed:
    there is no fallback.
    """
    epsilon, delta, n, d, R, A, B, inflate = _check_input_args(epsilon, delta, n, d, R, A, B, inflate)
    r = float(_r(d, delta))
    s = float(_s(n, d, delta))
    valid = bool(_is_valid(epsilon, n, d, delta))
    if not valid:
        min_eps = float(_min_epsilon(n, d, delta))
        need_eps = f"ε > {min_eps:.5g}" if math.isfinite(min_eps) else "more records at any ε"
        reason = (f"The safe input calibration is invalid at n = {n:,}, ε = {epsilon:g}, δ = {delta:g}, d = {d}: "
                  f"it needs {need_eps} at this n, or n ≥ {_smallest_valid_n(epsilon, delta, d):,} at this ε.")
        return _input_calibration("safe", epsilon, delta, n, d, R, A, B, inflate, math.nan, math.nan, False, reason)
    sigma_a = A / (s * math.sqrt(epsilon / 2.0) - r)
    G = float(_G(sigma_a, r, R, A, B))
    t3 = _t3(d, delta)
    z_star = epsilon / (math.sqrt(t3**2 + epsilon) + t3)  # = √(t₃² + ε) − t₃ without cancellation
    sigma_b = G / (z_star * math.sqrt(n))
    return _input_calibration("safe", epsilon, delta, n, d, R, A, B, inflate, sigma_a, sigma_b, True, "")


def asymptotic_input_calibration(epsilon, delta, n, d, R=1.0, A=1.0, B=2.0, inflate=1.0) -> InputCalibration:
    """The paper's infinite-n match to KST12 (eq. 5, reconstructed from the paper's prose): NOT a guarantee.

    Σξ_i ~ N(0, nσ_b²I) is KST12's linear term, so σ_b² = β²/n (KST12's β with ζ_s = 2ζ, ζ = 2RA² + B);
    (1/n)Σηηᵀ → σ_a²I acts as KST12's ridge Δ/(2n) with Δ = 2λ/ε, λ = 2A², so σ_a² = λ/(nε). Always
    ``valid`` but ``guaranteed`` is False; the accountant fields show what the safe proof gives at these σ's
    (inf when n is too small for it).
    """
    epsilon, delta, n, d, R, A, B, inflate = _check_input_args(epsilon, delta, n, d, R, A, B, inflate)
    kst = obj_gauss_calibration(epsilon, delta, zeta=2.0 * R * A**2 + B, lam=2.0 * A**2, replace_one=True)
    sigma_b = kst.beta / math.sqrt(n)
    sigma_a = math.sqrt(kst.lam / (n * epsilon))
    return _input_calibration("asymptotic", epsilon, delta, n, d, R, A, B, inflate, sigma_a, sigma_b, True, "")


# --------------------------------------------------------------------------------- local guarantee

@dataclass(frozen=True)
class LocalGuarantee:
    """One contributor's (ε_L, δ_L)-DLP (the paper's Def. 2 and Cor. 1), exact via BW18 (our addition).

    The release (a + η, b + ξ) is a Gaussian mechanism with ‖Δa‖ ≤ 2A, ‖Δb‖ ≤ 2B, so it is μ-GDP with
    μ = √((2A/σ_a)² + (2B/σ_b)²). ``epsilon_L_classic`` = √(2 ln(1.25/δ_L))·μ (Dwork & Roth Thm A.1),
    valid only when it is below 1 (``classic_valid``).
    """

    mu: float
    epsilon_L: float
    epsilon_L_classic: float
    delta_L: float
    classic_valid: bool

    def to_dict(self) -> dict:
        return {"mu": self.mu, "epsilon_L": self.epsilon_L, "epsilon_L_classic": self.epsilon_L_classic,
                "classic_valid": self.classic_valid, "delta_L": self.delta_L}


def local_guarantee(sigma_a, sigma_b, A, B, delta_L) -> LocalGuarantee:
    """μ_L = √((2A/σ_a)² + (2B/σ_b)²) and ε_L = the BW18 analytic-Gaussian ε at (μ_L, δ_L).

    ε_L is the root of Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ_L, solved in log space (0 if already
    below δ_L at ε = 0). The paper's Cor. 1 (ε_L growing with n) used the classic formula; exactly,
    ε_L ≈ μ_L²/2 ∝ nε. Our addition, not in the paper.
    """
    sigma_a = _check_sigma(sigma_a, "sigma_a")
    sigma_b = _check_sigma(sigma_b, "sigma_b")
    A = check_range(A, "A (the public bound on ‖a(z)‖)", low=0.0, low_inclusive=False)
    B = check_range(B, "B (the public bound on ‖b(z)‖)", low=0.0)
    delta_L = check_delta(delta_L)
    mu = math.hypot(2.0 * A / sigma_a, 2.0 * B / sigma_b)
    classic = math.sqrt(2.0 * math.log(1.25 / delta_L)) * mu
    return LocalGuarantee(mu=mu, epsilon_L=analytic_gaussian_epsilon(mu, delta_L), epsilon_L_classic=classic,
                          delta_L=delta_L, classic_valid=bool(classic < 1.0))


# --------------------------------------------------------------------------------------- CMS11

@dataclass(frozen=True)
class OutputCalibration:
    """CMS11 Alg. 1 (output perturbation): release w_Λ + b, b with density ∝ exp(−‖b‖/scale).

    ‖b‖ ~ Gamma(shape d, scale) with scale = 2ζ/(nΛε), direction uniform; mean radius d·scale.
    Pure ε-DP under replace-one (sensitivity 2ζ/(nΛ) of the Λ-regularised minimiser).
    """

    epsilon: float
    n: int
    d: int
    zeta: float
    Lambda: float
    scale: float
    mean_radius: float

    def to_dict(self) -> dict:
        return {"Lambda": self.Lambda, "scale": self.scale, "mean_radius": self.mean_radius}


def output_calibration(epsilon, n, d, zeta, Lambda=None) -> OutputCalibration:
    """CMS11: scale = 2ζ/(nΛε), mean radius d·scale. Default Λ = √(2ζd/(nε)), a public rule that balances
    the ridge bias ~Λ against the noise ~d·2ζ/(nΛε) (our addition, not in the paper: the paper tuned
    Λ non-privately)."""
    epsilon = check_epsilon(epsilon)
    n = _check_n(n)
    d = _check_d(d)
    zeta = check_range(zeta, "zeta (the bound on one record's gradient norm)", low=0.0, low_inclusive=False)
    if Lambda is None:
        Lambda = math.sqrt(2.0 * zeta * d / (n * epsilon))
    Lambda = check_range(Lambda, "Lambda (the ridge of output perturbation; it must be > 0)", low=0.0,
                         low_inclusive=False)
    scale = 2.0 * zeta / (n * Lambda * epsilon)
    return OutputCalibration(epsilon=epsilon, n=n, d=d, zeta=zeta, Lambda=Lambda, scale=scale, mean_radius=d * scale)


# ------------------------------------------------------------------------------------- together

@dataclass(frozen=True)
class ErmCalibration:
    """Everything shown for one n: Obj-Gauss, the input route, its local guarantee (None when the route
    is invalid) and output perturbation."""

    obj_gauss: ObjGaussCalibration
    input: InputCalibration
    local: LocalGuarantee | None
    output: OutputCalibration

    def to_dict(self) -> dict:
        return {"obj_gauss": self.obj_gauss.to_dict(), "input": self.input.to_dict(),
                "local": None if self.local is None else self.local.to_dict(), "output": self.output.to_dict()}


def calibrate(epsilon, delta, n, d, R=1.0, A=1.0, B=2.0, inflate=1.0, route="safe") -> ErmCalibration:
    """All calibrations at (ε, δ, n, d) for the loss bounds R, A, B: ζ = 2RA² + B, λ = 2A², replace-one.

    ``route`` "safe" or "asymptotic" picks the input calibration; the local guarantee uses δ_L = δ and
    that route's σ's. Output perturbation uses the default Λ.
    """
    if route not in ROUTES:
        raise ValueError(f"route must be one of {', '.join(ROUTES)}, got {shown(route)}.")
    epsilon, delta, n, d, R, A, B, inflate = _check_input_args(epsilon, delta, n, d, R, A, B, inflate)
    try:
        return _calibrate(epsilon, delta, n, d, R, A, B, inflate, route)
    except (OverflowError, ZeroDivisionError):
        # a safety net: the checks above keep each input representable, but a combination of extremes may not be
        raise ValueError(f"The noise at ε = {epsilon:g}, n = {count_text(n)}, d = {count_text(d)}, R = {R:g}, A = {A:g}, B = {B:g}, "
                         f"m = {inflate:g} cannot be represented in float64: use values closer to 1.") from None


def _calibrate(epsilon, delta, n, d, R, A, B, inflate, route) -> ErmCalibration:
    zeta = 2.0 * R * A**2 + B
    maker = safe_input_calibration if route == "safe" else asymptotic_input_calibration
    inp = maker(epsilon, delta, n, d, R=R, A=A, B=B, inflate=inflate)
    try:
        local = local_guarantee(inp.sigma_a, inp.sigma_b, A, B, delta) if inp.valid else None
    except ValueError:
        # BW18's root has no float64 answer when the contributor's noise is tiny against her record (μ_L huge):
        # say which input does that, not the root finder's terms.
        raise ValueError(f"The contributor's ε_L cannot be computed at ε = {epsilon:g}, n = {count_text(n)}: her input noise "
                         "is too small against her record (ε_L would be astronomically large); use a smaller ε or "
                         "fewer records n.") from None
    return ErmCalibration(obj_gauss=obj_gauss_calibration(epsilon, delta, zeta, 2.0 * A**2, replace_one=True),
                          input=inp, local=local, output=output_calibration(epsilon, n, d, zeta))


@dataclass(frozen=True, eq=False)
class PrivacyMeters:
    """The two meters over n for the safe input calibration: ε_model (``input_accountant``) and the
    per-contributor ε_L (BW18) and its classic form; NaN where the calibration is invalid."""

    ns: np.ndarray
    epsilon_model: np.ndarray
    epsilon_L: np.ndarray
    epsilon_L_classic: np.ndarray
    valid: np.ndarray

    def to_dict(self) -> dict:
        """JSON-ready lists; NaN becomes None."""
        def values(array):
            return [_finite_or_none(v) for v in array]

        return {"ns": [int(v) for v in self.ns], "epsilon_model": values(self.epsilon_model),
                "epsilon_L": values(self.epsilon_L), "epsilon_L_classic": values(self.epsilon_L_classic),
                "valid": [bool(v) for v in self.valid]}


def privacy_meters(epsilon, delta, ns, d, R=1.0, A=1.0, B=2.0, inflate=1.0) -> PrivacyMeters:
    """ε_model and ε_L (δ_L = δ) of the safe input calibration at each n in ``ns``, with both variances
    multiplied by ``inflate``; vectorised over n except the BW18 root (one brentq per valid n)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = _check_d(d)
    R, A, B = _check_geometry(R, A, B)
    inflate = _check_inflate(inflate)
    ns_list = np.atleast_1d(np.asarray(ns, dtype=object)).tolist()
    if not ns_list or np.ndim(ns) > 1:
        raise ValueError("ns must be a non-empty flat list of record counts.")
    n = np.array([_check_n(v) for v in ns_list], dtype=np.int64)
    valid = _is_valid(epsilon, n, d, delta)
    r = float(_r(d, delta))
    s = _s(n, d, delta)
    t3 = _t3(d, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma_a = np.where(valid, A / (s * math.sqrt(epsilon / 2.0) - r), np.nan)
    z_star = epsilon / (math.sqrt(t3**2 + epsilon) + t3)
    sigma_b = _G(sigma_a, r, R, A, B) / (z_star * np.sqrt(n))
    sigma_a = sigma_a * math.sqrt(inflate)
    sigma_b = sigma_b * math.sqrt(inflate)
    eps_model = np.where(valid, _accountant(sigma_a, sigma_b, n, d, R, A, B, delta)[0], np.nan)
    mu = np.hypot(2.0 * A / sigma_a, 2.0 * B / sigma_b)
    eps_L = np.array([analytic_gaussian_epsilon(float(m), delta) if ok else math.nan for m, ok in zip(mu, valid)])
    classic = np.where(valid, math.sqrt(2.0 * math.log(1.25 / delta)) * mu, np.nan)
    return PrivacyMeters(ns=n, epsilon_model=eps_model, epsilon_L=eps_L, epsilon_L_classic=classic,
                         valid=np.asarray(valid, dtype=bool))
