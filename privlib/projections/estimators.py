"""Estimators on released projections: inner products, angles from sign bits, and the retrieval
protocol (top-R neighbours and precision@R).

Source: Ping Li & Xiaoyun Li, "Differential Privacy with Random Projections and Sign Random
Projections": inner products §1.2 and §3.6 (eqs. 19–22), angles from signs §1.2 (eqs. 9–10) and
from randomised-response signs §4.1.2 (eq. 29), retrieval §5.1. Everything is vectorised; the
rankings use stable sorts, so ties go to the lower index and results are reproducible.
"""
from __future__ import annotations

import math

import numpy as np

from privlib.core.validation import check_positive_int
from privlib.projections.quantities import inverse_sinh_squared_half

RETRIEVAL_METRICS = ("cosine", "hamming")
_BLOCK_ENTRIES = 1 << 22  # similarities computed per block: 4M float64 = 32 MB


# --------------------------------------------------------------------------------------------
# Inner products and angles
# --------------------------------------------------------------------------------------------

def inner_product(released_u, released_v):
    """Σ_j ũ_j ṽ_j along the last axis: the unbiased inner-product estimator of eqs. (19)–(22).

    For raw noisy data (eq. 19) the vectors are u + N(0, σ²I_p); for DP-RP (eqs. 20–21) they are
    x + a with x = Wᵀu/√k (eq. 3), since E[Σ_j x_j y_j] = uᵀv (the paper's "E[x_i y_i] = uᵀv" in
    §3.5 means this sum); for DP-OPORP (eq. 22) they are the bin sums x (no 1/√k) plus noise.
    Variances: ``privlib.projections.quantities.variance_raw`` / ``variance_rp_rademacher`` /
    ``variance_oporp`` / ``variance_rp_gaussian``. Broadcasts over leading axes.
    """
    a = np.asarray(released_u, dtype=np.float64)
    b = np.asarray(released_v, dtype=np.float64)
    if a.shape[-1:] != b.shape[-1:]:
        raise ValueError(f"The released vectors must have the same length, got shapes {a.shape} and {b.shape}.")
    return np.einsum("...j,...j->...", a, b)


def _check_bits(bits, name: str) -> np.ndarray:
    array = np.asarray(bits)
    if array.ndim == 0 or array.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one sign bit per vector.")
    if not np.all((array == 1) | (array == -1)):
        raise ValueError(f"{name} must hold sign bits +1 / -1 only (a 0 would be a third output symbol).")
    return array


def equal_bit_fraction(bits_u, bits_v):
    """C = (1/k)·Σ_j 1{s_uj = s_vj}: the fraction of equal sign bits along the last axis (eq. 9)."""
    a = _check_bits(bits_u, "bits_u")
    b = _check_bits(bits_v, "bits_v")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"bits_u and bits_v must have the same number of bits, got {a.shape[-1]} and {b.shape[-1]}.")
    return np.mean(a == b, axis=-1)


def angle_from_signs(bits_u, bits_v):
    """θ̂ = π(1 − C), C the fraction of equal bits of two sign random projections (eqs. 9–10).

    Pr(sgn x_j = sgn y_j) = 1 − θ/π for a Gaussian W, so θ̂ is unbiased with Var ≈ θ(π − θ)/k.
    Vectorised over leading axes; returns a float for a single pair.
    """
    result = math.pi * (1.0 - equal_bit_fraction(bits_u, bits_v))
    return float(result) if np.ndim(result) == 0 else result


def angle_from_rr_signs(bits_u, bits_v, eps_per_bit):
    """θ̂_RR = π(1 − P̂) from sign bits released by randomised response at ε′ per bit (eq. 29).

    With each bit kept with probability e^{ε′}/(e^{ε′} + 1), the observed agreement is
    P̃ = P·tanh²(ε′/2) + 1/(2cosh²(ε′/2)), so the unbiased estimate of P = 1 − θ/π is

        P̂ = coth²(ε′/2)·C − 1/(2 sinh²(ε′/2)),

    a stable form of the paper's (e^{ε′} + 1)²/(e^{ε′} − 1)²·C − 2e^{ε′}/(e^{ε′} − 1)². Its
    variance is V_RR/k (Theorem 4.6; ``quantities.v_rr``). θ̂_RR is NOT clipped: it can leave
    [0, π], and clipping would bias it. Only for a constant ε′ per bit — not for smooth-flipping
    outputs (Alg 7, Alg 8 smooth), whose flip probability varies per bit. ε′ = ∞ gives ``angle_from_signs``.
    """
    eps = np.asarray(eps_per_bit, dtype=np.float64)
    if np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError("eps_per_bit must be greater than 0 (infinity = bits released without flipping).")
    c = equal_bit_fraction(bits_u, bits_v)
    inv = inverse_sinh_squared_half(eps)  # 1/sinh^2(eps/2), overflow-free; coth^2 = 1 + inv
    p_hat = c * (1.0 + inv) - 0.5 * inv
    result = math.pi * (1.0 - p_hat)
    return float(result) if np.ndim(result) == 0 else result


# --------------------------------------------------------------------------------------------
# Retrieval (§5.1)
# --------------------------------------------------------------------------------------------

def _as_matrix(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (one vector per row), got shape {array.shape}.")
    return array


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1; a zero row stays zero (cosine 0 with everything)."""
    matrix = matrix.astype(np.float64, copy=False)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _top_r(scores: np.ndarray, R: int) -> np.ndarray:
    """Indices of the R largest scores of each row, best first; ties go to the lower index.

    The same result as np.argsort(-scores, kind="stable")[:, :R], without sorting whole rows:
    the R-th largest value is found by np.partition, every larger score is taken, and the equal
    ones are taken in index order until R are chosen; the R chosen are then stably sorted.
    """
    n = scores.shape[1]
    if R == n:
        return np.argsort(-scores, axis=1, kind="stable")
    threshold = np.partition(scores, n - R, axis=1)[:, n - R][:, None]
    greater = scores > threshold
    equal = scores == threshold
    missing = R - greater.sum(axis=1, keepdims=True)
    take = greater | (equal & (np.cumsum(equal, axis=1) <= missing))
    chosen = np.nonzero(take)[1].reshape(scores.shape[0], R)  # increasing index within each row
    order = np.argsort(-np.take_along_axis(scores, chosen, axis=1), axis=1, kind="stable")
    return np.take_along_axis(chosen, order, axis=1)


def retrieve(database_released, queries_released, R=50, metric="cosine", block_size=None):
    """The R nearest database rows of each query, best first: an (n_queries, R) int64 array (§5.1).

    - metric "cosine" (real outputs: noisy data, DP-RP, DP-OPORP): ranked by cosine similarity,
      highest first; a zero row has cosine 0 with every row.
    - metric "hamming" (sign outputs, ±1 bits): ranked by the number of differing bits, fewest
      first (computed exactly as (k − Σ_j s_j t_j)/2).

    Ties go to the lower database index (a stable ranking), so results are reproducible. Hamming
    distances are exact integers; cosines are floats, so rows with mathematically equal cosines
    but different coordinates may be separated by rounding.
    Similarities are computed in blocks of ``block_size`` queries (a blocked matrix product; by
    default as many as keep a block to about 4 million similarities), so memory stays bounded for
    large databases; the result does not depend on the block size.
    """
    database = _as_matrix(database_released, "database_released")
    queries = _as_matrix(queries_released, "queries_released")
    if database.shape[1] != queries.shape[1]:
        raise ValueError(f"Database and queries must have the same number of columns, got {database.shape[1]} "
                         f"and {queries.shape[1]}.")
    n_db = database.shape[0]
    R = check_positive_int(R, "R (the number of neighbours retrieved)", maximum=n_db)
    if metric == "cosine":
        database, queries = _unit_rows(database), _unit_rows(queries)
    elif metric == "hamming":
        # Agreements minus disagreements: k - 2 * Hamming, exact in float64 for +-1 bits.
        database = _check_bits(database, "database_released").astype(np.float64)
        queries = _check_bits(queries, "queries_released").astype(np.float64)
    else:
        raise ValueError(f"Unknown metric {metric!r}: use 'cosine' for real outputs or 'hamming' for sign bits.")
    if block_size is None:
        block = max(1, _BLOCK_ENTRIES // n_db)
    else:
        block = check_positive_int(block_size, "block_size (queries per block)")
    out = np.empty((queries.shape[0], R), dtype=np.int64)
    for start in range(0, queries.shape[0], block):
        scores = queries[start:start + block] @ database.T
        out[start:start + block] = _top_r(scores, R)
    return out


def true_neighbours(database, queries, R=50):
    """Each query's top R database rows by cosine similarity of the ORIGINAL data (the ground truth
    of §5.1), best first, ties to the lower index: an (n_queries, R) int64 array."""
    return retrieve(database, queries, R, metric="cosine")


def precision_at(true, found) -> float:
    """precision@R = (# of true neighbours among the R retrieved)/R, averaged over queries (§5.1).

    ``true`` and ``found`` are (n_queries, R) index arrays (rows without repeats), e.g. from
    ``true_neighbours`` and ``retrieve``; chance level is R/n_db.
    """
    true = _as_matrix(true, "true")
    found = _as_matrix(found, "found")
    if true.shape != found.shape:
        raise ValueError(f"true and found must have the same shape, got {true.shape} and {found.shape}.")
    combined = np.sort(np.concatenate([true, found], axis=1), axis=1)
    matches = np.count_nonzero(combined[:, 1:] == combined[:, :-1], axis=1)
    return float(np.mean(matches) / true.shape[1])
