"""Retraining with predicted hard labels: one run from released labels to scored models.

Source: Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy"
(§1, §3, App. H, App. I); the labels come from a label randomiser of `privlib.label_dp.mechanisms`
(RR, RRWithPrior, LP-2ST of Ghazi et al. 2021).

Privacy structure (ε-label DP, features unprotected). Clean training labels enter ONLY through the
randomiser's ``release``; each label is randomised once and stored. Everything after it,
``retrain_from_noisy``, receives features and the stored noisy labels only: the baseline fit, its
predicted labels, the consensus set, the margins and every retrained model are post-processing of
the noisy labels, so a run stays ε-label DP. ``retrain`` then scores the models on clean TEST labels
(evaluation only) and computes label-accuracy diagnostics with the clean training labels (teaching
diagnostics, never fed back).

Retraining modes (§1 and App. I), with M the model and ŷ the noisy labels:
- ``baseline``: M(X, ŷ), no retraining;
- ``full``: refit M from scratch on (x_j, ỹ_j) for all j, ỹ_j = baseline prediction on x_j;
- ``consensus``: refit on {j : ỹ_j = ŷ_j} with labels ỹ_j (= ŷ_j there);
- ``confidence``: refit on the ⌊m/2⌋ points of largest margin (top-1 minus top-2 predicted
  probability; stable sort, so ties keep index order) with labels ỹ.
With ``fresh_unlabelled`` the predicted labels are those of a fresh unlabelled set X_U (§4, eq. 3):
full and confidence retrain on X_U; consensus needs a given label per point and is undefined there.
An empty retraining set, or one whose labels are all one class, falls back to the baseline model
(our guard, reported in ``fallbacks``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.core.randomised_response import RandomisedResponse
from privlib.core.validation import as_generator
from privlib.label_dp.datasets import LabelDataset, load_dataset
from privlib.label_dp.mechanisms import GUARANTEE, LabelRandomiser
from privlib.label_dp.models import LabelModel, make_model, top_two_margin

#: The retraining modes in their order everywhere ("baseline": no retraining).
MODES = ("baseline", "full", "consensus", "confidence")
RETRAINING_MODES = ("full", "consensus", "confidence")
#: The one set of labels of the modes, for figures, the CLI and the page.
MODE_LABELS = {"baseline": "baseline (no retraining)", "full": "full retraining",
               "consensus": "consensus retraining", "confidence": "confidence retraining (top-margin half)"}
EVALUATIONS = ("auto", "test", "population")


# --------------------------------------------------------------------------------------------
# The retraining pipeline: features and noisy labels only
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PipelineResult:
    """Models and label arrays of one retraining run (no clean label was used to make any of them).

    ``predicted_labels``: the baseline's ỹ on the training points (leave-one-out for k-NN);
    ``consensus_mask``: ỹ = ŷ; ``retraining_sets``: the indices each retrained model was fitted on
    (into X_U with ``fresh_unlabelled``); ``models[mode]``: the fitted model (None if undefined);
    ``fallbacks[mode]``: why a mode kept the baseline model."""

    models: dict
    given_labels: np.ndarray
    predicted_labels: np.ndarray
    consensus_mask: np.ndarray
    retraining_sets: dict
    fallbacks: dict
    fresh_unlabelled: bool


def retrain_from_noisy(X_train, given_labels, classes: int, model="logistic", modes=MODES,
                       X_unlabelled=None) -> PipelineResult:
    """Baseline and retrained models from features and STORED NOISY LABELS only (post-processing).

    Each stage is a fresh fit (a new model object). See the module docstring for the modes."""
    modes = check_modes(modes)
    X_train = np.asarray(X_train, dtype=np.float64)
    given = np.asarray(given_labels, dtype=np.int64)
    base = make_model(model, classes).fit(X_train, given)
    predicted = base.predict_train()
    consensus = predicted == given
    models, sets, fallbacks = {"baseline": base}, {}, {}
    if base.single_class:
        fallbacks["baseline"] = "the noisy labels hold a single class: the baseline predicts it everywhere"
    if X_unlabelled is None:
        pool_X, pool_y, pool_proba = X_train, predicted, base.predict_proba_train()
    else:
        pool_X = np.asarray(X_unlabelled, dtype=np.float64)
        pool_y, pool_proba = base.predict(pool_X), base.predict_proba(pool_X)
    for mode in modes:
        if mode == "baseline":
            continue
        if mode == "full":
            index = np.arange(pool_y.size)
        elif mode == "consensus":
            if X_unlabelled is not None:
                models[mode], sets[mode] = None, None
                fallbacks[mode] = "undefined on a fresh unlabelled set (no given labels to agree with)"
                continue
            index = np.flatnonzero(consensus)
        else:  # confidence: the ⌊m/2⌋ largest margins, stable sort
            order = np.argsort(-top_two_margin(pool_proba), kind="stable")
            index = np.sort(order[: pool_y.size // 2])
        sets[mode] = index
        labels = pool_y[index]
        if index.size == 0:
            models[mode], fallbacks[mode] = base, "empty retraining set: kept the baseline model"
        elif np.all(labels == labels[0]):
            models[mode], fallbacks[mode] = base, "retraining labels hold a single class: kept the baseline model"
        else:
            models[mode] = make_model(model, classes).fit(pool_X[index], labels)
    return PipelineResult(models=models, given_labels=given, predicted_labels=predicted, consensus_mask=consensus,
                          retraining_sets=sets, fallbacks=fallbacks, fresh_unlabelled=X_unlabelled is not None)


def check_modes(modes) -> tuple:
    """The modes in `MODES` order without repeats; ValueError for an unknown or no mode."""
    if isinstance(modes, str):
        modes = (modes,)
    modes = tuple(modes)
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise ValueError(f"Unknown retraining mode(s) {bad or modes!r}: use some of {', '.join(MODES)}.")
    return tuple(m for m in MODES if m in modes)  # canonical order, no duplicates


def _check_model_name(model) -> str:
    make_model(model, 2)  # raises ValueError on an unknown name
    return model


def as_dataset(dataset) -> LabelDataset:
    """A `LabelDataset`, or the dataset of that name with its default parameters."""
    if isinstance(dataset, LabelDataset):
        return dataset
    if isinstance(dataset, str):
        return load_dataset(dataset)
    raise ValueError(f"dataset must be a LabelDataset or a dataset name, got {dataset!r}.")


def evaluate(model: LabelModel | None, dataset: LabelDataset, evaluation: str = "auto") -> float:
    """Accuracy of a fitted model on clean labels (evaluation only, never fed back).

    ``"population"``: the closed-form population accuracy (synthetic data and a binary linear model);
    ``"test"``: the test-set accuracy; ``"auto"``: population where available, else test set."""
    if model is None:
        return float("nan")
    if evaluation not in EVALUATIONS:
        raise ValueError(f"Unknown evaluation {evaluation!r}: use one of {', '.join(EVALUATIONS)}.")
    rule = model.linear_rule() if dataset.synthetic else None
    if evaluation == "population" and rule is None:
        raise ValueError("Population accuracy needs a synthetic dataset and a binary linear model.")
    if rule is not None and evaluation != "test":
        return dataset.population_accuracy(*rule)
    return float(np.mean(model.predict(dataset.X_test) == dataset.y_test))


def evaluation_kind(dataset: LabelDataset, model: str, evaluation: str = "auto") -> str:
    """"population (closed form)" or "test set": what ``evaluate`` reports for this pair."""
    linear = model in ("centroid", "least_squares", "logistic", "logreg")
    if evaluation == "test" or not dataset.synthetic or not linear or dataset.classes != 2:
        return "test set"
    return "population (closed form)"


def nonprivate_accuracy(dataset: LabelDataset, model="logistic", evaluation: str = "auto") -> float:
    """Accuracy of the model fitted on the CLEAN training labels: a non-private reference line
    (a teaching diagnostic; not ε-label DP)."""
    dataset = as_dataset(dataset)
    fitted = make_model(model, dataset.classes).fit(dataset.X_train, dataset.y_train)
    return evaluate(fitted, dataset, evaluation)


@dataclass(frozen=True, eq=False)
class RetrainingRun:
    """One ε-label-DP run: stored noisy labels → baseline → retrained models, scored on clean test
    labels (or in closed form on synthetic data).

    ``accuracy[mode]`` for mode in ``modes`` (NaN where undefined).
    Diagnostics that use the clean TRAINING labels (never fed back): ``flipped`` (ŷ ≠ y),
    ``given_label_accuracy`` = mean(ŷ = y), ``predicted_label_accuracy`` = mean(ỹ = y),
    ``consensus_label_accuracy`` = mean(ỹ = y on S_cons) (NaN if S_cons is empty)."""

    dataset: str
    model: str
    epsilon: float
    randomiser: str
    seed: int | None
    mode: str
    modes: tuple
    accuracy: dict
    evaluation: str
    keep_probability: float
    given_labels: np.ndarray
    predicted_labels: np.ndarray
    consensus_mask: np.ndarray
    retrained_predictions: dict
    flipped: np.ndarray
    consensus_fraction: float
    given_label_accuracy: float
    predicted_label_accuracy: float
    consensus_label_accuracy: float
    fallbacks: dict
    models: dict
    fresh_unlabelled: bool
    first_half: np.ndarray | None = None
    guarantee: str = GUARANTEE

    @property
    def gain(self) -> dict:
        """Accuracy of each retraining mode minus the baseline's."""
        return {m: self.accuracy[m] - self.accuracy["baseline"] for m in self.modes if m != "baseline"}

    def to_dict(self) -> dict:
        """A JSON-ready summary (no arrays)."""
        def num(x):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

        return {"dataset": self.dataset, "model": self.model, "epsilon": self.epsilon, "randomiser": self.randomiser,
                "seed": self.seed, "mode": self.mode,
                "accuracy": {m: num(a) for m, a in self.accuracy.items()}, "evaluation": self.evaluation,
                "keep_probability": self.keep_probability, "consensus_fraction": self.consensus_fraction,
                "given_label_accuracy": self.given_label_accuracy,
                "predicted_label_accuracy": self.predicted_label_accuracy,
                "consensus_label_accuracy": num(self.consensus_label_accuracy), "fallbacks": dict(self.fallbacks),
                "fresh_unlabelled": self.fresh_unlabelled, "guarantee": self.guarantee}


def retrain(dataset, randomiser: LabelRandomiser, model="logistic", mode: str = "consensus", *, modes=MODES,
            fresh_unlabelled: bool = False, rng=0, evaluation: str = "auto", details: bool = True) -> RetrainingRun:
    """One run: ``randomiser.release`` randomises the training labels once, ``retrain_from_noisy``
    runs ``modes`` (``mode`` is the variant whose retrained predictions the scatter chart shows; it is
    always computed), every model is scored (``evaluate``) and the label diagnostics computed.
    ``rng``: a Generator, or a seed for ``default_rng``. ``fresh_unlabelled``: retrain on the
    dataset's fresh unlabelled set X_U (synthetic data). ``details=False`` skips
    ``retrained_predictions`` (the chart arrays; the sweep does not need them)."""
    dataset = as_dataset(dataset)
    if not isinstance(randomiser, LabelRandomiser):
        raise ValueError(f"randomiser must be a label randomiser (e.g. RR(epsilon=1)), got {randomiser!r}.")
    model = _check_model_name(model)
    modes = check_modes(tuple(check_modes(modes)) + (mode, "baseline"))
    if fresh_unlabelled and dataset.X_unlabelled is None:
        raise ValueError(f"The {dataset.name} dataset has no fresh unlabelled set X_U: use the same training set.")
    given = randomiser.release(dataset.X_train, dataset.y_train, dataset.classes, as_generator(rng))
    pipeline = retrain_from_noisy(dataset.X_train, given.labels, dataset.classes, model, modes,
                                  dataset.X_unlabelled if fresh_unlabelled else None)
    # ---- evaluation and diagnostics (clean labels; nothing below feeds back) ----
    accuracy = {m: evaluate(pipeline.models.get(m), dataset, evaluation) for m in modes}
    y = dataset.y_train
    cons = pipeline.consensus_mask
    retrained = {m: (pipeline.models[m].predict(dataset.X_train) if pipeline.models.get(m) is not None else None)
                 for m in modes} if details else {}
    return RetrainingRun(
        dataset=dataset.name, model=model, epsilon=randomiser.epsilon, randomiser=randomiser.name,
        seed=rng if isinstance(rng, int) else None, mode=mode, modes=modes,
        accuracy=accuracy, evaluation=evaluation_kind(dataset, model, evaluation),
        keep_probability=RandomisedResponse(dataset.classes, randomiser.epsilon).keep_probability,
        given_labels=given.labels, predicted_labels=pipeline.predicted_labels, consensus_mask=cons,
        retrained_predictions=retrained, flipped=given.labels != y, consensus_fraction=float(cons.mean()),
        given_label_accuracy=float(np.mean(given.labels == y)),
        predicted_label_accuracy=float(np.mean(pipeline.predicted_labels == y)),
        consensus_label_accuracy=float(np.mean(pipeline.predicted_labels[cons] == y[cons])) if cons.any()
        else float("nan"),
        fallbacks=dict(pipeline.fallbacks), models=pipeline.models, fresh_unlabelled=bool(fresh_unlabelled),
        first_half=given.first_half)


__all__ = ["EVALUATIONS", "MODES", "MODE_LABELS", "PipelineResult", "RETRAINING_MODES", "RetrainingRun", "as_dataset",
           "check_modes", "evaluate", "evaluation_kind", "nonprivate_accuracy", "retrain", "retrain_from_noisy"]
