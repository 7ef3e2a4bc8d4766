"""Noise distributions of the DP mechanisms, each drawn from a numpy Generator (one home each)."""
from __future__ import annotations

import numbers

import numpy as np

from privlib.core.validation import as_generator, check_epsilon, check_positive_int, check_range


def laplace_noise(dim: int, epsilon: float, size: int, rng=None) -> np.ndarray:
    """``size`` draws of multivariate Laplace noise in R^dim, shape (size, dim), float64.

    Density p(eta) ∝ exp(-epsilon ||eta||) (Feyisetan, Balle, Drake & Diethe 2020, "Privacy- and
    utility-preserving textual analysis via calibrated multivariate perturbations", WSDM): radius
    R ~ Gamma(shape=dim, scale=1/epsilon) (the radial part r^{dim-1} e^{-eps r}) times a direction
    uniform on the unit sphere (a normalised standard normal vector; an all-zero normal vector,
    probability 0 in exact arithmetic, is redrawn rather than divided by).
    """
    dim = check_positive_int(dim, "dim")
    epsilon = check_epsilon(epsilon)
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
    raise ValueError(f"size must be a whole number or a tuple of whole numbers (an array shape), got {size!r}.")


def gaussian_noise(sigma: float, size, rng=None) -> np.ndarray:
    """iid N(0, sigma^2) noise of shape ``size`` (an int or a tuple), float64.

    The noise of the Gaussian mechanism (Dwork & Roth 2014, "The Algorithmic Foundations of
    Differential Privacy", Appendix A; sigma from ``privlib.core.calibration``).
    """
    sigma = check_range(sigma, "sigma (the noise standard deviation)", low=0.0, low_inclusive=False)
    size = _check_size(size)
    return as_generator(rng).normal(0.0, sigma, size=size)


def laplace_scalar_noise(scale: float, size, rng=None) -> np.ndarray:
    """iid Laplace(0, scale) noise of shape ``size``, float64: density exp(-|x|/scale)/(2 scale).

    The noise of the Laplace mechanism with scale = Delta_1/epsilon (Dwork & Roth 2014, Definition
    3.3 and Theorem 3.6; ``privlib.core.calibration.laplace_scale``).
    """
    scale = check_range(scale, "scale (the Laplace scale b)", low=0.0, low_inclusive=False)
    size = _check_size(size)
    return as_generator(rng).laplace(0.0, scale, size=size)


def geometric_noise(epsilon: float, size, rng=None) -> np.ndarray:
    """iid two-sided geometric (discrete Laplace) noise of shape ``size``, int64.

    P(K = k) = (1 - a)/(1 + a) * a^|k| with a = exp(-epsilon), k in Z: the geometric mechanism of
    Ghosh, Roughgarden & Sundararajan (2012, "Universally utility-maximizing privacy mechanisms",
    SIAM J. Comput. 41(6)), epsilon-DP for integer queries of sensitivity 1.
    Sampled exactly as the difference of two iid geometric variables with success probability
    1 - a (numpy counts trials, but the shift cancels in the difference). Variance
    2a/(1 - a)^2. Very small epsilon gives huge values (beyond ~1e-12 they no longer fit well in
    int64).
    """
    epsilon = check_epsilon(epsilon)
    size = _check_size(size)
    rng = as_generator(rng)
    success = -np.expm1(-epsilon)  # 1 - exp(-epsilon) without cancellation for small epsilon
    return rng.geometric(success, size=size).astype(np.int64) - rng.geometric(success, size=size).astype(np.int64)
