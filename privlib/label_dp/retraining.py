"""Label randomisation (RR, RRWithPrior, LP-2ST) and retraining with predicted hard labels.

Sources: Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy"
(§1, §3, App. H, App. I) and its label-DP baseline, Ghazi et al. (2021), "Deep Learning with Label
Differential Privacy" (Alg. 2 RRWithPrior, Alg. 3 LP-MST with T = 2 stages = LP-2ST).

Privacy structure (ε-label DP, features unprotected). Clean training labels enter ONLY through
``randomise_labels`` (which calls ``noisy_labels`` — k-ary RR from ``privlib.core`` — and, for
LP-2ST, ``rr_with_prior``); each label is randomised once and stored. Everything after it,
``retrain_from_noisy``, receives features and the stored noisy labels only: the baseline fit, its
predicted labels, the consensus set, the margins and every retrained model are post-processing of
the noisy labels, so a run stays ε-label DP. ``retrain`` then scores the models on clean TEST labels
(evaluation only) and computes label-accuracy diagnostics with the clean training labels (teaching
diagnostics, never fed back).

Retraining modes (§1 and App. I), with M the model and ŷ the noisy labels:
- ``none``: the baseline M(X, ŷ);
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
from privlib.core.threads import single_threaded_blas
from privlib.core.validation import (
    as_generator,
    check_epsilon,
    check_positive_int,
    check_range,
    check_seed,
)
from privlib.label_dp.datasets import LabelDataset, fig1_mixture, load_dataset
from privlib.label_dp.models import LabelModel, make_model, top_two_margin

MODES = ("none", "full", "consensus", "confidence")
RETRAINING_MODES = ("full", "consensus", "confidence")
BASELINES = ("rr", "lp2st")
MODE_LABELS = {"none": "baseline (no retraining)", "full": "full retraining", "consensus": "consensus retraining",
               "confidence": "confidence retraining (top-margin half)"}
EVALUATIONS = ("auto", "test", "population")
GUARANTEE = ("ε-label DP: each training label is randomised once; retraining is post-processing; "
             "features are not protected")


# --------------------------------------------------------------------------------------------
# Randomisers: the only functions that see clean training labels
# --------------------------------------------------------------------------------------------

def noisy_labels(y, classes: int, epsilon: float, rng=None) -> np.ndarray:
    """k-ary randomised response on each label, drawn once (``privlib.core`` RR, §3 / eq. 1):
    keep y with probability e^ε/(e^ε + C − 1), otherwise a uniformly chosen one of the C − 1 others.
    Binary labels (C = 2) flip with probability 1/(1 + e^ε). ε-label DP."""
    return RandomisedResponse(classes, epsilon).sample(y, as_generator(rng))


@dataclass(frozen=True)
class PriorWeights:
    """RRWithPrior's choice for one prior π (Ghazi et al. 2021, Alg. 2).

    ``order``: the classes sorted by π, descending (stable); ``weights[k−1]`` = w_k =
    e^ε/(e^ε + k − 1) · (sum of the k largest π), k = 1..C; ``k_star`` = the smallest maximiser;
    ``top_classes`` = order[:k*]; ``keep_probability`` = e^ε/(e^ε + k* − 1) (output y when y ∈ Y)."""

    epsilon: float
    prior: np.ndarray
    order: np.ndarray
    weights: np.ndarray
    k_star: int
    top_classes: np.ndarray
    keep_probability: float

    def to_dict(self) -> dict:
        return {"epsilon": self.epsilon, "prior": self.prior.tolist(), "order": self.order.tolist(),
                "k_star": self.k_star, "weights": self.weights.tolist(), "top_classes": self.top_classes.tolist(),
                "keep_probability": self.keep_probability,
                "other_in_top_probability": (1.0 - self.keep_probability) / (self.k_star - 1)
                if self.k_star > 1 else 0.0,
                "outside_top_probability_each": 1.0 / self.k_star}


def _check_prior_matrix(prior, classes: int | None = None) -> np.ndarray:
    array = np.asarray(prior, dtype=np.float64)
    if array.ndim not in (1, 2) or array.shape[-1] < 2:
        raise ValueError(f"prior must list a probability for each of at least 2 classes, got shape {array.shape}.")
    if classes is not None and array.shape[-1] != classes:
        raise ValueError(f"prior must have one entry per class ({classes}), got {array.shape[-1]}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError("prior entries must be finite numbers of at least 0.")
    total = array.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("prior must have a positive sum.")
    return array / total


def _weights(sorted_cumsum: np.ndarray, epsilon: float) -> np.ndarray:
    """w_k = e^ε/(e^ε + k − 1) · S_k = S_k/(1 + (k − 1)e^{−ε}) (no overflow at large ε)."""
    k = np.arange(1, sorted_cumsum.shape[-1] + 1)
    return sorted_cumsum / (1.0 + (k - 1) * math.exp(-epsilon))


def rr_prior_weights(prior, epsilon: float) -> PriorWeights:
    """RRWithPrior's top set for the prior π at ε (Ghazi et al. 2021, Alg. 2): k counts classes from
    1, w_k = e^ε/(e^ε + k − 1) · (sum of the k largest π), k* = the smallest maximiser. The prior is
    normalised to sum 1. A uniform prior gives k* = C (plain RR)."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    pi = _check_prior_matrix(prior)
    if pi.ndim != 1:
        raise ValueError("rr_prior_weights takes one prior (a 1-D list of class probabilities).")
    order = np.argsort(-pi, kind="stable")
    weights = _weights(np.cumsum(pi[order]), epsilon)
    k_star = int(np.argmax(weights)) + 1  # argmax returns the first (smallest) maximiser
    keep = 1.0 / (1.0 + (k_star - 1) * math.exp(-epsilon))
    return PriorWeights(epsilon=epsilon, prior=pi, order=order, weights=weights, k_star=k_star,
                        top_classes=order[:k_star].copy(), keep_probability=keep)


def rr_with_prior_probabilities(y: int, prior, epsilon: float) -> np.ndarray:
    """The exact output law of RRWithPrior(y, π, ε), a length-C vector: if y ∈ Y (the top-k* set)
    y gets e^ε/(e^ε + k* − 1) and each other member of Y 1/(e^ε + k* − 1); if y ∉ Y each member of
    Y gets 1/k*; classes outside Y get 0."""
    choice = rr_prior_weights(prior, epsilon)
    C = choice.prior.size
    y = check_positive_int(y, "y (the true label)", minimum=0, maximum=C - 1)
    out = np.zeros(C)
    top = choice.top_classes
    if y in set(top.tolist()):
        out[top] = (1.0 - choice.keep_probability) / (choice.k_star - 1) if choice.k_star > 1 else 0.0
        out[y] = choice.keep_probability
    else:
        out[top] = 1.0 / choice.k_star
    return out


def rr_with_prior(y, prior, epsilon: float, rng=None) -> np.ndarray:
    """RRWithPrior (Ghazi et al. 2021, Alg. 2) on each label, drawn once; ε-label DP for any prior
    that does not depend on the label being randomised.

    ``prior``: one prior for all labels (length C) or one per label (n × C). Per label the draw uses
    two uniforms u, v (always both, in that order, so the randomness is the same whatever y is):
    y ∈ Y: output y if u < e^ε/(e^ε + k* − 1), else member ⌊v(k* − 1)⌋ of Y \\ {y} (in prior order);
    y ∉ Y: member ⌊v k*⌋ of Y."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels, got shape {labels.shape}.")
    pi = _check_prior_matrix(prior)
    C = pi.shape[-1]
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= C):
        raise ValueError(f"labels must be class indices 0..{C - 1}.")
    labels = labels.astype(np.int64)
    n = labels.size
    pi = np.broadcast_to(pi, (n, C)) if pi.ndim == 1 else pi
    if pi.shape[0] != n:
        raise ValueError(f"prior has {pi.shape[0]} rows for {n} labels.")
    rng = as_generator(rng)
    u = rng.random(n)
    v = rng.random(n)
    if n == 0:
        return labels.copy()
    order = np.argsort(-pi, axis=1, kind="stable")
    weights = _weights(np.cumsum(np.take_along_axis(pi, order, axis=1), axis=1), epsilon)
    k_star = np.argmax(weights, axis=1) + 1
    keep = 1.0 / (1.0 + (k_star - 1) * math.exp(-epsilon))
    position = np.argmax(order == labels[:, None], axis=1)  # rank of y in the prior order
    inside = position < k_star
    others = np.maximum(k_star - 1, 1)
    j_in = np.minimum((v * others).astype(np.int64), others - 1)
    j_in = np.where(j_in >= position, j_in + 1, j_in)  # skip y itself within Y
    j_out = np.minimum((v * k_star).astype(np.int64), k_star - 1)
    rank = np.where(inside, np.where((u < keep) | (k_star == 1), position, j_in), j_out)
    return np.take_along_axis(order, rank[:, None], axis=1)[:, 0].astype(np.int64)


@dataclass(frozen=True)
class LP2STLabels:
    """LP-2ST's released labels: RR on the first half, RRWithPrior (prior = M1's probabilities) on the
    second. ``first_half`` is the label-free random split; ``priors`` / ``k_star`` are for the
    second-half points (in index order)."""

    labels: np.ndarray
    first_half: np.ndarray
    priors: np.ndarray
    k_star: np.ndarray


def lp2st_labels(X, y, classes: int, epsilon: float, model="logistic", rng=None, split_rng=None) -> LP2STLabels:
    """LP-2ST (Ghazi et al. 2021, Alg. 3 with T = 2) up to the released labels.

    1. Split the indices in random halves with ``split_rng`` (uses no labels; half 1 = the first
       ⌈n/2⌉ of a permutation). 2. RR labels on half 1 (``noisy_labels``); fit M1 on them.
    3. For each x_j in half 2, π_j = M1's predicted probabilities over all C classes (0 for a class
       M1 never saw); ŷ_j = RRWithPrior(y_j, π_j, ε). No label is redrawn: total ε-label DP, not 2ε.
    M2, the baseline, is then trained on all n noisy labels by ``retrain_from_noisy``."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    n = y.shape[0]
    rng = as_generator(rng)
    split_rng = as_generator(split_rng) if split_rng is not None else rng.spawn(1)[0]
    permutation = split_rng.permutation(n)
    first = np.zeros(n, dtype=bool)
    first[permutation[: (n + 1) // 2]] = True
    out = np.empty(n, dtype=np.int64)
    out[first] = noisy_labels(y[first], classes, epsilon, rng)
    m1 = model if isinstance(model, LabelModel) else make_model(model, classes)
    m1.fit(X[first], out[first])
    priors = m1.predict_proba(X[~first])
    out[~first] = rr_with_prior(y[~first], priors, epsilon, rng)
    if priors.shape[0]:
        weights = _weights(np.cumsum(-np.sort(-priors, axis=1), axis=1), check_epsilon(epsilon, allow_zero=True))
        k_star = np.argmax(weights, axis=1) + 1
    else:
        k_star = np.zeros(0, dtype=np.int64)
    return LP2STLabels(labels=out, first_half=first, priors=priors, k_star=k_star)


@dataclass(frozen=True)
class GivenLabels:
    """The stored randomised labels of one run and how they were drawn."""

    labels: np.ndarray
    baseline: str
    epsilon: float
    classes: int
    first_half: np.ndarray | None = None  # LP-2ST only


def randomise_labels(dataset: LabelDataset, epsilon: float, baseline: str = "rr", model="logistic",
                     seed=0) -> GivenLabels:
    """Randomise the training labels of ``dataset`` once: the ONLY place a run reads clean training
    labels. ``baseline="rr"``: k-ary RR with a generator from ``seed`` (an int or a Generator);
    ``"lp2st"``: LP-2ST with the same generator for the label draws and a spawned child generator
    for the label-free split."""
    if baseline not in BASELINES:
        raise ValueError(f"Unknown baseline {baseline!r}: use one of {', '.join(BASELINES)}.")
    epsilon = check_epsilon(epsilon, allow_zero=True)
    rng = as_generator(seed)
    if baseline == "rr":
        labels = noisy_labels(dataset.y_train, dataset.classes, epsilon, rng)
        return GivenLabels(labels=labels, baseline=baseline, epsilon=epsilon, classes=dataset.classes)
    split_rng = rng.spawn(1)[0]
    result = lp2st_labels(dataset.X_train, dataset.y_train, dataset.classes, epsilon, model, rng, split_rng)
    return GivenLabels(labels=result.labels, baseline=baseline, epsilon=epsilon, classes=dataset.classes,
                       first_half=result.first_half)


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
    modes = _check_modes(modes)
    X_train = np.asarray(X_train, dtype=np.float64)
    given = np.asarray(given_labels, dtype=np.int64)
    base = make_model(model, classes).fit(X_train, given)
    predicted = base.predict_train()
    consensus = predicted == given
    models, sets, fallbacks = {"none": base}, {}, {}
    if base.single_class:
        fallbacks["none"] = "the noisy labels hold a single class: the baseline predicts it everywhere"
    if X_unlabelled is None:
        pool_X, pool_y, pool_proba = X_train, predicted, base.predict_proba_train()
    else:
        pool_X = np.asarray(X_unlabelled, dtype=np.float64)
        pool_y, pool_proba = base.predict(pool_X), base.predict_proba(pool_X)
    for mode in modes:
        if mode == "none":
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


def _check_modes(modes) -> tuple:
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


def _dataset(dataset) -> LabelDataset:
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
    dataset = _dataset(dataset)
    fitted = make_model(model, dataset.classes).fit(dataset.X_train, dataset.y_train)
    return evaluate(fitted, dataset, evaluation)


@dataclass(frozen=True, eq=False)
class RetrainingRun:
    """One ε-label-DP run: stored noisy labels → baseline → retrained models, scored on clean test
    labels (or in closed form on synthetic data).

    ``accuracy[mode]`` for mode in ``modes`` ("none" = the baseline; NaN where undefined).
    Diagnostics that use the clean TRAINING labels (never fed back): ``flipped`` (ŷ ≠ y),
    ``given_label_accuracy`` = mean(ŷ = y), ``predicted_label_accuracy`` = mean(ỹ = y),
    ``consensus_label_accuracy`` = mean(ỹ = y on S_cons) (NaN if S_cons is empty)."""

    dataset: str
    model: str
    epsilon: float
    baseline: str
    seed: object
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
        return {m: self.accuracy[m] - self.accuracy["none"] for m in self.modes if m != "none"}

    def to_dict(self) -> dict:
        """A JSON-ready summary (no arrays)."""
        def num(x):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

        return {"dataset": self.dataset, "model": self.model, "epsilon": self.epsilon, "baseline": self.baseline,
                "seed": self.seed if isinstance(self.seed, int) else None, "mode": self.mode,
                "accuracy": {m: num(a) for m, a in self.accuracy.items()}, "evaluation": self.evaluation,
                "keep_probability": self.keep_probability, "consensus_fraction": self.consensus_fraction,
                "given_label_accuracy": self.given_label_accuracy,
                "predicted_label_accuracy": self.predicted_label_accuracy,
                "consensus_label_accuracy": num(self.consensus_label_accuracy), "fallbacks": dict(self.fallbacks),
                "fresh_unlabelled": self.fresh_unlabelled, "guarantee": self.guarantee}


def retrain(dataset, model="logistic", epsilon: float = 1.0, mode: str = "consensus", baseline: str = "rr",
            fresh_unlabelled: bool = False, seed=0, modes=MODES, evaluation: str = "auto",
            details: bool = True) -> RetrainingRun:
    """One run: randomise the training labels once (``randomise_labels``: RR or LP-2ST), run
    ``retrain_from_noisy`` for ``modes`` (``mode`` is the variant whose retrained predictions the
    scatter chart shows; it is always computed), score every model (``evaluate``) and compute the
    label diagnostics. ``seed``: an int (the RR generator is default_rng(seed)) or a Generator.
    ``fresh_unlabelled``: retrain on the dataset's fresh unlabelled set X_U (synthetic data).
    ``details=False`` skips ``retrained_predictions`` (the chart arrays; the sweep does not need them)."""
    dataset = _dataset(dataset)
    model = _check_model_name(model)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    modes = _check_modes(tuple(_check_modes(modes)) + (mode, "none"))
    if fresh_unlabelled and dataset.X_unlabelled is None:
        raise ValueError(f"The {dataset.name} dataset has no fresh unlabelled set X_U: use the same training set.")
    if not isinstance(seed, np.random.Generator):
        seed = check_seed(seed)
    given = randomise_labels(dataset, epsilon, baseline, model, seed)
    pipeline = retrain_from_noisy(dataset.X_train, given.labels, dataset.classes, model, modes,
                                  dataset.X_unlabelled if fresh_unlabelled else None)
    # ---- evaluation and diagnostics (clean labels; nothing below feeds back) ----
    accuracy = {m: evaluate(pipeline.models.get(m), dataset, evaluation) for m in modes}
    y = dataset.y_train
    cons = pipeline.consensus_mask
    retrained = {m: (pipeline.models[m].predict(dataset.X_train) if pipeline.models.get(m) is not None else None)
                 for m in modes} if details else {}
    return RetrainingRun(
        dataset=dataset.name, model=model, epsilon=epsilon, baseline=baseline, seed=seed, mode=mode, modes=modes,
        accuracy=accuracy, evaluation=evaluation_kind(dataset, model, evaluation),
        keep_probability=RandomisedResponse(dataset.classes, epsilon).keep_probability,
        given_labels=given.labels, predicted_labels=pipeline.predicted_labels, consensus_mask=cons,
        retrained_predictions=retrained, flipped=given.labels != y, consensus_fraction=float(cons.mean()),
        given_label_accuracy=float(np.mean(given.labels == y)),
        predicted_label_accuracy=float(np.mean(pipeline.predicted_labels == y)),
        consensus_label_accuracy=float(np.mean(pipeline.predicted_labels[cons] == y[cons])) if cons.any()
        else float("nan"),
        fallbacks=dict(pipeline.fallbacks), models=pipeline.models, fresh_unlabelled=bool(fresh_unlabelled),
        first_half=given.first_half)


# --------------------------------------------------------------------------------------------
# Sweeps over ε and seeds
# --------------------------------------------------------------------------------------------

def _stats(values: np.ndarray) -> dict:
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    mean = float(finite.mean()) if finite.size else None
    sd = float(finite.std(ddof=1)) if finite.size > 1 else (0.0 if finite.size else None)
    return {"mean": mean, "sd": sd, "per_seed": [None if not math.isfinite(v) else float(v) for v in values]}


@dataclass(frozen=True, eq=False)
class AccuracySweep:
    """Test accuracy (and label diagnostics) over ε × repeats.

    Arrays are repeats × len(epsilons): ``accuracy[mode]``, ``consensus_fraction``,
    ``given_label_accuracy``, ``predicted_label_accuracy``, ``consensus_label_accuracy``,
    ``fallbacks[mode]`` (bool). Repeat r uses the RR seed ``seeds[r]`` = seed + r at every ε (common
    random numbers across ε and modes) and, for synthetic data with ``redraw_data``, the dataset
    drawn with seed ``data_seeds[r]``. ``nonprivate``: per repeat, the model fitted on clean labels
    (diagnostic). ``keep_probability`` = e^ε/(e^ε + C − 1), the given-label accuracy of RR."""

    dataset: str
    model: str
    baseline: str
    epsilons: np.ndarray
    modes: tuple
    seeds: tuple
    data_seeds: tuple | None
    accuracy: dict
    consensus_fraction: np.ndarray
    given_label_accuracy: np.ndarray
    predicted_label_accuracy: np.ndarray
    consensus_label_accuracy: np.ndarray
    fallbacks: dict
    nonprivate: np.ndarray
    keep_probability: np.ndarray
    classes: int
    evaluation: str
    fresh_unlabelled: bool
    guarantee: str = GUARANTEE

    @property
    def repeats(self) -> int:
        return len(self.seeds)

    def mean(self, mode: str) -> np.ndarray:
        """Mean accuracy of ``mode`` per ε (NaN where undefined)."""
        values = self.accuracy[mode]
        return np.full(values.shape[1], np.nan) if np.all(np.isnan(values)) else np.nanmean(values, axis=0)

    def sd(self, mode: str) -> np.ndarray:
        """Sample sd (ddof = 1; 0 with one repeat) of the accuracy of ``mode`` per ε."""
        values = self.accuracy[mode]
        if values.shape[0] < 2 or np.all(np.isnan(values)):
            return np.zeros(values.shape[1])
        return np.nanstd(values, axis=0, ddof=1)

    def gain(self, mode: str) -> np.ndarray:
        """Per-seed accuracy gain of ``mode`` over the baseline (repeats × ε)."""
        return self.accuracy[mode] - self.accuracy["none"]

    def cell(self, index: int) -> dict:
        """The ``retrain`` command's JSON object for ε = epsilons[index]."""
        names = {"none": "baseline", "full": "full", "consensus": "consensus", "confidence": "confidence"}
        out = {"epsilon": float(self.epsilons[index]), "baseline_method": self.baseline}
        for mode in MODES:
            out[names[mode]] = _stats(self.accuracy[mode][:, index]) if mode in self.modes else None
        out["consensus_fraction"] = _stats(self.consensus_fraction[:, index])
        out["given_label_accuracy"] = _stats(self.given_label_accuracy[:, index])
        out["predicted_label_accuracy"] = _stats(self.predicted_label_accuracy[:, index])
        out["consensus_label_accuracy"] = _stats(self.consensus_label_accuracy[:, index])
        out["keep_probability"] = float(self.keep_probability[index])
        out["nonprivate"] = float(np.mean(self.nonprivate))
        out["fallbacks"] = {m: int(self.fallbacks[m][:, index].sum()) for m in self.modes}
        return out

    def to_dict(self) -> dict:
        """JSON-ready: with one ε, the ``retrain`` command's object ({epsilon, baseline, full, consensus,
        confidence (each {mean, sd, per_seed}), consensus_fraction, given/predicted/consensus label
        accuracy (same shape), nonprivate, …}); with several, {"epsilons": [...], "results": [one such
        object per ε]}. Both carry dataset, model, seeds, evaluation and the guarantee."""
        meta = {"dataset": self.dataset, "model": self.model, "seeds": list(self.seeds), "classes": self.classes,
                "evaluation": self.evaluation, "fresh_unlabelled": self.fresh_unlabelled,
                "guarantee": self.guarantee}
        if self.epsilons.size == 1:
            return {**self.cell(0), **meta}
        return {"epsilons": self.epsilons.tolist(), "results": [self.cell(i) for i in range(self.epsilons.size)],
                **meta}


def _check_epsilon_list(epsilons) -> np.ndarray:
    try:
        array = np.atleast_1d(np.asarray(epsilons, dtype=np.float64))
    except (TypeError, ValueError):
        array = None
    if array is None or array.ndim != 1 or array.size == 0:
        raise ValueError(f"epsilons must be a number or a non-empty flat list of numbers, got {epsilons!r}.")
    return np.array([check_epsilon(float(e), allow_zero=True) for e in array])


DEFAULT_EPSILONS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def accuracy_sweep(dataset, model="logistic", epsilons=DEFAULT_EPSILONS, modes=MODES, repeats: int = 5, seed: int = 0,
                   baseline: str = "rr", progress=None, fresh_unlabelled: bool = False, redraw_data=None,
                   evaluation: str = "auto") -> AccuracySweep:
    """``retrain`` for every ε in ``epsilons`` and repeats r = 0..repeats−1 (RR seed seed + r).

    ``redraw_data`` (default: True for synthetic datasets): repeat r uses a new draw of the data with
    seed (dataset seed + r), so the spread includes the data; real datasets never change.
    ``progress(done, total)`` is called after each (repeat, ε) cell. Fits run single-threaded
    (`privlib.core.threads.single_threaded_blas`): faster than oversubscribed BLAS threads on small problems."""
    dataset = _dataset(dataset)
    model = _check_model_name(model)
    epsilons = _check_epsilon_list(epsilons)
    modes = _check_modes(tuple(_check_modes(modes)) + ("none",))
    repeats = check_positive_int(repeats, "repeats (the number of seeds)", maximum=10_000)
    seed = check_seed(seed)
    if fresh_unlabelled and dataset.X_unlabelled is None:
        raise ValueError(f"The {dataset.name} dataset has no fresh unlabelled set X_U: use the same training set.")
    redraw = dataset.synthetic if redraw_data is None else bool(redraw_data) and dataset.synthetic
    base_data_seed = int(dataset.params.get("seed", 0)) if dataset.synthetic else None
    shape = (repeats, epsilons.size)
    accuracy = {m: np.full(shape, np.nan) for m in modes}
    fallbacks = {m: np.zeros(shape, dtype=bool) for m in modes}
    fraction, given, predicted, cons_acc = (np.full(shape, np.nan) for _ in range(4))
    nonprivate = np.full(repeats, np.nan)
    seeds = tuple(seed + r for r in range(repeats))
    data_seeds = tuple(base_data_seed + r for r in range(repeats)) if redraw else None
    total, done = repeats * epsilons.size, 0
    with single_threaded_blas():
        for r in range(repeats):
            data = dataset.redraw(data_seeds[r]) if redraw else dataset
            if r == 0 or redraw:
                reference = nonprivate_accuracy(data, model, evaluation)
            nonprivate[r] = reference
            for i, eps in enumerate(epsilons):
                run = retrain(data, model, float(eps), modes[-1], baseline, fresh_unlabelled, seeds[r], modes,
                              evaluation, details=False)
                for m in modes:
                    accuracy[m][r, i] = run.accuracy[m]
                    fallbacks[m][r, i] = m in run.fallbacks
                fraction[r, i] = run.consensus_fraction
                given[r, i] = run.given_label_accuracy
                predicted[r, i] = run.predicted_label_accuracy
                cons_acc[r, i] = run.consensus_label_accuracy
                done += 1
                if progress is not None:
                    progress(done, total)
    keep = np.array([RandomisedResponse(dataset.classes, float(e)).keep_probability for e in epsilons])
    return AccuracySweep(dataset=dataset.name, model=model, baseline=baseline, epsilons=epsilons, modes=modes,
                         seeds=seeds, data_seeds=data_seeds, accuracy=accuracy, consensus_fraction=fraction,
                         given_label_accuracy=given, predicted_label_accuracy=predicted,
                         consensus_label_accuracy=cons_acc, fallbacks=fallbacks, nonprivate=nonprivate,
                         keep_probability=keep, classes=dataset.classes,
                         evaluation=evaluation_kind(dataset, model, evaluation), fresh_unlabelled=bool(fresh_unlabelled))


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
              n: int = 300, d: int = 50, baseline: str = "rr", progress=None) -> GainGrid:
    """``accuracy_sweep`` on ``fig1_mixture(Δ, n, d, seed)`` for each Δ: the retraining gain
    (mode − baseline) over (Δ, ε), for the heat map (our addition). ``progress(done, total)``."""
    deltas = np.array([check_range(v, "delta_sep", low=0.0, low_inclusive=False) for v in np.atleast_1d(delta_seps)])
    epsilons = _check_epsilon_list(epsilons)
    if mode not in RETRAINING_MODES:
        raise ValueError(f"mode must be one of {', '.join(RETRAINING_MODES)}, got {mode!r}.")
    total = deltas.size * epsilons.size * repeats
    mean, sd, base = (np.empty((deltas.size, epsilons.size)) for _ in range(3))
    for i, delta in enumerate(deltas):
        offset = i * epsilons.size * repeats

        def tick(done, _total, offset=offset):
            if progress is not None:
                progress(offset + done, total)

        sweep = accuracy_sweep(fig1_mixture(delta_sep=float(delta), n=n, d=d, seed=seed), model, epsilons,
                               ("none", mode), repeats, seed, baseline, tick)
        gain = sweep.gain(mode)
        mean[i] = np.nanmean(gain, axis=0)
        sd[i] = np.nanstd(gain, axis=0, ddof=1) if repeats > 1 else 0.0
        base[i] = sweep.mean("none")
    return GainGrid(delta_seps=deltas, epsilons=epsilons, mode=mode, model=model, mean_gain=mean, sd_gain=sd,
                    baseline_accuracy=base, repeats=repeats)


__all__ = ["AccuracySweep", "GainGrid", "gain_grid", "BASELINES", "DEFAULT_EPSILONS", "EVALUATIONS", "GUARANTEE", "GivenLabels",
           "LP2STLabels", "MODES", "MODE_LABELS", "PipelineResult", "PriorWeights", "RETRAINING_MODES",
           "RetrainingRun", "accuracy_sweep", "evaluate", "evaluation_kind", "lp2st_labels", "noisy_labels",
           "nonprivate_accuracy", "randomise_labels", "retrain", "retrain_from_noisy", "rr_prior_weights",
           "rr_with_prior", "rr_with_prior_probabilities"]
