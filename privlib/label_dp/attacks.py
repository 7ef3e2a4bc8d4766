"""What an attacker learns about a training label under ε-label DP (spec "attacks and audits" §1–§3,
Label DP; Ghazi et al. 2021, "Deep Learning with Label Differential Privacy"; Wasserman & Zhou 2010;
Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022).

The secret is one training example's true label y; the attacker knows everything else (the features
are public under label DP) and names one class. Three attackers:

(a) **From the noisy label** (`noisy_label_attack`). The label y is drawn from the class prior π and
    randomised once; the attacker sees the randomised label o and names argmax_y π_y P(o | y). Its
    success Σ_o max_y π_y P(o | y) is computed exactly from the randomiser's output law
    (`output_law`; no sampling). It is bounded by §2 with the class prior,
    max_m e^ε S_m/(e^ε + m − 1) (`privlib.core.risk.reidentification_bound`, S_m the m largest π
    summed). Binary RR and RRWithPrior run with the class prior attain the bound; C-ary RR attains
    it for a uniform prior. The exact trade-off curve of two labels a ≠ b (`NoisyLabelAttack.curve`,
    `privlib.core.risk.FinitePairCurve`) is f_{ε,0} for binary RR; C-ary RR's has slopes e^ε, 1,
    e^{−ε} and maximal advantage (e^ε − 1)/(e^ε + C − 1) (0.147 at C = 10, ε = 1, against tanh(ε/2) =
    0.462 for f_{ε,0}). LP-2ST's law depends on the example (its second half is RRWithPrior under a
    prior from a model of the first half): its success is exact given one release's split and
    priors (the run of repetition 0 of the sweep, `privlib.label_dp.sweep.repeat_rng`), averaged
    over the examples, and no single pair curve is drawn.

(b), (c) **From a model's prediction on the example** (`model_attack`): the baseline model's
    predicted label on a training point (the paper's ỹ; leave-one-out for k-NN) and the retrained
    model's prediction on it. These use the public features, so the class-prior bound does not
    apply. Under ε-label DP, for any event E of the output and any two labels a, b of the example,
    P(E | y = a) ≤ e^ε P(E | y = b); so with Q the law when the example's own label is replaced by
    one independent of its true label (a mixture over b), success ≤ e^ε s_ref and failure ≥
    e^{−ε}(1 − s_ref): **success ≤ min{e^ε s_ref, 1 − e^{−ε}(1 − s_ref)} = 1 − f_{ε,0}(s_ref)**, where
    s_ref is the success when the example's own noisy label is independent of its true label. The
    point (FPR = s_ref, TPR = success) lies under the guarantee's trade-off curve.

    s_ref is estimated on held-out examples of the same pipeline: in each run a random
    `REFERENCE_FRACTION` of the training examples (the *reference examples*, chosen per repetition
    with their own stream) enter the randomiser with a uniformly random class instead of their true
    label, so their noisy labels are independent of their true labels; the same run's models are
    then scored on them against their TRUE labels (s_ref) and on the other training examples
    (the measured success). Everything else is the sweep's run: same data, same model, the same
    label stream (`repeat_rng`), so the unchanged examples get the sweep's noisy labels. The
    measured examples' own reference world has one more label-independent example than the run that
    measures s_ref (one label among n; not corrected). Success and s_ref are pooled over the
    repetitions, each with the binomial standard error of its pooled trials — or, with two or more
    repetitions, the repetitions' standard error when larger (the trials of one run share one
    model, so the binomial SE alone can understate). **The bound is computed from s_ref's upper
    confidence limit** (`reference_upper`: the larger of the one-sided `CONFIDENCE` Clopper–Pearson
    limit of the pooled reference trials and s_ref + 2 SE), so it errs on the side of allowing the
    attacker more: a measured success above it would be a real violation, not noise in s_ref.

`plain sentences` for the page and the CLI (`noisy_label_sentence`, `model_attack_sentence`,
`target_sentence`, for the answer of `privlib.core.risk.largest_epsilon_under` over an ε grid: the one
rule of every topic), the time estimate
(`model_attack_seconds`) and the refusal of long work (``allow_long``), progress
(``progress(fraction, message)``) and one ``seed``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.core.randomised_response import RandomisedResponse
from privlib.core.risk import DPCurve, FinitePairCurve, reidentification_bound
from privlib.core.statistics import binomial_standard_error, clopper_pearson_upper
from privlib.core.sweep import Progress, child_rng
from privlib.core.threads import single_threaded_blas
from privlib.core.validation import (
    check_epsilon,
    check_positive_int,
    check_probability_vector,
    check_range,
    check_seed,
    refuse_long_work,
    shown,
)
from privlib.label_dp.mechanisms import MECHANISMS, check_prior, make_randomiser, rr_prior_weights, top_set_weights
from privlib.label_dp.retraining import MODE_LABELS, as_dataset, check_modes, evaluate, retrain_from_noisy
from privlib.label_dp.sweep import data_seed, estimate_seconds, fit_seconds, repeat_rng

#: The share of the training examples that are reference examples in each run (at least one).
REFERENCE_FRACTION = 0.1
#: The one-sided confidence of s_ref's Clopper–Pearson upper limit.
CONFIDENCE = 0.975
#: Width of the reported intervals, in standard errors (the page's ± 2 SE).
INTERVAL_Z = 2.0
#: The attacks on a model, for people.
MODEL_ATTACK_LABELS = {"baseline": "the baseline model's prediction",
                       "full": "the fully retrained model's prediction",
                       "consensus": "the consensus-retrained model's prediction",
                       "confidence": "the confidence-retrained model's prediction"}


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


# ---------------------------------------------------------------------------------------------
# (a) the noisy label: exact, from the output law


def class_prior(dataset) -> np.ndarray:
    """The class frequencies of the training labels (length C, summing to 1): the prior of the true
    label of a training example drawn at random, which the attacker is taken to know."""
    dataset = as_dataset(dataset)
    counts = np.bincount(np.asarray(dataset.y_train, dtype=np.int64), minlength=dataset.classes)
    return counts / counts.sum()


def rr_with_prior_law(prior, epsilon: float) -> np.ndarray:
    """RRWithPrior's whole output law (Ghazi et al. 2021, Alg. 2) for one prior π (a C × C matrix
    law[y, o] = P(o | y)) or one per row of an m × C array (m × C × C): with the top set Y of k*
    classes (`rr_prior_weights`: w_k = e^ε/(e^ε + k − 1)·S_k, k* the smallest maximiser) and keep =
    e^ε/(e^ε + k* − 1), a label y ∈ Y gives y with keep and each other member of Y (1 − keep)/(k* − 1);
    a label y ∉ Y gives each member of Y 1/k*; classes outside Y are never output. Vectorised over
    the rows (LP-2ST has one prior per example)."""
    epsilon = check_epsilon(epsilon, allow_zero=True)
    pi = check_prior(prior)
    single = pi.ndim == 1
    pi = np.atleast_2d(pi)
    m, C = pi.shape
    order = np.argsort(-pi, axis=1, kind="stable")
    weights = top_set_weights(np.cumsum(np.take_along_axis(pi, order, axis=1), axis=1), epsilon)
    k = np.argmax(weights, axis=1) + 1  # the smallest maximiser
    keep = 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(C)[None, :].repeat(m, axis=0), axis=1)
    top = rank < k[:, None]  # m × C: o ∈ Y
    inside = np.where(k > 1, (1.0 - keep) / np.maximum(k - 1, 1), 0.0)
    law = np.where(top[:, None, :], (1.0 / k)[:, None, None], 0.0)  # rows y ∉ Y
    rows_in_top = np.where(top[:, :, None] & top[:, None, :], inside[:, None, None], 0.0)
    law = np.where(top[:, :, None], rows_in_top, law)
    diagonal = np.arange(C)
    law[:, diagonal, diagonal] = np.where(top, keep[:, None], law[:, diagonal, diagonal])
    return law[0] if single else law


def output_law(randomiser: str, classes: int, epsilon: float, prior=None) -> np.ndarray:
    """The randomiser's output law as a C × C matrix law[y, o] = P(output o | true label y).

    "rr": k-ary RR (keep e^ε/(e^ε + C − 1), each other class 1/(e^ε + C − 1)); "rr-prior":
    RRWithPrior with ``prior`` (None: uniform, which is plain RR for ε > 0; `rr_with_prior_law`).
    LP-2ST's law depends on the example: `lp2st_laws`."""
    classes = check_positive_int(classes, "classes (the number of classes C)", minimum=2)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    if randomiser == "rr":
        return RandomisedResponse(classes, epsilon).transition_matrix()
    if randomiser == "rr-prior":
        pi = np.full(classes, 1.0 / classes) if prior is None else prior
        pi = check_probability_vector(pi, "prior (of RRWithPrior)", length=classes)
        return rr_with_prior_law(pi, epsilon)
    if randomiser == "lp2st":
        raise ValueError("LP-2ST's output law depends on the example (its prior comes from a model): use lp2st_laws.")
    raise ValueError(f"Unknown label randomiser {shown(randomiser)}; choose one of: {', '.join(MECHANISMS)}.")


def check_law(law) -> np.ndarray:
    """A (…, C, C) array of output laws law[…, y, o] (each row a probability vector within 1e-9)."""
    array = np.asarray(law, dtype=np.float64)
    if array.ndim < 2 or array.shape[-1] != array.shape[-2] or array.shape[-1] < 2:
        raise ValueError(f"law must be a C × C matrix P(output | label) (C >= 2), got shape {array.shape}.")
    if not np.all(np.isfinite(array)) or np.any(array < 0) or np.any(np.abs(array.sum(axis=-1) - 1.0) > 1e-9):
        raise ValueError("each row of law must be a probability vector over the outputs (numbers >= 0 summing to 1).")
    return array


def bayes_guess(law, prior) -> np.ndarray:
    """The Bayes attacker's guess for each output o: argmax_y π_y P(o | y) (the smallest class on ties)."""
    law = check_law(law)
    prior = check_probability_vector(prior, "prior (the class prior)", length=law.shape[-1])
    return np.argmax(prior[:, None] * law, axis=-2)


def bayes_success(law, prior) -> float | np.ndarray:
    """The exact success of the Bayes attacker who knows the class prior π and sees the randomised
    label: Σ_o max_y π_y P(o | y) (the best any guess from the output can do; Wasserman & Zhou
    2010). ``law``: one C × C law, or a stack of them (one per example) → one success each."""
    law = check_law(law)
    prior = check_probability_vector(prior, "prior (the class prior)", length=law.shape[-1])
    success = np.max(prior[:, None] * law, axis=-2).sum(axis=-1)
    return float(success) if success.ndim == 0 else success


def lp2st_laws(data, epsilon: float, *, seed: int = 0, model: str = "logistic", repeat: int = 0) -> np.ndarray:
    """LP-2ST's output law for each training example of one release (n × C × C): the release of
    repetition ``repeat`` of the sweep at ``epsilon`` (same split, same first-half labels, same model
    M1: `repeat_rng`); first-half examples have RR's law, second-half example j RRWithPrior's under
    its prior π_j (M1's predicted probabilities). One fit of M1."""
    dataset = as_dataset(data)
    epsilon = check_epsilon(epsilon, allow_zero=True)
    seed = check_seed(seed)
    randomiser = make_randomiser("lp2st", epsilon, model)
    data_r = dataset.redraw(data_seed(dataset, repeat)) if dataset.synthetic else dataset
    with single_threaded_blas():
        released = randomiser.release(data_r.X_train, data_r.y_train, data_r.classes, repeat_rng(seed, repeat, "lp2st"))
    C = data_r.classes
    laws = np.broadcast_to(RandomisedResponse(C, epsilon).transition_matrix(), (data_r.n, C, C)).copy()
    second = np.flatnonzero(~released.first_half)
    if second.size:
        laws[second] = rr_with_prior_law(released.priors, epsilon)
    return laws


@dataclass(frozen=True)
class NoisyLabelAttack:
    """Attack (a) at one ε: ``success`` = the exact Bayes success from the noisy label, ``bound`` =
    the §2 bound with the class prior, ``prior_baseline`` = max π (naming the most common class
    without the label). ``pair_laws``: the output laws (P(· | a), P(· | b)) of the two labels whose
    trade-off curve is drawn (None for LP-2ST, whose law depends on the example)."""

    randomiser: str
    epsilon: float
    classes: int
    class_prior: np.ndarray
    success: float
    bound: float
    prior_baseline: float
    pair: tuple | None = None
    pair_laws: tuple | None = None

    @property
    def label(self) -> str:
        return MECHANISMS[self.randomiser].label

    @property
    def curve(self) -> FinitePairCurve | None:
        """The exact trade-off curve of telling label a from label b (`FinitePairCurve`), or None."""
        return None if self.pair_laws is None else FinitePairCurve(*self.pair_laws)

    @property
    def guarantee_curve(self) -> DPCurve:
        """f_{ε,0}: the guarantee's trade-off curve for any two labels."""
        return DPCurve(self.epsilon)

    def to_dict(self) -> dict:
        curve = self.curve
        return {"randomiser": self.randomiser, "epsilon": self.epsilon, "classes": self.classes,
                "class_prior": self.class_prior.tolist(), "success": self.success, "bound": self.bound,
                "prior_baseline": self.prior_baseline, "pair": None if self.pair is None else list(self.pair),
                "pair_advantage": None if curve is None else curve.advantage,
                "guarantee_advantage": self.guarantee_curve.advantage,
                "sentence": noisy_label_sentence(self)}


def noisy_label_attack(randomiser: str, epsilon: float, prior, *, randomiser_prior=None, data=None, seed: int = 0,
                       model: str = "logistic") -> NoisyLabelAttack:
    """Attack (a) at ``epsilon``: the exact Bayes success of guessing the true label from the noisy
    label (`bayes_success`) under the class prior ``prior``, the §2 bound
    `privlib.core.risk.reidentification_bound` (prior, ε) and the prior baseline max π.

    ``randomiser_prior``: RRWithPrior's prior (None: uniform, as the randomiser's default; give the
    class prior to see it attain the bound). LP-2ST needs ``data`` (its priors come from a model
    fitted on one release: `lp2st_laws` with ``seed`` and ``model``); its success is the average
    over the training examples of each one's exact Bayes success."""
    if randomiser not in MECHANISMS:
        raise ValueError(f"Unknown label randomiser {shown(randomiser)}; choose one of: {', '.join(MECHANISMS)}.")
    epsilon = check_epsilon(epsilon, allow_zero=True)
    pi = check_probability_vector(prior, "prior (the class prior)", min_length=2)
    if pi.ndim != 1:
        raise ValueError("prior (the class prior) must be one list of class probabilities.")
    C = pi.size
    bound = reidentification_bound(pi, epsilon)
    if randomiser == "lp2st":
        if data is None:
            raise ValueError("LP-2ST's law depends on the data: give data= (a dataset or its name).")
        laws = lp2st_laws(data, epsilon, seed=seed, model=model)
        if laws.shape[-1] != C:
            raise ValueError(f"prior has {C} classes but the data have {laws.shape[-1]}.")
        success = float(np.mean(bayes_success(laws, pi)))
        return NoisyLabelAttack(randomiser, epsilon, C, pi, success, bound, float(pi.max()))
    law = output_law(randomiser, C, epsilon, randomiser_prior)
    if randomiser == "rr-prior":
        order = rr_prior_weights(np.full(C, 1.0 / C) if randomiser_prior is None else randomiser_prior, epsilon).order
        pair = (int(order[0]), int(order[1]))  # the two classes of largest prior (both in the top set when any two are)
    else:
        pair = (0, 1)
    return NoisyLabelAttack(randomiser, epsilon, C, pi, bayes_success(law, pi), bound, float(pi.max()), pair,
                            (law[pair[0]].copy(), law[pair[1]].copy()))


def noisy_label_attacks(data, randomiser: str, epsilons, *, seed: int = 0, model: str = "logistic",
                        randomiser_prior=None) -> list[NoisyLabelAttack]:
    """`noisy_label_attack` at each ε of ``epsilons`` with the class prior of ``data`` (`class_prior`)."""
    dataset = as_dataset(data)
    prior = class_prior(dataset)
    return [noisy_label_attack(randomiser, float(e), prior, randomiser_prior=randomiser_prior, data=dataset,
                               seed=seed, model=model) for e in _epsilon_grid(epsilons)]


def noisy_label_sentence(attack: NoisyLabelAttack) -> str:
    """The page's and the CLI's sentence for attack (a)."""
    return (f"At ε = {attack.epsilon:.3g}, somebody who sees a training example's randomised label "
            f"({attack.label}) names its true label {_percent(attack.success)} of the time (exact); naming the "
            f"most common class without looking gets {_percent(attack.prior_baseline)}; the guarantee allows at "
            f"most {_percent(attack.bound)}.")


# ---------------------------------------------------------------------------------------------
# (b), (c) a model's prediction on the example: measured, against the s_ref bound


def _epsilon_grid(epsilons) -> np.ndarray:
    values = np.atleast_1d(np.asarray(epsilons, dtype=object)) if not isinstance(epsilons, str) else None
    if values is None or values.ndim != 1 or values.size == 0:
        raise ValueError(f"epsilons must be a number or a non-empty flat list of numbers, got {shown(epsilons)}.")
    return np.array([check_epsilon(e, allow_zero=True) for e in values.tolist()], dtype=np.float64)


def _attack_modes(modes) -> tuple:
    return check_modes(((modes,) if isinstance(modes, str) else tuple(modes)) + ("baseline",))


def reference_count(n: int, fraction: float = REFERENCE_FRACTION) -> int:
    """The reference examples of a run of ``n`` training examples: round(fraction·n), at least 1 and
    at most n − 1 (the rest are attacked)."""
    n = check_positive_int(n, "n (the number of training examples)", minimum=2)
    fraction = check_range(fraction, "reference_fraction", low=0.0, high=1.0, low_inclusive=False,
                           high_inclusive=False)
    return int(min(n - 1, max(1, round(fraction * n))))


@dataclass(frozen=True, eq=False)
class ModelAttack:
    """Attacks (b) and (c) over an ε grid: for each mode (``baseline`` = (b), a retraining mode = (c))
    hits and trials per ε × repetition on the attacked training examples (``hits``, ``trials``) and on
    the reference examples (``reference_hits``, ``reference_trials``), and the models' test accuracy
    (``accuracy``, the utility; clean test labels, evaluation only). Pooled over the repetitions:
    `success`, `reference` (s_ref), their `standard_error`s, `reference_upper` and `bound`."""

    dataset: str
    model: str
    randomiser: str
    epsilons: np.ndarray
    modes: tuple
    repeats: int
    seed: int
    reference_fraction: float
    hits: dict
    trials: np.ndarray
    reference_hits: dict
    reference_trials: np.ndarray
    accuracy: dict
    fresh_unlabelled: bool = False

    def _check_mode(self, mode: str) -> str:
        if mode not in self.modes:
            raise ValueError(f"mode must be one of the attacked modes {', '.join(self.modes)}, got {shown(mode)}.")
        return mode

    def defined(self, mode: str) -> bool:
        """False where the mode's model does not exist (consensus on a fresh unlabelled set)."""
        return mode in self.modes and bool(np.all(np.isfinite(self.hits[mode])))

    @staticmethod
    def _pooled(hits: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(pooled proportion, its SE) per ε from hits[ε, r] of trials[r]: the binomial SE of the pooled
        trials, or with ≥ 2 repetitions the repetitions' SE sd(h_r/t_r)/√R when that is larger."""
        total = trials.sum()
        p = hits.sum(axis=1) / total
        if not np.all(np.isfinite(p)):  # an undefined mode (no model): no proportion
            return p, np.full(p.shape, np.nan)
        se = binomial_standard_error(np.clip(p, 0.0, 1.0), total)
        if hits.shape[1] >= 2:
            per_run = hits / trials[None, :]
            se = np.maximum(se, per_run.std(axis=1, ddof=1) / math.sqrt(hits.shape[1]))
        return p, se

    def success(self, mode: str = "baseline") -> np.ndarray:
        """The measured success per ε: the share of attacked training examples whose true label the
        model's prediction names (NaN where the mode is undefined)."""
        return self._pooled(self.hits[self._check_mode(mode)], self.trials)[0]

    def standard_error(self, mode: str = "baseline") -> np.ndarray:
        return self._pooled(self.hits[self._check_mode(mode)], self.trials)[1]

    def reference(self, mode: str = "baseline") -> np.ndarray:
        """s_ref per ε: the same guess's success on the reference examples (own label independent of the truth)."""
        return self._pooled(self.reference_hits[self._check_mode(mode)], self.reference_trials)[0]

    def reference_standard_error(self, mode: str = "baseline") -> np.ndarray:
        return self._pooled(self.reference_hits[self._check_mode(mode)], self.reference_trials)[1]

    def reference_upper(self, mode: str = "baseline") -> np.ndarray:
        """s_ref's upper confidence limit per ε: max{one-sided `CONFIDENCE` Clopper–Pearson limit of the
        pooled reference trials, s_ref + 2 SE}, at most 1."""
        mode = self._check_mode(mode)
        if not self.defined(mode):
            return np.full(self.epsilons.size, np.nan)
        hits = self.reference_hits[mode].sum(axis=1)
        exact = clopper_pearson_upper(hits, np.full(hits.shape, self.reference_trials.sum()), CONFIDENCE)
        p, se = self._pooled(self.reference_hits[mode], self.reference_trials)
        return np.minimum(1.0, np.maximum(exact, p + INTERVAL_Z * se))

    def bound(self, mode: str = "baseline") -> np.ndarray:
        """The guarantee's limit per ε: min{e^ε s_U, 1 − e^{−ε}(1 − s_U)} = 1 − f_{ε,0}(s_U) with s_U =
        `reference_upper` (conservative: computed from s_ref's upper confidence limit)."""
        upper = self.reference_upper(mode)
        return np.array([float(DPCurve(e).tpr(u)) if np.isfinite(u) else np.nan
                         for e, u in zip(self.epsilons, upper)])

    def mean_accuracy(self, mode: str = "baseline") -> np.ndarray:
        """The models' mean test accuracy per ε (the utility; evaluation only)."""
        return np.mean(self.accuracy[self._check_mode(mode)], axis=1)

    def index(self, epsilon: float) -> int:
        """The position of ``epsilon`` in the grid (ValueError when it is not on it)."""
        matches = np.flatnonzero(np.isclose(self.epsilons, float(epsilon), rtol=1e-12, atol=0.0))
        if matches.size == 0:
            raise ValueError(f"epsilon {epsilon:g} is not on the attack's grid "
                             f"({', '.join(f'{e:g}' for e in self.epsilons)}).")
        return int(matches[0])

    def roc(self, epsilon: float, mode: str = "baseline") -> tuple[np.ndarray, np.ndarray]:
        """The attack as a test of "the example's own label entered" (x) against "it was independent
        of the truth" (x′) at ``epsilon``: FPR = s_ref, TPR = success; with randomisation between
        "always say x" and "never", the ROC runs (0, 0) → (s_ref, success) → (1, 1)."""
        i = self.index(epsilon)
        return np.array([0.0, self.reference(mode)[i], 1.0]), np.array([0.0, self.success(mode)[i], 1.0])

    def to_dict(self) -> dict:
        def numbers(values):
            return [None if not math.isfinite(float(v)) else float(v) for v in values]

        attacks = {}
        for mode in self.modes:
            attacks[mode] = {"label": MODEL_ATTACK_LABELS[mode], "defined": self.defined(mode),
                             "success": numbers(self.success(mode)), "standard_error": numbers(self.standard_error(mode)),
                             "reference": numbers(self.reference(mode)),
                             "reference_standard_error": numbers(self.reference_standard_error(mode)),
                             "reference_upper": numbers(self.reference_upper(mode)), "bound": numbers(self.bound(mode)),
                             "accuracy": numbers(self.mean_accuracy(mode))}
        return {"dataset": self.dataset, "model": self.model, "randomiser": self.randomiser,
                "epsilons": self.epsilons.tolist(), "modes": list(self.modes), "repeats": self.repeats,
                "seed": self.seed, "reference_fraction": self.reference_fraction,
                "attacked_examples": int(self.trials.sum()), "reference_examples": int(self.reference_trials.sum()),
                "fresh_unlabelled": self.fresh_unlabelled, "confidence": CONFIDENCE, "attacks": attacks}


def noisy_label_attacks_seconds(data, randomiser: str, epsilons, *, model: str = "logistic",
                                per_fit: float | None = None) -> float:
    """Estimated seconds of `noisy_label_attacks`: one fit of LP-2ST's model per ε (`fit_seconds`, or
    ``per_fit``); the other randomisers' laws are closed forms (0)."""
    grid = _epsilon_grid(epsilons)
    if randomiser != "lp2st":
        return 0.0
    cost = fit_seconds(as_dataset(data), model) if per_fit is None else check_range(per_fit, "per_fit", low=0.0)
    return grid.size * cost


def model_attack_seconds(data, randomiser: str, epsilons, repeats: int, *, model: str = "logistic",
                         modes=("baseline", "consensus"), per_fit: float | None = None,
                         per_run: float | None = None) -> float:
    """Estimated seconds of `model_attack`: one run of the sweep per (ε, repetition) with ``modes``
    (`privlib.label_dp.sweep.estimate_seconds`, which also counts a non-private fit per repetition —
    a small overestimate); ``per_fit`` / ``per_run``: timings to use instead of timing a fit here."""
    return estimate_seconds(data, randomiser, _epsilon_grid(epsilons), repeats, model=model,
                            modes=_attack_modes(modes), per_fit=per_fit, per_run=per_run)


def model_attack(data, randomiser: str, epsilons, *, repeats: int = 5, seed: int = 0, model: str = "logistic",
                 modes=("baseline", "consensus"), fresh_unlabelled: bool = False,
                 reference_fraction: float = REFERENCE_FRACTION, progress: Progress | None = None,
                 allow_long: bool = False, per_fit: float | None = None, per_run: float | None = None) -> ModelAttack:
    """Attacks (b) (``baseline``) and (c) (the retraining modes of ``modes``) over ``epsilons``: in
    repetition r the reference examples and their random classes come from ``child_rng(seed,
    "label-attack-reference", r)`` (the same at every ε), the labels from the sweep's
    ``repeat_rng(seed, r, randomiser)``, synthetic data are redrawn as in the sweep (`data_seed`);
    see the module docstring. Work estimated above the long-work limit
    (`privlib.core.validation.long_work_limit`) is refused unless ``allow_long``; ``progress(fraction,
    message)`` after each run."""
    dataset = as_dataset(data)
    if randomiser not in MECHANISMS:
        raise ValueError(f"Unknown label randomiser {shown(randomiser)}; choose one of: {', '.join(MECHANISMS)}.")
    epsilons = _epsilon_grid(epsilons)
    modes = _attack_modes(modes)
    repeats = check_positive_int(repeats, "repeats", maximum=10_000)
    seed = check_seed(seed)
    make_randomiser(randomiser, 1.0, model)  # ValueError for an unknown model, before any work
    if fresh_unlabelled and dataset.X_unlabelled is None:
        raise ValueError(f"The {dataset.name} dataset has no fresh unlabelled set X_U: use the same training set.")
    count = reference_count(dataset.n, reference_fraction)
    seconds = model_attack_seconds(dataset, randomiser, epsilons, repeats, model=model, modes=modes, per_fit=per_fit,
                                   per_run=per_run)
    refuse_long_work(seconds, allow_long, "This attack", "use fewer repetitions or values of epsilon")
    shape = (epsilons.size, repeats)
    hits = {m: np.full(shape, np.nan) for m in modes}
    reference_hits = {m: np.full(shape, np.nan) for m in modes}
    accuracy = {m: np.full(shape, np.nan) for m in modes}
    trials, reference_trials = np.zeros(repeats), np.zeros(repeats)
    total, done = epsilons.size * repeats, 0
    with single_threaded_blas():
        for r in range(repeats):
            data_r = dataset.redraw(data_seed(dataset, r)) if dataset.synthetic else dataset
            stream = child_rng(seed, "label-attack-reference", r)
            reference = np.zeros(data_r.n, dtype=bool)
            reference[stream.choice(data_r.n, size=count, replace=False)] = True
            labels = np.asarray(data_r.y_train, dtype=np.int64).copy()
            labels[reference] = stream.integers(0, data_r.classes, size=count)  # independent of the true label
            truth = np.asarray(data_r.y_train, dtype=np.int64)
            trials[r], reference_trials[r] = data_r.n - count, count
            for e, eps in enumerate(epsilons):
                mechanism = make_randomiser(randomiser, float(eps), model)
                released = mechanism.release(data_r.X_train, labels, data_r.classes, repeat_rng(seed, r, randomiser))
                pipeline = retrain_from_noisy(data_r.X_train, released.labels, data_r.classes, model, modes,
                                              data_r.X_unlabelled if fresh_unlabelled else None)
                for mode in modes:
                    fitted = pipeline.models.get(mode)
                    if fitted is None:
                        continue
                    guess = pipeline.predicted_labels if mode == "baseline" else fitted.predict(data_r.X_train)
                    right = guess == truth
                    hits[mode][e, r] = np.count_nonzero(right[~reference])
                    reference_hits[mode][e, r] = np.count_nonzero(right[reference])
                    accuracy[mode][e, r] = evaluate(fitted, data_r)
                done += 1
                if progress is not None:
                    progress(done / total, f"{randomiser}, ε = {eps:g}, repetition {r + 1} of {repeats}")
    return ModelAttack(dataset=dataset.name, model=model, randomiser=randomiser, epsilons=epsilons, modes=modes,
                       repeats=repeats, seed=seed, reference_fraction=float(reference_fraction), hits=hits,
                       trials=trials, reference_hits=reference_hits, reference_trials=reference_trials,
                       accuracy=accuracy, fresh_unlabelled=bool(fresh_unlabelled))


def model_attack_sentence(result: ModelAttack, epsilon: float, mode: str = "baseline") -> str:
    """The page's and the CLI's sentence for attack (b) (``mode`` "baseline") or (c) at ``epsilon``."""
    i = result.index(epsilon)
    what = MODEL_ATTACK_LABELS[result._check_mode(mode)]
    if not result.defined(mode):
        return f"{MODE_LABELS[mode].capitalize()} is undefined here (no given labels on a fresh unlabelled set)."
    s, se = result.success(mode)[i], result.standard_error(mode)[i]
    ref, ref_se = result.reference(mode)[i], result.reference_standard_error(mode)[i]
    return (f"At ε = {result.epsilons[i]:.3g}, somebody who sees {what} on a training example names its true label "
            f"{_percent(s)} ± {_percent(INTERVAL_Z * se)} of the time; on examples whose own label did not enter "
            f"(s_ref) the same guess is right {_percent(ref)} ± {_percent(INTERVAL_Z * ref_se)} (what the features "
            f"and the other labels give); the guarantee allows at most {_percent(result.bound(mode)[i])} (from s_ref's upper confidence "
            f"limit {_percent(result.reference_upper(mode)[i])}).")


# ---------------------------------------------------------------------------------------------
# choosing ε for a target


def target_sentence(target: float, epsilon: float | None, attack: str, how: str) -> str:
    """"The largest ε of the grid that keeps <attack> under <target> is E (<how>)." or that none does."""
    target = check_range(target, "target (the attack success you accept)", low=0.0, high=1.0)
    if epsilon is None:
        return f"No ε of the grid keeps {attack} under {_percent(target)} ({how})."
    return f"The largest ε of the grid that keeps {attack} under {_percent(target)} is {epsilon:.3g} ({how})."


__all__ = ["CONFIDENCE", "INTERVAL_Z", "MODEL_ATTACK_LABELS", "REFERENCE_FRACTION", "ModelAttack", "NoisyLabelAttack",
           "bayes_guess", "bayes_success", "check_law", "class_prior", "lp2st_laws",
           "model_attack", "model_attack_seconds", "model_attack_sentence", "noisy_label_attack",
           "noisy_label_attacks", "noisy_label_attacks_seconds", "noisy_label_sentence", "output_law", "reference_count", "rr_with_prior_law",
           "target_sentence"]
