"""Label-DP datasets: shapes, determinism, read-only arrays, splits, scaling and the closed-form
population accuracy of the synthetic laws."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.label_dp.datasets import (
    COMPLIANT_LAW,
    DATASETS,
    TWO_POINT_LAW,
    UniformAbsLaw,
    digits,
    fig1_mixture,
    load_dataset,
    mnist,
    two_point,
)


def test_fig1_shapes_labels_and_law():
    data = fig1_mixture(delta_sep=0.5, n=300, d=50, seed=0, n_test=1000)
    assert data.X_train.shape == (300, 50) and data.X_test.shape == (1000, 50)
    assert data.X_unlabelled.shape == (300, 50)
    assert data.classes == 2
    np.testing.assert_array_equal(data.y_train, (data.X_train[:, 0] > 0).astype(int))
    x1 = np.abs(np.concatenate([data.X_train[:, 0], data.X_test[:, 0]]))
    assert x1.min() >= 0.5 and x1.max() <= 2.5
    assert not data.X_train.flags.writeable and not data.y_train.flags.writeable
    law = data.law
    assert law.mu == pytest.approx(3 / math.sqrt(31 / 3), rel=1e-14)  # 0.933 at every Δ
    assert law.variance == pytest.approx(31 * 0.25 / 3, rel=1e-14)
    assert UniformAbsLaw(0.3).mu == pytest.approx(0.9332565, abs=1e-7)


def test_synthetic_determinism_per_seed():
    a = fig1_mixture(delta_sep=0.3, n=100, d=5, seed=7)
    b = fig1_mixture(delta_sep=0.3, n=100, d=5, seed=7)
    c = fig1_mixture(delta_sep=0.3, n=100, d=5, seed=8)
    assert a is b  # cached
    fresh = fig1_mixture(delta_sep=0.3, n=100, d=5, seed=7, n_test=33)  # another cache entry, drawn again
    assert fresh is not a
    np.testing.assert_array_equal(a.X_train, fresh.X_train)  # the training block is drawn first
    np.testing.assert_array_equal(a.y_train, fresh.y_train)
    assert not np.array_equal(a.X_train, c.X_train)
    assert a.redraw(8).X_train.tobytes() == c.X_train.tobytes()
    t = two_point(n=100, d=5, seed=7)
    assert np.array_equal(t.X_train, two_point(n=100, d=5, seed=7).X_train)
    assert set(np.round(np.abs(t.X_train[:, 0]), 12)) <= {0.3, 4.25}


def test_data_stream_is_not_the_rr_stream():
    """The data of seed s must not reuse default_rng(s), which RR with seed s uses (a run with the
    same seed would flip the labels of the points with the largest |x⁽¹⁾|)."""
    data = fig1_mixture(delta_sep=0.5, n=200, d=3, seed=5)
    u = np.random.default_rng(5).random(200)
    assert abs(np.corrcoef(u, np.abs(data.X_train[:, 0]))[0, 1]) < 0.25


def test_two_point_laws():
    assert TWO_POINT_LAW.mu == pytest.approx(0.5, rel=1e-14)
    assert TWO_POINT_LAW.gamma == pytest.approx(0.3, rel=1e-14)
    assert TWO_POINT_LAW.variance == pytest.approx(1.0, rel=1e-14)
    assert COMPLIANT_LAW.mu == pytest.approx(0.5, rel=1e-14)
    assert COMPLIANT_LAW.gamma == pytest.approx(0.05, rel=1e-13)
    assert COMPLIANT_LAW.variance == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("loader, kw", [(fig1_mixture, {"delta_sep": 0.3}), (two_point, {})])
def test_population_accuracy_matches_a_large_test_set(loader, kw):
    data = loader(n=50, d=20, seed=2, n_test=200_000, **kw)
    theta = np.random.default_rng(3).standard_normal(20) * 0.3
    theta[0] = 1.0
    for b in (0.0, 0.4):
        exact = data.population_accuracy(theta, b)
        empirical = np.mean(((data.X_test @ theta + b) > 0) == (data.y_test == 1))
        assert abs(empirical - exact) < 4 * math.sqrt(exact * (1 - exact) / data.n_test)


def test_digits_split_and_scaling():
    data = digits()
    assert data.X_train.shape == (1347, 64) and data.X_test.shape == (450, 64)
    assert data.classes == 10
    np.testing.assert_allclose(data.X_train.mean(axis=0), 0.0, atol=1e-12)
    from sklearn.datasets import load_digits

    expected = 0.25 * np.bincount(load_digits().target, minlength=10)
    assert np.all(np.abs(np.bincount(data.y_test, minlength=10) - expected) <= 1)  # stratified
    assert digits() is data
    assert not np.array_equal(digits(split=1).y_test, data.y_test)


def test_mnist_split_and_features():
    data = mnist()
    assert data.X_train.shape == (3750, 50) and data.X_test.shape == (1250, 50)
    np.testing.assert_array_equal(np.bincount(data.y_train, minlength=10), 375)
    np.testing.assert_array_equal(np.bincount(data.y_test, minlength=10), 125)
    raw = mnist(components=None)
    assert raw.X_train.shape == (3750, 784)
    assert raw.X_train.min() >= 0.0 and raw.X_train.max() <= 1.0
    np.testing.assert_array_equal(raw.y_train, data.y_train)
    # the PCA is fitted on the training features: their projections are centred
    np.testing.assert_allclose(data.X_train.mean(axis=0), 0.0, atol=1e-10)


def test_registry_and_errors():
    assert set(DATASETS) == {"fig1", "twopoint", "digits", "mnist"}
    assert load_dataset("fig1", delta_sep=0.5, seed=1).params["delta_sep"] == 0.5
    with pytest.raises(ValueError, match="Unknown dataset"):
        load_dataset("cifar")
    with pytest.raises(ValueError):
        load_dataset("digits", delta_sep=1.0)
    with pytest.raises(ValueError):
        fig1_mixture(delta_sep=-1)
    with pytest.raises(ValueError):
        two_point(law="gaussian")


def test_digits_first_c_classes_before_split_and_scaling():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    data = digits(classes=3)
    assert data.classes == 3 and data.params["classes"] == 3
    assert set(np.unique(data.y_train)) == {0, 1, 2} and set(np.unique(data.y_test)) == {0, 1, 2}
    bunch = load_digits()
    keep = bunch.target < 3
    counts = np.bincount(bunch.target[keep], minlength=3)
    assert data.n + data.n_test == int(counts.sum())
    assert np.all(np.abs(np.bincount(data.y_test, minlength=3) - 0.25 * counts) <= 1)  # stratified
    assert np.all(np.abs(np.bincount(data.y_train, minlength=3) - 0.75 * counts) <= 1)
    # the scaler is fitted on the kept training rows only: same split and transform by hand
    raw_train, raw_test, _, y_test = train_test_split(bunch.data[keep].astype(np.float64), bunch.target[keep],
                                                      test_size=0.25, stratify=bunch.target[keep], random_state=0)
    scaler = StandardScaler().fit(raw_train)
    np.testing.assert_allclose(data.X_train, scaler.transform(raw_train), atol=1e-12)
    np.testing.assert_allclose(data.X_test, scaler.transform(raw_test), atol=1e-12)
    np.testing.assert_array_equal(data.y_test, y_test)
    np.testing.assert_allclose(data.X_train.mean(axis=0), 0.0, atol=1e-12)
    assert "first C = 3 digit classes" in data.description and "before the split" in data.description
    assert digits(classes=3) is data and load_dataset("digits", classes=3) is data  # cached per arguments
    assert digits(classes=10) is digits()  # the default is unchanged


def test_mnist_first_c_classes():
    data = mnist(classes=3)
    assert data.classes == 3 and data.X_train.shape == (1125, 50) and data.X_test.shape == (375, 50)
    np.testing.assert_array_equal(np.bincount(data.y_train), [375, 375, 375])
    np.testing.assert_array_equal(np.bincount(data.y_test), [125, 125, 125])
    np.testing.assert_allclose(data.X_train.mean(axis=0), 0.0, atol=1e-10)  # PCA fitted on kept training rows
    assert "first C = 3 digit classes" in data.description
    assert load_dataset("mnist", classes=3) is data


@pytest.mark.parametrize("bad", [1, 0, 11, 2.5, "3", True])
def test_bad_number_of_classes_raises(bad):
    with pytest.raises(ValueError, match="classes"):
        digits(classes=bad)
    with pytest.raises(ValueError, match="classes"):
        mnist(classes=bad)
    with pytest.raises(ValueError):
        load_dataset("fig1", classes=3)
