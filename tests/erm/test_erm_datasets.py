"""Private-ERM datasets: public bounds (‖x‖ ≤ 1, |y| ≤ 1, intercept), the seeding convention, the
blockwise sums of the synthetic draw, the diabetes recipe and split, and census scaling by constants."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.erm.datasets import (
    CENSUS_BOUNDS,
    CENSUS_THRESHOLD,
    DATASETS,
    census2000,
    census_features,
    census_records,
    census_targets,
    diabetes,
    diabetes_features,
    load_dataset,
    sums_from_moments,
    synthetic_moments,
    synthetic_records,
    synthetic_regression,
    synthetic_sums,
    synthetic_test_set,
    trial_seed,
    w_star,
)
from privlib.erm.losses import make_loss

TOL = 1e-12


def assert_bounded(data):
    norms = np.linalg.norm(data.X_train, axis=1)
    assert norms.max() <= 1 + TOL and np.linalg.norm(data.X_test, axis=1).max() <= 1 + TOL
    if data.task == "regression":
        assert np.abs(data.y_train).max() <= 1 and np.abs(data.y_test).max() <= 1
    else:
        assert set(np.unique(data.y_train)) <= {-1.0, 1.0} and set(np.unique(data.y_test)) <= {-1.0, 1.0}
    assert not data.X_train.flags.writeable and not data.y_test.flags.writeable


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_synthetic_recipe_and_bounds(task):
    data = synthetic_regression(2000, d=10, seed=3, task=task)
    assert data.X_train.shape == (2000, 10) and data.X_test.shape == (20_000, 10)
    assert_bounded(data)
    # the recipe, redone by hand from the same normal stream
    Z = np.random.default_rng(3).standard_normal((2000, 11))
    x = Z[:, :10] / math.sqrt(10)
    x = x / np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
    score = x @ np.full(10, 0.8 / math.sqrt(10)) + 0.1 * Z[:, 10]
    y = np.clip(score, -1, 1) if task == "regression" else np.where(score >= 0, 1.0, -1.0)
    np.testing.assert_allclose(data.X_train, x, rtol=0, atol=1e-15)
    np.testing.assert_allclose(data.y_train, y, rtol=0, atol=1e-15)
    # about 44% of the rows are rescaled (P(χ²₁₀ > 10)), so many rows sit on the unit sphere
    on_sphere = np.isclose(np.linalg.norm(data.X_train, axis=1), 1.0)
    assert 0.35 < on_sphere.mean() < 0.53
    assert np.linalg.norm(w_star(10)) == pytest.approx(0.8)


def test_synthetic_test_set_is_fixed_and_cached():
    X1, y1 = synthetic_test_set(10)
    X2, y2 = synthetic_test_set(10)
    assert X1 is X2 and X1.shape == (20_000, 10)
    X3, y3 = synthetic_records(20_000, 10, 99)
    np.testing.assert_array_equal(X1, X3)
    np.testing.assert_array_equal(y1, y3)
    assert synthetic_regression(50, seed=1).X_test is X1  # every trial reuses the test set


def test_trial_seed_convention():
    assert trial_seed(0, 1000, 7) == 1_000_007  # 1000·n + t
    assert trial_seed(2, 1000, 7) == 2 * 2**32 + 1_000_007
    seeds = {trial_seed(s, n, t) for s in (0, 1) for n in (300, 1000, 10**6) for t in range(1000)}
    assert len(seeds) == 2 * 3 * 1000
    with pytest.raises(ValueError, match="trial index"):
        trial_seed(0, 10, 1000)


@pytest.mark.parametrize("loss_name, task", [("squared", "regression"), ("logistic", "classification")])
def test_blockwise_sums_equal_the_full_draw(loss_name, task):
    loss = make_loss(loss_name)
    n, seed = 20_001, trial_seed(0, 20_001, 3)  # not a multiple of the block size
    X, y = synthetic_records(n, 10, seed, task)
    full = loss.sums(X, y)
    for chunk in (1000, 8192, n + 5):
        fast = sums_from_moments(loss, synthetic_moments(n, 10, seed, task, chunk=chunk), n)
        np.testing.assert_allclose(fast.S, full.S, rtol=1e-11, atol=1e-10)
        np.testing.assert_allclose(fast.b_sum, full.b_sum, rtol=1e-11, atol=1e-10)
        assert fast.c_sum == pytest.approx(full.c_sum, rel=1e-12) and fast.n == n
    assert synthetic_sums(loss, n, 10, seed, task).S == pytest.approx(full.S, rel=1e-11)


def test_diabetes_recipe_split_and_bounds():
    data = diabetes(0)
    assert data.n == 354 and data.n_test == 88 and data.d == 11
    assert_bounded(data)
    from sklearn.datasets import load_diabetes

    bunch = load_diabetes()
    X = diabetes_features(bunch.data)
    raw = np.hstack([3 * bunch.data, np.full((442, 1), 0.5)]) / math.sqrt(1.25)
    np.testing.assert_allclose(X, raw / np.maximum(1, np.linalg.norm(raw, axis=1))[:, None])
    # intercept column: constant 0.5/√1.25 before the rescaling, positive on every row
    assert np.all(data.X_train[:, -1] > 0) and np.all(data.X_train[:, -1] <= 0.5 / math.sqrt(1.25) + TOL)
    all_y = np.sort(np.concatenate([data.y_train, data.y_test]))
    np.testing.assert_allclose(all_y, np.sort(np.clip((bunch.target - 175) / 175, -1, 1)))
    other = diabetes(1)
    assert not np.array_equal(other.X_train, data.X_train)
    assert diabetes(0) is data  # cached
    assert_bounded(diabetes(2, task="classification"))


def test_census_scaling_uses_public_constants_not_the_sample():
    educ, exper, expersq, lweekinc = census_records()
    assert educ.size == 29_501
    X = census_features(educ, exper, expersq)
    y = census_targets(lweekinc)
    assert np.linalg.norm(X, axis=1).max() <= 1 + TOL and np.abs(y).max() <= 1
    np.testing.assert_array_equal(X[:, -1], 0.5)  # intercept
    # a record's scaled values depend on that record only: scaling a subsample, or a sample with an
    # extreme record added, changes no other row (a min-max scaler fitted on the sample would)
    rows = np.arange(0, 29_501, 97)
    np.testing.assert_array_equal(census_features(educ[rows], exper[rows], expersq[rows]), X[rows])
    np.testing.assert_array_equal(census_targets(lweekinc[rows]), y[rows])
    shifted = census_features(np.append(educ, 40.0), np.append(exper, 90.0), np.append(expersq, 8100.0))
    np.testing.assert_array_equal(shifted[:-1], X)
    np.testing.assert_array_equal(shifted[-1], [0.5, 0.5, 0.5, 0.5])  # clipped to the public ranges
    np.testing.assert_array_equal(census_targets(np.append(lweekinc, 20.0))[:-1], y)
    # the constants themselves
    assert CENSUS_BOUNDS["educ"] == (0.0, 20.0) and CENSUS_BOUNDS["exper"] == (0.0, 60.0)
    assert CENSUS_BOUNDS["lweekinc"][1] == pytest.approx(math.log(175_000))
    np.testing.assert_allclose(X[:, 0], educ / 40)
    np.testing.assert_allclose(y, np.clip(2 * lweekinc / math.log(175_000) - 1, -1, 1))
    labels = census_targets(lweekinc, "classification")
    np.testing.assert_array_equal(labels == 1, lweekinc >= CENSUS_THRESHOLD)


def test_census_split_nested_and_bounded():
    full = census2000(seed=0)
    assert full.n == 24_000 and full.n_test == 5_501 and full.d == 4
    assert_bounded(full)
    small = census2000(1000, seed=0)
    np.testing.assert_array_equal(small.X_train, full.X_train[:1000])
    assert small.X_test is full.X_test
    assert not np.array_equal(census2000(1000, seed=1).X_train, small.X_train)
    assert_bounded(census2000(500, seed=0, task="classification"))
    with pytest.raises(ValueError, match="at most 24,000"):
        census2000(24_001)


def test_load_dataset_and_errors():
    assert set(DATASETS) == {"synthetic", "diabetes", "census2000"}
    assert load_dataset("synthetic", n=30, d=4, seed=1).X_train.shape == (30, 4)
    assert load_dataset("diabetes", n=100, seed=0).n == 100
    assert load_dataset("census2000", n=100).d == 4
    with pytest.raises(ValueError, match="Unknown dataset"):
        load_dataset("iris")
    with pytest.raises(ValueError, match="task"):
        synthetic_regression(10, task="ranking")
    with pytest.raises(ValueError, match="seed"):
        synthetic_regression(10, seed=-1)


def test_census_classification_says_why_it_shows_nothing():
    """Issue 22: on census2000 classification every method sat on the constant predictor. The cause, checked
    here: the non-private Taylor-surrogate model in the unit ball predicts +1 for every test record (features
    ≥ 0, intercept ½, a majority of incomes ≥ $576), so the page states it instead of the paper's claim. When
    the features change so that the model does learn, this test fails and the caveat must go."""
    import numpy as np

    from privlib.erm.datasets import census2000, task_caveat
    from privlib.erm.losses import make_loss
    from privlib.erm.solver import minimise_in_ball

    data = census2000(None, 0, "classification")
    loss = make_loss("logistic", 1.0)
    sums = loss.sums(data.X_train, data.y_train)
    w = minimise_in_ball(sums.S, sums.b_sum, 1.0)
    assert np.all(loss.predict(w, data.X_test) == 1.0)
    share = float(np.mean(data.y_test == 1.0))
    assert 0.6 < share < 0.8
    note = task_caveat("census2000", "classification")
    assert note is not None and "$576" in note and "constant predictor" in note
    assert task_caveat("census2000", "regression") is None and task_caveat("synthetic", "classification") is None
