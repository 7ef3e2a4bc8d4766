"""Sweeps for private ERM: test error and excess empirical risk of each mechanism against n or ε, the
inflation trade-off of input perturbation and the inside view of the submitted records.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425, §4 (Fig. 1: test RMSE against n, Input against Obj-Gauss
(KST12) and Output (CMS11)); §3.5 (balancing model and data privacy by inflating the noise, factor
reconstructed from the paper's prose). The datasets and everything about cost are our addition.

Protocol of a trial (our addition, not in the paper): one data draw, shared by every method; the
non-private ŵ is fitted on it; each method draws its own noise from a generator keyed by
(seed, n, trial, method, ε), so a method's numbers do not depend on which other methods or values are
in the sweep. Test metric: RMSE (regression, squared loss) or accuracy of sign(xᵀw) (classification,
the Taylor-logistic loss) on the test set. Excess empirical risk: J(w_priv) − J(ŵ) on the training
sums. An invalid calibration (safe input route at too small an n) gives NaN and ``valid`` False.

Data per trial t of an n-sweep with seed s: synthetic, the draw with data seed
``datasets.trial_seed(s, n, t)`` = s·2³² + 1000·n + t (its sums accumulated in blocks, never stored)
and the fixed 20,000-point test set (seed 99); diabetes, split s + t; census2000, hold-out seed s + t
(for one trial, the training sets of increasing n are nested). The synthetic draws of a sweep run on
up to two threads (numpy releases the GIL while drawing), BLAS limited to one thread each.
"""
from __future__ import annotations

import csv
import io
import math
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from privlib.core.threads import single_threaded_blas
from privlib.core.validation import (
    check_delta,
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_range,
    check_seed,
)
from privlib.erm.calibration import calibrate
from privlib.erm.datasets import (
    CENSUS_MAX_TRAIN,
    DATASETS,
    DIABETES_N_TRAIN,
    INTERCEPT_COLUMN,
    MAX_SYNTHETIC_N,
    MAX_TRIALS,
    check_task,
    load_dataset,
    synthetic_records,
    synthetic_sums,
    synthetic_test_set,
    trial_seed,
)
from privlib.erm.losses import QuadraticLoss, make_loss
from privlib.erm.mechanisms import METHOD_LABELS, METHODS, check_methods, fit
from privlib.erm.sampler import submit_records

#: The n grid of the default comparison (8 values; the page caps n at 10⁵, the benchmark goes to 10⁶).
DEFAULT_NS = (300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
#: The ε grid of the default ε sweep (diabetes: a small-n reality check from ε = 1 to 100).
DEFAULT_EPSILONS = (1.0, 2.0, 4.0, 10.0, 30.0, 100.0)
#: The inflation factors m of the default trade-off (1 to 10⁴).
DEFAULT_INFLATIONS = (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0)
#: The four methods of the default comparison (the benchmark's).
COMPARISON_METHODS = ("non_private", "output", "obj_gauss", "input_safe")
#: Largest n per dataset.
MAX_N = {"synthetic": MAX_SYNTHETIC_N, "diabetes": DIABETES_N_TRAIN, "census2000": CENSUS_MAX_TRAIN}

_NOISE_TAG = 0xE7A


def workers() -> int:
    """Threads drawing synthetic data: one per core, at most 2."""
    return max(1, min(os.cpu_count() or 1, 2))


def noise_generator(seed: int, n: int, t: int, method: str, epsilon: float,
                    inflate: float = 1.0) -> np.random.Generator:
    """The generator of one fit's noise, keyed by (seed, n, trial, method, bits of ε, bits of m) (our
    convention), so a result does not depend on the rest of the sweep."""
    key = (_NOISE_TAG, seed, n, t, zlib.crc32(method.encode("utf-8")), int(np.float64(epsilon).view(np.uint64)),
           int(np.float64(inflate).view(np.uint64)))
    return np.random.default_rng(key)


def loss_for(task: str, R: float = 1.0) -> QuadraticLoss:
    """The squared loss for regression, the Taylor-logistic surrogate for classification."""
    return make_loss("squared" if task == "regression" else "logistic", R)


def check_dataset(dataset) -> str:
    if dataset not in DATASETS:
        raise ValueError(f"Unknown dataset {dataset!r}: choose one of {', '.join(DATASETS)}.")
    return dataset


def check_ns(ns, dataset: str) -> np.ndarray:
    """A non-empty 1-D int array of record counts, each within the dataset's limit."""
    items = np.atleast_1d(np.asarray(ns, dtype=object)).tolist() if np.ndim(ns) <= 1 else None
    if not items:
        raise ValueError("ns must be a non-empty flat list of record counts.")
    return np.array([check_positive_int(v, f"n (the number of {dataset} training records)", minimum=2,
                                        maximum=MAX_N[dataset]) for v in items], dtype=np.int64)


def evaluate_metric(loss: QuadraticLoss, w: np.ndarray, X_test: np.ndarray, y_test: np.ndarray) -> float:
    """RMSE √(mean (xᵀw − y)²) (squared loss) or accuracy mean(sign(xᵀw) = y) (Taylor-logistic)."""
    scores = X_test @ w
    if loss.name == "squared":
        return float(math.sqrt(np.mean((scores - y_test) ** 2)))
    return float(np.mean(np.where(scores >= 0, 1.0, -1.0) == y_test))



def constant_predictor(sums, intercept: int | None, R: float) -> np.ndarray:
    """The best model that ignores every feature (a non-private reference, our addition): w = 0 except on
    the intercept column k, where w_k = argmin_{|w_k| ≤ R} S_kk w_k² + b_k w_k = clip(−b_k/(2 S_kk), −R, R).
    For the squared loss it predicts the (scaled) training mean, for the Taylor-logistic surrogate the
    majority class; with no intercept column (synthetic data) it predicts 0."""
    w = np.zeros(sums.d)
    if intercept is not None and sums.S[intercept, intercept] > 0:
        w[intercept] = float(np.clip(-sums.b_sum[intercept] / (2.0 * sums.S[intercept, intercept]), -R, R))
    return w

class TrialData:
    """The training sums and test set of one trial (``sums``, ``X_test``, ``y_test``)."""

    __slots__ = ("X_test", "sums", "y_test")

    def __init__(self, sums, X_test, y_test):
        self.sums, self.X_test, self.y_test = sums, X_test, y_test


def trial_data(dataset: str, loss: QuadraticLoss, n: int | None, d: int, seed: int, t: int, task: str) -> TrialData:
    """The data of trial t (module docstring). Synthetic sums are accumulated without storing the rows."""
    if dataset == "synthetic":
        X_test, y_test = synthetic_test_set(d, task)
        return TrialData(synthetic_sums(loss, n, d, trial_seed(seed, n, t), task), X_test, y_test)
    data = load_dataset(dataset, n=n, seed=seed + t, task=task)
    return TrialData(loss.sums(data.X_train, data.y_train), data.X_test, data.y_test)


def trial_stream(dataset, loss, n, d, seed, trials, task, pool):
    """The trials' data in order; synthetic draws are made on ``pool`` ahead of use."""
    if pool is None or dataset != "synthetic":
        return (trial_data(dataset, loss, n, d, seed, t, task) for t in range(trials))
    return pool.map(lambda t: trial_data(dataset, loss, n, d, seed, t, task), range(trials))


def summarise(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd (ddof = 1; 0 for one trial) over the last axis; NaN where any trial is NaN."""
    mean = values.mean(axis=-1)
    sd = values.std(axis=-1, ddof=1) if values.shape[-1] > 1 else np.zeros(values.shape[:-1])
    return mean, sd


def finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True, eq=False)
class ErmSweep:
    """Test metric and excess empirical risk of each method over the x axis (``axis`` "n" or "epsilon").

    ``mean[m]``, ``sd[m]``: the test RMSE (or accuracy) over trials at each value; ``excess_risk_mean``,
    ``excess_risk_sd``: J(w_m) − J(ŵ) on the training sums; ``valid[m]``: the method gave a model in
    every trial (NaN numbers where not). ``epsilon`` is NaN for an ε sweep. ``values_per_trial`` holds
    the raw numbers, {"metric"|"excess_risk": {m: array (values × trials)}}. ``n`` is the training size
    of an ε sweep (None for an n sweep). ``constant_mean``: the test metric of the constant predictor
    (`constant_predictor`, features ignored; non-private) at each value, mean over trials — a model that
    does worse has learnt nothing usable."""

    dataset: str
    task: str
    axis: str
    values: np.ndarray
    methods: tuple
    epsilon: float
    delta: float
    d: int
    trials: int
    seed: int
    metric: str
    mean: dict
    sd: dict
    excess_risk_mean: dict
    excess_risk_sd: dict
    valid: dict
    R: float = 1.0
    inflate: float = 1.0
    n: int | None = None
    values_per_trial: dict | None = None
    constant_mean: np.ndarray | None = None

    def to_dict(self) -> dict:
        """JSON-ready: the settings and, per value, {method: {"<metric>_mean", "<metric>_sd",
        "excess_risk_mean", "excess_risk_sd", "valid"}}; NaN becomes None."""
        points = []
        for i, value in enumerate(self.values):
            cell = {}
            for m in self.methods:
                cell[m] = {f"{self.metric}_mean": finite_or_none(self.mean[m][i]),
                           f"{self.metric}_sd": finite_or_none(self.sd[m][i]),
                           "excess_risk_mean": finite_or_none(self.excess_risk_mean[m][i]),
                           "excess_risk_sd": finite_or_none(self.excess_risk_sd[m][i]),
                           "valid": bool(self.valid[m][i])}
            point = {self.axis: int(value) if self.axis == "n" else float(value), "methods": cell}
            if self.constant_mean is not None:
                point[f"constant_{self.metric}"] = finite_or_none(self.constant_mean[i])
            points.append(point)
        return {"dataset": self.dataset, "task": self.task, "axis": self.axis, "metric": self.metric,
                "epsilon": finite_or_none(self.epsilon), "delta": self.delta, "n": self.n, "d": self.d,
                "R": self.R, "inflate": self.inflate, "trials": self.trials, "seed": self.seed,
                "methods": list(self.methods), "labels": {m: METHOD_LABELS[m] for m in self.methods},
                "points": points}

    def to_csv(self) -> str:
        """One row per (value, method): value, method, label, metric mean and sd, excess risk mean and
        sd, valid."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([self.axis, "method", "label", f"{self.metric}_mean", f"{self.metric}_sd",
                         "excess_risk_mean", "excess_risk_sd", "valid", f"constant_{self.metric}"])
        for i, value in enumerate(self.values):
            for m in self.methods:
                row = [self.mean[m][i], self.sd[m][i], self.excess_risk_mean[m][i], self.excess_risk_sd[m][i]]
                writer.writerow([int(value) if self.axis == "n" else repr(float(value)), m, METHOD_LABELS[m],
                                 *("" if not math.isfinite(v) else repr(float(v)) for v in row),
                                 bool(self.valid[m][i]),
                                 "" if self.constant_mean is None else repr(float(self.constant_mean[i]))])
        return out.getvalue()


def check_common(dataset, task, R, trials, seed, methods, inflate, delta):
    return (check_dataset(dataset), check_task(task),
            check_range(R, "R (the radius of the parameter ball)", low=0.0, low_inclusive=False),
            check_positive_int(trials, "trials", maximum=MAX_TRIALS), check_seed(seed), check_methods(methods),
            check_range(inflate, "inflate m (the factor on both input-noise variances)", low=1.0), check_delta(delta))


def run_trial(data: TrialData, loss, methods, epsilons, delta, inflate, seed, n_key, t, intercept=None):
    """Fit every method at every ε on one trial's data: (metric, excess risk, constant predictor's metric),
    the first two {m: array over ε}."""
    sums = data.sums
    w_hat = fit("non_private", sums, loss, 1.0, 0.5).w
    risk_hat = sums.risk(w_hat)
    constant = evaluate_metric(loss, constant_predictor(sums, intercept, loss.R), data.X_test, data.y_test)
    metric = {m: np.full(len(epsilons), np.nan) for m in methods}
    excess = {m: np.full(len(epsilons), np.nan) for m in methods}
    for j, eps in enumerate(epsilons):
        for m in methods:
            if m == "non_private":
                w = w_hat
            else:
                result = fit(m, sums, loss, eps, delta, noise_generator(seed, n_key, t, m, eps, inflate), inflate)
                if not result.valid:
                    continue
                w = result.w
            metric[m][j] = evaluate_metric(loss, w, data.X_test, data.y_test)
            excess[m][j] = sums.risk(w) - risk_hat
    return metric, excess, constant


def collect(methods, values, trials):
    return ({m: np.full((len(values), trials), np.nan) for m in methods},
            {m: np.full((len(values), trials), np.nan) for m in methods})


def finish(methods, metric, excess) -> dict:
    out = {"mean": {}, "sd": {}, "excess_risk_mean": {}, "excess_risk_sd": {}, "valid": {}}
    for m in methods:
        out["mean"][m], out["sd"][m] = summarise(metric[m])
        out["excess_risk_mean"][m], out["excess_risk_sd"][m] = summarise(excess[m])
        out["valid"][m] = np.all(np.isfinite(metric[m]), axis=-1)
    return out


def erm_sweep(dataset="synthetic", ns=DEFAULT_NS, epsilon=1.0, delta=1e-6, d=10, R=1.0, task="regression",
              trials=20, seed=0, methods=METHODS, inflate=1.0, progress=None) -> ErmSweep:
    """Test metric and excess risk of ``methods`` against n (paper §4, Fig. 1), ``trials`` trials per n.

    Data per trial as in the module docstring (d is used by the synthetic data only; diabetes has
    d = 11, census2000 d = 4, intercepts included). ``progress(fraction, message)`` is called after each
    (n, trial), the fraction weighted by n (the cost of drawing the data)."""
    dataset, task, R, trials, seed, methods, inflate, delta = check_common(dataset, task, R, trials, seed, methods,
                                                                          inflate, delta)
    epsilon = check_epsilon(epsilon)
    d = check_positive_int(d, "d (the number of features)", maximum=1000)
    ns = check_ns(ns, dataset)
    loss = loss_for(task, R)
    metric, excess = collect(methods, ns, trials)
    constant = np.full((len(ns), trials), np.nan)
    weights = (ns.astype(np.float64) + 2000.0) * trials
    total, done = float(weights.sum()), 0.0
    data_d = d
    with single_threaded_blas(), ThreadPoolExecutor(max_workers=workers()) as pool:
        for i, n in enumerate(ns):
            for t, data in enumerate(trial_stream(dataset, loss, int(n), d, seed, trials, task, pool)):
                data_d = data.sums.d
                values, risks, constant[i, t] = run_trial(data, loss, methods, (epsilon,), delta, inflate, seed,
                                                          int(n), t, INTERCEPT_COLUMN[dataset])
                for m in methods:
                    metric[m][i, t], excess[m][i, t] = values[m][0], risks[m][0]
                done += weights[i] / trials
                if progress is not None:
                    progress(done / total, f"n = {int(n):,}: trial {t + 1} of {trials}")
    stats = finish(methods, metric, excess)
    return ErmSweep(dataset=dataset, task=task, axis="n", values=ns, methods=methods, epsilon=epsilon, delta=delta,
                    d=data_d, trials=trials, seed=seed, metric="rmse" if task == "regression" else "accuracy",
                    R=R, inflate=inflate, values_per_trial={"metric": metric, "excess_risk": excess},
                    constant_mean=constant.mean(axis=1), **stats)


def epsilon_sweep(dataset="diabetes", epsilons=DEFAULT_EPSILONS, delta=1e-5, trials=100, seed=0, methods=METHODS,
                  n=None, d=10, R=1.0, task="regression", inflate=1.0, progress=None) -> ErmSweep:
    """Test metric and excess risk of ``methods`` against ε at a fixed training size: for diabetes, the
    §4-style small-n reality check (our addition). Trial t uses split / seed ``seed + t`` (synthetic:
    data seed ``trial_seed(seed, n, t)``, n = 10,000 by default); its data and ŵ serve every ε.
    ``n`` = None: all training records (diabetes 354, census2000 24,000)."""
    dataset, task, R, trials, seed, methods, inflate, delta = check_common(dataset, task, R, trials, seed, methods,
                                                                          inflate, delta)
    epsilons = check_epsilons(epsilons)
    d = check_positive_int(d, "d (the number of features)", maximum=1000)
    if n is None and dataset == "synthetic":
        n = 10_000
    n_value = None if n is None else int(check_ns([n], dataset)[0])
    loss = loss_for(task, R)
    metric, excess = collect(methods, epsilons, trials)
    constant = np.full(trials, np.nan)
    data_d, n_seen = d, n_value
    with single_threaded_blas():
        for t in range(trials):
            data = trial_data(dataset, loss, n_value, d, seed, t, task)
            data_d, n_seen = data.sums.d, data.sums.n
            values, risks, constant[t] = run_trial(data, loss, methods, epsilons, delta, inflate, seed, n_seen, t,
                                                   INTERCEPT_COLUMN[dataset])
            for m in methods:
                metric[m][:, t], excess[m][:, t] = values[m], risks[m]
            if progress is not None:
                progress((t + 1) / trials, f"trial {t + 1} of {trials}")
    stats = finish(methods, metric, excess)
    return ErmSweep(dataset=dataset, task=task, axis="epsilon", values=epsilons, methods=methods, epsilon=math.nan,
                    delta=delta, d=data_d, trials=trials, seed=seed,
                    metric="rmse" if task == "regression" else "accuracy",
                    R=R, inflate=inflate, n=n_seen, values_per_trial={"metric": metric, "excess_risk": excess},
                    constant_mean=np.full(len(epsilons), constant.mean()), **stats)


@dataclass(frozen=True, eq=False)
class InflationTradeoff:
    """Input perturbation (safe route) with both noise variances multiplied by m (paper §3.5, factor
    reconstructed from the paper's prose): per m, the model's ε_model (the accountant), one contributor's
    ε_L (BW18, δ_L = δ) and μ_L, and the test metric over trials (NaN where invalid).
    ``non_private_mean``: the non-private model's mean metric on the same trials."""

    dataset: str
    task: str
    metric: str
    n: int
    epsilon: float
    delta: float
    d: int
    trials: int
    seed: int
    inflations: np.ndarray
    valid: np.ndarray
    epsilon_model: np.ndarray
    epsilon_L: np.ndarray
    mu_L: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    non_private_mean: float

    def to_dict(self) -> dict:
        """JSON-ready; NaN becomes None."""
        points = [{"inflate": float(m), "valid": bool(v), "epsilon_model": finite_or_none(em),
                   "epsilon_L": finite_or_none(el), "mu_L": finite_or_none(mu),
                   f"{self.metric}_mean": finite_or_none(a),
                   f"{self.metric}_sd": finite_or_none(s)}
                  for m, v, em, el, mu, a, s in zip(self.inflations, self.valid, self.epsilon_model, self.epsilon_L,
                                                    self.mu_L, self.mean, self.sd)]
        return {"dataset": self.dataset, "task": self.task, "metric": self.metric, "n": self.n,
                "epsilon": self.epsilon, "delta": self.delta, "d": self.d, "trials": self.trials, "seed": self.seed,
                "non_private_mean": finite_or_none(self.non_private_mean), "points": points}


def inflation_tradeoff(dataset="synthetic", n=None, epsilon=1.0, delta=1e-6, inflations=DEFAULT_INFLATIONS, d=10,
                       trials=20, seed=0, R=1.0, task="regression", progress=None) -> InflationTradeoff:
    """ε_L, ε_model and the test metric of input perturbation (safe calibration) for each inflation m:
    the page's Pareto plot (paper §3.5). Every m reuses the trial's data (as in ``erm_sweep``). ``n`` = None:
    10,000 for the synthetic data, every training record of a real dataset."""
    dataset, task, R, trials, seed, _, _, delta = check_common(dataset, task, R, trials, seed, ("input_safe",), 1.0,
                                                               delta)
    epsilon = check_epsilon(epsilon)
    d = check_positive_int(d, "d (the number of features)", maximum=1000)
    items = np.atleast_1d(np.asarray(inflations, dtype=object)).tolist()
    if not items or np.ndim(inflations) > 1:
        raise ValueError("inflations must be a non-empty flat list of factors m ≥ 1.")
    ms = np.array([check_range(m, "inflate m", low=1.0) for m in items])
    if n is None and dataset == "synthetic":
        n = 10_000
    n_value = None if n is None else int(check_ns([n], dataset)[0])
    loss = loss_for(task, R)
    values = np.full((ms.size, trials), np.nan)
    reference = np.full(trials, np.nan)
    n_seen, data_d = n_value, d
    with single_threaded_blas():
        for t in range(trials):
            data = trial_data(dataset, loss, n_value, d, seed, t, task)
            n_seen, data_d = data.sums.n, data.sums.d
            w_hat = fit("non_private", data.sums, loss, 1.0, 0.5).w
            reference[t] = evaluate_metric(loss, w_hat, data.X_test, data.y_test)
            for k, m in enumerate(ms):
                result = fit("input_safe", data.sums, loss, epsilon, delta,
                             noise_generator(seed, n_seen, t, "input_safe", epsilon, m), m)
                if result.valid:
                    values[k, t] = evaluate_metric(loss, result.w, data.X_test, data.y_test)
            if progress is not None:
                progress((t + 1) / trials, f"trial {t + 1} of {trials}")
    cals = [calibrate(epsilon, delta, n_seen, data_d, R, loss.A, loss.B, float(m)) for m in ms]
    mean, sd = summarise(values)
    return InflationTradeoff(
        dataset=dataset, task=task, metric="rmse" if task == "regression" else "accuracy", n=n_seen, epsilon=epsilon,
        delta=delta, d=data_d, trials=trials, seed=seed, inflations=ms,
        valid=np.array([c.input.valid for c in cals]),
        epsilon_model=np.array([c.input.epsilon_model for c in cals]),
        epsilon_L=np.array([c.local.epsilon_L if c.local else math.nan for c in cals]),
        mu_L=np.array([c.local.mu if c.local else math.nan for c in cals]), mean=mean, sd=sd,
        non_private_mean=float(np.mean(reference)))


@dataclass(frozen=True, eq=False)
class InsideView:
    """What the database receives from ``n_records`` contributors (paper Alg. 1): raw a(z_i), b(z_i)
    and the submitted ã_i, b̃_i (None when the calibration is invalid), with the calibration used
    (computed for the agreed ``n``, not for ``n_records``)."""

    dataset: str
    n_records: int
    n: int
    epsilon: float
    delta: float
    d: int
    seed: int
    inflate: float
    route: str
    a: np.ndarray
    b: np.ndarray
    a_tilde: np.ndarray | None
    b_tilde: np.ndarray | None
    calibration: object
    valid: bool
    reason: str

    def to_dict(self) -> dict:
        """JSON-ready lists (rows of a, b, ã, b̃) and the calibration's dictionary."""
        def rows(array):
            return None if array is None else [[float(v) for v in row] for row in array]

        return {"dataset": self.dataset, "n_records": self.n_records, "n": self.n, "epsilon": self.epsilon,
                "delta": self.delta, "d": self.d, "seed": self.seed, "inflate": self.inflate, "route": self.route,
                "valid": self.valid, "reason": self.reason, "calibration": self.calibration.to_dict(),
                "a": rows(self.a), "b": rows(self.b), "a_tilde": rows(self.a_tilde), "b_tilde": rows(self.b_tilde)}


def inside_view(n_records=200, dataset="synthetic", epsilon=1.0, delta=1e-6, n=10_000, d=10, seed=0, inflate=1.0,
                route="safe", task="regression", R=1.0) -> InsideView:
    """The records of ``n_records`` contributors before and after Alg. 1's perturbation, drawn
    explicitly (``sampler.submit_records``) with the σ's calibrated for the agreed ``n``. Synthetic:
    the first draw of ``synthetic_records(n_records, d, seed)``; real data: the first ``n_records``
    training records of split / hold-out ``seed``. ``route``: "safe" or "asymptotic"."""
    dataset = check_dataset(dataset)
    task = check_task(task)
    if route not in ("safe", "asymptotic"):
        raise ValueError(f"route must be 'safe' or 'asymptotic', got {route!r}.")
    epsilon, delta, seed = check_epsilon(epsilon), check_delta(delta), check_seed(seed)
    inflate = check_range(inflate, "inflate m (the factor on both input-noise variances)", low=1.0)
    n = check_positive_int(n, "n (the agreed number of records)")
    n_records = check_positive_int(n_records, "n_records (the contributors shown)", maximum=10_000)
    loss = loss_for(task, R)
    if dataset == "synthetic":
        d = check_positive_int(d, "d (the number of features)", maximum=1000)
        X, y = synthetic_records(n_records, d, seed, task)
    else:
        data = load_dataset(dataset, n=min(n_records, MAX_N[dataset]), seed=seed, task=task)
        X, y = data.X_train, data.y_train
    a, b = loss.a(X), loss.b(X, y)
    cal = calibrate(epsilon, delta, n, a.shape[1], loss.R, loss.A, loss.B, inflate, route).input
    a_tilde = b_tilde = None
    if cal.valid:
        a_tilde, b_tilde = submit_records(a, b, cal.sigma_a, cal.sigma_b,
                                          noise_generator(seed, n, 0, "inside_view", epsilon, inflate))
    return InsideView(dataset=dataset, n_records=a.shape[0], n=n, epsilon=epsilon, delta=delta, d=a.shape[1],
                      seed=seed, inflate=inflate, route=route, a=a, b=b, a_tilde=a_tilde, b_tilde=b_tilde,
                      calibration=cal, valid=cal.valid, reason=cal.reason)


__all__ = [
    "COMPARISON_METHODS",
    "DEFAULT_EPSILONS",
    "DEFAULT_INFLATIONS",
    "DEFAULT_NS",
    "MAX_N",
    "ErmSweep",
    "InflationTradeoff",
    "InsideView",
    "epsilon_sweep",
    "erm_sweep",
    "evaluate_metric",
    "inflation_tradeoff",
    "inside_view",
    "loss_for",
    "noise_generator",
    "trial_data",
    "workers",
]
