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
thousands and delta down to 1e-300, where the textbook expressions give nan. Each result carries a
bound on its rounding error, and one that float64 cannot give to 1e-6 (relative) is refused with a
ValueError instead of returned: in practice epsilon above ~1e18 (mu above ~1e8), or delta far
below 1e-15 at a tiny epsilon (e.g. epsilon = 1e-8, delta = 1e-300), where the old code floored
delta at ~1e-16 and so returned a sigma far too small. A scale that overflows float64 is refused.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from privlib.core.validation import EPSILON_MAX, check_delta, check_epsilon, check_range, shown

_RTOL = 4 * np.finfo(float).eps  # the smallest relative tolerance brentq accepts
_MAX_BRACKET_STEPS = 400  # x10 per step: far beyond any float64 root
_LOG_DELTA_FLOOR = -1e300  # log delta = -inf (delta rounded to 0) clamped so brentq interpolates finitely
_ULP = float(np.finfo(float).eps)  # 2^-52: the relative rounding of one float64 operation, doubled
#: The largest relative error of delta(epsilon) we return or calibrate to: beyond it a result
#: would be a number float64 cannot vouch for (refused with a ValueError instead).
_DELTA_RTOL = 1e-6
#: The largest mu = Delta/sigma whose epsilon(delta) (about mu^2/2 + mu sqrt(2 ln(1/delta))) stays
#: within EPSILON_MAX = 1e300 for every delta float64 holds (ln(1/delta) <= 745).
_MU_MAX = 1e149


def _log_delta(epsilon: float, s: float) -> float:
    """log delta(epsilon) of the Gaussian mechanism with sigma/Delta = s (Balle & Wang 2018, Thm 8);
    -inf when delta rounds to 0. `_log_delta_and_error` gives its relative error too."""
    return _log_delta_and_error(epsilon, s)[0]


def _log_delta_and_error(epsilon: float, s: float) -> tuple[float, float]:
    """(log delta(epsilon), a bound on delta's relative rounding error) for sigma/Delta = s.

    delta = Phi(a) - e^eps Phi(b), a = 1/(2s) - eps s, b = -1/(2s) - eps s, in log space:
    log Phi(a) + log(1 - exp(u)), u = eps + log Phi(b) - log Phi(a), so that neither e^eps nor the
    tiny Phi values are ever formed. u carries the rounding of the three terms (log_ndtr is good to
    a few units in the last place) and of a and b themselves (2^-52 (1/(2s) + eps s), carried into
    log Phi by its slope, at most |x| + 1), so delta's relative error is about that over |u|. It is
    poor where delta << Phi(a): a huge s (epsilon -> 0) with delta far below 1e-15, or a huge
    epsilon; the callers refuse those (the old code floored delta at ~1e-16 there and so
    calibrated far too little noise). -inf when delta rounds to 0 (error inf, unless Phi(a) itself
    underflows, when 0 is right).
    """
    a = 0.5 / s - epsilon * s
    b = -0.5 / s - epsilon * s
    log_a = float(log_ndtr(a))
    log_b = float(log_ndtr(b))
    exponent = epsilon + log_b - log_a
    shift = _ULP * (0.5 / s + epsilon * s)
    rounding = 4 * _ULP * (epsilon + abs(log_a) + abs(log_b) + 1.0) + shift * (abs(a) + abs(b) + 2.0)
    if log_a < -745.2:  # delta <= Phi(a) underflows: 0 is the float64 answer
        return (log_a + math.log(-math.expm1(exponent)) if exponent < 0 else -math.inf), 0.0
    if exponent >= 0:  # delta <= 0 in floating point (it is > 0 in exact arithmetic)
        return -math.inf, math.inf
    return log_a + math.log(-math.expm1(exponent)), rounding / min(-exponent, 1.0)


def _check_accurate(error: float, what: str) -> None:
    """Refuse a result whose relative rounding error may exceed _DELTA_RTOL: float64 cannot give it."""
    if not error <= _DELTA_RTOL:
        raise ValueError(
            f"{what} cannot be computed accurately in float64 here (epsilon is huge, or delta is far below "
            f"1e-15 at a tiny epsilon): use epsilon <= 1e6 and a larger delta, or kenthapadi_gaussian_sigma (a "
            f"closed-form upper bound)."
        )


def _sigma_error(epsilon: float, s: float) -> float:
    """Relative error of a root s of log delta(epsilon, s) = log delta: the error of log delta over its
    slope |d log delta/d log s| = phi(a)/(s delta) (d delta/ds = -phi(a)/s^2, since e^eps phi(b) =
    phi(a))."""
    log_delta, error = _log_delta_and_error(epsilon, s)
    if not math.isfinite(log_delta):
        return math.inf
    a = 0.5 / s - epsilon * s
    log_phi_a = -0.5 * a * a - 0.5 * math.log(2 * math.pi)
    return error * math.exp(min(log_delta - log_phi_a + math.log(s), 700.0))


def _epsilon_error(epsilon: float, s: float) -> float:
    """Relative error of a root epsilon of log delta(epsilon, s) = log delta: the error of log delta
    over epsilon |d log delta/d epsilon| = epsilon e^eps Phi(b)/delta (d delta/d eps = -e^eps Phi(b))."""
    log_delta, error = _log_delta_and_error(epsilon, s)
    if not math.isfinite(log_delta):
        return math.inf
    if epsilon == 0:
        return error
    b = -0.5 / s - epsilon * s
    log_slope = epsilon + float(log_ndtr(b)) - log_delta + math.log(epsilon)
    return error * math.exp(min(-log_slope, 700.0))


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
    s = sigma / sensitivity
    if not 0 < s < math.inf:
        raise ValueError(f"sigma/sensitivity must be a positive finite number, got {s:g}: rescale sigma and the "
                         f"sensitivity together.")
    log_delta, error = _log_delta_and_error(epsilon, s)
    _check_accurate(error, "delta(epsilon) of this Gaussian mechanism")
    return math.exp(log_delta)


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
    if not math.isfinite(high):
        raise ValueError(f"The Gaussian noise for epsilon = {epsilon:g} and delta = {delta:g} is beyond float64 "
                         f"(sigma/sensitivity > 1.8e308): use a larger epsilon or delta.")
    try:
        s = brentq(f, low, high, xtol=1e-15 * low, rtol=_RTOL, maxiter=500)
    except RuntimeError:  # no convergence: f is rounding noise near the root
        s = math.nan
    _check_accurate(_sigma_error(epsilon, s) if not math.isnan(s) else math.inf, "The analytic Gaussian sigma")
    return _finite_scale(sensitivity * s, "sigma")


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
    if mu > _MU_MAX:
        raise ValueError(f"mu (sensitivity / sigma) must be at most {_MU_MAX:g}: its epsilon (about mu^2/2) "
                         f"would exceed {EPSILON_MAX:g}, which no mechanism represents (there is no privacy "
                         f"left), got {shown(mu)}.")
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
    try:
        epsilon = float(brentq(f, 0.0, high, xtol=np.finfo(float).tiny, rtol=_RTOL, maxiter=500))
    except RuntimeError:  # no convergence: f is rounding noise near the root
        epsilon = math.nan
    _check_accurate(_epsilon_error(epsilon, s) if not math.isnan(epsilon) else math.inf,
                    "The epsilon of this Gaussian mechanism")
    return epsilon


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
    return _finite_scale(sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon, "sigma")


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
    return _finite_scale(sensitivity * math.sqrt(2.0 * (math.log(1.0 / delta) + epsilon)) / epsilon, "sigma")


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """b = Delta_1/epsilon: the Laplace mechanism f(x) + Laplace(b) is epsilon-DP for a query of L1
    sensitivity Delta_1 (Dwork & Roth 2014, Definition 3.3 and Theorem 3.6)."""
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_sensitivity(sensitivity)
    return _finite_scale(sensitivity / epsilon, "The Laplace scale b")


def _finite_scale(value: float, name: str) -> float:
    """A computed noise scale, or a ValueError when it overflowed float64 (a huge sensitivity over
    a tiny epsilon) or underflowed to 0: never inf or 0 handed on as a scale."""
    if not 0 < value < math.inf:
        raise ValueError(f"{name} = sensitivity x (a factor of epsilon and delta) is {value:g} in float64, which is "
                         f"not a usable noise scale: use a smaller sensitivity or a larger epsilon (for inf), "
                         f"the reverse for 0.")
    return value
