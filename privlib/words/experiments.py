"""Rank experiments: how often a mechanism outputs the original word, a close neighbour or a
distant word (paper §2, Fig. 2; artifact CloseNeighborsDxFrequencies)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.statistics import binomial_standard_error
from privlib.core.validation import as_generator, check_epsilon, check_positive_int, parse_epsilon_grid
from privlib.words.mechanisms import SAMPLE_BATCH, Mechanism, MultivariateLaplace
from privlib.words.neighbours import (
    CLOSE,
    DEFAULT_CLOSE,
    DISTANT,
    ORIGINAL,
    classify_outputs,
    classify_ranks,
    neighbour_ranks,
)

#: Largest sample count a single rank experiment accepts (memory and time stay bounded).
MAX_SAMPLES = 1_000_000
#: Noisy points searched per batch in a sweep (big enough for efficient blocked search).
SWEEP_QUERIES = 4000
#: Largest epsilon grid accepted (a sweep's cost grows linearly with it).
MAX_EPSILONS = 1000
#: Ranking one word's outputs in a sweep (`classify_outputs`: a float64 distance row and a partition)
#: costs about as much as this many noisy queries (both scale with the vocabulary; measured ~10 ms
#: against ~1 ms on GloVe 6B 50d, `privlib.words.cost`): the sweep's progress shares its fraction
#: between sampling and ranking by this weight, so a time-based estimate of what is left holds.
RANKING_QUERIES = 10


@dataclass(frozen=True)
class RankExperiment:
    """Result of `rank_experiment`: the outputs of one word at one epsilon, by rank.

    Sampled mechanisms fill ``ranks`` (the rank of each sampled output); mechanisms with exact
    output probabilities fill ``rank_probabilities`` (P(output has rank r) for every r) instead,
    and their proportions carry no sampling error.
    """

    word: str
    epsilon: float
    mechanism: str
    samples: int
    close: int
    ranks: np.ndarray = field(repr=False)  # rank of each sampled output (empty when exact)
    proportions: dict
    top: list  # most frequent outputs: word, rank, count or probability, distance, cosine
    rank_probabilities: np.ndarray | None = field(default=None, repr=False)

    @property
    def exact(self) -> bool:
        return self.rank_probabilities is not None

    def standard_errors(self) -> dict:
        """Binomial standard error of each proportion, sqrt(p(1-p)/samples); 0 when exact."""
        if self.exact:
            return {k: 0.0 for k in self.proportions}
        return {k: float(binomial_standard_error(p, self.samples)) for k, p in self.proportions.items()}

    def rank_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(distinct ranks, counts) of the sampled outputs, ranks ascending."""
        return np.unique(self.ranks, return_counts=True)

    def rank_distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """(ranks, fraction of outputs at each rank): exact probabilities when available."""
        if self.exact:
            ranks = np.flatnonzero(self.rank_probabilities > 0)
            return ranks, self.rank_probabilities[ranks]
        ranks, counts = self.rank_counts()
        return ranks, counts / self.samples

    def to_dict(self) -> dict:
        return {
            "word": self.word,
            "epsilon": self.epsilon,
            "mechanism": self.mechanism,
            "exact": self.exact,
            "samples": self.samples,
            "close": self.close,
            "proportions": self.proportions,
            "standard_errors": self.standard_errors(),
            "top": self.top,
        }

    def top_table(self) -> list[dict]:
        """The most frequent (sampled) or most probable (exact) outputs as table rows: word, rank,
        count and share of the samples (sampled) or share = probability (exact), distance and
        cosine similarity to the input word."""
        return [{"word": t["word"], "rank": t["rank"],
                 **({"count": t["count"], "share": t["count"] / self.samples} if "count" in t
                    else {"share": t["probability"]}),
                 "distance": t["distance"], "cosine": t["cosine"]} for t in self.top]

    def to_csv(self) -> str:
        """The rank histogram as CSV text: ``rank,count`` (sampled: the count of outputs at each
        rank) or ``rank,probability`` (exact: every rank of non-zero probability, 17 significant
        digits)."""
        if self.exact:
            ranks, weights = self.rank_distribution()
            return "rank,probability\n" + "".join(f"{r},{w:.17g}\n" for r, w in zip(ranks, weights))
        return "rank,count\n" + "".join(f"{r},{c}\n" for r, c in zip(*self.rank_counts()))

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict` as JSON text."""
        import json

        return json.dumps(self.to_dict(), indent=indent)


def rank_experiment(space, word, epsilon: float, samples: int = 2000, mechanism: Mechanism | None = None,
                    close: int = DEFAULT_CLOSE, rng=None, top: int = 10, progress=None) -> RankExperiment:
    """Where the outputs of ``mechanism`` (default `MultivariateLaplace`) for ``word`` at
    ``epsilon`` land among the word's neighbours.

    Mechanisms with exact output probabilities (``has_exact_probabilities``) are not sampled:
    the proportions and the rank histogram are exact. Others are sampled ``samples`` times.
    proportions: original (rank 0), close (1 <= rank <= close), distant (rank > close).
    top: the ``top`` most frequent (or most probable) outputs with rank, count (or probability),
    Euclidean distance and cosine similarity to the input word.
    ``progress(fraction, message)`` is called as samples are drawn, `SAMPLE_BATCH` at a time (the
    mechanism is asked for one batch after another, which for mechanisms that draw batch by batch
    anyway gives the very outputs of one call).
    """
    mechanism = mechanism or MultivariateLaplace()
    epsilon = check_epsilon(epsilon)
    samples = check_positive_int(samples, "samples", maximum=MAX_SAMPLES)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    ranks_of = neighbour_ranks(space, word)
    rank_probabilities = None
    if mechanism.has_exact_probabilities:
        probabilities = mechanism.output_probabilities(space, ranks_of.row, epsilon)
        rank_probabilities = np.empty_like(probabilities)
        rank_probabilities[ranks_of.rank] = probabilities
        proportions = {"original": float(rank_probabilities[0]),
                       "close": float(rank_probabilities[1:close + 1].sum()),
                       "distant": float(rank_probabilities[close + 1:].sum())}
        ranks = np.empty(0, dtype=np.int64)
        k = min(top, probabilities.size)
        best = np.argpartition(-probabilities, k - 1)[:k]
        top_rows = best[np.lexsort((ranks_of.rank_of(best), -probabilities[best]))]
        amounts = [("probability", float(probabilities[r])) for r in top_rows]
    else:
        generator = as_generator(rng)
        outputs = np.empty(samples, dtype=np.int64)
        for start in range(0, samples, SAMPLE_BATCH):
            stop = min(start + SAMPLE_BATCH, samples)
            outputs[start:stop] = mechanism.sample(space, ranks_of.row, epsilon, stop - start, generator)
            if progress is not None:
                progress(stop / samples, f"Sampled {stop:,} of {samples:,} outputs")
        ranks = ranks_of.rank_of(outputs)
        counts = classify_ranks(ranks, close)
        proportions = {k: v / samples for k, v in counts.items()}
        rows, row_counts = np.unique(outputs, return_counts=True)
        best = np.lexsort((ranks_of.rank_of(rows), -row_counts))[:top]  # by count, then rank
        top_rows = rows[best]
        amounts = [("count", int(c)) for c in row_counts[best]]
    cosines = space.cosine_similarities(ranks_of.row, top_rows)
    top_list = [
        {"word": space.words[r], "rank": int(ranks_of.rank[r]), key: value,
         "distance": float(ranks_of.distance_of(r)), "cosine": float(cos)}
        for r, (key, value), cos in zip(top_rows, amounts, cosines)
    ]
    ranks.flags.writeable = False
    return RankExperiment(ranks_of.word, epsilon, mechanism.name, samples, close, ranks, proportions, top_list,
                          rank_probabilities)


@dataclass(frozen=True)
class EpsilonSweep:
    """Proportions original / close / distant against epsilon over many words (paper Fig. 2)."""

    epsilons: np.ndarray
    words: tuple  # the input words
    mechanism: str
    close: int
    proportions: dict  # name -> array over epsilons
    samples_per_word: int = 1

    @property
    def trials(self) -> int:
        return len(self.words) * self.samples_per_word

    def standard_errors(self) -> dict:
        """Binomial standard errors sqrt(p(1-p)/trials) (trials = words x samples per word)."""
        return {k: binomial_standard_error(p, self.trials) for k, p in self.proportions.items()}

    def to_dict(self) -> dict:
        se = self.standard_errors()
        return {
            "mechanism": self.mechanism,
            "close": self.close,
            "words": len(self.words),
            "samples_per_word": self.samples_per_word,
            "epsilons": [float(e) for e in self.epsilons],
            "proportions": {k: [float(x) for x in v] for k, v in self.proportions.items()},
            "standard_errors": {k: [float(x) for x in v] for k, v in se.items()},
        }


def parse_epsilons(text: str) -> np.ndarray:
    """An epsilon grid from text ("1:30", "1:30:0.5" or "0.5,1,2"), at most `MAX_EPSILONS` values
    (`privlib.core.validation.parse_epsilon_grid`)."""
    return parse_epsilon_grid(text, MAX_EPSILONS)


def sample_across_epsilons(space, mechanism: Mechanism, inputs, epsilons, rng, on_batch=None) -> np.ndarray:
    """One output of ``mechanism`` for every (epsilon, input row): shape (len(epsilons), len(inputs)).

    Batches of epsilons share one `Mechanism.sample_many` call, so one pass over the vocabulary
    serves up to `SWEEP_QUERIES` noisy queries; the draws come in the order (epsilon, input), so
    the same generator gives the same outputs wherever this is called from.
    ``on_batch(epsilons done, last epsilon of the batch)`` reports progress."""
    inputs = np.asarray(inputs, dtype=np.int64)
    epsilons = np.asarray(epsilons, dtype=np.float64)
    outputs = np.empty((epsilons.size, inputs.size), dtype=np.int64)
    per_batch = max(1, SWEEP_QUERIES // max(1, inputs.size))
    for j0 in range(0, epsilons.size, per_batch):
        eps = epsilons[j0:j0 + per_batch]
        outputs[j0:j0 + eps.size] = mechanism.sample_many(
            space, np.tile(inputs, eps.size), np.repeat(eps, inputs.size), rng).reshape(eps.size, inputs.size)
        if on_batch is not None:
            on_batch(j0 + eps.size, float(eps[-1]))
    return outputs


def epsilon_sweep(space, epsilons, words=200, mechanism: Mechanism | None = None, close: int = DEFAULT_CLOSE,
                  rng=None, samples_per_word: int = 1, progress=None) -> EpsilonSweep:
    """Paper Fig. 2: for each epsilon, one output per word (``samples_per_word`` outputs) for
    words drawn uniformly without replacement from the vocabulary (``words`` = a count) or given
    as a list; the proportions of original / close / distant outputs against epsilon.

    ``progress(fraction, message)`` is called as work completes (fraction in [0, 1]).
    """
    mechanism = mechanism or MultivariateLaplace()
    rng = as_generator(rng)
    epsilons = np.atleast_1d(np.asarray([check_epsilon(float(e)) for e in np.atleast_1d(epsilons)]))
    samples_per_word = check_positive_int(samples_per_word, "samples_per_word", maximum=1000)
    if isinstance(words, str):
        words = [words]
    if isinstance(words, (int, np.integer)):
        count = check_positive_int(words, "words", minimum=1, maximum=len(space))
        rows = np.sort(rng.choice(len(space), size=count, replace=False))
    else:
        rows = space.indices(words)
        if rows.size == 0:
            raise ValueError("Give at least one word for the sweep.")
    report = progress or (lambda fraction, message: None)
    inputs = np.repeat(rows, samples_per_word)
    sampled = inputs.size * epsilons.size / (inputs.size * epsilons.size + RANKING_QUERIES * rows.size)
    outputs = sample_across_epsilons(
        space, mechanism, inputs, epsilons, rng,
        lambda done, last: report(sampled * done / epsilons.size, f"Sampled {done} of {epsilons.size} epsilons")).T
    per_word = outputs.reshape(rows.size, samples_per_word * epsilons.size)
    classes = classify_outputs(
        space, rows, per_word, close,
        progress=lambda done, total: report(sampled + (1 - sampled) * done / total,
                                            f"Ranked outputs of {done:,}/{total:,} words"),
    ).reshape(inputs.size, epsilons.size)
    proportions = {
        "original": np.mean(classes == ORIGINAL, axis=0),
        "close": np.mean(classes == CLOSE, axis=0),
        "distant": np.mean(classes == DISTANT, axis=0),
    }
    return EpsilonSweep(epsilons, tuple(space.words[r] for r in rows), mechanism.name, close, proportions,
                        samples_per_word)


def sweeps_to_json(labelled_sweeps, indent: int | None = 2) -> str:
    """Several sweeps as one JSON object {label: `EpsilonSweep.to_dict()`}; ``labelled_sweeps`` is
    a sequence of (label, sweep) pairs (a later pair with the same label wins)."""
    import json

    return json.dumps({label: sweep.to_dict() for label, sweep in labelled_sweeps}, indent=indent)


def compare_sweeps(space, epsilons, words, mechanisms, close: int = DEFAULT_CLOSE, rng=None,
                   samples_per_word: int = 1, progress=None) -> list[EpsilonSweep]:
    """One `epsilon_sweep` per mechanism (a `Mechanism`, a name or a (name, parameters) pair, see
    `resolve_mechanism`), in order. With an integer ``rng`` seed every sweep starts from that
    seed, so for ``words`` a count all mechanisms run on the same random words; a
    ``numpy.random.Generator`` is shared, each sweep drawing after the previous one.
    ``progress(fraction, message)`` covers all the sweeps, each an equal share."""
    from privlib.words.mechanisms import resolve_mechanism

    specs = list(mechanisms)
    if not specs:
        raise ValueError("Give at least one mechanism to compare.")
    sweeps = []
    for i, spec in enumerate(specs):
        report = None
        if progress is not None:
            def report(fraction, message, i=i):
                progress((i + fraction) / len(specs), message)
        sweeps.append(epsilon_sweep(space, epsilons, words, resolve_mechanism(spec), close, rng=rng,
                                    samples_per_word=samples_per_word, progress=report))
    return sweeps
