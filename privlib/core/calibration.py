"""Noise calibration: the noise scale a mechanism needs for a target (epsilon, delta), and back.

Gaussian mechanism M(x) = f(x) + N(0, sigma^2 I) for a query of L2 sensitivity Delta:

- ``analytic_gaussian_sigma``: the smallest sigma that is (epsilon, delta)-DP, exact for every
  epsilon > 0 (Balle & Wang 2018);
- ``classical_gaussian_sigma`` (Dwork & Roth 2014, Theorem A.1, epsilon < 1 only) and
  ``kenthapadi_gaussian_sigma`` (Kenthapadi et al. 2013): closed-form sufficient sigmas, larger
  than the analytic one;
- ``analytic_gaussian_delta`` / ``analytic_gaussian_epsilon``: the exact privacy curve of a given
  Gaussian mechanism.

Laplace mechanism for a query of L1 sensitivity Delta_1: ``laplace_scale`` = Delta_1/epsilon.

Everything works in log space (scipy.special.log_ndtr) so that it stays finite for epsilon in the
thousands and delta down to 1e-15, where the textbook expressions give nan.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from privlib.core.validation import check_delta, check_epsilon, check_range

_RTOL = 4 * np.finfo(float).eps  # the smallest relative tolerance brentq accepts
_MAX_BRACKET_STEPS = 400  # x10 per step: far beyond any float64 root
_LOG_DELTA_FLOOR = -1e300  # log delta = -inf (delta rounded to 0) clamped so brentq interpolates finitely


def _log_delta(epsilon: float, s: float) -> float:
    """log delta(epsilon) of the Gaussian mechanism with sigma/Delta = s (Balle & Wang 2018, Thm 8).

    delta = Phi(a) - e^eps Phi(b), a = 1/(2s) - eps s, b = -1/(2s) - eps s, written as
    log Phi(a) + log(1 - exp(eps + log Phi(b) - log Phi(a))) so that neither e^eps nor the
    tiny Phi values are ever formed. -inf when delta rounds to 0.
    """
    a = 0.5 / s - epsilon * s
    b = -0.5 / s - epsilon * s
    log_a = float(log_ndtr(a))
    exponent = epsilon + float(log_ndtr(b)) - log_a
    if exponent >= 0:  # delta <= 0 in floating point (it is > 0 in exact arithmetic)
        return -math.inf
    return log_a + math.log(-math.expm1(exponent))


def _check_sensitivity(sensitivity) -> float:
    return check_range(sensitivity, "sensitivity (the largest change of the query between neighbouring "
                                    "datasets)", low=0.0, low_inclusive=False)


def analytic_gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The exact delta(epsilon) of the Gaussian mechanism with noise sigma and L2 sensitivity Delta.

    Balle & Wang (2018), "Improving the Gaussian mechanism for differential privacy: analytical
    calibration and optimal denoising", ICML, Theorem 8 (Eq. 6 of arXiv:1805.06530):

        delta(epsilon) = Phi(Delta/(2 sigma) - epsilon sigma/Delta)
                         - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta),

    the smallest delta for which the mechanism is (epsilon, delta)-DP. epsilon = 0 is allowed
    (delta(0) is the total variation distance 2 Phi(Delta/(2 sigma)) - 1). Evaluated in log space.
    """
    epsilon = check_epsilon(epsilon, allow_zero=True)
    sigma = check_range(sigma, "sigma (the noise standard deviation)", low=0.0, low_inclusive=False)
    sensitivity = _check_sensitivity(sensitivity)
    return math.exp(_log_delta(epsilon, sigma / sensitivity))


def _expanding_bracket(f, low: float, high: float) -> tuple[float, float]:
    """Widen [low, high] (x10 down / x10 up) until f(low) > 0 > f(high); f is decreasing."""
    for _ in range(_MAX_BRACKET_STEPS):
        if f(low) > 0:
            break
        low, high = low / 10, low
    else:  # pragma: no cover - unreachable for valid inputs
        raise ValueError("Could not bracket the root: the inputs are outside the range float64 can represent.")
    for _ in range(_MAX_BRACKET_STEPS):
        if f(high) < 0:
            break
        low, high = high, high * 10
    else:  # pragma: no cover
        raise ValueError("Could not bracket the root: the inputs are outside the range float64 can represent.")
    return low, high


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP (analytic Gaussian).

    Balle & Wang (2018), ICML, Theorem 8 / Algorithm 1: sigma* is the root in sigma of

        Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta) = delta.

    Valid for every epsilon > 0 (unlike Dwork & Roth's Theorem A.1, which needs epsilon < 1).
    The root scales with Delta, sigma*(eps, delta, Delta) = Delta sigma*(eps, delta, 1), so we solve
    for s = sigma/Delta: brentq on log delta(s) - log delta, with delta(s) decreasing from 1 to 0,
    bracketed from [1e-3, 1] by factors of 10 and solved to full float64 precision.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = _check_sensitivity(sensitivity)
    log_target = math.log(delta)

    def f(s):
        return max(_log_delta(epsilon, s), _LOG_DELTA_FLOOR) - log_target

    low, high = _expanding_bracket(f, 1e-3, 1.0)
    s = brentq(f, low, high, xtol=1e-15 * low, rtol=_RTOL, maxiter=500)
    return sensitivity * s


def analytic_gaussian_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon for which the Gaussian mechanism with mu = Delta/sigma is (epsilon, delta)-DP.

    The inverse in epsilon of Balle & Wang (2018), Theorem 8: the root of delta(epsilon) = delta with
    delta(epsilon) = Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu), which decreases in
    epsilon; 0 when the mechanism is already (0, delta)-DP (delta(0) <= delta). Solved by brentq on
    log delta(epsilon) - log delta in log space, so it stays exact for epsilon in the thousands
    (mu of 50 and more).
    """
    mu = check_range(mu, "mu (sensitivity / sigma)", low=0.0, low_inclusive=False)
    delta = check_delta(delta)
    s = 1.0 / mu
    log_target = math.log(delta)

    def f(eps):
        return max(_log_delta(eps, s), _LOG_DELTA_FLOOR) - log_target

    if f(0.0) <= 0:
        return 0.0
    high = 1.0
    for _ in range(_MAX_BRACKET_STEPS):
        if f(high) < 0:
            break
        high *= 10
    return float(brentq(f, 0.0, high, xtol=np.finfo(float).tiny, rtol=_RTOL, maxiter=500))


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """sigma = Delta sqrt(2 ln(1.25/delta))/epsilon: the classical Gaussian mechanism.

    Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Appendix A,
    Theorem A.1: (epsilon, delta)-DP for epsilon in (0, 1) only. It is larger than the analytic
    sigma; for epsilon >= 1 the theorem does not apply, so this raises.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = _check_sensitivity(sensitivity)
    if epsilon >= 1:
        raise ValueError(
            f"The classical Gaussian mechanism (Dwork & Roth Theorem A.1) only holds for epsilon < 1, got "
            f"epsilon = {epsilon:g}: use analytic_gaussian_sigma, which is exact for every epsilon."
        )
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def kenthapadi_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """sigma = Delta sqrt(2 (ln(1/delta) + epsilon))/epsilon, for any epsilon > 0 and delta < 1/2.

    The closed-form Gaussian-mechanism bound of Kenthapadi, Korolova, Mironov & Mishra (2013),
    "Privacy via the Johnson-Lindenstrauss transform", Journal of Privacy and Confidentiality 5(1).
    Sufficient, not tight: larger than the analytic sigma.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = _check_sensitivity(sensitivity)
    if delta >= 0.5:
        raise ValueError(f"The Kenthapadi et al. Gaussian bound needs delta < 1/2, got delta = {delta:g}.")
    return sensitivity * math.sqrt(2.0 * (math.log(1.0 / delta) + epsilon)) / epsilon


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """b = Delta_1/epsilon: the Laplace mechanism f(x) + Laplace(b) is epsilon-DP for a query of L1
    sensitivity Delta_1 (Dwork & Roth 2014, Definition 3.3 and Theorem 3.6)."""
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_sensitivity(sensitivity)
    return sensitivity / epsilon
