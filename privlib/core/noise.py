"""Noise distributions of the DP mechanisms, each drawn from a numpy Generator (one home each).

Each sampler accepts only the scales at which float64 holds every draw exactly (to its relative
rounding): it never returns less noise than its law (no overflow to ±inf, no underflow to 0, no
clipping or wrapping of integers) and refuses any other scale with a ValueError that gives the
range. The bounds (why they are safe):

- a continuous draw is scale × a standard draw; numpy's standard draws are built from 53- or
  64-bit uniforms, so none exceeds 45 in magnitude (Laplace: log 2^52 = 36.0; normal ziggurat:
  12.3; exponential: 44.4), and a nonzero one is below 1e-16 with probability about 1e-16. So
  ``MIN_NOISE_SCALE <= scale <= MAX_NOISE_SCALE`` (1e-290 to 1e306) keeps every draw a finite,
  normal float64 (1.8e308 is the largest; 2.2e-308 the smallest normal, below which floats lose
  precision and reach 0) with room to spare;
- the multivariate Laplace radius is Gamma(dim, 1/ε), whose draws are at most 45 × its mean
  dim/ε: the mean must be at most MAX_NOISE_SCALE, so ε >= dim × 1e-306;
- the two-sided geometric is a difference of geometric counts ceil(E/ε) (E standard exponential,
  at most 44.4): every count is an exactly represented integer, and every integer is reachable,
  only while 44.4/ε < 2^53, so ε >= GEOMETRIC_MIN_EPSILON = 1e-14 (counts up to 4.4e15; int64
  would hold 9.2e18 but float64 has gaps between integers beyond 2^53 = 9.0e15).
"""
from __future__ import annotations

import numbers

import numpy as np

from privlib.core.validation import (
    EPSILON_MIN,
    as_generator,
    check_epsilon,
    check_positive_int,
    check_range,
    shown,
)

#: The smallest and largest scale (Laplace b, Gaussian sigma, 1/ε of the multivariate Laplace
#: times its dimension) a continuous sampler accepts: every draw is then a finite, normal float64.
MIN_NOISE_SCALE, MAX_NOISE_SCALE = 1e-290, 1e306

#: The smallest ε of the two-sided geometric: its counts (up to 44.4/ε) stay below 2^53, where
#: float64 represents every integer (see the module docstring).
GEOMETRIC_MIN_EPSILON = 1e-14


def _check_scale(value, name: str, source: str) -> float:
    """A continuous noise scale in [MIN_NOISE_SCALE, MAX_NOISE_SCALE], or a ValueError that gives
    the range and what to do; ``source`` says where the scale comes from (e.g. "sensitivity/ε")."""
    scale = check_range(value, name, low=0.0, low_inclusive=False)
    if not MIN_NOISE_SCALE <= scale <= MAX_NOISE_SCALE:
        which = "below" if scale < MIN_NOISE_SCALE else "above"
        raise ValueError(
            f"{name} must be between {MIN_NOISE_SCALE:g} and {MAX_NOISE_SCALE:g}, where float64 holds every draw "
            f"(noise {'underflows towards 0' if which == 'below' else 'overflows to infinity'} {which}), "
            f"got {shown(value)}: {source}."
        )
    return scale


def laplace_noise(dim: int, epsilon: float, size: int, rng=None) -> np.ndarray:
    """``size`` draws of multivariate Laplace noise in R^dim, shape (size, dim), float64.

    Density p(eta) ∝ exp(-epsilon ||eta||) (Feyisetan, Balle, Drake & Diethe 2020, "Privacy- and
    utility-preserving textual analysis via calibrated multivariate perturbations", WSDM): radius
    R ~ Gamma(shape=dim, scale=1/epsilon) (the radial part r^{dim-1} e^{-eps r}) times a direction
    uniform on the unit sphere (a normalised standard normal vector; an all-zero normal vector,
    probability 0 in exact arithmetic, is redrawn rather than divided by).

    Accepted: max(1e-300, dim × 1e-306) <= ε <= 1e290 (the mean radius dim/ε and the scale 1/ε
    within [MIN_NOISE_SCALE, MAX_NOISE_SCALE]: see the module docstring; 1e-300 is check_epsilon's).
    """
    dim = check_positive_int(dim, "dim")
    epsilon = check_epsilon(epsilon)
    # 1/MIN_NOISE_SCALE = 1e290 written out: 1/1e-290 rounds just above the literal 1e290
    if not (epsilon <= 1e290 and epsilon >= dim / MAX_NOISE_SCALE):
        low = max(dim / MAX_NOISE_SCALE, EPSILON_MIN)
        raise ValueError(
            f"epsilon of the multivariate Laplace noise in {dim:,} dimensions must be between {low:.3g} and "
            f"{1e290:g}, where float64 holds every draw, got {shown(epsilon)}: "
            f"use an epsilon in that range."
        )
    size = check_positive_int(size, "size", minimum=0)
    rng = as_generator(rng)
    direction = rng.standard_normal((size, dim))
    norms = np.linalg.norm(direction, axis=1)
    while (zero := norms < 1e-300).any():
        direction[zero] = rng.standard_normal((int(zero.sum()), dim))
        norms[zero] = np.linalg.norm(direction[zero], axis=1)
    radius = rng.gamma(shape=dim, scale=1.0 / epsilon, size=size)
    return direction * (radius / norms)[:, None]


def _check_size(size) -> int | tuple[int, ...]:
    """A numpy output shape: a non-negative whole number or a tuple of them."""
    if isinstance(size, numbers.Real):
        return check_positive_int(size, "size", minimum=0)
    if isinstance(size, (tuple, list, np.ndarray)) and np.ndim(size) == 1:
        return tuple(check_positive_int(n, "size", minimum=0) for n in size)
    raise ValueError(f"size must be a whole number or a tuple of whole numbers (an array shape), got {shown(size)}.")


def gaussian_noise(sigma: float, size, rng=None) -> np.ndarray:
    """iid N(0, sigma^2) noise of shape ``size`` (an int or a tuple), float64.

    The noise of the Gaussian mechanism (Dwork & Roth 2014, "The Algorithmic Foundations of
    Differential Privacy", Appendix A; sigma from ``privlib.core.calibration``). Accepted:
    1e-290 <= sigma <= 1e306 (every draw a finite, normal float64: see the module docstring).
    """
    sigma = _check_scale(sigma, "sigma (the noise standard deviation)",
                         "sigma grows as epsilon and delta shrink, so choose them accordingly")
    size = _check_size(size)
    return as_generator(rng).normal(0.0, sigma, size=size)


def laplace_scalar_noise(scale: float, size, rng=None) -> np.ndarray:
    """iid Laplace(0, scale) noise of shape ``size``, float64: density exp(-|x|/scale)/(2 scale).

    The noise of the Laplace mechanism with scale = Delta_1/epsilon (Dwork & Roth 2014, Definition
    3.3 and Theorem 3.6; ``privlib.core.calibration.laplace_scale``). Accepted: 1e-290 <= scale
    <= 1e306 (every draw a finite, normal float64: see the module docstring).
    """
    scale = _check_scale(scale, "scale (the Laplace scale b)",
                         "b = sensitivity/epsilon; use a larger epsilon for a smaller b, a smaller one for a larger b")
    size = _check_size(size)
    return as_generator(rng).laplace(0.0, scale, size=size)


def geometric_noise(epsilon: float, size, rng=None) -> np.ndarray:
    """iid two-sided geometric (discrete Laplace) noise of shape ``size``, int64.

    P(K = k) = (1 - a)/(1 + a) * a^|k| with a = exp(-epsilon), k in Z: the geometric mechanism of
    Ghosh, Roughgarden & Sundararajan (2012, "Universally utility-maximizing privacy mechanisms",
    SIAM J. Comput. 41(6)), epsilon-DP for integer queries of sensitivity 1.
    Sampled exactly as the difference of two iid geometric variables with success probability
    1 - a (numpy counts trials, but the shift cancels in the difference). Variance
    2a/(1 - a)^2.

    Accepted: epsilon >= GEOMETRIC_MIN_EPSILON = 1e-14 (every count an exact integer below 2^53;
    numpy would clip counts to the int64 maximum below ~5e-18, and their difference would be 0:
    no noise at the strongest privacy). Any larger finite epsilon is exact: for epsilon above
    ~37, P(K != 0) = 2a/(1 + a) is below 1e-16, the resolution of the uniform draws, and K is 0.
    """
    epsilon = check_epsilon(epsilon)
    if epsilon < GEOMETRIC_MIN_EPSILON:
        raise ValueError(
            f"epsilon of the two-sided geometric noise must be at least {GEOMETRIC_MIN_EPSILON:g} (its draws, of "
            f"order 1/epsilon, must be whole numbers float64 holds exactly), got {shown(epsilon)}: use a larger "
            f"epsilon (noise of 1e14 already swamps any count)."
        )
    size = _check_size(size)
    rng = as_generator(rng)
    success = -np.expm1(-epsilon)  # 1 - exp(-epsilon) without cancellation for small epsilon
    return rng.geometric(success, size=size).astype(np.int64) - rng.geometric(success, size=size).astype(np.int64)
