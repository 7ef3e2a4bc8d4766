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


def clopper_pearson_upper(successes, trials, confidence: float):
    """One-sided Clopper–Pearson upper confidence bound on a binomial proportion (vectorised).

    Clopper & Pearson (1934), "The use of confidence or fiducial limits illustrated in the case of
    the binomial", Biometrika 26: the largest p with P(Bin(n, p) <= k) >= 1 - confidence, i.e. the
    ``confidence`` quantile of Beta(k + 1, n - k) for k < n, and 1 for k = n; at k = 0 it is
    1 - (1 - confidence)^(1/n). It covers the true proportion with probability at least
    ``confidence`` whatever p is (exact, not asymptotic), as auditing needs (Jagielski, Ullman &
    Oprea 2020; Nasr et al. 2021). Equal to the upper end of scipy's two-sided "exact" interval
    (``binomtest(k, n).proportion_ci``) at confidence 2·confidence − 1.

    ``successes`` may be real numbers in [0, trials] (the Beta quantile interpolates between whole
    counts): an expected count gives the bound a count of that size would have, to plan a test
    before counting.
    """
    from scipy.special import betaincinv

    confidence = check_range(confidence, "confidence", low=0.0, high=1.0, low_inclusive=False,
                             high_inclusive=False)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    if not np.all(np.isfinite(n)) or np.any(n <= 0) or np.any(n != np.floor(n)):
        raise ValueError("trials must be whole numbers greater than 0.")
    if not np.all(np.isfinite(k)) or np.any(k < 0) or np.any(k > n):
        raise ValueError("successes must be counts between 0 and the number of trials.")
    below = k < n
    # Beta(k + 1, n - k) needs n - k > 0: the k = n entries are computed at a dummy value and replaced by 1
    quantile = betaincinv(k + 1, np.where(below, n - k, 1.0), confidence)
    bound = np.where(below, quantile, 1.0)
    return float(bound) if bound.ndim == 0 else bound
