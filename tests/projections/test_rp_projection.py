"""The public projections: their laws, the OPORP construction (zero-padding before permuting), the
realised sensitivities (eqs. 12–13) against exact values and closed-form medians, and input checks.

Statistical tolerances are 4 standard errors of the sampled quantity; seeds are fixed."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlib.projections.projection import DENSE_KINDS, PROJECTION_KINDS, Projection, make_projection

P, K = 784, 256  # the paper's MNIST setting (§4 reference values)


def naive_oporp(u, p, k, seed):
    """Alg 4 written out: pad u with zeros to p′ = k⌈p/k⌉, permute the padded vector with Π (the
    first draw of default_rng(seed)), multiply by w (the second draw: w_q = −1 when U_q < ½), and
    sum the k consecutive bins of length p′/k."""
    padded_p = k * math.ceil(p / k)
    rng = np.random.default_rng(seed)
    permutation = rng.permutation(padded_p)
    w = np.where(rng.random(padded_p) < 0.5, -1.0, 1.0)
    padded = np.zeros(padded_p)
    padded[:p] = u
    return (w * padded[permutation]).reshape(k, padded_p // k).sum(axis=1)


# ------------------------------------------------------------------------------------------------
# Laws of the dense entries
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, s, fourth_moment", [
    ("gaussian", None, 3.0), ("uniform", None, 9.0 / 5.0), ("sparse", 3.0, 3.0), ("sparse", 10.0, 10.0),
])
def test_dense_entries_have_mean_0_and_variance_1(kind, s, fourth_moment):
    W = make_projection(kind, 2000, 500, seed=11, s=s or 3).matrix
    n = W.size
    assert abs(W.mean()) <= 4 * math.sqrt(1.0 / n)
    variance = np.mean(W**2)
    assert abs(variance - 1.0) <= 4 * math.sqrt((fourth_moment - 1.0) / n)


def test_rademacher_and_uniform_and_sparse_supports():
    R = make_projection("rademacher", 500, 300, seed=2).matrix
    assert set(np.unique(R)) == {-1.0, 1.0}
    assert abs(np.mean(R == 1.0) - 0.5) <= 4 * math.sqrt(0.25 / R.size)
    U = make_projection("uniform", 500, 300, seed=2).matrix
    assert U.min() >= -math.sqrt(3) and U.max() <= math.sqrt(3)
    assert U.min() < -1.7 and U.max() > 1.7
    for s in (3.0, 10.0):
        S = make_projection("sparse", 500, 300, seed=2, s=s).matrix
        assert set(np.unique(S)) == {-math.sqrt(s), 0.0, math.sqrt(s)}
        q = 1.0 - 1.0 / s
        assert abs(np.mean(S == 0.0) - q) <= 4 * math.sqrt(q * (1 - q) / S.size)
        assert abs(np.mean(S > 0) - 1 / (2 * s)) <= 4 * math.sqrt((1 / (2 * s)) * (1 - 1 / (2 * s)) / S.size)


def test_sparse_with_s_1_is_rademacher_valued():
    S = make_projection("sparse", 200, 100, seed=4, s=1).matrix
    assert set(np.unique(S)) == {-1.0, 1.0}


# ------------------------------------------------------------------------------------------------
# apply: x = Wᵀu/√k (eq. 3) and the OPORP bin sums (Alg 4)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", DENSE_KINDS)
def test_dense_apply_is_w_transpose_u_over_root_k(kind):
    proj = make_projection(kind, 50, 16, seed=3)
    X = np.random.default_rng(0).uniform(-1, 1, (40, 50))
    out = proj.apply(X)
    assert out.shape == (40, 16) and out.dtype == np.float64
    expected = np.array([[sum(X[r, i] * proj.matrix[i, j] for i in range(50)) / 4.0 for j in range(16)]
                         for r in range(40)])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert proj.scale == 0.25


@pytest.mark.parametrize("p, k", [(12, 4), (10, 4), (7, 3), (3, 5), (784, 256), (1000, 128)])
def test_oporp_apply_matches_algorithm_4_with_padding_before_permuting(p, k):
    proj = make_projection("oporp", p, k, seed=5)
    assert proj.padded_p == k * math.ceil(p / k) and proj.bin_length == proj.padded_p // k
    X = np.random.default_rng(1).uniform(-1, 1, (30, p))
    out = proj.apply(X)
    expected = np.array([naive_oporp(u, p, k, 5) for u in X])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert proj.scale == 1.0  # no 1/√k


def test_oporp_matrix_has_one_sign_per_row_and_bins_of_equal_length():
    proj = make_projection("oporp", 10, 4, seed=9)
    M = proj.matrix
    assert np.all((M != 0).sum(axis=1) == 1)
    assert set(np.unique(M[M != 0])) <= {-1.0, 1.0}
    assert (M != 0).sum() == 10
    assert np.all((M != 0).sum(axis=0) <= proj.bin_length)


def test_oporp_chunks_agree_with_one_pass():
    """Many rows go through several chunks; the result must equal the dense matrix product."""
    proj = make_projection("oporp", 3000, 64, seed=2)
    X = np.random.default_rng(3).uniform(-1, 1, (3000, 3000))
    np.testing.assert_allclose(proj.apply(X), X @ proj.matrix, rtol=1e-12, atol=1e-12)


def test_oporp_padding_before_permuting_spreads_every_coordinate_over_all_bins():
    """With padding BEFORE the permutation a coordinate lands in each of the k bins with
    probability 1/k, the last included (padding after the permutation would leave the last bin
    short or empty every time). p = 10, k = 4: p′ = 12, bins of 3."""
    p, k, seeds = 10, 4, 4000
    bins = np.array([np.argmax(Projection("oporp", p, k, s).matrix != 0, axis=1) for s in range(seeds)])
    for j in range(k):
        share = np.mean(bins[:, 0] == j)
        assert abs(share - 1 / k) <= 4 * math.sqrt((1 / k) * (1 - 1 / k) / seeds)
    real_in_last_bin = (bins == k - 1).sum(axis=1)
    assert len(set(real_in_last_bin)) >= 3  # 1, 2 or 3 real coordinates: not a fixed layout
    # expected number of real coordinates per bin is p/k = 2.5 in every bin
    for j in range(k):
        counts = (bins == j).sum(axis=1)
        assert abs(counts.mean() - p / k) <= 4 * counts.std() / math.sqrt(seeds)


# ------------------------------------------------------------------------------------------------
# Realised sensitivities (eqs. 12-13) and their §4 reference medians
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", PROJECTION_KINDS)
def test_delta_is_the_largest_scaled_row_norm(kind):
    proj = make_projection(kind, 30, 8, seed=1)
    M = proj.matrix * proj.scale
    assert proj.delta1(0.5) == pytest.approx(0.5 * np.abs(M).sum(axis=1).max(), rel=1e-14)
    assert proj.delta2(0.5) == pytest.approx(0.5 * np.linalg.norm(M, axis=1).max(), rel=1e-14)


@pytest.mark.parametrize("p, k", [(784, 256), (10, 4), (3, 5)])
def test_rademacher_delta2_and_oporp_deltas_are_exactly_beta(p, k):
    for seed in range(5):
        assert make_projection("rademacher", p, k, seed).delta2(1.0) == 1.0
        oporp = make_projection("oporp", p, k, seed)
        assert oporp.delta2(0.7) == 0.7 and oporp.delta1(0.7) == 0.7
    assert make_projection("rademacher", p, k, 0).delta1(1.0) == pytest.approx(math.sqrt(k), rel=1e-14)


def test_gaussian_delta2_median_matches_the_exact_chi_square_median():
    """Δ₂ = √(max of p iid χ²_k / k): its median is √(χ²_k quantile at 0.5^{1/p} / k) = 1.1399
    (β = 1, p = 784, k = 256). The median of 200 draws must be within 4 standard errors, the SE of
    a sample median being 1/(2 g(m) √n) with g the exact density of Δ₂ at its median m."""
    seeds = 200
    delta2 = np.empty(seeds)
    delta1 = np.empty(seeds)
    for s in range(seeds):
        proj = Projection("gaussian", P, K, s)
        delta2[s], delta1[s] = proj.delta2(), proj.delta1()
    level = 0.5 ** (1.0 / P)
    y = stats.chi2.ppf(level, K)
    median = math.sqrt(y / K)
    assert round(median, 4) == 1.1399
    density = P * 0.5 ** ((P - 1) / P) * stats.chi2.pdf(y, K) * 2 * K * median  # p·F^{p−1}·f·dy/dΔ
    se = 1.0 / (2 * density * math.sqrt(seeds))
    assert abs(np.median(delta2) - median) <= 4 * se
    # Δ₁ ≈ 14.7 (§4, one decimal; Lemma 3.7's bound is 19.9): 4 SE of the median plus the rounding
    se1 = 1.2533 * delta1.std(ddof=1) / math.sqrt(seeds)
    assert abs(np.median(delta1) - 14.7) <= 4 * se1 + 0.05


@pytest.mark.parametrize("s, reference", [(3.0, 1.1302), (10.0, 1.2809)])
def test_sparse_delta2_follows_the_exact_binomial_law(s, reference):
    """‖W_{i,:}‖² = s·B with B ~ Binomial(k, 1/s), so P(max row count ≤ b) = F_B(b)^p. The empirical
    CDF of 150 draws at the median count and its neighbours must be within 4 binomial SE."""
    seeds = 150
    counts = np.empty(seeds, dtype=np.int64)
    for seed in range(seeds):
        d2 = Projection("sparse", P, K, seed, s=s).delta2()
        counts[seed] = round(d2 * d2 * K / s)
        assert d2 == pytest.approx(math.sqrt(s * counts[seed] / K), rel=1e-12)
    b_star = int(stats.binom.ppf(0.5 ** (1.0 / P), K, 1.0 / s))
    assert round(math.sqrt(s * b_star / K), 4) == reference
    for b in (b_star - 1, b_star, b_star + 1):
        exact = stats.binom.cdf(b, K, 1.0 / s) ** P
        empirical = np.mean(counts <= b)
        assert abs(empirical - exact) <= 4 * math.sqrt(exact * (1 - exact) / seeds) + 1e-12


def test_uniform_delta2_median_is_near_1_087():
    seeds = 100
    values = np.array([Projection("uniform", P, K, s).delta2() for s in range(seeds)])
    se = 1.2533 * values.std(ddof=1) / math.sqrt(seeds)
    assert abs(np.median(values) - 1.087) <= 4 * se + 5e-4


# ------------------------------------------------------------------------------------------------
# Public randomness: reproducible, read-only, described without the matrix
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", PROJECTION_KINDS)
def test_same_seed_same_projection_other_seed_other_projection(kind):
    a = Projection(kind, 40, 8, 7)
    b = Projection(kind, 40, 8, 7)
    c = Projection(kind, 40, 8, 8)
    np.testing.assert_array_equal(a.matrix, b.matrix)
    assert not np.array_equal(a.matrix, c.matrix)
    assert make_projection(kind, 40, 8, 7) is make_projection(kind, 40, 8, 7)  # drawn once, cached
    with pytest.raises(ValueError):
        a.matrix[0, 0] = 5.0


def test_to_dict_describes_without_the_matrix():
    d = make_projection("sparse", 100, 10, seed=3, s=10).to_dict()
    assert d["kind"] == "sparse" and d["p"] == 100 and d["k"] == 10 and d["s"] == 10.0 and d["seed"] == 3
    proj = make_projection("sparse", 100, 10, seed=3, s=10)
    assert d["delta1"] == proj.delta1(1.0) and d["delta2"] == proj.delta2(1.0)
    assert all(np.ndim(v) == 0 for v in d.values())
    o = make_projection("oporp", 10, 4, seed=1).to_dict()
    assert o["padded_p"] == 12 and o["bin_length"] == 3 and o["delta2"] == 1.0 and o["s"] is None
    assert make_projection("gaussian", 10, 4, seed=1).to_dict()["s"] is None


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, match", [
    (("hadamard", 10, 4, 0), {}, "Unknown projection kind"),
    (("gaussian", 0, 4, 0), {}, "p"),
    (("gaussian", 10, 0, 0), {}, "k"),
    (("gaussian", 10, 4, -1), {}, "seed"),
    (("sparse", 10, 4, 0), {"s": 0.5}, "s"),
])
def test_make_projection_rejects_bad_arguments(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_projection(*args, **kwargs)


@pytest.mark.parametrize("kind", ["gaussian", "oporp"])
def test_apply_rejects_bad_shapes_and_values(kind):
    proj = make_projection(kind, 6, 4, seed=0)
    with pytest.raises(ValueError, match="2-D"):
        proj.apply(np.zeros(6))
    with pytest.raises(ValueError, match="columns"):
        proj.apply(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="nan or infinite"):
        proj.apply(np.array([[0, 0, np.nan, 0, 0, 0]]))
    with pytest.raises(ValueError, match="nan or infinite"):
        proj.apply(np.array([[0, 0, np.inf, 0, 0, 0]]))
    with pytest.raises(ValueError, match="numeric"):
        proj.apply([["a"] * 6])
    with pytest.raises(ValueError, match="beta"):
        proj.delta2(0.0)
    assert proj.apply(np.zeros((0, 6))).shape == (0, 4)
