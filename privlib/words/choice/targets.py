"""The inverse questions of an ε study: the smallest ε that meets a utility target, the largest
that keeps a privacy floor and the largest that keeps an attack target (at most a share of words
re-identified, or at most some points above the prior; `attack_metrics`; by the one rule of every
page, `privlib.core.risk.largest_epsilon_under`), with their ±2 SE range, and the answer in plain words."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int, shown
from privlib.words.choice.attack_metrics import AttackMetrics
from privlib.words.choice.metrics import BAND_SE, FRACTION_METRICS, UTILITY_METRICS, MechanismMetrics, float_list

#: Default length L of a sentence for the composed budget L·eps.
DEFAULT_SENTENCE_LENGTH = 20
#: How the privacy floor on Pr[output = input] applies: to every word ("max") or on average ("mean").
KEEP_STATISTICS = {"max": "every word", "mean": "on average"}
#: What the attack target bounds: the attacker's success, or its success above the prior baseline π_max.
ATTACK_MEASURES = {"success": "of the words re-identified", "above_prior": "points above the prior"}


@dataclass(frozen=True)
class Targets:
    """What the deployment needs.

    * ``utility`` on ``utility_metric`` (default: at least 60% of outputs unchanged or among
      the K nearest neighbours, metric "within_k"; "close", "unchanged" or "cosine" also work);
    * privacy floor ``max_keep`` on Pr[output = input]: with ``keep_statistic`` "max" (default,
      the literal reading) no word may be kept more often than that; with "mean" the average
      over words may not;
    * ``attack`` (None: no attack target) on ``attack_measure``: with "success" the attacker names
      the original word at most this share of the time, with "above_prior" at most this many points
      of probability (0.05 = 5 points) above guessing from the prior alone (`attack_metrics`).
    """

    utility: float = 0.6
    utility_metric: str = "within_k"
    max_keep: float = 0.5
    keep_statistic: str = "max"
    attack: float | None = None
    attack_measure: str = "success"

    def __post_init__(self):
        if self.utility_metric not in UTILITY_METRICS:
            raise ValueError(f"utility_metric must be one of {', '.join(UTILITY_METRICS)}, "
                             f"got {self.utility_metric!r}.")
        low = -1.0 if self.utility_metric == "cosine" else 0.0
        for name, value, lo in (("utility target", self.utility, low),
                                ("max_keep (privacy floor)", self.max_keep, 0.0)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not lo <= float(value) <= 1:
                raise ValueError(f"The {name} must be a number between {lo:g} and 1, got {value!r}.")
        if self.keep_statistic not in KEEP_STATISTICS:
            raise ValueError(f"keep_statistic must be 'max' (every word) or 'mean' (on average), "
                             f"got {self.keep_statistic!r}.")
        if self.attack_measure not in ATTACK_MEASURES:
            raise ValueError(f"attack_measure must be 'success' or 'above_prior', got {shown(self.attack_measure)}.")
        if self.attack is not None:
            value = self.attack
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) <= 1:
                raise ValueError(f"The attack target must be a number above 0 and at most 1 (a share of words, "
                                 f"or points of probability above the prior), got {shown(value)}.")

    def check_attack(self, prior_baseline: float) -> None:
        """ValueError when the attack target is impossible or trivially met, whatever the mechanism and ε.
        Impossible: a success target at most π_max = ``prior_baseline`` — the Bayes attacker's success
        Σ_o max_w π_w P(o | w) ≥ max_w π_w Σ_o P(o | w) = π_max (it may ignore the output; spec §2).
        Trivially met: a success target of 1, or a target above the prior of 1 − π_max or more (no
        success exceeds 1)."""
        if self.attack is None:
            return
        if self.attack_measure == "success":
            if self.attack <= prior_baseline:
                raise ValueError(f"The attack target ({self.attack:.2%} of the words re-identified) cannot be met at any ε: "
                                 f"guessing the most likely candidate without seeing the output already succeeds "
                                 f"{prior_baseline:.2%} of the time. Set a target above {prior_baseline:.2%}, or "
                                 "measure it in points above the prior.")
            if self.attack >= 1:
                raise ValueError("The attack target (100% of the words re-identified) is met at every ε, since no "
                                 "attacker succeeds more than always: set a target below 1.")
        elif self.attack >= 1 - prior_baseline:
            raise ValueError(f"The attack target ({100 * self.attack:.1f} points above the prior) is met at every ε: "
                             f"the prior alone gives {prior_baseline:.2%}, so no attacker can gain more than "
                             f"{100 * (1 - prior_baseline):.1f} points. Set a smaller target.")

    @property
    def privacy_metric(self) -> str:
        return "unchanged_max" if self.keep_statistic == "max" else "unchanged"

    def describe(self, close: int) -> dict:
        """Plain-language wording of the two targets."""
        what = {"within_k": f"of outputs unchanged or among the {close} nearest neighbours",
                "close": f"of outputs among the {close} nearest neighbours (not the word itself)",
                "unchanged": "of outputs unchanged", "cosine": "mean cosine similarity"}[self.utility_metric]
        utility = (f"mean cosine similarity ≥ {self.utility:g}" if self.utility_metric == "cosine"
                   else f"≥ {self.utility:.0%} {what}")
        floor = (f"no word kept unchanged more than {self.max_keep:.0%} of the time" if self.keep_statistic == "max"
                 else f"words kept unchanged at most {self.max_keep:.0%} of the time on average")
        wording = {"utility": utility, "privacy": floor}
        if self.attack is not None:
            wording["attack"] = (f"the attacker names the original word at most {self.attack:.1%} of the time"
                                 if self.attack_measure == "success" else
                                 f"the attacker names the original word at most {100 * self.attack:.1f} points "
                                 "more often than guessing from the prior")
        return wording

    def to_dict(self) -> dict:
        return dict(self.__dict__)


NOWHERE, EVERYWHERE, CROSSED = "nowhere", "everywhere", "crossed"


@dataclass(frozen=True)
class Threshold:
    """One inverse answer on the grid. For the utility target: the smallest grid epsilon where
    the estimate meets it; for the privacy floor: the largest grid epsilon where it holds.
    ``interpolated``: the crossing by linear interpolation in epsilon between that grid point
    and its neighbour on the other side (None when the grid does not bracket it).
    ``optimistic`` / ``conservative``: the same answer with the estimate moved `BAND_SE`
    standard errors in its favour / against it (the uncertainty of the answer). ``status``:
    "crossed", "everywhere" (met at every grid epsilon) or "nowhere" (met at none)."""

    epsilon: float | None
    interpolated: float | None
    optimistic: float | None
    conservative: float | None
    status: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _first(eps, mask):
    idx = np.flatnonzero(mask)
    return (float(eps[idx[0]]), int(idx[0])) if idx.size else (None, None)


def _last(eps, mask):
    idx = np.flatnonzero(mask)
    return (float(eps[idx[-1]]), int(idx[-1])) if idx.size else (None, None)


def _interpolate(eps, values, i: int, j: int, target: float):
    """epsilon where the straight line between grid points i and j reaches ``target``."""
    a, b = float(values[i]), float(values[j])
    if a == b:
        return float(eps[j])
    t = min(max((target - a) / (b - a), 0.0), 1.0)
    return float(eps[i] + t * (eps[j] - eps[i]))


def _status(mask) -> str:
    return EVERYWHERE if mask.all() else (NOWHERE if not mask.any() else CROSSED)


@dataclass(frozen=True, eq=False)
class Answer:
    """The inverse questions for one mechanism: ``utility`` (smallest epsilon meeting the
    utility target), ``privacy`` (largest epsilon keeping the floor), ``attack`` (largest epsilon
    keeping the attack target with every smaller one — the one rule, `privlib.core.risk.largest_epsilon_under`;
    None without one); per grid epsilon, where the estimates meet every target (``recommended``), where
    they all hold even against ±`BAND_SE` SE (``surely``) and where they all may hold within it
    (``possibly``); ``attack_met``: where the attack target holds (the grid ε up to the attack's answer)."""

    mechanism: str
    label: str
    utility: Threshold
    privacy: Threshold
    utility_met: np.ndarray = field(repr=False)
    privacy_kept: np.ndarray = field(repr=False)
    recommended: np.ndarray = field(repr=False)
    surely: np.ndarray = field(repr=False)
    possibly: np.ndarray = field(repr=False)
    epsilons: np.ndarray = field(repr=False)
    messages: tuple = ()
    attack: Threshold | None = None
    attack_met: np.ndarray | None = field(default=None, repr=False)

    @property
    def feasible(self) -> bool:
        """Some grid epsilon meets both targets (estimates)."""
        return bool(self.recommended.any())

    @property
    def range(self):
        """(smallest, largest) recommended grid epsilon, or None when infeasible."""
        idx = np.flatnonzero(self.recommended)
        return (float(self.epsilons[idx[0]]), float(self.epsilons[idx[-1]])) if idx.size else None

    @property
    def sure_range(self):
        idx = np.flatnonzero(self.surely)
        return (float(self.epsilons[idx[0]]), float(self.epsilons[idx[-1]])) if idx.size else None

    @property
    def message(self) -> str:
        return " ".join(self.messages)

    @property
    def attack_summary(self) -> str | None:
        """The attack target's answer in one line: the largest grid ε that meets it with every smaller
        one (measured + 2 SE, or exact) and the other end of its ±2 SE range (None without an attack
        target)."""
        a = self.attack
        if a is None:
            return None
        if a.epsilon is None:
            return ("Attack target: met at no ε of the grid" + ("." if a.optimistic is None else
                    f" (with −{BAND_SE:g} SE: up to ε = {a.optimistic:g})."))
        span = ("" if a.optimistic == a.epsilon
                else f" (±{BAND_SE:g} SE range: ε = {a.epsilon:g} to {a.optimistic:g})")
        return (f"Attack target: largest ε that meets it = {a.epsilon:g}{span}"
                + ("; met at every ε of the grid." if a.status == EVERYWHERE else "."))

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "label": self.label, "feasible": self.feasible,
                "recommended_range": self.range, "sure_range": self.sure_range,
                "recommended_epsilons": float_list(self.epsilons[self.recommended]),
                "utility": self.utility.to_dict(), "privacy": self.privacy.to_dict(),
                "attack": None if self.attack is None else self.attack.to_dict(), "message": self.message}


def answer(metrics: MechanismMetrics, targets: Targets, sentence_length: int = DEFAULT_SENTENCE_LENGTH,
           attack: AttackMetrics | None = None) -> Answer:
    """The inverse questions on the grid of ``metrics`` (see `Threshold` and `Answer`), with a
    plain-language message. Grid answers are literal: the smallest grid epsilon where the
    utility estimate meets the target, the largest where the privacy statistic is within the
    floor, and for the attack (``attack``, the same mechanism on the same grid; needed when
    ``targets.attack`` is set) the rule of every topic's page: the largest grid ε at which, and at every
    smaller one, the measure + 2 SE (exact: the value) is within the attack target, with the − 2 SE end
    of its range (`_attack_answer`); if the estimates are not monotone in epsilon, `Answer.recommended`
    marks each grid point that meets every target."""
    eps = np.asarray(metrics.epsilons, dtype=np.float64)
    if targets.attack is not None:
        if attack is None:
            raise ValueError("An attack target needs the attack's success over the grid (attack_metrics).")
        if attack.mechanism != metrics.mechanism or not np.array_equal(attack.epsilons, eps):
            raise ValueError("The attack must be run on the same mechanism and ε grid as the metrics.")
        targets.check_attack(attack.prior_baseline)
    u_name, p_name = targets.utility_metric, targets.privacy_metric
    u, (u_lo, u_hi) = metrics.values[u_name], metrics.bands[u_name]
    k, (k_lo, k_hi) = metrics.values[p_name], metrics.bands[p_name]
    met, met_opt, met_sure = u >= targets.utility, u_hi >= targets.utility, u_lo >= targets.utility
    kept, kept_opt, kept_sure = k <= targets.max_keep, k_lo <= targets.max_keep, k_hi <= targets.max_keep

    e_u, i_u = _first(eps, met)
    u_interp = _interpolate(eps, u, i_u - 1, i_u, targets.utility) if i_u and not met[i_u - 1] else None
    utility = Threshold(e_u, u_interp, _first(eps, met_opt)[0], _first(eps, met_sure)[0], _status(met))
    e_p, i_p = _last(eps, kept)
    p_interp = (_interpolate(eps, k, i_p, i_p + 1, targets.max_keep)
                if i_p is not None and i_p + 1 < eps.size and not kept[i_p + 1] else None)
    privacy = Threshold(e_p, p_interp, _last(eps, kept_opt)[0], _last(eps, kept_sure)[0], _status(kept))

    wording = targets.describe(metrics.close)
    L = check_positive_int(sentence_length, "sentence length", minimum=1)
    msgs = []
    if utility.status == EVERYWHERE:
        msgs.append(f"The utility target ({wording['utility']}) is met at every ε of the grid, "
                    f"even the smallest (ε = {eps[0]:g}); a smaller ε may meet it too.")
    elif utility.status == NOWHERE:
        msgs.append(f"The utility target ({wording['utility']}) is met at no ε of the grid: even at "
                    f"ε = {eps[-1]:g} the estimate is {_fmt(u_name, u[-1])}. Try larger ε.")
    else:
        sure = (f"from ε = {utility.conservative:g} for sure" if utility.conservative is not None
                else "at no grid ε for sure")
        msgs.append(f"The utility target ({wording['utility']}) is met from ε = {e_u:g}"
                    + (f" (about {u_interp:.3g} by linear interpolation)" if u_interp is not None else "")
                    + (f"; the same allowing for ±{BAND_SE:g} SE." if utility.optimistic == utility.conservative == e_u
                       else f"; allowing for ±{BAND_SE:g} SE, from ε = {utility.optimistic:g} at the earliest "
                            f"and {sure}."))
    if privacy.status == EVERYWHERE:
        msgs.append(f"The privacy floor ({wording['privacy']}) holds at every ε of the grid, "
                    f"even the largest (ε = {eps[-1]:g}).")
    elif privacy.status == NOWHERE:
        msgs.append(f"The privacy floor ({wording['privacy']}) holds at no ε of the grid: even at "
                    f"ε = {eps[0]:g} the estimate is {_fmt(p_name, k[0])}.")
    else:
        sure = (f"surely up to ε = {privacy.conservative:g}" if privacy.conservative is not None
                else "surely at no grid ε")
        msgs.append(f"The privacy floor ({wording['privacy']}) holds up to ε = {e_p:g}"
                    + (f" (about {p_interp:.3g} by linear interpolation)" if p_interp is not None else "")
                    + (f"; the same allowing for ±{BAND_SE:g} SE." if privacy.optimistic == privacy.conservative == e_p
                       else f"; allowing for ±{BAND_SE:g} SE, {sure} and at most up to ε = {privacy.optimistic:g}."))
    both, sure, maybe = met & kept, met_sure & kept_sure, met_opt & kept_opt
    threshold, hit = None, None
    if targets.attack is not None:
        threshold, hit, hit_sure, hit_opt, text = _attack_answer(attack, targets, wording["attack"])
        msgs.append(text)
        both, sure, maybe = both & hit, sure & hit_sure, maybe & hit_opt
    targets_word = "both targets" if targets.attack is None else "all three targets"
    if both.any():
        lo, hi = eps[both][0], eps[both][-1]
        msgs.append(f"Recommended for {metrics.label}: ε = {_span(lo, hi)} on this grid "
                    f"(a {L}-word sentence spends {_span(L * lo, L * hi)})"
                    + ("." if sure.any() else f"; within the uncertainty no grid ε is sure to meet {targets_word}: "
                       "more samples or words would settle it."))
    else:
        msgs.append(f"No ε on this grid satisfies {targets_word} for {metrics.label}"
                    + (" (within the uncertainty some might: more samples or words would settle it)." if maybe.any()
                       else "."))
    return Answer(metrics.mechanism, metrics.label, utility, privacy, met, kept, both, sure, maybe, eps, tuple(msgs),
                  threshold, hit)


def _attack_answer(attack: AttackMetrics, targets: Targets, wording: str):
    """The attack target's `Threshold` by the one rule of every page and command
    (`privlib.core.risk.largest_epsilon_under`): ``epsilon`` (= ``conservative``) is the largest grid ε
    such that at it and at every smaller grid ε the attack's measure — the exact Bayes value, or a sampled
    attack's measured value + `BAND_SE` standard errors — is within the target (a dip back under the
    target after a miss does not count: a sampled success need not be monotone in ε); ``optimistic`` the
    same with − `BAND_SE` SE (the other end of the ±2 SE range); ``interpolated`` where the straight line
    of the rule's values crosses the target after the answer. Where it holds (the grid ε up to the answer:
    estimate and surely; up to the optimistic answer: possibly) and its sentence."""
    from privlib.core.risk import largest_epsilon_under

    eps = np.asarray(attack.epsilons, dtype=np.float64)
    limit = float(targets.attack)
    values = attack.measure(targets.attack_measure)[0]
    se = None if attack.exact else np.asarray(attack.standard_errors, dtype=np.float64)
    e_a = largest_epsilon_under(limit, eps, values, se, z=BAND_SE)
    e_opt = largest_epsilon_under(limit, eps, values, se, z=-BAND_SE)
    hit = np.zeros(eps.size, dtype=bool) if e_a is None else eps <= e_a
    hit_opt = np.zeros(eps.size, dtype=bool) if e_opt is None else eps <= e_opt
    cautious = values if se is None else values + BAND_SE * se
    i_a = int(np.flatnonzero(hit)[-1]) if hit.any() else None
    interp = (_interpolate(eps, cautious, i_a, i_a + 1, limit)
              if i_a is not None and i_a + 1 < eps.size and not cautious[i_a + 1] <= limit else None)
    threshold = Threshold(e_a, interp, e_opt, e_a, _status(hit))
    who = (f"{attack.attacker}, {attack.settings.candidates:,} most frequent words, {attack.settings.prior} prior, "
           f"prior alone {attack.prior_baseline:.2%}")
    how = "" if attack.exact else f" with its +{BAND_SE:g} SE"
    if threshold.status == EVERYWHERE:
        text = (f"The attack target ({wording}; {who}) holds{how} at every ε of the grid, even the largest "
                f"(ε = {eps[-1]:g}).")
    elif threshold.status == NOWHERE:
        text = (f"The attack target ({wording}; {who}) holds{how} at no ε of the grid: at ε = {eps[0]:g} the "
                f"attacker names the original {attack.success[0]:.1%} of the time"
                + ("." if attack.exact else f" ± {BAND_SE * attack.standard_errors[0]:.1%}.")
                + ("" if e_opt is None else f" Within −{BAND_SE:g} SE it might hold up to ε = {e_opt:g}."))
    else:
        text = (f"The attack target ({wording}; {who}) holds{how} up to ε = {e_a:g}, and at every smaller ε of "
                f"the grid" + (f" (about {interp:.3g} by linear interpolation)" if interp is not None else "")
                + ("." if e_opt == e_a else f"; with −{BAND_SE:g} SE it might hold up to ε = {e_opt:g}."))
    if not attack.exact:
        text += " A sampled attack is a lower bound on the best attacker: the largest safe ε may be smaller."
    return threshold, hit, hit, hit_opt, text


def _span(lo, hi) -> str:
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"


def _fmt(metric: str, value) -> str:
    if metric in FRACTION_METRICS or metric == "unchanged_max":
        return f"{float(value):.0%}"
    return f"{float(value):.3g}"
