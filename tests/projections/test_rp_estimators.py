"""Estimators of privlib.projections.estimators: inner products, angles from (randomised) sign bits,
and the retrieval protocol (exact rankings with ties to the lower index, precision@R)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.core.randomised_response import binary_flip_probability
from privlib.projections.estimators import (
    angle_from_rr_signs,
    angle_from_signs,
    equal_bit_fraction,
    inner_product,
    precision_at,
    retrieve,
    true_neighbours,
)
from privlib.projections.quantities import v_rr


def reference_ranking(scores, R):
    """Best first by score, ties to the lower index: a full stable sort."""
    return np.argsort(-scores, axis=1, kind="stable")[:, :R]


def sign_pairs(theta, k, reps, rng):
    """Sign random projections (Gaussian W, k columns, fresh each rep) of two unit vectors at angle theta."""
    u = np.array([1.0, 0.0])
    v = np.array([math.cos(theta), math.sin(theta)])
    W = rng.standard_normal((reps, 2, k))
    return np.sign(np.einsum("i,nij->nj", u, W)).astype(np.int8), np.sign(np.einsum("i,nij->nj", v, W)).astype(np.int8)


def randomised_response(bits, eps_per_bit, rng):
    flips = rng.random(bits.shape) < binary_flip_probability(eps_per_bit)
    return np.where(flips, -bits, bits).astype(np.int8)


# ------------------------------------------------------------------ inner products

def test_inner_product_rowwise():
    a = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]])
    b = np.array([[2.0, 0.0, 1.0], [4.0, 1.0, 9.0]])
    np.testing.assert_array_equal(inner_product(a, b), [5.0, 1.0])
    assert inner_product(a[0], b[0]) == 5.0
    with pytest.raises(ValueError):
        inner_product(a, b[:, :2])


# ------------------------------------------------------------------ angles from signs (eqs. 9-10, 29)

def test_angle_from_signs_exact_cases():
    bits = np.array([1, -1, 1, 1], dtype=np.int8)
    assert angle_from_signs(bits, bits) == 0.0
    assert angle_from_signs(bits, -bits) == pytest.approx(math.pi)
    assert angle_from_signs(bits, np.array([1, 1, -1, 1])) == pytest.approx(math.pi / 2)
    rows = np.stack([bits, -bits])
    np.testing.assert_allclose(angle_from_signs(rows, np.stack([bits, bits])), [0.0, math.pi])
    np.testing.assert_allclose(equal_bit_fraction(rows, np.stack([bits, bits])), [1.0, 0.0])
    with pytest.raises(ValueError, match="third output symbol"):
        angle_from_signs(np.array([1, 0, 1]), np.array([1, 1, 1]))


def test_angle_from_signs_monte_carlo():
    theta, k, reps = math.pi / 3, 256, 4000
    bits_u, bits_v = sign_pairs(theta, k, reps, np.random.default_rng(3))
    estimates = angle_from_signs(bits_u, bits_v)
    variance = theta * (math.pi - theta) / k  # eq. (10), exact for iid bits
    assert abs(estimates.mean() - theta) < 4 * math.sqrt(variance / reps)
    assert estimates.var(ddof=1) == pytest.approx(variance, rel=4 * math.sqrt(2 / reps))


def test_rr_angle_stable_form_equals_the_paper_coefficients():
    rng = np.random.default_rng(8)
    bits_u = rng.choice(np.array([-1, 1], dtype=np.int8), size=(50, 64))
    bits_v = rng.choice(np.array([-1, 1], dtype=np.int8), size=(50, 64))
    c = equal_bit_fraction(bits_u, bits_v)
    for eps in (0.05, 0.5, 1.0, 4.0, 20.0):
        e = math.exp(eps)
        paper = (e + 1) ** 2 / (e - 1) ** 2 * c - 2 * e / (e - 1) ** 2  # eq. (29)
        np.testing.assert_allclose(angle_from_rr_signs(bits_u, bits_v, eps), math.pi * (1 - paper), rtol=1e-11,
                                   atol=1e-12)
    np.testing.assert_allclose(angle_from_rr_signs(bits_u, bits_v, math.inf), angle_from_signs(bits_u, bits_v),
                               rtol=1e-15)
    with np.errstate(over="raise"):
        np.testing.assert_allclose(angle_from_rr_signs(bits_u, bits_v, 3000.0), angle_from_signs(bits_u, bits_v))


def test_rr_angle_is_not_clipped():
    bits = np.array([1, -1, 1, -1, 1, 1, -1, 1], dtype=np.int8)
    # All bits differ: C = 0, P^ = -1/(2 sinh^2(1/2)) < 0, so theta^ > pi (unbiasedness needs no clipping).
    expected = math.pi * (1 + 0.5 / math.sinh(0.5) ** 2)
    assert angle_from_rr_signs(bits, -bits, 1.0) == pytest.approx(expected, rel=1e-14)
    assert angle_from_rr_signs(bits, -bits, 1.0) > math.pi
    assert angle_from_rr_signs(bits, bits, 1.0) < 0.0
    with pytest.raises(ValueError):
        angle_from_rr_signs(bits, bits, 0.0)


def test_rr_angle_variance_is_v_rr_over_k_monte_carlo():
    theta, k, eps, reps = math.pi / 3, 256, 1.0, 6000
    rng = np.random.default_rng(29)
    bits_u, bits_v = sign_pairs(theta, k, reps, rng)
    estimates = angle_from_rr_signs(randomised_response(bits_u, eps, rng), randomised_response(bits_v, eps, rng), eps)
    assert abs(estimates.mean() - theta) < 4 * estimates.std(ddof=1) / math.sqrt(reps)  # unbiased (Thm 4.6)
    centred = estimates - estimates.mean()
    s2 = centred.var(ddof=1)
    se = math.sqrt((np.mean(centred**4) - s2**2) / reps)
    assert abs(k * s2 - v_rr(theta, eps)) < 4 * k * se, (k * s2, v_rr(theta, eps))
    # Power: the SignRP variance without flipping (theta(pi - theta) = 2.19) is far outside.
    assert abs(k * s2 - theta * (math.pi - theta)) > 40 * k * se


# ------------------------------------------------------------------ retrieval (§5.1)

def test_true_neighbours_is_the_stable_cosine_ranking():
    rng = np.random.default_rng(4)
    database = rng.random((300, 16))
    queries = rng.random((40, 16))
    def unit(m):
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    expected = reference_ranking(unit(queries) @ unit(database).T, 50)
    np.testing.assert_array_equal(true_neighbours(database, queries, 50), expected)
    assert true_neighbours(database, queries).shape == (40, 50)


def test_cosine_ties_go_to_the_lower_index_and_blocks_do_not_matter():
    rng = np.random.default_rng(6)
    base = rng.random((12, 5))
    # Every direction four times, scaled by powers of 2 so that the unit rows are bitwise equal: exact ties.
    database = np.concatenate([base * c for c in (1.0, 2.0, 0.5, 4.0)])
    database[7] = 0.0  # a zero row: cosine 0 with everything
    queries = base[:6] * 3.0
    unit = np.divide(database, np.linalg.norm(database, axis=1, keepdims=True),
                     out=np.zeros_like(database), where=np.linalg.norm(database, axis=1, keepdims=True) > 0)
    scores = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ unit.T
    for R in (1, 4, 10, 48):
        expected = reference_ranking(scores, R)
        for block_size in (None, 1, 4):
            np.testing.assert_array_equal(retrieve(database, queries, R, "cosine", block_size=block_size), expected)
    # The four copies of each query direction come first, in index order.
    np.testing.assert_array_equal(retrieve(database, queries, 4)[0], [0, 12, 24, 36])


def test_hamming_ranking_with_many_ties():
    rng = np.random.default_rng(9)
    database = rng.choice(np.array([-1, 1], dtype=np.int8), size=(500, 6))  # 64 patterns: ties everywhere
    queries = rng.choice(np.array([-1, 1], dtype=np.int8), size=(30, 6))
    hamming = (queries[:, None, :] != database[None, :, :]).sum(axis=2)
    for R in (1, 50, 500):
        expected = np.argsort(hamming, axis=1, kind="stable")[:, :R]
        for block_size in (None, 7):
            np.testing.assert_array_equal(retrieve(database, queries, R, "hamming", block_size=block_size), expected)


def test_hamming_and_cosine_agree_on_sign_bits():
    rng = np.random.default_rng(12)
    database = rng.choice(np.array([-1, 1], dtype=np.int8), size=(400, 32))
    queries = rng.choice(np.array([-1, 1], dtype=np.int8), size=(20, 32))
    hamming = (queries[:, None, :] != database[None, :, :]).sum(axis=2)
    by_hamming = retrieve(database, queries, 50, "hamming")
    by_cosine = retrieve(database, queries, 50, "cosine")
    # cos = 1 - 2 H/k: the same distance profile. Only Hamming (exact integers) guarantees that
    # ties go to the lower index; float cosines may order equal-distance rows differently.
    np.testing.assert_array_equal(np.take_along_axis(hamming, by_hamming, axis=1),
                                  np.take_along_axis(hamming, by_cosine, axis=1))
    np.testing.assert_array_equal(by_hamming, np.argsort(hamming, axis=1, kind="stable")[:, :50])


def test_retrieve_rejects_bad_input():
    database = np.ones((10, 4))
    with pytest.raises(ValueError, match="metric"):
        retrieve(database, database, 5, "euclidean")
    with pytest.raises(ValueError, match="R"):
        retrieve(database, database, 11)
    with pytest.raises(ValueError, match="columns"):
        retrieve(database, np.ones((2, 3)), 5)
    with pytest.raises(ValueError, match="third output symbol"):
        retrieve(np.zeros((10, 4), dtype=np.int8), np.ones((2, 4), dtype=np.int8), 5, "hamming")


def test_precision_at():
    true = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    assert precision_at(true, true) == 1.0
    assert precision_at(true, true[::-1]) == 0.0
    assert precision_at(true, np.array([[3, 9, 1, 8], [7, 6, 5, 4]])) == pytest.approx((0.5 + 1.0) / 2)
    with pytest.raises(ValueError):
        precision_at(true, true[:, :3])


def test_precision_of_random_rankings_is_at_chance_level():
    rng = np.random.default_rng(21)
    n_db, R, n_q = 1000, 50, 400
    database = rng.standard_normal((n_db, 20))
    truth = true_neighbours(database, rng.standard_normal((n_q, 20)), R)
    found = true_neighbours(database, rng.standard_normal((n_q, 20)), R)  # unrelated queries
    chance = R / n_db
    # Each overlap is hypergeometric: variance R (R/n)(1 - R/n)(n - R)/(n - 1), divided by R^2 and n_q.
    se = math.sqrt(chance * (1 - chance) * (n_db - R) / (n_db - 1) / R / n_q)
    assert abs(precision_at(truth, found) - chance) < 4 * se
