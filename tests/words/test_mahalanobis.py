"""The Mahalanobis mechanism (spec mechanisms.md §2), the Vickrey mechanism (§3) and the exact
first-and-second nearest-word search they need, checked against closed forms and brute force."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import near_tie_queries
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import integrate, special, stats

import privlib.words.mechanisms.mahalanobis as mahalanobis_module
from privlib.core.noise import laplace_noise
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MECHANISMS, MultivariateLaplace, make_mechanism
from privlib.words.mechanisms.mahalanobis import (
    DEFAULT_LAMBDA,
    DEFAULT_T,
    Mahalanobis,
    Vickrey,
    embedding_covariance,
    mahalanobis_noise,
    regularised_covariance,
    second_probability,
)
from privlib.words.search import ExactSearch

N_SAMPLES = 20_000
P_MIN = 1e-3


def four_se(p: float, n: int) -> float:
    return 4.0 * math.sqrt(max(p * (1.0 - p), 1e-12) / n)


# ----------------------------------------------------------------------------- exact references
def p_projection_below(n: int, eps: float, c: float) -> float:
    """P(R·U_1 < c) for R ~ Gamma(n, 1/eps), U_1 the first coordinate of a uniform point on
    S^{n-1}, c >= 0 (mechanisms.md §1(d)): E_R[ I_{(1 + min(1, c/R))/2}((n-1)/2, (n-1)/2) ];
    for R <= c the integrand is 1."""
    a = (n - 1) / 2.0
    radius = stats.gamma(n, scale=1.0 / eps)
    head = radius.cdf(c)
    tail, err = integrate.quad(lambda r: radius.pdf(r) * special.betainc(a, a, 0.5 * (1.0 + c / r)),
                               c, radius.ppf(1 - 1e-16), epsabs=1e-13, epsrel=1e-11, limit=500)
    assert err < 1e-9
    return float(head + tail)


def p_stay_mahalanobis(n: int, eps: float, dist: float, lam: float) -> float:
    """P(M(w) = w) on the two-word vocabulary {0, D e_1} in R^n (mechanisms.md §2(d)).

    M(w) = w iff <Z, e> < D/2 with Z = R A u, A A^T = Sigma_p; <A u, e> = <u, A^T e> and
    ||A^T e|| = ||Sigma_p^{1/2} e||, so the event is U_1' < c/R with c = D / (2 ||Sigma_p^{1/2} e||)
    (U_1' = <u, A^T e>/||A^T e||, again a uniform coordinate). Two rows have covariance
    (D^2/4) e e^T, so Sigma~ = n e e^T and ||Sigma_p^{1/2} e||^2 = lam·n + 1 - lam."""
    return p_projection_below(n, eps, dist / (2.0 * math.sqrt(lam * n + 1.0 - lam)))


def vickrey_line_probability(eps: float, dist: float, t: float) -> float:
    """P(M(0) = D) for the Vickrey mechanism on V = {0, D} in one dimension (mechanisms.md §3(d)):
    phi^ = z ~ Laplace(0, 1/eps); when |z| < |z - D| the word 0 is first and D second, so D is
    output with p2 = t|z|/(t|z| + (1-t)|z-D|); otherwise D is first and is output with
    1 - p2 = (1-t)|z|/(t|z-D| + (1-t)|z|)."""
    def density(z):
        return 0.5 * eps * math.exp(-eps * abs(z))

    def q(z):
        a, b = abs(z), abs(z - dist)
        if a < b:
            return t * a / (t * a + (1 - t) * b)
        return (1 - t) * a / (t * b + (1 - t) * a)

    total = 0.0
    for lo, hi in ((-np.inf, 0.0), (0.0, dist / 2), (dist / 2, dist), (dist, np.inf)):
        value, err = integrate.quad(lambda z: density(z) * q(z), lo, hi, epsabs=1e-13, epsrel=1e-11, limit=200)
        assert err < 1e-9
        total += value
    return total


def two_word_space(n: int, dist: float) -> EmbeddingSpace:
    vectors = np.zeros((2, n))
    vectors[1, 0] = dist
    return EmbeddingSpace.from_arrays(["w", "w'"], vectors, name=f"two words in {n}d")


def anisotropic_space(n_words=30, seed=0) -> EmbeddingSpace:
    """Words whose coordinates have very different spreads (so lam matters)."""
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n_words, 3)) * np.array([3.0, 1.0, 0.2])
    return EmbeddingSpace.from_arrays([f"a{i}" for i in range(n_words)], vectors, name="anisotropic")


def renormalised_noise(cov, epsilon, size, rng=None):
    """The pypantera/ECIR bug (§2(c)): the stretched direction scaled back to unit length."""
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    u = rng.standard_normal((size, cov.dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    direction = u @ cov.sqrt
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * rng.gamma(cov.dim, 1.0 / epsilon, size)[:, None]


def brute_force_two(vectors, points):
    """First and second word by (float64 sum((x - q)^2), row) — the reference for nearest_two."""
    x64 = np.asarray(vectors, dtype=np.float64)
    first, second = [], []
    for q in np.atleast_2d(np.asarray(points, dtype=np.float64)):
        diff = x64 - q
        d = np.einsum("ij,ij->i", diff, diff)
        order = np.lexsort((np.arange(d.size), d))
        first.append(order[0])
        second.append(order[1])
    return np.array(first), np.array(second)


# ----------------------------------------------------------------------------- covariance
@pytest.mark.parametrize("lam", [0.0, 0.2, 0.7, 1.0])
def test_covariance_normalisation(glove_small, lam):
    x = glove_small.vectors.astype(np.float64)
    cov = embedding_covariance(glove_small)
    np.testing.assert_allclose(cov, np.cov(x.T, ddof=0), rtol=1e-9, atol=1e-12)
    rc = regularised_covariance(glove_small, lam)
    n = glove_small.dim
    assert abs(np.trace(rc.sigma_tilde) - n) <= 1e-12 * n  # tr(Sigma~) = n exactly (to rounding)
    np.testing.assert_allclose(rc.sigma_tilde, cov * n / np.trace(cov), rtol=1e-14)
    np.testing.assert_allclose(rc.sigma_p, lam * rc.sigma_tilde + (1 - lam) * np.eye(n), atol=1e-14)
    np.testing.assert_allclose(rc.sqrt @ rc.sqrt.T, rc.sigma_p, atol=1e-12)
    np.testing.assert_array_equal(rc.sqrt, rc.sqrt.T)
    assert rc.eigenvalues.min() >= 0
    assert rc.smallest_eigenvalue >= 1 - lam - 1e-12
    if lam == 0.0:
        np.testing.assert_array_equal(rc.sigma_p, np.eye(n))
    assert regularised_covariance(glove_small, lam) is rc  # cached per space and lam


def test_whitened_noise_radius_is_gamma(glove_small):
    for lam, eps in ((0.2, 1.0), (0.9, 10.0), (1.0, 3.0)):
        cov = regularised_covariance(glove_small, lam)
        z = mahalanobis_noise(cov, eps, N_SAMPLES, rng=int(10 * lam + eps))
        radius = np.linalg.norm(cov.whiten(z), axis=1)
        np.testing.assert_allclose(radius, cov.norm(z), rtol=1e-9)
        gamma = stats.gamma(glove_small.dim, scale=1.0 / eps)
        assert stats.kstest(radius, gamma.cdf).pvalue > P_MIN
        assert stats.kstest(radius, stats.gamma(glove_small.dim, scale=1.0 / (1.1 * eps)).cdf).pvalue < P_MIN
        # the renormalised direction (the bug of §2(c)) fails the same test where Sigma_p is
        # far from I (with lam = 0.2 its eigenvalues lie in [0.8, 1.34] and ||A u|| stays so close
        # to 1 in 50 dimensions that 20,000 draws cannot tell; the two-word tests catch it there)
        if lam >= 0.9:
            bad = renormalised_noise(cov, eps, N_SAMPLES, rng=5)
            assert stats.kstest(np.linalg.norm(cov.whiten(bad), axis=1), gamma.cdf).pvalue < P_MIN
        # E[Z] = 0: N · sum of squared standardised coordinate means ~ chi^2_n
        stat = N_SAMPLES * float(np.sum(z.mean(axis=0) ** 2 / z.var(axis=0)))
        assert stats.chi2(glove_small.dim).sf(stat) > P_MIN


def test_projection_law_on_glove_covariance(glove_small):
    # P(<Z, e> < h) for a fixed unit e: the §1 Beta formula with c = h / ||Sigma_p^{1/2} e||
    cov = regularised_covariance(glove_small, 0.7)
    rng = np.random.default_rng(8)
    eps, n = 5.0, glove_small.dim
    z = mahalanobis_noise(cov, eps, N_SAMPLES, rng=rng)
    for _ in range(3):
        e = rng.standard_normal(n)
        e /= np.linalg.norm(e)
        stretch = float(np.linalg.norm(cov.sqrt @ e))
        proj = z @ e
        for h in (0.5, 2.0, 5.0):
            exact = p_projection_below(n, eps, h / stretch)
            assert abs(np.mean(proj < h) - exact) <= four_se(exact, N_SAMPLES)


# ----------------------------------------------------------------------------- two-word closed form
@pytest.mark.parametrize(
    "n, lam, eps, dist",
    [(3, 0.0, 2.0, 1.0), (5, 0.5, 2.0, 1.0), (10, 0.9, 5.0, 1.0), (3, 0.9, 2.0, 1.0), (10, 1.0, 2.0, 1.0),
     (50, 0.2, 10.0, 3.0)],
)
def test_two_word_closed_form(n, lam, eps, dist):
    space = two_word_space(n, dist)
    mech = Mahalanobis.family(lam=lam)
    exact = p_stay_mahalanobis(n, eps, dist, lam)
    out = mech.sample(space, "w", eps, N_SAMPLES, rng=n * 100 + int(10 * lam))
    assert abs(np.mean(out == 0) - exact) <= four_se(exact, N_SAMPLES)
    # by symmetry the other word stays with the same probability
    out2 = mech.sample(space, "w'", eps, N_SAMPLES, rng=n * 100 + int(10 * lam) + 1)
    assert abs(np.mean(out2 == 1) - exact) <= four_se(exact, N_SAMPLES)
    # the metric of the guarantee: d_RM = D / sqrt(lam n + 1 - lam) along e
    assert mech.distance(space, "w", "w'") == pytest.approx(dist / math.sqrt(lam * n + 1 - lam), rel=1e-12)


@pytest.mark.parametrize("n, lam, eps, dist", [(10, 0.9, 5.0, 1.0), (3, 0.9, 2.0, 1.0), (10, 1.0, 2.0, 1.0)])
def test_renormalised_direction_fails_the_two_word_formula(monkeypatch, n, lam, eps, dist):
    # regression: the formula rejects the pypantera/ECIR renormalisation by far more than 4 SE
    monkeypatch.setattr(mahalanobis_module, "mahalanobis_noise", renormalised_noise)
    exact = p_stay_mahalanobis(n, eps, dist, lam)
    out = Mahalanobis.family(lam=lam).sample(two_word_space(n, dist), "w", eps, N_SAMPLES, rng=3)
    assert abs(np.mean(out == 0) - exact) > four_se(exact, N_SAMPLES)


@pytest.mark.parametrize("n, lam", [(2, 0.5), (5, 0.2), (10, 0.9), (50, 0.2), (10, 1.0)])
@pytest.mark.parametrize("eps, dist", [(0.5, 1.0), (2.0, 1.0), (5.0, 2.0)])
def test_privacy_ratio_two_words(n, lam, eps, dist):
    # P(M(w)=w) / P(M(w')=w) <= exp(eps d_RM(w, w')); P(M(w')=w) = 1 - P(M(w)=w) by symmetry
    p = p_stay_mahalanobis(n, eps, dist, lam)
    d_rm = Mahalanobis.family(lam=lam).distance(two_word_space(n, dist), 0, 1)
    assert p / (1 - p) <= math.exp(eps * d_rm) * (1 + 1e-9)
    assert p > 0.5


def test_privacy_ratio_two_words_empirical():
    n, lam, eps, dist = 5, 0.5, 2.0, 1.0
    space = two_word_space(n, dist)
    mech = Mahalanobis.family(lam=lam)
    stay = np.mean(mech.sample(space, 0, eps, N_SAMPLES, rng=1) == 0)
    move = np.mean(mech.sample(space, 1, eps, N_SAMPLES, rng=2) == 0)
    se = math.sqrt(stay * (1 - stay) / N_SAMPLES + move * (1 - move) / N_SAMPLES)
    # stay - e^{eps d} move <= 0 up to sampling error
    bound = math.exp(eps * mech.distance(space, 0, 1))
    assert stay - bound * move <= 4 * se * (1 + bound)


def test_lambda_zero_equals_multivariate_laplace_in_law():
    space = anisotropic_space()
    eps, word = 1.5, 4
    a = Mahalanobis.family(lam=0.0).sample(space, word, eps, 30_000, rng=1)
    b = MultivariateLaplace.family().sample(space, word, eps, 30_000, rng=2)
    table = np.stack([np.bincount(a, minlength=len(space)), np.bincount(b, minlength=len(space))])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0]).pvalue > P_MIN
    # the same comparison sees the stretching of lam = 0.9 on this anisotropic embedding
    c = Mahalanobis.family(lam=0.9).sample(space, word, eps, 30_000, rng=3)
    table = np.stack([np.bincount(c, minlength=len(space)), np.bincount(b, minlength=len(space))])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0]).pvalue < P_MIN


def test_euclidean_corollary(glove_small):
    mech = Mahalanobis.family(lam=DEFAULT_LAMBDA)
    cov = mech.covariance(glove_small)
    mu_min = float(np.linalg.eigvalsh(cov.sigma_tilde).min())
    assert mech.euclidean_epsilon(glove_small, 2.0) == pytest.approx(
        2.0 / math.sqrt(DEFAULT_LAMBDA * mu_min + 1 - DEFAULT_LAMBDA), rel=1e-10)
    assert mech.euclidean_epsilon(glove_small, 1.0) <= 1 / math.sqrt(1 - DEFAULT_LAMBDA)
    rng = np.random.default_rng(0)
    for a, b in rng.integers(0, len(glove_small), (50, 2)):
        d2 = float(np.linalg.norm(glove_small.vectors[a].astype(float) - glove_small.vectors[b]))
        assert mech.distance(glove_small, int(a), int(b)) <= d2 / math.sqrt(cov.smallest_eigenvalue) * (1 + 1e-12)


def test_singular_sigma_p_with_lambda_one():
    space = two_word_space(4, 2.0)  # covariance of rank 1
    cov = regularised_covariance(space, 1.0)
    np.testing.assert_allclose(cov.norm(np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])), [0.5, np.inf])
    assert Mahalanobis.family(lam=1.0).euclidean_epsilon(space, 1.0) == math.inf
    with pytest.raises(ValueError, match="Sigma_p is singular.*use lam < 1"):
        cov.whiten(np.ones((1, 4)))
    # sampling still works (the noise lives on the line through the two words)
    out = Mahalanobis.family(lam=1.0).sample(space, 0, 1.0, 100, rng=0)
    assert set(np.unique(out)) <= {0, 1}


def test_mahalanobis_api(gaussian_space):
    assert MECHANISMS["mahalanobis"] is Mahalanobis
    m = make_mechanism("mahalanobis", lam=0.5)
    assert m.parameters == {"lam": 0.5} and repr(m) == "Mahalanobis.family(lam=0.5)"
    assert Mahalanobis.family().lam == DEFAULT_LAMBDA == Mahalanobis.PARAMETERS["lam"].default
    assert "d_RM" in str(m.guarantee) and "\n" not in str(m.guarantee) and "eps/sqrt(0.5)" in str(m.guarantee)
    out = m.sample(gaussian_space, "w3", 2.0, 50, rng=0)
    assert out.dtype == np.int64 and out.shape == (50,)
    assert m.sample(gaussian_space, 3, 2.0, 0).shape == (0,)
    many = m.sample_many(gaussian_space, [1, 2, 3, 4], [1.0, 2.0, 1.0, 3.0], rng=1)
    assert many.dtype == np.int64 and many.shape == (4,)
    again = m.sample(gaussian_space, 3, 2.0, 30, rng=4)
    np.testing.assert_array_equal(m.sample(gaussian_space, 3, 2.0, 30, rng=4), again)
    assert m.noise(gaussian_space, 1.0, 7, rng=0).shape == (7, gaussian_space.dim)


@pytest.mark.parametrize("lam", [-0.1, 1.5, float("nan"), "0.2", True, None])
def test_lambda_validation(lam):
    with pytest.raises(ValueError, match="lam must be"):
        Mahalanobis.family(lam=lam)
    with pytest.raises(ValueError, match="lam must be"):
        Vickrey.family(base="mahalanobis", lam=lam)


def test_mahalanobis_argument_validation(gaussian_space):
    m = Mahalanobis.family()
    with pytest.raises(ValueError, match="epsilon must be a finite number greater than 0"):
        m.sample(gaussian_space, 0, -1.0)
    with pytest.raises(ValueError, match="size must be at least 0"):
        m.sample(gaussian_space, 0, 1.0, -3)
    with pytest.raises(ValueError, match="Word rows must be between 0 and"):
        m.sample_many(gaussian_space, [0, 10**6], 1.0)
    flat = EmbeddingSpace.from_arrays(["a", "b"], [[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="zero variance"):
        m.sample(flat, 0, 1.0)
    with pytest.raises(ValueError, match=r"no parameter\(s\) t"):
        make_mechanism("mahalanobis", t=0.5)


# ----------------------------------------------------------------------------- nearest_two
@pytest.mark.parametrize(
    "n_words, dim, m",
    [(5000, 7, 1500), (2 * 4096 + 1, 3, 40), (4096, 5, 1000), (10, 1, 2001), (2, 2, 3), (3, 1, 50)],
)
def test_nearest_two_matches_brute_force_random(n_words, dim, m):
    rng = np.random.default_rng(n_words * 31 + dim * 7 + m)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(n_words)], rng.standard_normal((n_words, dim)))
    centres = space.vectors[rng.integers(0, n_words, m)].astype(np.float64)
    queries = centres + rng.choice([0.0, 0.01, 0.3, 3.0, 300.0], size=(m, 1)) * rng.standard_normal((m, dim))
    first, second = space.exact_search.nearest_two(queries)
    assert first.dtype == np.int64 and second.dtype == np.int64 and first.shape == (m,)
    f_ref, s_ref = brute_force_two(space.vectors, queries)
    np.testing.assert_array_equal(first, f_ref)
    np.testing.assert_array_equal(second, s_ref)
    np.testing.assert_array_equal(first, space.nearest(queries))


def test_nearest_two_with_ties(integer_space):
    # integer vectors and half-integer queries: duplicates and exactly equal distances everywhere
    rng = np.random.default_rng(11)
    queries = rng.integers(-8, 9, size=(3000, 3)) / 2.0
    first, second = integer_space.exact_search.nearest_two(queries)
    f_ref, s_ref = brute_force_two(integer_space.vectors, queries)
    np.testing.assert_array_equal(first, f_ref)
    np.testing.assert_array_equal(second, s_ref)
    # a query on a duplicated vector: both copies at distance 0, lower row first
    _, first_rows, counts = np.unique(integer_space.vectors, axis=0, return_index=True, return_counts=True)
    row = int(first_rows[np.argmax(counts)])
    dup = np.flatnonzero((integer_space.vectors == integer_space.vectors[row]).all(axis=1))
    assert dup.size >= 2
    f, s = integer_space.exact_search.nearest_two(integer_space.vectors[row])
    assert (int(f), int(s)) == (dup[0], dup[1])


@settings(max_examples=60, deadline=None)
@given(
    vectors=hnp.arrays(np.int8, st.tuples(st.integers(2, 40), st.integers(1, 4)), elements=st.integers(-3, 3)),
    seed=st.integers(0, 2**16),
)
def test_nearest_two_property(vectors, seed):
    space = EmbeddingSpace.from_arrays([f"v{i}" for i in range(vectors.shape[0])], vectors.astype(np.float32))
    rng = np.random.default_rng(seed)
    queries = rng.integers(-8, 9, size=(20, vectors.shape[1])) / 2.0
    first, second = ExactSearch(space).nearest_two(queries)
    f_ref, s_ref = brute_force_two(space.vectors, queries)
    np.testing.assert_array_equal(first, f_ref)
    np.testing.assert_array_equal(second, s_ref)


def test_nearest_two_shapes_and_errors(gaussian_space):
    search = gaussian_space.exact_search
    f, s = search.nearest_two(gaussian_space.vectors[5])
    assert np.ndim(f) == 0 and np.ndim(s) == 0 and int(f) == 5 and int(s) != 5
    f, s = search.nearest_two(np.empty((0, gaussian_space.dim)))
    assert f.shape == (0,) and s.shape == (0,)
    with pytest.raises(ValueError, match="dimension 3, the embedding has 8"):
        search.nearest_two(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        search.nearest_two(np.full((1, 8), np.nan))
    with pytest.raises(ValueError, match="epsilon is far too small"):
        search.nearest_two(np.full((1, 8), 1e31))


@pytest.mark.parametrize("epsilon", [0.5, 1.0])
@pytest.mark.parametrize("ranks", [(0, 1), (1, 2)])
def test_nearest_two_near_ties_under_large_noise(glove_small, epsilon, ranks):
    """Small epsilon: queries ~n/eps = 50-100 from the words, where float32 scores carry errors
    of ~1e-2. Each query is moved next to the bisector of its nearest words of the given ranks
    ((0, 1): first against second; (1, 2): second against third) so the two squared distances
    differ by 1e-6..1e-4: invisible to float32, unambiguous in float64."""
    rng = np.random.default_rng(int(100 * epsilon) + ranks[0])
    queries = near_tie_queries(glove_small, epsilon, rng, ranks)
    f_ref, s_ref = brute_force_two(glove_small.vectors, queries)
    first, second = glove_small.exact_search.nearest_two(queries)
    np.testing.assert_array_equal(first, f_ref)
    np.testing.assert_array_equal(second, s_ref)
    # the cases are beyond float32: a plain float32 search gets some of the pairs wrong
    v32 = glove_small.vectors
    scores = (v32 * v32).sum(axis=1)[None, :] - 2.0 * (queries.astype(np.float32) @ v32.T)
    naive = np.argsort(scores, axis=1, kind="stable")[:, :2]
    assert np.any((naive[:, 0] != f_ref) | (naive[:, 1] != s_ref))


def test_nearest_two_duplicates_across_word_blocks():
    # copies of each vector in different word blocks (4096 words each): the two copies of the
    # probed word are first and second, lower row first, and a third copy never comes second
    rng = np.random.default_rng(23)
    base = rng.standard_normal((3000, 50)).astype(np.float32)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(9000)], np.concatenate([base, base[::-1], base]))
    probe = rng.integers(0, 3000, 300)
    first, second = space.exact_search.nearest_two(space.vectors[6000 + probe])
    np.testing.assert_array_equal(first, probe)
    np.testing.assert_array_equal(second, 5999 - probe)


def test_nearest_two_on_glove_noisy_points(glove_small, brute_force):
    rng = np.random.default_rng(2)
    rows = rng.integers(0, len(glove_small), 40)
    points = glove_small.vectors[rows].astype(np.float64) + laplace_noise(glove_small.dim, 10.0, 40, rng)
    first, second = glove_small.exact_search.nearest_two(points)
    f_ref, s_ref = brute_force_two(glove_small.vectors, points)
    np.testing.assert_array_equal(first, f_ref)
    np.testing.assert_array_equal(second, s_ref)


# ----------------------------------------------------------------------------- Vickrey
@pytest.mark.parametrize("t", [0.25, 0.5, 0.75])
@pytest.mark.parametrize("eps, dist", [(1.0, 1.0), (3.0, 1.0), (2.0, 0.3)])
def test_vickrey_line_closed_form(t, eps, dist):
    space = EmbeddingSpace.from_arrays(["zero", "far"], [[0.0], [dist]])
    exact = vickrey_line_probability(eps, dist, t)
    out = Vickrey.family(t=t).sample(space, "zero", eps, N_SAMPLES, rng=int(100 * t + 10 * eps))
    assert abs(np.mean(out == 1) - exact) <= four_se(exact, N_SAMPLES)


@pytest.mark.parametrize("t, eps", [(0.75, 1.0), (0.75, 3.0), (0.9, 2.0)])
def test_unsorted_pair_fails_the_line_closed_form(monkeypatch, t, eps):
    # regression for the argpartition bug of §3(c): a pair in row order instead of distance order
    original = ExactSearch.nearest_two

    def unsorted(self, points):
        f, s = original(self, points)
        return np.minimum(f, s), np.maximum(f, s)

    monkeypatch.setattr(ExactSearch, "nearest_two", unsorted)
    space = EmbeddingSpace.from_arrays(["zero", "far"], [[0.0], [1.0]])
    exact = vickrey_line_probability(eps, 1.0, t)
    out = Vickrey.family(t=t).sample(space, "zero", eps, N_SAMPLES, rng=5)
    assert abs(np.mean(out == 1) - exact) > four_se(exact, N_SAMPLES)


def test_vickrey_select_uses_the_sorted_pair():
    # point 0.9 on the line {0, 1}: first = word 1 (distance 0.1), second = word 0 (0.9)
    space = EmbeddingSpace.from_arrays(["a", "b"], [[0.0], [1.0]])
    np.testing.assert_array_equal(Vickrey.family(t=1.0).select(space, np.full((50, 1), 0.9), rng=0), 0)
    np.testing.assert_array_equal(Vickrey.family(t=0.0).select(space, np.full((50, 1), 0.9), rng=0), 1)
    # p2 = t d1/(t d1 + (1-t) d2) = 0.5·0.1/(0.5·0.1 + 0.5·0.9) = 0.1 for t = 0.5
    out = Vickrey.family(t=0.5).select(space, np.full((N_SAMPLES, 1), 0.9), rng=1)
    assert abs(np.mean(out == 0) - 0.1) <= four_se(0.1, N_SAMPLES)


@pytest.mark.parametrize("base, lam", [("cmp", DEFAULT_LAMBDA), ("mahalanobis", 0.5)])
def test_vickrey_t_zero_is_the_base_mechanism(gaussian_space, base, lam):
    plain = MultivariateLaplace.family() if base == "cmp" else Mahalanobis.family(lam=lam)
    for eps in (0.5, 3.0):
        np.testing.assert_array_equal(
            Vickrey.family(t=0.0, base=base, lam=lam).sample(gaussian_space, "w7", eps, 3000, rng=4),
            plain.sample(gaussian_space, "w7", eps, 3000, rng=4),
        )


def test_vickrey_t_one_is_always_the_second_nearest(gaussian_space):
    rng = np.random.default_rng(6)
    points = gaussian_space.vectors[rng.integers(0, len(gaussian_space), 2000)].astype(np.float64)
    points += rng.choice([0.0, 0.1, 1.0, 10.0], size=(2000, 1)) * rng.standard_normal(points.shape)
    _, s_ref = brute_force_two(gaussian_space.vectors, points)
    np.testing.assert_array_equal(Vickrey.family(t=1.0).select(gaussian_space, points, rng=0), s_ref)
    # through sample: with t = 1 the word itself (its own nearest word at distance 0 + noise)
    # is output only when the noise makes it second
    out = Vickrey.family(t=1.0).sample(gaussian_space, 3, 1000.0, 200, rng=0)
    assert np.all(out != 3)


def test_second_probability_edges():
    np.testing.assert_allclose(second_probability([1.0, 2.0], [3.0, 2.0], 0.5), [0.25, 0.5])
    assert second_probability(0.0, 1.0, 0.75) == 0.0  # on a word: keep it (t < 1)
    assert second_probability(0.0, 1.0, 1.0) == 1.0  # t = 1: always the second
    assert second_probability(0.0, 0.0, 0.3) == 0.3  # duplicates: the limit along d1 = d2
    assert second_probability(2.0, 5.0, 0.0) == 0.0
    p = second_probability(np.linspace(0, 1, 11), 1.0, 0.75)
    assert np.all(p <= 0.75 + 1e-15) and np.all(np.diff(p) > 0)


def test_vickrey_api(gaussian_space):
    assert MECHANISMS["vickrey"] is Vickrey
    v = make_mechanism("vickrey", t=0.5, base="mahalanobis", lam=0.3)
    assert v.parameters == {"t": 0.5, "base": "mahalanobis", "lam": 0.3}
    assert Vickrey.family().t == DEFAULT_T == 0.75 and Vickrey.family().base == "cmp"
    assert "post-processing" in str(v.guarantee) and "d_RM" in str(v.guarantee) and "\n" not in str(v.guarantee)
    assert "Euclidean distance" in str(Vickrey.family().guarantee)
    out = v.sample(gaussian_space, "w1", 2.0, 40, rng=0)
    assert out.dtype == np.int64 and out.shape == (40,)
    many = Vickrey.family().sample_many(gaussian_space, [1, 2, 3], [1.0, 2.0, 3.0], rng=0)
    assert many.shape == (3,) and many.dtype == np.int64
    assert Vickrey.family().sample(gaussian_space, 1, 1.0, 0).shape == (0,)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"t": -0.1}, "t must be between 0 and 1"),
        ({"t": 1.01}, "t must be between 0 and 1"),
        ({"t": float("nan")}, "t must be between 0 and 1"),
        ({"t": "half"}, "t must be a number"),
        ({"base": "laplace"}, "base must be 'cmp' or 'mahalanobis'"),
    ],
)
def test_vickrey_validation(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        Vickrey.family(**kwargs)


def test_vickrey_argument_validation(gaussian_space):
    with pytest.raises(ValueError, match="epsilon must be a finite number greater than 0"):
        Vickrey.family().sample(gaussian_space, 0, float("inf"))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        Vickrey.family().sample(gaussian_space, "nope", 1.0)
    with pytest.raises(ValueError, match="Word rows must be between 0 and"):
        Vickrey.family().sample_many(gaussian_space, [-1], 1.0)
