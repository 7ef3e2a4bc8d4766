"""Sweeps for private ERM: test error and excess empirical risk of each mechanism against ε (`sweep`) or
n (`n_sweep`), both as a `privlib.core.sweep.SweepResult`, the inflation trade-off of input perturbation
and the inside view of the submitted records.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425, §4 (Fig. 1: test RMSE against n, Input against Obj-Gauss
(KST12) and Output (CMS11)); §3.5 (balancing model and data privacy by inflating the noise, factor
reconstructed from the paper's prose). The datasets and everything about cost are our addition.

Protocol of a repetition (our addition, not in the paper): one data draw, shared by every mechanism;
the non-private ŵ is fitted on it once; each mechanism draws its own noise from a generator keyed by
(seed, n, repetition, mechanism, ε, m) (`noise_generator`), so a mechanism's numbers do not depend on
which other mechanisms or values are in the sweep. Metrics (``SweepResult.metrics``): the test metric,
RMSE (regression, squared loss) or accuracy of sign(xᵀw) (classification, the Taylor-logistic loss), on
the test set; ``excess_risk`` J(w_priv) − J(ŵ) on the training sums; ``constant_<metric>``: the test
metric of the constant predictor (`constant_predictor`: features ignored, non-private) on the same
repetition's data — the same for every mechanism, and a metric rather than a ``reference`` number
because it changes with n. An invalid calibration (safe input route at too small an n) gives NaN.

Data per repetition t of an n-sweep with seed s: synthetic, the draw with data seed
``datasets.trial_seed(s, n, t)`` = s·2³² + 1000·n + t (its sums accumulated in blocks, never stored)
and the fixed 20,000-point test set (seed 99); diabetes, split s + t; census2000, hold-out seed s + t
(for one repetition, the training sets of increasing n are nested). The synthetic draws of a sweep run
on up to two threads (numpy releases the GIL while drawing), BLAS limited to one thread each.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from privlib.core.sweep import SweepResult, child_rng, empty_values
from privlib.core.threads import available_cores, single_threaded_blas
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
    CHUNK_ROWS,
    DATASETS,
    DIABETES_N_TRAIN,
    INTERCEPT_COLUMN,
    MAX_SYNTHETIC_N,
    MAX_TRIALS,
    SYNTHETIC_TEST_SIZE,
    check_task,
    load_dataset,
    synthetic_records,
    synthetic_sums,
    synthetic_test_set,
    trial_seed,
)
from privlib.erm.losses import QuadraticLoss, make_loss
from privlib.erm.mechanisms import (
    METHOD_LABELS,
    METHODS,
    InputPerturbationSafe,
    NonPrivate,
    check_inflate,
    check_methods,
    make_mechanism,
)
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
#: Largest number of repetitions (``trial_seed`` stays collision-free up to it).
MAX_REPEATS = MAX_TRIALS
#: The training size of an ε sweep on the synthetic data when none is given.
SYNTHETIC_DEFAULT_N = 10_000
#: What each dataset's comparison sweeps over: diabetes (n = 354) is too small for a curve over n, so its
#: curve is over ε (`sweep`); the others are curves over n (`n_sweep`).
SWEEP_AXIS = {"synthetic": "n", "diabetes": "epsilon", "census2000": "n"}


def sizes_within(dataset: str, ns) -> tuple[int, ...]:
    """The sizes of ``ns`` that ``dataset`` has records for, ending at its largest training size when
    ``ns`` goes beyond it (census2000: ..., 10,000, 24,000)."""
    limit = MAX_N[check_dataset(dataset)]
    kept = tuple(int(n) for n in ns if n < limit)
    return kept + (limit,) if len(kept) < len(tuple(ns)) else kept

#: The first word of every noise key. It comes BEFORE the seed (the key has been
#: (tag, seed, n, t, method, ε, m) since the first release): `child_rng` is called with the tag in its
#: seed slot, which gives SeedSequence((tag, seed, …)) and so the very same draws as before — moving
#: the seed first would change every private number the sweeps have ever printed.
NOISE_TAG = 0xE7A


def workers() -> int:
    """Threads drawing synthetic data: one per core, at most 2."""
    return min(available_cores(), 2)


def noise_generator(seed: int, n: int, t: int, method: str, epsilon: float,
                    inflate: float = 1.0) -> np.random.Generator:
    """The generator of one fit's noise: ``child_rng(NOISE_TAG, seed, n, t, method, ε, m)``, i.e. keyed by
    (seed, n, repetition, method's CRC-32, bits of ε, bits of m) (our convention; the tag first, see
    `NOISE_TAG`), so a result does not depend on the rest of the sweep."""
    return child_rng(NOISE_TAG, check_seed(seed), int(n), int(t), method, float(epsilon), float(inflate))


def loss_for(task: str, R: float = 1.0) -> QuadraticLoss:
    """The squared loss for regression, the Taylor-logistic surrogate for classification."""
    return make_loss("squared" if task == "regression" else "logistic", R)


def metric_name(task: str) -> str:
    """The test metric of a task: "rmse" (regression) or "accuracy" (classification)."""
    return "rmse" if task == "regression" else "accuracy"


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
    """The training sums and test set of one repetition (``sums``, ``X_test``, ``y_test``)."""

    __slots__ = ("X_test", "sums", "y_test")

    def __init__(self, sums, X_test, y_test):
        self.sums, self.X_test, self.y_test = sums, X_test, y_test


def trial_data(dataset: str, loss: QuadraticLoss, n: int | None, d: int, seed: int, t: int, task: str) -> TrialData:
    """The data of repetition t (module docstring). Synthetic sums are accumulated without storing the rows."""
    if dataset == "synthetic":
        X_test, y_test = synthetic_test_set(d, task)
        return TrialData(synthetic_sums(loss, n, d, trial_seed(seed, n, t), task), X_test, y_test)
    data = load_dataset(dataset, n=n, seed=seed + t, task=task)
    return TrialData(loss.sums(data.X_train, data.y_train), data.X_test, data.y_test)


def trial_stream(dataset, loss, n, d, seed, repeats, task, pool):
    """The repetitions' data in order; synthetic draws are made on ``pool`` ahead of use."""
    if pool is None or dataset != "synthetic":
        return (trial_data(dataset, loss, n, d, seed, t, task) for t in range(repeats))
    return pool.map(lambda t: trial_data(dataset, loss, n, d, seed, t, task), range(repeats))


def summarise(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd (ddof = 1; 0 for one repetition) over the last axis; NaN where any repetition is NaN."""
    mean = values.mean(axis=-1)
    sd = values.std(axis=-1, ddof=1) if values.shape[-1] > 1 else np.zeros(values.shape[:-1])
    return mean, sd


def finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class SweepSettings:
    """What every ERM sweep checks the same way: the dataset, the task (and so the loss and the test
    metric), the ball's radius R, the repetitions, the seed, the mechanisms (names), the input-noise
    multiplier m and δ."""

    dataset: str
    task: str
    R: float
    repeats: int
    seed: int
    methods: tuple[str, ...]
    inflate: float
    delta: float

    @property
    def loss(self) -> QuadraticLoss:
        return loss_for(self.task, self.R)

    @property
    def metric(self) -> str:
        return metric_name(self.task)

    @property
    def intercept(self) -> int | None:
        return INTERCEPT_COLUMN[self.dataset]


def check_settings(dataset, task, R, repeats, seed, methods, inflate, delta) -> SweepSettings:
    """`SweepSettings` from the arguments of a sweep, each checked (ValueError naming the bad one)."""
    return SweepSettings(
        dataset=check_dataset(dataset), task=check_task(task),
        # 1e-50 ≤ R ≤ 1e50: the solver divides by R and squares ζ = 2RA² + B (features lie in the unit ball: R ≈ 1)
        R=check_range(R, "R (the radius of the parameter ball; 1e-50 to 1e50)", low=1e-50, high=1e50),
        repeats=check_positive_int(repeats, "repeats", maximum=MAX_REPEATS), seed=check_seed(seed),
        methods=check_methods(methods), inflate=check_inflate(inflate), delta=check_delta(delta))


#: The smallest ε a sweep trains at: below it the noise's squares (σ ∝ 1/ε, summed over n records) overflow
#: float64 in the noisy sums. Every model at such an ε is pure noise anyway.
SWEEP_EPSILON_MIN = 1e-100


def check_sweep_epsilons(epsilons) -> np.ndarray:
    """`check_epsilons`, each at least `SWEEP_EPSILON_MIN`."""
    values = check_epsilons(epsilons)
    if float(values.min()) < SWEEP_EPSILON_MIN:
        raise ValueError(f"A private-learning sweep needs ε ≥ {SWEEP_EPSILON_MIN:g} (below it the noise cannot be "
                         f"summed in float64; every model there is pure noise), got {float(values.min()):g}.")
    return values


def check_synthetic_d(d) -> int:
    return check_positive_int(d, "d (the number of features)", maximum=1000)


def fixed_n(n, dataset: str) -> int | None:
    """The training size of an ε sweep or a trade-off: ``n`` checked, or None = every training record of a
    real dataset (`SYNTHETIC_DEFAULT_N` for the synthetic data)."""
    if n is None and dataset == "synthetic":
        n = SYNTHETIC_DEFAULT_N
    return None if n is None else int(check_ns([n], dataset)[0])


def mechanisms_at(settings: SweepSettings, epsilon: float) -> list:
    """The private mechanisms of the sweep at one ε (None in the place of the non-private fit, which is
    fitted once per repetition and serves every ε)."""
    return [None if m == "non_private" else
            make_mechanism(m, epsilon=epsilon, delta=settings.delta, inflate=settings.inflate)
            for m in settings.methods]


def run_trial(data: TrialData, settings: SweepSettings, epsilons, mechanisms, n_key: int, t: int) -> np.ndarray:
    """Every mechanism at every ε on one repetition's data: an array (mechanisms, ε, 3) of the test metric,
    the excess risk and the constant predictor's test metric (NaN where a calibration is invalid).
    ``mechanisms[j]`` are the mechanisms at ``epsilons[j]`` (`mechanisms_at`)."""
    loss, sums = settings.loss, data.sums
    w_hat = NonPrivate().release(sums, loss).w
    risk_hat = sums.risk(w_hat)
    constant = evaluate_metric(loss, constant_predictor(sums, settings.intercept, loss.R), data.X_test, data.y_test)
    out = np.full((len(settings.methods), len(epsilons), 3), np.nan)
    out[:, :, 2] = constant
    for j, eps in enumerate(epsilons):
        for i, (name, mechanism) in enumerate(zip(settings.methods, mechanisms[j])):
            if mechanism is None:
                w = w_hat
            else:
                rng = noise_generator(settings.seed, n_key, t, name, eps, settings.inflate)
                result = mechanism.release(sums, loss, rng)
                if not result.valid:
                    continue
                w = result.w
            out[i, j, 0] = evaluate_metric(loss, w, data.X_test, data.y_test)
            out[i, j, 1] = sums.risk(w) - risk_hat
    return out


def sweep_result(settings: SweepSettings, axis: str, values, cells: np.ndarray, epsilon, n, d: int,
                 guarantee_epsilon: float) -> SweepResult:
    """The `SweepResult` of filled ``cells`` (mechanisms, values, repeats, 3), with the settings that
    `sweep_to_dict` (the CLI's JSON) needs."""
    metric = settings.metric
    guarantees = {}
    for m in settings.methods:
        mechanism = make_mechanism(m, epsilon=guarantee_epsilon, delta=settings.delta, inflate=settings.inflate)
        guarantees[m] = str(mechanism.guarantee) if axis == "n" else mechanism.guarantee.kind
    return SweepResult(
        mechanisms=settings.methods, epsilons=np.asarray(values, dtype=np.float64),
        metrics=(metric, "excess_risk", f"constant_{metric}"), values=cells, seed=settings.seed,
        labels={m: METHOD_LABELS[m] for m in settings.methods}, axis=axis,
        settings={"dataset": settings.dataset, "task": settings.task, "metric": metric, "epsilon": epsilon,
                  "delta": settings.delta, "n": n, "d": d, "R": settings.R, "inflate": settings.inflate},
        guarantees=guarantees)


def n_sweep(dataset="synthetic", mechanisms=METHODS, ns=DEFAULT_NS, *, epsilon=1.0, repeats=20, seed=0,
            progress=None, delta=1e-6, d=10, R=1.0, task="regression", inflate=1.0) -> SweepResult:
    """Test metric and excess risk of ``mechanisms`` (names) against n (paper §4, Fig. 1) at one ε,
    ``repeats`` repetitions per n: a `SweepResult` with ``axis`` "n" (its ``epsilons`` field holds the
    n values; ε is in ``settings``).

    Data per repetition as in the module docstring (d is used by the synthetic data only; diabetes has
    d = 11, census2000 d = 4, intercepts included). ``progress(fraction, message)`` is called after each
    (n, repetition), the fraction weighted by n (the cost of drawing the data)."""
    settings = check_settings(dataset, task, R, repeats, seed, mechanisms, inflate, delta)
    epsilon = float(check_sweep_epsilons([epsilon])[0])
    d = check_synthetic_d(d)
    ns = check_ns(ns, settings.dataset)
    at_epsilon = [mechanisms_at(settings, epsilon)]
    cells = empty_values(len(settings.methods), len(ns), settings.repeats, 3)
    weights = (ns.astype(np.float64) + 2000.0) * settings.repeats
    total, done = float(weights.sum()), 0.0
    data_d = d
    with single_threaded_blas(), ThreadPoolExecutor(max_workers=workers()) as pool:
        for i, n in enumerate(ns):
            stream = trial_stream(settings.dataset, settings.loss, int(n), d, settings.seed, settings.repeats,
                                  settings.task, pool)
            for t, data in enumerate(stream):
                data_d = data.sums.d
                cells[:, i, t, :] = run_trial(data, settings, (epsilon,), at_epsilon, int(n), t)[:, 0, :]
                done += weights[i] / settings.repeats
                if progress is not None:
                    progress(done / total, f"n = {int(n):,}: repeat {t + 1} of {settings.repeats}")
    return sweep_result(settings, "n", ns, cells, epsilon, None, data_d, epsilon)


def sweep(dataset="diabetes", mechanisms=METHODS, epsilons=DEFAULT_EPSILONS, *, repeats=100, seed=0,
          progress=None, delta=1e-5, n=None, d=10, R=1.0, task="regression", inflate=1.0) -> SweepResult:
    """Test metric and excess risk of ``mechanisms`` (names) against ε at a fixed training size: for
    diabetes, the §4-style small-n reality check (our addition). Repetition t uses split / seed
    ``seed + t`` (synthetic: data seed ``trial_seed(seed, n, t)``, n = 10,000 by default); its data and ŵ
    serve every ε. ``n`` = None: all training records (diabetes 354, census2000 24,000); the training
    size used is ``settings["n"]`` of the result."""
    settings = check_settings(dataset, task, R, repeats, seed, mechanisms, inflate, delta)
    epsilons = check_sweep_epsilons(epsilons)
    d = check_synthetic_d(d)
    n_value = fixed_n(n, settings.dataset)
    by_epsilon = [mechanisms_at(settings, float(eps)) for eps in epsilons]
    cells = empty_values(len(settings.methods), epsilons.size, settings.repeats, 3)
    data_d, n_seen = d, n_value
    with single_threaded_blas():
        for t in range(settings.repeats):
            data = trial_data(settings.dataset, settings.loss, n_value, d, settings.seed, t, settings.task)
            data_d, n_seen = data.sums.d, data.sums.n
            cells[:, :, t, :] = run_trial(data, settings, epsilons, by_epsilon, n_seen, t)
            if progress is not None:
                progress((t + 1) / settings.repeats, f"repeat {t + 1} of {settings.repeats}")
    return sweep_result(settings, "epsilon", epsilons, cells, None, n_seen, data_d, float(epsilons[0]))


def metric_of(result: SweepResult) -> str:
    """The test metric of an ERM sweep's result, "rmse" or "accuracy" (its first metric)."""
    return result.metrics[0]


def constant_of(result: SweepResult) -> np.ndarray:
    """The constant predictor's mean test metric at each axis value of an ERM sweep's result (the same
    for every mechanism: it is read from the first)."""
    return result.mean(result.mechanisms[0], f"constant_{metric_of(result)}")


def valid_of(result: SweepResult, method: str) -> np.ndarray:
    """Per axis value: ``method`` gave a model in every repetition (its calibration was valid)."""
    return result.count(method, metric_of(result)) == result.repeats


def sweep_to_dict(result: SweepResult) -> dict:
    """The JSON of ``erm-sweep`` (its shape since the first release, kept so that recorded outputs stay
    byte-identical): the settings and, per axis value, {method: {"<metric>_mean", "<metric>_sd",
    "excess_risk_mean", "excess_risk_sd", "valid"}} and "constant_<metric>"; NaN becomes None. SD over
    the repetitions (ddof = 1; 0 for one repetition); ``valid``: the method gave a model in every
    repetition."""
    settings, axis = result.settings, result.axis
    metric = metric_of(result)
    one = result.repeats == 1
    stats = {}
    for m in result.mechanisms:
        values = result.per_repeat(m, metric)
        sd = np.zeros(values.shape[0]) if one else result.sd(m, metric)
        excess_sd = np.zeros(values.shape[0]) if one else result.sd(m, "excess_risk")
        stats[m] = (result.mean(m, metric), sd, result.mean(m, "excess_risk"), excess_sd, valid_of(result, m))
    constant = constant_of(result)
    points = []
    for i, value in enumerate(result.epsilons):
        cell = {m: {f"{metric}_mean": finite_or_none(mean[i]), f"{metric}_sd": finite_or_none(sd[i]),
                    "excess_risk_mean": finite_or_none(excess[i]), "excess_risk_sd": finite_or_none(excess_sd[i]),
                    "valid": bool(valid[i])}
                for m, (mean, sd, excess, excess_sd, valid) in stats.items()}
        points.append({axis: int(value) if axis == "n" else float(value), "methods": cell,
                       f"constant_{metric}": finite_or_none(constant[i])})
    epsilon = settings["epsilon"]
    return {"dataset": settings["dataset"], "task": settings["task"], "axis": axis, "metric": metric,
            "epsilon": None if epsilon is None else finite_or_none(epsilon), "delta": settings["delta"],
            "n": settings["n"], "d": settings["d"], "R": settings["R"], "inflate": settings["inflate"],
            "trials": result.repeats, "seed": result.seed, "methods": list(result.mechanisms),
            "labels": {m: result.label(m) for m in result.mechanisms}, "points": points}


# ------------------------------------------------------------------------------------------ cost
@dataclass(frozen=True)
class SweepTiming:
    """This machine's pace for the three kernels of a sweep: seconds per synthetic record drawn and summed,
    per repetition's data set-up (a real dataset's split and sums; ~0 for the synthetic data, whose cost
    is its records), and per fit (one mechanism at one ε on one repetition: its noise generator, the
    release and the test metric)."""

    per_record: float
    per_repeat: float
    per_fit: float


#: Seeds of the timing runs, far from the seeds people use (a cached split would be timed as free).
TIMING_SEEDS = (2**31 - 3, 2**31 - 2, 2**31 - 1)
#: The ε of the timed fits: every calibration is valid there, at the full size of every dataset.
TIMING_EPSILON = 10.0


def _fastest(run, seeds) -> float:
    """The shortest time of ``run(seed)`` over ``seeds`` (one pause of a busy machine is not its pace)."""
    best = math.inf
    for seed in seeds:
        start = time.perf_counter()
        run(seed)
        best = min(best, time.perf_counter() - start)
    return best


@lru_cache(maxsize=8)
def measured_timing(dataset: str = "synthetic", d: int = 10) -> SweepTiming:
    """`SweepTiming` measured once per process, dataset and d: the sums of 20,000 synthetic records, a
    repetition's data of ``dataset`` (after one untimed load: imports and files) and `run_trial` with every
    mechanism on it, each the fastest of its runs. Measured rather than hard-coded because the constants
    depend on the machine and its load by a factor of several, while the counts of `work_size` do not."""
    dataset = check_dataset(dataset)
    loss = loss_for("regression")
    records = 20_000
    per_record = _fastest(lambda seed: synthetic_sums(loss, records, d, seed), TIMING_SEEDS[:2]) / records
    n = None if dataset != "synthetic" else 1000
    data = trial_data(dataset, loss, n, d, TIMING_SEEDS[0], 0, "regression")
    per_repeat = 0.0 if dataset == "synthetic" else _fastest(
        lambda seed: trial_data(dataset, loss, None, d, seed, 0, "regression"), TIMING_SEEDS[1:])
    settings = check_settings(dataset, "regression", 1.0, 1, 0, METHODS, 1.0, 1e-6)
    # at ε = TIMING_EPSILON every calibration is valid (an invalid one costs nothing and would make fits look free)
    mechanisms = [mechanisms_at(settings, TIMING_EPSILON)]

    def fits(t):
        return run_trial(data, settings, (TIMING_EPSILON,), mechanisms, data.sums.n, t)

    fits(0)  # the calibrations, computed once per sweep cell, and first-call costs
    per_fit = _fastest(fits, (1, 2, 3)) / len(METHODS)
    return SweepTiming(per_record=per_record, per_repeat=per_repeat, per_fit=per_fit)


def work_size(dataset: str, ns, epsilons: int, methods: int, repeats: int) -> tuple[float, float, float]:
    """(synthetic records drawn, data set-ups, fits) of a sweep over the sizes ``ns`` (one entry for an ε
    sweep) and ``epsilons`` values of ε: Σ n × repeats records (the synthetic data), sizes × repeats
    set-ups (the real data) and sizes × repeats × methods × ε fits."""
    sizes = np.asarray(ns, dtype=np.float64).reshape(-1)
    synthetic = dataset == "synthetic"
    records = float(sizes.sum()) * repeats if synthetic else 0.0
    setups = 0.0 if synthetic else float(sizes.size * repeats)
    return records, setups, float(sizes.size * repeats * methods * epsilons)


#: float64 arrays of the synthetic records alive at once per drawing thread: the chunk, its targets and the
#: products summed into the moments (a margin over what `synthetic_moments` holds).
CHUNK_COPIES = 4


def memory_bytes(dataset: str, ns, epsilons: int, methods: int, repeats: int, d: int = 10) -> float:
    """Bytes a sweep's arrays need at their peak (an estimate, for refusing what will not fit): the synthetic
    test set (20,000 × (d + 1)), `CHUNK_COPIES` chunks of `CHUNK_ROWS` × (d + 1) per drawing thread
    (`workers`), a few (d + 1)² moment and eigen matrices per fit, and the result cells (two metrics × ns ×
    ε × methods × repeats); a real dataset's records besides (at most 29,501 × 5 for census2000)."""
    cols = (min(int(d), 10**9) if dataset == "synthetic" else 11) + 1  # a huge d: refused, never overflowing
    size = len(tuple(ns))
    data = (SYNTHETIC_TEST_SIZE + CHUNK_COPIES * CHUNK_ROWS * workers()) * cols if dataset == "synthetic" \
        else 30_000 * cols * 4
    matrices = 8.0 * cols * cols * workers()
    cells = 2.0 * size * epsilons * methods * repeats
    return 8.0 * (data + matrices + cells)


def estimate_seconds(dataset: str, ns, epsilons: int, methods: int, repeats: int, d: int = 10,
                     timing: SweepTiming | None = None) -> float:
    """Seconds a sweep will take: `work_size` × this machine's pace (`measured_timing`, or ``timing`` —
    tests pass a fixed one, so that the estimate does not depend on the machine's load). The records are
    counted as drawn on one thread: on a shared machine the second thread of `workers` gains little.

    Accuracy, 5 methods, on a 2-core machine shared with other jobs whose load changed by a factor of 3
    between runs (estimate / time taken): synthetic n = 10³, 10⁴, 10⁵ × 20 repeats: 0.5–0.9 / 0.7–2.1 s;
    the default n grid to 10⁶ × 20: 5–10 / 12–19 s; diabetes, 6 ε × 100: 2.3 / 4.2 s; census2000, 4 sizes
    × 20: 1.0 / 1.0 s — up to 3.5 times below the time taken when the load rose after the measurement. The
    refusal is meant for work of many minutes (``erm-sweep --n 4000000 --trials 1000``: about a quarter of
    an hour estimated)."""
    timing = measured_timing(check_dataset(dataset), int(d)) if timing is None else timing
    records, setups, fits = work_size(dataset, ns, epsilons, methods, repeats)
    return records * timing.per_record + setups * timing.per_repeat + fits * timing.per_fit


@dataclass(frozen=True, eq=False)
class InflationTradeoff:
    """Input perturbation (safe route) with both noise variances multiplied by m (paper §3.5, factor
    reconstructed from the paper's prose): per m, the model's ε_model (the accountant), one contributor's
    ε_L (BW18, δ_L = δ) and μ_L, and the test metric over the repetitions (NaN where invalid).
    ``non_private_mean``: the non-private model's mean metric on the same repetitions."""

    dataset: str
    task: str
    metric: str
    n: int
    epsilon: float
    delta: float
    d: int
    repeats: int
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
                "epsilon": self.epsilon, "delta": self.delta, "d": self.d, "repeats": self.repeats,
                "seed": self.seed, "non_private_mean": finite_or_none(self.non_private_mean), "points": points}


def check_inflations(inflations) -> np.ndarray:
    """A non-empty flat array of multipliers m ≥ 1."""
    items = np.atleast_1d(np.asarray(inflations, dtype=object)).tolist()
    if not items or np.ndim(inflations) > 1:
        raise ValueError("inflations must be a non-empty flat list of factors m ≥ 1.")
    return np.array([check_range(m, "inflate m", low=1.0) for m in items])


def inflation_tradeoff(dataset="synthetic", n=None, epsilon=1.0, delta=1e-6, inflations=DEFAULT_INFLATIONS, d=10,
                       repeats=20, seed=0, R=1.0, task="regression", progress=None) -> InflationTradeoff:
    """ε_L, ε_model and the test metric of input perturbation (safe calibration) for each inflation m:
    the page's Pareto plot (paper §3.5). Every m reuses the repetition's data (as in `n_sweep`). ``n`` =
    None: 10,000 for the synthetic data, every training record of a real dataset."""
    settings = check_settings(dataset, task, R, repeats, seed, ("input_safe",), 1.0, delta)
    epsilon = check_epsilon(epsilon)
    d = check_synthetic_d(d)
    ms = check_inflations(inflations)
    n_value = fixed_n(n, settings.dataset)
    loss, repeats, seed, delta = settings.loss, settings.repeats, settings.seed, settings.delta
    mechanisms = [InputPerturbationSafe(epsilon=epsilon, delta=delta, inflate=float(m)) for m in ms]
    values = np.full((ms.size, repeats), np.nan)
    reference = np.full(repeats, np.nan)
    n_seen, data_d = n_value, d
    with single_threaded_blas():
        for t in range(repeats):
            data = trial_data(settings.dataset, loss, n_value, d, seed, t, settings.task)
            n_seen, data_d = data.sums.n, data.sums.d
            w_hat = NonPrivate().release(data.sums, loss).w
            reference[t] = evaluate_metric(loss, w_hat, data.X_test, data.y_test)
            for k, (m, mechanism) in enumerate(zip(ms, mechanisms)):
                result = mechanism.release(data.sums, loss, noise_generator(seed, n_seen, t, "input_safe", epsilon, m))
                if result.valid:
                    values[k, t] = evaluate_metric(loss, result.w, data.X_test, data.y_test)
            if progress is not None:
                progress((t + 1) / repeats, f"repeat {t + 1} of {repeats}")
    cals = [calibrate(epsilon, delta, n_seen, data_d, settings.R, loss.A, loss.B, float(m)) for m in ms]
    mean, sd = summarise(values)
    return InflationTradeoff(
        dataset=settings.dataset, task=settings.task, metric=settings.metric, n=n_seen, epsilon=epsilon,
        delta=delta, d=data_d, repeats=repeats, seed=seed, inflations=ms,
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
    "MAX_REPEATS",
    "NOISE_TAG",
    "SWEEP_AXIS",
    "InflationTradeoff",
    "InsideView",
    "SweepSettings",
    "SweepTiming",
    "check_settings",
    "constant_of",
    "constant_predictor",
    "estimate_seconds",
    "evaluate_metric",
    "inflation_tradeoff",
    "inside_view",
    "loss_for",
    "measured_timing",
    "metric_name",
    "metric_of",
    "n_sweep",
    "noise_generator",
    "sizes_within",
    "sweep",
    "sweep_to_dict",
    "trial_data",
    "valid_of",
    "work_size",
    "workers",
]
