"""The retraining paper's bounds that have explicit constants, as numbers (§4 and its proofs).

Setting (§4): x = a⁽¹⁾θ* + Σ_{j≥2} a⁽ʲ⁾θ̄_j, a⁽¹⁾ symmetric with Var = σ², E|a⁽¹⁾| = μσ (μ ≤ ½),
|a⁽¹⁾| ≥ γσ, |a⁽¹⁾| sub-Gaussian SG(σ²) (eq. 19), a⁽ʲ⁾ ~ N(0, σ²) for j ≥ 2; binary RR with flip
probability p; cos β(x) = ⟨x, θ*⟩/‖x‖; the centroid estimators θ̂₀ (eq. 2) and θ̂₁ (eq. 3, fresh X_U).

- Thm 1: α(x) = 1 − exp(−(nμ²/4)(1−2p)² cos²β) ≤ P(sign⟨x, θ̂₀⟩ correct) ≤ α̂(x) =
  1 − exp(−(1 + √n μ(1−2p))² cot²β)/(3√(2π)).
- Thm 4: p₂ = exp(−9(d−1)/40) + exp(−(nμ²γ²/(12d))(1−2p)²); if |cos β| ≥ 16p₂/μ then
  α₁(x) = 1 − exp(−(nμ²/4)(1−2p₂) cos²β) (the factor (1−2p₂) is unsquared in the paper); below the
  threshold the theorem says nothing (``alpha1`` returns NaN: draw nothing there).
- Eq. 59 (proof of Thm 2): acc(θ̂₀) ≥ E_x[α(x)] (by quadrature over the law of x).
- Eq. 65: acc(θ̂₀) ≥ 1 − exp(−9(d−1)/20) − exp(−nμ²γ²(1−2p)²/(12d)).
- Eq. 141 (proof of Thm 5): acc(θ̂₁) ≥ E[α₁(x) | |cos β| ≥ ν₀]·P(|cos β| ≥ ν₀),
  ν₀ = γ/√(γ² + 3(d−1)); valid only if ν₀ ≥ 16p₂/μ (NaN otherwise).

Every function takes the flip probability p; from ε it is the core's
``privlib.core.randomised_response.binary_flip_probability`` (p = 1/(1 + e^ε); back:
``RandomisedResponse.epsilon_from_keep(1 − p, 2)``).

The constants are proven only under SG(σ²). Theorem 2's upper bound, Thm 3, Thm 5's final form,
Cor. 1, Remark 1 and Remark 4's n-window have unspecified Θ(·) constants: never numbers, see
``THETA_ONLY_RESULTS``. ``population_accuracy`` and ``simulate_centroid`` are our additions.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate, stats

from privlib.core.validation import as_generator, check_positive_int, check_probability, check_range
from privlib.label_dp.datasets import COMPLIANT_LAW, TWO_POINT_LAW, AbsLaw

FLAG_VACUOUS = "vacuous"
FLAG_LOOSE = "loose"
FLAG_ILLUSTRATIVE = "illustrative, not a proven bound for this law"
FLAG_THETA = "Θ: constants not given"

#: The results with unspecified Θ(·) constants: shown as formulas, never evaluated.
THETA_ONLY_RESULTS = (
    ("Thm 2, upper bound", "acc(θ̂₀) ≤ 1 − Θ(1)·exp(−nμ⁴(1−2p)²/Θ(d))"),
    ("Remark 1", "for γ = Θ(μ) and n ≤ Θ(d²/((1−2p)²μ⁴)) Thm 2's bounds match up to constants"),
    ("Cor. 1", "n = Ω(log(1/δ)/(1−2p)² · d/(μ²γ²)) gives acc(θ̂₀) > 1 − δ"),
    ("Thm 3", "any classifier needs n = Ω(d/(1−2p)²)-type samples for accuracy 1 − δ (δ < 1/5)"),
    ("Thm 5", "acc(θ̂₁) ≥ 1 − exp(−Θ(d)) − exp(−nμ²γ²(1−2p₂)/Θ(d)) for n ≥ Θ(d/((1−2p)²μ²γ²)·log(…))"),
    ("Remark 4", "retraining beats vanilla training in an n-window (eq. 6) whose ends are Θ(·) expressions"),
)


def _check_common(n, mu, p):
    n = check_range(n, "n (the number of labelled examples)", low=1.0)
    mu = check_range(mu, "mu (E|a⁽¹⁾|/σ)", low=0.0, low_inclusive=False)
    p = check_probability(p, "p (the flip probability)")
    if p > 0.5:
        raise ValueError(f"p (the flip probability) must be at most 1/2, got {p!r}.")
    return n, mu, p


def _cos(cos_beta):
    c = np.asarray(cos_beta, dtype=np.float64)
    if np.any(~np.isfinite(c)) or np.any(np.abs(c) > 1):
        raise ValueError("cos β must lie in [−1, 1].")
    return c


def _out(values, like):
    return float(values) if np.ndim(like) == 0 else values


def alpha(n, mu, p, cos_beta):
    """Thm 1 lower bound α(x) = 1 − exp(−(nμ²/4)(1−2p)² cos²β) (vectorised in cos β)."""
    n, mu, p = _check_common(n, mu, p)
    c = _cos(cos_beta)
    return _out(-np.expm1(-(n * mu ** 2 / 4.0) * (1 - 2 * p) ** 2 * c ** 2), cos_beta)


def alpha_hat(n, mu, p, cos_beta):
    """Thm 1 upper bound α̂(x) = 1 − exp(−(1 + √n μ(1−2p))² cot²β)/(3√(2π)); cot²β = cos²β/(1 − cos²β),
    so α̂ = 1 at |cos β| = 1 (cot β infinite) and 1 − 1/(3√(2π)) at cos β = 0."""
    n, mu, p = _check_common(n, mu, p)
    c = _cos(cos_beta)
    c2 = c ** 2
    with np.errstate(divide="ignore"):
        cot2 = np.where(c2 >= 1.0, np.inf, c2 / np.maximum(1.0 - c2, 0.0))
    return _out(1.0 - np.exp(-(1.0 + math.sqrt(n) * mu * (1 - 2 * p)) ** 2 * cot2) / (3.0 * math.sqrt(2 * math.pi)),
                cos_beta)


def p2(n, d, mu, gamma, p) -> float:
    """Thm 4: p₂ = exp(−9(d−1)/40) + exp(−(nμ²γ²/(12d))(1−2p)²), the flip rate the retraining
    labels behave like."""
    n, mu, p = _check_common(n, mu, p)
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    gamma = check_range(gamma, "gamma (lower end of |a⁽¹⁾|/σ)", low=0.0, low_inclusive=False)
    return math.exp(-9.0 * (d - 1) / 40.0) + math.exp(-(n * mu ** 2 * gamma ** 2 / (12.0 * d)) * (1 - 2 * p) ** 2)


def thm4_threshold(n, d, mu, gamma, p) -> float:
    """Thm 4 applies to x only where |cos β(x)| ≥ 16p₂/μ."""
    return 16.0 * p2(n, d, mu, gamma, p) / mu


def alpha1(n, d, mu, gamma, p, cos_beta):
    """Thm 4: α₁(x) = 1 − exp(−(nμ²/4)(1−2p₂) cos²β) where |cos β| ≥ 16p₂/μ; NaN elsewhere (the
    theorem says nothing there: draw nothing)."""
    q = p2(n, d, mu, gamma, p)
    c = _cos(cos_beta)
    defined = np.abs(c) >= 16.0 * q / mu
    # computed only where the theorem speaks (elsewhere p2 > 1/2 would overflow exp for nothing)
    value = -np.expm1(-(n * mu ** 2 / 4.0) * (1 - 2 * q) * np.where(defined, c, 0.0) ** 2)
    return _out(np.where(defined, value, np.nan), cos_beta)


def eq65(n, d, mu, gamma, p) -> float:
    """Eq. 65: acc(θ̂₀) ≥ 1 − exp(−9(d−1)/20) − exp(−nμ²γ²(1−2p)²/(12d)) (can be ≤ 0: vacuous)."""
    n, mu, p = _check_common(n, mu, p)
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    gamma = check_range(gamma, "gamma (lower end of |a⁽¹⁾|/σ)", low=0.0, low_inclusive=False)
    return 1.0 - math.exp(-9.0 * (d - 1) / 20.0) - math.exp(-n * mu ** 2 * gamma ** 2 * (1 - 2 * p) ** 2 / (12.0 * d))


def nu0(d, gamma) -> float:
    """ν₀ = γ/√(γ² + 3(d−1)) (proof of Thm 5)."""
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    return gamma / math.sqrt(gamma ** 2 + 3.0 * (d - 1))


def _chi2_density(k: int):
    """The χ²_k density r^{k/2−1} e^{−r/2} / (2^{k/2} Γ(k/2)) as a plain function of one number: the
    same values as ``stats.chi2(k).pdf`` up to rounding, without its per-call overhead (about 50 µs,
    most of a quadrature's time: the Theory tab's bounds took seconds per control change)."""
    half = k / 2.0
    log_norm = half * math.log(2.0) + math.lgamma(half)
    frozen = stats.chi2(k)

    def density(r: float) -> float:
        if r <= 0.0:  # the edge (infinite for k = 1): scipy's value
            return float(frozen.pdf(r))
        return math.exp((half - 1.0) * math.log(r) - 0.5 * r - log_norm)

    return density


def _law_expectation(law: AbsLaw, d: int, g, r_max=None) -> float:
    """E[g(cos²β)] with cos²β = a²/(a² + R), a ~ ``law`` (its nodes), R = ‖x_{2:d}‖² ~ χ²_{d−1} (noise
    coordinates N(0, 1) as in our datasets; this is §4's σ²χ²_{d−1} for the σ = 1 laws), optionally
    restricted to R ≤ r_max(a)."""
    sigma2 = 1.0
    chi_pdf = _chi2_density(d - 1)
    total = 0.0
    for a, w in zip(law.nodes, law.weights):
        def integrand(r, a=a):
            return g(a * a / (a * a + sigma2 * r)) * chi_pdf(r)

        upper = np.inf if r_max is None else r_max(a) / sigma2
        if upper <= 0:
            continue
        # split at the bulk of the χ² law for an accurate adaptive quadrature
        mid = min(upper, float(d - 1))
        value = integrate.quad(integrand, 0.0, mid, limit=200, epsabs=1e-13, epsrel=1e-11)[0]
        if upper > mid:
            value += integrate.quad(integrand, mid, upper, limit=200, epsabs=1e-13, epsrel=1e-11)[0]
        total += w * value
    return float(total)


def eq59_expectation(n, d, p, law: AbsLaw = TWO_POINT_LAW, mu: float | None = None) -> float:
    """Eq. 59: E_x[α(x)], the lower bound on acc(θ̂₀), by quadrature over ‖x_{2:d}‖² ~ σ²χ²_{d−1}
    and the law of |a⁽¹⁾| (μ defaults to the law's)."""
    mu = law.mu if mu is None else mu
    n, mu, p = _check_common(n, mu, p)
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    k = (n * mu ** 2 / 4.0) * (1 - 2 * p) ** 2
    return _law_expectation(law, d, lambda c2: -math.expm1(-k * c2))


def eq141(n, d, p, law: AbsLaw = TWO_POINT_LAW, mu: float | None = None, gamma: float | None = None) -> float:
    """Eq. 141: E[α₁(x) | |cos β| ≥ ν₀]·P(|cos β| ≥ ν₀) = E[α₁(x)·1{|cos β| ≥ ν₀}], ν₀ = γ/√(γ² + 3(d−1));
    NaN when ν₀ < 16p₂/μ (the bound is not valid there). μ, γ default to the law's."""
    mu = law.mu if mu is None else mu
    gamma = law.gamma if gamma is None else gamma
    q = p2(n, d, mu, gamma, p)
    v = nu0(d, gamma)
    if v < 16.0 * q / mu:
        return float("nan")
    k = (n * mu ** 2 / 4.0) * (1 - 2 * q)
    # cos²β ≥ ν₀² ⇔ R ≤ a²(1 − ν₀²)/ν₀² (in units of the noise coordinates)
    return _law_expectation(law, d, lambda c2: -math.expm1(-k * c2),
                            r_max=lambda a: a * a * (1 - v * v) / (v * v))


def vacuous_below_n(d, mu, gamma, p, cos_beta: float = 1.0) -> float:
    """The smallest n at which Thm 4 applies at |cos β| (16p₂/μ ≤ |cos β|); inf if it never does
    (16·exp(−9(d−1)/40)/μ ≥ |cos β|, e.g. every d ≤ 16 at μ = ½ and |cos β| = 1). Use
    cos_beta = ν₀ for eq. 141's validity. (our addition: the inversion of the condition)"""
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    _, mu, p = _check_common(1, mu, p)
    gamma = check_range(gamma, "gamma", low=0.0, low_inclusive=False)
    c = abs(float(cos_beta))
    room = mu * c / 16.0 - math.exp(-9.0 * (d - 1) / 40.0)
    rate = mu ** 2 * gamma ** 2 * (1 - 2 * p) ** 2 / (12.0 * d)
    if room <= 0 or rate <= 0:
        return float("inf")
    return -math.log(room) / rate if room < 1 else 0.0


def thm4_vacuous_for_every_n(d, mu) -> bool:
    """True when 16·exp(−9(d−1)/40)/μ ≥ 1: Thm 4 never applies, whatever n (d ≤ 16 at μ = ½)."""
    d = check_positive_int(d, "d (the dimension)", minimum=2)
    return 16.0 * math.exp(-9.0 * (d - 1) / 40.0) / mu >= 1.0


def bound_flag(value) -> str | None:
    """FLAG_VACUOUS for an undefined or non-positive lower bound; FLAG_LOOSE below ½ (weaker than a
    coin flip on binary labels; our convention); None otherwise."""
    if value is None or not math.isfinite(value) or value <= 0:
        return FLAG_VACUOUS
    return FLAG_LOOSE if value < 0.5 else None


def law_flag(law: AbsLaw) -> str | None:
    """FLAG_ILLUSTRATIVE unless the law meets every §4 assumption (only ``COMPLIANT_LAW`` here)."""
    return None if law is COMPLIANT_LAW else FLAG_ILLUSTRATIVE


def per_point_bounds(n, d, mu, gamma, p, cos_beta) -> dict:
    """α, α̂, α₁ (NaN below the Thm 4 threshold) on a grid of cos β, with p₂ and the threshold."""
    c = np.asarray(cos_beta, dtype=np.float64)
    return {"cos_beta": c, "alpha": np.asarray(alpha(n, mu, p, c)), "alpha_hat": np.asarray(alpha_hat(n, mu, p, c)),
            "alpha1": np.asarray(alpha1(n, d, mu, gamma, p, c)), "p2": p2(n, d, mu, gamma, p),
            "threshold": thm4_threshold(n, d, mu, gamma, p)}


def population_bounds(ns, d, p, law: AbsLaw = TWO_POINT_LAW) -> dict:
    """Eqs. 59, 65 and 141 against n for the law's μ and γ, with flags."""
    ns = np.asarray(ns, dtype=np.float64)
    mu, gamma = law.mu, law.gamma
    e59 = np.array([eq59_expectation(n, d, p, law) for n in ns])
    e65 = np.array([eq65(n, d, mu, gamma, p) for n in ns])
    e141 = np.array([eq141(n, d, p, law) for n in ns])
    return {"n": ns, "eq59": e59, "eq65": e65, "eq141": e141, "mu": mu, "gamma": gamma,
            "law_flag": law_flag(law), "thm4_from_n": vacuous_below_n(d, mu, gamma, p, 1.0),
            "eq141_from_n": vacuous_below_n(d, mu, gamma, p, nu0(d, gamma)),
            "flags": {"eq59": [bound_flag(v) for v in e59], "eq65": [bound_flag(v) for v in e65],
                      "eq141": [bound_flag(v) for v in e141]}}


def population_accuracy(theta, law: AbsLaw, intercept: float = 0.0) -> float:
    """Closed-form population accuracy of sign(⟨θ, x⟩ + b) when x⁽¹⁾ = ±|a| (|a| ~ ``law``) and the
    other coordinates are N(0, 1) (our addition): see ``AbsLaw.population_accuracy``; for App. A's
    law, (1/(4Δ)) ∫_Δ^{5Δ} Φ(θ₁u/‖θ_{2:d}‖) du by 200-node Gauss–Legendre."""
    return law.population_accuracy(theta, intercept)


def simulate_centroid(law: AbsLaw, n: int, d: int, p: float, reps: int = 20, seed=0,
                      fresh_unlabelled: bool = True) -> dict:
    """Simulated population accuracy of θ̂₀ (eq. 2) and θ̂₁ (eq. 3) on the §4 model with |a⁽¹⁾| ~
    ``law`` and N(0, 1) noise coordinates, binary RR flip probability p, over ``reps`` draws (our
    addition, for the theory tab). θ̂₁ uses a fresh unlabelled set X_U of size n (eq. 3) unless
    ``fresh_unlabelled`` is False (then the same training set, as in Fig. 1). Accuracies in closed form."""
    n = check_positive_int(n, "n", minimum=2, maximum=2 * 10**6)
    d = check_positive_int(d, "d", minimum=2)
    reps = check_positive_int(reps, "reps", maximum=10_000)
    p = check_probability(p, "p (the flip probability)")
    rng = as_generator(seed)
    acc0, acc1 = np.empty(reps), np.empty(reps)

    def draw(m):
        X = rng.standard_normal((m, d))
        X[:, 0] = law.sample(m, rng) * np.where(rng.random(m) < 0.5, -1.0, 1.0)
        return X

    for r in range(reps):
        X = draw(n)
        y = np.sign(X[:, 0])
        noisy = np.where(rng.random(n) < p, -y, y)
        theta0 = (noisy @ X) / n
        XU = draw(n) if fresh_unlabelled else X
        predicted = np.where(XU @ theta0 >= 0, 1.0, -1.0)
        theta1 = (predicted @ XU) / n
        acc0[r] = law.population_accuracy(theta0)
        acc1[r] = law.population_accuracy(theta1)
    return {"acc0": acc0, "acc1": acc1, "n": n, "d": d, "p": p, "reps": reps, "fresh_unlabelled": fresh_unlabelled}


__all__ = ["FLAG_ILLUSTRATIVE", "FLAG_LOOSE", "FLAG_THETA", "FLAG_VACUOUS", "THETA_ONLY_RESULTS", "alpha", "alpha1",
           "alpha_hat", "bound_flag", "eq141", "eq59_expectation", "eq65", "law_flag", "nu0", "p2", "per_point_bounds",
           "population_accuracy", "population_bounds",
           "simulate_centroid", "thm4_threshold", "thm4_vacuous_for_every_n", "vacuous_below_n"]
