"""Binomial uncertainty for sampled proportions: standard errors and Wilson score intervals."""
from __future__ import annotations

import numpy as np

from privlib.core.validation import check_range


def _check_proportions(p, n):
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("p must hold proportions between 0 and 1.")
    if not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise ValueError("n (the number of trials) must be greater than 0.")
    return p, n


def binomial_standard_error(p, n):
    """sqrt(p (1 - p)/n): the standard error of a proportion p of n independent trials (vectorised)."""
    p, n = _check_proportions(p, n)
    return np.sqrt(p * (1 - p) / n)


def wilson_interval(p, n, z: float):
    """Wilson score interval (low, high) for a binomial fraction p of n trials, z standard errors wide.

    Wilson (1927), "Probable inference, the law of succession, and statistical inference", JASA 22:
    the p' with (p - p')^2 = z^2 p'(1 - p')/n, i.e.
    (p + z^2/(2n) -+ z sqrt(p(1 - p)/n + z^2/(4n^2))) / (1 + z^2/n), clipped to [0, 1]. Vectorised
    over p (and n).
    """
    z = check_range(z, "z (the number of standard errors)", low=0.0)
    p, n = _check_proportions(p, n)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
