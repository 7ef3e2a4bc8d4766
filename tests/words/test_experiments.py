"""Rank experiments and epsilon sweeps (paper §2, Fig. 2; dx-text.md §2)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from privlib.core.sweep import SweepResult
from privlib.core.validation import parse_epsilon_grid
from privlib.words.experiments import (MAX_EPSILONS, MAX_SAMPLES, SWEEP_METRICS, EpsilonSweep, compare_sweeps,
                                      epsilon_sweep, parse_epsilons, rank_experiment, sweep)
from privlib.words.mechanisms import SAMPLE_BATCH, MultivariateLaplace
from privlib.words.neighbours import classify_ranks, neighbour_ranks

CLASSES = ("original", "close", "distant")


def se(p: float, n: int) -> float:
    return math.sqrt(p * (1.0 - p) / n)


def assert_below(p_hat: float, bound: float, n: int):
    """p_hat is significantly below `bound`: 4 standard errors (taken at the bound) under it."""
    assert p_hat <= bound - 4 * se(bound, n), (p_hat, bound, n)


def assert_above(p_hat: float, bound: float, n: int):
    assert p_hat >= bound + 4 * se(bound, n), (p_hat, bound, n)


# ----------------------------------------------------------------------------- rank_experiment
@pytest.fixture(scope="module")
def king_at_10(glove_small):
    return rank_experiment(glove_small, "king", 10.0, samples=3000, rng=1)


def test_rank_experiment_fields_and_proportions(glove_small, king_at_10):
    res = king_at_10
    assert (res.word, res.epsilon, res.mechanism, res.samples, res.close) == ("king", 10.0, "multivariate-laplace", 3000, 100)
    assert res.ranks.shape == (3000,) and not res.ranks.flags.writeable
    assert set(res.proportions) == set(CLASSES)
    assert sum(res.proportions.values()) == pytest.approx(1.0, abs=1e-12)
    counts = classify_ranks(res.ranks, 100)
    assert res.proportions == {k: v / 3000 for k, v in counts.items()}
    # eps = 10 on 'king' mixes all three classes, so the checks below see every case
    assert all(0 < res.proportions[k] < 1 for k in CLASSES)
    assert res.standard_errors() == {k: pytest.approx(se(p, 3000), rel=1e-12) for k, p in res.proportions.items()}


def test_rank_experiment_ranks_are_the_outputs_neighbour_ranks(glove_small, king_at_10):
    # the same seed gives the same outputs through the mechanism directly
    outputs = MultivariateLaplace.family().sample(glove_small, "king", 10.0, 3000, rng=1)
    np.testing.assert_array_equal(king_at_10.ranks, neighbour_ranks(glove_small, "king").rank_of(outputs))


def test_rank_experiment_top_list(glove_small, king_at_10):
    res = king_at_10
    nr = neighbour_ranks(glove_small, "king")
    ranks, counts = res.rank_counts()
    assert np.all(np.diff(ranks) > 0) and counts.sum() == 3000
    assert 1 <= len(res.top) <= 10
    assert len(res.top) == min(10, ranks.size)
    by_count = sorted(zip(-counts, ranks))  # the expected order: count down, then rank up
    assert [(e["count"], e["rank"]) for e in res.top] == [(-c, r) for c, r in by_count[: len(res.top)]]
    king = glove_small.vectors[nr.row].astype(np.float64)
    for entry in res.top:
        row = glove_small.index(entry["word"])
        assert entry["rank"] == nr.rank[row]
        assert entry["count"] == np.count_nonzero(res.ranks == entry["rank"])
        assert entry["distance"] == pytest.approx(np.linalg.norm(glove_small.vectors[row].astype(np.float64) - king), rel=1e-9)
        x = glove_small.vectors[row].astype(np.float64)
        assert entry["cosine"] == pytest.approx(x @ king / (np.linalg.norm(x) * np.linalg.norm(king)), abs=1e-12)
        assert -1.0 <= entry["cosine"] <= 1.0
    top_words = [e["word"] for e in res.top]
    assert "king" in top_words
    king_entry = res.top[top_words.index("king")]
    assert king_entry["rank"] == 0 and king_entry["distance"] == 0.0 and king_entry["cosine"] == 1.0


def test_rank_experiment_to_dict_is_json(king_at_10):
    d = json.loads(json.dumps(king_at_10.to_dict()))
    assert d["word"] == "king" and d["samples"] == 3000 and d["close"] == 100
    assert d["proportions"] == king_at_10.proportions
    assert d["standard_errors"] == king_at_10.standard_errors()
    assert d["top"] == king_at_10.top


def test_rank_experiment_seeding_and_options(glove_small):
    a = rank_experiment(glove_small, "paris", 5.0, samples=500, rng=7)
    b = rank_experiment(glove_small, "paris", 5.0, samples=500, rng=7)
    c = rank_experiment(glove_small, "paris", 5.0, samples=500, rng=8)
    np.testing.assert_array_equal(a.ranks, b.ranks)
    assert a.top == b.top
    assert not np.array_equal(a.ranks, c.ranks)
    row = glove_small.index("paris")
    d = rank_experiment(glove_small, row, 5.0, samples=500, rng=7, close=3, top=2,
                        mechanism=MultivariateLaplace.family())
    np.testing.assert_array_equal(d.ranks, a.ranks)  # a row index is the same word
    assert d.word == "paris" and d.close == 3 and len(d.top) == 2
    assert d.proportions == {k: v / 500 for k, v in classify_ranks(d.ranks, 3).items()}


def test_rank_experiment_progress_comes_batch_by_batch_with_the_outputs_of_one_call(gaussian_space):
    calls = []
    n = 2 * SAMPLE_BATCH + 123
    res = rank_experiment(gaussian_space, "w7", 3.0, samples=n, rng=4, progress=lambda f, m: calls.append((f, m)))
    assert [f for f, _ in calls] == [SAMPLE_BATCH / n, 2 * SAMPLE_BATCH / n, 1.0]
    assert calls[-1][1] == f"Sampled {n:,} of {n:,} outputs"
    one_call = MultivariateLaplace.family().sample(gaussian_space, "w7", 3.0, n, np.random.default_rng(4))
    np.testing.assert_array_equal(res.ranks, neighbour_ranks(gaussian_space, "w7").rank_of(one_call))


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -2.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"samples": 0}, "samples"),
        ({"samples": MAX_SAMPLES + 1}, "samples"),
        ({"close": 0}, "close"),
        ({"close": 20000}, "close"),
        ({"word": "King"}, "Did you mean 'king'"),
        ({"word": "zzzqqq"}, "not in the vocabulary"),
        ({"rng": -1}, "seed"),
    ],
)
def test_rank_experiment_validation(glove_small, kwargs, pattern):
    args = {"word": "king", "epsilon": 1.0, "samples": 10, "close": 100, "rng": 0} | kwargs
    with pytest.raises(ValueError, match=pattern):
        rank_experiment(glove_small, **args)


def test_rank_experiment_king_extremes_on_full_glove(glove):
    nr = neighbour_ranks(glove, "king")
    d1 = nr.distances[1]  # nearest other word ('prince', about 3.1)
    # eps = 1000: a word x can beat w only if <Z, x - w> >= |x - w|^2 / 2, which needs
    # R = |Z| >= |x - w| / 2 >= d1 / 2; with R ~ Gamma(50, 1/1000) that has probability < 1e-100.
    assert stats.gamma(50, scale=1e-3).sf(d1 / 2) < 1e-100
    high = rank_experiment(glove, "king", 1000.0, samples=500, rng=0)
    assert high.proportions == {"original": 1.0, "close": 0.0, "distant": 0.0}
    assert high.top == [{"word": "king", "rank": 0, "count": 500, "distance": 0.0, "cosine": 1.0}]

    # eps = 0.5: R ~ Gamma(50, 2), mean 100 and P(R < 40) ~ 1e-8, while 'king' is 5.4 from the
    # origin and its nearest neighbour 3.1 away. With Z = R u, M(w) = w needs
    # <u, x - w> <= |x - w|^2 / (2R) for every word x, a condition that only gets harder as R grows.
    # So P(original) <= P(R < r0) + P_u(no "witness" x with <u, x - w> > |x - w|^2 / (2 r0)):
    # count the random directions u (independent of R) that have no witness in the vocabulary.
    r0, n_dirs = 40.0, 20000
    rng = np.random.default_rng(2020)
    u = rng.standard_normal((n_dirs, 50))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = glove.vectors[nr.row].astype(np.float64)

    def witnessed(dirs, rows):
        x = glove.vectors[rows].astype(np.float64) - w  # (w itself gives 0 > 0: never a witness)
        return ((dirs @ x.T) > np.einsum("ij,ij->i", x, x) / (2 * r0)).any(axis=1)

    # first the 3,000 longest vectors (most directions find a witness there), then every word
    longest = np.argsort(glove.sq_norms)[-3000:]
    open_dirs = np.concatenate([np.flatnonzero(~witnessed(u[k:k + 2000], longest)) + k for k in range(0, n_dirs, 2000)])
    for start in range(0, len(glove), 50000):
        if open_dirs.size == 0:
            break
        open_dirs = open_dirs[~witnessed(u[open_dirs], np.arange(start, min(start + 50000, len(glove))))]
    # Clopper-Pearson upper bound (confidence 1 - 1e-6) on the fraction of directions without a witness
    k = open_dirs.size
    p_dirs = stats.beta.ppf(1 - 1e-6, k + 1, n_dirs - k)
    p_bound = stats.gamma(50, scale=2.0).cdf(r0) + p_dirs
    assert p_bound < 0.005  # "tiny": the bound is informative (about 7e-4 when no direction is open)
    low = rank_experiment(glove, "king", 0.5, samples=2000, rng=0)
    assert low.proportions["original"] <= p_bound + 4 * se(p_bound, 2000)


# ----------------------------------------------------------------------------- parse_epsilons
# The grid syntax and its errors are tested once, in tests/core (parse_epsilon_grid); here only
# that the word-level parser is that one with this topic's cap of MAX_EPSILONS values.
@pytest.mark.parametrize("text", ["1:30", "0.5:10:0.5", "0.5,1,2", "1:1000"])
def test_parse_epsilons_is_the_core_grid(text):
    np.testing.assert_array_equal(parse_epsilons(text), parse_epsilon_grid(text, MAX_EPSILONS))


def test_parse_epsilons_caps_at_max_epsilons():
    with pytest.raises(ValueError, match=f"more than {MAX_EPSILONS:,} values"):
        parse_epsilons(f"1:{MAX_EPSILONS + 1}")
    with pytest.raises(ValueError, match="epsilon"):
        parse_epsilons("0,1")


# ----------------------------------------------------------------------------- epsilon_sweep
WIDE_GRID = [0.5, 2.0, 5.0, 10.0, 20.0, 50.0, 200.0]


@pytest.fixture(scope="module")
def wide_sweep(glove_small):
    return epsilon_sweep(glove_small, WIDE_GRID, words=300, rng=0)


def test_sweep_shape_and_proportions(glove_small, wide_sweep):
    s = wide_sweep
    assert isinstance(s, EpsilonSweep)
    np.testing.assert_array_equal(s.epsilons, WIDE_GRID)
    assert len(s.words) == 300 and len(set(s.words)) == 300
    assert all(w in glove_small for w in s.words)
    assert s.samples_per_word == 1 and s.trials == 300 and s.close == 100
    assert s.mechanism == "multivariate-laplace"
    assert set(s.proportions) == set(CLASSES)
    total = sum(s.proportions[k] for k in CLASSES)
    np.testing.assert_allclose(total, 1.0, rtol=0, atol=1e-12)
    for k in CLASSES:
        assert s.proportions[k].shape == (len(WIDE_GRID),)
        assert np.all((s.proportions[k] >= 0) & (s.proportions[k] <= 1))
        # proportions of 300 trials are multiples of 1/300
        np.testing.assert_allclose(s.proportions[k] * 300, np.round(s.proportions[k] * 300), atol=1e-9)
    errors = s.standard_errors()
    for k in CLASSES:
        np.testing.assert_allclose(errors[k], np.sqrt(s.proportions[k] * (1 - s.proportions[k]) / 300), rtol=1e-12)
    d = json.loads(json.dumps(s.to_dict()))
    assert d["epsilons"] == WIDE_GRID and d["words"] == 300 and d["samples_per_word"] == 1
    assert d["proportions"]["original"] == pytest.approx(list(s.proportions["original"]), abs=0)


def test_the_sweep_result_holds_one_repetition_per_word(glove_small, wide_sweep):
    r = wide_sweep.result
    assert isinstance(r, SweepResult)
    assert r.mechanisms == ("multivariate-laplace",) and r.metrics == SWEEP_METRICS and r.repeats == 300
    assert r.seed == 0 and r.settings == {"close": 100, "samples_per_word": 1}
    assert r.guarantees["multivariate-laplace"] == MultivariateLaplace.description()["guarantee"]
    # one output per word and epsilon: each repetition is one class, 0 or 1 in each metric
    np.testing.assert_array_equal(r.values.sum(axis=3), 1.0)
    np.testing.assert_array_equal(np.unique(r.values), [0.0, 1.0])
    for k in CLASSES:
        np.testing.assert_array_equal(r.mean("multivariate-laplace", k), wide_sweep.proportions[k])


def test_sweep_entry_point_is_compare_sweeps_in_one_result(glove_small):
    mechanisms = ["multivariate-laplace", ("postprocessing-fix", {"c": 0.05})]
    calls = []
    result = sweep(glove_small, mechanisms, [1.0, 30.0], repeats=30, seed=4, samples_per_word=2,
                   progress=lambda f, m: calls.append(f))
    former = compare_sweeps(glove_small, [1.0, 30.0], 30, mechanisms, rng=4, samples_per_word=2)
    assert result.mechanisms == ("multivariate-laplace", "postprocessing-fix") and result.repeats == 30
    assert result.values.shape == (2, 2, 30, 3) and result.seed == 4
    assert result.settings["words"] == list(former[0].words)
    for m, s in zip(result.mechanisms, former):
        for k in CLASSES:
            np.testing.assert_array_equal(result.mean(m, k), s.proportions[k])
    # two outputs per word: the per-word shares are 0, 1/2 or 1
    assert set(np.unique(result.values)) <= {0.0, 0.5, 1.0}
    assert calls[-1] == 1.0 and all(x <= y for x, y in zip(calls, calls[1:]))
    # mechanisms of one name are told apart by their parameters
    twice = sweep(glove_small, [("postprocessing-fix", {"c": 0.05}), ("postprocessing-fix", {"c": 0.5})], [30.0],
                  words=["king", "queen"], seed=1)
    assert twice.mechanisms == ("postprocessing-fix(c=0.05)", "postprocessing-fix(c=0.5)") and twice.repeats == 2
    with pytest.raises(ValueError, match="either repeats"):
        sweep(glove_small, mechanisms, [1.0], repeats=2, words=["king", "queen"])
    with pytest.raises(ValueError, match="repeats"):
        sweep(glove_small, mechanisms, [1.0], repeats=0)


def test_sweep_original_rises_with_epsilon(wide_sweep):
    orig = wide_sweep.proportions["original"]
    errors = wide_sweep.standard_errors()["original"]
    # first vs last: from (almost) never to (almost) always
    assert orig[-1] - orig[0] >= 4 * math.sqrt(errors[0] ** 2 + errors[-1] ** 2)
    assert_below(orig[0], 0.1, 300)
    assert_above(orig[-1], 0.9, 300)
    # no significant step down anywhere along the grid
    for j in range(len(orig) - 1):
        assert orig[j + 1] >= orig[j] - 4 * math.sqrt(errors[j] ** 2 + errors[j + 1] ** 2)


def test_sweep_progress_and_reproducibility(glove_small):
    calls = []
    a = epsilon_sweep(glove_small, [1.0, 10.0, 30.0], words=40, rng=5, progress=lambda f, m: calls.append((f, m)))
    b = epsilon_sweep(glove_small, [1.0, 10.0, 30.0], words=40, rng=5)
    c = epsilon_sweep(glove_small, [1.0, 10.0, 30.0], words=40, rng=6)
    fractions = [f for f, _ in calls]
    assert fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert all(x <= y for x, y in zip(fractions, fractions[1:]))
    assert all(isinstance(m, str) and m for _, m in calls)
    assert len(calls) >= 2
    assert a.words == b.words
    for k in CLASSES:
        np.testing.assert_array_equal(a.proportions[k], b.proportions[k])
    assert a.words != c.words


def test_sweep_with_a_word_list(glove_small):
    words = ["king", "queen", "paris", "the"]
    s = epsilon_sweep(glove_small, 1000.0, words=words, samples_per_word=25, rng=1)
    assert s.words == tuple(words)
    assert s.trials == 100 and s.samples_per_word == 25
    np.testing.assert_array_equal(s.epsilons, [1000.0])
    # eps = 1000: R ~ Gamma(50, 1e-3) < 0.1 except with probability < 1e-30, far below half of
    # any of these words' nearest-neighbour distances, so every output is the word itself
    half_gaps = [neighbour_ranks(glove_small, w).distances[1] / 2 for w in words]
    assert stats.gamma(50, scale=1e-3).sf(min(half_gaps)) < 1e-30
    assert s.proportions["original"].tolist() == [1.0]
    assert s.proportions["close"].tolist() == [0.0] and s.proportions["distant"].tolist() == [0.0]


def test_sweep_exact_law_on_a_line(line_space, line_law):
    """On five words on a line the sweep's proportions are known exactly. Input 'c' (at 2.5) has
    'b' (1.0) and 'd' (4.0) both at distance 1.5: the stable order makes 'b' rank 1 and 'd' rank 2."""
    n_per_word = 1000
    eps_grid = [0.5, 1.5]
    for close in (1, 2):
        s = epsilon_sweep(line_space, eps_grid, words=["c", "a"], close=close, samples_per_word=n_per_word,
                          rng=40 + close)
        for j, eps in enumerate(eps_grid):
            pc, pa = line_law(2, eps), line_law(0, eps)
            # classes by rank: from 'c' the ranks of a..e are 3, 1, 0, 2, 4; from 'a' 0, 1, 2, 3, 4
            rank_c = np.array([3, 1, 0, 2, 4])
            rank_a = np.array([0, 1, 2, 3, 4])
            for k, rule in (("original", lambda r: r == 0), ("close", lambda r: (r >= 1) & (r <= close)),
                            ("distant", lambda r: r > close)):
                p1, p2 = pc[rule(rank_c)].sum(), pa[rule(rank_a)].sum()
                expected = (p1 + p2) / 2
                sd = math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) * n_per_word) / (2 * n_per_word)
                assert abs(s.proportions[k][j] - expected) <= 4 * sd + 1e-12, (close, eps, k)


def test_sweep_agrees_with_rank_experiment(glove_small):
    # the same quantity estimated twice with independent draws: per-class difference within 4 SE
    words = ["king", "blue", "computer"]
    sweep = epsilon_sweep(glove_small, [8.0], words=words, samples_per_word=800, rng=11)
    n_exp = 800
    experiments = [rank_experiment(glove_small, w, 8.0, samples=n_exp, rng=12 + i) for i, w in enumerate(words)]
    for k in CLASSES:
        p_words = np.array([e.proportions[k] for e in experiments])
        pooled = p_words.mean()
        # variance of a mean of three independent binomial proportions, each from 800 draws (both sides)
        var = np.sum(p_words * (1 - p_words)) / (9 * n_exp)
        assert abs(sweep.proportions[k][0] - pooled) <= 4 * math.sqrt(2 * var) + 1e-12, k
    assert sweep.proportions["original"][0] > 0.05 and sweep.proportions["distant"][0] > 0.05  # a mixed case


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"epsilons": [1.0, 0.0]}, "epsilon"),
        ({"epsilons": [float("inf")]}, "epsilon"),
        ({"words": 0}, "words"),
        ({"words": 6}, "words"),
        ({"words": []}, "at least one word"),
        ({"words": ["a", "zz"]}, "'zz' is not in the vocabulary"),
        ({"samples_per_word": 0}, "samples_per_word"),
        ({"close": 0}, "close"),
        ({"close": 5}, "close"),
        ({"rng": -2}, "seed"),
    ],
)
def test_sweep_validation(line_space, kwargs, pattern):
    args = {"epsilons": [1.0], "words": 3, "close": 1, "rng": 0} | kwargs
    with pytest.raises(ValueError, match=pattern):
        epsilon_sweep(line_space, **args)


def test_sweep_all_words_of_a_tiny_space(line_space):
    s = epsilon_sweep(line_space, [1e6], words=5, close=1, rng=0)
    assert sorted(s.words) == ["a", "b", "c", "d", "e"]
    assert s.proportions["original"].tolist() == [1.0]


# ----------------------------------------------------------------------------- the paper's Fig. 2
@pytest.mark.slow
def test_figure_2_on_glove_50d(glove):
    """Paper §2, Fig. 2 (dx-text.md §2): words drawn uniformly from the whole vocabulary, one noisy
    output each, proportions original / close (rank 1..100) / distant against eps. The paper's
    finding: "at low eps only distant words, at high eps only the original; close neighbours are
    almost never output" — unlike 1-D Laplace on integers (Fig. 1), the mechanism never passes
    through a regime where it outputs semantically close words.
    Checked here on the real GloVe 6B 50d, 1,000 words, eps in {1, 10, 30}, each claim 4 standard
    errors (taken at the threshold) clear of its threshold."""
    n = 1000
    s = epsilon_sweep(glove, [1.0, 10.0, 30.0], words=n, rng=2026)
    orig, close, distant = (s.proportions[k] for k in CLASSES)
    # eps = 1: the original is almost never output (< 5 %), distant words dominate (> 90 %)
    assert_below(orig[0], 0.05, n)
    assert_above(distant[0], 0.90, n)
    # eps = 30: the original dominates (> 90 %)
    assert_above(orig[2], 0.90, n)
    # close neighbours stay rare at every eps (< 15 %), even in the transition at eps = 10
    for j in range(3):
        assert_below(close[j], 0.15, n)


def test_sweep_accepts_one_word_as_a_string(glove_small):
    sweep = epsilon_sweep(glove_small, [1000.0], "king", rng=0, samples_per_word=20)
    assert sweep.words == ("king",)
    assert sweep.proportions["original"][0] == 1.0  # radius ~0.05 at eps = 1000: always the word


def test_huge_epsilon_grid_is_refused():
    with pytest.raises(ValueError, match="more than 1,000 values"):
        parse_epsilons("1:1e12")


@pytest.mark.parametrize("normalise", [True, False])
def test_dot_product_experiment_follows_the_exact_law(glove_small, normalise):
    from privlib.words.theory.dot_experiment import dot_product_experiment
    from privlib.words.theory.noisy_dot import AngularComponent, NoiseRadius

    exp = dot_product_experiment(50, 4.0, 20_000, glove_small, "king", normalise, rng=3)
    norm = float(np.linalg.norm(glove_small.vectors[glove_small.index("king")].astype(float)))
    assert exp.scale == (1.0 if normalise else pytest.approx(norm))
    # <eta, w> has the law of ||w|| Z, i.e. NoisyDotProduct(n, eps/||w||)
    assert stats.kstest(exp.values, exp.law.cdf).pvalue > 1e-3
    assert stats.kstest(exp.radius, NoiseRadius(50, 4.0).cdf).pvalue > 1e-3
    assert stats.kstest(exp.cosine, AngularComponent(50).cdf).pvalue > 1e-3
    # a wrong scale is rejected by the same test (the test can fail)
    wrong = exp.values * (1.0 / norm if not normalise else 1.3)
    assert stats.kstest(wrong, exp.law.cdf).pvalue < 1e-6
    rows = exp.summary(0.99)
    assert abs(rows[1]["simulated"] - rows[1]["exact"]) < 4 * rows[1]["standard error"]
    assert rows[2]["bound"] >= rows[2]["exact"] and rows[2]["bound (Chebyshev)"] >= rows[2]["exact"]


def test_dot_product_experiment_validation(glove_small):
    from privlib.words.theory.dot_experiment import dot_product_experiment

    with pytest.raises(ValueError, match="set n = 50"):
        dot_product_experiment(300, 1.0, 100, glove_small, "king")
    with pytest.raises(ValueError, match="greater than 0"):
        dot_product_experiment(50, 0.0, 100)
    with pytest.raises(ValueError, match="needs an embedding"):
        dot_product_experiment(50, 1.0, 100, None, "king")
