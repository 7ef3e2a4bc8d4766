"""The label randomisers: RR, RRWithPrior and LP-2ST, the only code that reads clean training labels.

Sources: Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy" (§3,
eq. 1: randomised response on labels) and its label-DP baseline, Ghazi et al. (2021), "Deep Learning
with Label Differential Privacy" (Alg. 2 RRWithPrior, Alg. 3 LP-MST with T = 2 stages = LP-2ST).

Each randomiser is a `privlib.core.mechanism.Mechanism`: a keyword-only constructor that validates ε
once (ε = 0 allowed: the output is then uniform on the candidate set), ``PARAMETERS`` besides ε,
a structured ε-label-DP ``guarantee`` and ``release(X, y, classes, rng)`` → `ReleasedLabels`. Each
training label is randomised once and stored; everything done with the released labels afterwards
(a baseline fit, predicted labels, retraining) is post-processing. `MECHANISMS` is the registry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.core.mechanism import Guarantee, Mechanism, Parameter
from privlib.core.randomised_response import RandomisedResponse
from privlib.core.registry import make_from_registry, registry_by_name
from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.label_dp.models import MODELS, LabelModel, make_model

#: The guarantee of every randomiser and of every run built on one, as shown to people.
GUARANTEE = ("ε-label DP: each training label is randomised once; retraining is post-processing; "
             "features are not protected")
#: The neighbouring relation of label DP: only labels are protected.
NEIGHBOURS = "datasets that differ in one training label"


# --------------------------------------------------------------------------------------------
# RRWithPrior's choice of the top set (Ghazi et al. 2021, Alg. 2)
# --------------------------------------------------------------------------------------------

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


def check_prior(prior, classes: int | None = None) -> np.ndarray:
    """A prior (length C, or one row per label: n × C) normalised to sum 1 per row; ValueError for
    fewer than two classes, a wrong C, a negative or non-finite entry or a zero sum."""
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
    if not np.all(np.isfinite(total)):
        # entries near the float64 maximum overflow the sum: scale each row by its largest entry
        # first (the normalised prior is the same; only such rows take this path)
        array = array / array.max(axis=-1, keepdims=True)
        total = array.sum(axis=-1, keepdims=True)
    return array / total


def top_set_weights(sorted_cumsum: np.ndarray, epsilon: float) -> np.ndarray:
    """w_k = e^ε/(e^ε + k − 1) · S_k = S_k/(1 + (k − 1)e^{−ε}) for the cumulative sums S_k of the
    prior sorted in decreasing order (no overflow at large ε)."""
    k = np.arange(1, sorted_cumsum.shape[-1] + 1)
    return sorted_cumsum / (1.0 + (k - 1) * math.exp(-epsilon))


def rr_prior_weights(prior, epsilon: float) -> PriorWeights:
    """RRWithPrior's top set for the prior π at ε (Ghazi et al. 2021, Alg. 2): k counts classes from
    1, w_k = e^ε/(e^ε + k − 1) · (sum of the k largest π), k* = the smallest maximiser. The prior is
    normalised to sum 1. A uniform prior gives k* = C (plain RR)."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    pi = check_prior(prior)
    if pi.ndim != 1:
        raise ValueError("rr_prior_weights takes one prior (a 1-D list of class probabilities).")
    order = np.argsort(-pi, kind="stable")
    weights = top_set_weights(np.cumsum(pi[order]), epsilon)
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


# --------------------------------------------------------------------------------------------
# The randomisers
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ReleasedLabels:
    """The stored randomised labels of one run and how they were drawn. LP-2ST also reports its
    label-free split (``first_half``), the priors of the second-half points (in index order) and
    their k*."""

    labels: np.ndarray
    randomiser: str
    epsilon: float
    classes: int
    first_half: np.ndarray | None = None
    priors: np.ndarray | None = None
    k_star: np.ndarray | None = None


def _check_labels(y, classes: int) -> np.ndarray:
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels, got shape {labels.shape}.")
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= classes):
        raise ValueError(f"labels must be class indices 0..{classes - 1}.")
    return labels.astype(np.int64)


class LabelRandomiser(Mechanism):
    """Base class of the label randomisers: ε-label DP, ε = 0 allowed, ``release(X, y, classes,
    rng)`` checks the labels (and the features where used) and calls ``_release``."""

    EPSILON_ZERO_ALLOWED = True
    #: True when the release reads the features X (LP-2ST fits a model on them).
    USES_FEATURES = False

    def __init__(self, *, epsilon):
        super().__init__(epsilon=epsilon)

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="label-dp", text=GUARANTEE, neighbours=NEIGHBOURS, epsilon=self.epsilon)

    def release(self, X, y, classes: int, rng=None) -> ReleasedLabels:
        """Randomise each label of ``y`` (class indices 0..classes−1) once; ``X``: the features
        (public; only LP-2ST reads them, None is fine otherwise); ``rng``: a seed or a Generator."""
        classes = check_positive_int(classes, "classes (the number of classes C)", minimum=2)
        labels = _check_labels(y, classes)
        if self.USES_FEATURES:
            X = np.asarray(X, dtype=np.float64)
            if X.ndim != 2 or X.shape[0] != labels.size:
                raise ValueError(f"X must have one row per label ({labels.size}), got shape {X.shape}.")
        return self._release(X, labels, classes, as_generator(rng))

    def _released(self, labels, classes: int, **extra) -> ReleasedLabels:
        return ReleasedLabels(labels=labels, randomiser=self.name, epsilon=self.epsilon, classes=classes, **extra)


class RR(LabelRandomiser):
    """k-ary randomised response on each label (§3 / eq. 1; ``privlib.core`` k-RR): keep y with
    probability e^ε/(e^ε + C − 1), otherwise a uniformly chosen one of the C − 1 others; binary labels
    (C = 2) flip with probability 1/(1 + e^ε). Draws 2 numbers per label (a keep uniform, a shift)."""

    name = "rr"
    label = "randomised response (RR)"

    def _release(self, X, y, classes, rng) -> ReleasedLabels:
        return self._released(RandomisedResponse(classes, self.epsilon).sample(y, rng), classes)


class RRWithPrior(LabelRandomiser):
    """RRWithPrior (Ghazi et al. 2021, Alg. 2) on each label; ε-label DP for any prior that does not
    depend on the label being randomised.

    ``prior``: one prior for all labels (length C) or one per label (n × C); None = uniform (plain
    RR over all C classes for ε > 0). Per label the draw uses two uniforms u, v (always both, in that
    order, so the randomness is the same whatever y is): y ∈ Y: output y if u < e^ε/(e^ε + k* − 1),
    else member ⌊v(k* − 1)⌋ of Y \\ {y} (in prior order); y ∉ Y: member ⌊v k*⌋ of Y."""

    name = "rr-prior"
    label = "RRWithPrior (a given prior; uniform by default)"
    PARAMETERS = {"prior": Parameter(default=None, help="prior over the classes (length C, or one row per label); "
                                                        "None: uniform")}

    def __init__(self, *, epsilon, prior=None):
        super().__init__(epsilon=epsilon)
        self.prior = None if prior is None else check_prior(prior)

    def _release(self, X, y, classes, rng) -> ReleasedLabels:
        prior = np.full(classes, 1.0 / classes) if self.prior is None else self.prior
        if prior.shape[-1] != classes:
            raise ValueError(f"prior must have one entry per class ({classes}), got {prior.shape[-1]}.")
        return self._released(self._sample(y, prior, rng), classes)

    def _sample(self, labels: np.ndarray, pi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n, C = labels.size, pi.shape[-1]
        pi = np.broadcast_to(pi, (n, C)) if pi.ndim == 1 else pi
        if pi.shape[0] != n:
            raise ValueError(f"prior has {pi.shape[0]} rows for {n} labels.")
        u = rng.random(n)
        v = rng.random(n)
        if n == 0:
            return labels.copy()
        order = np.argsort(-pi, axis=1, kind="stable")
        weights = top_set_weights(np.cumsum(np.take_along_axis(pi, order, axis=1), axis=1), self.epsilon)
        k_star = np.argmax(weights, axis=1) + 1
        keep = 1.0 / (1.0 + (k_star - 1) * math.exp(-self.epsilon))
        position = np.argmax(order == labels[:, None], axis=1)  # rank of y in the prior order
        inside = position < k_star
        others = np.maximum(k_star - 1, 1)
        j_in = np.minimum((v * others).astype(np.int64), others - 1)
        j_in = np.where(j_in >= position, j_in + 1, j_in)  # skip y itself within Y
        j_out = np.minimum((v * k_star).astype(np.int64), k_star - 1)
        rank = np.where(inside, np.where((u < keep) | (k_star == 1), position, j_in), j_out)
        return np.take_along_axis(order, rank[:, None], axis=1)[:, 0].astype(np.int64)


class LP2ST(LabelRandomiser):
    """LP-2ST (Ghazi et al. 2021, Alg. 3 with T = 2 stages) up to the released labels.

    1. Split the indices in random halves with a generator spawned from ``rng`` (uses no labels;
       half 1 = the first ⌈n/2⌉ of a permutation). 2. RR labels on half 1 (`RR`); fit M1 (``model``)
       on them. 3. For each x_j in half 2, π_j = M1's predicted probabilities over all C classes (0 for
       a class M1 never saw); ŷ_j = RRWithPrior(y_j, π_j, ε). No label is redrawn: total ε-label DP,
       not 2ε. M2, the baseline, is then trained on all n released labels (post-processing)."""

    name = "lp2st"
    label = "LP-2ST (RRWithPrior, 2 stages)"
    USES_FEATURES = True
    PARAMETERS = {"model": Parameter(default="logistic", choices=tuple(MODELS),
                                     help="the model M1 fitted on the first half, whose predictions are the priors")}

    def __init__(self, *, epsilon, model="logistic"):
        super().__init__(epsilon=epsilon)
        if not isinstance(model, LabelModel):
            make_model(model, 2)  # ValueError for an unknown name
        self.model = model

    def _release(self, X, y, classes, rng) -> ReleasedLabels:
        split_rng = rng.spawn(1)[0]
        n = y.size
        first = np.zeros(n, dtype=bool)
        first[split_rng.permutation(n)[: (n + 1) // 2]] = True
        out = np.empty(n, dtype=np.int64)
        out[first] = RR(epsilon=self.epsilon).release(None, y[first], classes, rng).labels
        m1 = self.model if isinstance(self.model, LabelModel) else make_model(self.model, classes)
        m1.fit(X[first], out[first])
        priors = m1.predict_proba(X[~first])
        out[~first] = RRWithPrior(epsilon=self.epsilon, prior=priors).release(None, y[~first], classes, rng).labels
        if priors.shape[0]:
            weights = top_set_weights(np.cumsum(-np.sort(-priors, axis=1), axis=1), self.epsilon)
            k_star = np.argmax(weights, axis=1) + 1
        else:
            k_star = np.zeros(0, dtype=np.int64)
        return self._released(out, classes, first_half=first, priors=priors, k_star=k_star)


#: The label randomisers by name.
MECHANISMS = registry_by_name((RR, RRWithPrior, LP2ST), kind="label randomiser")


def make_randomiser(name: str, epsilon: float, model=None) -> LabelRandomiser:
    """The randomiser ``name`` of `MECHANISMS` at ``epsilon``; ``model`` goes to the randomisers
    that fit one (LP-2ST's M1: the run's own model) and is ignored by the others."""
    cls = MECHANISMS.get(name) if isinstance(name, str) else None
    params = {"model": model} if cls is not None and "model" in cls.PARAMETERS and model is not None else {}
    return make_from_registry(MECHANISMS, name, {"epsilon": epsilon, **params}, kind="label randomiser")
