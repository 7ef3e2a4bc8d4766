"""Input perturbation's samplers: the explicit per-record protocol against the exact O(d³) sampler.

Closed forms for records A (n × d, S = AᵀA) and noise E (n × d, iid N(0, σ²)): M = (A + E)ᵀ(A + E)
is a non-central Wishart, E[M] = S + nσ²I and (Cov of non-central Wishart entries)
Var(M_jk) = nσ⁴(1 + δ_jk) + σ²(S_jj + S_kk) + 2σ²δ_jk S_jk, i.e. 2nσ⁴ + 4σ²S_jj on the diagonal and
nσ⁴ + σ²(S_jj + S_kk) off it. For a unit u, uᵀMu = Σ_i (uᵀa_i + uᵀη_i)² is σ² times a non-central χ²
with n degrees of freedom and non-centrality uᵀSu/σ². Σb̃ ~ N(Σb, nσ_b²I). Tolerances: 4 standard
errors from the number of draws; fixed seeds.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlib.erm.losses import QuadraticSums
from privlib.erm.sampler import (
    exact_noisy_sums,
    matrix_root,
    per_record_noisy_sums,
    submit_records,
    wishart_identity,
)

DRAWS = 4000


def records(n, d, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, d)) / math.sqrt(d)
    a /= np.maximum(1.0, np.linalg.norm(a, axis=1))[:, None]
    b = -2.0 * rng.uniform(-1, 1, n)[:, None] * a
    return a, b


def draws(sampler, a, b, sigma_a, sigma_b, seed, count=DRAWS):
    rng = np.random.default_rng(seed)
    sums = QuadraticSums(S=a.T @ a, b_sum=b.sum(axis=0), c_sum=0.0, n=a.shape[0])
    H, g = [], []
    for _ in range(count):
        h, v = (exact_noisy_sums(sums, sigma_a, sigma_b, rng) if sampler == "exact"
                else per_record_noisy_sums(a, b, sigma_a, sigma_b, rng))
        H.append(h)
        g.append(v)
    return np.array(H), np.array(g)


def closed_form(a, sigma):
    n, d = a.shape
    S = a.T @ a
    diag = np.diag(S)
    mean = S + n * sigma**2 * np.eye(d)
    var = n * sigma**4 * (1 + np.eye(d)) + sigma**2 * (diag[:, None] + diag[None, :]) + 2 * sigma**2 * np.eye(d) * S
    return mean, var


def check_moments(H, g, a, b, sigma_a, sigma_b):
    n, d = a.shape
    mean, var = closed_form(a, sigma_a)
    se_mean = np.sqrt(var / H.shape[0])
    assert np.all(np.abs(H.mean(axis=0) - mean) < 4 * se_mean), (H.mean(axis=0) - mean) / se_mean
    centred = H - H.mean(axis=0)
    sample_var = H.var(axis=0, ddof=1)
    se_var = np.sqrt((np.mean(centred**4, axis=0) - sample_var**2) / H.shape[0])
    assert np.all(np.abs(sample_var - var) < 4 * se_var), (sample_var - var) / se_var
    g_var = n * sigma_b**2
    assert np.all(np.abs(g.mean(axis=0) - b.sum(axis=0)) < 4 * math.sqrt(g_var / g.shape[0]))
    se_g_var = g_var * math.sqrt(2.0 / (g.shape[0] - 1))
    assert np.all(np.abs(g.var(axis=0, ddof=1) - g_var) < 4 * se_g_var)


@pytest.mark.parametrize("sampler", ["per_record", "exact"])
def test_first_and_second_moments_match_the_closed_forms(sampler):
    a, b = records(60, 4, seed=1)
    H, g = draws(sampler, a, b, 0.3, 0.7, seed=11 if sampler == "exact" else 12)
    check_moments(H, g, a, b, 0.3, 0.7)


@pytest.mark.parametrize("n, d", [(60, 4), (6, 4), (3, 4)])
def test_projection_has_the_same_law_in_both_samplers(n, d):
    """n = 60: Bartlett Wishart; n = 6: Wishart with fewer degrees of freedom than d; n = 3: no Wishart."""
    a, b = records(n, d, seed=2)
    sigma = 0.25
    u = np.random.default_rng(3).standard_normal(d)
    u /= np.linalg.norm(u)
    H_exact, _ = draws("exact", a, b, sigma, 1.0, seed=21, count=3000)
    H_rec, _ = draws("per_record", a, b, sigma, 1.0, seed=22, count=3000)
    q_exact = np.einsum("i,kij,j->k", u, H_exact, u)
    q_rec = np.einsum("i,kij,j->k", u, H_rec, u)
    assert stats.ks_2samp(q_exact, q_rec).pvalue > 0.001
    law = stats.ncx2(df=n, nc=float(u @ a.T @ a @ u) / sigma**2, scale=sigma**2)
    assert stats.kstest(q_exact, law.cdf).pvalue > 0.001
    assert stats.kstest(q_rec, law.cdf).pvalue > 0.001


def test_wishart_identity_moments():
    rng = np.random.default_rng(4)
    for df in (2, 9):  # df < d (EᵀE) and df ≥ d (Bartlett)
        W = np.array([wishart_identity(df, 4, rng) for _ in range(4000)])
        mean = df * np.eye(4)
        var = df * (1 + np.eye(4))  # Var W_ii = 2 df, Var W_ij = df
        assert np.all(np.abs(W.mean(axis=0) - mean) < 4 * np.sqrt(var / 4000))
        assert np.all(np.linalg.eigvalsh(W) > -1e-12)


def test_noise_scales_are_standard_deviations():
    a, b = records(20_000, 3, seed=5)
    a_t, b_t = submit_records(a, b, 0.2, 3.0, np.random.default_rng(6))
    assert (a_t - a).std() == pytest.approx(0.2, rel=4 * math.sqrt(2 / (a.size - 1)))
    assert (b_t - b).std() == pytest.approx(3.0, rel=4 * math.sqrt(2 / (b.size - 1)))


def test_zero_noise_and_singular_sums():
    a, b = records(30, 5, seed=7)
    a[:, 4] = 0.0  # a singular S: the eigen root is exact without jitter
    sums = QuadraticSums(S=a.T @ a, b_sum=b.sum(axis=0), c_sum=0.0, n=30)
    H, g = exact_noisy_sums(sums, 0.0, 0.0, np.random.default_rng(8))
    np.testing.assert_allclose(H, a.T @ a, atol=1e-13)
    np.testing.assert_allclose(g, b.sum(axis=0))
    M = matrix_root(sums.S, 5)
    np.testing.assert_allclose(M.T @ M, sums.S, atol=1e-13)


def test_same_seed_same_draw_and_input_errors():
    a, b = records(10, 3, seed=9)
    x1 = per_record_noisy_sums(a, b, 0.1, 0.2, np.random.default_rng(1))
    x2 = per_record_noisy_sums(a, b, 0.1, 0.2, np.random.default_rng(1))
    np.testing.assert_array_equal(x1[0], x2[0])
    with pytest.raises(ValueError, match="standard deviation"):
        submit_records(a, b, -0.1, 0.2)
    with pytest.raises(ValueError, match="same shape"):
        submit_records(a, b[:, :2], 0.1, 0.2)
    with pytest.raises(ValueError, match="QuadraticSums"):
        exact_noisy_sums((a.T @ a, b.sum(0)), 0.1, 0.2)
