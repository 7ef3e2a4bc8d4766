"""The Mahalanobis mechanism (Xu, Aggarwal, Feyisetan, Teissier, PrivateNLP 2020, arXiv 2010.11947) and
the Vickrey mechanism (Xu et al., PrivateNLP 2021, arXiv 2104.11838).

Mahalanobis: the multivariate Laplace noise is stretched along the directions in which the
embedding varies most, Z = R·Sigma_p^{1/2} u (u uniform on the sphere, R ~ Gamma(n, 1/eps)),
Sigma_p = lam·Sigma~ + (1 - lam)·I, Sigma~ the embedding covariance scaled to trace n.
Vickrey: from the noisy point, output the second-nearest word instead of the nearest with a
probability growing with t and with how close the two are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.mechanism import Guarantee
from privlib.core.validation import as_generator
from privlib.words.mechanisms.base import SAMPLE_BATCH, Mechanism, Parameter
from privlib.words.mechanisms.laplace import MultivariateLaplace

#: Default lam for the Mahalanobis mechanism (and Vickrey on a Mahalanobis base). 0.2 is MLDP's
#: value (pypantera and the ECIR code use 1, i.e. no regularisation). Why 0.2: the Euclidean
#: reading of the guarantee is eps / sqrt(lam·mu_min + 1 - lam) · d_2 (our corollary, not in the paper);
#: on GloVe 6B 50d the smallest eigenvalue of the trace-normalised covariance is mu_min = 0.0036,
#: so lam = 1 would mean 16.7·eps·d_2, while lam = 0.2 keeps it at most 1.12·eps·d_2 and still
#: stretches the noise along the embedding's main directions (largest eigenvalue of Sigma_p:
#: 0.2·2.71 + 0.8 = 1.34 against 0.80 for the smallest).
DEFAULT_LAMBDA = 0.2

#: Default t of the Vickrey mechanism (pypantera README and the ECIR code both use 0.75).
DEFAULT_T = 0.75

#: Rows per chunk when accumulating the covariance (a 16 MB float64 chunk for n = 50).
_COV_CHUNK = 40_000


# ----------------------------------------------------------------------------- covariance
@dataclass(frozen=True)
class RegularisedCovariance:
    """Sigma_p = lam·Sigma~ + (1 - lam)·I for one embedding, with what sampling and the guarantee
    need, all float64 (Xu et al. 2020; the trace normalisation Sigma·n/tr(Sigma) is our reading
    of it).

    ``sigma_tilde`` = Sigma·n/tr(Sigma) (trace exactly n up to rounding); ``eigenvalues`` /
    ``eigenvectors`` of Sigma_p (eigenvalues clipped at 0: rounding can make a zero one slightly
    negative); ``sqrt`` = Sigma_p^{1/2} = V diag(sqrt(mu)) V^T, symmetric, so A A^T = Sigma_p.
    """

    lam: float
    sigma_tilde: np.ndarray = field(repr=False)
    sigma_p: np.ndarray = field(repr=False)
    eigenvalues: np.ndarray = field(repr=False)
    eigenvectors: np.ndarray = field(repr=False)
    sqrt: np.ndarray = field(repr=False)

    @property
    def dim(self) -> int:
        return self.sigma_p.shape[0]

    @property
    def smallest_eigenvalue(self) -> float:
        """lambda_min(Sigma_p) = lam·mu_min(Sigma~) + 1 - lam (>= 1 - lam)."""
        return float(self.eigenvalues[0])

    def _null(self) -> np.ndarray:
        # eigenvalues this small are zero up to the eigen-solver's rounding (~ u·||Sigma_p||)
        return self.eigenvalues <= 64 * self.dim * 2.0**-53 * self.eigenvalues[-1]

    def norm(self, z) -> np.ndarray:
        """The regularised Mahalanobis norm ||z||_RM = sqrt(z^T Sigma_p^{-1} z) of each row of ``z``
        (inf for a component along a zero eigenvalue, possible only with lam = 1 and a
        rank-deficient covariance: the metric then degenerates — our remark, not in the paper)."""
        z = np.atleast_2d(np.asarray(z, dtype=np.float64))
        y = z @ self.eigenvectors  # coordinates in the eigenbasis
        null = self._null()
        out = np.sqrt(np.sum(y[:, ~null] ** 2 / self.eigenvalues[~null], axis=1))
        if null.any():
            # components at rounding level of ||z|| (eigenvector rounding) count as zero
            leak = np.abs(y[:, null]).max(axis=1) > 1e-12 * np.linalg.norm(z, axis=1)
            out[leak] = np.inf
        return out

    def whiten(self, z) -> np.ndarray:
        """Sigma_p^{-1/2} z for each row of ``z`` (so ||whiten(Z)|| = ||Z||_RM); needs lam < 1 or
        a full-rank covariance."""
        if self._null().any():
            raise ValueError("Sigma_p is singular (lam = 1 and a rank-deficient covariance): use lam < 1.")
        z = np.atleast_2d(np.asarray(z, dtype=np.float64))
        return ((z @ self.eigenvectors) / np.sqrt(self.eigenvalues)) @ self.eigenvectors.T


def embedding_covariance(space) -> np.ndarray:
    """The sample covariance of the embedding's rows (rows = vocabulary), float64, divided by N
    (ddof = 0: after the trace normalisation the choice of ddof cancels; Xu et al. 2020, §3).
    Computed once per space (kept by the space, `EmbeddingSpace.derived`), in chunks, from the
    float32 rows."""
    return space.derived(("mahalanobis-covariance",), lambda: _covariance(space.vectors))


def _covariance(vectors) -> np.ndarray:
    n_words, dim = vectors.shape
    mean = vectors.sum(axis=0, dtype=np.float64) / n_words
    cov = np.zeros((dim, dim))
    for start in range(0, n_words, _COV_CHUNK):
        centred = vectors[start:start + _COV_CHUNK].astype(np.float64) - mean
        cov += centred.T @ centred
    cov /= n_words
    cov = (cov + cov.T) / 2.0  # exactly symmetric
    cov.flags.writeable = False
    return cov


def regularised_covariance(space, lam: float) -> RegularisedCovariance:
    """Sigma_p for ``space`` and ``lam`` (kept by the space per lam): Sigma~ = Sigma·n/tr(Sigma),
    Sigma_p = lam·Sigma~ + (1 - lam)·I, and its eigen-decomposition (numpy.linalg.eigh, float64)."""
    lam = _check_lambda(lam)
    return space.derived(("mahalanobis-sigma-p", lam), lambda: _regularise(embedding_covariance(space), lam))


def _regularise(cov: np.ndarray, lam: float) -> RegularisedCovariance:
    n = cov.shape[0]
    trace = float(np.trace(cov))
    if not trace > 0:
        raise ValueError(
            "All word vectors are identical (zero variance): the Mahalanobis mechanism needs an "
            "embedding whose words differ."
        )
    sigma_tilde = cov * (n / trace)
    sigma_p = lam * sigma_tilde + (1.0 - lam) * np.eye(n)
    sigma_p = (sigma_p + sigma_p.T) / 2.0
    mu, vecs = np.linalg.eigh(sigma_p)
    mu = np.maximum(mu, 0.0)  # a zero eigenvalue can come out as -1e-17
    sqrt = (vecs * np.sqrt(mu)) @ vecs.T
    sqrt = (sqrt + sqrt.T) / 2.0
    for a in (sigma_tilde, sigma_p, mu, vecs, sqrt):
        a.flags.writeable = False
    return RegularisedCovariance(lam, sigma_tilde, sigma_p, mu, vecs, sqrt)


def mahalanobis_noise(cov: RegularisedCovariance, epsilon: float, size: int, rng=None) -> np.ndarray:
    """``size`` draws of Z = R·Sigma_p^{1/2} u, shape (size, n), float64 (Xu et al. 2020).

    R·u is exactly the multivariate Laplace noise (`laplace_noise`: R ~ Gamma(n, 1/eps), u uniform
    on the sphere, zero normal vectors redrawn), so Z = A (R u) with A = Sigma_p^{1/2}. The
    direction A u is NOT renormalised: that keeps the density ∝ exp(-eps ||z||_RM) and with it the
    guarantee; renormalising (pypantera, ECIR) gives ||Z|| ~ Gamma(n, 1/eps) with a non-uniform
    direction and no pure d_X guarantee (our reading of those implementations, not in the paper).
    """
    return laplace_noise(cov.dim, epsilon, size, rng) @ cov.sqrt  # sqrt is symmetric: (A x)^T = x^T A


def _check_lambda(lam) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise ValueError(f"lam must be a number between 0 and 1, got {lam!r}.")
    lam = float(lam)
    if not (math.isfinite(lam) and 0.0 <= lam <= 1.0):
        raise ValueError(
            f"lam must be between 0 and 1 (0 = no stretching, the multivariate Laplace mechanism; "
            f"1 = the full covariance), got {lam!r}."
        )
    return lam


#: The neighbouring relation of the Mahalanobis mechanism, in words.
MAHALANOBIS_NEIGHBOURS = ("any two words; the guarantee scales with their regularised Mahalanobis distance "
                          "(and so with their embedding distance)")


def _mahalanobis_guarantee(lam: float) -> str:
    if lam < 1:
        bound = f"<= eps/sqrt({1 - lam:g})·d_2"
    else:
        bound = "unbounded if Sigma~ is near-singular"
    return ("eps·d_RM-privacy, d_RM(w, w') = sqrt((w - w')^T Sigma_p^{-1} (w - w')): "
            "P[M(w)=y] <= exp(eps·d_RM(w, w')) P[M(w')=y]; Euclidean: eps/sqrt(lam·mu_min(Sigma~) + 1 - lam)·d_2 "
            f"({bound}); m words cost m·eps.")


def _noisy_batches(space, rows, eps, noise):
    """Yield (slice, noisy points) over SAMPLE_BATCH rows at a time; ``noise(eps, m)`` draws."""
    for start in range(0, rows.size, SAMPLE_BATCH):
        r, e = rows[start:start + SAMPLE_BATCH], eps[start:start + SAMPLE_BATCH]
        points = space.vectors[r].astype(np.float64)
        for value in np.unique(e):
            sel = e == value
            points[sel] += noise(float(value), int(sel.sum()))
        yield slice(start, start + r.size), points


# ----------------------------------------------------------------------------- Mahalanobis
class _BatchedMechanism(Mechanism):
    """Mechanisms whose release is `sample_many` on repeated rows (one batched search)."""

    def _release(self, space, row, size, rng) -> np.ndarray:
        return self._sample_many(space, np.full(size, row, dtype=np.int64),
                                 np.full(size, self.epsilon, dtype=np.float64), rng)


class Mahalanobis(_BatchedMechanism):
    """The Mahalanobis mechanism of Xu et al. (PrivateNLP 2020, arXiv 2010.11947).

    phi^ = phi(w) + Z with Z = R·Sigma_p^{1/2} u (`mahalanobis_noise`; density
    ∝ exp(-eps ||z||_RM)); output the exact Euclidean nearest word (ties: lowest index).
    Sigma_p is computed once per space and lam and cached. lam = 0 is the multivariate Laplace
    mechanism; the default lam (`DEFAULT_LAMBDA` = 0.2) is explained there.
    """

    name = "mahalanobis"
    label = "Mahalanobis (Xu et al. 2020)"
    PARAMETERS = {
        "lam": Parameter(
            DEFAULT_LAMBDA, 0.0, 1.0,
            help="Weight of the embedding covariance in the noise shape: 0 = multivariate Laplace, "
                 "1 = full covariance (weaker Euclidean guarantee). Default 0.2 (MLDP).",
        ),
    }

    def _set_parameters(self, *, lam: float = DEFAULT_LAMBDA) -> None:
        self.lam = _check_lambda(lam)

    def _guarantee(self) -> Guarantee:
        return Guarantee("metric-dp", _mahalanobis_guarantee(self.lam), neighbours=MAHALANOBIS_NEIGHBOURS,
                         epsilon=self.epsilon)

    def covariance(self, space) -> RegularisedCovariance:
        return regularised_covariance(space, self.lam)

    def noise(self, space, epsilon: float, size: int, rng=None) -> np.ndarray:
        """``size`` noise vectors Z for ``space`` (never released by the mechanism itself)."""
        return mahalanobis_noise(self.covariance(space), epsilon, size, rng)

    def distance(self, space, word_a, word_b) -> float:
        """d_RM between two words (words or rows): the distance the guarantee is stated in."""
        a, b = space.row(word_a), space.row(word_b)
        diff = space.vectors[a].astype(np.float64) - space.vectors[b].astype(np.float64)
        return float(self.covariance(space).norm(diff)[0])

    def euclidean_epsilon(self, space, epsilon: float | None = None) -> float:
        """The epsilon of the Euclidean corollary, eps / sqrt(lambda_min(Sigma_p)) (our corollary, not
        in the paper): the mechanism is that·d_2-private (inf if Sigma_p is singular); ``epsilon``
        None: this mechanism's own."""
        epsilon = self._epsilon_or_own(epsilon)
        smallest = self.covariance(space).smallest_eigenvalue
        return epsilon / math.sqrt(smallest) if smallest > 0 else math.inf

    def _sample_many(self, space, rows, eps, rng) -> np.ndarray:
        cov = self.covariance(space)
        out = np.empty(rows.size, dtype=np.int64)
        for sl, points in _noisy_batches(space, rows, eps, lambda e, m: mahalanobis_noise(cov, e, m, rng)):
            out[sl] = space.exact_search.nearest(points)
        return out


# ----------------------------------------------------------------------------- Vickrey
def second_probability(d1, d2, t: float) -> np.ndarray:
    """p2 = t·d1 / (t·d1 + (1 - t)·d2), the probability of outputting the second-nearest word
    (Xu et al. 2021, the Vickrey rule); where the denominator is 0 (t = 0 and d2 = 0, t = 1 and
    d1 = 0, or d1 = d2 = 0) p2 = t, the limit along d1 = d2 — so t = 0 is always the nearest word
    and t = 1 always the second."""
    d1 = np.asarray(d1, dtype=np.float64)
    d2 = np.asarray(d2, dtype=np.float64)
    num = t * d1
    den = num + (1.0 - t) * d2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(den > 0, num / np.where(den > 0, den, 1.0), t)
    return p


class Vickrey(_BatchedMechanism):
    """The Vickrey mechanism of Xu et al. (PrivateNLP 2021, arXiv 2104.11838).

    phi^ = phi(w) + Z with Z from the multivariate Laplace (base "cmp") or the Mahalanobis
    (base "mahalanobis", with lam) mechanism; x1, x2 = the exact first and second nearest words
    to phi^ over the whole vocabulary (w included; `ExactSearch.nearest_two`, sorted so that
    d1 <= d2 — the unsorted argpartition pair of pypantera/ECIR is a bug: our finding, not in the
    paper); output x2 with probability p2 = t·d1/(t·d1 + (1 - t)·d2) (`second_probability`), else x1.
    The choice reads only phi^ and the public embedding, so the guarantee is the base's.
    """

    name = "vickrey"
    label = "Vickrey (Xu et al. 2021)"
    PARAMETERS = {
        "t": Parameter(
            DEFAULT_T, 0.0, 1.0,
            help="Pull towards the second-nearest word: 0 = always the nearest (the base mechanism), "
                 "1 = always the second. Default 0.75 (pypantera, ECIR).",
        ),
        "base": Parameter(
            "cmp", choices=("cmp", "mahalanobis"),
            help="Noise: cmp (multivariate Laplace) or mahalanobis (uses lam).",
        ),
        "lam": Parameter(
            DEFAULT_LAMBDA, 0.0, 1.0,
            help="Mahalanobis lam (only with base = mahalanobis).",
        ),
    }

    def _set_parameters(self, *, t: float = DEFAULT_T, base: str = "cmp", lam: float = DEFAULT_LAMBDA) -> None:
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)):
            raise ValueError(f"t must be a number between 0 and 1, got {t!r}.")
        t = float(t)
        if not (math.isfinite(t) and 0.0 <= t <= 1.0):
            raise ValueError(
                f"t must be between 0 and 1 (0 = always the nearest word, 1 = always the second), got {t!r}."
            )
        if base not in self.PARAMETERS["base"].choices:
            raise ValueError(f"base must be 'cmp' or 'mahalanobis', got {base!r}.")
        self.t = t
        self.base = base
        self.lam = _check_lambda(lam)

    def _guarantee(self) -> Guarantee:
        base = self._base_mechanism()
        inner = base.guarantee
        return Guarantee("metric-dp", "As its base (the choice between the two nearest words is post-processing): "
                         + inner.text, neighbours=inner.neighbours, epsilon=self.epsilon)

    def _base_mechanism(self) -> Mechanism:
        """The base mechanism (same ε), whose guarantee this one has."""
        family = MultivariateLaplace.family() if self.base == "cmp" else Mahalanobis.family(lam=self.lam)
        return family if self.epsilon is None else family.with_epsilon(self.epsilon)

    def _noise_fn(self, space, rng):
        if self.base == "cmp":
            return lambda e, m: laplace_noise(space.dim, e, m, rng)
        cov = regularised_covariance(space, self.lam)
        return lambda e, m: mahalanobis_noise(cov, e, m, rng)

    def select(self, space, points, rng=None) -> np.ndarray:
        """The Vickrey choice for noisy points (rows of ``points``): x2 with probability p2,
        else x1; int64. Reads only the points and the public embedding."""
        rng = as_generator(rng)
        points = np.atleast_2d(np.asarray(points, dtype=np.float64))
        first, second = space.exact_search.nearest_two(points)
        d1 = _distances(space, first, points)
        d2 = _distances(space, second, points)
        p2 = second_probability(d1, d2, self.t)
        return np.where(rng.random(points.shape[0]) < p2, second, first).astype(np.int64)

    def _sample_many(self, space, rows, eps, rng) -> np.ndarray:
        out = np.empty(rows.size, dtype=np.int64)
        for sl, points in _noisy_batches(space, rows, eps, self._noise_fn(space, rng)):
            out[sl] = self.select(space, points, rng)
        return out


def _distances(space, rows, points) -> np.ndarray:
    """Euclidean distances ||phi(x) - p|| in float64 from the difference (as the exact search)."""
    diff = space.vectors[rows].astype(np.float64) - points
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))
