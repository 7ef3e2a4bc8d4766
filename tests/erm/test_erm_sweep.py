"""Private-ERM sweeps: shared data per trial, the seeding convention, keyed noise, invalid cells,
excess risk, progress, JSON/CSV output, the ε sweep, the inflation trade-off and the inside view."""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from privlib.erm.datasets import census2000, synthetic_regression
from privlib.erm.losses import make_loss
from privlib.erm.mechanisms import fit
from privlib.erm.sweep import (
    DEFAULT_NS,
    ErmSweep,
    epsilon_sweep,
    erm_sweep,
    inflation_tradeoff,
    inside_view,
    noise_generator,
)

SQUARED = make_loss("squared")


@pytest.fixture(scope="module")
def small_sweep():
    calls = []
    sweep = erm_sweep(ns=(300, 2000), trials=3, progress=lambda f, msg: calls.append((f, msg)))
    return sweep, calls


def test_default_grid():
    assert DEFAULT_NS == (300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000)


def test_sweep_shape_progress_and_invalid_cells(small_sweep):
    sweep, calls = small_sweep
    assert isinstance(sweep, ErmSweep) and sweep.axis == "n" and sweep.metric == "rmse"
    np.testing.assert_array_equal(sweep.values, [300, 2000])
    assert sweep.methods == ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic")
    for m in sweep.methods:
        assert sweep.mean[m].shape == sweep.sd[m].shape == sweep.excess_risk_mean[m].shape == (2,)
    assert not sweep.valid["input_safe"][0] and math.isnan(sweep.mean["input_safe"][0])  # n = 300 < 410
    assert sweep.valid["input_safe"][1] and sweep.valid["input_asymptotic"].all()
    fractions = [f for f, _ in calls]
    assert len(calls) == 6 and fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert "n = 2,000" in calls[-1][1]


def test_seed_zero_reproduces_the_reference_data_seed(small_sweep):
    """Trial t at size n uses data seed 1000·n + t; non-private is ŵ on that draw."""
    sweep, _ = small_sweep
    n = 2000
    rmse, excess = [], []
    for t in range(3):
        data = synthetic_regression(n, seed=1000 * n + t)
        sums = SQUARED.sums(data.X_train, data.y_train)
        w_hat = fit("non_private", sums, SQUARED, 1.0, 1e-6).w
        rmse.append(math.sqrt(np.mean((data.X_test @ w_hat - data.y_test) ** 2)))
        w = fit("obj_gauss", sums, SQUARED, 1.0, 1e-6, noise_generator(0, n, t, "obj_gauss", 1.0)).w
        excess.append(sums.risk(w) - sums.risk(w_hat))
    assert sweep.mean["non_private"][1] == pytest.approx(np.mean(rmse), rel=1e-10)
    assert sweep.excess_risk_mean["obj_gauss"][1] == pytest.approx(np.mean(excess), rel=1e-6)
    assert sweep.excess_risk_mean["non_private"][1] == 0.0


def test_excess_risk_is_non_negative_and_noise_is_keyed(small_sweep):
    sweep, _ = small_sweep
    for m in sweep.methods:
        per_trial = sweep.values_per_trial["excess_risk"][m]
        assert np.all(per_trial[np.isfinite(per_trial)] >= -1e-12)
    alone = erm_sweep(ns=(300, 2000), trials=3, methods=("obj_gauss",))
    np.testing.assert_array_equal(alone.mean["obj_gauss"], sweep.mean["obj_gauss"])  # the others do not matter
    again = erm_sweep(ns=(300, 2000), trials=3)
    for m in sweep.methods:
        np.testing.assert_array_equal(again.mean[m], sweep.mean[m])
    other_seed = erm_sweep(ns=(2000,), trials=3, seed=1, methods=("non_private",))
    assert other_seed.mean["non_private"][0] != sweep.mean["non_private"][1]


def test_to_dict_and_csv(small_sweep):
    sweep, _ = small_sweep
    payload = sweep.to_dict()
    text = json.dumps(payload, allow_nan=False)
    assert '"rmse_mean"' in text
    cell = payload["points"][0]["methods"]["input_safe"]
    assert payload["points"][0]["n"] == 300 and cell["rmse_mean"] is None and cell["valid"] is False
    assert set(payload["points"][1]["methods"]["obj_gauss"]) == {"rmse_mean", "rmse_sd", "excess_risk_mean",
                                                                  "excess_risk_sd", "valid"}
    rows = list(csv.reader(io.StringIO(sweep.to_csv())))
    assert rows[0][:5] == ["n", "method", "label", "rmse_mean", "rmse_sd"]
    assert len(rows) == 1 + 2 * len(sweep.methods)


def test_classification_and_census_sweeps():
    sweep = erm_sweep(ns=(1000,), trials=2, task="classification", methods=("non_private", "obj_gauss"))
    assert sweep.metric == "accuracy" and 0.5 < sweep.mean["non_private"][0] <= 1.0
    census = erm_sweep("census2000", ns=(500, 2000), trials=2, methods=("non_private", "input_safe"))
    assert census.d == 4 and census.valid["input_safe"].all()
    full = census2000(seed=0)
    w = fit("non_private", SQUARED.sums(full.X_train[:500], full.y_train[:500]), SQUARED, 1.0, 1e-6).w
    first = math.sqrt(np.mean((full.X_test @ w - full.y_test) ** 2))
    assert census.values_per_trial["metric"]["non_private"][0, 0] == pytest.approx(first)


def test_epsilon_sweep_on_diabetes():
    sweep = epsilon_sweep("diabetes", epsilons=(1.0, 10.0), trials=3, methods=("non_private", "input_safe", "output"))
    assert sweep.axis == "epsilon" and sweep.n == 354 and sweep.d == 11 and math.isnan(sweep.epsilon)
    assert not sweep.valid["input_safe"][0] and sweep.valid["input_safe"][1]  # needs ε > 1.16 at n = 354
    assert sweep.mean["non_private"][0] == sweep.mean["non_private"][1]  # ŵ once per trial
    assert json.dumps(sweep.to_dict(), allow_nan=False)
    with pytest.raises(ValueError, match="at most 354"):
        epsilon_sweep("diabetes", n=400, trials=1)


def test_inflation_tradeoff_moves_both_meters():
    trade = inflation_tradeoff("synthetic", 10_000, 1.0, 1e-6, inflations=(1.0, 10.0, 100.0), trials=3)
    assert np.all(np.diff(trade.epsilon_L) < 0) and np.all(np.diff(trade.epsilon_model) < 0)
    assert trade.epsilon_model[0] <= 1.0 and trade.valid.all()
    assert trade.mean[-1] > trade.mean[0] > trade.non_private_mean  # more noise, less accuracy
    assert json.dumps(trade.to_dict(), allow_nan=False)


def test_inside_view():
    view = inside_view(200, epsilon=1.0, delta=1e-6, n=10_000, seed=3)
    assert view.valid and view.a.shape == view.a_tilde.shape == (200, 10)
    assert view.calibration.n == 10_000  # calibrated for the agreed n
    assert np.std(view.a_tilde - view.a) == pytest.approx(view.calibration.sigma_a, rel=0.05)
    assert np.std(view.b_tilde - view.b) == pytest.approx(view.calibration.sigma_b, rel=0.05)
    payload = view.to_dict()
    assert len(payload["a_tilde"]) == 200 and payload["calibration"]["valid"]
    bad = inside_view(50, n=300)
    assert not bad.valid and bad.a_tilde is None and "410" in bad.reason
    assert json.dumps(bad.to_dict(), allow_nan=False)
    assert inside_view(20, dataset="diabetes", n=354, epsilon=4.0, delta=1e-5).a.shape == (20, 11)


def test_argument_errors():
    with pytest.raises(ValueError, match="Unknown dataset"):
        erm_sweep("mnist")
    with pytest.raises(ValueError, match="at most 24,000"):
        erm_sweep("census2000", ns=(30_000,))
    with pytest.raises(ValueError, match="trials"):
        erm_sweep(ns=(500,), trials=0)
    with pytest.raises(ValueError, match="Unknown method"):
        erm_sweep(ns=(500,), methods=("lasso",))


# ------------------------------------------------------------------ the constant predictor (features ignored)
def test_constant_predictor_is_the_training_mean_and_the_majority_class():
    from privlib.erm.datasets import INTERCEPT_COLUMN, census2000
    from privlib.erm.losses import make_loss
    from privlib.erm.sweep import constant_predictor

    data = census2000(n=3000, seed=4)
    loss = make_loss("squared")
    w = constant_predictor(loss.sums(data.X_train, data.y_train), INTERCEPT_COLUMN["census2000"], loss.R)
    assert np.count_nonzero(w) == 1  # only the intercept column is used
    np.testing.assert_allclose(data.X_test @ w, data.y_train.mean(), rtol=1e-12, atol=1e-15)
    labels = census2000(n=3000, seed=4, task="classification")
    logistic = make_loss("logistic")
    w = constant_predictor(logistic.sums(labels.X_train, labels.y_train), INTERCEPT_COLUMN["census2000"], 1.0)
    majority = 1.0 if (labels.y_train > 0).mean() >= 0.5 else -1.0
    assert np.all(np.sign(labels.X_test @ w) == majority)
    # no intercept (synthetic): the constant predictor is 0
    sums = make_loss("squared").sums(np.eye(3) * 0.5, np.array([0.2, -0.1, 0.4]))
    np.testing.assert_array_equal(constant_predictor(sums, None, 1.0), np.zeros(3))


def test_sweeps_report_the_constant_predictor():
    from privlib.erm.datasets import census2000, diabetes

    sweep = erm_sweep("census2000", ns=(500, 2000), epsilon=1.0, delta=1e-6, trials=3, seed=2,
                      methods=("non_private",))
    expected = [np.mean([math.sqrt(np.mean((census2000(n=n, seed=2 + t).y_test
                                            - census2000(n=n, seed=2 + t).y_train.mean()) ** 2))
                         for t in range(3)]) for n in (500, 2000)]
    np.testing.assert_allclose(sweep.constant_mean, expected, rtol=1e-9)
    assert sweep.to_dict()["points"][1]["constant_rmse"] == pytest.approx(expected[1], rel=1e-12)
    assert sweep.to_csv().splitlines()[0].endswith(",constant_rmse")
    # the non-private model beats the constant predictor on census (education and experience predict income)
    assert np.all(sweep.mean["non_private"] < sweep.constant_mean)
    by_eps = epsilon_sweep("diabetes", epsilons=(1.0, 10.0), delta=1e-5, trials=4, seed=0, methods=("non_private",))
    assert by_eps.constant_mean[0] == by_eps.constant_mean[1]  # one value per split, whatever ε
    assert by_eps.constant_mean[0] > by_eps.mean["non_private"][0]
    assert diabetes(0).n == 354
