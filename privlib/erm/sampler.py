"""Input perturbation at the contributors (paper Alg. 1) and the sums the database solves with.

Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425, §3, Alg. 1 (symbols reconstructed from the paper's prose):
contributor i computes a_i = a(z_i) and b_i = b(z_i), draws η_i ~ N(0, σ_a² I_d) and
ξ_i ~ N(0, σ_b² I_d), and sends ã_i = a_i + η_i and b̃_i = b_i + ξ_i once. c(z_i) is never sent (our
addition, not in the paper: it does not move the argmin, and y² would reveal |y|). The database
(Alg. 2) only needs Σ ã_i ã_iᵀ and Σ b̃_i.

σ_a and σ_b are STANDARD DEVIATIONS here (numpy's ``scale``); the calibration formulas give them as
such. Variances appear only as σ².

``exact_noisy_sums`` draws the two sums with the law of the per-record route in O(d³) (our addition,
not in the paper; for simulation only: real contributors perturb their own records). Derivation:
write the records as the rows of A (n × d) and the noise as E (n × d, iid N(0, σ_a²)). For any
orthogonal Q (n × n) with QᵀA = [M; 0] (M d × d, so MᵀM = AᵀA = S), QᵀE has the law of E by
rotation invariance, so (A + E)ᵀ(A + E) = (M + E₁)ᵀ(M + E₁) + E₂ᵀE₂ in law, with E₁ (d × d) and E₂
((n − d) × d) iid N(0, σ_a²): E₂ᵀE₂ ~ Wishart_d(n − d, σ_a² I). Any M with MᵀM = S will do, since
M' = OM for an orthogonal O and OᵀE₁ has the law of E₁; we take M = Λ^{1/2}Vᵀ from the eigendecomposition
S = VΛVᵀ (exact also for a singular S, so no jitter is needed). For n < d, M keeps the n largest
eigenvalues' rows and there is no Wishart part. Σ b̃_i = Σ b_i + N(0, nσ_b² I).
"""
from __future__ import annotations

import numpy as np

from privlib.core.validation import as_generator, check_range
from privlib.erm.losses import QuadraticSums


def check_sigma(value, name: str) -> float:
    """A noise standard deviation: a finite number ≥ 0, else a ValueError naming it."""
    return check_range(value, f"{name} (a noise standard deviation)", low=0.0)


def records_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) as float64 (n, d) arrays of the same shape, or a ValueError saying what is wrong."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape or a.shape[0] < 1:
        raise ValueError(f"a and b must be (n, d) arrays of the same shape with n ≥ 1, got {a.shape} and {b.shape}.")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must be finite.")
    return a, b


def submit_records(a, b, sigma_a: float, sigma_b: float, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Alg. 1 at every contributor: ã = a + N(0, σ_a² I), b̃ = b + N(0, σ_b² I), each record once.

    The draws: first all η (an n × d standard-normal array times σ_a), then all ξ (times σ_b)."""
    a, b = records_pair(a, b)
    sigma_a = check_sigma(sigma_a, "sigma_a")
    sigma_b = check_sigma(sigma_b, "sigma_b")
    rng = as_generator(rng)
    eta = rng.standard_normal(a.shape)
    xi = rng.standard_normal(b.shape)
    return a + sigma_a * eta, b + sigma_b * xi


def per_record_noisy_sums(a, b, sigma_a: float, sigma_b: float, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """(Σ ã_i ã_iᵀ, Σ b̃_i) of records perturbed one by one (``submit_records``): the protocol itself."""
    a_tilde, b_tilde = submit_records(a, b, sigma_a, sigma_b, rng)
    return a_tilde.T @ a_tilde, b_tilde.sum(axis=0)


def wishart_identity(df: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """A draw of Wishart_d(df, I) (df ≥ 0 whole). For df ≥ d by the Bartlett decomposition
    W = TTᵀ, T lower triangular with T_ii = √χ²_{df − i} (i = 0..d−1) and T_ij ~ N(0, 1) below the
    diagonal (Bartlett 1933); for df < d as EᵀE with E a df × d standard-normal array."""
    if df < d:
        E = rng.standard_normal((df, d))
        return E.T @ E
    T = np.zeros((d, d))
    T[np.tril_indices(d, -1)] = rng.standard_normal(d * (d - 1) // 2)
    T[np.diag_indices(d)] = np.sqrt(rng.chisquare(df - np.arange(d)))
    return T @ T.T


def matrix_root(S: np.ndarray, rows: int) -> np.ndarray:
    """M (rows × d) with MᵀM = S for a symmetric PSD S of rank ≤ rows: Λ^{1/2}Vᵀ from S = VΛVᵀ
    (negative rounding eigenvalues set to 0), keeping the ``rows`` largest eigenvalues."""
    values, vectors = np.linalg.eigh(S)
    values = np.clip(values, 0.0, None)
    keep = slice(values.size - rows, None)
    return np.sqrt(values[keep])[:, None] * vectors[:, keep].T


def exact_noisy_sums(sums: QuadraticSums, sigma_a: float, sigma_b: float, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """(Σ ã_i ã_iᵀ, Σ b̃_i) with the exact law of ``per_record_noisy_sums`` from the sums alone, O(d³)
    (module docstring; our addition, for simulation only): with MᵀM = S,
    Σ ã ãᵀ = (M + σ_a G)ᵀ(M + σ_a G) + σ_a² W, G a d × d standard-normal matrix, W ~ Wishart_d(n − d, I);
    Σ b̃ = b_sum + σ_b √n · N(0, I). Every n ≥ 1 is exact (for n < d, M has n rows and W = 0).
    The draws: G, then W, then the b noise."""
    if not isinstance(sums, QuadraticSums):
        raise ValueError("sums must be a QuadraticSums (loss.sums(X, y)).")
    sigma_a = check_sigma(sigma_a, "sigma_a")
    sigma_b = check_sigma(sigma_b, "sigma_b")
    rng = as_generator(rng)
    n, d = sums.n, sums.d
    rows = min(n, d)
    M = matrix_root(sums.S, rows)
    noisy = M + sigma_a * rng.standard_normal((rows, d))
    H = noisy.T @ noisy
    if n > d:
        H += sigma_a**2 * wishart_identity(n - d, d, rng)
    H = 0.5 * (H + H.T)
    g = sums.b_sum + sigma_b * np.sqrt(n) * rng.standard_normal(d)
    return H, g


__all__ = ["check_sigma", "exact_noisy_sums", "matrix_root", "per_record_noisy_sums", "records_pair",
           "submit_records", "wishart_identity"]
