"""The label-DP sweep: every randomiser × ε × repetition, each run retrained in every mode.

``sweep(data, randomisers, epsilons, *, repeats, seed, progress, model, modes, …)`` returns the one
`privlib.core.sweep.SweepResult` (randomiser × ε × repetition × metric; the metrics are each mode's
accuracy, the label diagnostics and the fallbacks; the non-private reference per repetition and the
data seeds in its settings). `RetrainingSweep.of(result)` reads it the label-DP way — by retraining
mode, with the keep probability per ε and the ``retrain`` command's JSON — and `retraining_sweep`
does both, for the page and the CLI.

Seeding (the one scheme of `privlib.core.sweep`): repetition r of randomiser R draws its labels from
``child_rng(seed, r, R.name)`` — so a cell's labels depend on nothing else that runs — at EVERY ε:
common random numbers across ε (and across modes, which share one set of released labels), so the
curves against ε compare like with like. Synthetic data are redrawn per repetition (``redraw_data``):
repetition 0 is the dataset as given, repetition r ≥ 1 is drawn with the seed `data_seed` (the
dataset's seed, r) — not the dataset's seed + r, with which datasets of adjacent seeds would share
draws.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from privlib.core.randomised_response import RandomisedResponse
from privlib.core.sweep import Progress, SweepResult, child_rng, child_seed_sequence, empty_values
from privlib.core.threads import single_threaded_blas
from privlib.core.validation import (
    check_epsilon,
    check_positive_int,
    check_range,
    check_seed,
    environment_number,
)
from privlib.label_dp.datasets import LabelDataset, fig1_mixture
from privlib.label_dp.mechanisms import GUARANTEE, MECHANISMS, LabelRandomiser, make_randomiser
from privlib.label_dp.models import make_model
from privlib.label_dp.retraining import (
    MODE_LABELS,
    MODES,
    RETRAINING_MODES,
    RetrainingRun,
    as_dataset,
    check_modes,
    evaluation_kind,
    nonprivate_accuracy,
    retrain,
)

#: The ε grid of a sweep when none is given.
DEFAULT_EPSILONS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
#: The label diagnostics of every run (clean training labels; never fed back).
DIAGNOSTICS = ("consensus_fraction", "given_label_accuracy", "predicted_label_accuracy", "consensus_label_accuracy")


def accuracy_metric(mode: str) -> str:
    """The `SweepResult` metric of a mode's test accuracy, e.g. "accuracy_full"."""
    return f"accuracy_{mode}"


def fallback_metric(mode: str) -> str:
    """The `SweepResult` metric that is 1 where a mode kept the baseline model, else 0."""
    return f"fallback_{mode}"


#: The metrics of the sweep's `SweepResult`, in this order.
METRICS = tuple(accuracy_metric(m) for m in MODES) + DIAGNOSTICS + tuple(fallback_metric(m) for m in MODES)


def repeat_rng(seed: int, repeat: int, randomiser: str) -> np.random.Generator:
    """The generator of repetition ``repeat`` of ``randomiser`` (at every ε): ``child_rng(seed,
    repeat, randomiser)``."""
    return child_rng(seed, repeat, randomiser)


def _stats(values: np.ndarray) -> dict:
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    mean = float(finite.mean()) if finite.size else None
    sd = float(finite.std(ddof=1)) if finite.size > 1 else (0.0 if finite.size else None)
    return {"mean": mean, "sd": sd, "per_seed": [None if not math.isfinite(v) else float(v) for v in values]}


@dataclass(frozen=True, eq=False)
class RetrainingSweep:
    """A label-DP sweep read by retraining mode (`of` a `sweep` result): ``result`` (the
    `SweepResult`: randomiser × ε × repetition × `METRICS`) and the label-DP extras: ``nonprivate`` (per repetition, the model fitted on clean labels, a
    diagnostic), ``keep_probability`` (e^ε/(e^ε + C − 1) per ε, RR's given-label accuracy),
    ``data_seeds`` (the synthetic data's seed per repetition, None when not redrawn).

    Accessors take a mode or diagnostic and, optionally, a randomiser (default: the first one);
    arrays are per ε, or ε × repetitions (``per_repeat``, ``gain``)."""

    result: SweepResult
    dataset: str
    model: str
    classes: int
    modes: tuple
    evaluation: str
    fresh_unlabelled: bool
    nonprivate: np.ndarray
    keep_probability: np.ndarray
    data_seeds: tuple | None = None
    guarantee: str = GUARANTEE

    @classmethod
    def of(cls, result: SweepResult) -> RetrainingSweep:
        """The label-DP reading of a `sweep` result: its settings, the non-private accuracy per
        repetition and RR's keep probability e^ε/(e^ε + C − 1) at each ε."""
        settings = result.settings
        classes = int(settings["classes"])
        keep = np.array([RandomisedResponse(classes, float(e)).keep_probability for e in result.epsilons])
        seeds = settings.get("data_seeds")
        return cls(result=result, dataset=settings["dataset"], model=settings["model"], classes=classes,
                   modes=tuple(settings["modes"]), evaluation=settings["evaluation"],
                   fresh_unlabelled=bool(settings["fresh_unlabelled"]),
                   nonprivate=np.asarray(settings["nonprivate_per_repeat"], dtype=float), keep_probability=keep,
                   data_seeds=None if seeds is None else tuple(seeds))

    @property
    def randomisers(self) -> tuple:
        return self.result.mechanisms

    @property
    def epsilons(self) -> np.ndarray:
        return self.result.epsilons

    @property
    def repeats(self) -> int:
        return self.result.repeats

    @property
    def seed(self) -> int:
        return self.result.seed

    def _randomiser(self, randomiser: str | None) -> str:
        return self.randomisers[0] if randomiser is None else randomiser

    def _metric(self, name: str) -> str:
        return accuracy_metric(name) if name in MODES else name

    def per_repeat(self, name: str, randomiser: str | None = None) -> np.ndarray:
        """ε × repetitions values of a mode's accuracy (``name`` a mode) or of a diagnostic."""
        return self.result.per_repeat(self._randomiser(randomiser), self._metric(name))

    def mean(self, name: str, randomiser: str | None = None) -> np.ndarray:
        """Mean over the repetitions per ε of a mode's accuracy or a diagnostic (NaN where undefined)."""
        return self.result.mean(self._randomiser(randomiser), self._metric(name))

    def sd(self, name: str, randomiser: str | None = None) -> np.ndarray:
        """Sample SD (ddof = 1; 0 with one repetition) per ε."""
        return self.result.sd(self._randomiser(randomiser), self._metric(name))

    def standard_error(self, name: str, randomiser: str | None = None) -> np.ndarray:
        return self.result.standard_error(self._randomiser(randomiser), self._metric(name))

    def defined(self, mode: str, randomiser: str | None = None) -> bool:
        """False for a mode that is undefined at every ε (consensus on a fresh X_U) or not computed."""
        return mode in self.modes and bool(np.any(np.isfinite(self.mean(mode, randomiser))))

    def gain(self, mode: str, randomiser: str | None = None) -> np.ndarray:
        """Per-repetition accuracy gain of ``mode`` over the baseline (ε × repetitions)."""
        return self.per_repeat(mode, randomiser) - self.per_repeat("baseline", randomiser)

    def fallbacks(self, mode: str, randomiser: str | None = None) -> np.ndarray:
        """Per ε, the number of repetitions in which ``mode`` kept the baseline model."""
        return np.nansum(self.result.per_repeat(self._randomiser(randomiser), fallback_metric(mode)), axis=1)

    def cell(self, index: int, randomiser: str | None = None) -> dict:
        """The ``retrain`` command's JSON object for ε = epsilons[index]."""
        name = self._randomiser(randomiser)
        out = {"epsilon": float(self.epsilons[index]), "baseline_method": name}
        for mode in MODES:
            out[mode] = _stats(self.per_repeat(mode, name)[index]) if mode in self.modes else None
        for key in DIAGNOSTICS:
            out[key] = _stats(self.per_repeat(key, name)[index])
        out["keep_probability"] = float(self.keep_probability[index])
        out["nonprivate"] = float(np.mean(self.nonprivate))
        out["fallbacks"] = {m: int(self.fallbacks(m, name)[index]) for m in self.modes}
        return out

    def to_dict(self, randomiser: str | None = None) -> dict:
        """JSON-ready, for one randomiser: with one ε, the ``retrain`` command's object ({epsilon,
        baseline, full, consensus, confidence (each {mean, sd, per_seed}: per_seed lists the
        repetitions), the label diagnostics (same shape), keep_probability, nonprivate, fallbacks});
        with several, {"epsilons": [...], "results": [one such object per ε]}. Both carry dataset,
        model, seed, repeats, classes, evaluation and the guarantee."""
        meta = {"dataset": self.dataset, "model": self.model, "seed": self.seed, "repeats": self.repeats,
                "classes": self.classes, "evaluation": self.evaluation, "fresh_unlabelled": self.fresh_unlabelled,
                "guarantee": self.guarantee}
        if self.epsilons.size == 1:
            return {**self.cell(0, randomiser), **meta}
        return {"epsilons": self.epsilons.tolist(),
                "results": [self.cell(i, randomiser) for i in range(self.epsilons.size)], **meta}


def _randomiser_names(randomisers) -> tuple:
    if isinstance(randomisers, (str, type)):
        randomisers = (randomisers,)
    names = []
    for item in randomisers:
        name = item.name if isinstance(item, type) and issubclass(item, LabelRandomiser) else item
        if name not in MECHANISMS:
            raise ValueError(f"Unknown label randomiser {name!r}; choose one of: {', '.join(MECHANISMS)}.")
        names.append(name)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"Give one or more distinct label randomisers, got {randomisers!r}.")
    return tuple(names)


def _check_epsilon_list(epsilons) -> np.ndarray:
    try:
        array = np.atleast_1d(np.asarray(epsilons, dtype=np.float64))
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim != 1 or array.size == 0:
        raise ValueError(f"epsilons must be a number or a non-empty flat list of numbers, got {epsilons!r}.")
    return np.array([check_epsilon(float(e), allow_zero=True) for e in array])


def _check_modes(modes) -> tuple:
    """``modes`` and the baseline (every run fits it), in `MODES` order."""
    return check_modes(((modes,) if isinstance(modes, str) else tuple(modes)) + ("baseline",))


def data_seed(dataset: LabelDataset, repeat: int) -> int:
    """The seed of the synthetic data of repetition ``repeat``: the dataset's own seed for repetition
    0 (the data as given, e.g. the ones a page shows), else the first word of ``SeedSequence((the
    dataset's seed, "data", repeat))`` (`privlib.core.sweep.child_seed_sequence`)."""
    own = int(dataset.params.get("seed", 0))
    return own if repeat == 0 else int(child_seed_sequence(own, "data", repeat).generate_state(1)[0])


def _repeat_data(dataset: LabelDataset, repeat: int, redraw: bool) -> LabelDataset:
    """The data of repetition ``repeat``: a new draw of synthetic data (`data_seed`) when
    ``redraw``, else the dataset itself."""
    return dataset.redraw(data_seed(dataset, repeat)) if redraw else dataset


def _record(values: np.ndarray, run: RetrainingRun, modes: tuple) -> None:
    """Write one run's accuracies, diagnostics and fallbacks into its cell's METRICS row."""
    row = dict.fromkeys(METRICS, math.nan)
    for mode in modes:
        row[accuracy_metric(mode)] = run.accuracy[mode]
        row[fallback_metric(mode)] = float(mode in run.fallbacks)
    for key in DIAGNOSTICS:
        row[key] = getattr(run, key)
    values[:] = [row[k] for k in METRICS]


def sweep(data, randomisers, epsilons=DEFAULT_EPSILONS, *, repeats: int = 5, seed: int = 0,
          progress: Progress | None = None, model="logistic", modes=MODES, fresh_unlabelled: bool = False,
          redraw_data: bool | None = None, evaluation: str = "auto") -> SweepResult:
    """``retrain`` for every randomiser (names or classes of `MECHANISMS`; LP-2ST's M1 is ``model``),
    every ε of ``epsilons`` and repetitions r = 0..repeats−1, every mode of ``modes`` on one set of
    released labels per run; repetition r draws from `repeat_rng` (seed, r, randomiser).

    ``redraw_data`` (default: True for synthetic datasets): repetition r uses a new draw of the data
    (`data_seed`), so the spread includes the data; real datasets never change.
    ``progress(fraction, message)`` after each run. Fits run single-threaded
    (`privlib.core.threads.single_threaded_blas`): faster than oversubscribed BLAS threads on small problems.

    The `SweepResult` of the one pattern: randomiser × ε × repetition × `METRICS`, the settings
    (dataset, model, modes, evaluation, classes) and the non-private accuracy of each repetition and
    the synthetic data's seeds in ``settings``; `RetrainingSweep.of` reads it by retraining mode
    (`retraining_sweep` does both)."""
    dataset = as_dataset(data)
    names = _randomiser_names(randomisers)
    make_model(model, 2)  # ValueError for an unknown model, before any work
    epsilons = _check_epsilon_list(epsilons)
    modes = _check_modes(modes)
    repeats = check_positive_int(repeats, "repeats", maximum=10_000)
    seed = check_seed(seed)
    if fresh_unlabelled and dataset.X_unlabelled is None:
        raise ValueError(f"The {dataset.name} dataset has no fresh unlabelled set X_U: use the same training set.")
    redraw = dataset.synthetic if redraw_data is None else bool(redraw_data) and dataset.synthetic
    runs = dict(model=model, modes=modes, fresh_unlabelled=fresh_unlabelled, evaluation=evaluation)
    values, nonprivate = _run_cells(dataset, names, epsilons, repeats, seed, redraw, runs, progress)
    evaluated = evaluation_kind(dataset, model, evaluation)
    data_seeds = [data_seed(dataset, r) for r in range(repeats)] if redraw else None
    return SweepResult(
        mechanisms=names, epsilons=epsilons, metrics=METRICS, values=values, seed=seed,
        labels={name: MECHANISMS[name].label for name in names}, reference={"nonprivate": float(np.mean(nonprivate))},
        settings={"dataset": dataset.name, "model": model, "modes": list(modes), "evaluation": evaluated,
                  "fresh_unlabelled": bool(fresh_unlabelled), "classes": dataset.classes,
                  "nonprivate_per_repeat": [float(v) for v in nonprivate], "data_seeds": data_seeds},
        guarantees={name: GUARANTEE for name in names})


def retraining_sweep(data, randomisers, epsilons=DEFAULT_EPSILONS, **options) -> RetrainingSweep:
    """`sweep`, read by retraining mode (`RetrainingSweep.of`): what the page and the CLI show."""
    return RetrainingSweep.of(sweep(data, randomisers, epsilons, **options))


def _run_cells(dataset: LabelDataset, names: tuple, epsilons: np.ndarray, repeats: int, seed: int, redraw: bool,
               runs: dict, progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
    """Every run of a sweep: (values[randomiser, ε, repetition, metric], the non-private accuracy
    per repetition). ``runs``: model, modes, fresh_unlabelled and evaluation of `retrain`."""
    model, modes = runs["model"], runs["modes"]
    values = empty_values(len(names), epsilons.size, repeats, len(METRICS))
    nonprivate = np.full(repeats, np.nan)
    total, done = repeats * len(names) * epsilons.size, 0
    with single_threaded_blas():
        for r in range(repeats):
            data_r = _repeat_data(dataset, r, redraw)
            if r == 0 or redraw:
                reference = nonprivate_accuracy(data_r, model, runs["evaluation"])
            nonprivate[r] = reference
            for m, name in enumerate(names):
                for e, eps in enumerate(epsilons):
                    run = retrain(data_r, make_randomiser(name, float(eps), model), model, modes[-1], modes=modes,
                                  fresh_unlabelled=runs["fresh_unlabelled"], rng=repeat_rng(seed, r, name),
                                  evaluation=runs["evaluation"], details=False)
                    _record(values[m, e, r], run, modes)
                    done += 1
                    if progress is not None:
                        progress(done / total, f"{name}, ε = {eps:g}, repetition {r + 1} of {repeats}")
    return values, nonprivate


def sweep_run(data, randomiser: str, epsilon: float, *, seed: int = 0, repeat: int = 0, model="logistic",
              mode: str = "consensus", modes=MODES, fresh_unlabelled: bool = False,
              evaluation: str = "auto") -> RetrainingRun:
    """The run of repetition ``repeat`` at ``epsilon`` of a `sweep` with the same arguments (same data,
    same released labels), with the chart arrays (``retrained_predictions``); for showing one run.
    Single-threaded like the sweep's runs (`single_threaded_blas`): the same arithmetic as the
    sweep's cell, and no BLAS threads oversubscribing a busy machine (on 2 loaded cores a logistic
    run on digits took several times as long with them)."""
    dataset = as_dataset(data)
    name = _randomiser_names(randomiser)[0]
    repeat = check_positive_int(repeat, "repeat", minimum=0)
    with single_threaded_blas():
        return retrain(_repeat_data(dataset, repeat, dataset.synthetic), make_randomiser(name, epsilon, model), model,
                       mode, modes=_check_modes(tuple(modes) + (mode,)), fresh_unlabelled=fresh_unlabelled,
                       rng=repeat_rng(check_seed(seed), repeat, name), evaluation=evaluation)


# --------------------------------------------------------------------------------------------
# The cost of a sweep, for refusing long work
# --------------------------------------------------------------------------------------------

def fits_per_run(randomiser: str, modes=MODES) -> int:
    """Model fits of one run: the baseline, one per retraining mode, and the randomiser's own model
    (LP-2ST's M1)."""
    own = "model" in MECHANISMS[_randomiser_names(randomiser)[0]].PARAMETERS
    return 1 + sum(m in RETRAINING_MODES for m in _check_modes(modes)) + int(own)


#: The environment variable that replaces the timings of `fit_seconds` and `run_seconds` by a fixed
#: number of seconds (>= 0): with it, what the Label DP page starts by itself does not depend on the
#: machine's load (for tests of the page; unset, the machine is timed).
FIXED_SECONDS_VARIABLE = "PRIVLIB_LABEL_DP_SECONDS"


def fit_seconds(data, model="logistic", runs: int = 2) -> float:
    """The measured seconds of one model's work in a run, single-threaded as in the sweep: a fit on
    the training set (clean labels), its predictions on the training points and on the test set
    (k-NN's cost is in the predictions, not the fit); the fastest of ``runs`` timings (the first
    also pays for imports and warm-up): the per-fit cost of `estimate_seconds`. The number in
    `FIXED_SECONDS_VARIABLE` instead, when set."""
    dataset = as_dataset(data)
    fixed = environment_number(FIXED_SECONDS_VARIABLE, "seconds")
    if fixed is not None:
        return fixed
    times = []
    with single_threaded_blas():
        for _ in range(check_positive_int(runs, "runs")):
            start = time.perf_counter()
            fitted = make_model(model, dataset.classes).fit(dataset.X_train, dataset.y_train)
            fitted.predict_proba_train()
            fitted.predict(dataset.X_test)
            times.append(time.perf_counter() - start)
    return min(times)


def run_seconds(data, randomiser="rr", model="logistic", modes=MODES, runs: int = 2) -> float:
    """The measured seconds of one whole run of a sweep, single-threaded as in the sweep: the release
    of the labels (at ε = 1), every fit of ``modes``, the evaluation and the label diagnostics, and a
    new draw of synthetic data (a sweep draws one per repetition); the median of ``runs`` timings
    (a run is short: the median is steadier than the fastest on a busy machine). The number in
    `FIXED_SECONDS_VARIABLE` instead, when set.
    With an instant fit (the centroid's) the rest of the run is most of its cost, which a count of
    fits (`fit_seconds`) misses: the ``per_run`` of `estimate_seconds`."""
    dataset = as_dataset(data)
    name = _randomiser_names(randomiser)[0]
    modes = _check_modes(modes)
    fixed = environment_number(FIXED_SECONDS_VARIABLE, "seconds")
    if fixed is not None:
        return fixed
    times = []
    with single_threaded_blas():
        for r in range(check_positive_int(runs, "runs")):
            start = time.perf_counter()
            data_r = _repeat_data(dataset, r + 1, dataset.synthetic)
            retrain(data_r, make_randomiser(name, 1.0, model), model, modes[-1], modes=modes,
                    rng=repeat_rng(0, r, name), details=False)
            times.append(time.perf_counter() - start)
    return float(np.median(times))


def estimate_seconds(data, randomisers, epsilons, repeats: int, *, model="logistic", modes=MODES,
                     redraw_data: bool | None = None, per_fit: float | None = None,
                     per_run: float | None = None) -> float:
    """Estimated seconds of `sweep`: (fits of every run + the non-private fits) × the cost of one
    fit, ``per_fit`` (seconds; None: `fit_seconds` measures one — pass a number to make the estimate
    independent of the machine's load). With ``per_run`` (the seconds of one whole run of one
    randomiser, `run_seconds`): runs × per_run + the non-private fits × per_fit instead, which
    counts the work besides the fits too."""
    dataset = as_dataset(data)
    names = _randomiser_names(randomisers)
    repeats = check_positive_int(repeats, "repeats", maximum=10_000)
    size = _check_epsilon_list(epsilons).size
    runs_fits = sum(fits_per_run(name, modes) for name in names) * size * repeats
    redraw = dataset.synthetic if redraw_data is None else bool(redraw_data) and dataset.synthetic
    cost = fit_seconds(dataset, model) if per_fit is None else check_range(per_fit, "per_fit", low=0.0)
    nonprivate = (repeats if redraw else 1) * cost
    if per_run is not None:
        return len(names) * size * repeats * check_range(per_run, "per_run", low=0.0) + nonprivate
    return runs_fits * cost + nonprivate


# --------------------------------------------------------------------------------------------
# The retraining gain over (class separation, ε)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class GainGrid:
    """Mean (and sd over repeats) accuracy gain of a retraining mode over the baseline on a grid of
    (class separation Δ, ε) for the Fig. 1 mixture: ``mean_gain[i, j]`` at Δ = delta_seps[i],
    ε = epsilons[j]."""

    delta_seps: np.ndarray
    epsilons: np.ndarray
    mode: str
    model: str
    mean_gain: np.ndarray
    sd_gain: np.ndarray
    baseline_accuracy: np.ndarray
    repeats: int


def gain_grid(delta_seps, epsilons, model="centroid", mode: str = "full", repeats: int = 5, seed: int = 0,
              n: int = 300, d: int = 50, randomiser: str = "rr", progress: Progress | None = None) -> GainGrid:
    """`sweep` on ``fig1_mixture(Δ, n, d, seed)`` for each Δ: the retraining gain (mode − baseline)
    over (Δ, ε), for the heat map (our addition). ``progress(fraction, message)``."""
    deltas = np.array([check_range(v, "delta_sep", low=0.0, low_inclusive=False) for v in np.atleast_1d(delta_seps)])
    epsilons = _check_epsilon_list(epsilons)
    if mode not in RETRAINING_MODES:
        raise ValueError(f"mode must be one of {', '.join(RETRAINING_MODES)}, got {mode!r}.")
    mean, sd, base = (np.empty((deltas.size, epsilons.size)) for _ in range(3))
    for i, delta in enumerate(deltas):
        def tick(fraction, message, i=i):
            if progress is not None:
                progress((i + fraction) / deltas.size, f"Δ = {delta:g}: {message}")

        result = retraining_sweep(fig1_mixture(delta_sep=float(delta), n=n, d=d, seed=seed), randomiser, epsilons,
                                  repeats=repeats, seed=seed, progress=tick, model=model, modes=("baseline", mode))
        gain = result.gain(mode)
        mean[i] = np.nanmean(gain, axis=1)
        sd[i] = np.nanstd(gain, axis=1, ddof=1) if repeats > 1 else 0.0
        base[i] = result.mean("baseline")
    return GainGrid(delta_seps=deltas, epsilons=epsilons, mode=mode, model=model, mean_gain=mean, sd_gain=sd,
                    baseline_accuracy=base, repeats=repeats)


__all__ = ["DEFAULT_EPSILONS", "DIAGNOSTICS", "FIXED_SECONDS_VARIABLE", "GainGrid", "METRICS", "MODE_LABELS",
           "RetrainingSweep", "accuracy_metric", "data_seed", "estimate_seconds", "fallback_metric", "fit_seconds",
           "fits_per_run", "gain_grid", "repeat_rng", "run_seconds", "sweep", "sweep_run"]
