"""The attack side of an ε study: how often an attacker who sees one sanitised word names the
original, over the ε grid, for the attack target of `privlib.words.choice.targets`.

The game is `privlib.words.attacks`' (spec "attacks and audits" §2–§3, Words): a secret word is
drawn from a prior π over the N most frequent words of the space (default 2,000; uniform, or Zipf
π_r ∝ 1/r, a proxy for word frequencies), sanitised once by the mechanism over the whole
vocabulary of the space, and the attacker names one candidate.

* SanText, SanText+, TEM, CusText: the exact Bayes attacker, success Σ_o max_w π_w P(o | w)
  (`attacks.bayes_attacks`; Wasserman & Zhou 2010, Chatzikokolakis et al. 2013): no attacker who
  sees one output does better; no sampling error.
* The others (the multivariate Laplace mechanism, the post-processing fix, Mahalanobis, Vickrey):
  `attacks.sampled_attack` — a decision rule fitted on ``samples_per_word`` outputs per candidate,
  scored on fresh runs; a binomial standard error and a Wilson interval (z = `BAND_SE`). It is one
  attacker, so its success is a **lower bound** on the best attacker's: a target it meets may
  still be missed by a better attacker.
* The prior baseline π_max: naming the most likely candidate without looking at the output.

Cost, before any work (`attack_metrics_seconds`, the attacks module's own model): the exact
attacks cost about N·V·(dim + 10·E) operations (N candidates, V vocabulary words, E epsilons;
~2.3 s CPU for N = 2,000, V = 50,000, one ε — `privlib.words.attacks`), the sampled attack
E·(N·m + runs) outputs of the mechanism (m = ``samples_per_word``; for the multivariate Laplace
mechanism one nearest-word search of V words each) plus one pass of N rows over V for the
close-neighbour table. Work above `privlib.core.validation.long_work_limit` is refused unless
``allow_long``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import (
    check_positive_int,
    check_seed,
    refuse_long_work,
    shown,
)
from privlib.words import attacks as word_attacks
from privlib.words.attacks import (
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES_PER_WORD,
    EXACT_MECHANISMS,
    PRIORS,
    Candidates,
    bayes_attacks,
    sampled_attack,
    word_candidates,
)
from privlib.words.choice.metrics import BAND_SE, epsilon_grid, float_list
from privlib.words.mechanisms import resolve_mechanism


@dataclass(frozen=True)
class AttackSettings:
    """What the attack of an ε study runs on: the ``candidates`` most frequent words of the space
    with the ``prior`` ("uniform" or "zipf"), and for the sampled attack ``samples_per_word``
    fitting outputs per candidate and ``runs`` fresh scoring runs (None: max(N·m, 4,000))."""

    candidates: int = DEFAULT_CANDIDATES
    prior: str = "uniform"
    samples_per_word: int = DEFAULT_SAMPLES_PER_WORD
    runs: int | None = None

    def __post_init__(self):
        check_positive_int(self.candidates, "attack candidates (the N most frequent words)", minimum=2)
        if self.prior not in PRIORS:
            raise ValueError(f"The attack's prior must be one of {', '.join(PRIORS)}, got {shown(self.prior)}.")
        check_positive_int(self.samples_per_word, "attack samples per word", minimum=1, maximum=10_000)
        if self.runs is not None:
            check_positive_int(self.runs, "attack runs", minimum=1, maximum=10_000_000)

    def candidates_of(self, space) -> Candidates:
        """The candidates in ``space`` (ValueError when it has fewer words than ``candidates``)."""
        if self.candidates > len(space):
            raise ValueError(f"The attack needs {self.candidates:,} candidate words but the vocabulary has only "
                             f"{len(space):,}: choose at most {len(space):,} candidates or a larger vocabulary.")
        return word_candidates(space, self.candidates, self.prior)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False)
class AttackMetrics:
    """One mechanism's attack over the ε grid: ``success[j]`` (exact Bayes, or a sampled attack's
    held-out success), its ``standard_errors`` (0 when exact) and ``bands`` (low, high): the
    Wilson interval at z = `BAND_SE` of a sampled attack, the value itself when exact;
    ``prior_baseline`` π_max; ``guess_output`` the share of outputs that are the input itself."""

    mechanism: str
    label: str
    exact: bool
    epsilons: np.ndarray = field(repr=False)
    settings: AttackSettings
    prior_baseline: float
    success: np.ndarray = field(repr=False)
    standard_errors: np.ndarray = field(repr=False)
    bands: tuple = field(repr=False)
    guess_output: np.ndarray = field(repr=False)
    seed: int = 0

    @property
    def attacker(self) -> str:
        """Who the numbers are about, in words."""
        return ("the Bayes attacker (exact: the best attacker)" if self.exact
                else "a sampled attacker (a lower bound on the best attacker)")

    def measure(self, name: str) -> tuple:
        """(values, low, high) of the target's measure: "success", or "above_prior" (success − π_max)."""
        shift = self.prior_baseline if name == "above_prior" else 0.0
        return self.success - shift, self.bands[0] - shift, self.bands[1] - shift

    def sentence(self, j: int) -> str:
        """One plain sentence about the attack at grid ε number ``j``."""
        eps = float(self.epsilons[j])
        error = ("exact" if self.exact else f"± {BAND_SE * self.standard_errors[j]:.1%} at ±{BAND_SE:g} SE; a sampled "
                 "attack: the best attacker may do better")
        what = "the most frequent of them" if self.settings.prior == "zipf" else "any one of them"
        return (f"At ε = {eps:g}, somebody who sees the sanitised word names the original {self.success[j]:.1%} of the "
                f"time ({error}) among the {self.settings.candidates:,} most frequent words "
                f"({self.settings.prior} prior); guessing {what} without looking gives {self.prior_baseline:.2%}.")

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "label": self.label, "exact": self.exact,
                "attacker": self.attacker, "epsilons": float_list(self.epsilons), **self.settings.to_dict(),
                "prior_baseline": self.prior_baseline, "success": float_list(self.success),
                "standard_errors": float_list(self.standard_errors),
                "bands": {"low": float_list(self.bands[0]), "high": float_list(self.bands[1])},
                "band_standard_errors": BAND_SE, "guess_output": float_list(self.guess_output), "seed": self.seed}


def attack_metrics_seconds(space, mechanism, epsilons, settings: AttackSettings | None = None,
                           close: int = 100) -> float:
    """Estimated seconds of `attack_metrics` with these arguments: `privlib.words.attacks.attack_seconds`
    (its kernels timed once per space, or fixed by its kernel-cost variable) without the bounds,
    which the study does not compute. Same checks, same errors."""
    mech, eps, settings, cand, close = _checked(space, mechanism, epsilons, settings, close)
    return word_attacks.attack_seconds(space, mech, eps, candidates=cand, samples_per_word=settings.samples_per_word,
                                       runs=settings.runs, close=close, bound=False)


def _checked(space, mechanism, epsilons, settings, close):
    mech = resolve_mechanism(mechanism)
    eps = epsilon_grid(epsilons)
    settings = settings or AttackSettings()
    cand = settings.candidates_of(space)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    return mech, eps, settings, cand, close


def refuse_long_attack(seconds: float, allow_long: bool) -> None:
    """ValueError when the attack's estimate is above the long-work limit and not ``allow_long``."""
    refuse_long_work(seconds, allow_long, "The attack", "use fewer candidates, fewer ε or a smaller vocabulary")


def attack_metrics(space, mechanism, epsilons, settings: AttackSettings | None = None, *, close: int = 100,
                   seed=0, progress=None, allow_long: bool = False) -> AttackMetrics:
    """The attack on ``mechanism`` at each ε of the grid (module docstring): exact Bayes for SanText,
    SanText+, TEM and CusText (all ε in one pass), else a sampled attack per ε (`attacks.sampled_attack`,
    draws from ``child_rng(seed, "word-attack", part, mechanism, ε)``: same seed, same numbers, whatever
    else runs). ``close``: K of the close-neighbour share (at most V − 1). Refused above the long-work
    limit unless ``allow_long`` (`attack_metrics_seconds`). ``progress(fraction, message)``."""
    mech, eps, settings, cand, close = _checked(space, mechanism, epsilons, settings, close)
    seed = check_seed(seed)
    if not allow_long:
        refuse_long_attack(attack_metrics_seconds(space, mech, eps, settings, close), allow_long)
    report = progress or (lambda fraction, message: None)
    exact = isinstance(mech, EXACT_MECHANISMS)
    if exact:
        found = bayes_attacks(space, mech, eps, candidates=cand, close=close, progress=report)
        success = np.array([a.success for a in found])
        ses = np.zeros(eps.size)
        bands = (success.copy(), success.copy())
        kept = np.array([a.guess_output for a in found])
    else:
        success, ses, low, high, kept = (np.empty(eps.size) for _ in range(5))
        for j, e in enumerate(eps):
            a = sampled_attack(space, mech, float(e), candidates=cand, samples_per_word=settings.samples_per_word,
                               runs=settings.runs, seed=seed, close=close,
                               progress=lambda f, msg, j=j: report((j + f) / eps.size, msg))
            success[j], ses[j], kept[j] = a.success, a.standard_error, a.guess_output
            low[j], high[j] = a.interval(BAND_SE)
        bands = (low, high)
    report(1.0, f"{mech.label}: attack done")
    for a in (success, ses, kept, *bands):
        a.flags.writeable = False
    return AttackMetrics(mech.name, mech.label, exact, eps, settings, cand.prior_baseline, success, ses, bands, kept,
                         seed)
