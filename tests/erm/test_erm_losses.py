"""privlib.erm.losses: the quadratic losses, their public constants and sufficient statistics."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.erm.losses import LOSSES, QuadraticLoss, QuadraticSums, make_loss


def unit_ball_rows(rng, n, d):
    X = rng.normal(size=(n, d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def test_losses_dict_and_constants():
    assert set(LOSSES) == {"squared", "logistic"}
    sq, lg = LOSSES["squared"], LOSSES["logistic"]
    assert (sq.R, sq.A, sq.B) == (1.0, 1.0, 2.0)
    assert sq.lam == 2.0 and sq.zeta == 4.0
    assert lg.A == pytest.approx(1 / (2 * math.sqrt(2))) and lg.B == 0.5
    assert lg.lam == pytest.approx(0.25) and lg.zeta == pytest.approx(0.75)
    assert sq.label and lg.label and sq.label != lg.label
    assert make_loss("squared", R=3.0).zeta == pytest.approx(2 * 3.0 + 2)
    assert make_loss("logistic", R=2.0).zeta == pytest.approx(2 / 4 + 0.5)


def test_squared_loss_terms_and_risk():
    rng = np.random.default_rng(1)
    X = unit_ball_rows(rng, 40, 5)
    y = rng.uniform(-1, 1, 40)
    loss = LOSSES["squared"]
    np.testing.assert_allclose(loss.a(X), X)
    np.testing.assert_allclose(loss.b(X, y), -2 * y[:, None] * X)
    np.testing.assert_allclose(loss.c(y), y**2)
    sums = loss.sums(X, y)
    assert isinstance(sums, QuadraticSums) and sums.n == 40 and sums.d == 5
    w = rng.normal(size=5)
    assert sums.risk(w) == pytest.approx(np.mean((y - X @ w) ** 2), rel=1e-12)
    W = rng.normal(size=(7, 5))
    risks = sums.risk(W)
    assert risks.shape == (7,)
    np.testing.assert_allclose(risks, [np.mean((y - X @ v) ** 2) for v in W], rtol=1e-12)
    np.testing.assert_allclose(loss.predict(w, X), X @ w)


def test_logistic_surrogate_is_the_taylor_expansion():
    rng = np.random.default_rng(2)
    X = unit_ball_rows(rng, 30, 4)
    y = np.where(rng.uniform(size=30) < 0.5, -1.0, 1.0)
    loss = LOSSES["logistic"]
    w = rng.normal(size=4)
    t = X @ w
    expected = np.mean(math.log(2) - y * t / 2 + t**2 / 8)
    assert loss.sums(X, y).risk(w) == pytest.approx(expected, rel=1e-12)
    # Near 0 the surrogate matches ln(1 + exp(-y t)) to third order.
    small = 1e-2 * w / np.linalg.norm(w)
    exact = np.mean(np.log1p(np.exp(-y * (X @ small))))
    assert loss.sums(X, y).risk(small) == pytest.approx(exact, abs=1e-6)
    pred = loss.predict(w, X)
    assert set(np.unique(pred)) <= {-1.0, 1.0}
    assert loss.predict(np.zeros(4), X[:3]).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", ["squared", "logistic"])
def test_public_bounds_hold_for_every_record(name):
    """‖a‖ ≤ A, ‖b‖ ≤ B, ‖∇l‖ ≤ ζ on the ball, Hessian eigenvalue ≤ λ — on extreme and random records."""
    loss = make_loss(name, R=1.5)
    rng = np.random.default_rng(3)
    X = unit_ball_rows(rng, 500, 6) * 3  # many on the unit sphere after the projection below
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.uniform(size=500) < 0.5, -1.0, 1.0)
    a, b = loss.a(X), loss.b(X, y)
    assert np.linalg.norm(a, axis=1).max() <= loss.A * (1 + 1e-12)
    assert np.linalg.norm(b, axis=1).max() <= loss.B * (1 + 1e-12)
    W = rng.normal(size=(500, 6))
    W *= loss.R / np.linalg.norm(W, axis=1)[:, None]  # on the sphere: the worst case
    grads = 2 * np.einsum("ij,ij->i", W, a)[:, None] * a + b
    assert np.linalg.norm(grads, axis=1).max() <= loss.zeta * (1 + 1e-12)
    # The worst case is attained: w = R·x, y = -1, ‖x‖ = 1.
    x = X[np.argmax(np.linalg.norm(X, axis=1))]
    x = x / np.linalg.norm(x)
    ax, bx = loss.a(x[None])[0], loss.b(x[None], [-1.0])[0]
    assert np.linalg.norm(2 * (loss.R * x @ ax) * ax + bx) == pytest.approx(loss.zeta, rel=1e-12)
    assert 2 * (a**2).sum(axis=1).max() <= loss.lam * (1 + 1e-12)


def test_sums_are_read_only_and_checked():
    sums = LOSSES["squared"].sums(np.eye(3), [1.0, 0.0, -1.0])
    with pytest.raises(ValueError):
        sums.S[0, 0] = 5.0
    with pytest.raises(ValueError, match="d×d"):
        QuadraticSums(S=np.eye(3), b_sum=np.zeros(2), c_sum=0.0, n=3)
    with pytest.raises(ValueError, match="n"):
        QuadraticSums(S=np.eye(2), b_sum=np.zeros(2), c_sum=0.0, n=0)
    with pytest.raises(ValueError, match="shape"):
        sums.risk(np.zeros(4))


def test_bad_inputs_raise_helpful_errors():
    loss = LOSSES["squared"]
    with pytest.raises(ValueError, match="‖x‖ ≤ 1"):
        loss.a(np.array([[2.0, 0.0]]))
    with pytest.raises(ValueError, match=r"\|y\| ≤ 1"):
        loss.b(np.array([[0.5, 0.0]]), [1.5])
    with pytest.raises(ValueError, match="one target per"):
        loss.b(np.array([[0.5, 0.0]]), [0.5, 0.5])
    with pytest.raises(ValueError, match="NaN"):
        loss.a(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match=r"\{-1, \+1\}"):
        LOSSES["logistic"].b(np.array([[0.5, 0.0]]), [0.5])
    with pytest.raises(ValueError, match="Unknown loss"):
        make_loss("hinge")
    with pytest.raises(ValueError, match="R"):
        make_loss("squared", R=0.0)
    with pytest.raises(ValueError, match="must not be smaller"):
        QuadraticLoss(name="squared", label="x", R=1.0, A=0.5, B=2.0)
    # Larger public bounds are allowed (still valid bounds).
    assert QuadraticLoss(name="squared", label="x", R=1.0, A=2.0, B=3.0).zeta == pytest.approx(11.0)


def test_rows_scaled_to_the_sphere_pass_despite_rounding():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(1000, 7))
    X /= np.linalg.norm(X, axis=1)[:, None]
    assert LOSSES["squared"].a(X).shape == (1000, 7)
