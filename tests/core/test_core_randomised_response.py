"""k-ary randomised response: privacy checked exactly on the transition matrix, the sampler checked
statistically (fixed seeds), the frequency estimator checked for unbiasedness."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from privlib.core.randomised_response import RandomisedResponse

CLASSES = [2, 3, 5, 10]
PRIVACY_EPSILONS = [0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0]


def privacy_violations(matrix: np.ndarray, epsilon: float, slack: float = 1e-12):
    """All (y, y', z) with P(z|y) > e^eps P(z|y') (beyond float rounding), and the largest ratio
    P(z|y)/P(z|y') over every pair of inputs and every output."""
    bound = math.exp(epsilon) * (1 + slack)
    p = matrix[:, None, :]        # P(z | y)
    p_other = matrix[None, :, :]  # P(z | y')
    violations = np.argwhere(p > bound * p_other)
    return violations, float((p / p_other).max())


def binary_calibrated_matrix(classes: int, epsilon: float) -> np.ndarray:
    """The WRONG multi-class calibration: keep as for binary RR, the rest spread over C - 1 classes."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    matrix = np.full((classes, classes), (1 - keep) / (classes - 1))
    np.fill_diagonal(matrix, keep)
    return matrix


@pytest.mark.parametrize("classes", CLASSES)
@pytest.mark.parametrize("epsilon", PRIVACY_EPSILONS)
def test_every_pair_of_inputs_satisfies_epsilon_dp_tightly(classes, epsilon):
    rr = RandomisedResponse(classes, epsilon)
    matrix = rr.transition_matrix()
    assert matrix.shape == (classes, classes)
    assert np.all(matrix > 0)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    violations, worst = privacy_violations(matrix, epsilon)
    assert violations.size == 0, violations
    assert worst == pytest.approx(math.exp(epsilon), rel=1e-12)  # the bound is attained: tight
    for y in range(classes):
        np.testing.assert_array_equal(rr.probabilities(y), matrix[y])


@pytest.mark.parametrize("classes", [3, 5, 10])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_binary_calibration_for_many_classes_is_not_private(classes, epsilon):
    violations, worst = privacy_violations(binary_calibrated_matrix(classes, epsilon), epsilon)
    assert violations.size > 0
    assert worst == pytest.approx((classes - 1) * math.exp(epsilon), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_binary_calibration_is_right_for_two_classes(epsilon):
    violations, _ = privacy_violations(binary_calibrated_matrix(2, epsilon), epsilon)
    assert violations.size == 0
    rr = RandomisedResponse(2, epsilon)
    assert rr.flip_probability == pytest.approx(1 / (1 + math.exp(epsilon)), rel=1e-12)
    np.testing.assert_allclose(rr.transition_matrix(), binary_calibrated_matrix(2, epsilon), rtol=1e-12)


@pytest.mark.parametrize("classes", CLASSES)
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0, 4.0, 20.0])
def test_probabilities_match_the_definition(classes, epsilon):
    rr = RandomisedResponse(classes, epsilon)
    denominator = math.exp(epsilon) + classes - 1
    assert rr.keep_probability == pytest.approx(math.exp(epsilon) / denominator, rel=1e-12)
    assert rr.other_probability == pytest.approx(1 / denominator, rel=1e-12)
    assert rr.flip_probability == pytest.approx((classes - 1) / denominator, rel=1e-12)
    assert rr.keep_probability + rr.flip_probability == pytest.approx(1.0, abs=1e-15)


def test_epsilon_zero_is_uniform():
    for classes in CLASSES:
        np.testing.assert_allclose(RandomisedResponse(classes, 0).transition_matrix(), 1 / classes, rtol=1e-15)


def test_huge_epsilon_is_overflow_free():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rr = RandomisedResponse(10, 1000.0)
        assert rr.keep_probability == 1.0
        assert math.isfinite(rr.other_probability) and 0 <= rr.other_probability < 1e-300
        assert math.isfinite(rr.flip_probability) and rr.flip_probability < 1e-300
        labels = np.arange(10).repeat(100)
        np.testing.assert_array_equal(rr.sample(labels, rng=1), labels)


@pytest.mark.parametrize("classes", CLASSES)
def test_epsilon_from_keep_inverts_keep_probability(classes):
    for epsilon in (0.0, 0.01, 0.5, 1.0, 3.0, 10.0):
        q = RandomisedResponse(classes, epsilon).keep_probability
        assert RandomisedResponse.epsilon_from_keep(q, classes) == pytest.approx(epsilon, rel=1e-9, abs=1e-12)
    assert RandomisedResponse.epsilon_from_keep(1 / classes, classes) == 0.0


@pytest.mark.parametrize("q, classes", [(0.2, 3), (0.0, 2), (0.49, 2), (1.0, 4), (1.5, 2), (-0.1, 2),
                                        (float("nan"), 2), ("0.5", 2), (0.5, 1)])
def test_epsilon_from_keep_rejects_impossible_keep(q, classes):
    with pytest.raises(ValueError, match="q|classes"):
        RandomisedResponse.epsilon_from_keep(q, classes)


# ----------------------------------------------------------------------------- sampling
def test_sampled_keep_rate_and_uniform_flips():
    classes, epsilon, n = 5, 1.0, 200_000
    rr = RandomisedResponse(classes, epsilon)
    rng = np.random.default_rng(20240601)
    labels = rng.integers(0, classes, size=n)
    noisy = rr.sample(labels, rng=np.random.default_rng(7))
    assert noisy.shape == labels.shape and noisy.dtype == np.int64
    assert noisy.min() >= 0 and noisy.max() < classes
    kept = (noisy == labels).mean()
    keep = rr.keep_probability
    assert abs(kept - keep) <= 4 * math.sqrt(keep * (1 - keep) / n)
    # Flips go to each of the C - 1 other classes equally often, whatever the true label.
    flipped = noisy != labels
    shift = (noisy[flipped] - labels[flipped]) % classes
    counts = np.bincount(shift, minlength=classes)[1:]
    assert stats.chisquare(counts).pvalue > 1e-3
    for y in range(classes):
        mask = flipped & (labels == y)
        counts = np.bincount(noisy[mask], minlength=classes)
        assert counts[y] == 0
        assert stats.chisquare(np.delete(counts, y)).pvalue > 1e-3


@pytest.mark.parametrize("classes, epsilon", [(2, 0.5), (3, 2.0), (10, 3.0)])
def test_sampled_output_law_matches_probabilities(classes, epsilon):
    rr = RandomisedResponse(classes, epsilon)
    n = 40_000
    for y in (0, classes - 1):
        noisy = rr.sample(np.full(n, y), rng=np.random.default_rng(100 + y))
        observed = np.bincount(noisy, minlength=classes)
        assert stats.chisquare(observed, n * rr.probabilities(y)).pvalue > 1e-3


def test_sample_keeps_shape_and_is_reproducible():
    rr = RandomisedResponse(3, 1.0)
    labels = np.array([[0, 1, 2], [2, 1, 0]])
    first = rr.sample(labels, rng=3)
    assert first.shape == (2, 3)
    np.testing.assert_array_equal(first, rr.sample(labels, rng=3))
    assert rr.sample([], rng=0).size == 0


# ----------------------------------------------------------------------------- frequency estimate
@pytest.mark.parametrize("classes, epsilon", [(2, 0.5), (4, 1.0), (10, 2.0)])
def test_frequency_estimate_is_unbiased(classes, epsilon):
    rr = RandomisedResponse(classes, epsilon)
    n = 100_000
    weights = np.arange(1, classes + 1, dtype=float)
    truth = weights / weights.sum()
    counts = np.floor(truth * n).astype(int)
    counts[0] += n - counts.sum()
    truth = counts / n  # exact true frequencies of a fixed label set
    labels = np.repeat(np.arange(classes), counts)
    noisy = rr.sample(labels, rng=np.random.default_rng(classes))
    estimate = rr.estimate_frequencies(noisy)
    # Exact standard error for these fixed labels: f_z averages independent Bernoullis with
    # success keep (true label z) or other (any other label).
    keep, other = rr.keep_probability, rr.other_probability
    var_f = (truth * keep * (1 - keep) + (1 - truth) * other * (1 - other)) / n
    se = np.sqrt(var_f) / (keep - other)
    assert np.all(np.abs(estimate - truth) <= 4 * se), (estimate, truth, se)
    assert estimate.sum() == pytest.approx(1.0, abs=1e-12)
    # The closed form equals the inverse transition matrix applied to the observed frequencies.
    observed = np.bincount(noisy, minlength=classes) / n
    np.testing.assert_allclose(estimate, np.linalg.solve(rr.transition_matrix().T, observed), rtol=1e-9, atol=1e-12)


def test_frequency_estimate_impossible_at_epsilon_zero():
    with pytest.raises(ValueError, match="epsilon = 0"):
        RandomisedResponse(3, 0.0).estimate_frequencies([0, 1, 2])


# ----------------------------------------------------------------------------- bad inputs and metadata
@pytest.mark.parametrize("classes, epsilon, message", [
    (1, 1.0, "classes"), (0, 1.0, "classes"), (2.5, 1.0, "classes"), ("3", 1.0, "classes"),
    (3, -1.0, "epsilon"), (3, float("nan"), "epsilon"), (3, float("inf"), "epsilon"), (3, "1", "epsilon"),
])
def test_constructor_rejects_bad_parameters(classes, epsilon, message):
    with pytest.raises(ValueError, match=message):
        RandomisedResponse(classes, epsilon)


@pytest.mark.parametrize("call, message", [
    (lambda rr: rr.probabilities(3), "true_label"),
    (lambda rr: rr.probabilities(-1), "true_label"),
    (lambda rr: rr.sample([0, 1, 3], rng=0), "0..2"),
    (lambda rr: rr.sample([0.0, 1.0], rng=0), "whole numbers"),
    (lambda rr: rr.sample([True, False], rng=0), "whole numbers"),
    (lambda rr: rr.estimate_frequencies([]), "empty"),
    (lambda rr: rr.estimate_frequencies([-1, 0]), "0..2"),
])
def test_methods_reject_bad_labels(call, message):
    with pytest.raises(ValueError, match=message):
        call(RandomisedResponse(3, 1.0))


def test_guarantee_and_repr():
    rr = RandomisedResponse(4, 1.5)
    assert rr.guarantee == "ε-DP for each randomised value (ε-label DP when applied to labels)"
    assert rr.classes == 4 and rr.epsilon == 1.5
    assert "classes=4" in repr(rr)


# ----------------------------------------------------------------------------- extremes of epsilon and classes
@pytest.mark.parametrize("epsilon, seed", [(0.0, 61), (1e-300, 62), (0.7, 63), (50.0, 64), (1e300, 65)])
def test_sampler_follows_its_law_at_extreme_epsilons(epsilon, seed):
    rr, n = RandomisedResponse(5, epsilon), 50_000
    noisy = rr.sample(np.full(n, 2), rng=seed)
    counts = np.bincount(noisy, minlength=5)
    p = rr.probabilities(2)
    possible = p > 0
    assert counts[~possible].sum() == 0
    if possible.sum() > 1:
        assert stats.chisquare(counts[possible], n * p[possible]).pvalue > 1e-3
    else:
        assert counts[2] == n
    if epsilon >= 50:  # other = e^-eps/(1 + 4e^-eps): below 2e-22, never drawn in 50,000
        assert counts[2] == n


@pytest.mark.parametrize("classes", [2**53 + 1, 10**401])
def test_refuses_class_counts_float64_cannot_hold(classes):
    with pytest.raises(ValueError, match="at most 9,007,199,254,740,992") as error:
        RandomisedResponse(classes, 1.0)
    assert len(str(error.value)) <= 300


def test_largest_class_count_is_exact():
    rr = RandomisedResponse(2**53, 1.0)
    assert rr.keep_probability == pytest.approx(math.e / (math.e + 2**53 - 1), rel=1e-15)
    assert rr.sample(np.array([0, 2**53 - 1]), rng=0).max() < 2**53
