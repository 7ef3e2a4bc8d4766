"""Private-ERM sweeps: shared data per repetition, the seeding convention, keyed noise, invalid cells,
excess risk, progress, the SweepResult and the CLI's JSON shape, the ε sweep, the inflation trade-off,
the inside view and the cost estimate."""
from __future__ import annotations

import csv
import io
import json
import math
import zlib

import numpy as np
import pytest

from privlib.core.sweep import SweepResult
from privlib.erm.datasets import census2000, synthetic_regression
from privlib.erm.losses import make_loss
from privlib.erm.mechanisms import NonPrivate, ObjectiveGaussian
from privlib.erm.sweep import (
    DEFAULT_NS,
    SweepTiming,
    estimate_seconds,
    inflation_tradeoff,
    inside_view,
    n_sweep,
    noise_generator,
    sweep,
    sweep_to_dict,
    work_size,
)

SQUARED = make_loss("squared")


@pytest.fixture(scope="module")
def small_sweep():
    calls = []
    result = n_sweep(ns=(300, 2000), repeats=3, progress=lambda f, msg: calls.append((f, msg)))
    return result, calls


def test_default_grid():
    assert DEFAULT_NS == (300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000)


def test_sweep_shape_progress_and_invalid_cells(small_sweep):
    result, calls = small_sweep
    assert isinstance(result, SweepResult) and result.axis == "n" and result.settings["metric"] == "rmse"
    assert result.metrics == ("rmse", "excess_risk", "constant_rmse") and result.repeats == 3
    np.testing.assert_array_equal(result.epsilons, [300, 2000])
    assert result.settings["epsilon"] == 1.0 and result.settings["n"] is None
    assert result.mechanisms == ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic")
    assert result.values.shape == (5, 2, 3, 3)
    assert list(result.count("input_safe", "rmse")) == [0, 3]  # n = 300 < 410: no model
    assert math.isnan(result.mean("input_safe", "rmse")[0])
    assert list(result.count("input_asymptotic", "rmse")) == [3, 3]
    fractions = [f for f, _ in calls]
    assert len(calls) == 6 and fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert "n = 2,000" in calls[-1][1]
    assert result.guarantees["output"].startswith("ε-DP") and "no guarantee" in result.guarantees["input_asymptotic"]


def test_noise_key_is_the_documented_tuple_with_the_tag_first():
    """(0xE7A, seed, n, t, CRC-32 of the method, bits of ε, bits of m): the key of every recorded output."""
    old = np.random.default_rng((0xE7A, 5, 2000, 1, zlib.crc32(b"obj_gauss"),
                                 int(np.float64(0.5).view(np.uint64)), int(np.float64(3.0).view(np.uint64))))
    np.testing.assert_array_equal(noise_generator(5, 2000, 1, "obj_gauss", 0.5, 3.0).standard_normal(8),
                                  old.standard_normal(8))
    assert not np.array_equal(noise_generator(5, 2000, 1, "obj_gauss", 0.5, 3.0).standard_normal(8),
                              noise_generator(5, 2000, 1, "output", 0.5, 3.0).standard_normal(8))


def test_seed_zero_reproduces_the_reference_data_seed(small_sweep):
    """Repetition t at size n uses data seed 1000·n + t; non-private is ŵ on that draw."""
    result, _ = small_sweep
    n = 2000
    rmse, excess = [], []
    for t in range(3):
        data = synthetic_regression(n, seed=1000 * n + t)
        sums = SQUARED.sums(data.X_train, data.y_train)
        w_hat = NonPrivate().release(sums, SQUARED).w
        rmse.append(math.sqrt(np.mean((data.X_test @ w_hat - data.y_test) ** 2)))
        mechanism = ObjectiveGaussian(epsilon=1.0, delta=1e-6)
        w = mechanism.release(sums, SQUARED, noise_generator(0, n, t, "obj_gauss", 1.0)).w
        excess.append(sums.risk(w) - sums.risk(w_hat))
    assert result.mean("non_private", "rmse")[1] == pytest.approx(np.mean(rmse), rel=1e-10)
    assert result.mean("obj_gauss", "excess_risk")[1] == pytest.approx(np.mean(excess), rel=1e-6)
    assert result.mean("non_private", "excess_risk")[1] == 0.0


def test_excess_risk_is_non_negative_and_noise_is_keyed(small_sweep):
    result, _ = small_sweep
    for m in result.mechanisms:
        per_repeat = result.per_repeat(m, "excess_risk")
        assert np.all(per_repeat[np.isfinite(per_repeat)] >= -1e-12)
    alone = n_sweep(mechanisms=("obj_gauss",), ns=(300, 2000), repeats=3)
    np.testing.assert_array_equal(alone.mean("obj_gauss", "rmse"), result.mean("obj_gauss", "rmse"))
    again = n_sweep(ns=(300, 2000), repeats=3)
    np.testing.assert_array_equal(again.values, result.values)
    other_seed = n_sweep(mechanisms=("non_private",), ns=(2000,), repeats=3, seed=1)
    assert other_seed.mean("non_private", "rmse")[0] != result.mean("non_private", "rmse")[1]


def test_cli_dict_and_csv(small_sweep):
    result, _ = small_sweep
    payload = sweep_to_dict(result)
    text = json.dumps(payload, allow_nan=False)
    assert '"rmse_mean"' in text and payload["trials"] == 3 and payload["epsilon"] == 1.0
    cell = payload["points"][0]["methods"]["input_safe"]
    assert payload["points"][0]["n"] == 300 and cell["rmse_mean"] is None and cell["valid"] is False
    assert set(payload["points"][1]["methods"]["obj_gauss"]) == {"rmse_mean", "rmse_sd", "excess_risk_mean",
                                                                  "excess_risk_sd", "valid"}
    obj = payload["points"][1]["methods"]["obj_gauss"]
    per_repeat = result.per_repeat("obj_gauss", "rmse")[1]
    assert obj["rmse_mean"] == pytest.approx(per_repeat.mean(), rel=1e-12)
    assert obj["rmse_sd"] == pytest.approx(per_repeat.std(ddof=1), rel=1e-12)
    rows = list(csv.reader(io.StringIO(result.to_csv())))
    assert rows[0] == ["mechanism", "n", "repeat", "metric", "value"]
    assert len(rows) == 1 + 5 * 2 * 3 * 3
    assert json.loads(result.to_json())["settings"]["dataset"] == "synthetic"


def test_one_repeat_keeps_a_zero_sd_in_the_cli_dict():
    payload = sweep_to_dict(n_sweep(mechanisms=("non_private", "input_safe"), ns=(300,), repeats=1))
    assert payload["points"][0]["methods"]["non_private"]["rmse_sd"] == 0.0
    assert payload["points"][0]["methods"]["input_safe"]["rmse_sd"] == 0.0  # as before: 0 for one repetition


def test_classification_and_census_sweeps():
    result = n_sweep(mechanisms=("non_private", "obj_gauss"), ns=(1000,), repeats=2, task="classification")
    assert result.settings["metric"] == "accuracy" and 0.5 < result.mean("non_private", "accuracy")[0] <= 1.0
    census = n_sweep("census2000", ("non_private", "input_safe"), ns=(500, 2000), repeats=2)
    assert census.settings["d"] == 4 and np.all(census.count("input_safe", "rmse") == 2)
    full = census2000(seed=0)
    w = NonPrivate().release(SQUARED.sums(full.X_train[:500], full.y_train[:500]), SQUARED).w
    first = math.sqrt(np.mean((full.X_test @ w - full.y_test) ** 2))
    assert census.per_repeat("non_private", "rmse")[0, 0] == pytest.approx(first)


def test_epsilon_sweep_on_diabetes():
    result = sweep("diabetes", ("non_private", "input_safe", "output"), (1.0, 10.0), repeats=3)
    assert result.axis == "epsilon" and result.settings["n"] == 354 and result.settings["d"] == 11
    assert result.settings["epsilon"] is None
    assert list(result.count("input_safe", "rmse")) == [0, 3]  # needs ε > 1.16 at n = 354
    mean = result.mean("non_private", "rmse")
    assert mean[0] == mean[1]  # ŵ once per repetition
    assert json.dumps(sweep_to_dict(result), allow_nan=False) and result.to_json()
    with pytest.raises(ValueError, match="at most 354"):
        sweep("diabetes", n=400, repeats=1)


def test_inflation_tradeoff_moves_both_meters():
    trade = inflation_tradeoff("synthetic", 10_000, 1.0, 1e-6, inflations=(1.0, 10.0, 100.0), repeats=3)
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
        n_sweep("mnist")
    with pytest.raises(ValueError, match="at most 24,000"):
        n_sweep("census2000", ns=(30_000,))
    with pytest.raises(ValueError, match="repeats"):
        n_sweep(ns=(500,), repeats=0)
    with pytest.raises(ValueError, match="Unknown method"):
        n_sweep(mechanisms=("lasso",), ns=(500,))
    with pytest.raises(ValueError, match="delta"):
        sweep("diabetes", delta=0.0)


def test_cost_estimate_is_work_size_times_the_injected_pace():
    timing = SweepTiming(per_record=1e-7, per_repeat=0.01, per_fit=1e-3)
    assert work_size("synthetic", (1000, 3000), 1, 4, 20) == (80_000.0, 0.0, 160.0)
    assert work_size("diabetes", (354,), 6, 5, 100) == (0.0, 100.0, 3000.0)
    seconds = estimate_seconds("synthetic", (1000, 3000), 1, 4, 20, timing=timing)
    assert seconds == pytest.approx(80_000 * 1e-7 + 160 * 1e-3, rel=1e-12)
    assert estimate_seconds("diabetes", (354,), 6, 5, 100, timing=timing) == pytest.approx(1.0 + 3.0, rel=1e-12)
    # the command the issue names: 4,000,000 records × 1,000 repetitions, minutes even at 100 ns a record
    assert estimate_seconds("synthetic", (4_000_000,), 1, 5, 1000, timing=timing) > 4e9 * 1e-7


def test_measured_timing_is_positive_and_finite():
    """The pace itself depends on the machine and its load: only its kind is checked here."""
    from privlib.erm.sweep import measured_timing

    timing = measured_timing("census2000", 4)
    assert 0 < timing.per_record < 1e-3 and 0 < timing.per_repeat < 10 and 0 < timing.per_fit < 10


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

    result = n_sweep("census2000", ("non_private",), (500, 2000), epsilon=1.0, delta=1e-6, repeats=3, seed=2)
    expected = [np.mean([math.sqrt(np.mean((census2000(n=n, seed=2 + t).y_test
                                            - census2000(n=n, seed=2 + t).y_train.mean()) ** 2))
                         for t in range(3)]) for n in (500, 2000)]
    np.testing.assert_allclose(result.mean("non_private", "constant_rmse"), expected, rtol=1e-9)
    assert sweep_to_dict(result)["points"][1]["constant_rmse"] == pytest.approx(expected[1], rel=1e-12)
    # the non-private model beats the constant predictor on census (education and experience predict income)
    assert np.all(result.mean("non_private", "rmse") < result.mean("non_private", "constant_rmse"))
    by_eps = sweep("diabetes", ("non_private",), (1.0, 10.0), delta=1e-5, repeats=4, seed=0)
    constant = by_eps.mean("non_private", "constant_rmse")
    assert constant[0] == constant[1]  # one value per split, whatever ε
    assert constant[0] > by_eps.mean("non_private", "rmse")[0]
    assert diabetes(0).n == 354
