"""Randomised response on labels (k-ary RR from privlib.core), RRWithPrior and LP-2ST's label draws.

Reference values: the retraining paper's §3 (eq. 1) and Ghazi et al. (2021), Alg. 2 (RRWithPrior);
the table below was computed in float64 and with 40-digit mpmath.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from privlib.core.mechanism import Mechanism
from privlib.core.randomised_response import RandomisedResponse
from privlib.label_dp.mechanisms import (
    GUARANTEE,
    LP2ST,
    MECHANISMS,
    RR,
    RRWithPrior,
    make_randomiser,
    rr_prior_weights,
    rr_with_prior_probabilities,
)
from privlib.label_dp.models import LogisticModel


def noisy_labels(y, classes, epsilon, rng):
    return RR(epsilon=epsilon).release(None, y, classes, rng).labels


def rr_with_prior(y, prior, epsilon, rng):
    return RRWithPrior(epsilon=epsilon, prior=prior).release(None, y, np.shape(prior)[-1], rng).labels


def lp2st_labels(X, y, classes, epsilon, model, rng):
    return LP2ST(epsilon=epsilon, model=model).release(X, y, classes, rng)

# (C, ε, P(ŷ = y), P(ŷ = z ≠ y))
RR_TABLE = [
    (2, math.log(1.5), 0.6, 0.4),
    (2, 1.0, 0.7310585786, 0.2689414214),
    (4, 0.3, 0.3103224420, 0.2298925193),
    (4, 0.5, 0.3546612444, 0.2151129185),
    (4, 0.8, 0.4258967558, 0.1913677481),
    (10, 1.0, 0.2319693167, 0.0853367426),
    (10, 2.0, 0.4508530604, 0.0610163266),
    (10, 3.0, 0.6905678577, 0.0343813491),
    (100, 3.0, 0.1686647887, 0.0083973254),
    (100, 4.0, 0.3554609871, 0.0065104951),
    (100, 5.0, 0.5998596018, 0.0040418222),
]

EXAMPLE_PRIOR = (0.5, 0.2, 0.15, 0.1, 0.05)
EXAMPLE_WEIGHTS = (0.5, 0.511741, 0.489699, 0.451599, 0.404610)


@pytest.mark.parametrize("C, eps, keep, other", RR_TABLE)
def test_rr_probability_table(C, eps, keep, other):
    rr = RandomisedResponse(C, eps)
    # the table is given to 10 decimals: relative 1e-9 where the digits allow it
    assert rr.keep_probability == pytest.approx(keep, rel=1e-9, abs=5e-11)
    assert rr.other_probability == pytest.approx(other, rel=1e-9, abs=5e-11)
    assert rr.keep_probability + (C - 1) * rr.other_probability == pytest.approx(1.0, abs=1e-15)
    if C == 2:  # binary: flip probability 1/(1 + e^ε)
        assert rr.flip_probability == pytest.approx(1.0 / (1.0 + math.exp(eps)), rel=1e-12)


def test_binary_flip_04_is_ln_15():
    assert RandomisedResponse.epsilon_from_keep(0.6, 2) == pytest.approx(math.log(1.5), rel=1e-12)


@pytest.mark.parametrize("C, eps", [(2, 0.4), (4, 0.5), (10, 1.0), (10, 3.0)])
def test_sampled_keep_rate_within_4_se(C, eps):
    rng = np.random.default_rng(20240613 + C)
    n = 200_000
    y = rng.integers(0, C, n)
    noisy = noisy_labels(y, C, eps, np.random.default_rng(7))
    q = RandomisedResponse(C, eps).keep_probability
    se = math.sqrt(q * (1 - q) / n)
    assert abs(np.mean(noisy == y) - q) < 4 * se


def _chi2_uniform_flips(y, noisy, C):
    """χ² p-value for 'the flipped label is uniform over the C − 1 other classes' (offsets 1..C−1)."""
    flipped = noisy != y
    offsets = (noisy[flipped] - y[flipped]) % C
    counts = np.bincount(offsets, minlength=C)[1:]
    return stats.chisquare(counts).pvalue


def test_flips_are_uniform_over_the_other_classes():
    C, eps, n = 10, 1.0, 100_000
    y = np.random.default_rng(1).integers(0, C, n)
    noisy = noisy_labels(y, C, eps, np.random.default_rng(2))
    assert _chi2_uniform_flips(y, noisy, C) > 1e-3
    # the same check catches a sampler that sends flips to the next class only
    biased = np.where(noisy != y, np.where(np.random.default_rng(3).random(n) < 0.5, (y + 1) % C, noisy), y)
    assert _chi2_uniform_flips(y, biased, C) < 1e-6
    # and per true class, never to itself
    assert np.all(noisy[noisy != y] != y[noisy != y])


@pytest.mark.parametrize("C", [2, 3, 4, 10, 100])
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 8.0])
def test_rr_privacy_ratio_is_exactly_e_eps_for_every_pair(C, eps):
    M = RandomisedResponse(C, eps).transition_matrix()
    worst = 0.0
    for y, y2 in itertools.permutations(range(min(C, 12)), 2):
        ratio = M[y] / M[y2]
        worst = max(worst, ratio.max())
        assert ratio.max() == pytest.approx(math.exp(eps), rel=1e-12)  # attained at z = y
        assert ratio.min() == pytest.approx(math.exp(-eps), rel=1e-12)
    assert worst == pytest.approx(math.exp(eps), rel=1e-12)


@pytest.mark.parametrize("C, eps", [(4, 0.5), (10, 1.0), (100, 3.0)])
def test_rr_calibrated_as_binary_fails(C, eps):
    """Pitfall: keep with 1 − 1/(1 + e^ε) and spread the rest over the C − 1 others gives
    ε + ln(C − 1), not ε (C = 10, ε = 1: 3.197)."""
    keep = 1.0 - 1.0 / (1.0 + math.exp(eps))
    other = (1.0 - keep) / (C - 1)
    realised = math.log(keep / other)
    assert realised == pytest.approx(eps + math.log(C - 1), rel=1e-12)
    assert realised > eps + 0.5
    if (C, eps) == (10, 1.0):
        assert realised == pytest.approx(3.197, abs=5e-4)
    # the correct calibration attains exactly ε
    rr = RandomisedResponse(C, eps)
    assert math.log(rr.keep_probability / rr.other_probability) == pytest.approx(eps, rel=1e-12)


def test_rr_epsilon_zero_is_uniform():
    y = np.zeros(100_000, dtype=int)
    noisy = noisy_labels(y, 4, 0.0, np.random.default_rng(5))
    freq = np.bincount(noisy, minlength=4) / y.size
    assert np.all(np.abs(freq - 0.25) < 4 * math.sqrt(0.25 * 0.75 / y.size))


# ---------------------------------------------------------------------------------------------
# RRWithPrior
# ---------------------------------------------------------------------------------------------

def test_rr_with_prior_spec_example():
    choice = rr_prior_weights(EXAMPLE_PRIOR, 1.0)
    np.testing.assert_allclose(choice.weights, EXAMPLE_WEIGHTS, atol=5e-7)
    assert choice.k_star == 2
    assert list(choice.top_classes) == [0, 1]
    assert choice.keep_probability == pytest.approx(0.731059, abs=5e-7)
    for y in (0, 1):  # y ∈ Y
        law = rr_with_prior_probabilities(y, EXAMPLE_PRIOR, 1.0)
        assert law[y] == pytest.approx(0.731059, abs=5e-7)
        assert law[1 - y] == pytest.approx(1 - 0.731059, abs=5e-7)
    for y in (2, 3, 4):  # y ∉ Y: ½ on each of the top two classes
        np.testing.assert_allclose(rr_with_prior_probabilities(y, EXAMPLE_PRIOR, 1.0), [0.5, 0.5, 0, 0, 0], atol=1e-15)


def _index_shifted_k_star(prior, eps):
    """google-research/label-dp's variant: weight e^ε/(e^ε + m − 2) for a top-m set (do not port)."""
    sums = np.cumsum(np.sort(prior)[::-1])
    m = np.arange(1, len(prior) + 1)
    return int(np.argmax(math.exp(eps) / (math.exp(eps) + m - 2) * sums)) + 1


def test_index_shifted_variant_differs_on_the_example():
    assert _index_shifted_k_star(np.array(EXAMPLE_PRIOR), 1.0) == 1
    assert rr_prior_weights(EXAMPLE_PRIOR, 1.0).k_star == 2
    # with k* = 1 the shifted rule always outputs class 0 for this prior: P(keep | y = 1) drops to 0
    assert rr_with_prior_probabilities(1, EXAMPLE_PRIOR, 1.0)[1] == pytest.approx(0.731059, abs=5e-7)


def _prior_grid():
    rng = np.random.default_rng(11)
    priors = [np.full(4, 0.25), np.array([1.0, 0, 0, 0]), np.array([0.5, 0.5, 0, 0]), np.array(EXAMPLE_PRIOR),
              np.array([0.3, 0.3, 0.2, 0.2]), np.array([0.05, 0.05, 0.1, 0.8])]
    priors += [rng.dirichlet(np.full(C, a)) for C in (3, 5, 10) for a in (0.2, 1.0, 5.0)]
    return priors


@pytest.mark.parametrize("eps", [0.0, 0.2, 1.0, 2.5, 6.0])
def test_rr_with_prior_privacy_ratio_at_most_e_eps(eps):
    for prior in _prior_grid():
        C = prior.size
        laws = np.array([rr_with_prior_probabilities(y, prior, eps) for y in range(C)])
        np.testing.assert_allclose(laws.sum(axis=1), 1.0, atol=1e-12)
        support = laws[0] > 0
        assert np.all((laws > 0) == support)  # the output set Y never depends on y
        for y, y2 in itertools.permutations(range(C), 2):
            ratio = laws[y, support] / laws[y2, support]
            assert ratio.max() <= math.exp(eps) * (1 + 1e-12)


def test_rr_with_prior_uniform_prior_is_plain_rr():
    for C, eps in [(2, 0.7), (5, 1.0), (10, 2.0)]:
        choice = rr_prior_weights(np.full(C, 1.0 / C), eps)
        assert choice.k_star == C
        M = RandomisedResponse(C, eps).transition_matrix()
        for y in range(C):
            np.testing.assert_allclose(rr_with_prior_probabilities(y, np.full(C, 1.0 / C), eps), M[y], rtol=1e-12)


def test_rr_with_prior_smallest_maximiser():
    # ε = 0, uniform prior: every w_k = 1/C, the smallest maximiser is k = 1
    assert rr_prior_weights(np.full(4, 0.25), 0.0).k_star == 1


def test_rr_with_prior_sampler_matches_its_law():
    n, eps = 60_000, 1.0
    prior = np.array(EXAMPLE_PRIOR)
    for y in range(5):
        out = rr_with_prior(np.full(n, y), prior, eps, np.random.default_rng(100 + y))
        law = rr_with_prior_probabilities(y, prior, eps)
        freq = np.bincount(out, minlength=5) / n
        se = np.sqrt(law * (1 - law) / n)
        assert np.all(np.abs(freq - law) <= 4 * se + 1e-12)


def test_rr_with_prior_per_row_priors_and_couplings():
    """Row priors are used row by row, and a changed label changes only its own output."""
    rng = np.random.default_rng(3)
    priors = rng.dirichlet(np.ones(6), size=500)
    y = rng.integers(0, 6, 500)
    out = rr_with_prior(y, priors, 1.5, np.random.default_rng(9))
    for j in range(500):
        assert out[j] in rr_prior_weights(priors[j], 1.5).top_classes
    y2 = y.copy()
    y2[17] = (y2[17] + 1) % 6
    out2 = rr_with_prior(y2, priors, 1.5, np.random.default_rng(9))
    assert np.all(np.delete(out, 17) == np.delete(out2, 17))


# ---------------------------------------------------------------------------------------------
# LP-2ST's label draws
# ---------------------------------------------------------------------------------------------

def _lp2st_data():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((200, 3))
    y = (X[:, 0] > 0).astype(int) + 2 * (X[:, 1] > 0)  # 4 classes
    return X, y


def test_lp2st_split_uses_no_labels_and_each_label_is_drawn_once():
    X, y = _lp2st_data()
    a = lp2st_labels(X, y, 4, 1.0, "logistic", np.random.default_rng(1))
    b = lp2st_labels(X, (y + 1) % 4, 4, 1.0, "logistic", np.random.default_rng(1))
    assert np.array_equal(a.first_half, b.first_half)  # the split ignores the labels
    assert a.first_half.sum() == 100
    assert a.priors.shape == (100, 4)
    np.testing.assert_allclose(a.priors.sum(axis=1), 1.0, atol=1e-12)
    # neighbouring datasets (one label changed), same randomness. A second-half label changes only its
    # own output. A first-half label changes its own output and, only through that released label
    # (M1 is refitted on it), the second-half priors: post-processing. Nothing is redrawn.
    first, second = np.flatnonzero(a.first_half), np.flatnonzero(~a.first_half)
    for i in (int(second[5]), int(second[40])):
        y2 = y.copy()
        y2[i] = (y2[i] + 2) % 4
        c = lp2st_labels(X, y2, 4, 1.0, "logistic", np.random.default_rng(1))
        assert set(np.flatnonzero(c.labels != a.labels).tolist()) <= {i}
        np.testing.assert_array_equal(c.priors, a.priors)
    for i in (int(first[3]), int(first[60])):
        y2 = y.copy()
        y2[i] = (y2[i] + 2) % 4
        c = lp2st_labels(X, y2, 4, 1.0, "logistic", np.random.default_rng(1))
        assert set(first[c.labels[first] != a.labels[first]].tolist()) <= {i}
        m1 = LogisticModel(4).fit(X[first], c.labels[first])  # M1 sees released labels only
        np.testing.assert_allclose(c.priors, m1.predict_proba(X[second]), rtol=1e-12, atol=1e-15)
        if c.labels[i] == a.labels[i]:  # same released label: same everything
            np.testing.assert_array_equal(c.labels, a.labels)


def test_lp2st_priors_cover_all_classes_with_zeros_for_unseen():
    X, y = _lp2st_data()
    split = lp2st_labels(X, y, 5, 50.0, "logistic", np.random.default_rng(1)).first_half
    y5 = y.copy()
    y5[~split] = np.where(np.arange((~split).sum()) % 7 == 0, 4, y5[~split])  # class 4 only in half 2
    out = lp2st_labels(X, y5, 5, 50.0, "logistic", np.random.default_rng(1))
    assert 4 not in out.labels[out.first_half]  # at ε = 50 RR keeps every label
    assert out.priors.shape == (int((~split).sum()), 5)
    assert np.all(out.priors[:, 4] == 0.0)
    # a class with zero prior is never output by RRWithPrior
    assert 4 not in out.labels[~out.first_half]


# ---------------------------------------------------------------------------------------------
# The randomisers as mechanisms
# ---------------------------------------------------------------------------------------------

def test_randomisers_follow_the_core_pattern():
    assert list(MECHANISMS) == ["rr", "rr-prior", "lp2st"]
    for name, cls in MECHANISMS.items():
        assert issubclass(cls, Mechanism) and cls.name == name and cls.label
        zero = cls(epsilon=0.0)  # ε = 0 is allowed: a uniform (useless but private) output
        assert zero.epsilon == 0.0
        g = cls(epsilon=1.5).guarantee
        assert (g.kind, g.epsilon, g.neighbours) == ("label-dp", 1.5, "datasets that differ in one training label")
        assert str(g) == GUARANTEE
        for bad in (-1.0, float("nan"), float("inf"), "1"):
            with pytest.raises(ValueError, match="epsilon"):
                cls(epsilon=bad)
        with pytest.raises(TypeError):
            cls(1.0)  # keyword-only
    assert set(LP2ST.PARAMETERS) == {"model"} and LP2ST(epsilon=1).parameters == {"model": "logistic"}
    with pytest.raises(ValueError, match="model"):
        LP2ST(epsilon=1, model="tree")
    with pytest.raises(ValueError, match="prior"):
        RRWithPrior(epsilon=1, prior=[0.5, -0.1, 0.6])
    assert make_randomiser("lp2st", 2.0, "centroid").model == "centroid"
    assert make_randomiser("rr", 2.0, "centroid").epsilon == 2.0  # RR fits no model: the model is ignored
    with pytest.raises(ValueError, match="pate"):
        make_randomiser("pate", 1.0)


def test_release_checks_its_labels():
    with pytest.raises(ValueError, match="class indices"):
        RR(epsilon=1).release(None, [0, 3], 3)
    with pytest.raises(ValueError, match="1-D"):
        RR(epsilon=1).release(None, [[0, 1]], 2)
    with pytest.raises(ValueError, match="one row per label"):
        LP2ST(epsilon=1).release(np.zeros((3, 2)), [0, 1], 2)
    with pytest.raises(ValueError, match="one entry per class"):
        RRWithPrior(epsilon=1, prior=[0.5, 0.5]).release(None, [0, 1, 2], 3)
    out = RR(epsilon=1).release(None, np.array([0, 1, 1]), 2, 7)
    assert (out.randomiser, out.epsilon, out.classes, out.first_half) == ("rr", 1.0, 2, None)
