"""Quadratic losses l(w; z) = (wᵀa(z))² + b(z)ᵀw + c(z) and their sufficient statistics.

Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425, §3.1: input perturbation needs a loss that is quadratic in
w, with a(z), b(z) ∈ R^d and a scalar c(z). The paper's formula is lost; the form above is
reconstructed from the paper's prose. Two losses are provided (‖x‖ ≤ 1 always):

- ``squared``: (y − wᵀx)² with |y| ≤ 1, so a = x, b = −2yx, c = y², A = 1, B = 2;
- ``logistic``: the second-order Taylor surrogate at 0 of ln(1 + exp(−y wᵀx)) with y ∈ {−1, +1}
  (paper §4.3; the expansion is reconstructed from the paper's prose): ln 2 − y wᵀx/2 + (wᵀx)²/8,
  so a = x/(2√2), b = −yx/2, c = ln 2, A = 1/(2√2), B = 1/2. It is biased (not the logistic loss).

The constants of every mechanism follow from the public bounds ‖a(z)‖ ≤ A and ‖b(z)‖ ≤ B:
λ = 2A² (the largest eigenvalue of a record's Hessian 2aaᵀ) and ζ = 2RA² + B (the largest
gradient norm 2(wᵀa)a + b on the ball ‖w‖ ≤ R). They hold for every record only because the
features and targets are bounded by public constants, which ``a``, ``b`` and ``c`` check.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.core.validation import check_positive_int, check_range

#: Slack on the public bounds ‖x‖ ≤ 1, |y| ≤ 1: rows scaled by x/max(1, ‖x‖) may exceed 1 by rounding.
NORM_TOLERANCE = 1e-9

_CANONICAL = {
    # name: (label, A, B)
    "squared": ("squared loss", 1.0, 2.0),
    "logistic": ("logistic (Taylor surrogate)", 1.0 / (2.0 * math.sqrt(2.0)), 0.5),
}


def _as_features(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[None, :]
    if X.ndim != 2 or X.shape[1] < 1:
        raise ValueError(f"X must be an (n, d) array of feature rows, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values: clean or clip the features first.")
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    if norms.size and norms.max() > 1.0 + NORM_TOLERANCE:
        raise ValueError(
            f"Every feature row needs ‖x‖ ≤ 1 (the loss constants A, B, λ, ζ assume it), but the largest norm "
            f"is {norms.max():.6g}: scale the rows by public constants, e.g. x / max(1, ‖x‖)."
        )
    return X


@dataclass(frozen=True, eq=False)
class QuadraticSums:
    """The sufficient statistics of J(w) = (1/n) Σ l(w; z_i) for a quadratic loss.

    S = Σ a_i a_iᵀ (d×d), b_sum = Σ b_i (d,), c_sum = Σ c_i, n records; then
    J(w) = (wᵀSw + b_sumᵀw + c_sum)/n (paper §3.1, form reconstructed from the paper's prose).
    """

    S: np.ndarray
    b_sum: np.ndarray
    c_sum: float
    n: int

    def __post_init__(self):
        S = np.array(self.S, dtype=np.float64)
        b_sum = np.array(self.b_sum, dtype=np.float64).reshape(-1)
        if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] != b_sum.shape[0]:
            raise ValueError(
                f"S must be a d×d matrix and b_sum a length-d vector, got shapes {S.shape} and {b_sum.shape}."
            )
        if not (np.all(np.isfinite(S)) and np.all(np.isfinite(b_sum))):
            raise ValueError("S and b_sum must be finite.")
        S.setflags(write=False)
        b_sum.setflags(write=False)
        object.__setattr__(self, "S", S)
        object.__setattr__(self, "b_sum", b_sum)
        object.__setattr__(self, "c_sum", check_range(self.c_sum, "c_sum"))
        object.__setattr__(self, "n", check_positive_int(self.n, "n (the number of records)"))

    @property
    def d(self) -> int:
        """The dimension of w."""
        return int(self.b_sum.shape[0])

    def risk(self, w):
        """J(w) = (wᵀSw + b_sumᵀw + c_sum)/n; w of shape (d,) gives a float, (k, d) gives (k,)."""
        w = np.asarray(w, dtype=np.float64)
        if w.shape[-1] != self.d or w.ndim > 2:
            raise ValueError(f"w must have shape (d,) or (k, d) with d = {self.d}, got {w.shape}.")
        values = (np.einsum("...i,ij,...j->...", w, self.S, w) + w @ self.b_sum + self.c_sum) / self.n
        return float(values) if w.ndim == 1 else values


@dataclass(frozen=True)
class QuadraticLoss:
    """l(w; z) = (wᵀa(z))² + b(z)ᵀw + c(z) on the ball W = {‖w‖ ≤ R} (paper §3.1, form reconstructed).

    ``name`` is "squared" or "logistic" (the Taylor surrogate); A and B are public bounds on ‖a(z)‖
    and ‖b(z)‖ for ‖x‖ ≤ 1 (and |y| ≤ 1); they may be larger than the loss's own bounds, never smaller.
    """

    name: str
    label: str
    R: float
    A: float
    B: float

    def __post_init__(self):
        if self.name not in _CANONICAL:
            raise ValueError(f"Unknown loss {self.name!r}: choose one of {', '.join(sorted(_CANONICAL))}.")
        _, a_min, b_min = _CANONICAL[self.name]
        object.__setattr__(self, "R", check_range(self.R, "R (the radius of the parameter ball)",
                                                  low=0.0, low_inclusive=False))
        A = check_range(self.A, "A (the public bound on ‖a(z)‖)", low=0.0, low_inclusive=False)
        B = check_range(self.B, "B (the public bound on ‖b(z)‖)", low=0.0)
        if A < a_min * (1 - 1e-12) or B < b_min * (1 - 1e-12):
            raise ValueError(
                f"The {self.name} loss has ‖a(z)‖ up to {a_min:.6g} and ‖b(z)‖ up to {b_min:.6g} when ‖x‖ ≤ 1 and "
                f"|y| ≤ 1; the public bounds must not be smaller (got A = {A:g}, B = {B:g}): use make_loss."
            )
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "B", B)

    @property
    def lam(self) -> float:
        """λ = 2A²: the largest eigenvalue of a record's Hessian 2a(z)a(z)ᵀ."""
        return 2.0 * self.A**2

    @property
    def zeta(self) -> float:
        """ζ = 2RA² + B: the bound on ‖∇l(w; z)‖ = ‖2(wᵀa)a + b‖ over ‖w‖ ≤ R."""
        return 2.0 * self.R * self.A**2 + self.B

    def _targets(self, y, n: int) -> np.ndarray:
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        if y.shape[0] != n:
            raise ValueError(f"y must have one target per feature row ({n}), got {y.shape[0]}.")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinite values.")
        if self.name == "logistic":
            if not np.all(np.abs(y) == 1.0):
                raise ValueError("The logistic loss needs labels y in {-1, +1}: map the classes to ±1 first.")
        elif y.size and np.abs(y).max() > 1.0 + NORM_TOLERANCE:
            raise ValueError(
                f"The squared loss needs |y| ≤ 1 (B = 2 assumes it), but max |y| = {np.abs(y).max():.6g}: "
                "scale and clip the targets with public constants."
            )
        return y

    def a(self, X) -> np.ndarray:
        """a(z) per row, shape (n, d): x (squared) or x/(2√2) (logistic)."""
        X = _as_features(X)
        return X.copy() if self.name == "squared" else X / (2.0 * math.sqrt(2.0))

    def b(self, X, y) -> np.ndarray:
        """b(z) per row, shape (n, d): −2yx (squared) or −yx/2 (logistic)."""
        X = _as_features(X)
        y = self._targets(y, X.shape[0])
        factor = -2.0 if self.name == "squared" else -0.5
        return factor * y[:, None] * X

    def c(self, y) -> np.ndarray:
        """c(z) per record, shape (n,): y² (squared) or ln 2 (logistic). It never moves the argmin."""
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        y = self._targets(y, y.shape[0])
        return y**2 if self.name == "squared" else np.full(y.shape, math.log(2.0))

    def sums(self, X, y) -> QuadraticSums:
        """S = Σ a aᵀ, b_sum = Σ b, c_sum = Σ c and n for the records (X, y)."""
        a = self.a(X)
        b = self.b(X, y)
        c = self.c(y)
        return QuadraticSums(S=a.T @ a, b_sum=b.sum(axis=0), c_sum=float(c.sum()), n=a.shape[0])

    def predict(self, w, X) -> np.ndarray:
        """Regression: Xw. Logistic: sign(Xw) in {−1, +1} (ties → +1)."""
        X = np.asarray(X, dtype=np.float64)
        scores = X @ np.asarray(w, dtype=np.float64)
        if self.name == "logistic":
            return np.where(scores >= 0, 1.0, -1.0)
        return scores


def make_loss(name: str, R: float = 1.0) -> QuadraticLoss:
    """The loss ``name`` ("squared" or "logistic") on the ball of radius R, with its own bounds A, B."""
    if name not in _CANONICAL:
        raise ValueError(f"Unknown loss {name!r}: choose one of {', '.join(sorted(_CANONICAL))}.")
    label, A, B = _CANONICAL[name]
    return QuadraticLoss(name=name, label=label, R=R, A=A, B=B)


#: The two losses at R = 1.
LOSSES: dict[str, QuadraticLoss] = {name: make_loss(name) for name in _CANONICAL}
