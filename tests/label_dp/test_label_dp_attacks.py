"""What an attacker learns about a training label (privlib.label_dp.attacks), spec §1–§3 "Label DP".

(a) the noisy label: each randomiser's law against the mechanisms' own probabilities, the exact Bayes
success against brute-force enumeration of every decision rule and against the mechanisms' real
releases (within 4 SE), under the §2 class-prior bound, RR and RRWithPrior attaining it, binary RR's
exact curve equal to f_{ε,0} and C-ary RR's with slopes e^ε, 1, e^{−ε}. (b)/(c) the models: under the
s_ref bound at 4 SE, the reference examples unbiased where the example's own label cannot matter
(k-NN's leave-one-out prediction) and a real gap where the model memorises it, the standard errors,
the conservative upper limit, the refusal of long work and progress. The ε answer for a target
against its closed form. Fixed seeds throughout."""
import itertools
import math

import numpy as np
import pytest

from privlib.core.randomised_response import RandomisedResponse
from privlib.core.risk import DPCurve, largest_epsilon_under, reidentification_bound
from privlib.core.statistics import clopper_pearson_upper
from privlib.label_dp import attacks
from privlib.label_dp.datasets import load_dataset
from privlib.label_dp.mechanisms import RR, RRWithPrior, rr_with_prior_probabilities


def brute_force_success(law: np.ndarray, prior: np.ndarray) -> float:
    """The best success over every deterministic guess g: outputs → labels (C^C rules), by enumeration:
    Σ_y π_y Σ_o P(o | y) 1[g(o) = y]. Independent of `bayes_success`'s argmax."""
    C = law.shape[0]
    best = 0.0
    for rule in itertools.product(range(C), repeat=C):
        best = max(best, sum(prior[y] * law[y, o] for o, y in enumerate(rule)))
    return best


def random_prior(rng, C):
    prior = rng.dirichlet(np.full(C, rng.choice([0.3, 1.0, 5.0])))
    if rng.random() < 0.2:
        prior[rng.integers(C)] = 0.0
        prior /= prior.sum()
    return prior


# ---------------------------------------------------------------------------------------------
# (a) the noisy label


@pytest.mark.parametrize("C", [2, 3, 5, 10])
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0, 4.0])
def test_rr_law_is_the_mechanisms(C, epsilon):
    law = attacks.output_law("rr", C, epsilon)
    rr = RandomisedResponse(C, epsilon)
    for y in range(C):
        assert law[y] == pytest.approx(rr.probabilities(y), abs=1e-15)


def test_rr_with_prior_law_is_the_mechanisms_for_any_prior():
    rng = np.random.default_rng(1)
    for _ in range(200):
        C = int(rng.integers(2, 7))
        prior, epsilon = random_prior(rng, C), float(rng.choice([0.0, 0.05, 0.5, 1.0, 3.0, 12.0]))
        law = attacks.output_law("rr-prior", C, epsilon, prior)
        expected = np.array([rr_with_prior_probabilities(y, prior, epsilon) for y in range(C)])
        assert law == pytest.approx(expected, abs=1e-15)
    priors = rng.dirichlet(np.ones(4), size=30)  # one prior per row (LP-2ST) gives the same rows
    stacked = attacks.rr_with_prior_law(priors, 0.7)
    for row, prior in zip(stacked, priors):
        assert row == pytest.approx(attacks.rr_with_prior_law(prior, 0.7), abs=0)


def test_bayes_success_equals_brute_force_enumeration():
    rng = np.random.default_rng(2)
    for _ in range(60):
        C = int(rng.integers(2, 5))
        prior = random_prior(rng, C)
        law = rng.dirichlet(np.ones(C), size=C)  # any channel, not only the randomisers'
        assert attacks.bayes_success(law, prior) == pytest.approx(brute_force_success(law, prior), abs=1e-12)
        for name in ("rr", "rr-prior"):
            epsilon = float(rng.choice([0.2, 1.0, 3.0]))
            law = attacks.output_law(name, C, epsilon, prior if name == "rr-prior" else None)
            assert attacks.bayes_success(law, prior) == pytest.approx(brute_force_success(law, prior), abs=1e-12)


@pytest.mark.parametrize("name, prior, epsilon", [
    ("rr", (0.5, 0.3, 0.2), 1.0), ("rr", (0.25,) * 4, 0.5), ("rr-prior", (0.5, 0.3, 0.2), 1.0),
    ("rr-prior", (0.6, 0.25, 0.1, 0.05), 2.0)])
def test_the_exact_success_is_what_the_real_releases_achieve(name, prior, epsilon):
    """The mechanism itself releases the labels (drawn from the prior); the Bayes guess is scored on them."""
    prior = np.asarray(prior)
    C, n = prior.size, 200_000
    rng = np.random.default_rng(3)
    truth = rng.choice(C, size=n, p=prior)
    mechanism = RR(epsilon=epsilon) if name == "rr" else RRWithPrior(epsilon=epsilon, prior=prior)
    released = mechanism.release(None, truth, C, rng).labels
    law = attacks.output_law(name, C, epsilon, prior if name == "rr-prior" else None)
    hit = np.mean(attacks.bayes_guess(law, prior)[released] == truth)
    exact = attacks.bayes_success(law, prior)
    assert abs(hit - exact) < 4 * math.sqrt(exact * (1 - exact) / n)


def test_the_noisy_label_attack_stays_under_the_class_prior_bound():
    rng = np.random.default_rng(4)
    for _ in range(200):
        C = int(rng.integers(2, 11))
        prior, epsilon = random_prior(rng, C), float(rng.choice([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0]))
        for name in ("rr", "rr-prior"):
            attack = attacks.noisy_label_attack(name, epsilon, prior, randomiser_prior=random_prior(rng, C))
            assert attack.bound == pytest.approx(reidentification_bound(prior, epsilon), rel=1e-12)
            assert attack.prior_baseline - 1e-12 <= attack.success <= attack.bound + 1e-12


def test_rr_attains_its_bound_for_a_uniform_prior_and_binary_rr_for_any_prior():
    for C in (2, 3, 10):
        for epsilon in (0.0, 0.5, 1.0, 3.0):
            attack = attacks.noisy_label_attack("rr", epsilon, np.full(C, 1 / C))
            assert attack.success == pytest.approx(math.exp(epsilon) / (math.exp(epsilon) + C - 1), rel=1e-12)
            assert attack.success == pytest.approx(attack.bound, rel=1e-12)
    for p in (0.5, 0.6, 0.8, 0.95):
        for epsilon in (0.2, 1.0, 3.0):
            attack = attacks.noisy_label_attack("rr", epsilon, [p, 1 - p])
            assert attack.success == pytest.approx(attack.bound, rel=1e-12)
    # C-ary RR with a skewed prior: always trusting the label gives keep = e/(e + 2) = 0.576, under the
    # bound 0.585, which needs RRWithPrior
    skewed = attacks.noisy_label_attack("rr", 1.0, [0.5, 0.3, 0.2])
    assert skewed.success == pytest.approx(math.e / (math.e + 2), rel=1e-12) and skewed.bound - skewed.success > 0.008


def test_rr_with_the_class_prior_attains_the_bound():
    attack = attacks.noisy_label_attack("rr-prior", 1.0, [0.5, 0.3, 0.2], randomiser_prior=[0.5, 0.3, 0.2])
    assert attack.success == pytest.approx(0.585, abs=5e-4)  # the spec's example
    assert attack.success == pytest.approx(attack.bound, rel=1e-12)
    rng = np.random.default_rng(5)
    for _ in range(100):
        C = int(rng.integers(2, 9))
        prior, epsilon = random_prior(rng, C), float(rng.choice([0.1, 1.0, 2.5, 6.0]))
        attack = attacks.noisy_label_attack("rr-prior", epsilon, prior, randomiser_prior=prior)
        assert attack.success == pytest.approx(attack.bound, rel=1e-10)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 2.0, 5.0])
def test_binary_rr_s_exact_curve_is_the_guarantee_s(epsilon):
    attack = attacks.noisy_label_attack("rr", epsilon, [0.5, 0.5])
    alpha = np.linspace(0, 1, 1001)
    assert attack.curve.fnr(alpha) == pytest.approx(DPCurve(epsilon).fnr(alpha), abs=1e-12)


def test_c_ary_rr_s_exact_curve_has_slopes_e_eps_1_e_minus_eps():
    attack = attacks.noisy_label_attack("rr", 1.0, np.full(10, 0.1))
    curve = attack.curve
    assert curve.advantage == pytest.approx((math.e - 1) / (math.e + 9), rel=1e-12)
    assert round(curve.advantage, 3) == 0.147 and round(attack.guarantee_curve.advantage, 3) == 0.462
    alpha, beta = curve.vertices
    slopes = np.diff(beta) / np.diff(alpha)
    slopes = slopes[np.isfinite(slopes)]
    assert np.unique(np.round(slopes, 12)).tolist() == pytest.approx([-math.e, -1.0, -1 / math.e], rel=1e-9)
    grid = np.linspace(0, 1, 501)
    assert np.all(curve.fnr(grid) >= DPCurve(1.0).fnr(grid) - 1e-12)  # above f_{ε,0}: not tight


def test_lp2st_success_is_the_examples_exact_success_and_under_the_bound():
    data = load_dataset("digits", classes=3)  # the same data as test_the_measured_success_stays_under_the_bound
    prior = attacks.class_prior(data)
    assert prior.sum() == pytest.approx(1.0) and prior.size == 3
    for epsilon in (0.5, 2.0):
        laws = attacks.lp2st_laws(data, epsilon, seed=3, model="centroid")
        assert laws.shape == (data.n, 3, 3) and np.allclose(laws.sum(axis=-1), 1.0)
        attack = attacks.noisy_label_attack("lp2st", epsilon, prior, data=data, seed=3, model="centroid")
        per_example = [brute_force_success(law, prior) for law in laws[:40]]
        assert attacks.bayes_success(laws[:40], prior) == pytest.approx(per_example, abs=1e-12)
        assert attack.success == pytest.approx(np.mean(attacks.bayes_success(laws, prior)), rel=1e-12)
        assert attack.success <= attack.bound + 1e-12 and attack.curve is None


def test_the_noisy_label_sentence_says_the_numbers():
    attack = attacks.noisy_label_attack("rr", 2.0, [0.5, 0.5])
    sentence = attacks.noisy_label_sentence(attack)
    assert sentence.startswith("At ε = 2, somebody who sees a training example's randomised label")
    assert f"{100 * attack.success:.1f} %" in sentence and "gets 50.0 %" in sentence
    assert f"at most {100 * attack.bound:.1f} %" in sentence


@pytest.mark.parametrize("call, words", [
    (lambda: attacks.output_law("lp2st", 3, 1.0), "depends on the example"),
    (lambda: attacks.output_law("nope", 3, 1.0), "Unknown label randomiser"),
    (lambda: attacks.noisy_label_attack("rr", -1, [0.5, 0.5]), "epsilon"),
    (lambda: attacks.noisy_label_attack("rr", 1, [1.0]), "prior"),
    (lambda: attacks.noisy_label_attack("lp2st", 1, [0.5, 0.5]), "data="),
    (lambda: attacks.bayes_success([[0.5, 0.6], [0.5, 0.5]], [0.5, 0.5]), "probability vector"),
])
def test_bad_input_is_a_value_error_saying_what_to_do(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# ---------------------------------------------------------------------------------------------
# (b), (c) the models


@pytest.fixture(scope="module")
def memorising():
    """The centroid in d = 50 with n = 100: a training point's own label moves the model at it."""
    data = load_dataset("fig1", delta_sep=0.3, n=100, d=50)
    return attacks.model_attack(data, "rr", [0.5, 2.0, 8.0], repeats=30, seed=7, model="centroid",
                                modes=("baseline", "full"))


def _se(result, mode):
    return np.hypot(result.standard_error(mode), result.reference_standard_error(mode))


def test_the_measured_success_stays_under_the_bound(memorising):
    for mode in memorising.modes:
        assert np.all(memorising.success(mode) <= memorising.bound(mode) + 4 * memorising.standard_error(mode))
    data = load_dataset("digits", classes=3)
    result = attacks.model_attack(data, "rr", [0.5, 1.0, 3.0], repeats=2, seed=2, model="logistic",
                                  modes=("baseline", "consensus"))
    for mode in result.modes:
        assert np.all(result.success(mode) <= result.bound(mode) + 4 * result.standard_error(mode))


def test_the_reference_examples_measure_a_label_that_did_not_go_in(memorising):
    """Where the model memorises the example's own label, the training points are named far more often
    than the reference examples: s_ref is scored against the true labels of examples whose own noisy
    label was independent of them (scoring them against labels that went in would close this gap)."""
    gap = memorising.success("baseline") - memorising.reference("baseline")
    assert gap[-1] > 4 * _se(memorising, "baseline")[-1]
    assert np.all(memorising.success("baseline") <= memorising.bound("baseline") + 4 * _se(memorising, "baseline"))


def test_s_ref_is_unbiased_where_the_own_label_cannot_matter():
    """k-NN predicts a training point from its neighbours without its own label (leave-one-out): the
    attacked and the reference examples are exchangeable, so success and s_ref agree within 4 SE."""
    data = load_dataset("fig1", delta_sep=0.3, n=200, d=5)
    result = attacks.model_attack(data, "rr", [1.0], repeats=15, seed=11, model="knn", modes=("baseline",))
    assert np.all(np.abs(result.success() - result.reference()) <= 4 * _se(result, "baseline"))


def test_standard_errors_upper_limit_and_bound_follow_their_formulas(memorising):
    single = attacks.model_attack(load_dataset("fig1", n=100, d=5), "rr", [1.0], repeats=1, seed=0,
                                  model="centroid", modes=("baseline",))
    p, trials = single.success()[0], single.trials.sum()
    assert trials == 100 - attacks.reference_count(100) == 90 and single.reference_trials.sum() == 10
    assert single.standard_error()[0] == pytest.approx(math.sqrt(p * (1 - p) / trials), rel=1e-12)
    for mode in memorising.modes:
        p, se = memorising.reference(mode), memorising.reference_standard_error(mode)
        hits = memorising.reference_hits[mode].sum(axis=1)
        total = memorising.reference_trials.sum()
        assert np.all(se >= np.sqrt(p * (1 - p) / total) - 1e-15)
        upper = memorising.reference_upper(mode)
        assert np.all(upper >= clopper_pearson_upper(hits, np.full(hits.shape, total), attacks.CONFIDENCE) - 1e-15)
        assert np.all(upper >= np.minimum(1.0, p + 2 * se) - 1e-15)
        eps = memorising.epsilons
        closed = np.minimum(np.minimum(1.0, np.exp(eps) * upper), 1 - np.exp(-eps) * (1 - upper))
        assert memorising.bound(mode) == pytest.approx(closed, abs=1e-12)
        fpr, tpr = memorising.roc(2.0, mode)
        assert fpr[1] == p[1] and tpr[1] == memorising.success(mode)[1]


def test_the_same_seed_gives_the_same_numbers_and_the_sentence_says_them():
    data = load_dataset("fig1", n=60, d=5)
    first = attacks.model_attack(data, "lp2st", [1.0, 2.0], repeats=2, seed=4, model="centroid")
    again = attacks.model_attack(data, "lp2st", [1.0, 2.0], repeats=2, seed=4, model="centroid")
    other = attacks.model_attack(data, "lp2st", [1.0, 2.0], repeats=2, seed=5, model="centroid")
    assert first.to_dict() == again.to_dict() and first.to_dict() != other.to_dict()
    sentence = attacks.model_attack_sentence(first, 2.0, "consensus")
    assert sentence.startswith("At ε = 2, somebody who sees the consensus-retrained model's prediction")
    assert f"{100 * first.success('consensus')[1]:.1f} %" in sentence
    assert f"at most {100 * first.bound('consensus')[1]:.1f} %" in sentence


def test_consensus_on_a_fresh_unlabelled_set_is_undefined_not_a_number():
    data = load_dataset("fig1", n=60, d=5)
    result = attacks.model_attack(data, "rr", [1.0], repeats=1, seed=0, model="centroid",
                                  modes=("baseline", "consensus"), fresh_unlabelled=True)
    assert result.defined("baseline") and not result.defined("consensus")
    assert result.to_dict()["attacks"]["consensus"]["success"] == [None]
    assert "undefined" in attacks.model_attack_sentence(result, 1.0, "consensus")


def test_long_work_is_refused_unless_allowed_and_progress_is_reported(monkeypatch):
    data = load_dataset("fig1", n=60, d=5)
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0")
    with pytest.raises(ValueError, match="allow_long=True"):
        attacks.model_attack(data, "rr", [1.0, 2.0], repeats=2, seed=0, model="centroid")
    seen = []
    attacks.model_attack(data, "rr", [1.0, 2.0], repeats=2, seed=0, model="centroid", allow_long=True,
                         progress=lambda fraction, message: seen.append((fraction, message)))
    assert [f for f, _ in seen] == [0.25, 0.5, 0.75, 1.0] and "ε = 2" in seen[1][1]
    assert attacks.model_attack_seconds(data, "rr", [1.0, 2.0], 2, model="centroid", per_fit=0.5, per_run=1.0) > 4.0


@pytest.mark.parametrize("options, words", [
    ({"randomiser": "nope"}, "Unknown label randomiser"),
    ({"epsilons": []}, "epsilons"),
    ({"reference_fraction": 1.0}, "reference_fraction"),
    ({"modes": ("sideways",)}, "retraining mode"),
    ({"repeats": 0}, "repeats"),
    ({"model": "forest"}, "Unknown model"),
])
def test_bad_model_attack_input_is_a_value_error(options, words):
    arguments = {"randomiser": "rr", "epsilons": [1.0], "repeats": 1, "seed": 0, "model": "centroid", **options}
    data = load_dataset("fig1", n=40, d=3)
    with pytest.raises(ValueError, match=words):
        attacks.model_attack(data, arguments.pop("randomiser"), arguments.pop("epsilons"), **arguments)


# ---------------------------------------------------------------------------------------------
# choosing ε for a target


@pytest.mark.parametrize("C, target", [(2, 0.75), (2, 0.6), (10, 0.3), (10, 0.5)])
def test_the_largest_epsilon_under_a_target_matches_the_closed_form(C, target):
    """Uniform prior: e^ε/(e^ε + C − 1) ≤ T exactly when ε ≤ ln(T(C − 1)/(1 − T))."""
    grid = np.round(np.arange(0.05, 8.0, 0.05), 10)
    bounds = [attacks.noisy_label_attack("rr", e, np.full(C, 1 / C)).bound for e in grid]
    answer = largest_epsilon_under(target, grid, bounds)
    exact = math.log(target * (C - 1) / (1 - target))
    assert answer <= exact and answer > exact - 0.05


def test_the_target_sentence_says_the_answer_or_that_there_is_none():
    assert attacks.target_sentence(0.6, 2.0, "the attacker", "by the bound") == (
        "The largest ε of the grid that keeps the attacker under 60.0 % is 2 (by the bound).")
    assert attacks.target_sentence(0.6, None, "the attacker", "measured") == (
        "No ε of the grid keeps the attacker under 60.0 % (measured).")
