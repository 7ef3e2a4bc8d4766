"""The attack target of Choose epsilon (privlib.words.choice: attack_metrics, Targets.attack, answer): the
answer against a brute-force scan of the word attacks over the ε grid at the same seed, impossible and
trivially met targets refused with a clear message before any work, the long-work refusal, the
exports and the HTML report."""
import csv
import io
import json

import numpy as np
import pytest

from privlib.presentation.words.report import ATTACK_CHART, choice_figures, choice_report
from privlib.words.attacks import attack_curve, bayes_attack, sampled_attack, word_candidates
from privlib.words.attacks import largest_epsilon_under as page_answer
from privlib.words.choice import (
    BAND_SE,
    AttackMetrics,
    AttackSettings,
    MechanismMetrics,
    Targets,
    answer,
    assemble_choice,
    attack_metrics,
    choose_epsilon,
    mechanism_metrics,
)
from privlib.words.embeddings import EmbeddingSpace

GRID = (0.5, 2.0, 4.0, 8.0, 16.0)
SETTINGS = AttackSettings(candidates=60, samples_per_word=8)


@pytest.fixture(scope="module")
def space():
    """The 3,000 most frequent GloVe words: the attacks take well under a second per ε."""
    return EmbeddingSpace.glove_6b_50d(vocab_size=3000)


def brute_force(space, mechanism: str, seed: int) -> tuple[np.ndarray, ...]:
    """(success, band low, band high, standard error) per grid ε, each ε attacked on its own with the
    attacks module."""
    cand = word_candidates(space, SETTINGS.candidates, SETTINGS.prior)
    values, low, high, ses = [], [], [], []
    for e in GRID:
        if mechanism == "santext":
            s = bayes_attack(space, mechanism, e, candidates=cand, close=10).success
            values.append(s), low.append(s), high.append(s), ses.append(0.0)
        else:
            a = sampled_attack(space, mechanism, e, candidates=cand, samples_per_word=SETTINGS.samples_per_word,
                               seed=seed, close=10)
            values.append(a.success)
            lo, hi = a.interval(BAND_SE)
            low.append(lo), high.append(hi), ses.append(a.standard_error)
    return np.array(values), np.array(low), np.array(high), np.array(ses)


def scan(values, limit):
    """The largest grid ε (GRID is increasing) with ``values`` within ``limit`` there and at every smaller
    grid ε (None: not even the first)."""
    found = None
    for e, v in zip(GRID, values):
        if v > limit:
            break
        found = e
    return found


@pytest.mark.parametrize("mechanism", ["santext", "multivariate-laplace"])
def test_the_answer_is_a_brute_force_scan_of_the_attack_over_the_grid(space, mechanism):
    seed = 4
    values, low, high, ses = brute_force(space, mechanism, seed)
    assert np.all(np.diff(values[[0, -1]]) > 0)  # more ε, more re-identification
    measured = attack_metrics(space, mechanism, GRID, SETTINGS, close=10, seed=seed)
    np.testing.assert_array_equal(measured.success, values)  # same seed, same numbers, ε by ε
    np.testing.assert_array_equal(measured.bands[0], low)
    np.testing.assert_array_equal(measured.bands[1], high)
    assert measured.exact == (mechanism == "santext")
    metrics = mechanism_metrics(space, ["king", "river"], GRID, mechanism, samples=10, close=10, rng=seed)
    crossed = 0
    for limit in np.unique(np.round(values, 3))[:-1] + 0.0005:  # a limit between each two measured values
        for measure, shift in (("success", 0.0), ("above_prior", measured.prior_baseline)):
            target = limit - shift
            if not 0 < target < 1 - measured.prior_baseline or (measure == "success" and target <= measured.prior_baseline):
                continue  # targets refused as impossible or trivially met (the test below)
            a = answer(metrics, Targets(attack=float(target), attack_measure=measure), attack=measured)
            # the one rule: measured + 2 SE (exact: the value) within the target at ε and every smaller ε
            assert a.attack.epsilon == a.attack.conservative == scan(values + BAND_SE * ses - shift, target)
            assert a.attack.optimistic == scan(values - BAND_SE * ses - shift, target)
            assert list(a.attack_met) == [a.attack.epsilon is not None and e <= a.attack.epsilon for e in GRID]
            assert a.attack.status == ("crossed" if 0 < sum(a.attack_met) < len(GRID)
                                       else "everywhere" if all(a.attack_met) else "nowhere")
            assert list(a.recommended) == list(a.utility_met & a.privacy_kept & a.attack_met)
            crossed += a.attack.status == "crossed"
    assert crossed >= 2
    if mechanism != "santext":
        a = answer(metrics, Targets(attack=0.5), attack=measured)
        assert "lower bound on the best attacker" in a.message


@pytest.mark.parametrize("mechanism", ["santext", "multivariate-laplace"])
def test_choose_epsilon_and_the_neighbour_ranks_page_give_the_same_answer(space, mechanism):
    """The page's answer (`privlib.words.attacks.largest_epsilon_under` of `attack_curve`, what
    pages/neighbour_ranks.py shows) and Choose epsilon's (`answer`) at the same seed and settings: one rule,
    the same numbers — for targets on either side of each measured success + 2 SE."""
    seed = 4
    curve = attack_curve(space, mechanism, GRID, candidates=word_candidates(space, SETTINGS.candidates),
                         samples_per_word=SETTINGS.samples_per_word, seed=seed, close=10)
    measured = attack_metrics(space, mechanism, GRID, SETTINGS, close=10, seed=seed)
    np.testing.assert_array_equal(measured.success, curve.success[0])
    np.testing.assert_array_equal(measured.standard_errors, curve.success_se[0])
    metrics = mechanism_metrics(space, ["king", "river"], GRID, mechanism, samples=10, close=10, rng=seed)
    cautious = curve.success[0] + BAND_SE * curve.success_se[0]
    answers = set()
    for target in np.concatenate([cautious - 1e-4, cautious + 1e-4]):
        if not measured.prior_baseline < target < 1:
            continue
        page = page_answer(curve, float(target))
        choice = answer(metrics, Targets(attack=float(target)), attack=measured)
        assert choice.attack.epsilon == page.by_attack
        answers.add(page.by_attack)
    assert len(answers) >= 3  # the targets reach several different answers


def test_impossible_and_trivially_met_targets_are_refused_before_any_work(space, monkeypatch):
    import privlib.words.choice.epsilon_choice as study

    def no_work(*args, **kwargs):
        raise AssertionError("ran")

    monkeypatch.setattr(study, "mechanism_metrics", no_work)
    monkeypatch.setattr(study, "attack_metrics", no_work)
    settings = AttackSettings(candidates=50)  # uniform: the prior alone succeeds 2 % of the time
    cases = [(Targets(attack=0.01), ("cannot be met at any ε: guessing the most likely candidate without seeing the "
                                     "output already succeeds 2.00%")),
             (Targets(attack=0.02), "cannot be met at any ε"),
             (Targets(attack=1.0), "met at every ε"),
             (Targets(attack=0.98, attack_measure="above_prior"), "met at every ε: the prior alone gives 2.00%")]
    for targets, message in cases:
        with pytest.raises(ValueError, match=message):
            choose_epsilon(space, ["king"], GRID, ["santext"], targets=targets, attack=settings, seed=1)
    zipf = AttackSettings(candidates=50, prior="zipf")  # the most frequent word: 1/H_50 = 22.2 %
    with pytest.raises(ValueError, match="22.2"):
        choose_epsilon(space, ["king"], GRID, ["santext"], targets=Targets(attack=0.2), attack=zipf, seed=1)
    with pytest.raises(ValueError, match="only 3,000"):
        choose_epsilon(space, ["king"], GRID, ["santext"], targets=Targets(attack=0.2),
                       attack=AttackSettings(candidates=3001), seed=1)


@pytest.mark.parametrize("kwargs, message", [
    ({"attack": 0.0}, "above 0 and at most 1"), ({"attack": 1.5}, "above 0 and at most 1"),
    ({"attack": "0.2"}, "above 0 and at most 1"), ({"attack": True}, "above 0 and at most 1"),
    ({"attack": 0.2, "attack_measure": "ratio"}, "attack_measure"),
])
def test_bad_attack_targets_say_what_to_do(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Targets(**kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"candidates": 1}, "at least 2"), ({"prior": "pareto"}, "prior"), ({"samples_per_word": 0}, "at least 1"),
    ({"runs": 0}, "at least 1"),
])
def test_bad_attack_settings_say_what_to_do(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AttackSettings(**kwargs)


def synthetic_attack(success, se, eps=(1.0, 2.0, 3.0, 4.0), prior=0.01) -> AttackMetrics:
    success, se = np.asarray(success, float), np.asarray(se, float)
    return AttackMetrics("synthetic", "a synthetic mechanism", False, np.asarray(eps), AttackSettings(candidates=100),
                         prior, success, se, (success - BAND_SE * se, success + BAND_SE * se), success, 0)


def synthetic_metrics(within, kept, eps=(1.0, 2.0, 3.0, 4.0)) -> MechanismMetrics:
    """Utility and privacy metrics with given values and no error (both targets met everywhere below)."""
    eps = np.asarray(eps)
    values = {"within_k": np.asarray(within, float), "unchanged_max": np.asarray(kept, float)}
    return MechanismMetrics("synthetic", "a synthetic mechanism", {}, "none", False, eps, ("w",), "words", 100, 100,
                            values, {k: np.zeros(eps.size) for k in values}, {k: (v, v) for k, v in values.items()}, {})


def test_grid_answers_nowhere_everywhere_and_the_range():
    metrics = synthetic_metrics([0.7, 0.8, 0.9, 0.95], [0.1, 0.2, 0.3, 0.4])
    attack = synthetic_attack([0.05, 0.15, 0.3, 0.6], [0.01, 0.03, 0.04, 0.05])
    a = answer(metrics, Targets(attack=0.2), attack=attack)
    # + 2 SE: 0.07, 0.21 > 0.2, so ε = 1 (the answer); − 2 SE: 0.03, 0.09, 0.22 > 0.2, so up to ε = 2
    assert (a.attack.conservative, a.attack.epsilon, a.attack.optimistic) == (1.0, 1.0, 2.0)
    assert a.attack.interpolated == pytest.approx(1 + 0.13 / 0.14)  # 0.07 → 0.21 crosses 0.2
    assert list(a.attack_met) == [True, False, False, False]
    assert list(a.recommended) == [True, False, False, False] and list(a.surely) == [True, False, False, False]
    assert list(a.possibly) == [True, True, False, False]
    assert "holds with its +2 SE up to ε = 1" in a.message and "might hold up to ε = 2" in a.message
    assert a.attack_summary == "Attack target: largest ε that meets it = 1 (±2 SE range: ε = 1 to 2)."
    nowhere = answer(metrics, Targets(attack=0.04), attack=attack)
    assert nowhere.attack.status == "nowhere" and nowhere.attack.epsilon is None and not nowhere.feasible
    assert "holds with its +2 SE at no ε of the grid: at ε = 1 the attacker names the original 5.0%" in nowhere.message
    assert "all three targets" in nowhere.message
    assert nowhere.attack_summary == "Attack target: met at no ε of the grid (with −2 SE: up to ε = 1)."
    everywhere = answer(metrics, Targets(attack=0.71), attack=attack)  # 0.6 + 2·0.05 = 0.70
    assert everywhere.attack.status == "everywhere" and everywhere.attack.epsilon == 4.0
    assert "holds with its +2 SE at every ε of the grid" in everywhere.message
    assert answer(metrics, Targets(attack=0.69), attack=attack).attack.epsilon == 3.0
    above = answer(metrics, Targets(attack=0.21, attack_measure="above_prior"), attack=attack)
    assert above.attack.epsilon == 2.0  # 0.15 + 0.06 − 0.01 prior = 0.20 points; 0.3 + 0.08 − 0.01 = 0.37
    # a later dip under the target does not count: 0.25 at ε = 2 misses 0.2, 0.1 at ε = 3 is not an answer
    dip = answer(metrics, Targets(attack=0.2), attack=synthetic_attack([0.05, 0.25, 0.1, 0.15], [0.0] * 4))
    assert dip.attack.epsilon == 1.0 and list(dip.attack_met) == [True, False, False, False]
    with pytest.raises(ValueError, match="needs the attack"):
        answer(metrics, Targets(attack=0.2))


def test_long_attacks_are_refused_with_an_estimate_unless_allowed(space, monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0")
    with pytest.raises(ValueError, match=r"The attack would take about \d+ s \(estimate"):
        attack_metrics(space, "santext", [1.0], AttackSettings(candidates=20), close=10)
    with pytest.raises(ValueError, match="would take about"):
        choose_epsilon(space, ["king"], [1.0], ["santext"], targets=Targets(attack=0.5),
                       attack=AttackSettings(candidates=20), seed=1)
    allowed = attack_metrics(space, "santext", [1.0], AttackSettings(candidates=20), close=10, allow_long=True)
    assert allowed.success.shape == (1,)


@pytest.fixture(scope="module")
def choice(space):
    return choose_epsilon(space, ["king", "river", "paris"], GRID, ["santext", "multivariate-laplace"], samples=10,
                          close=10, targets=Targets(attack=0.1), attack=SETTINGS, seed=3)


def test_the_study_carries_the_attack_into_json_csv_and_summary(space, choice):
    d = json.loads(json.dumps(choice.to_dict(), allow_nan=False))
    assert d["targets"]["attack"] == 0.1 and d["attack"]["candidates"] == 60
    for m, attack in zip(d["mechanisms"], choice.attacks):
        assert m["attack"]["success"] == list(attack.success)
        # the one rule: measured + 2 SE (exact: the value) within the target
        assert m["answer"]["attack"]["epsilon"] == scan(attack.success + BAND_SE * attack.standard_errors, 0.1)
    assert d["mechanisms"][0]["attack"]["exact"] and not d["mechanisms"][1]["attack"]["exact"]
    rows = list(csv.DictReader(io.StringIO(choice.to_csv())))
    assert float(rows[0]["attack_success"]) == choice.attacks[0].success[0] and "attack_met" in rows[0]
    assert "somebody who sees the sanitised word names the original" in choice.summary(1)
    assert "a sampled attack" in choice.summary(1) and "(exact)" in choice.summary(0)
    again = choose_epsilon(space, ["king", "river", "paris"], GRID, ["multivariate-laplace"], samples=10, close=10,
                           targets=Targets(attack=0.1), attack=SETTINGS, seed=3)
    np.testing.assert_array_equal(again.attacks[0].success, choice.attacks[1].success)  # whatever else runs
    with pytest.raises(ValueError, match="needs the attack"):
        assemble_choice(space, choice.words, choice.results, Targets(attack=0.1))


def test_the_report_records_the_target_its_answer_and_range(choice):
    page = choice_report(choice, created="2026-01-01 12:00")
    assert "Attack target: the attacker names the original word at most 10.0% of the time" in page
    for a in choice.answers:
        assert a.attack_summary in page
        assert f"largest ε that meets it = {a.attack.epsilon:g}" in page
    assert page.count("Plotly.newPlot") == 10  # trade-off + 8 metrics + the attack
    assert "60 candidates (the most frequent words), uniform prior" in page
    charts = dict(choice_figures(choice))
    assert list(charts)[-1] == ATTACK_CHART
    names = [t.name for t in charts[ATTACK_CHART].data]
    assert "attack target" in names and "guessing from the prior alone" in names
    target = next(t for t in charts[ATTACK_CHART].data if t.name == "attack target")
    assert list(target.y) == [0.1, 0.1]
    assert "--attack-target 0.1 --attack-measure success --attack-candidates 60 --attack-prior uniform" in page
