"""The one-sided Clopper–Pearson upper bound against scipy's exact interval and brute force."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlib.core.statistics import clopper_pearson_upper


def brute_force_upper(ks, n: int, confidence: float) -> np.ndarray:
    """The largest p with P(Bin(n, p) <= k) >= 1 - confidence for each k, by bisection on the
    binomial CDF (decreasing in p): the definition of the bound, with no Beta function."""
    ks = np.asarray(ks)
    low, high = np.zeros(ks.shape), np.ones(ks.shape)
    for _ in range(64):  # 2^-64: far below the relative tolerance even for bounds near 1e-4
        middle = (low + high) / 2
        holds = stats.binom.cdf(ks, n, middle) >= 1 - confidence
        low, high = np.where(holds, middle, low), np.where(holds, high, middle)
    return np.where(ks == n, 1.0, low)


@pytest.mark.parametrize("n", [1, 7, 50, 5000])
@pytest.mark.parametrize("confidence", [0.9, 0.975, 0.9995])
def test_upper_bound_is_the_definition(n, confidence):
    ks = np.unique(np.linspace(0, n, 7).astype(int))
    np.testing.assert_allclose(clopper_pearson_upper(ks, n, confidence), brute_force_upper(ks, n, confidence),
                               rtol=1e-9)


@pytest.mark.parametrize("n", [10, 333, 5000])
@pytest.mark.parametrize("gamma", [0.05, 1e-3])
def test_upper_bound_is_scipys_exact_interval_end(n, gamma):
    """A two-sided exact interval at 1 − 2γ puts γ in each tail: its upper end is the one-sided bound at 1 − γ."""
    for k in np.unique(np.linspace(0, n, 6).astype(int)):
        ci = stats.binomtest(int(k), n).proportion_ci(confidence_level=1 - 2 * gamma, method="exact")
        assert clopper_pearson_upper(int(k), n, 1 - gamma) == pytest.approx(ci.high, rel=1e-8)


def test_zero_successes_closed_form_and_the_audit_ceiling():
    """At k = 0 the bound is 1 − γ^(1/n); with 5,000 trials at γ = 0.025 (95 %, two rates) ln(1/U) = 7.2."""
    upper = clopper_pearson_upper(0, 5000, 0.975)
    assert upper == pytest.approx(-math.expm1(math.log(0.025) / 5000), rel=1e-12)
    assert round(math.log(1 / upper), 1) == 7.2


def test_bound_covers_the_true_proportion():
    """Exact coverage: for every p, P(U(K) >= p) >= confidence, summed over the binomial law of K."""
    n, confidence = 40, 0.9
    upper = clopper_pearson_upper(np.arange(n + 1), n, confidence)
    for p in np.linspace(0.001, 0.999, 181):
        coverage = stats.binom.pmf(np.arange(n + 1), n, p)[upper >= p].sum()
        assert coverage >= confidence - 1e-12


def test_real_counts_interpolate_and_full_counts_give_one():
    bounds = clopper_pearson_upper([3.0, 3.5, 4.0, 20.0], 20, 0.95)
    assert bounds[0] < bounds[1] < bounds[2] < bounds[3] == 1.0
    assert isinstance(clopper_pearson_upper(2, 10, 0.95), float)


@pytest.mark.parametrize("args, message", [
    ((-1, 10, 0.95), "successes"),
    ((11, 10, 0.95), "successes"),
    ((np.nan, 10, 0.95), "successes"),
    ((1, 0, 0.95), "trials"),
    ((1, 2.5, 0.95), "trials"),
    ((1, 10, 1.0), "confidence"),
    ((1, 10, 0.0), "confidence"),
])
def test_bad_inputs(args, message):
    with pytest.raises(ValueError, match=message):
        clopper_pearson_upper(*args)
