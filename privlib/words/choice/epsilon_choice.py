"""A whole ε study: every mechanism's metrics, attack (when there is an attack target) and answers
on one set of words and one grid, with what is needed to reproduce it, and its CSV exports."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int, check_seed, fresh_seed
from privlib.words.choice.attack_metrics import (
    AttackSettings,
    attack_metrics,
    attack_metrics_seconds,
    refuse_long_attack,
)
from privlib.words.choice.metrics import (
    BAND_SE,
    DEFAULT_SAMPLES,
    METRICS,
    PER_WORD_METRICS,
    float_list,
    mechanism_metrics,
)
from privlib.words.choice.targets import DEFAULT_SENTENCE_LENGTH, Targets, answer
from privlib.words.choice.words import SCOPES, WORDS, WordSet, as_word_set
from privlib.words.mechanisms import Mechanism, resolve_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE


@dataclass(frozen=True, eq=False)
class EpsilonChoice:
    """Everything about one analysis: the embedding (name, vocabulary size, dimension,
    fingerprint), the words, grid, runs, K, sentence length, targets and seed (enough to
    reproduce it), and per mechanism its metrics and answers; with an attack target, per
    mechanism its attack (``attacks``, `attack_metrics.AttackMetrics`) and the attack's settings."""

    embedding: dict
    words: WordSet
    epsilons: np.ndarray = field(repr=False)
    samples: int
    close: int
    sentence_length: int
    seed: int | None
    targets: Targets
    results: tuple = field(repr=False)
    answers: tuple = field(repr=False)
    attacks: tuple = field(default=(), repr=False)
    attack_settings: AttackSettings | None = None

    @property
    def budget(self) -> np.ndarray:
        """Composed budget of an L-word sentence at each grid epsilon: L·eps (Asghar et al. 2026, §3.2)."""
        return self.sentence_length * np.asarray(self.epsilons, dtype=np.float64)

    def summary(self, i: int) -> str:
        """One plain sentence about mechanism i at its smallest recommended epsilon (or, when
        none, the smallest epsilon meeting the utility target, else the largest grid epsilon)."""
        r, a = self.results[i], self.answers[i]
        eps = np.asarray(self.epsilons)
        j = (int(np.flatnonzero(a.recommended)[0]) if a.feasible
             else int(np.flatnonzero(a.utility_met)[0]) if a.utility_met.any() else eps.size - 1)
        whose = "your words" if self.words.scope == WORDS else "words drawn from the vocabulary"
        v = r.values
        se = r.standard_errors["within_k"][j]
        error = "exact" if r.exact and self.words.scope == WORDS else f"± {se:.0%}"
        text = (f"With ε = {eps[j]:g} and {r.label}, {v['within_k'][j]:.0%} ({error}) "
                f"of {whose} stay within their {self.close} nearest neighbours; {v['unchanged'][j]:.0%} are kept "
                f"unchanged (the most-kept word {v['unchanged_max'][j]:.0%} of the time); the mean cosine "
                f"similarity is {v['cosine'][j]:.2f}; a {self.sentence_length}-word sentence spends "
                f"{self.sentence_length * eps[j]:g}.")
        return text + (" " + self.attacks[i].sentence(j) if self.attacks else "")

    def to_dict(self) -> dict:
        return {
            "embedding": dict(self.embedding), "words": self.words.to_dict(), "epsilons": float_list(self.epsilons),
            "samples": self.samples, "close": self.close, "sentence_length": self.sentence_length,
            "budget": float_list(self.budget), "seed": self.seed, "targets": self.targets.to_dict(),
            "band_standard_errors": BAND_SE, "standard_errors": SCOPES[self.words.scope],
            "attack": None if self.attack_settings is None else self.attack_settings.to_dict(),
            "mechanisms": [{**r.to_dict(), "answer": a.to_dict(), "summary": self.summary(i),
                            "attack": self.attacks[i].to_dict() if self.attacks else None}
                           for i, (r, a) in enumerate(zip(self.results, self.answers))],
        }

    def table(self) -> list[dict]:
        """One row per mechanism and epsilon: every metric with its SE and band, the budget and
        whether the targets are met (the CSV's rows)."""
        rows = []
        for i, (r, a) in enumerate(zip(self.results, self.answers)):
            for j, e in enumerate(np.asarray(self.epsilons)):
                row = {"mechanism": r.mechanism, "exact": r.exact, "epsilon": float(e),
                       "budget": float(self.budget[j])}
                for name in METRICS:
                    row[name] = float(r.values[name][j])
                    row[f"{name}_se"] = float(r.standard_errors[name][j])
                    row[f"{name}_low"] = float(r.bands[name][0][j])
                    row[f"{name}_high"] = float(r.bands[name][1][j])
                if self.attacks:
                    attack = self.attacks[i]
                    row.update(attack_success=float(attack.success[j]), attack_se=float(attack.standard_errors[j]),
                               attack_low=float(attack.bands[0][j]), attack_high=float(attack.bands[1][j]),
                               attack_prior=attack.prior_baseline)
                row.update(utility_met=bool(a.utility_met[j]), privacy_kept=bool(a.privacy_kept[j]))
                if a.attack_met is not None:
                    row.update(attack_met=bool(a.attack_met[j]))
                row.update(recommended=bool(a.recommended[j]), surely=bool(a.surely[j]))
                rows.append(row)
        return rows

    def to_csv(self) -> str:
        """`table` as CSV (full float precision)."""
        return _csv(self.table())

    def per_word_csv(self) -> str:
        """Per-word metrics: one row per mechanism, epsilon and word."""
        rows = []
        for r in self.results:
            for j, e in enumerate(np.asarray(self.epsilons)):
                for i, w in enumerate(r.words):
                    rows.append({"mechanism": r.mechanism, "epsilon": float(e), "word": w,
                                 **{name: float(r.per_word[name][i, j]) for name in PER_WORD_METRICS}})
        return _csv(rows)


def _csv(rows: list[dict]) -> str:
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


def embedding_info(space) -> dict:
    return {"name": space.name, "vocabulary_size": len(space), "dimension": space.dim,
            "fingerprint": space.fingerprint}


def assemble_choice(space, words: WordSet, results, targets: Targets | None = None,
                    sentence_length: int = DEFAULT_SENTENCE_LENGTH, seed: int | None = None,
                    attacks=None) -> EpsilonChoice:
    """An `EpsilonChoice` from already computed `MechanismMetrics` (e.g. cached one by one):
    answers the inverse questions for ``targets``. The results must share words and grid.
    ``attacks``: one `attack_metrics.AttackMetrics` per result, same order and grid, with the same
    settings (needed for an attack target), or None."""
    targets = targets or Targets()
    sentence_length = check_positive_int(sentence_length, "sentence length", minimum=1, maximum=100_000)
    results = tuple(results)
    if not results:
        raise ValueError("Choose at least one mechanism to compare.")
    first = results[0]
    for r in results[1:]:
        if r.words != first.words or not np.array_equal(r.epsilons, first.epsilons) \
                or r.samples != first.samples or r.close != first.close:
            raise ValueError("All mechanisms must be run on the same words, grid, samples and K.")
    attacks = tuple(attacks or ())
    if attacks and (len(attacks) != len(results) or len({a.settings for a in attacks}) > 1):
        raise ValueError("Give one attack per mechanism, all with the same settings.")
    if targets.attack is not None and not attacks:
        raise ValueError("An attack target needs the attack's success over the grid: run the attacks too.")
    answers = tuple(answer(r, targets, sentence_length, attacks[i] if attacks else None)
                    for i, r in enumerate(results))
    return EpsilonChoice(embedding_info(space), words, first.epsilons, first.samples, first.close,
                         sentence_length, seed, targets, results, answers, attacks,
                         attacks[0].settings if attacks else None)


def choose_epsilon(space, words, epsilons="1:30", mechanisms=("multivariate-laplace", "postprocessing-fix"),
                   samples: int = DEFAULT_SAMPLES, close: int = DEFAULT_CLOSE, targets: Targets | None = None,
                   sentence_length: int = DEFAULT_SENTENCE_LENGTH, seed: int | None = None,
                   progress=None, client=None, attack: AttackSettings | None = None,
                   allow_long: bool = False) -> EpsilonChoice:
    """The whole analysis: `mechanism_metrics` for each mechanism, then `answer` for the
    targets. ``mechanisms``: names, `Mechanism` instances or (name, parameters).

    ``attack``: the attack's settings (`attack_metrics.AttackSettings`; default ones when
    ``targets`` has an attack target and this is None): each mechanism is also attacked over the
    grid (`attack_metrics.attack_metrics`, always in this process, drawing from ``seed``). The
    attack target is checked against the prior before any work, and the attacks' estimate
    (`attack_metrics.attack_metrics_seconds`) refused above the long-work limit unless ``allow_long``.

    Each mechanism runs on a fresh generator from ``seed`` (so its numbers do not depend on
    which other mechanisms are compared); seed None draws a fresh seed, recorded in the result
    so the analysis can be reproduced. ``client``: a ``dask.distributed.Client`` to run the
    sampled mechanisms' blocks of words on its workers, or None (in this process); the same seed
    gives the same analysis either way (`mechanism_metrics`).
    """
    seed = fresh_seed() if seed is None else check_seed(seed)
    targets = targets or Targets()
    ws = as_word_set(words, space)
    single = isinstance(mechanisms, (str, Mechanism))
    mechs = [resolve_mechanism(m) for m in ([mechanisms] if single else mechanisms)]
    if attack is None and targets.attack is not None:
        attack = AttackSettings()
    parts = len(mechs) * (2 if attack is not None else 1)
    if attack is not None:
        targets.check_attack(attack.candidates_of(space).prior_baseline)  # before any work
        k = min(close, len(space) - 1)
        if not allow_long:
            refuse_long_attack(sum(attack_metrics_seconds(space, m, epsilons, attack, k) for m in mechs), allow_long)
    report = progress or (lambda fraction, message: None)
    results, attacks = [], []
    for i, mech in enumerate(mechs):
        results.append(mechanism_metrics(
            space, ws, epsilons, mech, samples, close, rng=seed,
            progress=lambda f, msg, i=i: report(min(1.0, (i + f) / parts), msg), client=client))
    if attack is not None:
        for i, mech in enumerate(mechs):
            attacks.append(attack_metrics(
                space, mech, epsilons, attack, close=k, seed=seed, allow_long=True,
                progress=lambda f, msg, i=i: report(min(1.0, (len(mechs) + i + f) / parts), msg)))
    return assemble_choice(space, ws, results, targets, sentence_length, seed, attacks)
