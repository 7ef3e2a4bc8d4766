"""privlib.erm.solver.minimise_in_ball against brute force and the KKT conditions."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from privlib.erm.solver import minimise_in_ball


def objective(H, g, w):
    return float(w @ H @ w + g @ w)


def random_psd(rng, d, rank=None, scale=1.0):
    rank = d if rank is None else rank
    X = rng.normal(size=(d, rank))
    return scale * (X @ X.T) / max(rank, 1)


def brute_force(H, g, R, rng, starts=8):
    """SLSQP with the ball constraint from several starts (and the origin): the best objective."""
    d = g.shape[0]
    cons = {"type": "ineq", "fun": lambda w: R * R - w @ w, "jac": lambda w: -2 * w}
    best = None
    for k in range(starts + 1):
        if k == 0:
            x0 = np.zeros(d)
        else:
            x0 = rng.normal(size=d)
            x0 *= R * rng.uniform() / np.linalg.norm(x0)
        res = minimize(lambda w: objective(H, g, w), x0, jac=lambda w: 2 * H @ w + g, method="SLSQP",
                       constraints=[cons], options={"ftol": 1e-14, "maxiter": 500})
        w = res.x
        norm = np.linalg.norm(w)
        if norm > R:
            w = w * (R / norm)
        if best is None or objective(H, g, w) < objective(H, g, best):
            best = w
    return best


def assert_kkt(H, g, R, w, rtol=1e-8):
    """‖w‖ ≤ R; 2(H + νI)w + g = 0 with ν ≥ 0, ν(R − ‖w‖) = 0 and H + νI ⪰ 0."""
    scale = max(np.abs(H).max(), np.linalg.norm(g) / R, 1e-300)
    norm = np.linalg.norm(w)
    assert norm <= R * (1 + 1e-12)
    grad = 2 * H @ w + g
    if norm < R * (1 - 1e-9):
        nu = 0.0
    else:
        nu = -float(w @ grad) / (2 * norm**2)
    assert nu >= -rtol * scale
    residual = grad + 2 * nu * w
    assert np.linalg.norm(residual) <= rtol * scale * max(R, 1.0) * 10
    assert np.linalg.eigvalsh(H)[0] + nu >= -rtol * scale


def check_against_brute_force(H, g, R, rng):
    w = minimise_in_ball(H, g, R)
    assert w.shape == g.shape
    assert_kkt(H, g, R, w)
    ref = brute_force(H, g, R, rng)
    f, f_ref = objective(H, g, w), objective(H, g, ref)
    tol = 1e-8 * (np.abs(H).max() * R * R + np.linalg.norm(g) * R + 1e-300)
    assert f <= f_ref + tol
    return w


@pytest.mark.parametrize("seed", range(12))
def test_random_psd_against_slsqp(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 8))
    rank = int(rng.integers(0, d + 1))
    H = random_psd(rng, d, rank, scale=10 ** rng.uniform(-2, 2))
    g = rng.normal(size=d) * 10 ** rng.uniform(-2, 2)
    R = 10 ** rng.uniform(-1, 1)
    check_against_brute_force(H, g, R, rng)


def test_dense_polar_grid_in_two_dimensions():
    rng = np.random.default_rng(20)
    r = np.linspace(0, 1, 801)[:, None]
    t = np.linspace(0, 2 * np.pi, 1601)[None, :]
    for _ in range(6):
        H = random_psd(rng, 2, int(rng.integers(1, 3)))
        g = rng.normal(size=2) * 3
        R = rng.uniform(0.2, 2)
        W = np.stack([(R * r * np.cos(t)).ravel(), (R * r * np.sin(t)).ravel()], axis=1)
        f_grid = (np.einsum("ij,jk,ik->i", W, H, W) + W @ g).min()
        w = minimise_in_ball(H, g, R)
        assert objective(H, g, w) <= f_grid + 1e-12
        assert objective(H, g, w) >= f_grid - 1e-3 * (1 + abs(f_grid))  # the grid is close to the optimum


def test_interior_solution_is_the_unconstrained_minimiser():
    rng = np.random.default_rng(5)
    H = random_psd(rng, 6) + np.eye(6)
    g = rng.normal(size=6) * 0.1
    w = minimise_in_ball(H, g, 10.0)
    np.testing.assert_allclose(w, -np.linalg.solve(H, g) / 2, rtol=1e-10, atol=1e-14)


def test_singular_H_g_in_range_interior_minimum_norm():
    """Hard case for PSD H: g ⟂ null space, −H⁺g/2 inside the ball → the minimum-norm minimiser."""
    rng = np.random.default_rng(6)
    H = random_psd(rng, 6, rank=3)
    g = H @ rng.normal(size=6) * 0.1  # g ∈ range(H)
    w = minimise_in_ball(H, g, 100.0)
    np.testing.assert_allclose(w, -np.linalg.pinv(H) @ g / 2, rtol=1e-8, atol=1e-12)
    null = np.linalg.eigh(H)[1][:, :3]
    np.testing.assert_allclose(null.T @ w, 0.0, atol=1e-10)  # no null-space component: minimum norm
    assert_kkt(H, g, 100.0, w)


def test_singular_H_g_in_range_but_outside_the_ball():
    rng = np.random.default_rng(7)
    H = random_psd(rng, 5, rank=2)
    g = H @ rng.normal(size=5) * 50
    R = 0.3
    w = check_against_brute_force(H, g, R, rng)
    assert np.linalg.norm(w) == pytest.approx(R, rel=1e-12)


def test_singular_H_g_with_null_space_component_hits_the_sphere():
    rng = np.random.default_rng(8)
    H = random_psd(rng, 5, rank=2)
    g = rng.normal(size=5) * 1e-3  # tiny, but with a null-space part: the objective is unbounded inside
    w = check_against_brute_force(H, g, 2.0, rng)
    assert np.linalg.norm(w) == pytest.approx(2.0, rel=1e-12)


def test_zero_matrix_and_zero_gradient():
    g = np.array([3.0, -4.0])
    np.testing.assert_allclose(minimise_in_ball(np.zeros((2, 2)), g, 2.0), -2.0 * g / 5.0)
    np.testing.assert_array_equal(minimise_in_ball(np.eye(3), np.zeros(3), 1.0), np.zeros(3))
    np.testing.assert_array_equal(minimise_in_ball(np.zeros((3, 3)), np.zeros(3), 1.0), np.zeros(3))


@pytest.mark.parametrize("R", [1e-10, 1e-6, 1e6, 1e10])
def test_tiny_and_huge_radius(R):
    rng = np.random.default_rng(9)
    H = random_psd(rng, 7) + 0.1 * np.eye(7)
    g = rng.normal(size=7)
    w = minimise_in_ball(H, g, R)
    assert_kkt(H, g, R, w)
    unconstrained = -np.linalg.solve(H, g) / 2
    if R >= 1e6:
        np.testing.assert_allclose(w, unconstrained, rtol=1e-9)
    else:  # the tiny ball: the steepest-descent direction
        np.testing.assert_allclose(w / R, -g / np.linalg.norm(g), atol=1e-4)
        assert np.linalg.norm(w) == pytest.approx(R, rel=1e-12)


def test_large_scale_sums_d50():
    """The sums of 10⁶ records (entries ~10⁵) in d = 50: boundary and interior."""
    rng = np.random.default_rng(10)
    X = rng.normal(size=(2000, 50)) / np.sqrt(50)
    H = X.T @ X * 500  # like Σ a aᵀ over 10⁶ records
    g = -2 * H @ (rng.normal(size=50) / np.sqrt(50) * 3)
    for R in (0.1, 1.0, 10.0):
        w = minimise_in_ball(H, g, R)
        assert_kkt(H, g, R, w, rtol=1e-7)


def test_indefinite_including_the_classic_hard_case():
    """Indefinite H (not used by the mechanisms, but solved exactly): the More–Sorensen hard case."""
    H = np.diag([-1.0, 1.0, 2.0])
    g = np.array([0.0, 0.5, 0.0])  # g ⟂ bottom eigenvector, w(1) = (0, -0.125, 0) shorter than R
    w = minimise_in_ball(H, g, 1.0)
    assert np.linalg.norm(w) == pytest.approx(1.0)
    assert w[1] == pytest.approx(-0.125)
    assert abs(w[0]) == pytest.approx(np.sqrt(1 - 0.125**2))
    assert_kkt(H, g, 1.0, w)
    rng = np.random.default_rng(11)
    for _ in range(6):
        Q = np.linalg.qr(rng.normal(size=(4, 4)))[0]
        H = Q @ np.diag(rng.normal(size=4)) @ Q.T
        H = (H + H.T) / 2
        check_against_brute_force(H, rng.normal(size=4), rng.uniform(0.5, 2), rng)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 12), rank_frac=st.floats(0, 1),
       log_r=st.floats(-3, 3), log_g=st.floats(-4, 4), in_range=st.booleans())
def test_kkt_property(seed, d, rank_frac, log_r, log_g, in_range):
    rng = np.random.default_rng(seed)
    H = random_psd(rng, d, round(rank_frac * d))
    g = rng.normal(size=d) * 10**log_g
    if in_range:
        g = H @ g
    w = minimise_in_ball(H, g, 10**log_r)
    assert_kkt(H, g, 10**log_r, w, rtol=1e-7)


def test_bad_inputs():
    with pytest.raises(ValueError, match="R"):
        minimise_in_ball(np.eye(2), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="R"):
        minimise_in_ball(np.eye(2), np.ones(2), -1.0)
    with pytest.raises(ValueError, match="symmetric"):
        minimise_in_ball(np.array([[1.0, 2.0], [0.0, 1.0]]), np.ones(2), 1.0)
    with pytest.raises(ValueError, match="d×d"):
        minimise_in_ball(np.eye(2), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="finite"):
        minimise_in_ball(np.eye(2), np.array([np.nan, 1.0]), 1.0)
