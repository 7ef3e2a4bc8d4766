"""The inverse questions of an ε study: the smallest ε that meets a utility target, the largest
that keeps a privacy floor, with their ±2 SE range, and the answer in plain words."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int
from privlib.words.choice.metrics import BAND_SE, FRACTION_METRICS, UTILITY_METRICS, MechanismMetrics, float_list

#: Default length L of a sentence for the composed budget L·eps.
DEFAULT_SENTENCE_LENGTH = 20
#: How the privacy floor on Pr[output = input] applies: to every word ("max") or on average ("mean").
KEEP_STATISTICS = {"max": "every word", "mean": "on average"}


@dataclass(frozen=True)
class Targets:
    """What the deployment needs.

    * ``utility`` on ``utility_metric`` (default: at least 60% of outputs unchanged or among
      the K nearest neighbours, metric "within_k"; "close", "unchanged" or "cosine" also work);
    * privacy floor ``max_keep`` on Pr[output = input]: with ``keep_statistic`` "max" (default,
      the literal reading) no word may be kept more often than that; with "mean" the average
      over words may not.
    """

    utility: float = 0.6
    utility_metric: str = "within_k"
    max_keep: float = 0.5
    keep_statistic: str = "max"

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
        return {"utility": utility, "privacy": floor}

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
    utility target), ``privacy`` (largest epsilon keeping the floor); per grid epsilon, where
    the estimates meet both (``recommended``), where both hold even against ±`BAND_SE` SE
    (``surely``) and where both may hold within it (``possibly``)."""

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

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "label": self.label, "feasible": self.feasible,
                "recommended_range": self.range, "sure_range": self.sure_range,
                "recommended_epsilons": float_list(self.epsilons[self.recommended]),
                "utility": self.utility.to_dict(), "privacy": self.privacy.to_dict(), "message": self.message}


def answer(metrics: MechanismMetrics, targets: Targets, sentence_length: int = DEFAULT_SENTENCE_LENGTH) -> Answer:
    """The inverse questions on the grid of ``metrics`` (see `Threshold` and `Answer`), with a
    plain-language message. Grid answers are literal: the smallest grid epsilon where the
    utility estimate meets the target, the largest where the privacy statistic is within the
    floor; if the estimates are not monotone in epsilon, `Answer.recommended` marks each grid
    point that meets both."""
    eps = np.asarray(metrics.epsilons, dtype=np.float64)
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
    if both.any():
        lo, hi = eps[both][0], eps[both][-1]
        msgs.append(f"Recommended for {metrics.label}: ε = {_span(lo, hi)} on this grid "
                    f"(a {L}-word sentence spends {_span(L * lo, L * hi)})"
                    + ("." if sure.any() else "; within the uncertainty no grid ε is sure to meet both: "
                       "more samples or words would settle it."))
    else:
        msgs.append(f"No ε on this grid satisfies both targets for {metrics.label}"
                    + (" (within the uncertainty some might: more samples or words would settle it)." if maybe.any()
                       else "."))
    return Answer(metrics.mechanism, metrics.label, utility, privacy, met, kept, both, sure, maybe, eps, tuple(msgs))


def _span(lo, hi) -> str:
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"


def _fmt(metric: str, value) -> str:
    if metric in FRACTION_METRICS or metric == "unchanged_max":
        return f"{float(value):.0%}"
    return f"{float(value):.3g}"
