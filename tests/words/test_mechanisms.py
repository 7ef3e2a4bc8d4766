"""Multivariate Laplace noise and the CMP mechanism, checked against exact laws and closed forms
(spec mechanisms.md §1, dx-text.md §1)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

import privlib.words.mechanisms as mech_module
from privlib.core.noise import laplace_noise
from privlib.words.embeddings import EmbeddingSpace
from privlib.core.mechanism import Guarantee
from privlib.core.mechanism import Mechanism as CoreMechanism
from privlib.words.mechanisms import (
    D_X_NEIGHBOURS,
    MECHANISMS,
    Mechanism,
    MultivariateLaplace,
    describe_mechanisms,
    make_mechanism,
)

N_SAMPLES = 20_000


def four_se(p: float, n: int) -> float:
    """Four binomial standard errors of a frequency estimated from n draws with probability p."""
    return 4.0 * math.sqrt(p * (1.0 - p) / n)


# ----------------------------------------------------------------------------- exact references
def p_stay_two_words(n: int, eps: float, dist: float) -> float:
    """P(M(w) = w) for the vocabulary {w, w'} at distance D in R^n, n >= 2 (mechanisms.md §1(d)):
    E_{R ~ Gamma(n, 1/eps)}[ I_{(1 + min(1, D/(2R)))/2}((n-1)/2, (n-1)/2) ].
    For R <= D/2 the integrand is 1, so the expectation splits into a CDF and one quadrature."""
    a = (n - 1) / 2.0
    radius = stats.gamma(n, scale=1.0 / eps)
    head = radius.cdf(dist / 2.0)
    upper = radius.ppf(1 - 1e-16)
    tail, err = integrate.quad(
        lambda r: radius.pdf(r) * special.betainc(a, a, 0.5 * (1.0 + dist / (2.0 * r))),
        dist / 2.0, upper, epsabs=1e-13, epsrel=1e-11, limit=500,
    )
    assert err < 1e-9
    return float(head + tail)


LINE = [0.0, 1.0, 2.5, 4.0, 7.0]  # the positions of the words of the `line_space` fixture


def two_word_space(n: int, dist: float) -> EmbeddingSpace:
    vectors = np.zeros((2, n))
    vectors[1, 0] = dist
    return EmbeddingSpace.from_arrays(["w", "w'"], vectors, name=f"two words in {n}d")


# ----------------------------------------------------------------------------- laplace_noise: the law
@pytest.mark.parametrize("dim, eps", [(1, 1.0), (2, 0.5), (3, 3.0), (50, 1.0), (50, 10.0), (300, 2.0)])
def test_noise_radius_is_gamma_n_scale_one_over_eps(dim, eps):
    noise = laplace_noise(dim, eps, N_SAMPLES, rng=dim * 1000 + int(eps * 10))
    radius = np.linalg.norm(noise, axis=1)
    assert stats.kstest(radius, stats.gamma(dim, scale=1.0 / eps).cdf).pvalue > 0.001
    # the same test has the power to see the classic mistakes
    assert stats.kstest(radius, stats.gamma(dim, scale=1.0 / (2.0 * eps)).cdf).pvalue < 0.001  # eps vs 2 eps
    assert stats.kstest(radius, stats.gamma(dim, scale=1.0 / (1.1 * eps)).cdf).pvalue < 0.001  # 10 % off
    if eps != 1.0:
        assert stats.kstest(radius, stats.gamma(dim, scale=eps).cdf).pvalue < 0.001  # rate/scale swap
    # the mean radius n/eps within 4 standard errors (sd of Gamma(n, 1/eps) is sqrt(n)/eps)
    assert abs(radius.mean() - dim / eps) <= 4 * math.sqrt(dim) / eps / math.sqrt(N_SAMPLES)


@pytest.mark.parametrize("dim", [2, 3, 10, 50])
def test_noise_direction_is_uniform_on_the_sphere(dim):
    noise = laplace_noise(dim, 2.0, N_SAMPLES, rng=77 + dim)
    u = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    # mean direction: each coordinate has mean 0 and variance 1/n, so N n |mean|^2 ~ chi^2_n (CLT)
    stat = N_SAMPLES * dim * float(np.sum(u.mean(axis=0) ** 2))
    assert stats.chi2(dim).sf(stat) > 0.001
    # second moment of one coordinate: E[u_1^2] = 1/n, Var[u_1^2] = 3/(n(n+2)) - 1/n^2
    se = math.sqrt((3.0 / (dim * (dim + 2)) - 1.0 / dim**2) / N_SAMPLES)
    assert abs(np.mean(u[:, 0] ** 2) - 1.0 / dim) <= 4 * se
    assert abs(np.mean(u[:, -1] ** 2) - 1.0 / dim) <= 4 * se
    # projection law: (1 + u_1)/2 ~ Beta((n-1)/2, (n-1)/2)
    a = (dim - 1) / 2.0
    assert stats.kstest((1 + u[:, 0]) / 2, stats.beta(a, a).cdf).pvalue > 0.001
    assert stats.kstest((1 + u[:, -1]) / 2, stats.beta(a, a).cdf).pvalue > 0.001
    # and the test sees a non-uniform direction (one coordinate squeezed by 20 %)
    skewed = u.copy()
    skewed[:, 0] *= 0.8
    skewed /= np.linalg.norm(skewed, axis=1, keepdims=True)
    assert stats.kstest((1 + skewed[:, 0]) / 2, stats.beta(a, a).cdf).pvalue < 0.001


def test_noise_direction_and_radius_are_independent():
    # the radius law must not depend on the direction: compare the radii of the two half-spaces
    noise = laplace_noise(5, 1.0, N_SAMPLES, rng=5)
    radius = np.linalg.norm(noise, axis=1)
    up = noise[:, 0] > 0
    assert stats.ks_2samp(radius[up], radius[~up]).pvalue > 0.001


def test_noise_in_one_dimension_is_laplace():
    eps = 1.5
    noise = laplace_noise(1, eps, N_SAMPLES, rng=11)[:, 0]
    assert stats.kstest(noise, stats.laplace(scale=1.0 / eps).cdf).pvalue > 0.001
    assert abs(np.mean(noise > 0) - 0.5) <= four_se(0.5, N_SAMPLES)


def test_noise_shape_and_dtype():
    noise = laplace_noise(7, 1.0, 13, rng=0)
    assert noise.shape == (13, 7)
    assert noise.dtype == np.float64
    assert np.all(np.isfinite(noise))
    empty = laplace_noise(4, 1.0, 0, rng=0)
    assert empty.shape == (0, 4)


def test_noise_seeding():
    np.testing.assert_array_equal(laplace_noise(5, 2.0, 10, rng=123), laplace_noise(5, 2.0, 10, rng=123))
    assert not np.array_equal(laplace_noise(5, 2.0, 10, rng=123), laplace_noise(5, 2.0, 10, rng=124))
    # None: fresh entropy each call (continuous draws never repeat)
    assert not np.array_equal(laplace_noise(5, 2.0, 10), laplace_noise(5, 2.0, 10))
    # a Generator is used as is, and advances
    g = np.random.default_rng(9)
    first, second = laplace_noise(5, 2.0, 10, rng=g), laplace_noise(5, 2.0, 10, rng=g)
    assert not np.array_equal(first, second)
    g2 = np.random.default_rng(9)
    np.testing.assert_array_equal(first, laplace_noise(5, 2.0, 10, rng=g2))


@pytest.mark.parametrize("eps", [0, 0.0, -1.0, -1e-300, math.nan, math.inf, -math.inf, "1", True, False, None, 1j, [1.0]])
def test_noise_rejects_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        laplace_noise(3, eps, 5, rng=0)


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"dim": 0}, "dim"),
        ({"dim": 2.5}, "dim"),
        ({"dim": True}, "dim"),
        ({"size": -1}, "size"),
        ({"size": 1.5}, "size"),
        ({"rng": -1}, "seed"),
        ({"rng": 1.5}, "seed"),
        ({"rng": "abc"}, "seed"),
        ({"rng": True}, "seed"),
    ],
)
def test_noise_rejects_bad_arguments(kwargs, pattern):
    args = {"dim": 3, "epsilon": 1.0, "size": 5, "rng": 0} | kwargs
    with pytest.raises(ValueError, match=pattern):
        laplace_noise(**args)


def test_tiny_epsilon_accepted():
    noise = laplace_noise(2, 1e-300, 4, rng=0)  # radius ~ 2e300: huge but finite
    assert np.all(np.isfinite(noise))


# ----------------------------------------------------------------------------- the mechanism: exact laws
@pytest.mark.parametrize(
    "n, eps, dist",
    [(2, 1.0, 2.0), (3, 0.5, 3.0), (5, 2.0, 1.5), (50, 5.0, 2.0), (50, 20.0, 1.0), (300, 30.0, 2.0)],
)
def test_two_word_vocabulary_matches_closed_form(n, eps, dist):
    space = two_word_space(n, dist)
    p = p_stay_two_words(n, eps, dist)
    assert 0.02 < p < 0.98  # parameters chosen so the test has power
    mechanism = MultivariateLaplace.family()
    from_w = mechanism.sample(space, "w", eps, N_SAMPLES, rng=n * 7 + 1)
    from_w2 = mechanism.sample(space, "w'", eps, N_SAMPLES, rng=n * 7 + 2)
    assert from_w.dtype == np.int64 and from_w.shape == (N_SAMPLES,)
    assert abs(np.mean(from_w == 0) - p) <= four_se(p, N_SAMPLES)
    # by symmetry P(M(w') = w) = P(M(w) = w') = 1 - p
    assert abs(np.mean(from_w2 == 0) - (1 - p)) <= four_se(p, N_SAMPLES)
    # eps·d_X-privacy for the event {output = w}: P(M(w)=w) <= e^{eps D} P(M(w')=w)
    assert p / (1 - p) <= math.exp(eps * dist)


def test_two_word_closed_form_reference_values():
    # n = 3: (1 + U_1)/2 is uniform, so P = E[(1 + min(1, D/2R))/2] — a second route to the same number
    n, eps, dist = 3, 0.5, 3.0
    radius = stats.gamma(n, scale=1.0 / eps)
    direct = radius.cdf(dist / 2) + integrate.quad(
        lambda r: radius.pdf(r) * 0.5 * (1 + dist / (2 * r)), dist / 2, np.inf, epsabs=1e-13
    )[0]
    assert p_stay_two_words(n, eps, dist) == pytest.approx(direct, abs=1e-9)
    # the privacy bound is tight as D -> 0 and the probability tends to 1/2
    assert p_stay_two_words(10, 1.0, 1e-6) == pytest.approx(0.5, abs=1e-5)


@pytest.mark.parametrize("eps", [0.7, 3.0])
def test_words_on_a_line_match_the_laplace_closed_form(line_space, line_law, eps):
    np.testing.assert_array_equal(line_space.vectors[:, 0], LINE)
    mechanism = MultivariateLaplace.family()
    for word in range(len(LINE)):
        expected = line_law(word, eps)
        counts = np.bincount(mechanism.sample(line_space, word, eps, N_SAMPLES, rng=100 * word + int(eps * 10)),
                             minlength=len(LINE))
        freq = counts / N_SAMPLES
        for y in range(len(LINE)):
            assert abs(freq[y] - expected[y]) <= four_se(expected[y], N_SAMPLES) + 1e-12, (word, y)


def test_line_closed_form_satisfies_dx_privacy(line_law):
    for eps in (0.1, 0.7, 3.0):
        probs = [line_law(w, eps) for w in range(len(LINE))]
        for w in range(len(LINE)):
            assert probs[w].sum() == pytest.approx(1.0, abs=1e-12)
            for w2 in range(len(LINE)):
                bound = math.exp(eps * abs(LINE[w] - LINE[w2]))
                assert np.all(probs[w] <= bound * probs[w2] * (1 + 1e-12))


def test_batches_do_not_change_the_law(monkeypatch, line_space, line_law):
    # draws beyond SAMPLE_BATCH are searched in several batches; the law and the count stay right
    monkeypatch.setattr(mech_module, "SAMPLE_BATCH", 999)
    eps, word = 1.0, 2
    out = MultivariateLaplace.family().sample(line_space, word, eps, N_SAMPLES, rng=31)
    assert out.shape == (N_SAMPLES,)
    expected = line_law(word, eps)
    freq = np.bincount(out, minlength=len(LINE)) / N_SAMPLES
    for y in range(len(LINE)):
        assert abs(freq[y] - expected[y]) <= four_se(expected[y], N_SAMPLES) + 1e-12


class _OneByOne(MultivariateLaplace):
    """The base-class _sample_many (one `_release` per row)."""

    _sample_many = Mechanism._sample_many


@pytest.mark.parametrize("mechanism", [MultivariateLaplace.family(), _OneByOne.family()], ids=["batched", "base"])
def test_sample_many_with_per_row_epsilons(line_space, line_law, mechanism):
    rng = np.random.default_rng(2024)
    groups = [(0, 0.7), (2, 0.7), (2, 3.0), (4, 1.5)]
    per_group = 4000 if isinstance(mechanism, _OneByOne) else N_SAMPLES // 2
    labels = rng.permutation(np.repeat(np.arange(len(groups)), per_group))
    rows = np.array([groups[g][0] for g in labels])
    eps = np.array([groups[g][1] for g in labels])
    out = mechanism.sample_many(line_space, rows, eps, rng=rng)
    assert out.dtype == np.int64 and out.shape == rows.shape
    for g, (word, e) in enumerate(groups):
        expected = line_law(word, e)
        freq = np.bincount(out[labels == g], minlength=len(LINE)) / per_group
        for y in range(len(LINE)):
            assert abs(freq[y] - expected[y]) <= four_se(expected[y], per_group) + 1e-12, (word, e, y)


def test_sample_many_single_epsilon_and_seeding(line_space):
    mechanism = MultivariateLaplace.family()
    rows = np.arange(5).repeat(3)
    a = mechanism.sample_many(line_space, rows, 2.0, rng=8)
    b = mechanism.sample_many(line_space, rows, 2.0, rng=8)
    np.testing.assert_array_equal(a, b)
    # at eps = 1000 on a line with gaps >= 1: P(|Z| >= 0.5) = e^{-500}, every word stays itself
    np.testing.assert_array_equal(mechanism.sample_many(line_space, rows, 1000.0, rng=1), rows)


@pytest.mark.parametrize("mechanism", [MultivariateLaplace.family(), _OneByOne.family()], ids=["batched", "base"])
def test_sample_many_rejects_bad_arguments(line_space, mechanism):
    with pytest.raises(ValueError, match="epsilon"):
        mechanism.sample_many(line_space, [0, 1], [1.0, 0.0])
    with pytest.raises(ValueError, match="epsilon"):
        mechanism.sample_many(line_space, [0, 1], np.nan)
    with pytest.raises(ValueError):
        mechanism.sample_many(line_space, [0, 1, 2], [1.0, 2.0])  # one epsilon per row, or one for all
    for bad_row in (-1, 5, 10**9):
        with pytest.raises(ValueError):
            mechanism.sample_many(line_space, [0, bad_row], 1.0)


def test_sample_seeding_and_sizes(line_space):
    mechanism = MultivariateLaplace.family()
    np.testing.assert_array_equal(mechanism.sample(line_space, "c", 0.5, 50, rng=4),
                                  mechanism.sample(line_space, "c", 0.5, 50, rng=4))
    # eps = 0.05: the output law is spread over all five words, so 50 draws repeat with prob ~0
    assert not np.array_equal(mechanism.sample(line_space, "c", 0.05, 50), mechanism.sample(line_space, "c", 0.05, 50))
    assert mechanism.sample(line_space, "c", 1.0, 0, rng=0).shape == (0,)
    assert mechanism.sample(line_space, "c", 1.0, rng=0).shape == (1,)
    # a word or its row index, as python or numpy int
    np.testing.assert_array_equal(mechanism.sample(line_space, "c", 3.0, 20, rng=6),
                                  mechanism.sample(line_space, np.int64(2), 3.0, 20, rng=6))


@pytest.mark.parametrize("word", ["zzz", "C", -1, 5, True, None, 2.0])
def test_sample_bad_word(line_space, word):
    with pytest.raises(ValueError):
        MultivariateLaplace.family().sample(line_space, word, 1.0, 3, rng=0)


@pytest.mark.parametrize("kwargs, pattern", [({"epsilon": 0}, "epsilon"), ({"epsilon": "2"}, "epsilon"),
                                             ({"size": -2}, "size"), ({"size": 0.5}, "size"), ({"rng": -3}, "seed")])
def test_sample_bad_arguments(line_space, kwargs, pattern):
    args = {"epsilon": 1.0, "size": 3, "rng": 0} | kwargs
    with pytest.raises(ValueError, match=pattern):
        MultivariateLaplace.family().sample(line_space, "a", **args)


def test_sample_glove_word_at_huge_epsilon_is_itself(glove_small):
    # eps = 1000 in 50d: R ~ Gamma(50, 1e-3) has mean 0.05; 'king' has no word within 3 of it
    out = MultivariateLaplace.family().sample(glove_small, "king", 1000.0, 200, rng=0)
    assert np.all(out == glove_small.index("king"))
    assert stats.gamma(50, scale=1e-3).sf(1.5) < 1e-100  # P(R >= half the nearest distance)


# ----------------------------------------------------------------------------- registry and description
def test_registry_and_make_mechanism():
    assert MECHANISMS["multivariate-laplace"] is MultivariateLaplace
    assert {"santext", "santext-plus", "tem", "custext", "postprocessing-fix", "mahalanobis", "vickrey"} <= set(MECHANISMS)
    for name, cls in MECHANISMS.items():  # every registered mechanism builds with its defaults
        described = make_mechanism(name).describe()
        assert described["name"] == name and described["guarantee"]
    m = make_mechanism("multivariate-laplace")
    assert isinstance(m, MultivariateLaplace) and m.nearest == "exact"
    assert make_mechanism("multivariate-laplace", nearest="annoy").nearest == "annoy"
    assert m.parameters == {"nearest": "exact"}
    assert repr(m) == "MultivariateLaplace.family(nearest='exact')"


@pytest.mark.parametrize(
    "name, params, pattern",
    [
        ("laplace", {}, r"Unknown mechanism 'laplace'.*multivariate-laplace"),
        ("", {}, "Unknown mechanism"),
        ("multivariate-laplace", {"speed": 1}, r"no parameter\(s\) speed.*nearest"),
        ("multivariate-laplace", {"epsilon": 0}, "epsilon"),
        ("multivariate-laplace", {"nearest": "faiss"}, "nearest must be 'exact' or 'annoy'"),
    ],
)
def test_make_mechanism_errors(name, params, pattern):
    with pytest.raises(ValueError, match=pattern):
        make_mechanism(name, **params)


def test_describe_and_guarantee():
    d = MultivariateLaplace.description()  # class-level: no epsilon needed to list a mechanism
    m = MultivariateLaplace(epsilon=3.0)
    assert d["name"] == "multivariate-laplace"
    assert d["label"].strip()
    assert d["guarantee"] == str(m.guarantee) == m.guarantee.text and "eps" in m.guarantee.text
    assert m.guarantee.kind == "metric-dp" and m.guarantee.epsilon == 3.0
    assert m.guarantee.neighbours == D_X_NEIGHBOURS
    assert MultivariateLaplace.family().guarantee.epsilon is None
    assert d["parameters"]["nearest"]["default"] == "exact"
    assert d["parameters"]["nearest"]["choices"] == ["exact", "annoy"]
    assert d["parameters"]["nearest"]["help"].strip()
    assert list(d) == ["name", "label", "guarantee", "parameters"]  # the `mechanisms --json` shape
    json.dumps(d)  # pages and the CLI ship it as JSON
    assert describe_mechanisms() == [cls.description() for cls in MECHANISMS.values()]


# ----------------------------------------------------------------------------- the core protocol
#: What each paper states (checked against each class's docstring and source): the d_X mechanisms
#: and the exponential mechanisms with a distance utility are metric DP; CusText is ε-DP within a group.
GUARANTEE_KINDS = {"multivariate-laplace": "metric-dp", "santext": "metric-dp", "santext-plus": "metric-dp",
                   "tem": "metric-dp", "custext": "pure-dp", "postprocessing-fix": "metric-dp",
                   "mahalanobis": "metric-dp", "vickrey": "metric-dp"}


@pytest.mark.parametrize("name", list(GUARANTEE_KINDS))
def test_every_mechanism_follows_the_core_protocol(name):
    cls = MECHANISMS[name]
    assert issubclass(cls, CoreMechanism)
    with pytest.raises(TypeError):
        cls()  # epsilon is required, never defaulted
    with pytest.raises(TypeError):
        cls(2.0)  # keyword-only
    with pytest.raises(ValueError, match="epsilon"):
        cls(epsilon=0)
    m = cls(epsilon=2.0)
    assert m.epsilon == 2.0 and not m.is_family and cls.family().is_family
    g = m.guarantee
    assert isinstance(g, Guarantee) and g.kind == GUARANTEE_KINDS[name] and g.epsilon == 2.0
    assert g.neighbours.strip() and g.text == cls.description()["guarantee"]
    assert set(cls.PARAMETERS) == set(m.parameters)
    assert make_mechanism(name, epsilon=2.0).parameters == m.parameters


def test_parameters_are_checked_once_at_construction(monkeypatch):
    m = MultivariateLaplace(epsilon=1.0, nearest="annoy")
    with pytest.raises(ValueError, match="nearest"):
        MultivariateLaplace(epsilon=1.0, nearest="faiss")
    with pytest.raises(ValueError, match="nearest"):
        MultivariateLaplace.family(nearest="faiss")

    def refuse(self, **params):
        raise AssertionError("parameters checked again")

    monkeypatch.setattr(MultivariateLaplace, "_set_parameters", refuse)
    other = m.with_epsilon(5.0)  # a copy: the parameters are not checked again
    assert (other.epsilon, other.nearest, m.epsilon) == (5.0, "annoy", 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        m.with_epsilon(-1.0)


def test_a_family_has_no_epsilon_to_release(line_space):
    family = MultivariateLaplace.family()
    with pytest.raises(ValueError, match="with_epsilon"):
        family.release(line_space, "a", 3, rng=0)
    assert family.with_epsilon(2.0).release(line_space, "a", 3, rng=0).shape == (3,)
    assert repr(family) == "MultivariateLaplace.family(nearest='exact')"
    assert repr(family.with_epsilon(2.0)) == "MultivariateLaplace(epsilon=2.0, nearest='exact')"


def _small_space():
    rng = np.random.default_rng(0)
    return EmbeddingSpace.from_arrays([f"w{i}" for i in range(60)], rng.normal(size=(60, 6)))


#: Outputs of ``sample(space, "w7", 3.0, 12, rng=11)`` and of ``sample_many(space, [1, 2, 3, 2],
#: [1, 2, 3, 4], rng=5)`` on `_small_space`, recorded with the per-call-epsilon API before the
#: move to the core protocol (commit 61fd207): the same seed must give the same draws.
RECORDED_DRAWS = {
    "multivariate-laplace": ([7, 7, 7, 7, 7, 7, 7, 7, 7, 42, 7, 7], [38, 21, 29, 2]),
    "santext": ([40, 28, 7, 26, 8, 7, 3, 8, 7, 7, 7, 7], [57, 10, 35, 48]),
    "santext-plus": ([40, 28, 7, 41, 8, 7, 15, 8, 7, 7, 7, 7], [1, 14, 3, 47]),
    "tem": ([40, 28, 7, 26, 8, 7, 3, 8, 7, 7, 7, 7], [57, 10, 35, 48]),
    "custext": ([59, 22, 7, 40, 22, 7, 59, 28, 7, 7, 59, 7], [1, 18, 32, 53]),
    "postprocessing-fix": ([43, 48, 51, 4, 25, 24, 21, 31, 28, 31, 37, 21], [13, 57, 4, 26]),
    "mahalanobis": ([7, 7, 7, 7, 7, 7, 7, 7, 7, 42, 7, 7], [38, 21, 29, 2]),
    "vickrey": ([7, 40, 7, 11, 34, 7, 7, 7, 19, 12, 22, 7], [16, 33, 24, 21]),
}


@pytest.mark.parametrize("name", list(RECORDED_DRAWS))
def test_release_and_the_batch_kernel_draw_as_before(name):
    space = _small_space()
    params = {"k": 5} if name == "custext" else {}
    released, many = RECORDED_DRAWS[name]
    mechanism = make_mechanism(name, epsilon=3.0, **params)
    assert mechanism.release(space, "w7", 12, rng=11).tolist() == released
    family = make_mechanism(name, **params)
    assert family.sample_many(space, [1, 2, 3, 2], [1.0, 2.0, 3.0, 4.0], rng=5).tolist() == many


# ----------------------------------------------------------------------------- approximate search
def test_annoy_backend_uses_home_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    rng = np.random.default_rng(12)
    points = np.unique(rng.choice(np.arange(6) * 10.0, size=(200, 4)), axis=0)[:60]
    space = EmbeddingSpace.from_arrays([f"p{i}" for i in range(len(points))], points)
    mechanism = MultivariateLaplace.family(nearest="annoy")
    out = mechanism.sample(space, 7, 1.0, 500, rng=0)
    assert out.dtype == np.int64 and out.shape == (500,)
    assert np.all((out >= 0) & (out < len(space)))
    cache = tmp_path / ".cache" / "epsilon-lab" / "annoy"
    assert len(list(cache.glob("*.ann"))) == 1
    # eps = 10 in 4-D: R ~ Gamma(4, 0.1), P(R >= 5) < 1e-20, so the true nearest word is the input;
    # words 10 apart are easy for the forest, and batches via sample_many agree
    np.testing.assert_array_equal(mechanism.sample(space, 3, 10.0, 300, rng=1), np.full(300, 3))
    rows = np.arange(len(space))
    np.testing.assert_array_equal(mechanism.sample_many(space, rows, 10.0, rng=2), rows)


def test_every_mechanism_class_of_the_package_is_in_the_registry():
    # the registry is an explicit list: a mechanism written but not listed would be invisible
    import importlib
    import inspect
    import pkgutil

    import privlib.words.mechanisms as package
    from privlib.words.mechanisms import ALL_MECHANISMS

    found = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Mechanism) and cls.__module__ == module.__name__ and cls.name:
                found.add(cls)
    assert found == set(ALL_MECHANISMS)
    assert [cls.name for cls in ALL_MECHANISMS] == list(MECHANISMS)


def test_unknown_parameters_are_refused_by_name():
    with pytest.raises(TypeError, match="no parameter\\(s\\) speed; its parameters are: nearest"):
        MultivariateLaplace(epsilon=1.0, speed=3)
    with pytest.raises(TypeError, match="no parameter\\(s\\) speed"):
        MultivariateLaplace.family(speed=3)
