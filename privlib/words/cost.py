"""How long a word-level computation will take, before it runs: the one cost model of the rank
experiment, the ε sweep, Table 2 and the ε study (the command line refuses work estimated above
about a minute unless told otherwise, and shows the estimate).

Estimated seconds = the size of the work in units of the kernel that dominates it, times this
machine's seconds per unit, measured:

====================  ==========================================================  ===================
workload              units                                                       kernel
====================  ==========================================================  ===================
`rank_experiment`     samples                                                     sampling (one word)
`epsilon_sweep`       words x epsilons x samples per word, plus words             sampling, ranking
`neighbour_distances` words                                                       prefix
`mechanism_metrics`   words x epsilons x samples, plus words (sampled mechanisms) sampling, sorting
                      words x epsilons (mechanisms with exact output laws)        exact law
====================  ==========================================================  ===================

Kernels, each the very library call the workload makes:

- sampling: one output of the mechanism (``sample`` for one word, ``sample_many`` for many), e.g.
  for the multivariate Laplace mechanism one exact nearest-word search of a noisy point;
- ranking: one input word's outputs classified among its neighbours (`classify_outputs`: a float64
  distance row and a partition); sorting: the same with a sort (`output_ranks`);
- prefix: one word's first ``far`` + 1 neighbours in order and its Table 2 values
  (`neighbour_distances`);
- exact law: one cell (word, epsilon) of `mechanism_metrics` for a mechanism with exact output
  probabilities.

Each kernel costs about N (the vocabulary size) times a constant (a sort: N log N). Why measured
rather than hard-coded seconds: that constant depends on the machine (cores, BLAS, memory) and on
its load by a factor of several, while the counts do not. So each kernel is timed once per
process and space (kept with the space, `EmbeddingSpace.derived`) on the first
`CALIBRATION_WORDS` words of the space (all of it when smaller), in growing blocks until one
block lasts `CALIBRATION_SECONDS`, and scaled to N; the prefix kernel, part of whose cost per word
does not grow with N, is timed on twice as many words as well and scaled along the line through
both. An estimate takes a few tenths of a second (up to about two on a heavily loaded machine);
nothing of the work itself runs. Inputs are checked exactly as the workload checks them, so bad
input gets the workload's own error rather than an estimate.

Accuracy, GloVe 6B 50d (400,000 words), on a 2-core Xeon shared with other jobs (estimate / time
taken, whole command line runs): ranks --samples 5,000 / 20,000 / 60,000: 3/3, 13/12, 35/35 s;
table2 --words 1,000 / 5,000 / 20,000: 2/2, 7/7, 27/24 s; sweep --words 50 / 200 / 500 over
10 / 30 / 30 epsilons: 0/0, 2/2, 7/5 s; choose with 10 words, 10 epsilons, 50 runs / 20, 30, 100 /
50, 30, 100: 2/2, 27/17, 52/45 s — within a factor of 1.6, and mostly above the time taken.
The machine's load can change during a long run, which no estimate made before it can know.

Stored costs instead of timings (``timed=False``, `STORED_KERNEL_NANOSECONDS`): an estimate that
must cost nothing — a page deciding whether work starts by itself, where a new process's timing run
(about a second: the very work it would decide about) would itself be the wait — uses kernel costs
measured once on the reference machine and stored in `privlib.words.kernel_costs` (their one home,
which the attacks' estimate `privlib.words.attacks.attack_seconds` uses too), per mechanism for the
sampling kernel, as nanoseconds per unit and per vocabulary word: counts times constants, no timing,
the same in every process. They do not follow the load, so a long run is better judged by the timed
estimate.

Fixed costs instead of timings: with the environment variable `KERNEL_NANOSECONDS_VARIABLE` set
to a number c, no kernel is timed and every kernel costs c nanoseconds per unit and per word of the
vocabulary (a sort: times log2 N) — the same estimate on any machine under any load, for tests
and reproducible refusals. About 2 is this machine's pace (GloVe 6B 50d, 400,000 words: 0.8 ms per
output of the multivariate Laplace mechanism against 0.6 ms measured).
"""
from __future__ import annotations

import math
import time

import numpy as np

from privlib.core.validation import check_epsilon, check_positive_int
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.experiments import MAX_SAMPLES
from privlib.words.kernel_costs import (  # their one home; the names are the cost model's too (cost.X)
    KERNEL_NANOSECONDS_VARIABLE,  # noqa: F401
    STORED_EPSILONS,
    STORED_KERNEL_NANOSECONDS,
    untimed_nanoseconds,
)
from privlib.words.mechanisms import Mechanism, MultivariateLaplace, resolve_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE, DIRECT_MAX_WORDS, classify_outputs, output_ranks

# The ε study (privlib.words.choice) and Table 2 (privlib.words.theory) are imported by the estimates
# of their own work only: theory imports scipy.stats and scipy.integrate (seconds on a busy machine),
# which a page estimating a sweep or an attack never needs (issue 22: Neighbour ranks' first view).

#: Words of the space the kernels are timed on: more than `DIRECT_MAX_WORDS`, so neighbour orders
#: take the same route (float32 pre-selection) as on a large vocabulary.
CALIBRATION_WORDS = 65_536
#: A calibration block grows until one lasts this long (shorter blocks run below full speed).
CALIBRATION_SECONDS = 0.15
#: Epsilons of a grid the sampling kernel is timed at (spread over the grid).
CALIBRATION_EPSILONS = 8

if CALIBRATION_WORDS <= DIRECT_MAX_WORDS:  # pragma: no cover - a guard on the two constants
    raise RuntimeError("CALIBRATION_WORDS must exceed DIRECT_MAX_WORDS.")


# ----------------------------------------------------------------------------- measurement
def per_unit_seconds(run, sizes) -> float:
    """Seconds per unit of ``run(size)`` (a call doing ``size`` units of work): one untimed call at
    the smallest size (one-off set-up: caches, the search of a new space), then timed calls at the
    growing ``sizes`` until one lasts `CALIBRATION_SECONDS` twice in a row (or the sizes run out);
    the shorter of the two counts (one pause of a busy machine is not its pace). Calls that long
    leave a call's fixed costs (thread pools, a block's first product) a small part."""
    def timed(size) -> float:
        start = time.perf_counter()
        run(size)
        return time.perf_counter() - start

    run(sizes[0])
    for size in sizes:
        elapsed = timed(size)
        if elapsed >= CALIBRATION_SECONDS:
            elapsed = min(elapsed, timed(size))
            if elapsed >= CALIBRATION_SECONDS:
                break
    return elapsed / size


def calibration_space(space, minimum: int = 0, words: int = CALIBRATION_WORDS) -> EmbeddingSpace:
    """The space the kernels are timed on: its first ``words`` words (the space itself when it is
    no larger, or when a kernel needs more than that many words: ``minimum``)."""
    if len(space) <= max(words, minimum):
        return space
    return space.derived(("cost", "calibration-space", words), lambda: EmbeddingSpace.from_arrays(
        space.words[:words], space.vectors[:words], name=f"{space.name} (first {words:,} words)"))


def measured(space, key: tuple, measure, minimum: int = 0, affine: bool = False,
             stored: float | None = None) -> float:
    """Seconds per unit of one kernel on ``space``: ``measure(calibration space)`` (one of at least
    ``minimum`` words) scaled from the calibration space's N to the space's — in proportion (a key
    starting with "sorting": N log N), or with ``affine`` along the line through a second
    measurement on twice as many words (for kernels with a part per unit that does not grow with
    N; at most the proportional scaling) — measured once per space. With fixed costs
    (`privlib.words.kernel_costs.fixed_kernel_nanoseconds`), or a ``stored`` cost (nanoseconds per unit
    and per vocabulary word: `STORED_KERNEL_NANOSECONDS`), nothing is measured: those nanoseconds times
    N (a sort: N log2 N); fixed costs come first (tests fix every estimate with them:
    `privlib.words.kernel_costs.untimed_nanoseconds`)."""
    fixed = untimed_nanoseconds(stored)
    if fixed is not None:  # before the cache of the space: a timing cached there must not hide it
        n = len(space)
        return fixed * 1e-9 * n * (math.log2(max(n, 2)) if key[0] == "sorting" else 1.0)

    def build():
        sub = calibration_space(space, minimum)
        n, c = len(space), len(sub)
        scale = n / c
        if key[0] == "sorting":
            scale *= math.log2(max(n, 2)) / math.log2(max(c, 2))
        small = measure(sub)
        if not affine or n < 2 * c:
            return small * scale
        large = measure(calibration_space(space, minimum, 2 * c))
        if large <= small:  # timings of a busy machine out of order: in proportion from the larger space
            return large * n / (2 * c)
        return min(small + (large - small) * (n - c) / c, small * scale)

    return space.derived(("cost", *key), build)


def spread(epsilons) -> np.ndarray:
    """Up to `CALIBRATION_EPSILONS` epsilons spread evenly over a sorted copy of the grid."""
    values = np.sort(np.atleast_1d(np.asarray(epsilons, dtype=np.float64)))
    picks = np.unique(np.linspace(0, values.size - 1, min(values.size, CALIBRATION_EPSILONS)).round().astype(int))
    return values[picks]


def sampling_seconds(space, mechanism: Mechanism, epsilons, one_word: bool = False, timed: bool = True) -> float:
    """Seconds per output of ``mechanism`` on ``space`` at these epsilons: for one word
    (``one_word``, ``mechanism.sample``, as the rank experiment) or for many words
    (``sample_many``, as sweeps and the ε study); without ``timed``, from the mechanism's stored
    cost (`STORED_KERNEL_NANOSECONDS`; a mechanism outside the registry has none and is timed)."""
    eps = spread(epsilons)
    stored = None if timed else STORED_KERNEL_NANOSECONDS["sampling"].get(mechanism.name)  # (none stored: timed)

    def measure(sub):
        rng = np.random.default_rng(0)

        def run(size):
            if one_word:
                mechanism.sample(sub, 0, float(eps[0]), size, rng)
            else:
                mechanism.sample_many(sub, rng.integers(0, len(sub), size), np.resize(eps, size), rng)

        return per_unit_seconds(run, (4, 16, 64, 256, 1024, 2048))

    return measured(space, ("sampling", repr(mechanism), tuple(eps.tolist()), one_word), measure, stored=stored)


def ranking_seconds(space, outputs_per_word: int, sort: bool = False, timed: bool = True) -> float:
    """Seconds to rank ``outputs_per_word`` outputs of one input word among its neighbours:
    `classify_outputs` (a partition, as sweeps) or, with ``sort``, `output_ranks` (a sort, as the
    ε study); without ``timed`` (a partition only), from the stored cost (`STORED_KERNEL_NANOSECONDS`)."""
    per_word = max(1, int(outputs_per_word))
    if not timed and sort:
        raise ValueError("Stored costs have no sort kernel: time it (timed=True).")
    stored = None if timed else STORED_KERNEL_NANOSECONDS["ranking"]

    def measure(sub):
        rng = np.random.default_rng(0)
        close = min(DEFAULT_CLOSE, len(sub) - 1)

        def run(size):
            rows = rng.integers(0, len(sub), size)
            outputs = rng.integers(0, len(sub), (size, min(per_word, 4096)))
            if sort:
                output_ranks(sub, np.repeat(rows, outputs.shape[1]), outputs.ravel())
            else:
                classify_outputs(sub, rows, outputs, close)

        return per_unit_seconds(run, (2, 8, 32, 128, 512))

    return measured(space, ("sorting" if sort else "ranking", min(per_word, 4096)), measure, stored=stored)


def prefix_seconds(space, far: int | None = None) -> float:
    """Seconds per word of `neighbour_distances` (Table 2) with this ``far`` rank (default: Table 2's,
    `privlib.words.theory.neighbour_distances.FAR_RANK`)."""
    from privlib.words.theory.neighbour_distances import FAR_RANK, neighbour_distances

    far = FAR_RANK if far is None else far

    def measure(sub):
        def run(size):
            neighbour_distances(sub, size, far=far, rng=0)

        return per_unit_seconds(run, sorted({min(size, len(sub)) for size in (8, 32, 128, 512)}))

    # a prefix longer than a quarter of the words takes another route (`neighbour_order_prefixes`);
    # a word's candidates are re-scored and ordered at a cost that does not grow with N: affine
    return measured(space, ("prefix", far), measure, minimum=4 * (far + 1), affine=True)


def exact_law_seconds(space, mechanism: Mechanism, epsilons, samples: int, close: int) -> float:
    """Seconds per (word, epsilon) cell of `mechanism_metrics` for a mechanism with exact output
    probabilities."""
    from privlib.words.choice.metrics import mechanism_metrics
    from privlib.words.choice.words import WordSet

    eps = spread(epsilons)[:4]

    def measure(sub):
        k = min(close, len(sub) - 1)

        def run(size):
            mechanism_metrics(sub, WordSet.from_words(sub.words[:size], sub), eps, mechanism, samples, k, rng=0)

        return per_unit_seconds(run, sorted({min(size, len(sub)) for size in (1, 4, 16, 64)})) / eps.size

    return measured(space, ("exact-law", repr(mechanism), tuple(eps.tolist()), samples), measure)


def kernel_nanoseconds(space, mechanisms=None) -> dict:
    """The kernels timed on ``space`` (`sampling_seconds` at `STORED_EPSILONS`, `ranking_seconds` of
    300 outputs) in the units of `STORED_KERNEL_NANOSECONDS`: nanoseconds per unit and per vocabulary
    word, for ``mechanisms`` (names; default: the registry's). How the stored costs are measured (with
    `KERNEL_NANOSECONDS_VARIABLE` unset: fixed costs would be returned as they are)."""
    from privlib.words.mechanisms import MECHANISMS

    per_word = 1e9 / len(space)
    return {"sampling": {name: sampling_seconds(space, resolve_mechanism(name), STORED_EPSILONS) * per_word
                         for name in (mechanisms or MECHANISMS)},
            "ranking": ranking_seconds(space, 300) * per_word}


# ----------------------------------------------------------------------------- workloads
def rank_experiment_seconds(space, word, epsilon: float, samples: int = 2000,
                            mechanism: Mechanism | None = None) -> float:
    """Estimated seconds of `rank_experiment` with these arguments (same checks, same errors).
    Mechanisms with exact output probabilities compute one law instead of sampling: 0 (well under
    a second at any vocabulary size that fits in memory)."""
    mechanism = mechanism or MultivariateLaplace.family()
    space.row(word)
    epsilon = check_epsilon(epsilon)
    samples = check_positive_int(samples, "samples", maximum=MAX_SAMPLES)
    if mechanism.has_exact_probabilities:
        return 0.0
    return samples * sampling_seconds(space, mechanism, [epsilon], one_word=True)


def epsilon_sweep_seconds(space, epsilons, words=200, mechanism: Mechanism | None = None,
                          samples_per_word: int = 1, timed: bool = True) -> float:
    """Estimated seconds of `epsilon_sweep` with these arguments (same checks, same errors):
    words x epsilons x samples per word outputs, then each word's outputs ranked. Without ``timed``,
    from the stored kernel costs (`STORED_KERNEL_NANOSECONDS`): no kernel runs, so the estimate costs
    microseconds in any process (a page's decision whether the work starts by itself)."""
    mechanism = mechanism or MultivariateLaplace.family()
    eps = np.atleast_1d(np.asarray([check_epsilon(float(e)) for e in np.atleast_1d(epsilons)]))
    samples_per_word = check_positive_int(samples_per_word, "samples_per_word", maximum=1000)
    if isinstance(words, str):
        words = [words]
    if isinstance(words, (int, np.integer)):
        count = check_positive_int(words, "words", minimum=1, maximum=len(space))
    else:
        count = space.indices(words).size
        if count == 0:
            raise ValueError("Give at least one word for the sweep.")
    outputs = eps.size * samples_per_word
    return (count * outputs * sampling_seconds(space, mechanism, eps, timed=timed)
            + count * ranking_seconds(space, outputs, timed=timed))


def neighbour_distances_seconds(space, words=5000, far: int | None = None) -> float:
    """Estimated seconds of `neighbour_distances` (Table 2) with these arguments (same checks,
    same errors; ``far`` by default Table 2's, `privlib.words.theory.neighbour_distances.FAR_RANK`)."""
    from privlib.words.theory.neighbour_distances import FAR_RANK, neighbour_distances

    far = check_positive_int(FAR_RANK if far is None else far, "far (the rank of the far neighbour)", minimum=2)
    if len(space) < far + 1:
        neighbour_distances(space, 1, far=far)  # raises the workload's own error
    if isinstance(words, str):
        words = [words]
    if isinstance(words, (int, np.integer)) and not isinstance(words, bool):
        count = check_positive_int(words, "words (how many to draw)", minimum=1, maximum=len(space))
    else:
        count = len([space.row(w) for w in words])
        if count == 0:
            raise ValueError("Give at least one word (or a number of words to draw).")
    return count * prefix_seconds(space, far)


def mechanism_frequencies_seconds(space, epsilons, words: int = 200, samples_per_word: int = 5,
                                  timed: bool = True) -> float:
    """Estimated seconds of `privlib.words.theory.neighbour_distances.mechanism_frequencies` (what the
    multivariate Laplace mechanism did to Table 2's words: Fig. 6's diamonds): words × epsilons ×
    samples per word outputs of the mechanism, at the sampling kernel's cost (its exact predictions
    cost next to nothing). Without ``timed``, from the stored cost (`STORED_KERNEL_NANOSECONDS`)."""
    eps = np.atleast_1d(np.asarray([check_epsilon(float(e)) for e in np.atleast_1d(epsilons)]))
    words = check_positive_int(words, "words", minimum=1)
    samples_per_word = check_positive_int(samples_per_word, "samples_per_word", minimum=1, maximum=100_000)
    return words * eps.size * samples_per_word * sampling_seconds(space, MultivariateLaplace.family(), eps,
                                                                  timed=timed)


def mechanism_metrics_seconds(space, words, epsilons, mechanism="multivariate-laplace", samples: int = 100,
                              close: int = DEFAULT_CLOSE) -> float:
    """Estimated seconds of `mechanism_metrics` with these arguments (same checks, same errors)."""
    from privlib.words.choice.metrics import checked_metrics_arguments

    mech, ws, eps, samples, close = checked_metrics_arguments(space, words, epsilons, mechanism, samples, close)
    if mech.has_exact_probabilities:
        return len(ws) * eps.size * exact_law_seconds(space, mech, eps, samples, close)
    return (len(ws) * eps.size * samples * sampling_seconds(space, mech, eps)
            + len(ws) * ranking_seconds(space, eps.size * samples, sort=True))


def choose_epsilon_seconds(space, words, epsilons="1:30", mechanisms=("multivariate-laplace", "postprocessing-fix"),
                           samples: int = 100, close: int = DEFAULT_CLOSE) -> float:
    """Estimated seconds of `choose_epsilon` with these arguments: the sum over the mechanisms of
    `mechanism_metrics_seconds`."""
    single = isinstance(mechanisms, (str, Mechanism))
    mechs = [resolve_mechanism(m) for m in ([mechanisms] if single else mechanisms)]
    if not mechs:
        raise ValueError("Choose at least one mechanism to compare.")
    return sum(mechanism_metrics_seconds(space, words, epsilons, m, samples, close) for m in mechs)


#: Bytes of a corpus file per word, for `corpus_words`: about 6 for English text (a word and a
#: space), so a file's size over it overestimates its words (markup, ids and columns count too).
BYTES_PER_WORD = 6


def corpus_words(size_bytes: int) -> int:
    """The words of a corpus file of ``size_bytes`` bytes, estimated from its size (before it is
    read): size / `BYTES_PER_WORD`, at least 1."""
    return max(1, int(size_bytes) // BYTES_PER_WORD)


def sanitize_seconds(space, words: int, epsilon: float, mechanism: Mechanism | None = None) -> float:
    """Estimated seconds to sanitise texts of ``words`` words (documents × words per document) at
    ``epsilon`` per token: one output of ``mechanism`` per word, at the cost of `sampling_seconds`
    (sample_many, as `privlib.words.text.sanitize_many` draws). Stop words and tokens not in the
    vocabulary cost nothing, so this is an upper estimate."""
    mechanism = resolve_mechanism(mechanism) if mechanism is not None else MultivariateLaplace.family()
    epsilon = check_epsilon(epsilon)
    words = check_positive_int(words, "words", minimum=0)
    if words == 0:
        return 0.0
    return words * sampling_seconds(space, mechanism, [epsilon])
