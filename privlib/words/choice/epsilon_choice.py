"""A whole ε study: every mechanism's metrics and answers on one set of words and one grid,
with what is needed to reproduce it, and its CSV exports."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int, check_seed, fresh_seed
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
    reproduce it), and per mechanism its metrics and answers."""

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
        return (f"With ε = {eps[j]:g} and {r.label}, {v['within_k'][j]:.0%} ({error}) "
                f"of {whose} stay within their {self.close} nearest neighbours; {v['unchanged'][j]:.0%} are kept "
                f"unchanged (the most-kept word {v['unchanged_max'][j]:.0%} of the time); the mean cosine "
                f"similarity is {v['cosine'][j]:.2f}; a {self.sentence_length}-word sentence spends "
                f"{self.sentence_length * eps[j]:g}.")

    def to_dict(self) -> dict:
        return {
            "embedding": dict(self.embedding), "words": self.words.to_dict(), "epsilons": float_list(self.epsilons),
            "samples": self.samples, "close": self.close, "sentence_length": self.sentence_length,
            "budget": float_list(self.budget), "seed": self.seed, "targets": self.targets.to_dict(),
            "band_standard_errors": BAND_SE, "standard_errors": SCOPES[self.words.scope],
            "mechanisms": [{**r.to_dict(), "answer": a.to_dict(), "summary": self.summary(i)}
                           for i, (r, a) in enumerate(zip(self.results, self.answers))],
        }

    def table(self) -> list[dict]:
        """One row per mechanism and epsilon: every metric with its SE and band, the budget and
        whether the targets are met (the CSV's rows)."""
        rows = []
        for r, a in zip(self.results, self.answers):
            for j, e in enumerate(np.asarray(self.epsilons)):
                row = {"mechanism": r.mechanism, "exact": r.exact, "epsilon": float(e),
                       "budget": float(self.budget[j])}
                for name in METRICS:
                    row[name] = float(r.values[name][j])
                    row[f"{name}_se"] = float(r.standard_errors[name][j])
                    row[f"{name}_low"] = float(r.bands[name][0][j])
                    row[f"{name}_high"] = float(r.bands[name][1][j])
                row.update(utility_met=bool(a.utility_met[j]), privacy_kept=bool(a.privacy_kept[j]),
                           recommended=bool(a.recommended[j]), surely=bool(a.surely[j]))
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
                    sentence_length: int = DEFAULT_SENTENCE_LENGTH, seed: int | None = None) -> EpsilonChoice:
    """An `EpsilonChoice` from already computed `MechanismMetrics` (e.g. cached one by one):
    answers the inverse questions for ``targets``. The results must share words and grid."""
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
    answers = tuple(answer(r, targets, sentence_length) for r in results)
    return EpsilonChoice(embedding_info(space), words, first.epsilons, first.samples, first.close,
                         sentence_length, seed, targets, results, answers)


def choose_epsilon(space, words, epsilons="1:30", mechanisms=("multivariate-laplace", "postprocessing-fix"),
                   samples: int = DEFAULT_SAMPLES, close: int = DEFAULT_CLOSE, targets: Targets | None = None,
                   sentence_length: int = DEFAULT_SENTENCE_LENGTH, seed: int | None = None,
                   progress=None, client=None) -> EpsilonChoice:
    """The whole analysis: `mechanism_metrics` for each mechanism, then `answer` for the
    targets. ``mechanisms``: names, `Mechanism` instances or (name, parameters).

    Each mechanism runs on a fresh generator from ``seed`` (so its numbers do not depend on
    which other mechanisms are compared); seed None draws a fresh seed, recorded in the result
    so the analysis can be reproduced. ``client``: a ``dask.distributed.Client`` to run the
    sampled mechanisms' blocks of words on its workers, or None (in this process); the same seed
    gives the same analysis either way (`mechanism_metrics`).
    """
    seed = fresh_seed() if seed is None else check_seed(seed)
    ws = as_word_set(words, space)
    single = isinstance(mechanisms, (str, Mechanism))
    mechs = [resolve_mechanism(m) for m in ([mechanisms] if single else mechanisms)]
    report = progress or (lambda fraction, message: None)
    results = []
    for i, mech in enumerate(mechs):
        results.append(mechanism_metrics(
            space, ws, epsilons, mech, samples, close, rng=seed,
            progress=lambda f, msg, i=i: report(min(1.0, (i + f) / len(mechs)), msg), client=client))
    return assemble_choice(space, ws, results, targets, sentence_length, seed)
