"""Rank experiments: how often a mechanism outputs the original word, a close neighbour or a
distant word (paper §2, Fig. 2; artifact CloseNeighborsDxFrequencies).

The Fig. 2 sweep follows the library's one pattern: `sweep(space, mechanisms, epsilons, *,
repeats, seed, progress)` returns a `privlib.core.sweep.SweepResult` (mechanism × ε × repetition
× `SWEEP_METRICS`), one repetition per input word; `epsilon_sweep` is one mechanism's sweep as an
`EpsilonSweep`, which holds its `SweepResult` (the CLI's ``sweep --json`` is its ``to_dict``).
The mechanisms' batch kernels get the ε of every row (`Mechanism.sample_many`), so one search
pass serves many ε: a study holds a mechanism's family, never a stand-in ε.

Studies over many words (the Fig. 2 sweep here, Table 2 in `privlib.words.theory`, the ε study in
`privlib.words.choice`) are split into blocks of words whose size depends only on the study's own
size (`words_per_block`, `sweep_words_per_block`, `word_blocks`), never on where it runs: each block is one task, run in
this process or on a Dask cluster (``client``, `privlib.words.cluster`), and the caller combines
the blocks' results in order. Each block draws from its own generator (`block_seeds`), so a
laptop run and a cluster run with the same seed give the same numbers, line by line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.statistics import binomial_standard_error
from privlib.core.sweep import Progress, SweepResult
from privlib.core.validation import as_generator, check_epsilon, check_positive_int, check_seed, parse_epsilon_grid
from privlib.words.cluster import SpaceSpec, run_tasks
from privlib.words.mechanisms import MECHANISMS, SAMPLE_BATCH, Mechanism, MultivariateLaplace, resolve_mechanism
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
#: Noisy points searched per batch in a sweep (big enough for efficient blocked search); also about
#: the outputs of one block of words of a study (`words_per_block`).
SWEEP_QUERIES = 4000
#: Fewest words of one block of the Fig. 2 sweep (`sweep_words_per_block`; all the words when fewer):
#: ranking a block's outputs orders its words' neighbours together (`classify_outputs`), one pass
#: over the vocabulary for up to 256 words (`privlib.words.neighbours.PIVOT_BLOCK`), so smaller
#: blocks would pay passes that one in-process run before blocks did not (measured: x1.07 on 200
#: words, epsilons 1:30, full GloVe, with blocks of 133 words). A constant of its own, not
#: PIVOT_BLOCK: changing a speed setting must not change which numbers a seed gives.
SWEEP_MIN_BLOCK_WORDS = 256
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
    mechanism = (mechanism or MultivariateLaplace.family()).with_epsilon(epsilon)
    epsilon = mechanism.epsilon
    samples = check_positive_int(samples, "samples", maximum=MAX_SAMPLES)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    ranks_of = neighbour_ranks(space, word)
    rank_probabilities = None
    if mechanism.has_exact_probabilities:
        probabilities = mechanism.output_probabilities(space, ranks_of.row)
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
            outputs[start:stop] = mechanism.release(space, ranks_of.row, stop - start, generator)
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


#: The metrics of the Fig. 2 sweep: the share of outputs that are the input word (rank 0), a
#: close neighbour (ranks 1..K) or a distant word (rank > K).
SWEEP_METRICS = ("original", "close", "distant")


@dataclass(frozen=True)
class EpsilonSweep:
    """One mechanism's Fig. 2 sweep: proportions original / close / distant against epsilon over
    many words (paper Fig. 2).

    ``result`` is the `SweepResult` (one mechanism × ε × repetition × `SWEEP_METRICS`): one
    repetition per input word, its value the share of that word's ``samples_per_word`` outputs
    in each class; ``words`` are the input words in the order of the repetitions."""

    result: SweepResult
    words: tuple  # the input words, one per repetition of ``result``
    close: int
    samples_per_word: int = 1

    @property
    def epsilons(self) -> np.ndarray:
        return self.result.epsilons

    @property
    def mechanism(self) -> str:
        return self.result.mechanisms[0]

    @property
    def label(self) -> str:
        return self.result.label(self.mechanism)

    @property
    def proportions(self) -> dict:
        """Metric -> mean over the words per epsilon (= the share of all outputs)."""
        return {k: self.result.mean(self.mechanism, k) for k in SWEEP_METRICS}

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


# ----------------------------------------------------------------------------- studies in blocks of words
def words_per_block(outputs_per_word: int) -> int:
    """Words of one block of a study whose words each get ``outputs_per_word`` outputs (epsilons x
    runs per word): max(1, `SWEEP_QUERIES` // outputs_per_word), so one block is about one search
    pass of `sample_across_epsilons` (an in-process run searches as it did before blocks). A
    function of the study's size only: never of the client or the number of workers, so every run
    of a study, wherever it runs, has the same blocks and the same numbers."""
    return max(1, SWEEP_QUERIES // max(1, int(outputs_per_word)))


def sweep_words_per_block(outputs_per_word: int) -> int:
    """Words of one block of `epsilon_sweep`: `words_per_block`, but at least
    `SWEEP_MIN_BLOCK_WORDS` (a function of the study's size only, as `words_per_block`)."""
    return max(words_per_block(outputs_per_word), SWEEP_MIN_BLOCK_WORDS)


def word_blocks(count: int, per_block: int) -> list[tuple[int, int]]:
    """[(start, stop), ...]: ``count`` words cut into consecutive blocks of ``per_block`` (the last
    one shorter)."""
    per_block = check_positive_int(per_block, "words per block", minimum=1)
    return [(start, min(start + per_block, count)) for start in range(0, count, per_block)]


def block_seeds(rng, count: int) -> list[np.random.SeedSequence]:
    """The seeds of ``count`` blocks of a study: ``SeedSequence(entropy).spawn(count)``, the entropy
    128 bits (four 32-bit integers) drawn from the caller's generator ``rng`` once the study's
    words are chosen. Block b's generator is ``numpy.random.default_rng(seeds[b])``: it depends only
    on the caller's seed (or generator state) and b, not on where or in which order blocks run,
    and the children of one SeedSequence are independent streams (NumPy's spawn). The caller's
    generator moves on by the four draws whatever the study's size."""
    entropy = [int(x) for x in as_generator(rng).integers(0, 2**32, size=4, dtype=np.uint64)]
    return np.random.SeedSequence(entropy).spawn(int(count))


def space_for_tasks(space, client):
    """What a block task gets as its space: the space itself in this process (``client`` None), or
    its `SpaceSpec` for a cluster (each worker loads it once; ValueError for a space built in
    memory, which no worker could load)."""
    return space if client is None else SpaceSpec.of(space)


def space_of_task(space):
    """The space a block task works on: ``space`` itself, or the one a `SpaceSpec` loads (once per
    process)."""
    return space.load() if isinstance(space, SpaceSpec) else space


def mechanism_for_tasks(mechanism: Mechanism, client):
    """What a block task gets as its mechanism (anything `resolve_mechanism` accepts): the instance
    itself in this process; for a cluster, (name, parameters) when the registry makes the very same
    mechanism from them (the worker builds it: nothing but the name and parameters is shipped),
    else the instance (pickled by Dask)."""
    if client is None or MECHANISMS.get(mechanism.name) is not type(mechanism):
        return mechanism
    return mechanism.name, tuple(mechanism.parameters.items())


def run_word_blocks(client, function, tasks, progress=None) -> list:
    """``[function(*task) for task in tasks]`` in order, through `privlib.words.cluster.run_tasks`
    (in this process when ``client`` is None, else one Dask task per block of words).

    ``progress(fraction, message)``: in this process each task gets one more argument, a callback
    for its own progress (fraction within the block), reported as its share of the whole; on a
    cluster, after each block done. Block functions must take that argument last, default None."""
    tasks = [tuple(task) for task in tasks]
    total = len(tasks)
    if progress is None:
        return run_tasks(client, function, tasks)
    if client is None:
        def within(block):
            def report(fraction, message):
                where = f"block {block + 1}/{total}: " if total > 1 else ""
                progress((block + min(max(fraction, 0.0), 1.0)) / total, where + message)
            return report

        return run_tasks(None, function, [(*task, within(b)) for b, task in enumerate(tasks)])
    return run_tasks(client, function, tasks,
                     lambda done, count: progress(done / count, f"{done} of {count} blocks of words done"))


def sweep_block(space, mechanism, rows, epsilons, samples_per_word: int, close: int, seed,
                progress=None) -> np.ndarray:
    """One block of `epsilon_sweep`: the class (ORIGINAL / CLOSE / DISTANT, int8) of every output
    for the input words ``rows``, each repeated ``samples_per_word`` times, shape
    (rows.size x samples_per_word, epsilons). ``space``: a space or its `SpaceSpec`; ``mechanism``:
    anything `resolve_mechanism` accepts; the outputs are drawn by `sample_across_epsilons` from
    ``numpy.random.default_rng(seed)``, then ranked by `classify_outputs`.
    ``progress(fraction, message)`` within the block."""
    space = space_of_task(space)
    mechanism = resolve_mechanism(mechanism)
    rows = np.asarray(rows, dtype=np.int64)
    epsilons = np.asarray(epsilons, dtype=np.float64)
    report = progress or (lambda fraction, message: None)
    rng = np.random.default_rng(seed)
    inputs = np.repeat(rows, samples_per_word)
    sampled = inputs.size * epsilons.size / (inputs.size * epsilons.size + RANKING_QUERIES * rows.size)
    outputs = sample_across_epsilons(
        space, mechanism, inputs, epsilons, rng,
        lambda done, last: report(sampled * done / epsilons.size, f"Sampled {done} of {epsilons.size} epsilons")).T
    per_word = outputs.reshape(rows.size, samples_per_word * epsilons.size)
    return classify_outputs(
        space, rows, per_word, close,
        progress=lambda done, total: report(sampled + (1 - sampled) * done / total,
                                            f"Ranked outputs of {done:,}/{total:,} words"),
    ).reshape(inputs.size, epsilons.size)


def sweep_words(space, words, rng) -> np.ndarray:
    """The input rows of a sweep: ``words`` (a count) drawn uniformly without replacement from the
    vocabulary with ``rng``, sorted, or the rows of the given words (a word or a list)."""
    if isinstance(words, str):
        words = [words]
    if isinstance(words, (int, np.integer)):
        count = check_positive_int(words, "words", minimum=1, maximum=len(space))
        return np.sort(rng.choice(len(space), size=count, replace=False))
    rows = space.indices(words)
    if rows.size == 0:
        raise ValueError("Give at least one word for the sweep.")
    return rows


def word_values(classes: np.ndarray, rows: int, samples_per_word: int) -> np.ndarray:
    """Per-word shares of each class of `SWEEP_METRICS`, shape (epsilons, words, metrics), from the
    classes of `sweep_block` (rows.size x samples_per_word, epsilons)."""
    per_word = classes.reshape(rows, samples_per_word, -1)
    shares = [np.mean(per_word == c, axis=1) for c in (ORIGINAL, CLOSE, DISTANT)]
    return np.stack(shares, axis=-1).transpose(1, 0, 2)


def epsilon_sweep(space, epsilons, words=200, mechanism: Mechanism | None = None, close: int = DEFAULT_CLOSE,
                  rng=None, samples_per_word: int = 1, progress=None, client=None) -> EpsilonSweep:
    """Paper Fig. 2: for each epsilon, one output per word (``samples_per_word`` outputs) for
    words drawn uniformly without replacement from the vocabulary (``words`` = a count) or given
    as a list; the proportions of original / close / distant outputs against epsilon.
    ``mechanism``: a family (ε per row) or a mechanism — only its parameters are used.

    The words are cut into blocks of `sweep_words_per_block` (epsilons x samples per word) words
    (`sweep_block`); block b draws from its own generator, `block_seeds` (128 bits of entropy
    drawn from ``rng`` after the words). ``client``: a ``dask.distributed.Client`` to run the
    blocks on its workers (the space must have been loaded from a file or be the built-in GloVe,
    `privlib.words.cluster.SpaceSpec`), or None: in this process, without importing Dask. Same
    seed, same numbers either way. (Before blocks, all outputs came from ``rng`` itself, in the
    order (epsilon, word): a seed now gives other draws than it did then, from the same laws.)

    ``progress(fraction, message)`` is called as work completes (fraction in [0, 1]): within each
    block in this process, block by block on a cluster.
    """
    mechanism = mechanism or MultivariateLaplace.family()
    seed = check_seed(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    rng = as_generator(rng)
    epsilons = np.atleast_1d(np.asarray([check_epsilon(float(e)) for e in np.atleast_1d(epsilons)]))
    samples_per_word = check_positive_int(samples_per_word, "samples_per_word", maximum=1000)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    rows = sweep_words(space, words, rng)
    blocks = word_blocks(rows.size, sweep_words_per_block(epsilons.size * samples_per_word))
    seeds = block_seeds(rng, len(blocks))
    task_space, task_mechanism = space_for_tasks(space, client), mechanism_for_tasks(mechanism, client)
    classes = np.concatenate(run_word_blocks(
        client, sweep_block,
        [(task_space, task_mechanism, rows[a:b], epsilons, samples_per_word, close, seed)
         for (a, b), seed in zip(blocks, seeds)],
        progress), axis=0)
    result = SweepResult(
        (mechanism.name,), epsilons, SWEEP_METRICS, word_values(classes, rows.size, samples_per_word)[None],
        seed=seed, labels={mechanism.name: mechanism.label},
        settings={"close": close, "samples_per_word": samples_per_word},
        guarantees={mechanism.name: str(mechanism.guarantee)})
    return EpsilonSweep(result, tuple(space.words[r] for r in rows), close, samples_per_word)


def sweeps_to_json(labelled_sweeps, indent: int | None = 2) -> str:
    """Several sweeps as one JSON object {label: `EpsilonSweep.to_dict()`}; ``labelled_sweeps`` is
    a sequence of (label, sweep) pairs (a later pair with the same label wins)."""
    import json

    return json.dumps({label: sweep.to_dict() for label, sweep in labelled_sweeps}, indent=indent)


def compare_sweeps(space, epsilons, words, mechanisms, close: int = DEFAULT_CLOSE, rng=None,
                   samples_per_word: int = 1, progress=None, client=None) -> list[EpsilonSweep]:
    """One `epsilon_sweep` per mechanism (a `Mechanism`, a name or a (name, parameters) pair, see
    `resolve_mechanism`), in order. With an integer ``rng`` seed every sweep starts from that
    seed, so for ``words`` a count all mechanisms run on the same random words (and the same block
    seeds); a ``numpy.random.Generator`` is shared, each sweep drawing after the previous one.
    ``client``: see `epsilon_sweep`. ``progress(fraction, message)`` covers all the sweeps, each
    an equal share."""
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
                                    samples_per_word=samples_per_word, progress=report, client=client))
    return sweeps


def sweep(space, mechanisms, epsilons, *, repeats: int | None = None, seed=None, progress: Progress | None = None,
          words=None, samples_per_word: int = 1, close: int = DEFAULT_CLOSE, client=None) -> SweepResult:
    """The Fig. 2 sweep of the one pattern (`privlib.core.sweep`): for each mechanism (a family, a
    mechanism, a name or a (name, parameters) pair) and each ε of ``epsilons``, the shares of
    original / close / distant outputs (`SWEEP_METRICS`) of ``repeats`` words drawn uniformly
    without replacement (default 200) — or of the given ``words`` — one repetition per word
    (each word gets ``samples_per_word`` outputs per ε). ``seed``: a whole number (every
    mechanism runs on the same words and block seeds) or a Generator (shared, as
    `compare_sweeps`); ``progress(fraction, message)``; ``client``: see `epsilon_sweep`.
    The numbers are those of `compare_sweeps` with the same arguments.

    Mechanisms are named in the result by ``name``, or ``name(parameters)`` when two share a name.
    """
    if words is None:
        words = 200 if repeats is None else check_positive_int(repeats, "repeats")
    elif repeats is not None:
        raise ValueError("Give either repeats (a number of random words) or words (the words themselves), not both.")
    resolved = [resolve_mechanism(spec) for spec in mechanisms]
    sweeps = compare_sweeps(space, epsilons, words, resolved, close, rng=seed, samples_per_word=samples_per_word,
                            progress=progress, client=client)
    names = [m.name for m in resolved]
    if len(set(names)) < len(names):
        names = [mechanism_key(m) for m in resolved]
    if len(set(names)) < len(names):
        raise ValueError(f"The mechanisms to compare must differ; got {', '.join(names)}.")
    return SweepResult(
        tuple(names), sweeps[0].epsilons, SWEEP_METRICS, np.concatenate([s.result.values for s in sweeps]),
        seed=sweeps[0].result.seed,
        labels={n: m.label for n, m in zip(names, resolved)},
        settings={"close": sweeps[0].close, "samples_per_word": sweeps[0].samples_per_word,
                  "words": list(sweeps[0].words) if all(s.words == sweeps[0].words for s in sweeps) else None},
        guarantees={n: str(m.guarantee) for n, m in zip(names, resolved)})


def mechanism_key(mechanism: Mechanism) -> str:
    """``name(key=value, ...)`` of a mechanism's parameters (``name`` when it has none): tells two
    mechanisms of one name apart in a sweep."""
    params = ", ".join(f"{key}={value}" for key, value in mechanism.parameters.items())
    return f"{mechanism.name}({params})" if params else mechanism.name
