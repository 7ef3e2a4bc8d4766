"""The word attacker's view as the pages and ``word-attack`` show it (privlib.words.attacks): which
guarantee covers the candidates and its bound, one attack at one ε with its sentence, success
against ε with the bound, the largest ε under a target, one pair's trade-off curve, and the time
estimate. Checked against the attacks themselves, core.risk's bounds, hand-made curves and closed
forms."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from privlib.core.risk import DPCurve, FinitePairCurve, metric_reidentification_bounds, reidentification_bound
from privlib.words import attacks, kernel_costs
from privlib.words.attacks import (
    AttackFrontier,
    attack_curve,
    attack_seconds,
    attacker_view,
    bayes_attack,
    candidate_distances,
    candidate_guarantee,
    guarantee_bound,
    largest_epsilon_under,
    pair_tradeoff,
    sampled_attack,
    word_candidates,
)
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import (
    TEM,
    CusText,
    Mahalanobis,
    MultivariateLaplace,
    PostProcessingFix,
    SanText,
    SanTextPlus,
    Vickrey,
)

TINY_WORDS = ["the", "cat", "dog", "sat", "mat", "zebra"]
TINY_VECTORS = [[0.0, 0.0], [1.0, 0.2], [1.3, -0.1], [-0.4, 0.9], [-0.7, 1.1], [3.0, 2.5]]


@pytest.fixture(scope="module")
def tiny():
    return EmbeddingSpace.from_arrays(TINY_WORDS, TINY_VECTORS, name="tiny")


@pytest.fixture(scope="module")
def glove_2000():
    return EmbeddingSpace.glove_6b_50d(vocab_size=2000)


def share(value: float) -> str:
    return f"{100 * value:.4g} %"


# ----------------------------------------------------------------------------- the guarantee and its bound
@pytest.mark.parametrize("mechanism", [MultivariateLaplace.family(), PostProcessingFix.family(), SanText.family(),
                                       TEM.family(), Vickrey.family(base="cmp")], ids=repr)
def test_euclidean_mechanisms_are_covered_at_their_own_epsilon(glove_2000, mechanism):
    guarantee = candidate_guarantee(glove_2000, mechanism, 3.0, candidates=200)
    assert (guarantee.kind, guarantee.epsilon) == ("metric", 3.0)


def test_mahalanobis_is_covered_through_its_euclidean_corollary(glove_2000):
    for mechanism in (Mahalanobis.family(lam=0.5), Vickrey.family(base="mahalanobis", lam=0.5)):
        guarantee = candidate_guarantee(glove_2000, mechanism, 2.0, candidates=200)
        covariance = Mahalanobis.family(lam=0.5).covariance(glove_2000)
        assert guarantee.kind == "metric"
        assert guarantee.epsilon == pytest.approx(2.0 / math.sqrt(covariance.smallest_eigenvalue), rel=1e-12)
        assert guarantee.epsilon > 2.0  # λ_min < 1: the corollary costs more than ε


def test_santext_plus_kept_words_and_custext_across_groups_have_no_guarantee(glove_2000):
    for mechanism in (SanTextPlus.family(), SanTextPlus.family(p=0.9), CusText.family(k=20)):
        guarantee = candidate_guarantee(glove_2000, mechanism, 2.0, candidates=200)
        assert guarantee.kind == "none" and guarantee.epsilon is None
        assert guarantee.text.startswith("no guarantee")
        assert guarantee_bound(glove_2000, guarantee, word_candidates(glove_2000, 200)) is None
    # p = 1: every word is sanitised over the sensitive words, SanText's ε·d_X again
    assert candidate_guarantee(glove_2000, SanTextPlus.family(p=1.0), 2.0, candidates=200).kind == "metric"


def test_custext_within_one_group_is_pure_epsilon_with_the_prior_bound(tiny):
    mechanism = CusText.family(k=3)
    groups = mechanism.groups(tiny)
    together = [c for c in (2, 3) if np.unique(groups.group_of[:c]).size == 1]
    assert together, "the tiny space's first words share a group"
    count = together[-1]
    cand = word_candidates(tiny, count, "zipf")
    guarantee = candidate_guarantee(tiny, mechanism, 1.5, candidates=cand)
    assert (guarantee.kind, guarantee.epsilon) == ("pure", 1.5)
    # max_m e^ε S_m / (e^ε + m − 1), by hand
    pi = np.sort(cand.prior)[::-1]
    by_hand = max(math.exp(1.5) * pi[:m].sum() / (math.exp(1.5) + m - 1) for m in range(1, count + 1))
    assert guarantee_bound(tiny, guarantee, cand) == pytest.approx(by_hand, rel=1e-12)
    assert guarantee_bound(tiny, guarantee, cand) == pytest.approx(reidentification_bound(cand.prior, 1.5), rel=1e-12)


def test_the_metric_bound_is_the_dual_bound_above_the_lp_and_the_exact_attack(glove_2000):
    for prior in ("uniform", "zipf"):
        cand = word_candidates(glove_2000, 150, prior)
        for epsilon in (1.0, 4.0):
            guarantee = candidate_guarantee(glove_2000, SanText.family(), epsilon, candidates=cand)
            bound = guarantee_bound(glove_2000, guarantee, cand)
            reference = metric_reidentification_bounds(cand.prior, candidate_distances(glove_2000, 150), epsilon)
            assert bound == pytest.approx(reference.dual, rel=1e-12)
            exact = bayes_attack(glove_2000, SanText.family(), epsilon, candidates=cand).success
            assert exact <= reference.lp + 1e-9 <= bound + 2e-9


# ----------------------------------------------------------------------------- one attack at one ε
def test_an_exact_view_holds_the_bayes_attack_its_bound_and_says_them(glove_2000):
    cand = word_candidates(glove_2000, 300, "zipf")
    view = attacker_view(glove_2000, SanText.family(), 2.0, candidates=cand, close=50)
    attack = bayes_attack(glove_2000, SanText.family(), 2.0, candidates=cand, close=50)
    assert view.exact and view.standard_error == 0.0 and view.interval() == (attack.success, attack.success)
    assert (view.success, view.guess_output, view.prior_baseline) == (attack.success, attack.guess_output,
                                                                      cand.prior_baseline)
    bound = metric_reidentification_bounds(cand.prior, candidate_distances(glove_2000, 300), 2.0, lp=False).dual
    assert view.bound == pytest.approx(bound, rel=1e-12)
    sentence = view.sentence
    assert sentence.startswith("At ε = 2, somebody who sees the sanitised word names the original "
                               f"{share(attack.success)} of the time")
    for number in (attack.guess_output, cand.prior_baseline, bound):
        assert share(number) in sentence
    data = json.loads(json.dumps(view.to_dict(), allow_nan=False))
    assert data["sentence"] == sentence and data["bound_method"] == "the dual metric bound"


def test_a_sampled_view_is_the_sampled_attack_of_the_same_seed_with_its_interval(glove_2000):
    cand = word_candidates(glove_2000, 200, "uniform")
    view = attacker_view(glove_2000, MultivariateLaplace.family(), 8.0, candidates=cand, samples_per_word=3, seed=7,
                         close=20)
    attack = sampled_attack(glove_2000, MultivariateLaplace.family(), 8.0, candidates=cand, samples_per_word=3,
                            seed=7, close=20)
    assert not view.exact
    assert view.to_dict()["attack"] == attack.to_dict()
    assert view.interval() == attack.interval()
    assert f"{share(attack.success)} ± {share(2 * attack.standard_error)}" in view.sentence
    assert "sampled attack" in view.sentence
    other = attacker_view(glove_2000, MultivariateLaplace.family(), 8.0, candidates=cand, samples_per_word=3, seed=8,
                          close=20)
    assert other.attack.hits != view.attack.hits or other.attack.in_sample != view.attack.in_sample


def test_without_a_guarantee_the_sentence_says_so_and_holds_no_bound(glove_2000):
    view = attacker_view(glove_2000, SanTextPlus.family(), 2.0, candidates=200, close=20)
    assert view.bound is None and view.to_dict()["bound"] is None
    assert "gives no guarantee" in view.sentence and "allows at most" not in view.sentence
    # a kept word is named outright: the attack succeeds at least as often as the word is kept
    assert view.success >= view.guess_output >= 0.7 * 0.99


# ----------------------------------------------------------------------------- success against ε
def test_the_curve_holds_each_epsilons_view_and_bound(glove_2000):
    cand = word_candidates(glove_2000, 150, "zipf")
    epsilons = [1.0, 6.0]
    for mechanism in (SanText.family(), MultivariateLaplace.family()):
        curve = attack_curve(glove_2000, mechanism, epsilons, candidates=cand, samples_per_word=3, seed=4, close=20)
        for j, epsilon in enumerate(epsilons):
            view = attacker_view(glove_2000, mechanism, epsilon, candidates=cand, samples_per_word=3, seed=4, close=20)
            assert curve.success[0, j] == pytest.approx(view.success, rel=1e-13)
            assert curve.success_se[0, j] == pytest.approx(view.standard_error, rel=1e-13)
            assert curve.bound[j] == pytest.approx(view.bound, rel=1e-13)
    none = attack_curve(glove_2000, CusText.family(k=20, vocab_limit=2000), epsilons, candidates=cand, close=20)
    assert np.isnan(none.bound).all()
    assert json.loads(json.dumps(none.to_dict(), allow_nan=False))["bound"] == [None, None]


def frontier(success, bound, se=None, prior=0.1):
    """A hand-made one-mechanism curve over ε = 1, 2, 3, 4 (exact when ``se`` is None)."""
    epsilons = np.array([1.0, 2.0, 3.0, 4.0])
    count = round(1 / prior)
    cand = attacks.Candidates(count, "uniform", np.full(count, 1 / count))
    row = np.array([success], dtype=float)
    zeros = np.zeros_like(row)
    return AttackFrontier(("santext",), {"santext": "SanText"}, epsilons, cand, (se is None,), row,
                          zeros if se is None else np.array([se], dtype=float), zeros, zeros, zeros, zeros, zeros,
                          np.asarray(bound, dtype=float), {})


def test_largest_epsilon_under_a_target_by_the_bound_and_by_the_attack():
    curve = frontier([0.12, 0.2, 0.5, 0.22], [0.2, 0.4, 0.6, 0.8])
    answer = largest_epsilon_under(curve, 0.25)
    # the attack crosses 0.25 after ε = 2 and dips back at 4 (not an answer); the bound stays under only at 1
    assert (answer.by_attack, answer.by_bound, answer.below_prior) == (2.0, 1.0, False)
    assert "ε = 1 by the guarantee's bound" in answer.sentence and "ε = 2 by the exact Bayes attack" in answer.sentence
    assert largest_epsilon_under(curve, 0.2).by_attack == 2.0  # at most the target: equality counts
    top = largest_epsilon_under(curve, 0.9)
    assert (top.by_attack, top.by_bound) == (4.0, 4.0) and "the top of the grid" in top.sentence
    low = largest_epsilon_under(curve, 0.11)
    assert (low.by_attack, low.by_bound) == (None, None) and "no ε of the grid (from 1)" in low.sentence


def test_a_sampled_attack_answers_with_its_upper_two_standard_errors():
    curve = frontier([0.12, 0.2, 0.22, 0.24], [0.3, 0.4, 0.5, 0.6], se=[0.01, 0.03, 0.001, 0.001])
    answer = largest_epsilon_under(curve, 0.25)  # 0.14, 0.26: only ε = 1, though the values stay under
    assert answer.by_attack == 1.0 and not answer.exact and "optimistic" in answer.sentence


def test_a_target_below_the_prior_or_without_a_guarantee():
    below = largest_epsilon_under(frontier([0.3, 0.4, 0.5, 0.6], [0.5] * 4, prior=0.25), 0.2)
    assert below.below_prior and below.sentence.startswith("No ε keeps the attack under 20 %")
    none = largest_epsilon_under(frontier([0.12, 0.2, 0.5, 0.6], [math.nan] * 4), 0.3)
    assert (none.guaranteed, none.by_bound, none.by_attack) == (False, None, 2.0)
    assert "gives none" in none.sentence
    with pytest.raises(ValueError, match="target"):
        largest_epsilon_under(frontier([0.1] * 4, [0.5] * 4), 1.5)


# ----------------------------------------------------------------------------- one pair's trade-off
def test_the_pair_curve_is_the_exact_law_under_the_metric_limit(glove_2000):
    pair = pair_tradeoff(glove_2000, SanText.family(), 2.0, "king")
    x = glove_2000.vectors[glove_2000.row("king")].astype(np.float64)
    distances = np.linalg.norm(glove_2000.vectors.astype(np.float64) - x, axis=1)
    distances[glove_2000.row("king")] = np.inf
    assert pair.other == glove_2000.words[int(np.argmin(distances))]  # the nearest neighbour, brute force
    assert pair.distance == pytest.approx(distances.min(), rel=1e-9)
    assert isinstance(pair.bound, DPCurve) and pair.bound.epsilon == pytest.approx(2.0 * distances.min(), rel=1e-9)
    law = SanText.family()
    reference = FinitePairCurve(law.output_probabilities(glove_2000, "king", 2.0),
                                law.output_probabilities(glove_2000, pair.other, 2.0))
    alpha = np.linspace(0, 1, 101)
    np.testing.assert_allclose(pair.exact.fnr(alpha), reference.fnr(alpha), rtol=1e-12, atol=1e-15)
    assert np.all(pair.exact.fnr(alpha) >= pair.bound.fnr(alpha) - 1e-12)  # no test beats the guarantee


def test_pairs_without_a_guarantee_and_bad_pairs(tiny):
    kept = pair_tradeoff(tiny, SanTextPlus.family(p=0.3, w=0.5), 2.0, "the", "cat")
    assert kept.bound is None and kept.exact is not None and kept.guarantee.startswith("no guarantee")
    custext = CusText.family(k=2)
    groups = custext.groups(tiny)
    same = next(w for w in range(1, 6) if groups.group_of[w] == groups.group_of[0])
    other = next(w for w in range(1, 6) if groups.group_of[w] != groups.group_of[0])
    assert isinstance(pair_tradeoff(tiny, custext, 1.0, 0, same).bound, DPCurve)
    assert pair_tradeoff(tiny, custext, 1.0, 0, other).bound is None
    laplace = pair_tradeoff(tiny, MultivariateLaplace.family(), 1.0, "cat", "dog")
    assert laplace.exact is None and laplace.bound.epsilon == pytest.approx(math.hypot(0.3, 0.3), rel=1e-6)
    with pytest.raises(ValueError, match="two different words"):
        pair_tradeoff(tiny, SanText.family(), 1.0, "cat", "cat")


def test_the_sampled_pair_roc_is_the_distance_tests_exact_roc_on_a_line(line_space, line_law):
    # on a line the multivariate Laplace mechanism has an exact law (tests/conftest.py): the distance
    # test's ROC at each threshold is Σ_o P(o | ·)[score(o) ≥ t], which each sampled point must meet (4 SE)
    positions = np.array([0.0, 1.0, 2.5, 4.0, 7.0])
    x, y, epsilon, n = 1, 2, 1.5, 4000
    pair = pair_tradeoff(line_space, MultivariateLaplace.family(), epsilon, x, y, samples=n, seed=3)
    roc = pair.sampled
    assert pair.exact is None and roc.samples == n
    assert (roc.fpr[0], roc.tpr[0], roc.fpr[-1], roc.tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.all(np.diff(roc.fpr) >= 0) and np.all(np.diff(roc.tpr) >= 0)
    score = np.abs(positions - positions[y]) - np.abs(positions - positions[x])
    law_x, law_y = line_law(x, epsilon), line_law(y, epsilon)
    for t, fpr, tpr in zip(np.concatenate([[np.inf], np.unique(score)[::-1]]), roc.fpr, roc.tpr):
        said_x = score >= t
        exact_tpr, exact_fpr = law_x[said_x].sum(), law_y[said_x].sum()
        assert abs(tpr - exact_tpr) <= 4 * math.sqrt(exact_tpr * (1 - exact_tpr) / n) + 1e-12
        assert abs(fpr - exact_fpr) <= 4 * math.sqrt(exact_fpr * (1 - exact_fpr) / n) + 1e-12
    assert pair.bound.epsilon == pytest.approx(1.5 * 1.5)


def test_the_sampled_pair_roc_stays_under_the_limit_and_follows_its_seed(glove_2000):
    for epsilon in (2.0, 10.0):
        pair = pair_tradeoff(glove_2000, MultivariateLaplace.family(), epsilon, "king", samples=400, seed=2)
        slack = 4 * 0.5 / math.sqrt(400)  # 4 SE at the largest binomial SE
        assert np.all(pair.sampled.tpr <= pair.bound.tpr(np.minimum(1.0, pair.sampled.fpr + slack)) + slack)
    again = pair_tradeoff(glove_2000, MultivariateLaplace.family(), 10.0, "king", samples=400, seed=2)
    other = pair_tradeoff(glove_2000, MultivariateLaplace.family(), 10.0, "king", samples=400, seed=5)
    np.testing.assert_array_equal(again.sampled.tpr, pair.sampled.tpr)
    assert not np.array_equal(other.sampled.tpr, pair.sampled.tpr) or not np.array_equal(other.sampled.fpr,
                                                                                           pair.sampled.fpr)


# ----------------------------------------------------------------------------- the estimate
def test_the_estimate_with_fixed_kernel_costs_is_the_documented_count(glove_2000):
    # tests/conftest.py fixes every kernel at 2 ns per unit and per vocabulary word
    v, n, e, c = len(glove_2000), 300, 3, 2e-9
    exact = attack_seconds(glove_2000, SanText.family(), [1, 2, 3], candidates=n)
    assert exact == pytest.approx(n * v * c + n * v * e * c + (e + 1) * n * n * c, rel=1e-12)
    sampled = attack_seconds(glove_2000, MultivariateLaplace.family(), [1, 2, 3], candidates=n, samples_per_word=5,
                             runs=700, bound=False)
    # the close table (n rows over v words) and, per ε, the outputs' searches (v each) and the rule's distances (n each)
    assert sampled == pytest.approx(n * v * c + e * (n * 5 + 700) * (v + n) * c, rel=1e-12)
    view = attack_seconds(glove_2000, MultivariateLaplace.family(), [1, 2, 3], candidates=n, samples_per_word=5,
                          runs=700, bound=False, utility=False)  # no close-neighbour share: no close table
    assert view == pytest.approx(e * (n * 5 + 700) * (v + n) * c, rel=1e-12)
    both = attack_seconds(glove_2000, [SanText.family(), MultivariateLaplace.family()], [1, 2, 3], candidates=n,
                          samples_per_word=5, runs=700)
    assert both == pytest.approx(exact + sampled, rel=1e-12)


def test_the_estimate_times_its_kernels_once_per_space(monkeypatch):
    monkeypatch.delenv(kernel_costs.KERNEL_NANOSECONDS_VARIABLE)
    space = EmbeddingSpace.glove_6b_50d(vocab_size=3000)  # a space of its own: its timings are new
    first = attack_seconds(space, MultivariateLaplace.family(), [2.0], candidates=500)
    assert 0 < first < math.inf
    assert attack_seconds(space, MultivariateLaplace.family(), [2.0], candidates=500) == first  # kept with the space
    assert attack_seconds(space, MultivariateLaplace.family(), [2.0, 4.0], candidates=500) > first


@pytest.fixture
def stored_costs(monkeypatch):
    """The stored kernel costs only: the tests' fixed costs removed, and any timing of a kernel an error."""
    monkeypatch.delenv(kernel_costs.KERNEL_NANOSECONDS_VARIABLE)

    def timing(words, run, sizes):
        raise AssertionError("a kernel was timed")

    monkeypatch.setattr(attacks, "probe_seconds", timing)


def test_the_stored_estimate_times_nothing_and_counts_the_cost_models_kernels(glove_2000, stored_costs):
    """Without ``timed``, the same count as the timed estimate at the cost model's stored costs
    (`privlib.words.kernel_costs.STORED_KERNEL_NANOSECONDS`, nanoseconds per unit and per vocabulary word):
    the distance rows, the laws (SanText's for the bounds too), the sampling kernel of the cost model's
    sweeps (``sample_many``), the sampled attack's distance rule and close table, CusText's groups; nothing
    is timed."""
    stored = {name: value * 1e-9 if isinstance(value, float) else {k: v * 1e-9 for k, v in value.items()}
              for name, value in kernel_costs.STORED_KERNEL_NANOSECONDS.items()}
    v, n, e = len(glove_2000), 300, 3
    rows = n * v * stored["distances"]
    for mechanism in (SanText.family(), SanTextPlus.family(), TEM.family()):
        law = stored["law"][mechanism.name]
        assert attack_seconds(glove_2000, mechanism, [1, 2, 3], candidates=n, timed=False) == pytest.approx(
            rows + n * v * e * law + (e + 1) * n * n * stored["law"]["santext"], rel=1e-12)
    for name in ("multivariate-laplace", "postprocessing-fix", "mahalanobis", "vickrey"):
        sampling = stored["sampling"][name]
        searches = e * (n * 5 + 700) * (v * sampling + n * stored["distance-rule"])
        assert attack_seconds(glove_2000, name, [1, 2, 3], candidates=n, samples_per_word=5, runs=700, bound=False,
                              timed=False) == pytest.approx(n * v * stored["close-table"] + searches, rel=1e-12)
        assert attack_seconds(glove_2000, name, [1, 2, 3], candidates=n, samples_per_word=5, runs=700, bound=False,
                              utility=False, timed=False) == pytest.approx(searches, rel=1e-12)
    assert attack_seconds(glove_2000, CusText.family(), [1, 2, 3], candidates=n, bound=False,
                          timed=False) == pytest.approx(v * stored["custext-groups"] + rows, rel=1e-12)
    with pytest.raises(AssertionError, match="timed"):  # (the timed estimate does time them)
        attack_seconds(glove_2000, SanText.family(), [1, 2, 3], candidates=n)


def test_every_exact_dense_law_has_a_stored_cost():
    assert set(kernel_costs.STORED_KERNEL_NANOSECONDS["law"]) == {
        m.family().name for m in (SanText, SanTextPlus, TEM)}
    assert all(value > 0 for value in kernel_costs.STORED_KERNEL_NANOSECONDS["law"].values())


def test_fixed_costs_come_before_the_stored_ones(glove_2000, monkeypatch):
    monkeypatch.setenv(kernel_costs.KERNEL_NANOSECONDS_VARIABLE, "3")
    v, n, e, c = len(glove_2000), 300, 3, 3e-9
    assert attack_seconds(glove_2000, SanText.family(), [1, 2, 3], candidates=n, timed=False) == pytest.approx(
        n * v * c + n * v * e * c + (e + 1) * n * n * c, rel=1e-12)
    assert attack_seconds(glove_2000, CusText.family(), [1.0], candidates=n, bound=False,
                          timed=False) == pytest.approx(v * c + n * v * c, rel=1e-12)


def test_the_kernel_costs_have_one_home():
    """The fixed-cost variable is spelt once in the library (`privlib.words.kernel_costs`), and the cost
    model's names are that module's very objects."""
    from pathlib import Path

    from privlib.words import cost

    root = Path(kernel_costs.__file__).resolve().parents[1]  # privlib/
    spelt = sorted(str(path.relative_to(root)) for path in root.rglob("*.py")
                   if kernel_costs.KERNEL_NANOSECONDS_VARIABLE in path.read_text(encoding="utf-8"))
    assert spelt == ["words/kernel_costs.py"]
    assert cost.KERNEL_NANOSECONDS_VARIABLE is kernel_costs.KERNEL_NANOSECONDS_VARIABLE
    assert cost.STORED_KERNEL_NANOSECONDS is kernel_costs.STORED_KERNEL_NANOSECONDS
    assert not hasattr(attacks, "KERNEL_NANOSECONDS_VARIABLE")


@pytest.mark.parametrize("call, message", [
    (lambda s: attack_seconds(s, SanText.family(), [-1.0]), "psilon"),
    (lambda s: attack_seconds(s, [], [1.0]), "mechanism"),
    (lambda s: attack_seconds(s, SanText.family(), [1.0], candidates=7), "count"),
    (lambda s: attack_seconds(s, SanText.family(), [1.0], samples_per_word=0), "samples_per_word"),
    (lambda s: attack_seconds(s, CusText.family(k=2, vocab_limit=4), [1.0], candidates=5), "vocab_limit"),
    (lambda s: attacker_view(s, SanText.family(), candidates=4), "epsilon"),
    (lambda s: candidate_guarantee(s, "no-such-mechanism", 1.0), "mechanism"),
])
def test_bad_input_is_refused_with_a_value_error(tiny, call, message):
    with pytest.raises(ValueError, match=message):
        call(tiny)
