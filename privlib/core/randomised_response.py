"""k-ary randomised response: report the true value with probability e^eps/(e^eps + C - 1), otherwise
one of the C - 1 other values uniformly at random.

The mechanism of Warner (1965) generalised to C values: "direct encoding" / k-RR in Wang, Blocki,
Li & Jha (2017), "Locally differentially private protocols for frequency estimation", USENIX
Security, and Kairouz, Oh & Viswanath (2016), "Extremal mechanisms for local differential
privacy", JMLR 17; applied to training labels it is the label-DP mechanism RR of Ghazi et al.
(2021), "Deep learning with label differential privacy", NeurIPS. With C = 2 it is binary
randomised response, flip probability 1/(1 + e^eps) (Dwork & Roth 2014, Section 3.2).

Privacy: P(z | y) / P(z | y') is e^eps (z = y), e^-eps (z = y') or 1, so each randomised value is
eps-DP, and the bound is attained.
"""
from __future__ import annotations

import math

import numpy as np

from privlib.core.validation import as_generator, check_epsilon, check_positive_int, check_probability, shown

#: The most classes randomised response takes: 2^53, the largest count float64 (its probabilities)
#: and int64 (its draws) both represent exactly.
MAX_CLASSES = 2**53


def _check_classes(classes) -> int:
    """The number of classes: a whole number from 2 to MAX_CLASSES (2^53)."""
    classes = check_positive_int(classes, "classes (the number of possible values)", minimum=2)
    if classes > MAX_CLASSES:
        check_positive_int(classes, "classes (the number of possible values)", minimum=2, maximum=MAX_CLASSES)
    return classes


def binary_flip_probability(epsilon):
    """Binary randomised response's flip probability p = 1/(1 + e^ε) = expit(−ε) (Warner 1965;
    Dwork & Roth 2014, §3.2): exact and overflow-free for every ε ≥ 0, 0 at ε = ∞ (never flips),
    1/2 at ε = 0. A number gives a float, an array an array; ValueError for a negative or NaN ε."""
    from scipy.special import expit

    array = np.asarray(epsilon, dtype=np.float64) if not isinstance(epsilon, (str, bytes)) else None
    if array is None or np.isnan(array).any() or (array < 0).any():
        raise ValueError(f"epsilon must be a number >= 0 (infinity: never flip), got {shown(epsilon)}.")
    flip = expit(-array)
    return float(flip) if flip.ndim == 0 else flip


class RandomisedResponse:
    """k-ary randomised response over the classes 0..classes-1 (classes = 2: binary).

    ``epsilon`` may be 0 (the output is then uniform and carries no information).
    """

    guarantee = "ε-DP for each randomised value (ε-label DP when applied to labels)"

    __slots__ = ("_classes", "_epsilon", "_flip", "_keep", "_other")

    def __init__(self, classes: int, epsilon: float):
        self._classes = _check_classes(classes)
        self._epsilon = check_epsilon(epsilon, allow_zero=True)
        # Divide through by e^eps: with t = e^-eps in (0, 1], keep = 1/(1 + (C - 1) t),
        # other = t/(1 + (C - 1) t), flip = (C - 1) t/(1 + (C - 1) t). No e^eps is formed, so
        # eps = 1000 gives keep = 1.0 and other = flip = 0.0 (e^-1000 underflows) without overflow
        # or warnings, and eps = 0 gives exactly 1/C.
        t = math.exp(-self._epsilon)
        denominator = 1.0 + (self._classes - 1) * t
        self._keep = 1.0 / denominator
        self._other = t / denominator
        self._flip = (self._classes - 1) * t / denominator

    @property
    def classes(self) -> int:
        return self._classes

    @property
    def epsilon(self) -> float:
        return self._epsilon

    @property
    def keep_probability(self) -> float:
        """P(output = true value) = e^eps/(e^eps + C - 1)."""
        return self._keep

    @property
    def other_probability(self) -> float:
        """P(output = one given other value) = 1/(e^eps + C - 1)."""
        return self._other

    @property
    def flip_probability(self) -> float:
        """P(output != true value) = 1 - keep = (C - 1)/(e^eps + C - 1)."""
        return self._flip

    def __repr__(self) -> str:
        return f"RandomisedResponse(classes={self._classes}, epsilon={self._epsilon!r})"

    def _check_label(self, label) -> int:
        return check_positive_int(label, "true_label", minimum=0, maximum=self._classes - 1)

    def probabilities(self, true_label: int) -> np.ndarray:
        """P(output = z | true value), z = 0..C-1, a length-C vector."""
        label = self._check_label(true_label)
        row = np.full(self._classes, self._other)
        row[label] = self._keep
        return row

    def transition_matrix(self) -> np.ndarray:
        """The C x C matrix M[y, z] = P(output = z | true value = y)."""
        matrix = np.full((self._classes, self._classes), self._other)
        np.fill_diagonal(matrix, self._keep)
        return matrix

    def _check_labels(self, labels, name: str) -> np.ndarray:
        array = np.asarray(labels)
        if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
            raise ValueError(f"{name} must be whole numbers (class indices 0..{self._classes - 1}), "
                             f"got an array of {array.dtype}.")
        array = array.astype(np.int64)
        if array.size and (array.min() < 0 or array.max() >= self._classes):
            raise ValueError(f"{name} must be class indices 0..{self._classes - 1}, got values from "
                             f"{array.min()} to {array.max()}.")
        return array

    def sample(self, labels, rng=None) -> np.ndarray:
        """Randomise each label independently (same shape, int64): keep it with keep_probability,
        otherwise (y + U) mod C with U uniform on 1..C-1 (a uniformly chosen other class)."""
        labels = self._check_labels(labels, "labels")
        rng = as_generator(rng)
        keep = rng.random(labels.shape) < self._keep
        shift = rng.integers(1, self._classes, size=labels.shape)
        return np.where(keep, labels, (labels + shift) % self._classes)

    def estimate_frequencies(self, noisy_labels) -> np.ndarray:
        """Unbiased estimate of the true class frequencies from randomised labels, length C.

        E[f_z] = other + (keep - other) pi_z for observed frequencies f, so pi_z = (f_z - other)/
        (keep - other): the inverse of the transition matrix applied to f (Wang et al. 2017). The
        estimates sum to 1 but can fall outside [0, 1]. Impossible at epsilon = 0 (keep = other).
        """
        noisy = self._check_labels(noisy_labels, "noisy_labels").ravel()
        if noisy.size == 0:
            raise ValueError("noisy_labels is empty: give at least one randomised label.")
        gap = self._keep - self._other
        if gap <= 0:
            raise ValueError("At epsilon = 0 the randomised labels carry no information: the frequencies "
                             "cannot be estimated (use epsilon > 0).")
        observed = np.bincount(noisy, minlength=self._classes) / noisy.size
        return (observed - self._other) / gap

    @staticmethod
    def epsilon_from_keep(q: float, classes: int) -> float:
        """The epsilon whose keep probability is q: eps = ln(q (C - 1)/(1 - q)), for 1/C <= q < 1."""
        classes = _check_classes(classes)
        value = check_probability(q, "keep probability q")
        if not 1.0 / classes <= value < 1.0:
            raise ValueError(f"keep probability q must satisfy 1/C <= q < 1 (1/{classes} = {1 / classes:g}: "
                             f"uniform output, epsilon = 0; q = 1 needs epsilon = infinity), got {shown(q)}.")
        # q (C - 1)/(1 - q) = 1 + (q C - 1)/(1 - q): log1p keeps small epsilons (q near 1/C) accurate
        return max(0.0, math.log1p((value * classes - 1.0) / (1.0 - value)))
