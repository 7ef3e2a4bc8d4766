"""Closed forms for differential privacy with random projections: noise scales, the at-risk rate
P₊ and the at-risk count N₊ of DP-SignRP-RR, flip probabilities, and estimator variances.

Source: Ping Li & Xiaoyun Li, "Differential Privacy with Random Projections and Sign Random
Projections" (section, equation and algorithm numbers are the paper's). Functions take plain
numbers or arrays (never mechanism objects) so that the mechanisms, the charts and the command line
share one implementation. Noise scales of the Gaussian mechanism come from ``privlib.core``.
"""
from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import integrate, special

from privlib.core.calibration import analytic_gaussian_sigma, classical_gaussian_sigma, kenthapadi_gaussian_sigma
from privlib.core.validation import (
    check_delta,
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_probability,
    check_range,
)

SQRT2 = math.sqrt(2.0)
_QUAD_OPTIONS = {"epsabs": 1e-15, "epsrel": 1e-13, "limit": 500}


def _check_r(r) -> float:
    return check_range(r, "r (the ratio beta/m of the adjacency bound to the norm bound)", low=0.0)


def _check_p(p) -> int:
    return check_positive_int(p, "p (the data dimension)")


def _breakpoints(p: int, scale: float = 1.0) -> tuple[float, ...]:
    """Interval ends for quad around sqrt(2 log p): where [2 Phi(t) - 1]^p climbs from 0 to 1."""
    centre = math.sqrt(2.0 * math.log(p)) if p > 1 else 0.0
    low, high = max(0.0, centre - 3.0), centre + 3.0
    upper = max(high + 10.0, 40.0)  # phi(40) underflows: the tail beyond is 0 in float64
    return tuple(scale * x for x in (0.0, low, high, upper))


def _integrate(f, points) -> float:
    total = 0.0
    for a, b in itertools.pairwise(points):
        if b > a:
            total += integrate.quad(f, a, b, **_QUAD_OPTIONS)[0]
    return total


#: Below this r, P₊ is computed as r·√(2/π)·E[maxᵢ|Xᵢ|] (erf(x) = 2x/√π·(1 − x²/3 + …): relative
#: error below r² = 1e-16), so that tiny r never feeds subnormal numbers to the integrator.
SMALL_R = 1e-8


def _p_plus_scalar(r: float, p: int) -> float:
    if r == 0.0:
        return 0.0
    norm = 1.0 / math.sqrt(2.0 * math.pi)
    small = r < SMALL_R

    def integrand(t):
        power = 0.0 if p == 1 else (p - 1) * math.log1p(-math.erfc(t / SQRT2))
        factor = t * math.sqrt(2.0 / math.pi) if small else math.erf(r * t / SQRT2)
        return 2.0 * p * math.exp(power - 0.5 * t * t) * norm * factor

    if small:
        return r * _integrate(integrand, _breakpoints(p))

    return _integrate(integrand, _breakpoints(p))


def p_plus(r, p):
    """P₊(r, p): the probability that one bit of a Gaussian sign random projection is at risk.

    Eq. (26) of §4.2 (Lemma 4.3; the proof drops the 2 of 2Φ − 1, the equation is right):

        P₊(r, p) = ∫₀^∞ 2p·[2Φ(t) − 1]^{p−1}·[2Φ(rt) − 1]·φ(t) dt,

    with r = β/m. [2Φ(t) − 1]^{p−1} is evaluated as exp((p − 1)·log1p(−erfc(t/√2))) so that it
    stays exact for p up to 10⁶ and more, and the integral is split at √(2 log p) ± 3, where that
    factor climbs from 0 to 1 (scipy.integrate.quad on each piece). P₊(0, p) = 0; at p = 1,
    P₊ = (2/π)·atan(r). Vectorised over r (p a whole number ≥ 1); returns a float for a scalar r.
    """
    p = _check_p(p)
    r_array = np.asarray(r, dtype=np.float64)
    values = np.array([_p_plus_scalar(_check_r(float(x)), p) for x in r_array.ravel()])
    return float(values[0]) if r_array.ndim == 0 else values.reshape(r_array.shape)


def _p_plus_check_scalar(r: float, p: int) -> float:
    if r == 0.0:
        return 0.0
    norm = 1.0 / math.sqrt(2.0 * math.pi)
    if r < SMALL_R:
        # s = r·u: P₊ = r·∫2φ(ru)(1 − [2Φ(u) − 1]^p) du → r·√(2/π)·∫(1 − [2Φ(u) − 1]^p) du, the
        # tail-sum route to E[M] (the first route integrates M's density against t)
        def tail(u):
            return -math.expm1(p * math.log1p(-math.erfc(u / SQRT2)))

        return r * math.sqrt(2.0 / math.pi) * _integrate(tail, _breakpoints(p))

    def integrand(s):
        power = p * math.log1p(-math.erfc(s / (r * SQRT2)))
        return 2.0 * norm * math.exp(power - 0.5 * s * s)

    # [2 Phi(s/r) - 1]^p climbs near s = r sqrt(2 log p); phi(s) underflows beyond s = 40.
    points = sorted({min(x, 40.0) for x in _breakpoints(p, scale=r)} | {40.0})
    return 1.0 - _integrate(integrand, points)


def p_plus_check(r, p):
    """P₊(r, p) by a second route, to check ``p_plus``: P₊ = 1 − ∫₀^∞ 2φ(s)·[2Φ(s/r) − 1]^p ds.

    (Our addition, not in the paper.) Both are P₊ = Pr(|Z| < r·maxᵢ|Xᵢ|) for independent standard
    normals Z, X₁, …, X_p: eq. (26) conditions on M = maxᵢ|Xᵢ| (density 2p·[2Φ(t) − 1]^{p−1}·φ(t)),
    this route on |Z|. Same numerics as ``p_plus``; vectorised over r.
    """
    p = _check_p(p)
    r_array = np.asarray(r, dtype=np.float64)
    values = np.array([_p_plus_check_scalar(_check_r(float(x)), p) for x in r_array.ravel()])
    return float(values[0]) if r_array.ndim == 0 else values.reshape(r_array.shape)


def n_plus(p, k, delta, m, beta=1.0) -> float:
    """N₊: the number of bits of DP-SignRP-RR that can flip between β-adjacent vectors, w.p. ≥ 1 − δ.

    Eq. (27), Proposition 4.5 (§4.2), for a Gaussian projection W (p × k):

        N₊ = min{ F·k + ½·[ℓ + √(ℓ² + 8·F·k·ℓ)], k },   ℓ = log(1/δ),   F = P₊(β/m, p)  (eq. 26),

    where m > 0 is a PUBLIC lower bound on ‖u‖, enforced on all data, with β ≤ m. DP-SignRP-RR
    (Alg 6, Thm 4.1) then spends ε′ = ε/N₊ per bit. m = 0 means no bound: N₊ = k, and the
    mechanism is pure ε-DP (Remark 4.1). Note: δ here is a probability over the draw of W for
    each pair of neighbours, while W is public. Returns a float (N₊ need not be a whole number).

    Example (Fig. 5): p = 1024, k = 512, δ = 1e-6, β = 1, m = 10 gives F = 0.2691464912 and
    N₊ = 206.8022620.
    """
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of projections)")
    delta = check_delta(delta)
    beta = check_range(beta, "beta (the adjacency bound)", low=0.0, low_inclusive=False)
    m = check_range(m, "m (the public lower bound on the norm of every vector)", low=0.0)
    if m == 0.0:
        return float(k)
    if beta > m:
        raise ValueError(
            f"m (the public lower bound on ||u||) must be 0 (no bound: N+ = k, pure epsilon-DP) or at least "
            f"beta = {beta:g}, got m = {m:g}: raise m or lower beta."
        )
    f = p_plus(beta / m, p)
    ell = math.log(1.0 / delta)
    fk = f * k
    return float(min(fk + 0.5 * (ell + math.sqrt(ell * ell + 8.0 * fk * ell)), k))


# --------------------------------------------------------------------------------------------
# Noise scales against epsilon (Fig. 1, Thms 3.1, 3.4, 3.5)
# --------------------------------------------------------------------------------------------

SIGMA_METHODS = ("optimal", "kenthapadi", "classical", "analytic")


class SigmaCurve(NamedTuple):
    """σ at each ε, and whether the method's theorem applies there (``valid``)."""

    sigma: np.ndarray
    valid: np.ndarray


def analytic_rp_sigma(epsilon, delta, beta, p, k) -> float:
    """σ of Analytic DP-RP-G (Theorem 3.4): a Gaussian W whose sensitivity is bounded, not realised.

        σ = β·√(1 + 2√(log(2p/δ)/k) + 2·log(2p/δ)/k) · √(2(log(2/δ) + ε)) / ε,

    the Lemma 3.3 bound on Δ₂ at failure probability δ/2 times the Theorem 3.1 (Kenthapadi et al.)
    factor at δ/2, so δ includes the draw of W. For 0 < δ < ½. Example: p = 784, k = 256, δ = 1e-6:
    σ = 7.347686 at ε = 1 and 0.9236837 at ε = 10.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if delta >= 0.5:
        raise ValueError(f"Analytic DP-RP-G (Theorem 3.4) needs delta < 1/2, got delta = {delta:g}.")
    return lemma33_bound(beta, p, k, delta / 2.0) * math.sqrt(2.0 * (math.log(2.0 / delta) + epsilon)) / epsilon


def sigma_against_epsilon(epsilons, delta, sensitivity=1.0, method="optimal", *, p=None, k=None) -> SigmaCurve:
    """The Gaussian noise σ for each ε, by one method (Fig. 1 and §3.1–3.2):

    - "optimal": σ*(ε, δ, Δ), the root of eq. (14) (Balle & Wang 2018; Theorem 3.5), via
      ``privlib.core.calibration.analytic_gaussian_sigma``; valid for every ε > 0;
    - "kenthapadi": Δ·√(2(log(1/δ) + ε))/ε (Theorem 3.1), via ``kenthapadi_gaussian_sigma``;
      needs δ < ½;
    - "classical": Δ·√(2 log(1.25/δ))/ε (Theorem 2.2, Dwork & Roth); its theorem holds only for
      ε < 1, so ``valid`` is False for ε ≥ 1, where the value is still returned (σ ∝ 1/ε, from
      ``classical_gaussian_sigma`` at ε = ½) for the chart to grey out: it is NOT DP there in
      general (at δ = 1e-6 it falls below σ* for ε > 8.782);
    - "analytic": ``analytic_rp_sigma`` (Theorem 3.4) with β = ``sensitivity`` and the given p, k.

    Returns ``SigmaCurve(sigma, valid)``, two arrays shaped like ``epsilons``.
    """
    eps = check_epsilons(epsilons)
    delta = check_delta(delta)
    sensitivity = check_range(sensitivity, "sensitivity (Delta_2)", low=0.0, low_inclusive=False)
    valid = np.ones(eps.shape, dtype=bool)
    if method == "optimal":
        sigma = [analytic_gaussian_sigma(e, delta, sensitivity) for e in eps]
    elif method == "kenthapadi":
        sigma = [kenthapadi_gaussian_sigma(e, delta, sensitivity) for e in eps]
    elif method == "classical":
        half = classical_gaussian_sigma(0.5, delta, sensitivity) * 0.5  # sigma_classical * epsilon
        sigma = [half / e for e in eps]
        valid = eps < 1.0
    elif method == "analytic":
        if p is None or k is None:
            raise ValueError('method="analytic" (Theorem 3.4) needs the data dimension p and the number of '
                             "projections k: pass p=... and k=...")
        sigma = [analytic_rp_sigma(e, delta, sensitivity, p, k) for e in eps]
    else:
        raise ValueError(f"Unknown method {method!r}: choose one of {', '.join(SIGMA_METHODS)}.")
    return SigmaCurve(np.asarray(sigma, dtype=np.float64), valid)


# --------------------------------------------------------------------------------------------
# Sensitivities (eqs. 12-13, Lemmas 3.3 and 3.7)
# --------------------------------------------------------------------------------------------

def _check_beta(beta) -> float:
    return check_range(beta, "beta (the adjacency bound: one coordinate changes by at most beta)",
                       low=0.0, low_inclusive=False)


def lemma33_bound(beta, p, k, delta) -> float:
    """Lemma 3.3: for a Gaussian W (p × k), Δ₂ ≥ β·√(1 + 2√(log(p/δ)/k) + 2·log(p/δ)/k) with
    probability at most δ (Laurent–Massart χ² tail and a union bound over the p rows).

    A high-probability bound, not the realised Δ₂ of eq. (13) that the mechanisms must use.
    """
    beta = _check_beta(beta)
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of projections)")
    delta = check_delta(delta)
    t = math.log(p / delta) / k
    return beta * math.sqrt(1.0 + 2.0 * math.sqrt(t) + 2.0 * t)


def lemma37_bound(beta, p, k, delta) -> float:
    """Lemma 3.7: for a Gaussian W (p × k), Δ₁ ≥ β·√(2k·log 2 + 2·log(p/δ)) with probability at
    most δ. Using this bound in DP-RP-L (Alg 2) instead of the realised Δ₁ of eq. (12) does NOT
    give pure ε-DP (§3.3). Example: p = 784, k = 256, δ = 1e-6 gives 19.9 (the realised Δ₁ ≈ 14.7).
    """
    beta = _check_beta(beta)
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of projections)")
    delta = check_delta(delta)
    return beta * math.sqrt(2.0 * k * math.log(2.0) + 2.0 * math.log(p / delta))


def delta2_quantile(kind, q, p, k, beta=1.0, s=3) -> float:
    """The q-quantile of the realised Δ₂ = (β/√k)·maxᵢ‖W_{i,:}‖₂ (eq. 13) over the draw of W, exactly.

    (Our addition, not in the paper; Fig. 2 shows these by simulation.) The p rows are independent,
    so the q-quantile of the maximum is the q^{1/p}-quantile of one row:

    - "gaussian": ‖W_{i,:}‖² ~ χ²_k, so Δ₂ = β·√(χ²_k⁻¹(q^{1/p})/k), with χ²_k⁻¹(y) = 2·P⁻¹(k/2, y)
      (P the regularised lower incomplete gamma function: scipy.special.gammaincinv, the very
      formula of scipy.stats.chi2.ppf);
    - "sparse" (eq. 18, √s·{−1, 0, 1} with probabilities 1/(2s), 1 − 1/s, 1/(2s)):
      ‖W_{i,:}‖² = s·B with B ~ Binomial(k, 1/s), so Δ₂ = β·√(s·b/k) with b the smallest integer
      with P(B ≤ b) ≥ q^{1/p} (s = 1 is Rademacher; P(B ≤ b) by scipy.special.bdtr; scipy.stats.binom.ppf
      gives the same b except where P(B ≤ b) equals q^{1/p} exactly, where rounding decides);
    - "rademacher" and "oporp": Δ₂ = β exactly (every |w| = 1; OPORP puts each coordinate in one bin).

    √3·U[−1,1] has no closed form here: draw the projections. Example (β = 1, p = 784, k = 256,
    q = ½): Gaussian 1.1399, s = 3 1.1302, s = 10 1.2809.
    """
    q = check_probability(q, "q (the quantile level)", open_low=True, open_high=True)
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of projections)")
    beta = _check_beta(beta)
    level = math.exp(math.log(q) / p)  # q^(1/p), accurate for large p
    if kind in ("rademacher", "oporp"):
        return beta
    if kind == "gaussian":
        # scipy.special, not scipy.stats (whose import takes about half a second): the same number
        return beta * math.sqrt(2.0 * special.gammaincinv(k / 2, level) / k)
    if kind == "sparse":
        s = check_range(s, "s (the sparsity parameter of the very sparse projection)", low=1.0)
        cdf = special.bdtr(np.arange(k + 1), k, 1.0 / s)  # P(B ≤ b) for b = 0, …, k
        b = int(np.argmax(cdf >= level)) if cdf[-1] >= level else k  # P(B ≤ k) = 1 up to rounding
        return beta * math.sqrt(s * b / k)
    raise ValueError(f"delta2_quantile has a closed form for 'gaussian', 'sparse', 'rademacher' and 'oporp', "
                     f"not {kind!r}: for 'uniform' draw the projections and take their realised Delta_2.")


# --------------------------------------------------------------------------------------------
# Randomised response on bits (§4, Fig. 6)
# --------------------------------------------------------------------------------------------

def _check_eps_array(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if np.any(np.isnan(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be at least 0 (infinity = no flipping), got {values!r}.")
    return array


def _scalar_or_array(array: np.ndarray):
    return float(array) if array.ndim == 0 else array


def keep_probability(eps_per_bit):
    """Probability that randomised response keeps a bit: e^{ε′}/(e^{ε′} + 1) = expit(ε′) (Alg 6–8).

    Overflow-free (scipy.special.expit); ε′ = ∞ keeps every bit, ε′ = 0 is a fair coin.
    Vectorised. Example: ε′ = 1 gives 0.7310585786. The flip probability 1/(e^{ε′} + 1) is
    `privlib.core.randomised_response.binary_flip_probability`.
    """
    return _scalar_or_array(special.expit(_check_eps_array(eps_per_bit, "eps_per_bit")))


def smooth_levels(abs_z, D):
    """L = ⌈|z|/D⌉, the smooth-flipping level of a projected value (Alg 7: z_j unscaled over
    D_j = β·maxᵢ|W_ij|; Alg 8: the OPORP x_j over D = β). L = 0 when z = 0 (the bit is a coin)."""
    z = np.abs(np.asarray(abs_z, dtype=np.float64))
    D = np.asarray(D, dtype=np.float64)
    if np.any(~np.isfinite(D)) or np.any(D <= 0):
        raise ValueError("D (the largest change of a projected value between neighbours) must be greater than 0.")
    return np.ceil(z / D)


def smooth_flip_probability(abs_z, D, epsilon, k=1):
    """Flip probability of smooth-flipping randomised response: 1/(e^{⌈|z|/D⌉·ε/k} + 1) (Fig. 6).

    DP-SignRP-RR-smooth (Alg 7, Thm 4.7): z = w_jᵀu unscaled, D = β·maxᵢ|W_ij|, budget ε/k per
    level. DP-SignOPORP-RR-smooth (Alg 8, Thm 4.8): z = x_j, D = β, k = 1 (ε per level). Written as
    expit(−L·ε/k), overflow-free; |z| = 0 gives ½ (a coin). Vectorised over abs_z (and D).
    Example (ε = 1, k = 1): L = 1, 2, 3, 5 give .2689414214, .1192029220, .0474258732, .0066928509.
    """
    epsilon = check_epsilon(epsilon)
    k = check_positive_int(k, "k (the number of projections sharing the budget)")
    levels = smooth_levels(abs_z, D)
    return _scalar_or_array(special.expit(-levels * (epsilon / k)))


def at_risk_rate_clt(beta, norm):
    """E|A|/k ≈ 2Φ(β/‖u‖) − 1 = erf(β/(√2‖u‖)): the fraction of Rademacher sign projections with
    |x_j| ≤ β/√k (§4.3, eq. 31; iDP-SignRP's set A, Alg 10). A central-limit approximation, not a
    bound. Vectorised over norm."""
    beta = _check_beta(beta)
    norm = np.asarray(norm, dtype=np.float64)
    if np.any(~(norm > 0)):
        raise ValueError("norm (||u||) must be greater than 0.")
    return _scalar_or_array(special.erf(beta / (SQRT2 * norm)))


# --------------------------------------------------------------------------------------------
# Variances of the estimators (§1.2, §3.6, §4.1.2)
# --------------------------------------------------------------------------------------------

def _pair(u, v) -> tuple[np.ndarray, np.ndarray]:
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if u.ndim != 1 or u.shape != v.shape or u.size == 0:
        raise ValueError(f"u and v must be non-empty 1-D vectors of the same length, got shapes {u.shape} and {v.shape}.")
    return u, v


def _sigma_array(sigma) -> np.ndarray:
    sigma = np.asarray(sigma, dtype=np.float64)
    if np.any(np.isnan(sigma)) or np.any(sigma < 0):
        raise ValueError("sigma (the noise standard deviation) must be at least 0.")
    return sigma


def _noise_terms(u, v, sigma, count) -> np.ndarray:
    """σ²·Σ(uᵢ² + vᵢ²) + count·σ⁴: the variance the noise adds to an inner product of count terms."""
    return sigma**2 * (np.dot(u, u) + np.dot(v, v)) + count * sigma**4


def sketch_term_rademacher(u, v, k) -> float:
    """(1/k)·(‖u‖²‖v‖² + (uᵀv)² − 2Σuᵢ²vᵢ²): the variance of Σ_j x_j y_j for a Rademacher RP (eq. 20)."""
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of projections)")
    return (np.dot(u, u) * np.dot(v, v) + np.dot(u, v) ** 2 - 2.0 * np.dot(u * u, v * v)) / k


def sketch_term_oporp(u, v, k) -> float:
    """The Rademacher term × (p′ − k)/(p′ − 1): the variance of Σ_j x_j y_j for OPORP (eq. 22), where
    p′ = k⌈p/k⌉ is the dimension after zero-padding (the padding is our addition, not in the paper).
    0 when every bin holds one coordinate (p′ = k)."""
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of bins)")
    padded = k * -(-u.size // k)
    if padded == k:
        return 0.0
    return sketch_term_rademacher(u, v, k) * (padded - k) / (padded - 1)


def sketch_term_gaussian(u, v, k) -> float:
    """(1/k)·(‖u‖²‖v‖² + (uᵀv)²): the variance of Σ_j x_j y_j for a Gaussian RP (our addition)."""
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of projections)")
    return (np.dot(u, u) * np.dot(v, v) + np.dot(u, v) ** 2) / k


def variance_raw(u, v, sigma):
    """Var of Σũᵢṽᵢ with ũ = u + N(0, σ²I_p), ṽ likewise (eq. 19): σ²Σ(uᵢ² + vᵢ²) + pσ⁴.
    Vectorised over sigma."""
    u, v = _pair(u, v)
    return _scalar_or_array(_noise_terms(u, v, _sigma_array(sigma), u.size))


def variance_rp_rademacher(u, v, sigma, k):
    """Var of Σ_j (x_j + a_j)(y_j + b_j) with a Rademacher W and N(0, σ²) noise (eq. 20; DP-RP-G-OPT-B):

        σ²Σ(uᵢ² + vᵢ²) + kσ⁴ + (1/k)(‖u‖²‖v‖² + (uᵀv)² − 2Σuᵢ²vᵢ²).

    Vectorised over sigma. Example (u = (1,.5,0,.25), v = (.5,1,.25,0), σ = .3, k = 2): 1.113778125.
    """
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of projections)")
    return _scalar_or_array(_noise_terms(u, v, _sigma_array(sigma), k) + sketch_term_rademacher(u, v, k))


def variance_oporp(u, v, sigma, k):
    """Var of the DP-OPORP inner product (eq. 22): eq. (20) with the last term × (p′ − k)/(p′ − 1),
    p′ = k⌈p/k⌉ after zero-padding. It follows from Σ_j x_j y_j = uᵀv + Σ_{i≠i′, same bin}
    w_i w_{i′} u_i v_{i′}, with P(same bin) = (p′ − k)/(k(p′ − 1)). Vectorised over sigma.
    Example (as for ``variance_rp_rademacher``): 0.82666875.
    """
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of bins)")
    return _scalar_or_array(_noise_terms(u, v, _sigma_array(sigma), k) + sketch_term_oporp(u, v, k))


def variance_rp_gaussian(u, v, sigma, k):
    """Var of the inner product with a Gaussian W (our addition, not in the paper): eq. (20) with
    the last term (1/k)(‖u‖²‖v‖² + (uᵀv)²). Vectorised over sigma. Example: 1.613778125."""
    u, v = _pair(u, v)
    k = check_positive_int(k, "k (the number of projections)")
    return _scalar_or_array(_noise_terms(u, v, _sigma_array(sigma), k) + sketch_term_gaussian(u, v, k))


def variance_ratio_R(sigma, p, k):
    """R = Var(raw)/Var(RP), eq. (23): for unit-norm data, with the last term of eq. (20) taken as 1/k
    (ρ² − 2Σuᵢ²vᵢ² ≈ 0 in high dimension, §3.6),

        R = (2σ² + pσ⁴) / (2σ² + kσ⁴ + 1/k),

    which tends to p/k as σ grows. Vectorised over sigma. Example: R(0.1, 1000, 100) = 3.
    """
    sigma = _sigma_array(sigma)
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of projections)")
    s2 = sigma**2
    return _scalar_or_array((2.0 * s2 + p * s2**2) / (2.0 * s2 + k * s2**2 + 1.0 / k))


def inverse_sinh_squared_half(eps_per_bit):
    """1/sinh²(ε′/2) = 4e^{−ε′}/(1 − e^{−ε′})², overflow-free (0 at ε′ = ∞, ∞ at ε′ = 0).
    Vectorised; the coefficient of Theorem 4.6 and of the eq. (29) estimator."""
    eps = np.asarray(eps_per_bit, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return 4.0 * np.exp(-eps) / np.expm1(-eps) ** 2


def v_rr(theta, eps_per_bit):
    """V_RR: k times the variance of the randomised-response angle estimator θ̂_RR (Theorem 4.6, eq. 29):

        V_RR = θ(π − θ) + π²/(2 sinh²(ε′/2)) + π²/(4 sinh⁴(ε′/2)),

    a stable form of θ(π−θ) + 2π²e^{ε′}/(e^{ε′}−1)² + 4π²e^{2ε′}/(e^{ε′}−1)⁴. V_RR/k is the exact
    variance (the bits are iid), valid for a constant ε′ per bit only (not for smooth flipping).
    ε′ = ∞ gives the SignRP variance θ(π − θ) (eq. 10). Vectorised.
    Examples: V_RR(π/4, 1) = 53.4874, V_RR(π/2, 5) = 2.604055.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if np.any(~np.isfinite(theta)) or np.any(theta < 0) or np.any(theta > math.pi):
        raise ValueError("theta (the angle between u and v) must lie in [0, pi].")
    eps = _check_eps_array(eps_per_bit, "eps_per_bit")
    if np.any(eps == 0):
        raise ValueError("eps_per_bit must be greater than 0: at 0 the bits carry no information (infinite variance).")
    inv = inverse_sinh_squared_half(eps)
    return _scalar_or_array(theta * (math.pi - theta) + math.pi**2 * (inv / 2.0 + inv**2 / 4.0))


class OptimalK(NamedTuple):
    """The number of projections k that minimises the variance of θ̂_RR under DP-SignRP-RR (§4.1.2):
    ``exact`` (the minimiser over whole k of V_RR(θ, ε/N₊(k))/k, N₊ of eq. 27), ``two_term`` (the
    approximation ε√(θ(π−θ)/2)/(πF)) and ``paper`` (§4.1.2's printed εθ(π−θ)/F, which we think is
    garbled)."""

    exact: int
    two_term: float
    paper: float


def optimal_k(theta, epsilon, p, m, delta, beta=1.0) -> OptimalK:
    """k* of §4.1.2: the k minimising Var(θ̂_RR) = V_RR(θ, ε′)/k (Thm 4.6) when DP-SignRP-RR
    (Alg 6) spends ε′ = ε/N₊(k) per bit, N₊(k) = min{Fk + ½[ℓ + √(ℓ² + 8Fkℓ)], k} (eq. 27),
    ℓ = log(1/δ), F = P₊(β/m, p).

    A trend, with a caveat: the paper's closed form εθ(π−θ)/F does not follow from its own
    expansion — with e^x − 1 ≈ x the cubic term is 4π²F⁴k³/ε⁴ (not 8π²), and the two leading
    terms give k* ≈ ε√(θ(π−θ)/2)/(πF); eq. 27's log(1/δ) slack makes the exact minimiser smaller
    still. All three grow like ε/F: more budget or a smaller at-risk rate allows more bits.
    Example (θ = π/3, p = 1024, m = 10, δ = 1e-6, β = 1, ε = 100): exact 50, two-term 124, paper 815.
    The exact k is searched over 1 … max(4 × two-term, 16) (the variance falls, then rises).
    """
    theta = check_range(theta, "theta (the angle between u and v)", low=0.0, high=math.pi,
                        low_inclusive=False, high_inclusive=False)
    epsilon = check_epsilon(epsilon)
    p = _check_p(p)
    delta = check_delta(delta)
    beta = _check_beta(beta)
    m = check_range(m, "m (the public lower bound on the norm of every vector)", low=beta)
    F = p_plus(beta / m, p)
    spread = theta * (math.pi - theta)
    two_term = epsilon * math.sqrt(spread / 2.0) / (math.pi * F)
    paper = epsilon * spread / F
    largest = max(4.0 * two_term, 16.0)
    if not largest <= 1e7:
        raise ValueError(f"k* would be about {two_term:.3g} here, too many projections to search: use a smaller "
                         "epsilon or a smaller m (a larger at-risk rate F).")
    ks = np.arange(1, int(largest) + 1, dtype=np.float64)
    ell = math.log(1.0 / delta)
    at_risk = np.minimum(F * ks + 0.5 * (ell + np.sqrt(ell * ell + 8.0 * F * ks * ell)), ks)
    variance = v_rr(theta, epsilon / at_risk) / ks
    return OptimalK(exact=int(ks[int(np.argmin(variance))]), two_term=float(two_term), paper=float(paper))


def expected_empty_bins(p, k, nonzeros):
    """Expected number of empty OPORP bins for a vector with z nonzero coordinates (our addition).

    With zero-padding to p′ = k⌈p/k⌉ and bins of length b = p′/k, a bin is empty when none of the
    z nonzeros lands in its b positions of the random permutation:

        E[#empty] = k · Π_{i<b} (p′ − z − i)/(p′ − i).

    In DP-SignOPORP (Alg 8) each empty bin outputs a coin. Vectorised over nonzeros.
    Example: p = 1024, k = 256, z = 80 gives 184.80.
    """
    p = _check_p(p)
    k = check_positive_int(k, "k (the number of bins)")
    z = np.asarray(nonzeros)
    if not np.issubdtype(z.dtype, np.integer) and not np.all(np.mod(z, 1) == 0):
        raise ValueError("nonzeros must be whole numbers.")
    z = z.astype(np.int64)
    padded = k * -(-p // k)
    if np.any(z < 0) or np.any(z > p):
        raise ValueError(f"nonzeros must lie between 0 and p = {p}.")
    b = padded // k
    i = np.arange(b)
    factors = np.clip(padded - z[..., None] - i, 0, None) / (padded - i)
    return _scalar_or_array(k * np.prod(factors, axis=-1))
