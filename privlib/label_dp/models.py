"""The models trained on randomised (or predicted) labels, with fixed public hyper-parameters.

Each model is fitted from scratch by ``fit(X, y)`` (labels 0..C−1), and exposes ``predict(X)``,
``predict_proba(X)`` (an m × C array over ALL C classes, zero for a class absent from the fit) and
``predict_train()`` / ``predict_proba_train()`` — the predictions on its own training points, which
for k-NN are leave-one-out (a point's own noisy label never votes for it: otherwise with k = 1 the
predicted label equals the given label everywhere and consensus is everything).

- ``centroid``: the retraining paper's estimator (eq. 2), θ̂ = (1/σ²)(1/n) Σ ŷ_j x_j with ŷ ∈ {±1},
  prediction sign⟨x, θ̂⟩, no intercept. For C > 2 (our choice, not in the paper) it is eq. 2 per
  class with one-vs-rest ±1 labels, θ̂_c = (1/σ²)(1/n) Σ_j (2·1[ŷ_j = c] − 1) x_j, prediction
  argmax_c ⟨x, θ̂_c⟩; for C = 2 this is exactly eq. 2. Probabilities: softmax of the scores ⟨x, θ̂_c⟩
  (for C = 2, P(+1) = 1/(1 + e^{−2⟨x, θ̂⟩}), so the margin ranks points by |⟨x, θ̂⟩|).
- ``least_squares``: one-vs-rest least squares with an intercept on ±1 targets (scikit-learn's
  LinearRegression, no ridge); probabilities = softmax of the scores (a ranking device, not calibrated).
- ``logistic``: multinomial LogisticRegression(C = 0.1, lbfgs, max_iter = 2000) from scikit-learn; C is
  a public constant fixed once at design time, never tuned on a DP run.
- ``knn``: k-nearest neighbours, k = 10, uniform votes (scikit-learn's NearestNeighbors, brute force); ties go to
  the smallest class; probabilities = vote fractions.

A fit on labels of a single class (possible on a small consensus set) is reported in
``single_class``; the logistic model then predicts that class everywhere (scikit-learn cannot fit
it), the other models fit their formula as usual.
"""
from __future__ import annotations

import numpy as np

from privlib.core.validation import check_positive_int

LOGISTIC_C = 0.1
LOGISTIC_MAX_ITER = 2000
KNN_K = 10


def _softmax(scores: np.ndarray) -> np.ndarray:
    z = scores - scores.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def top_two_margin(proba) -> np.ndarray:
    """Top-1 minus top-2 predicted probability per row (App. I's confidence margin)."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.shape[1] < 2:
        return np.ones(proba.shape[0])
    part = np.partition(proba, proba.shape[1] - 2, axis=1)
    return part[:, -1] - part[:, -2]


class LabelModel:
    """Base class: label checks, the single-class record and training-point predictions."""

    name = "model"
    label = "model"

    def __init__(self, classes: int):
        self.classes = check_positive_int(classes, "classes (the number of classes C)", minimum=2)
        self.single_class = False
        self._X = None

    def _check_fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise ValueError(f"fit needs X of shape (n, d) and y of shape (n,), got {X.shape} and {y.shape}.")
        if y.size == 0:
            raise ValueError("Cannot fit on an empty set of examples.")
        if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= self.classes:
            raise ValueError(f"labels must be class indices 0..{self.classes - 1}.")
        y = y.astype(np.int64)
        self.single_class = bool(np.all(y == y[0]))
        self._X = X
        return X, y

    def fit(self, X, y) -> "LabelModel":
        raise NotImplementedError

    def predict_proba(self, X) -> np.ndarray:
        raise NotImplementedError

    def predict(self, X) -> np.ndarray:
        """argmax of predict_proba (smallest class on ties)."""
        return np.argmax(self.predict_proba(X), axis=1).astype(np.int64)

    def predict_proba_train(self) -> np.ndarray:
        """Probabilities on the training points of the last fit."""
        return self.predict_proba(self._X)

    def predict_train(self) -> np.ndarray:
        """Predicted labels on the training points of the last fit."""
        return np.argmax(self.predict_proba_train(), axis=1).astype(np.int64)

    def linear_rule(self):
        """(θ, b) of the binary rule sign(⟨θ, x⟩ + b) for a binary linear model, else None."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(classes={self.classes})"


class CentroidModel(LabelModel):
    """The eq. 2 estimator θ̂ = (1/σ²)(1/n) Σ ŷ_j x_j (one-vs-rest ±1 coding for C > 2)."""

    name = "centroid"
    label = "centroid (eq. 2)"

    def __init__(self, classes: int, sigma2: float = 1.0):
        super().__init__(classes)
        self.sigma2 = float(sigma2)
        self.coef_ = None

    def fit(self, X, y):
        X, y = self._check_fit(X, y)
        signs = np.where(y[:, None] == np.arange(self.classes)[None, :], 1.0, -1.0)  # n × C
        self.coef_ = (signs.T @ X) / (self.sigma2 * X.shape[0])  # C × d; row 1 = eq. 2's θ̂ when C = 2
        return self

    def decision_function(self, X) -> np.ndarray:
        return np.asarray(X, dtype=np.float64) @ self.coef_.T

    def predict_proba(self, X):
        return _softmax(self.decision_function(X))

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes == 2:  # sign⟨x, θ̂⟩ (a zero score, probability 0, goes to class 1 = +1)
            return (scores[:, 1] >= 0).astype(np.int64)
        return np.argmax(scores, axis=1).astype(np.int64)

    def predict_train(self):
        return self.predict(self._X)

    @property
    def theta(self) -> np.ndarray:
        """Eq. 2's θ̂ for C = 2 (the coefficient vector of class 1 = label +1)."""
        return self.coef_[1]

    def linear_rule(self):
        return (self.coef_[1].copy(), 0.0) if self.classes == 2 else None


class LeastSquaresModel(LabelModel):
    """One-vs-rest ordinary least squares (with intercept) on ±1 targets."""

    name = "least_squares"
    label = "least squares"

    def fit(self, X, y):
        from sklearn.linear_model import LinearRegression

        X, y = self._check_fit(X, y)
        targets = np.where(y[:, None] == np.arange(self.classes)[None, :], 1.0, -1.0)
        self._model = LinearRegression().fit(X, targets)
        return self

    def decision_function(self, X):
        return self._model.predict(np.asarray(X, dtype=np.float64))

    def predict_proba(self, X):
        return _softmax(self.decision_function(X))

    def linear_rule(self):
        if self.classes != 2:
            return None
        # class 1 wins iff s₁ − s₀ > 0, and with ±1 one-vs-rest targets s₀ = −s₁ exactly
        coef, intercept = self._model.coef_, self._model.intercept_
        return (coef[1] - coef[0]) / 2.0, float(intercept[1] - intercept[0]) / 2.0


class LogisticModel(LabelModel):
    """Multinomial logistic regression, scikit-learn LogisticRegression(C = 0.1, lbfgs, max_iter = 2000)."""

    name = "logistic"
    label = "logistic regression"

    def __init__(self, classes: int, C: float = LOGISTIC_C, max_iter: int = LOGISTIC_MAX_ITER):
        super().__init__(classes)
        self.C = float(C)
        self.max_iter = int(max_iter)

    def fit(self, X, y):
        from sklearn.linear_model import LogisticRegression

        X, y = self._check_fit(X, y)
        if self.single_class:
            self._model, self._constant = None, int(y[0])
            return self
        self._model = LogisticRegression(C=self.C, solver="lbfgs", max_iter=self.max_iter).fit(X, y)
        self._constant = None
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((X.shape[0], self.classes))
        if self._model is None:
            out[:, self._constant] = 1.0
            return out
        out[:, self._model.classes_] = self._model.predict_proba(X)
        return out

    @property
    def estimator(self):
        """The fitted scikit-learn LogisticRegression (None after a single-class fit)."""
        return self._model

    def linear_rule(self):
        if self.classes != 2 or self._model is None or len(self._model.classes_) != 2:
            return None
        return self._model.coef_[0].copy(), float(self._model.intercept_[0])


class KNNModel(LabelModel):
    """k-nearest neighbours (k = 10), uniform votes, leave-one-out on the training points."""

    name = "knn"
    label = "k-NN (k = 10)"

    def __init__(self, classes: int, k: int = KNN_K):
        super().__init__(classes)
        self.k = check_positive_int(k, "k (the number of neighbours)")

    def fit(self, X, y):
        from sklearn.neighbors import NearestNeighbors

        X, y = self._check_fit(X, y)
        self._y = y
        self._index = NearestNeighbors(n_neighbors=min(self.k, X.shape[0]), algorithm="brute").fit(X)
        return self

    def _votes(self, neighbours: np.ndarray) -> np.ndarray:
        labels = self._y[neighbours]  # m × k
        counts = np.zeros((labels.shape[0], self.classes))
        np.add.at(counts, (np.repeat(np.arange(labels.shape[0]), labels.shape[1]), labels.ravel()), 1.0)
        return counts / labels.shape[1]

    def predict_proba(self, X):
        neighbours = self._index.kneighbors(np.asarray(X, dtype=np.float64), return_distance=False)
        return self._votes(neighbours)

    def predict_proba_train(self):
        """Leave-one-out: kneighbors() without X excludes each training point from its own neighbours."""
        n = self._X.shape[0]
        if n < 2:
            return self._votes(np.zeros((n, 1), dtype=np.int64))
        neighbours = self._index.kneighbors(n_neighbors=min(self.k, n - 1), return_distance=False)
        return self._votes(neighbours)


MODELS = {"centroid": CentroidModel, "least_squares": LeastSquaresModel, "logistic": LogisticModel,
          "knn": KNNModel}
MODEL_ALIASES = {"logreg": "logistic", "lstsq": "least_squares", "ls": "least_squares"}


def make_model(name: str, classes: int) -> LabelModel:
    """A fresh, unfitted model ``name`` (a key of MODELS, or "logreg" for "logistic") for C classes."""
    key = MODEL_ALIASES.get(name, name)
    if key not in MODELS:
        raise ValueError(f"Unknown model {name!r}: choose one of {', '.join(MODELS)}.")
    return MODELS[key](classes)


__all__ = ["CentroidModel", "KNNModel", "KNN_K", "LOGISTIC_C", "LOGISTIC_MAX_ITER", "LabelModel",
           "LeastSquaresModel", "LogisticModel", "MODELS", "MODEL_ALIASES", "make_model", "top_two_margin"]
