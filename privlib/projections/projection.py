"""The public randomness of the random-projection mechanisms: the projection matrix W (or OPORP's
permutation and signs), drawn once per configuration from a seed and published.

Li & Li, "Differential Privacy with Random Projections and Sign Random Projections":

- dense projections (§1.1, eq. 3): x = Wᵀu/√k for u ∈ R^p and a p×k matrix W with iid entries of
  mean 0 and variance 1 —
    * ``"gaussian"``: N(0, 1) (§3.1);
    * ``"rademacher"``: ±1 with probability ½ each (§3.3, Alg 3);
    * ``"uniform"``: √3·U[−1, 1] (§3.4, Fig. 2);
    * ``"sparse"``: √s·{−1, 0, 1} with probabilities 1/(2s), 1 − 1/s, 1/(2s) ("very sparse"
      projections, §3.4; s = 1 is Rademacher);
- ``"oporp"`` (§3.5, Alg 4): one permutation Π and one Rademacher vector w; the permuted vector is
  cut into k consecutive bins of equal length and x_j = Σ_{q ∈ bin j} w_q·u_{Π(q)}, with NO 1/√k.
  When k does not divide p, u is zero-padded to p′ = k⌈p/k⌉ BEFORE permuting (our addition, not in
  the paper: padding after the permutation would leave bins that are always empty), so the bins
  have length p′/k.

Every kind is a linear map x = Mᵀu with M = W/√k (dense) or the p×k matrix with one entry w_q in
row Π(q), column ⌊q/(p′/k)⌋ (OPORP). The realised sensitivities under β-adjacency (Def 2.3: one
coordinate changes by at most β) are therefore (eqs. 12–13)

    Δ₁ = β·maxᵢ‖M_{i,:}‖₁ = (β/√k)·maxᵢ‖W_{i,:}‖₁,   Δ₂ = β·maxᵢ‖M_{i,:}‖₂ = (β/√k)·maxᵢ‖W_{i,:}‖₂,

computed from the matrix actually drawn (never a bound or an expectation); OPORP gives Δ₁ = Δ₂ = β
exactly (each coordinate lies in one bin, |w_q| = 1), and so does Rademacher for Δ₂.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from privlib.core.validation import as_generator, check_positive_int, check_range, check_seed

#: The projection kinds, in the order the paper introduces them.
PROJECTION_KINDS: tuple[str, ...] = ("gaussian", "rademacher", "uniform", "sparse", "oporp")

#: The dense kinds (a full p×k matrix W and x = Wᵀu/√k).
DENSE_KINDS: tuple[str, ...] = ("gaussian", "rademacher", "uniform", "sparse")

_OPORP_CHUNK_ELEMENTS = 1 << 22  # rows per OPORP chunk = this / p′ (about 32 MB of float64 per chunk)


def check_kind(kind) -> str:
    """The projection kind as a lower-case string, or a ValueError listing the kinds."""
    if not isinstance(kind, str) or kind.lower() not in PROJECTION_KINDS:
        raise ValueError(f"Unknown projection kind {kind!r}: choose one of {', '.join(PROJECTION_KINDS)}.")
    return kind.lower()


def as_data_matrix(X, name: str = "X", p: int | None = None) -> np.ndarray:
    """X as a 2-D float64 array of finite values (n rows of p coordinates), or a ValueError."""
    try:
        array = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array of shape (n, p).") from None
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (n, p) (one vector per row), got shape "
                         f"{array.shape}: use X.reshape(1, -1) for a single vector.")
    if p is not None and array.shape[1] != p:
        raise ValueError(f"{name} has {array.shape[1]} columns but the projection was drawn for p = {p}: "
                         "give vectors of the projection's dimension (or draw a projection for this p).")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains nan or infinite values: every coordinate must be a finite number.")
    return array


class Projection:
    """One drawn projection (the public randomness): ``kind``, ``p``, ``k``, ``s`` (sparse only,
    else None), ``seed``. Build it with `make_projection`.

    ``apply(X)`` gives the (n, k) projected data (x = Wᵀu/√k, or the OPORP bin sums);
    ``delta1(beta)`` / ``delta2(beta)`` the realised sensitivities (eqs. 12–13); ``matrix`` the
    unscaled p×k matrix (W, or OPORP's one-±1-per-row matrix); ``scale`` the factor 1/√k (dense)
    or 1 (OPORP) so that x = scale·matrixᵀu.
    """

    __slots__ = (
        "_column_max",
        "_gather_index",
        "_gather_sign",
        "_k",
        "_kind",
        "_matrix",
        "_p",
        "_padded_p",
        "_row_l1",
        "_row_l2",
        "_s",
        "_scale",
        "_seed",
    )

    def __init__(self, kind: str, p: int, k: int, seed: int, s: float | None = None):
        self._kind = check_kind(kind)
        self._p = check_positive_int(p, "p (the data dimension)")
        self._k = check_positive_int(k, "k (the number of projections)")
        self._seed = check_seed(seed)
        self._s = None
        if self._kind == "sparse":
            self._s = check_range(s if s is not None else 3.0, "s (the sparsity of the very sparse projection; "
                                  "s = 1 is Rademacher)", low=1.0)
        rng = as_generator(self._seed)
        p, k = self._p, self._k
        self._gather_index = self._gather_sign = None
        self._padded_p = p
        if self._kind == "oporp":
            padded = k * math.ceil(p / k)  # p′ = k⌈p/k⌉: pad BEFORE permuting
            permutation = rng.permutation(padded)  # Π: position q of the permuted vector holds u_{Π(q)}
            signs = np.where(rng.random(padded) < 0.5, -1.0, 1.0)  # w_q, Rademacher
            real = permutation < p  # positions holding a real (not padded) coordinate
            matrix = np.zeros((p, k))
            positions = np.flatnonzero(real)
            matrix[permutation[positions], positions // (padded // k)] = signs[positions]
            self._gather_index = np.where(real, permutation, 0)
            self._gather_sign = np.where(real, signs, 0.0)
            self._padded_p = padded
            self._scale = 1.0
        else:
            if self._kind == "gaussian":
                matrix = rng.standard_normal((p, k))
            elif self._kind == "rademacher":
                matrix = np.where(rng.random((p, k)) < 0.5, -1.0, 1.0)
            elif self._kind == "uniform":
                matrix = rng.uniform(-math.sqrt(3.0), math.sqrt(3.0), size=(p, k))
            else:  # sparse: √s·{−1, 0, 1} with probabilities 1/(2s), 1 − 1/s, 1/(2s)
                u = rng.random((p, k))
                tail = 1.0 / (2.0 * self._s)
                root = math.sqrt(self._s)
                matrix = np.where(u < tail, -root, np.where(u >= 1.0 - tail, root, 0.0))
            self._scale = 1.0 / math.sqrt(k)
        matrix.setflags(write=False)
        self._matrix = matrix
        scaled = np.abs(matrix) * self._scale
        self._row_l1 = scaled.sum(axis=1)
        self._row_l2 = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
        self._column_max = np.abs(matrix).max(axis=0)
        for array in (self._row_l1, self._row_l2, self._column_max):
            array.setflags(write=False)

    # -- public attributes -------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self._kind

    @property
    def p(self) -> int:
        return self._p

    @property
    def k(self) -> int:
        return self._k

    @property
    def s(self) -> float | None:
        return self._s

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def padded_p(self) -> int:
        """p′ = k⌈p/k⌉ for OPORP (the zero-padded length), p for the dense kinds."""
        return self._padded_p

    @property
    def bin_length(self) -> int | None:
        """p′/k, the OPORP bin length (None for the dense kinds)."""
        return self._padded_p // self._k if self._kind == "oporp" else None

    @property
    def matrix(self) -> np.ndarray:
        """The unscaled p×k matrix (read-only): W for dense kinds; for OPORP the matrix with
        entry w_q in row Π(q), column ⌊q/(p′/k)⌋ (one ±1 per row)."""
        return self._matrix

    @property
    def scale(self) -> float:
        """1/√k for dense kinds (eq. 3), 1 for OPORP (Alg 4): x = scale·matrixᵀu."""
        return self._scale

    @property
    def column_max_abs(self) -> np.ndarray:
        """maxᵢ|W_ij| for each column j (unscaled; Alg 7's D_j = β·maxᵢ|W_ij|), read-only."""
        return self._column_max

    # -- sensitivities -----------------------------------------------------------------------
    def delta1(self, beta: float = 1.0) -> float:
        """Realised L1 sensitivity Δ₁ = (β/√k)·maxᵢ‖W_{i,:}‖₁ (eq. 12); β for OPORP."""
        beta = check_range(beta, "beta (the largest change of one coordinate)", low=0.0, low_inclusive=False)
        return beta * float(self._row_l1.max())

    def delta2(self, beta: float = 1.0) -> float:
        """Realised L2 sensitivity Δ₂ = (β/√k)·maxᵢ‖W_{i,:}‖₂ (eq. 13); β for OPORP and Rademacher."""
        beta = check_range(beta, "beta (the largest change of one coordinate)", low=0.0, low_inclusive=False)
        return beta * float(self._row_l2.max())

    # -- projecting --------------------------------------------------------------------------
    def apply(self, X) -> np.ndarray:
        """The projected data, (n, k) float64: x = Wᵀu/√k for each row u (eq. 3), or the OPORP
        bin sums x_j = Σ_{q ∈ bin j} w_q·u_{Π(q)} (Alg 4, zero-padded to p′ before permuting)."""
        X = as_data_matrix(X, p=self._p)
        if self._kind != "oporp":
            out = X @ self._matrix
            out *= self._scale
            return out
        n, k, padded = X.shape[0], self._k, self._padded_p
        out = np.empty((n, k))
        rows = max(1, _OPORP_CHUNK_ELEMENTS // padded)
        for start in range(0, n, rows):  # chunks bound the memory; each chunk is vectorised
            block = np.take(X[start:start + rows], self._gather_index, axis=1)
            block *= self._gather_sign
            out[start:start + rows] = block.reshape(block.shape[0], k, padded // k).sum(axis=2)
        return out

    def to_dict(self) -> dict:
        """The public description (not the matrix): kind, p, k, s, seed and Δ₁, Δ₂ at β = 1."""
        return {
            "kind": self._kind, "p": self._p, "k": self._k, "s": self._s, "seed": self._seed,
            "delta1": self.delta1(1.0), "delta2": self.delta2(1.0),
            **({"padded_p": self._padded_p, "bin_length": self.bin_length} if self._kind == "oporp" else {}),
        }

    def __repr__(self) -> str:
        extra = f", s={self._s:g}" if self._s is not None else ""
        return f"make_projection({self._kind!r}, p={self._p}, k={self._k}, seed={self._seed}{extra})"


@functools.lru_cache(maxsize=16)
def _cached_projection(kind: str, p: int, k: int, seed: int, s: float | None) -> Projection:
    return Projection(kind, p, k, seed, s)


def make_projection(kind: str, p: int, k: int, seed: int, s: float = 3) -> Projection:
    """The projection of the given kind for p-dimensional data and k projections, drawn from
    ``seed`` (numpy default_rng): the same arguments always give the same projection (cached, and
    read-only, so sweeps draw it once). ``s`` is used by ``"sparse"`` only.

    Draw order: dense kinds draw the p×k matrix row by row; OPORP draws the permutation of p′
    positions, then the p′ signs.
    """
    kind = check_kind(kind)
    p = check_positive_int(p, "p (the data dimension)")
    k = check_positive_int(k, "k (the number of projections)")
    seed = check_seed(seed)
    if kind == "sparse":
        s = check_range(s, "s (the sparsity of the very sparse projection; s = 1 is Rademacher)", low=1.0)
    else:
        s = None
    return _cached_projection(kind, p, k, seed, s)
