"""Retraining with predicted hard labels: modes, guards, data flow (no clean label reaches training),
single randomisation, models and the sweep's JSON."""
from __future__ import annotations

import dataclasses
import inspect
import json
import math

import numpy as np
import pytest

from privlib.core.sweep import SweepResult, child_seed_sequence
from privlib.label_dp import models as models_module
from privlib.label_dp.datasets import digits, fig1_mixture
from privlib.label_dp.mechanisms import LP2ST, RR, RRWithPrior
from privlib.label_dp.models import (
    CentroidModel,
    KNNModel,
    LeastSquaresModel,
    LogisticModel,
    make_model,
    top_two_margin,
)
from privlib.label_dp.retraining import MODES, as_dataset, retrain, retrain_from_noisy
from privlib.label_dp.sweep import DIAGNOSTICS, METRICS, repeat_rng, retraining_sweep, sweep, sweep_run


@pytest.fixture(scope="module")
def small_digits():
    return digits()


@pytest.fixture(scope="module")
def mixture():
    return fig1_mixture(delta_sep=0.5, n=300, d=50, seed=3)


# ---------------------------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["centroid", "least_squares", "logistic", "knn"])
def test_consensus_labels_equal_noisy_labels_on_the_consensus_set(small_digits, model):
    given = RR(epsilon=1.0).release(None, small_digits.y_train, 10, 1000).labels
    out = retrain_from_noisy(small_digits.X_train, given, 10, model)
    cons = out.consensus_mask
    np.testing.assert_array_equal(cons, out.predicted_labels == given)
    np.testing.assert_array_equal(out.retraining_sets["consensus"], np.flatnonzero(cons))
    np.testing.assert_array_equal(out.predicted_labels[cons], given[cons])
    assert 0 < cons.sum() < cons.size
    # the consensus model is a fresh fit on exactly (x_j, ŷ_j), j ∈ S_cons
    fresh = make_model(model, 10).fit(small_digits.X_train[cons], given[cons])
    np.testing.assert_array_equal(out.models["consensus"].predict(small_digits.X_test), fresh.predict(small_digits.X_test))


def test_full_retraining_is_a_fresh_fit_on_predicted_labels(small_digits):
    given = RR(epsilon=2.0).release(None, small_digits.y_train, 10, 1001).labels
    out = retrain_from_noisy(small_digits.X_train, given, 10, "logistic")
    fresh = LogisticModel(10).fit(small_digits.X_train, out.predicted_labels)
    np.testing.assert_allclose(out.models["full"].predict_proba(small_digits.X_test),
                               fresh.predict_proba(small_digits.X_test), rtol=1e-12, atol=1e-14)
    assert len({id(m) for m in out.models.values()}) == len(out.models)  # a new model object per stage
    np.testing.assert_array_equal(out.retraining_sets["full"], np.arange(small_digits.n))


def test_confidence_keeps_the_top_half_by_margin_with_a_stable_sort():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((20, 2)) + np.array([[2.0, 0.0]])
    X = np.vstack([base, base, -base])  # duplicated rows: exactly tied margins
    given = (X[:, 0] > 0).astype(int)
    out = retrain_from_noisy(X, given, 2, "centroid", modes=("confidence",))
    margin = top_two_margin(CentroidModel(2).fit(X, given).predict_proba_train())
    expected = np.sort(np.argsort(-margin, kind="stable")[: X.shape[0] // 2])
    np.testing.assert_array_equal(out.retraining_sets["confidence"], expected)
    assert out.retraining_sets["confidence"].size == 30
    # among tied pairs (row j and row j + 20) the earlier index is preferred
    chosen = set(out.retraining_sets["confidence"].tolist())
    for j in range(20):
        if (j + 20) in chosen:
            assert j in chosen


def test_empty_consensus_set_falls_back_and_is_reported():
    # k-NN with two points: leave-one-out predicts the other point's label, so ỹ ≠ ŷ everywhere
    X = np.array([[0.0], [1.0]])
    out = retrain_from_noisy(X, np.array([0, 1]), 2, "knn")
    assert out.consensus_mask.sum() == 0
    assert out.models["consensus"] is out.models["baseline"]
    assert "empty" in out.fallbacks["consensus"]
    assert "single class" in out.fallbacks["confidence"]  # one point left: one class
    assert "full" not in out.fallbacks


def test_single_class_guard_for_logistic():
    X = np.random.default_rng(1).standard_normal((30, 3))
    model = LogisticModel(3).fit(X, np.full(30, 2))
    assert model.single_class
    np.testing.assert_array_equal(model.predict(X), 2)
    np.testing.assert_array_equal(model.predict_proba(X[:4]), np.tile([0.0, 0.0, 1.0], (4, 1)))
    out = retrain_from_noisy(X, np.full(30, 1), 3, "logistic")
    assert "single class" in out.fallbacks["baseline"]
    assert out.models["full"] is out.models["baseline"]


def test_fresh_unlabelled_set(mixture):
    run = retrain(mixture, RR(epsilon=math.log(1.5)), "centroid", "full", fresh_unlabelled=True, rng=4)
    assert math.isnan(run.accuracy["consensus"])
    assert "undefined" in run.fallbacks["consensus"]
    out = retrain_from_noisy(mixture.X_train, run.given_labels, 2, "centroid", X_unlabelled=mixture.X_unlabelled)
    base = out.models["baseline"]
    yu = base.predict(mixture.X_unlabelled)
    theta1 = ((2 * yu - 1) @ mixture.X_unlabelled) / mixture.X_unlabelled.shape[0]  # eq. 3
    np.testing.assert_allclose(out.models["full"].theta, theta1, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="unlabelled"):
        retrain(digits(), RR(epsilon=1.0), "logistic", fresh_unlabelled=True)


# ---------------------------------------------------------------------------------------------
# Data flow: clean training labels only through the randomiser, each label drawn once
# ---------------------------------------------------------------------------------------------

def test_pipeline_signature_takes_no_clean_labels():
    params = set(inspect.signature(retrain_from_noisy).parameters)
    assert params == {"X_train", "given_labels", "classes", "model", "modes", "X_unlabelled"}


@pytest.mark.parametrize("randomiser", [RR, LP2ST])
def test_results_do_not_depend_on_clean_training_labels_beyond_the_randomiser(small_digits, monkeypatch, randomiser):
    """Replace the samplers by functions that ignore y; then a dataset whose clean training labels
    are garbage must give the same models and test accuracies (only the diagnostics may change)."""
    rng = np.random.default_rng(5)
    fixed = rng.integers(0, 10, small_digits.n)

    def fake_rr(self, X, y, classes, rng):
        return self._released(fixed[: len(y)].copy(), classes)

    def fake_prior(self, labels, prior, rng):
        return np.argmax(prior, axis=1)  # a function of the prior only

    monkeypatch.setattr(RR, "_release", fake_rr)
    monkeypatch.setattr(RRWithPrior, "_sample", fake_prior)
    garbage = dataclasses.replace(small_digits, y_train=(small_digits.y_train * 7 + 3) % 10)
    a = retrain(small_digits, randomiser(epsilon=1.0), "logistic", rng=1000)
    b = retrain(garbage, randomiser(epsilon=1.0), "logistic", rng=1000)
    assert a.accuracy == b.accuracy
    np.testing.assert_array_equal(a.given_labels, b.given_labels)
    np.testing.assert_array_equal(a.predicted_labels, b.predicted_labels)
    assert a.given_label_accuracy != b.given_label_accuracy  # the garbage did reach the diagnostics


class CountingGenerator(np.random.Generator):
    """A Generator that counts the uniforms and integers it hands out."""

    def __init__(self, seed):
        super().__init__(seed if isinstance(seed, np.random.BitGenerator) else np.random.PCG64(seed))
        self.draws = 0

    def random(self, size=None, *args, **kwargs):
        self.draws += 1 if size is None else int(np.prod(size))
        return super().random(size, *args, **kwargs)

    def integers(self, *args, size=None, **kwargs):
        self.draws += 1 if size is None else int(np.prod(size))
        return super().integers(*args, size=size, **kwargs)


def test_each_label_randomised_once(small_digits, monkeypatch):
    calls = []
    real_rr, real_prior = RR._release, RRWithPrior._sample

    def counting_rr(self, X, y, *a):
        calls.append(("rr", len(y)))
        return real_rr(self, X, y, *a)

    def counting_prior(self, y, *a):
        calls.append(("prior", len(y)))
        return real_prior(self, y, *a)

    monkeypatch.setattr(RR, "_release", counting_rr)
    monkeypatch.setattr(RRWithPrior, "_sample", counting_prior)
    n = small_digits.n
    rng = CountingGenerator(1000)
    retrain(small_digits, RR(epsilon=1.0), "logistic", rng=rng)  # all four modes
    assert calls == [("rr", n)]
    assert rng.draws == 2 * n  # RR: one keep uniform and one shift per label, nothing more
    calls.clear()
    rng = CountingGenerator(1000)
    run = retrain(small_digits, LP2ST(epsilon=1.0), "logistic", rng=rng)
    n1 = int(run.first_half.sum())
    assert calls == [("rr", n1), ("prior", n - n1)]
    assert rng.draws == 2 * n  # RR: 2 per label on half 1; RRWithPrior: u and v per label on half 2


def test_rr_run_is_reproducible_and_matches_core_rr(small_digits):
    from privlib.core.randomised_response import RandomisedResponse

    run = retrain(small_digits, RR(epsilon=1.0), "centroid", rng=1000)
    np.testing.assert_array_equal(run.given_labels,
                                  RandomisedResponse(10, 1.0).sample(small_digits.y_train, np.random.default_rng(1000)))
    again = retrain(small_digits, RR(epsilon=1.0), "centroid", rng=1000)
    assert again.accuracy == run.accuracy


# ---------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------

def test_centroid_is_eq2_for_binary_labels():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((50, 4))
    y = rng.integers(0, 2, 50)
    model = CentroidModel(2, sigma2=2.0).fit(X, y)
    theta = ((2 * y - 1) @ X) / (2.0 * 50)
    np.testing.assert_allclose(model.theta, theta, rtol=1e-13)
    np.testing.assert_array_equal(model.predict(X), (X @ theta >= 0).astype(int))
    p = model.predict_proba(X)
    np.testing.assert_allclose(p[:, 1], 1 / (1 + np.exp(-2 * X @ theta)), rtol=1e-12)
    assert model.linear_rule()[1] == 0.0


def test_multiclass_centroid_one_vs_rest():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 5))
    y = rng.integers(0, 4, 60)
    model = CentroidModel(4).fit(X, y)
    sums = np.array([X[y == c].sum(axis=0) for c in range(4)])
    # θ̂_c = (2 Σ_{ŷ=c} x − Σ x)/n, so argmax_c ⟨x, θ̂_c⟩ = argmax_c ⟨x, Σ_{ŷ=c} x⟩
    np.testing.assert_allclose(model.coef_, (2 * sums - X.sum(axis=0)) / 60, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(model.predict(X), np.argmax(X @ sums.T, axis=1))


def test_least_squares_and_logistic_rules_agree_with_predict():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((80, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(80) > 0).astype(int)
    for model in (LeastSquaresModel(2).fit(X, y), LogisticModel(2).fit(X, y)):
        theta, b = model.linear_rule()
        np.testing.assert_array_equal(model.predict(X), (X @ theta + b > 0).astype(int))


def test_logistic_hyper_parameters():
    model = LogisticModel(3).fit(np.random.default_rng(0).standard_normal((30, 2)), np.arange(30) % 3)
    params = model.estimator.get_params()
    assert (params["C"], params["solver"], params["max_iter"]) == (0.1, "lbfgs", 2000)


def test_predict_proba_covers_all_classes():
    X = np.random.default_rng(1).standard_normal((40, 2))
    y = np.where(X[:, 0] > 0, 3, 1)  # classes 0, 2, 4 absent
    for name in models_module.MODELS:
        p = make_model(name, 5).fit(X, y).predict_proba(X)
        assert p.shape == (40, 5)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
        if name in ("logistic", "knn"):
            assert np.all(p[:, [0, 2, 4]] == 0)


def test_knn_predictions_on_training_points_are_leave_one_out():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((60, 2))
    y = rng.integers(0, 3, 60)
    model = KNNModel(3, k=1).fit(X, y)
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    np.testing.assert_array_equal(model.predict_train(), y[np.argmin(d, axis=1)])
    # without leave-one-out, k = 1 would reproduce every given label (consensus = everything)
    assert np.all(model.predict(X) == y)
    assert np.mean(model.predict_train() == y) < 0.7
    # k = 10, brute-force votes, ties to the smallest class
    model = KNNModel(3).fit(X, y)
    nearest = np.argsort(d, axis=1, kind="stable")[:, :10]
    votes = np.stack([(y[nearest] == c).sum(1) for c in range(3)], axis=1)
    np.testing.assert_array_equal(model.predict_train(), np.argmax(votes, axis=1))


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="model"):
        make_model("tree", 2)
    with pytest.raises(ValueError, match="mode"):
        retrain_from_noisy(np.zeros((2, 1)), [0, 1], 2, "centroid", modes=("half",))
    with pytest.raises(ValueError, match="randomiser"):
        retrain(digits(), "rr", "centroid")
    with pytest.raises(ValueError, match="pate"):
        retraining_sweep(digits(), "pate", [1.0])
    assert make_model("logreg", 3).name == "logistic"


# ---------------------------------------------------------------------------------------------
# Sweep
# ---------------------------------------------------------------------------------------------

def test_sweep_result_progress_json_and_determinism(small_digits):
    ticks = []
    result = retraining_sweep(small_digits, "rr", [0.5, 2.0], repeats=3, seed=1000, model="centroid",
                   progress=lambda fraction, message: ticks.append((fraction, message)))
    assert [f for f, _ in ticks] == pytest.approx([i / 6 for i in range(1, 7)])
    assert ticks[-1][1] == "rr, ε = 2, repetition 3 of 3"
    assert isinstance(result.result, SweepResult) and result.result.metrics == METRICS
    assert result.result.values.shape == (1, 2, 3, len(METRICS)) and result.modes == MODES
    for mode in MODES:
        assert result.per_repeat(mode).shape == (2, 3)
    np.testing.assert_allclose(result.keep_probability, np.exp([0.5, 2.0]) / (np.exp([0.5, 2.0]) + 9), rtol=1e-12)
    again = retraining_sweep(small_digits, "rr", [0.5, 2.0], repeats=3, seed=1000, model="centroid")
    np.testing.assert_array_equal(result.result.values, again.result.values)
    # each cell is the single run that draws from the stream (seed, r, randomiser), the same at every ε
    run = retrain(small_digits, RR(epsilon=2.0), "centroid", rng=repeat_rng(1000, 2, "rr"))
    assert result.per_repeat("consensus")[1, 2] == run.accuracy["consensus"]
    assert result.per_repeat("given_label_accuracy")[1, 2] == run.given_label_accuracy
    assert sweep_run(small_digits, "rr", 2.0, seed=1000, repeat=2, model="centroid").accuracy == run.accuracy
    one = retraining_sweep(small_digits, "rr", 1.0, repeats=2, seed=1000, model="centroid").to_dict()
    for key in ("epsilon", *MODES, *DIAGNOSTICS, "nonprivate", "keep_probability", "fallbacks"):
        assert key in one
    assert (one["seed"], one["repeats"], one["baseline_method"]) == (1000, 2, "rr")
    assert set(one["consensus"]) == {"mean", "sd", "per_seed"}
    assert one["consensus"]["mean"] == pytest.approx(np.mean(one["consensus"]["per_seed"]), rel=1e-12)
    assert one["consensus"]["sd"] == pytest.approx(np.std(one["consensus"]["per_seed"], ddof=1), rel=1e-12)
    many = result.to_dict()
    assert many["epsilons"] == [0.5, 2.0] and len(many["results"]) == 2
    import json

    json.dumps(many)
    json.loads(result.result.to_json())


def test_adjacent_seeds_do_not_share_streams(small_digits):
    """Under ``seed + r`` the base seeds 1000 and 1001 shared repetitions 1 and 0 (the same released
    labels); now no repetition of one sweep repeats a repetition of the other."""
    def labels(seed, repeat):
        return sweep_run(small_digits, "rr", 1.0, seed=seed, repeat=repeat, model="centroid").given_labels

    for r, q in ((1, 0), (2, 1), (0, 0)):
        assert not np.array_equal(labels(1000, r), labels(1001, q))
    np.testing.assert_array_equal(labels(1000, 1), labels(1000, 1))


def test_sweep_of_two_randomisers_keeps_each_cells_stream(small_digits):
    both = retraining_sweep(small_digits, ["rr", LP2ST], [1.0], repeats=2, seed=5, model="centroid")
    assert both.randomisers == ("rr", "lp2st")
    alone = retraining_sweep(small_digits, "lp2st", [1.0], repeats=2, seed=5, model="centroid")
    np.testing.assert_array_equal(both.per_repeat("full", "lp2st"), alone.per_repeat("full"))
    assert both.to_dict("lp2st")["baseline_method"] == "lp2st"


def test_sweep_redraws_synthetic_data(mixture):
    result = retraining_sweep(mixture, "rr", [1.0], repeats=3, seed=0, model="centroid")
    assert result.data_seeds[0] == 3  # repetition 0: the data as given (seed 3); then one stream per repetition
    assert result.data_seeds[1:] == tuple(int(child_seed_sequence(3, "data", r).generate_state(1)[0]) for r in (1, 2))
    # datasets of adjacent seeds share no draw (under seed + r, seed 3's repetition 1 was seed 4's repetition 0)
    other = retraining_sweep(fig1_mixture(delta_sep=0.5, n=300, d=50, seed=4), "rr", [1.0], repeats=3, seed=0, model="centroid")
    assert not set(result.nonprivate.tolist()) & set(other.nonprivate.tolist())
    assert result.evaluation == "population (closed form)"
    assert len(set(result.nonprivate.tolist())) == 3
    fixed = retraining_sweep(mixture, "rr", [1.0], repeats=3, seed=0, model="centroid", redraw_data=False)
    assert fixed.data_seeds is None and len(set(fixed.nonprivate.tolist())) == 1


def test_fresh_unlabelled_sweep_has_no_consensus(mixture):
    result = retraining_sweep(mixture, "rr", [1.0, 2.0], repeats=2, seed=0, model="centroid", fresh_unlabelled=True)
    assert not result.defined("consensus") and result.defined("full")
    np.testing.assert_array_equal(result.fallbacks("consensus"), [2, 2])


def test_estimate_counts_the_fits():
    data = fig1_mixture(delta_sep=0.5, n=100, d=5, seed=0)
    # RR: baseline + 3 refits per run; LP-2ST one more (M1); synthetic data: one non-private fit per repetition
    assert sweep_estimate(data, "rr", [1, 2], 3) == (2 * 3 * 4 + 3) * 0.5
    assert sweep_estimate(data, ["rr", "lp2st"], [1], 2, modes=("baseline", "full")) == ((2 + 3) * 2 + 2) * 0.5
    assert sweep_estimate(digits(), "rr", [1], 4) == (4 * 4 + 1) * 0.5  # real data: one non-private fit


def sweep_estimate(data, randomisers, epsilons, repeats, **kw):
    from privlib.label_dp.sweep import estimate_seconds

    return estimate_seconds(data, randomisers, epsilons, repeats, per_fit=0.5, **kw)


def test_gain_grid_matches_the_sweeps():
    from privlib.label_dp.sweep import gain_grid

    ticks = []
    grid = gain_grid([0.2, 0.5], [0.5, 2.0], model="centroid", mode="full", repeats=3, n=100, d=5,
                     progress=lambda fraction, message: ticks.append(fraction))
    assert grid.mean_gain.shape == (2, 2) and ticks[-1] == pytest.approx(1.0) and ticks == sorted(ticks)
    result = retraining_sweep(fig1_mixture(delta_sep=0.5, n=100, d=5, seed=0), "rr", [0.5, 2.0], repeats=3, seed=0,
                   model="centroid", modes=("baseline", "full"))
    np.testing.assert_allclose(grid.mean_gain[1], result.gain("full").mean(axis=1), rtol=1e-12)


def test_a_dataset_can_be_given_by_name():
    """Every entry point accepts a dataset's name for its default parameters (or the dataset itself)."""
    assert as_dataset("fig1").name == "fig1" and as_dataset("digits").classes == 10
    assert as_dataset(small := as_dataset("twopoint")) is small
    with pytest.raises(ValueError, match="LabelDataset or a dataset name"):
        as_dataset(3)


def test_the_sweep_is_one_sweep_result_and_its_label_reading_keeps_the_diagnostics(small_digits):
    """`sweep` gives the core SweepResult (strict JSON, the settings a reader needs); `RetrainingSweep.of`
    reads it by mode with the keep probability e^ε/(e^ε + C − 1) and the per-repetition non-private
    accuracy."""
    from privlib.core.sweep import SweepResult
    from privlib.label_dp.sweep import RetrainingSweep

    result = sweep(small_digits, "rr", [0.5, 2.0], repeats=2, seed=3, model="centroid")
    assert isinstance(result, SweepResult) and result.mechanisms == ("rr",) and result.repeats == 2
    json.loads(result.to_json())
    view = RetrainingSweep.of(result)
    C = small_digits.classes
    assert view.keep_probability == pytest.approx([math.exp(e) / (math.exp(e) + C - 1) for e in (0.5, 2.0)])
    assert view.nonprivate.shape == (2,) and np.mean(view.nonprivate) == pytest.approx(result.reference["nonprivate"])
    assert np.array_equal(view.mean("baseline"), result.mean("rr", "accuracy_baseline"), equal_nan=True)
