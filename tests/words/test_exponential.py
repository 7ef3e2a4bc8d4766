"""The exponential-mechanism family (SanText, SanText+, TEM, CusText; spec mechanisms.md §4–§6):
exact laws against closed forms, sampling against the exact laws (chi-square), the privacy
inequalities, and regressions for the implementation bugs the spec lists."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import privlib.words
import privlib.words.mechanisms.exponential as ex
from privlib.core.sampling import fine_uniform, sample_categorical
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MECHANISMS, make_mechanism
from privlib.words.mechanisms.exponential import TEM, CusText, SanText, SanTextPlus, build_groups

N_DRAWS = 20_000
SLACK = 1.0 + 1e-9  # rounding slack in the privacy inequalities


# ----------------------------------------------------------------------------- helpers
def space_on_line(positions, name="line"):
    words = [f"w{i}" for i in range(len(positions))]
    return EmbeddingSpace.from_arrays(words, [[float(x)] for x in positions], name=name)


def space_from(vectors, name="points"):
    vectors = np.asarray(vectors, dtype=np.float64)
    return EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors, name=name)


def distance_matrix(space) -> np.ndarray:
    """Euclidean distances in float64 from the differences (an independent reference)."""
    v = space.vectors.astype(np.float64)
    return np.sqrt(((v[:, None, :] - v[None, :, :]) ** 2).sum(axis=2))


def chi_square_pvalue(samples, probabilities, min_expected=5.0) -> float:
    """Goodness of fit of sampled rows to exact probabilities. Cells are sorted by expected count
    (largest first, a partition fixed before looking at the counts) and merged consecutively
    until each bin expects at least ``min_expected``; a draw in a zero-probability cell gives 0."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    counts = np.bincount(np.asarray(samples), minlength=probabilities.size)
    if counts[probabilities == 0].any():
        return 0.0
    n = counts.sum()
    order = np.argsort(-probabilities, kind="stable")
    expected, observed = n * probabilities[order], counts[order]
    bins_e, bins_o, acc_e, acc_o = [], [], 0.0, 0
    for e, o in zip(expected, observed):
        acc_e += e
        acc_o += o
        if acc_e >= min_expected:
            bins_e.append(acc_e)
            bins_o.append(acc_o)
            acc_e, acc_o = 0.0, 0
    if acc_e > 0 or acc_o > 0:
        if bins_e:
            bins_e[-1] += acc_e
            bins_o[-1] += acc_o
        else:
            bins_e, bins_o = [acc_e], [acc_o]
    bins_e, bins_o = np.array(bins_e), np.array(bins_o)
    if bins_e.size < 2:
        return 1.0
    stat = float(((bins_o - bins_e) ** 2 / bins_e).sum())
    return float(stats.chi2.sf(stat, bins_e.size - 1))


def gumbel_max(scores, scale, size, rng):
    """argmax_i(scores_i + G_i), G_i iid Gumbel(0, scale)."""
    g = rng.gumbel(0.0, scale, size=(size, len(scores)))
    return np.argmax(scores[None, :] + g, axis=1)


def gumbel_argmin(distances, scale, size, rng):
    """The bug of the spec's top section: argmin_i(d_i + G_i), which is not softmax(-d/scale)."""
    g = rng.gumbel(0.0, scale, size=(size, len(distances)))
    return np.argmin(distances[None, :] + g, axis=1)


class ScriptedRNG:
    """A stand-in for numpy's Generator whose `integers` returns scripted values, to steer
    `_fine_uniform` into its deep tail deterministically."""

    def __init__(self, values):
        self.values = list(values)

    def integers(self, low, high, size, dtype=np.int64):
        out = np.array([self.values.pop(0) for _ in range(size)], dtype=dtype)
        assert ((low <= out) & (out < high)).all()
        return out


@pytest.fixture(scope="module")
def glove2000():
    return EmbeddingSpace.glove_6b_50d(vocab_size=2000)


@pytest.fixture(scope="module")
def cloud():
    """40 words at fixed random points of the plane (distances 0 … ~5)."""
    rng = np.random.default_rng(11)
    return space_from(rng.normal(size=(40, 2)) * 1.5, name="cloud 40x2")


@pytest.fixture(scope="module")
def small_gaussian():
    rng = np.random.default_rng(5)
    return space_from(rng.normal(size=(12, 3)), name="gaussian 12x3")


@pytest.fixture(scope="module")
def small_grid():
    """16 words on an integer grid: many exactly equal distances."""
    return space_from([[x, y] for x in range(4) for y in range(4)], name="grid 4x4")


MECHS = {
    "santext": lambda: SanText.family(),
    "santext-plus": lambda: SanTextPlus.family(p=0.3, w=0.5),
    "tem": lambda: TEM.family(beta=0.3),
    "custext": lambda: CusText.family(k=7),
}


# ----------------------------------------------------------------------------- registry, describe
def test_mechanisms_are_in_the_registry():
    assert privlib.words.MECHANISMS is MECHANISMS
    for name, cls in {"santext": SanText, "santext-plus": SanTextPlus, "tem": TEM, "custext": CusText}.items():
        assert MECHANISMS[name] is cls
        assert cls.has_exact_probabilities is True
    assert isinstance(make_mechanism("tem", beta=0.01), TEM)
    assert make_mechanism("custext", k=5).k == 5
    with pytest.raises(ValueError, match="no parameter"):
        make_mechanism("santext", beta=0.1)


@pytest.mark.parametrize("name", ["santext", "santext-plus", "tem", "custext"])
def test_describe_lists_parameters_and_a_one_line_guarantee(name):
    cls = MECHANISMS[name]
    info = cls.description()
    json.dumps(info)  # serialisable for the CLI
    assert info["name"] == name and info["label"]
    assert set(info["parameters"]) == set(cls.PARAMETERS)
    assert "\n" not in info["guarantee"]
    assert repr(cls.family())
    # the pages and the CLI build a mechanism from the listed defaults
    defaults = {key: p.default for key, p in cls.PARAMETERS.items()}
    assert cls.family(**defaults).parameters == cls(epsilon=1.0).parameters == defaults
    for key, p in cls.PARAMETERS.items():
        assert p.help and (p.low is None or p.low <= p.default) and (p.high is None or p.default <= p.high)


def test_guarantees_say_what_is_guaranteed():
    assert "exp(eps·||x - x'||)" in str(SanText.family().guarantee)
    assert "every threshold gamma" in str(TEM.family().guarantee)
    g = str(CusText.family().guarantee)
    assert "only within a group" in g and "no guarantee across groups" in g
    g = str(SanTextPlus.family().guarantee)
    assert "ln(1/p)" in g and "not protected" in g


def test_defaults():
    assert (SanTextPlus.family().p, SanTextPlus.family().w) == (0.3, 0.9)  # README paper-style settings
    assert TEM.family().beta == 0.001
    assert CusText.family().k == 20 and CusText.family().vocab_limit == 400_000  # all of GloVe 6B
    assert CusText.family(vocab_limit=None).vocab_limit is None
    assert SanTextPlus.PARAMETERS["p"].default == 0.3 and TEM.PARAMETERS["beta"].default == 0.001


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("name", ["santext", "santext-plus", "tem", "custext"])
@pytest.mark.parametrize("eps", [0, -1.0, float("nan"), float("inf"), "1", None, True])
def test_epsilon_must_be_positive_and_finite(name, eps, cloud):
    mech = MECHS[name]()
    with pytest.raises(ValueError, match="epsilon"):
        mech.output_probabilities(cloud, 0, eps)
    with pytest.raises(ValueError, match="epsilon"):
        mech.sample(cloud, 0, eps, 3, rng=0)
    with pytest.raises(ValueError, match="epsilon"):
        mech.sample_many(cloud, [0, 1], eps, rng=0)


@pytest.mark.parametrize("beta", [0, 1, -0.1, 1.5, float("nan"), True, "0.1", None])
def test_tem_beta_must_be_strictly_between_0_and_1(beta):
    with pytest.raises(ValueError, match="beta must be a number strictly between 0 and 1"):
        TEM.family(beta=beta)


@pytest.mark.parametrize("p", [-0.1, 1.1, float("nan"), float("inf"), "0.3", None, False])
def test_santext_plus_p_must_be_in_0_1(p):
    with pytest.raises(ValueError, match="p "):
        SanTextPlus.family(p=p)


@pytest.mark.parametrize("w", [-0.1, 0, 0.0, 1.1, float("nan"), "0.5"])
def test_santext_plus_w_must_be_in_0_1(w):
    with pytest.raises(ValueError, match="w "):
        SanTextPlus.family(w=w)


def test_santext_plus_accepts_the_edges_of_p_and_w():
    assert SanTextPlus.family(p=0, w=1).p == 0.0
    assert SanTextPlus.family(p=1, w=0.01).w == 0.01


@pytest.mark.parametrize("k", [0, -3, 2.5, "20", None, True])
def test_custext_k_must_be_a_positive_whole_number(k):
    with pytest.raises(ValueError, match="k"):
        CusText.family(k=k)


def test_custext_k_must_be_smaller_than_the_vocabulary(cloud):
    with pytest.raises(ValueError, match="smaller than the number of mapped words"):
        CusText.family(k=len(cloud)).output_probabilities(cloud, 0, 1.0)
    with pytest.raises(ValueError, match="smaller than the number of mapped words"):
        CusText.family(k=len(cloud)).sample_many(cloud, [0], 1.0, rng=0)
    with pytest.raises(ValueError, match="smaller than the number of mapped words"):
        CusText.family(k=5, vocab_limit=5).sample(cloud, 0, 1.0)
    p = CusText.family(k=len(cloud) - 1).output_probabilities(cloud, 0, 1.0)
    assert np.count_nonzero(p) == len(cloud) - 1


def test_custext_vocab_limit(cloud):
    mech = CusText.family(k=3, vocab_limit=10)
    assert mech.groups(cloud).n == 10
    assert np.count_nonzero(mech.output_probabilities(cloud, 9, 1.0)[10:]) == 0
    with pytest.raises(ValueError, match="beyond CusText's vocabulary"):
        mech.output_probabilities(cloud, 10, 1.0)
    with pytest.raises(ValueError, match="vocab_limit"):
        CusText.family(vocab_limit=1)
    assert CusText.family(k=3, vocab_limit=None).groups(cloud).n == 40
    assert CusText.family(k=3, vocab_limit=10**9).groups(cloud).n == 40


@pytest.mark.parametrize("name", ["santext", "santext-plus", "tem", "custext"])
def test_unknown_words_and_bad_rows_raise(name, cloud):
    mech = MECHS[name]()
    with pytest.raises(ValueError, match="not in the vocabulary"):
        mech.output_probabilities(cloud, "no-such-word", 1.0)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        mech.sample(cloud, "no-such-word", 1.0)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        mech.sample(cloud, len(cloud), 1.0)
    with pytest.raises(ValueError, match="between 0 and"):
        mech.sample_many(cloud, [0, len(cloud)], 1.0)
    with pytest.raises(ValueError, match="size"):
        mech.sample(cloud, 0, 1.0, size=-1)


# ----------------------------------------------------------------------------- exact laws: closed forms
def test_santext_closed_form_on_a_line():
    space = space_on_line([0, 1, 3, 4])
    eps = 2.0
    for x, pos in enumerate([0, 1, 3, 4]):
        w = np.exp(-eps * np.abs(np.array([0, 1, 3, 4]) - pos) / 2)
        np.testing.assert_allclose(SanText.family().output_probabilities(space, x, eps), w / w.sum(), rtol=1e-13)
    # by hand from w0: (1, e^-1, e^-3, e^-4) / (1 + e^-1 + e^-3 + e^-4)
    z = 1 + math.exp(-1) + math.exp(-3) + math.exp(-4)
    np.testing.assert_allclose(SanText.family().output_probabilities(space, "w0", 2.0),
                               [1 / z, math.exp(-1) / z, math.exp(-3) / z, math.exp(-4) / z], rtol=1e-13)


def test_santext_closed_form_on_a_grid(small_grid):
    d = distance_matrix(small_grid)
    for x in (0, 5, 15):
        w = np.exp(-0.75 * d[x])
        p = SanText.family().output_probabilities(small_grid, x, 1.5)
        assert p.dtype == np.float64 and p.shape == (16,)
        np.testing.assert_allclose(p, w / w.sum(), rtol=1e-12)
        assert abs(p.sum() - 1) < 1e-14


def test_santext_plus_rows_by_hand():
    # positions 0, 1, 2, 4, 8; w = 0.4 of 5 words = the last 2 rows (positions 4 and 8) are sensitive
    space = space_on_line([0, 1, 2, 4, 8])
    mech = SanTextPlus.family(p=0.3, w=0.4)
    eps = 1.0
    assert mech.sensitive_rows(space).tolist() == [3, 4]
    # sensitive x = row 3 (position 4): over V_S only, x included
    z = 1 + math.exp(-2)
    np.testing.assert_allclose(mech.output_probabilities(space, 3, eps), [0, 0, 0, 1 / z, math.exp(-2) / z], rtol=1e-13)
    # sensitive x = row 4 (position 8)
    np.testing.assert_allclose(mech.output_probabilities(space, 4, eps), [0, 0, 0, math.exp(-2) / z, 1 / z], rtol=1e-13)
    # non-sensitive x = row 0: kept with 1 - p, else V_S with weights e^{-2}, e^{-4}
    zs = math.exp(-2) + math.exp(-4)
    np.testing.assert_allclose(mech.output_probabilities(space, 0, eps),
                               [0.7, 0, 0, 0.3 * math.exp(-2) / zs, 0.3 * math.exp(-4) / zs], rtol=1e-13)
    # non-sensitive x = row 2 (position 2): distances 2 and 6
    zs = math.exp(-1) + math.exp(-3)
    np.testing.assert_allclose(mech.output_probabilities(space, 2, eps),
                               [0, 0, 0.7, 0.3 * math.exp(-1) / zs, 0.3 * math.exp(-3) / zs], rtol=1e-13)


def test_santext_plus_p_edges():
    space = space_on_line([0, 1, 2, 4, 8])
    kept = SanTextPlus.family(p=0.0, w=0.4).output_probabilities(space, 1, 1.0)
    assert kept.tolist() == [0, 1, 0, 0, 0]
    moved = SanTextPlus.family(p=1.0, w=0.4).output_probabilities(space, 1, 1.0)
    assert moved[1] == 0 and abs(moved.sum() - 1) < 1e-15
    assert (SanTextPlus.family(p=0.0, w=0.4).sample(space, 1, 1.0, 500, rng=0) == 1).all()
    assert set(SanTextPlus.family(p=1.0, w=0.4).sample(space, 1, 1.0, 500, rng=0)) <= {3, 4}


def test_santext_plus_with_everything_sensitive_is_santext(small_gaussian):
    for x in range(len(small_gaussian)):
        np.testing.assert_allclose(SanTextPlus.family(p=0.3, w=1.0).output_probabilities(small_gaussian, x, 2.0),
                                   SanText.family().output_probabilities(small_gaussian, x, 2.0), rtol=1e-13)


def test_santext_plus_sensitive_count_is_exactly_ceil_w_n():
    """The official code takes words[-count-1:], one sensitive word too many (spec §5(c))."""
    space = space_on_line(range(10))
    mech = SanTextPlus.family(p=0.3, w=0.3)
    assert mech.sensitive_count(10) == 3  # not 4 (the official off-by-one)
    assert mech.sensitive_rows(space).tolist() == [7, 8, 9]
    # row 6 is the most rare non-sensitive word: it is kept with probability 1 - p
    p6 = mech.output_probabilities(space, 6, 1.0)
    assert p6[6] == pytest.approx(0.7, abs=1e-15)
    assert np.flatnonzero(p6).tolist() == [6, 7, 8, 9]
    assert np.flatnonzero(mech.output_probabilities(space, 7, 1.0)).tolist() == [7, 8, 9]
    for w, n, count in [(0.5, 5, 3), (0.9, 10, 9), (0.91, 10, 10), (1.0, 7, 7), (0.01, 7, 1), (0.1, 10, 1),
                        (0.7, 10, 7), (0.2, 2000, 400), (0.9, 400_000, 360_000),
                        (0.07, 100, 7), (0.55, 400_000, 220_000)]:  # 0.07*100 = 7.000000000000001 in floats
        assert SanTextPlus.family(w=w).sensitive_count(n) == count


def tem_beta_with_exact_threshold(n_words, eps, gamma):
    """A beta (found by stepping through floats) for which TEM's computed threshold is exactly gamma."""
    x = math.exp(eps * gamma / 2)
    beta = (n_words - 1) / (x + n_words - 1)  # solves (1-beta)(N-1)/beta = x
    for _ in range(200):
        t = TEM.family(beta=beta).threshold(n_words, eps)
        if t == gamma:
            return beta
        beta = math.nextafter(beta, 1.0 if t > gamma else 0.0)
    raise AssertionError("no beta gives the exact threshold")


def test_tem_threshold_formula():
    assert TEM.family(beta=0.001).threshold(400_000, 2.0) == pytest.approx(math.log(0.999 * 399_999 / 0.001), rel=1e-15)
    assert TEM.family(beta=0.2).threshold(5, 4.0) == pytest.approx(0.5 * math.log(0.8 * 4 / 0.2), rel=1e-15)


def test_tem_closed_form_with_a_word_exactly_at_gamma():
    """Positions 0, 1, 2, 3, 5 and gamma = 2 exactly: from w0, L_w = {0, 1, 2} (the word at distance
    exactly gamma is inside: <=, not <), outside = {3, 5}; Z = 1 + e^-1 + e^-2 + 2·e^-2."""
    space = space_on_line([0, 1, 2, 3, 5])
    eps = 2.0
    beta = tem_beta_with_exact_threshold(5, eps, 2.0)
    mech = TEM.family(beta=beta)
    assert mech.threshold(5, eps) == 2.0
    assert mech.inside(space, 0, eps).tolist() == [True, True, True, False, False]
    z = 1 + math.exp(-1) + math.exp(-2) + 2 * math.exp(-2)
    expected = np.array([1, math.exp(-1), math.exp(-2), math.exp(-2), math.exp(-2)]) / z
    np.testing.assert_allclose(mech.output_probabilities(space, 0, eps), expected, rtol=1e-13)
    # ⊥ carries |L̂_w|·e^{-eps·γ/2} = 2·e^-2 (a strict-< ball would have 3 outside words and 3·e^-2)
    assert mech.bottom_probability(space, 0, eps) == pytest.approx(2 * math.exp(-2) / z, rel=1e-13)
    assert mech.bottom_probability(space, 0, eps) <= beta
    # from w4 (position 5): distances 5, 4, 3, 2, 0 -> inside {w3 (exactly gamma), w4}
    assert mech.inside(space, 4, eps).tolist() == [False, False, False, True, True]
    z4 = 1 + math.exp(-2) + 3 * math.exp(-2)
    np.testing.assert_allclose(mech.output_probabilities(space, 4, eps),
                               np.array([math.exp(-2)] * 4 + [1]) / z4, rtol=1e-13)


def test_tem_closed_form_on_a_grid(small_grid):
    d = distance_matrix(small_grid)
    eps, mech = 3.0, TEM.family(beta=0.25)
    gamma = mech.threshold(16, eps)
    assert 1.0 < gamma < 3.0
    for x in (0, 6, 15):
        inside = d[x] <= gamma
        z = np.exp(-eps * d[x][inside] / 2).sum() + (~inside).sum() * np.exp(-eps * gamma / 2)
        expected = np.where(inside, np.exp(-eps * d[x] / 2), np.exp(-eps * gamma / 2)) / z
        np.testing.assert_allclose(mech.output_probabilities(small_grid, x, eps), expected, rtol=1e-12)
        assert mech.inside(small_grid, x, eps).tolist() == inside.tolist()
        bottom = (~inside).sum() * np.exp(-eps * gamma / 2) / z
        assert mech.bottom_probability(small_grid, x, eps) == pytest.approx(bottom, rel=1e-12)


def test_tem_bottom_probability_is_at_most_beta(glove2000):
    for beta in (0.001, 0.1, 0.5):
        for eps in (1.0, 5.0, 20.0):
            for word in ("the", "king", "river"):
                assert TEM.family(beta=beta).bottom_probability(glove2000, word, eps) <= beta * SLACK


def test_tem_negative_gamma_is_uniform():
    space = space_on_line([0, 1])
    mech = TEM.family(beta=0.9)  # (1 - 0.9)·1/0.9 < 1: gamma < 0, nothing inside
    assert mech.threshold(2, 1.0) < 0
    np.testing.assert_allclose(mech.output_probabilities(space, 0, 1.0), [0.5, 0.5], rtol=1e-15)
    assert not mech.inside(space, 0, 1.0).any()
    assert chi_square_pvalue(mech.sample(space, 0, 1.0, 4000, rng=3), [0.5, 0.5]) > 1e-3


def test_custext_groups_and_scores_by_hand():
    """Rows in frequency order at positions a=0, b=5, c=1, d=6, e=20 on a line."""
    space = space_on_line([0, 5, 1, 6, 20])
    eps = 2.0
    k2 = CusText.family(k=2)
    groups = k2.groups(space)
    assert [k2.output_set(space, r).tolist() for r in range(5)] == [[0, 2], [1, 3], [0, 2], [1, 3], [4]]
    assert groups.sizes.tolist() == [2, 2, 1]  # the last group has N mod K = 1 word
    q = 1 / (1 + math.exp(-1))  # u = 0 for itself, -1 for the other member
    np.testing.assert_allclose(k2.output_probabilities(space, 0, eps), [q, 0, 1 - q, 0, 0], rtol=1e-13)
    np.testing.assert_allclose(k2.output_probabilities(space, 3, eps), [0, 1 - q, 0, q, 0], rtol=1e-13)
    assert k2.output_probabilities(space, 4, eps).tolist() == [0, 0, 0, 0, 1]  # a group of one
    k3 = CusText.family(k=3)
    assert k3.output_set(space, 0).tolist() == [0, 2, 1]
    assert k3.output_set(space, 3).tolist() == [3, 4]  # the last group: the two words left
    # b (position 5) in {a, c, b}: distances 5, 4, 0 -> u = -1, -0.8, 0
    w = np.array([math.exp(-1), 0, math.exp(-0.8), 0, 0])
    w[1] = 1.0
    np.testing.assert_allclose(k3.output_probabilities(space, 1, eps), w / w.sum(), rtol=1e-13)
    # d (position 6) in {d, e}: distances 0, 14 -> u = 0, -1
    np.testing.assert_allclose(k3.output_probabilities(space, 3, eps), [0, 0, 0, q, 1 - q], rtol=1e-13)


def test_custext_equal_distances_give_a_uniform_law():
    """max_Y d = min_Y d (two identical vectors in one group): no division by zero, u = 0."""
    space = space_from([[0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [9.0, 9.0]])
    mech = CusText.family(k=2)
    assert mech.output_set(space, 0).tolist() == [0, 1]
    for x in (0, 1):
        p = mech.output_probabilities(space, x, 3.0)
        assert np.isfinite(p).all()
        np.testing.assert_allclose(p, [0.5, 0.5, 0, 0], rtol=1e-15)


def test_custext_k1_is_the_identity(cloud):
    mech = CusText.family(k=1)
    for x in (0, 7, 39):
        p = mech.output_probabilities(cloud, x, 1.0)
        assert p[x] == 1.0 and p.sum() == 1.0


def test_custext_scores_are_min_max_normalised(glove2000):
    mech = CusText.family(k=20)
    d = np.sqrt(glove2000.squared_distances(glove2000.index("king"))[0])
    y = mech.output_set(glove2000, "king")  # king's group (its first word is the group's head)
    assert y.size == 20 and glove2000.index("king") in y
    dy = d[y]
    dy[y == glove2000.index("king")] = 0.0
    u = -(dy - dy.min()) / (dy.max() - dy.min())
    w = np.exp(4.0 * u / 2)
    p = mech.output_probabilities(glove2000, "king", 4.0)
    np.testing.assert_allclose(p[y], w / w.sum(), rtol=1e-12)
    assert np.count_nonzero(p) == 20
    # the largest and smallest probabilities differ by exactly e^{eps/2}
    assert p[y].max() / p[y].min() == pytest.approx(math.exp(2.0), rel=1e-12)


# ----------------------------------------------------------------------------- CusText mapping
def reference_groups(space, k):
    """The conservative mapping written plainly: row order, k nearest unassigned (itself first,
    library distances, stable ties), assigned words masked."""
    alive = np.ones(len(space), dtype=bool)
    groups = []
    for head in range(len(space)):
        if not alive[head]:
            continue
        d = space.squared_distances(head)[0]
        d[~alive] = np.inf
        d[head] = -1.0
        chosen = np.argsort(d, kind="stable")[:min(k, int(alive.sum()))]
        groups.append(chosen.tolist())
        alive[chosen] = False
    return groups


def groups_as_lists(g):
    return [g.members[g.offsets[i]:g.offsets[i + 1]].tolist() for i in range(g.offsets.size - 1)]


def test_mapping_matches_the_plain_definition_on_glove(glove2000, monkeypatch):
    ref = reference_groups(glove2000, 20)
    assert groups_as_lists(build_groups(glove2000.vectors, glove2000.sq_norms, 20)) == ref
    # small blocks, a coarse column sample and frequent re-gathering exercise every branch
    monkeypatch.setattr(ex, "_SAMPLE_COLUMNS", 64)
    monkeypatch.setattr(ex, "_COMPACT_WHEN_DEAD", 0.05)
    assert groups_as_lists(build_groups(glove2000.vectors, glove2000.sq_norms, 20, block=3)) == ref
    assert groups_as_lists(build_groups(glove2000.vectors, glove2000.sq_norms, 20, block=1)) == ref


@pytest.mark.parametrize("k", [1, 2, 7, 20, 599])
def test_mapping_matches_the_plain_definition_with_exact_ties(k, monkeypatch):
    """Small-integer vectors: many duplicate vectors and exactly equal distances (ties by row)."""
    rng = np.random.default_rng(7)
    space = space_from(rng.integers(-3, 4, size=(600, 3)))
    monkeypatch.setattr(ex, "_SAMPLE_COLUMNS", 50)
    ref = reference_groups(space, k)
    for block in (1, 5, 64):
        g = build_groups(space.vectors, space.sq_norms, k, block=block)
        assert groups_as_lists(g) == ref


def test_mapping_is_a_partition_into_groups_of_k(glove2000):
    g = CusText.family(k=30).groups(glove2000)
    assert sorted(g.members.tolist()) == list(range(2000))
    assert g.sizes.tolist() == [30] * 66 + [2000 - 30 * 66]  # the last group: N mod K words
    for x in (0, 17, 1999):
        y = g.output_set(x)
        assert x in y
        assert all(g.group_of[m] == g.group_of[x] for m in y)
    assert CusText.family(k=30).groups(glove2000) is g  # cached on the space


def assert_groups_are_nearest_of_the_unassigned(space, g, groups):
    """Group g (head h) must be the k nearest of h among the words not in groups 0..g-1."""
    for group in groups:
        members = g.members[g.offsets[group]:g.offsets[group + 1]]
        head = members[0]
        taken = np.zeros(g.n, dtype=bool)
        taken[g.members[:g.offsets[group]]] = True
        assert taken[:head].all()  # heads go in row (frequency) order
        d = space.squared_distances(head)[0][:g.n]
        d[taken] = np.inf
        d[head] = -1.0
        assert np.argsort(d, kind="stable")[:members.size].tolist() == members.tolist()


def test_mapping_on_20000_glove_words(glove_small):
    """The column-sampling bound is active here (stride 4): the groups are the exact ones."""
    g = build_groups(glove_small.vectors, glove_small.sq_norms, 20)
    assert sorted(g.members.tolist()) == list(range(20000)) and (g.sizes == 20).all()
    assert_groups_are_nearest_of_the_unassigned(glove_small, g, [0, 1, 2, 500, 998, 999])


@pytest.mark.slow
def test_mapping_on_the_whole_glove_vocabulary(glove):
    """400,000 words, K = 20 (~9-20 s): a partition into 20,000 groups of 20, each the exact k
    nearest unassigned words of its head (checked on a sample of groups)."""
    g = CusText.family().groups(glove)
    assert g.n == 400_000 and g.offsets.size - 1 == 20_000 and (g.sizes == 20).all()
    assert np.array_equal(np.sort(g.members), np.arange(400_000))
    assert_groups_are_nearest_of_the_unassigned(glove, g, [0, 1, 777, 5000, 12345, 19998, 19999])
    p = CusText.family().output_probabilities(glove, "king", 5.0)
    assert np.count_nonzero(p) == 20 and abs(p.sum() - 1) < 1e-14


def aggressive_sets(space, k):
    """pypantera's per-word top-K sets (no sharing, spec §6(c))."""
    sets = []
    for x in range(len(space)):
        d = space.squared_distances(x)[0]
        d[x] = -1.0
        sets.append(np.argsort(d, kind="stable")[:k])
    return sets


def custext_law_from_sets(space, sets, x, eps):
    d = distance_matrix(space)[x][sets[x]]
    u = -(d - d.min()) / (d.max() - d.min()) if d.max() > d.min() else np.zeros(d.size)
    p = np.zeros(len(space))
    p[sets[x]] = np.exp(eps * u / 2) / np.exp(eps * u / 2).sum()
    return p


def test_conservative_sharing_bounds_every_confusable_pair_and_aggressive_does_not(small_gaussian):
    """Two inputs that can produce a common output must satisfy P(y|x) <= e^eps P(y|x') for every y.
    With shared output sets (ours) that holds; with per-word top-K sets it fails."""
    eps, k = 2.0, 4
    ours = np.array([CusText.family(k=k).output_probabilities(small_gaussian, x, eps) for x in range(12)])
    sets = aggressive_sets(small_gaussian, k)
    aggressive = np.array([custext_law_from_sets(small_gaussian, sets, x, eps) for x in range(12)])

    def worst_ratio(law):
        worst = 0.0
        for x in range(12):
            for x2 in range(12):
                if (law[x] > 0).astype(bool).dot(law[x2] > 0):  # confusable: a common output
                    with np.errstate(divide="ignore", invalid="ignore"):
                        worst = max(worst, float(np.max(np.where(law[x] > 0, law[x] / law[x2], 0))))
        return worst

    assert worst_ratio(ours) <= math.exp(eps) * SLACK
    assert worst_ratio(aggressive) == np.inf


# ----------------------------------------------------------------------------- privacy inequalities
def assert_dx_private(law, d, eps, extra=0.0, outputs=None):
    """P(y|x) <= e^{eps·d(x,x') + extra}·P(y|x') for all x, x' and y in ``outputs``."""
    law = np.asarray(law)
    cols = slice(None) if outputs is None else outputs
    for x in range(law.shape[0]):
        with np.errstate(over="ignore", invalid="ignore"):  # e^{eps·d} = inf: nothing to check
            bound = np.exp(eps * d[x][:, None] + extra) * law[:, cols]
            ok = (law[x, cols][None, :] <= bound * SLACK) | (law[x, cols][None, :] == 0)
        assert ok.all(), f"input {x}"


@pytest.mark.parametrize("eps", [0.5, 2.0, 15.0])
def test_santext_is_eps_dx_private(eps, small_gaussian, small_grid):
    for space in (small_gaussian, small_grid):
        law = np.array([SanText.family().output_probabilities(space, x, eps) for x in range(len(space))])
        assert_dx_private(law, distance_matrix(space), eps)
        assert (law > 0).all()


@pytest.mark.parametrize("beta", [0.001, 0.2, 0.6, 0.95])
@pytest.mark.parametrize("eps", [0.5, 3.0, 15.0])
def test_tem_is_eps_dx_private_for_every_gamma(beta, eps, small_gaussian, small_grid):
    for space in (small_gaussian, small_grid):
        law = np.array([TEM.family(beta=beta).output_probabilities(space, x, eps) for x in range(len(space))])
        assert_dx_private(law, distance_matrix(space), eps)
        np.testing.assert_allclose(law.sum(axis=1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("eps", [0.5, 2.0, 15.0])
@pytest.mark.parametrize("p", [0.05, 0.3, 1.0])
def test_santext_plus_inequalities_on_sensitive_outputs(eps, p, small_gaussian):
    mech = SanTextPlus.family(p=p, w=0.5)
    n = len(small_gaussian)
    law = np.array([mech.output_probabilities(small_gaussian, x, eps) for x in range(n)])
    d = distance_matrix(small_gaussian)
    vs = mech.sensitive_rows(small_gaussian)
    sensitive = np.isin(np.arange(n), vs)
    for x in range(n):
        for x2 in range(n):
            same_side = sensitive[x] == sensitive[x2]
            bound = math.exp(eps * d[x, x2] + (0.0 if same_side else math.log(1 / p)))
            assert (law[x, vs] <= bound * law[x2, vs] * SLACK).all()
    # the ln(1/p) is needed: a sensitive and a non-sensitive input at distance ~0 differ by ~1/p
    if p < 1:
        twin = space_from(np.vstack([small_gaussian.vectors[:6], small_gaussian.vectors[:6]]))
        m = SanTextPlus.family(p=p, w=0.5)
        a, b = m.output_probabilities(twin, 6, eps), m.output_probabilities(twin, 0, eps)  # same vector
        assert a[6:] / b[6:] == pytest.approx(np.full(6, 1 / p), rel=1e-12)


def test_santext_plus_kept_words_are_unprotected(small_gaussian):
    mech = SanTextPlus.family(p=0.3, w=0.5)
    p0 = mech.output_probabilities(small_gaussian, 0, 1.0)
    p1 = mech.output_probabilities(small_gaussian, 1, 1.0)
    assert p0[0] == pytest.approx(0.7) and p1[0] == 0.0  # output w0 reveals input w0: by design


@pytest.mark.parametrize("eps", [0.5, 3.0, 30.0])
def test_custext_is_eps_dp_within_groups(eps, small_gaussian, glove2000):
    for space, k in ((small_gaussian, 4), (small_gaussian, 5), (glove2000, 20)):
        mech = CusText.family(k=k)
        g = mech.groups(space)
        for group in range(min(g.offsets.size - 1, 6)):
            members = g.members[g.offsets[group]:g.offsets[group + 1]]
            law = np.array([mech.output_probabilities(space, x, eps) for x in members])
            support = law > 0
            assert (support == support[0]).all() and np.flatnonzero(support[0]).tolist() == sorted(members)
            ratio = law[:, None, members] / law[None, :, members]
            assert ratio.max() <= math.exp(eps) * SLACK


# ----------------------------------------------------------------------------- spec's bug list
def mldp_tem_law(space, x, eps, beta):
    """MLDP's TEM (spec §4(c)): ⊥ score -γ + 2·ln(|V|/|L_w|)/eps, so each outside word gets
    e^{-eps·γ/2}·|V|/(|L_w|·|L̂_w|)."""
    n = len(space)
    gamma = TEM.family(beta=beta).threshold(n, eps)
    d = distance_matrix(space)[x]
    inside = d <= gamma
    n_in, n_out = int(inside.sum()), int((~inside).sum())
    w = np.where(inside, np.exp(-eps * d / 2), np.exp(-eps * gamma / 2) * n / (n_in * n_out) if n_out else 0)
    return w / w.sum()


def test_mldp_bottom_score_breaks_the_inequality_ours_holds():
    """x = 0 and x' = -0.1; 20 words between 4.9 and 4.95 are inside x's ball (γ = 5) but outside
    x''s; 10 far words are outside both. MLDP's outside weight depends on |L_w|·|L̂_w| (22·10 for x,
    2·30 for x'), so a far word is ~3.7 times likelier from x' than from x, while d(x, x') = 0.1."""
    eps = 2.0
    positions = [0.0, -0.1] + list(np.linspace(4.9, 4.95, 20)) + list(np.linspace(40, 50, 10))
    space = space_on_line(positions)
    n = len(positions)
    beta = tem_beta_with_exact_threshold(n, eps, 5.0)
    d = distance_matrix(space)
    bad = np.array([mldp_tem_law(space, x, eps, beta) for x in range(n)])
    with pytest.raises(AssertionError):
        assert_dx_private(bad, d, eps)
    far = n - 1
    assert bad[0, far] / bad[1, far] < math.exp(-eps * 0.1) / 2  # more than a factor 2 past the bound
    ours = np.array([TEM.family(beta=beta).output_probabilities(space, x, eps) for x in range(n)])
    assert_dx_private(ours, d, eps)


def test_tem_boundary_convention_moves_bottom_mass_not_the_law():
    """dp_prompt's strict < puts the word at exactly γ outside and counts it in ⊥ (3·e^-2 instead of
    2·e^-2); with ⊥ = ln|L̂_w| the output law is the same either way — only ⊥'s share differs."""
    space = space_on_line([0, 1, 2, 3, 5])
    eps = 2.0
    mech = TEM.family(beta=tem_beta_with_exact_threshold(5, eps, 2.0))
    d = distance_matrix(space)[0]
    gamma = mech.threshold(5, eps)
    strict_inside = d < gamma
    z = np.exp(-eps * d[strict_inside] / 2).sum() + (~strict_inside).sum() * math.exp(-eps * gamma / 2)
    strict_bottom = (~strict_inside).sum() * math.exp(-eps * gamma / 2) / z
    assert strict_bottom == pytest.approx(3 * math.exp(-2) / z)
    assert mech.bottom_probability(space, 0, eps) != pytest.approx(strict_bottom)
    strict_law = np.where(strict_inside, np.exp(-eps * d / 2), math.exp(-eps * gamma / 2)) / z
    np.testing.assert_allclose(mech.output_probabilities(space, 0, eps), strict_law, rtol=1e-13)


def test_santext_float32_underflow_bug_vs_float64_log_space():
    """Official SanText: float32 softmax(-eps·d/2) at eps = 15 with distances > ~14 gives exact
    zeros (formally infinite privacy loss). Ours: strictly positive, exact in float64."""
    space = space_on_line([0, 1, 8, 14, 16])
    eps = 15.0
    d = np.abs(np.array([0, 1, 8, 14, 16], dtype=np.float32))
    scores = (-eps * d / 2).astype(np.float32)
    official = np.exp(scores - scores.max()).astype(np.float32)
    official /= official.sum()
    assert (official == 0).any()
    p = SanText.family().output_probabilities(space, 0, eps)
    assert (p > 0).all()
    w = np.exp(-eps * d.astype(np.float64) / 2)
    np.testing.assert_allclose(p, w / w.sum(), rtol=1e-13)


@pytest.mark.parametrize("name", ["santext", "santext-plus", "tem", "custext"])
def test_no_legitimate_output_gets_probability_zero_even_beyond_float64_range(name):
    """eps·d/2 of 2,500: e^-2500 is below every float64; floored at the smallest normal float."""
    space = space_on_line([0, 1, 2, 100, 200, 300, 400, 500])
    mech = {"santext": SanText.family(), "santext-plus": SanTextPlus.family(p=0.5, w=0.5),
            "tem": TEM.family(beta=1e-12), "custext": CusText.family(k=4)}[name]
    for x in range(8):
        p = mech.output_probabilities(space, x, 50.0)
        support = {"santext": lambda: np.arange(8), "tem": lambda: np.arange(8),
                   "custext": lambda: mech.output_set(space, x),
                   "santext-plus": lambda: np.union1d(mech.sensitive_rows(space), [x])}[name]()
        assert (p[support] >= np.finfo(np.float64).tiny).all()
        assert p.sum() == pytest.approx(1.0, abs=1e-14)
    law = np.array([mech.output_probabilities(space, x, 50.0) for x in range(8)])
    if name in ("santext", "tem"):  # the floor keeps the inequality
        assert_dx_private(law, distance_matrix(space), 50.0)


def test_fine_uniform_reaches_below_2_to_the_minus_53():
    """`rng.random()` cannot go below 2^-53; the full-precision uniform reaches 2^-666 when the
    first 12·53 + 29 bits are zero (scripted here), so a probability-1e-200 output is drawable."""
    u = fine_uniform(ScriptedRNG([0] * 12 + [2**23, 0]), 1)
    assert u[0] == 2.0**-666
    u = fine_uniform(ScriptedRNG([2**53 - 1, 2**52 - 1]), 1)
    assert u[0] == 1 - 2.0**-53
    p = np.array([0.5, 0.5, 1e-200])
    assert sample_categorical(p, 1, ScriptedRNG([0] * 12 + [2**23, 0] + [2**52, 0]))[0] == 2
    assert sample_categorical(p, 1, ScriptedRNG([0] * 11 + [2**40, 0] + [2**52, 0]))[0] != 2  # u ≈ 2^-596 > 1e-200
    # a plain inverse CDF on the cumulative sum gives the tiny output an empty interval
    c = np.cumsum(p)
    assert c[2] == c[1]


def test_fine_uniform_is_uniform():
    rng = np.random.default_rng(2024)
    u = fine_uniform(rng, 200_000)
    assert ((u > 0) & (u < 1)).all()
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    # the binade of u (floor(-log2 u) = k with probability 2^-(k+1)) down to 2^-14
    k = np.minimum(np.floor(-np.log2(u)).astype(int), 14)
    probs = np.array([2.0 ** -(j + 1) for j in range(14)] + [2.0**-14])
    assert chi_square_pvalue(k, probs) > 1e-3


def test_draw_handles_zeros_and_extreme_ranges():
    rng = np.random.default_rng(0)
    p = np.array([0.0, 0.25, 0.0, 0.75, 0.0])
    out = sample_categorical(p, 20_000, rng)
    assert set(out.tolist()) <= {1, 3}
    assert chi_square_pvalue(out, p) > 1e-3
    p = np.array([1e-300, 1.0, 1e-20, 3e-5, 2e-5])
    p = p / p.sum()
    out = sample_categorical(p, 400_000, rng)
    assert chi_square_pvalue(out, p) > 1e-3
    assert sample_categorical(np.array([0.0, 1.0]), 10, rng).tolist() == [1] * 10
    assert sample_categorical(np.array([0.3, 0.7]), 0, rng).shape == (0,)


# ----------------------------------------------------------------------------- sampling = exact law
@pytest.mark.parametrize("name", ["santext", "santext-plus", "tem", "custext"])
@pytest.mark.parametrize("word, eps", [(0, 1.0), (13, 3.0), (39, 8.0)])
def test_samples_follow_the_exact_law_on_a_synthetic_space(name, word, eps, cloud):
    mech = MECHS[name]()
    p = mech.output_probabilities(cloud, word, eps)
    assert p.shape == (40,) and p.dtype == np.float64 and abs(p.sum() - 1) < 1e-13
    out = mech.sample(cloud, word, eps, N_DRAWS, rng=word * 100 + int(eps))
    assert out.dtype == np.int64 and out.shape == (N_DRAWS,)
    assert chi_square_pvalue(out, p) > 1e-3
    # the same test rejects the law at eps/2
    wrong = mech.sample(cloud, word, eps / 2, N_DRAWS, rng=word * 100 + int(eps))
    assert chi_square_pvalue(wrong, p) < 1e-3
    # and sample_many draws from the same law
    many = mech.sample_many(cloud, np.full(N_DRAWS, word), eps, rng=7 + word)
    assert chi_square_pvalue(many, p) > 1e-3


GLOVE_CASES = [("santext", "king", 2.0), ("santext-plus", "music", 3.0), ("santext-plus", 1500, 3.0),
               ("tem", "river", 2.0), ("custext", "king", 5.0)]


@pytest.mark.parametrize("name, word, eps", GLOVE_CASES)
def test_samples_follow_the_exact_law_on_glove(name, word, eps, glove2000):
    mech = {"santext": SanText.family(), "santext-plus": SanTextPlus.family(), "tem": TEM.family(beta=0.5),
            "custext": CusText.family()}[name]
    p = mech.output_probabilities(glove2000, word, eps)
    assert abs(p.sum() - 1) < 1e-13
    out = mech.sample(glove2000, word, eps, N_DRAWS, rng=31)
    assert chi_square_pvalue(out, p) > 1e-3
    assert chi_square_pvalue(mech.sample(glove2000, word, eps / 2, N_DRAWS, rng=31), p) < 1e-3
    assert chi_square_pvalue(mech.sample(glove2000, word, eps * 1.5, N_DRAWS, rng=31), p) < 1e-3


def test_gumbel_max_needs_scale_2_over_eps_and_argmax(cloud, glove2000):
    """The spec's top-section facts, through the same chi-square test: argmax(-d + Gumbel(2/eps))
    is SanText's law; scale 1/eps (the law at 2·eps) and argmin(d + G) are not."""
    rng = np.random.default_rng(99)
    for space, word, eps, n in ((cloud, 5, 2.0, N_DRAWS), (glove2000, glove2000.index("king"), 2.0, 8000)):
        p = SanText.family().output_probabilities(space, word, eps)
        d = np.sqrt(space.squared_distances(word)[0])
        d[word] = 0.0
        assert chi_square_pvalue(gumbel_max(-d, 2.0 / eps, n, rng), p) > 1e-3
        assert chi_square_pvalue(gumbel_max(-d, 1.0 / eps, n, rng), p) < 1e-3
        assert chi_square_pvalue(gumbel_argmin(d, 2.0 / eps, n, rng), p) < 1e-3


def test_tem_as_the_paper_runs_it_with_gumbel_noise(small_grid):
    """TEM's procedure (§4(a)): Gumbel(0, 2/eps) on L_w ∪ {⊥} with f(⊥) = -γ + (2/eps)·ln|L̂_w|, then a
    uniform outside word, follows our exact law; with the Gumbel scale 1/eps it does not."""
    eps, mech, x = 3.0, TEM.family(beta=0.25), 5
    p = mech.output_probabilities(small_grid, x, eps)
    gamma = mech.threshold(16, eps)
    d = distance_matrix(small_grid)[x]
    inside = np.flatnonzero(d <= gamma)
    outside = np.flatnonzero(d > gamma)
    scores = np.concatenate([-d[inside], [-gamma + 2 / eps * math.log(outside.size)]])
    rng = np.random.default_rng(4)

    def run(scale):
        win = gumbel_max(scores, scale, N_DRAWS, rng)
        out = np.where(win < inside.size, inside[np.minimum(win, inside.size - 1)], -1)
        bottom = out == -1
        out[bottom] = outside[rng.integers(0, outside.size, bottom.sum())]
        return out

    assert chi_square_pvalue(run(2 / eps), p) > 1e-3
    assert chi_square_pvalue(run(1 / eps), p) < 1e-3
    assert chi_square_pvalue(mech.sample(small_grid, x, eps, N_DRAWS, rng=5), p) > 1e-3


def test_tem_draws_outside_words_through_bottom(glove2000):
    mech, eps = TEM.family(beta=0.5), 6.0
    row = glove2000.index("river")
    inside = mech.inside(glove2000, row, eps)
    out = mech.sample(glove2000, row, eps, N_DRAWS, rng=8)
    frac_out = np.mean(~inside[out])
    pb = mech.bottom_probability(glove2000, row, eps)
    assert 0.05 < pb <= 0.5
    assert abs(frac_out - pb) < 4 * math.sqrt(pb * (1 - pb) / N_DRAWS)


def test_sample_many_mixed_rows_and_epsilons(glove2000):
    """Several words and epsilons in one call: each (word, eps) cell follows its own law."""
    mech = SanText.family()
    words = [glove2000.index(w) for w in ("king", "river")]
    rows = np.repeat(words, 2 * 6000)
    eps = np.tile(np.repeat([2.0, 6.0], 6000), 2)
    out = mech.sample_many(glove2000, rows, eps, rng=12)
    for w in words:
        for e in (2.0, 6.0):
            sel = (rows == w) & (eps == e)
            assert chi_square_pvalue(out[sel], mech.output_probabilities(glove2000, w, e)) > 1e-3
    assert mech.sample_many(glove2000, [], 1.0).shape == (0,)


def test_sampling_is_reproducible_with_a_seed(cloud):
    for mech in MECHS.values():
        m = mech()
        assert np.array_equal(m.sample(cloud, 3, 2.0, 50, rng=1), m.sample(cloud, 3, 2.0, 50, rng=1))
        assert np.array_equal(m.sample_many(cloud, [1, 2, 3], [1.0, 2.0, 3.0], rng=1),
                              m.sample_many(cloud, [1, 2, 3], [1.0, 2.0, 3.0], rng=1))
        assert m.sample(cloud, 3, 2.0, 0, rng=1).shape == (0,)


# ----------------------------------------------------------------------------- full vocabulary
def test_full_glove_vocabulary_probabilities(glove):
    """One word over all 400,000 GloVe words: float64, strictly positive, summing to 1, equal to a
    direct computation from float64 differences."""
    row = glove.index("king")
    diff = glove.vectors.astype(np.float64) - glove.vectors[row].astype(np.float64)
    d = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    for eps in (1.0, 15.0):
        w = np.exp(-eps * (d - d.min()) / 2)
        p = SanText.family().output_probabilities(glove, row, eps)
        assert p.shape == (400_000,) and (p > 0).all() and abs(p.sum() - 1) < 1e-12
        big = w / w.sum() > 1e-250
        np.testing.assert_allclose(p[big], (w / w.sum())[big], rtol=1e-6)
        tem = TEM.family().output_probabilities(glove, row, eps)
        gamma = TEM.family().threshold(400_000, eps)
        w = np.exp(-eps * np.minimum(d, gamma) / 2)
        assert (tem > 0).all() and abs(tem.sum() - 1) < 1e-12
        np.testing.assert_allclose(tem[big], (w / w.sum())[big], rtol=1e-6)


def test_rank_experiment_uses_the_exact_law(glove2000):
    result = privlib.words.rank_experiment(glove2000, "king", 6.0, mechanism=SanText.family())
    assert result.exact
    assert sum(result.proportions.values()) == pytest.approx(1.0)
    p = SanText.family().output_probabilities(glove2000, "king", 6.0)
    assert result.proportions["original"] == pytest.approx(p[glove2000.index("king")])
