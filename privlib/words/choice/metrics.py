"""Choosing epsilon before a deployment: what privacy and what utility each mechanism gives on
*your* words over a grid of epsilons, with standard errors, and the inverse questions ("the
smallest epsilon that meets my utility target", "the largest epsilon that keeps my privacy
floor").

Privacy statistics are the plausible-deniability statistics of Feyisetan et al. (WSDM 2020,
arXiv 1910.08902): for a word w and many runs of the mechanism, N_w = the fraction of runs whose
output is w itself and S_w = the number of distinct outputs; high N_w / low S_w = weak
deniability. Ranks are the paper's (Asghar et al. 2026, §2, Fig. 2): rank 0 = the word itself,
1..K = close neighbours. Budgets compose (Asghar et al. 2026, §3.2): a sentence of L sanitised
words spends L·eps.

Per mechanism and epsilon (`MechanismMetrics`; names as in `METRICS`):

* ``unchanged``  mean over words of Pr[output = input] (N_w as a fraction);
* ``unchanged_max``  the largest per-word Pr[output = input] over the words (the literal reading
  of "no word kept more than x% of the time");
* ``close``  mean fraction of outputs with rank 1..K; ``within_k`` = unchanged + close (rank <= K);
* ``median_rank``  the median rank of an output for a word chosen uniformly among the words
  (the median of the pooled rank law; the lower median, min{r : F(r) >= 1/2});
* ``cosine``  mean cosine similarity between input and output vectors (1 when unchanged);
* ``distinct``  mean S_w, distinct outputs among ``samples`` runs;
* ``effective``  mean exp(H_w), H_w the entropy (nats) of the word's output law.

Sampled mechanisms are run ``samples`` times per word and epsilon (all runs batched through
`Mechanism.sample_many`, one call per batch of epsilons; outputs ranked with
`ranks.output_ranks`): cost is linear in words x epsilons x samples. The words are cut into
blocks of `experiments.words_per_block` (epsilons x samples) words, each drawing from its own
generator (`experiments.block_seeds`) and computing its words' metrics (`sampled_block_metrics`),
in this process or on a Dask cluster's workers: same seed, same numbers. Mechanisms with exact
output probabilities (``has_exact_probabilities``) are not sampled: every metric is computed
from the exact law P(y | w) — unchanged = P(w|w); close = sum of P over ranks 1..K; cosine =
sum_y P(y|w) cos(w, y); effective = exp(-sum_y P log P); distinct = E[S_w] =
sum_y 1 - (1 - P(y|w))^samples (the expected number of distinct outputs in the same number of
runs, so sampled and exact mechanisms compare like for like); median from the exact mixture of
the words' rank laws.

Standard errors (``standard_errors``; every band is the estimate ± `BAND_SE` standard errors
unless stated) depend on what the words are (`WordSet.scope`):

* ``scope="words"`` (a pasted text or an uploaded list: the estimand is the average over exactly
  these words): the Monte-Carlo sampling error only, SE = sqrt(sum_w v_w) / m for m words, v_w
  the variance of word w's own estimate: p(1-p)/samples for a fraction; s^2/samples for the mean
  cosine (s^2 the sample variance of the word's cosines); (samples-1) f1 (samples-f1)/samples^2
  for S_w (the jackknife over runs, f1 = outputs seen exactly once; conservative in our checks);
  exp(2H)(sum p log^2 p - H^2)/samples for exp(H) (delta method, p the empirical law).
  Exact mechanisms: 0.
* ``scope="vocabulary"`` (a uniform random sample of the vocabulary: the estimand is the
  vocabulary average): between-word SD / sqrt(m) (ddof = 1), which also contains the sampling
  error of each word's estimate; the finite-population correction (m << N) is ignored.
* ``median_rank``: the Woodruff (1952) interval — quantiles of the pooled ranks at 1/2 ± z·SE_F,
  SE_F the SE (as above) of the fraction of outputs with rank <= the median; its SE is half the
  z = 1 interval. (Exact mechanisms, vocabulary scope: SE_F from each word's CDF read at the
  nearest lower point of a rank grid exact up to 1,024 and log-spaced beyond.)
* ``unchanged_max``: SE = the binomial SE of the word attaining the maximum; band = [max over
  words of their Wilson-interval lower ends, max of their upper ends] (z = `BAND_SE`); exact
  mechanisms: no error. Over a random sample it is the maximum over the sampled words, a lower
  bound on the maximum over the vocabulary.
* ``effective`` from samples is exp(H_MM), H_MM the entropy of the empirical output law plus the
  Miller-Madow correction (S_w - 1)/(2·samples). Still biased low when outputs are spread over
  many more words than runs (it stays below about 1.65 x samples); exact mechanisms give the
  true exp(H), which is not capped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privlib.core.statistics import wilson_interval
from privlib.core.validation import as_generator, check_epsilons, check_positive_int
from privlib.words.choice.words import VOCABULARY, WORDS, WordSet, as_word_set
from privlib.words.experiments import (
    MAX_EPSILONS,
    block_seeds,
    mechanism_for_tasks,
    parse_epsilons,
    run_word_blocks,
    sample_across_epsilons,
    space_for_tasks,
    space_of_task,
    word_blocks,
    words_per_block,
)
from privlib.words.mechanisms import resolve_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE, neighbour_ranks, output_ranks

#: Width of every uncertainty band, in standard errors (the inverse questions use the same).
BAND_SE = 2.0
#: Default runs of the mechanism per word and epsilon.
DEFAULT_SAMPLES = 100
#: Largest number of runs per word and epsilon.
MAX_SAMPLES = 10_000
#: Largest words x epsilons x samples of one mechanism (memory: about 40 bytes per run).
MAX_RUNS = 5_000_000
#: Exact laws: epsilons handled per pass over the words (bounds the pooled rank law in memory).
_EXACT_CELLS = 4_000_000

#: name -> (short label, what it measures, "higher" or "lower" means more privacy / more utility).
METRICS = {
    "unchanged": ("kept unchanged", "mean Pr[output = input] (N_w as a fraction)", "lower = more privacy"),
    "unchanged_max": ("most-kept word", "largest per-word Pr[output = input]", "lower = more privacy"),
    "close": ("close neighbour", "mean fraction of outputs with rank 1..K", "higher = more utility"),
    "within_k": ("unchanged or close", "mean fraction of outputs with rank <= K", "higher = more utility"),
    "median_rank": ("median rank", "median rank of an output among its input's neighbours",
                    "lower = more utility"),
    "cosine": ("cosine similarity", "mean cosine similarity of input and output", "higher = more utility"),
    "distinct": ("distinct outputs S_w", "mean number of distinct outputs in the runs", "higher = more privacy"),
    "effective": ("exp(entropy)", "mean exp(entropy of the output law): effective number of outputs",
                  "higher = more privacy"),
}
PRIVACY_METRICS = ("unchanged", "unchanged_max", "distinct", "effective")
UTILITY_METRICS = ("within_k", "close", "unchanged", "cosine")
#: Per-word metrics (the others are computed from pooled outputs).
PER_WORD_METRICS = ("unchanged", "close", "within_k", "cosine", "distinct", "effective")
FRACTION_METRICS = ("unchanged", "close", "within_k")


def epsilon_grid(epsilons) -> np.ndarray:
    """A grid of epsilons, sorted ascending without duplicates: a string as
    `experiments.parse_epsilons` reads it ("1:30", "1:30:0.5", "0.5,1,2") or numbers."""
    if isinstance(epsilons, str):
        values = parse_epsilons(epsilons)
    else:
        values = check_epsilons(epsilons)
    if values.size == 0:
        raise ValueError("The epsilon grid is empty: give at least one epsilon, e.g. 1:30.")
    if values.size > MAX_EPSILONS:
        raise ValueError(f"The grid has {values.size:,} epsilons; the limit is {MAX_EPSILONS:,}.")
    return np.unique(values)


@dataclass(frozen=True, eq=False)
class MechanismMetrics:
    """The metrics of one mechanism over the epsilon grid (see the module docstring).

    ``values[name]``, ``standard_errors[name]``, ``bands[name] = (low, high)``: arrays over
    ``epsilons``; ``per_word[name]``: (words, epsilons) arrays of the per-word metrics.
    """

    mechanism: str
    label: str
    parameters: dict
    guarantee: str
    exact: bool
    epsilons: np.ndarray = field(repr=False)
    words: tuple = field(repr=False)
    scope: str = WORDS
    samples: int = DEFAULT_SAMPLES
    close: int = DEFAULT_CLOSE
    values: dict = field(default_factory=dict, repr=False)
    standard_errors: dict = field(default_factory=dict, repr=False)
    bands: dict = field(default_factory=dict, repr=False)
    per_word: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        return {
            "mechanism": self.mechanism, "label": self.label, "parameters": dict(self.parameters),
            "guarantee": self.guarantee, "exact": self.exact, "scope": self.scope, "samples": self.samples,
            "close": self.close, "epsilons": float_list(self.epsilons),
            "values": {k: float_list(v) for k, v in self.values.items()},
            "standard_errors": {k: float_list(v) for k, v in self.standard_errors.items()},
            "bands": {k: {"low": float_list(lo), "high": float_list(hi)} for k, (lo, hi) in self.bands.items()},
        }


def float_list(a) -> list:
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def mechanism_metrics(space, words, epsilons, mechanism="multivariate-laplace", samples: int = DEFAULT_SAMPLES,
                      close: int = DEFAULT_CLOSE, rng=None, progress=None, client=None) -> MechanismMetrics:
    """Privacy and utility metrics of ``mechanism`` for ``words`` at each epsilon of the grid
    (module docstring: definitions, exact laws, standard errors).

    ``words``: a `WordSet` (its scope decides the standard errors) or vocabulary words (scope
    "words"). ``epsilons``: see `epsilon_grid`. ``samples`` (>= 2): runs per word and epsilon
    for sampled mechanisms, and the run count of the expected S_w for exact ones. ``close``: K.
    ``rng``: seed or Generator (same seed, same numbers). ``progress(fraction, message)``.

    ``client``: a ``dask.distributed.Client`` to run a sampled mechanism's blocks of words on its
    workers (the space must be loadable there, `privlib.words.cluster.SpaceSpec`), or None: in
    this process, without importing Dask; same seed, same numbers either way. Block b draws from
    ``default_rng(SeedSequence(entropy).spawn(blocks)[b])``, the entropy drawn from ``rng``
    (`experiments.block_seeds`); before blocks, all runs came from ``rng`` itself, so a seed now
    gives other draws than it did then, from the same laws. Mechanisms with exact output laws are
    not sampled and are computed in this process (a few passes over the vocabulary per word and
    epsilon, and a median over the pooled law of all the words, which blocks would have to ship
    as N floats each).
    """
    mech, ws, eps, samples, close = checked_metrics_arguments(space, words, epsilons, mechanism, samples, close)
    report = progress or (lambda fraction, message: None)
    rng = as_generator(rng)
    if mech.has_exact_probabilities:
        values, ses, bands, per_word = _exact_metrics(space, ws, eps, mech, samples, close, report)
    else:
        values, ses, bands, per_word = _sampled_metrics(space, ws, eps, mech, samples, close, rng, report, client)
    report(1.0, f"{mech.label}: done")
    for d in (values, ses, per_word):
        for a in d.values():
            a.flags.writeable = False
    return MechanismMetrics(mech.name, mech.label, dict(mech.parameters), str(mech.guarantee),
                            bool(mech.has_exact_probabilities), eps, ws.words, ws.scope, samples, close,
                            values, ses, bands, per_word)


def checked_metrics_arguments(space, words, epsilons, mechanism, samples: int, close: int) -> tuple:
    """The arguments of `mechanism_metrics` checked and converted — (mechanism, `WordSet`, epsilon
    grid, samples, close) — or ValueError saying what to change (also used by its time estimate,
    `privlib.words.cost.mechanism_metrics_seconds`, so both refuse the same work)."""
    mech = resolve_mechanism(mechanism)
    ws = as_word_set(words, space)
    eps = epsilon_grid(epsilons)
    samples = check_positive_int(samples, "samples", minimum=2, maximum=MAX_SAMPLES)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    check_runs(mech, len(ws), eps.size, samples)
    return mech, ws, eps, samples, close


def check_runs(mechanism, words: int, epsilons: int, samples: int) -> None:
    """ValueError when a sampled ``mechanism`` would run more than `MAX_RUNS` times (words x
    epsilons x samples); mechanisms with exact output laws are not run."""
    runs = words * epsilons * samples
    if not mechanism.has_exact_probabilities and runs > MAX_RUNS:
        raise ValueError(f"{words:,} words x {epsilons:,} epsilons x {samples:,} samples = {runs:,} runs; "
                         f"the limit is {MAX_RUNS:,}: use fewer words, epsilons or samples.")


def _aggregate(per_word: dict, within_var: dict | None, scope: str):
    """Means over words, their SEs (module docstring) and ± BAND_SE bands."""
    values, ses, bands = {}, {}, {}
    for name, a in per_word.items():
        m = a.shape[0]
        values[name] = a.mean(axis=0)
        if scope == VOCABULARY:
            ses[name] = a.std(axis=0, ddof=1) / math.sqrt(m)
        elif within_var is None:
            ses[name] = np.zeros(a.shape[1])
        else:
            ses[name] = np.sqrt(np.maximum(within_var[name], 0.0).sum(axis=0)) / m
        lo, hi = values[name] - BAND_SE * ses[name], values[name] + BAND_SE * ses[name]
        if name in FRACTION_METRICS:
            lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
        elif name == "cosine":
            lo, hi = np.clip(lo, -1, 1), np.clip(hi, -1, 1)
        bands[name] = (lo, hi)
    return values, ses, bands


def sampled_block_metrics(space, mechanism, rows, epsilons, samples: int, close: int, seed,
                          progress=None) -> dict:
    """One block of a sampled mechanism's `mechanism_metrics`: ``samples`` runs of ``mechanism``
    for each word of ``rows`` at each epsilon, drawn by `sample_across_epsilons` from
    ``numpy.random.default_rng(seed)``, ranked by `output_ranks`, and the block's per-word metrics
    (module docstring). ``space``: a space or its `SpaceSpec`; ``mechanism``: anything
    `resolve_mechanism` accepts. ``progress(fraction, message)`` within the block.

    Returns {"per_word": {name: (words, epsilons)}, "variance": {name: (words, epsilons)}, the
    variance of each word's own estimate, "ranks": (words, epsilons, samples) output ranks}.
    """
    space = space_of_task(space)
    mech = resolve_mechanism(mechanism)
    rows = np.asarray(rows, dtype=np.int64)
    eps = np.asarray(epsilons, dtype=np.float64)
    report = progress or (lambda fraction, message: None)
    rng = np.random.default_rng(seed)
    m, n_eps, s = rows.size, eps.size, samples
    inputs = np.repeat(rows, s)
    outputs = sample_across_epsilons(
        space, mech, inputs, eps, rng,
        lambda done, last: report(0.9 * done / n_eps, f"{mech.label}: ran ε = {last:g} ({done}/{n_eps})"))
    outputs = outputs.reshape(n_eps, m, s).transpose(1, 0, 2)  # (word, epsilon, run)
    ranks = output_ranks(space, np.repeat(rows, n_eps * s), outputs.ravel(),
                         progress=lambda done, total: report(0.9 + 0.1 * done / total,
                                                             f"{mech.label}: ranked {done}/{total} words")
                         ).reshape(m, n_eps, s)

    per_word, var = {}, {}
    for name, hit in (("unchanged", ranks == 0), ("close", (ranks >= 1) & (ranks <= close)),
                      ("within_k", ranks <= close)):
        p = hit.mean(axis=2)
        per_word[name], var[name] = p, p * (1 - p) / s
    # cosine similarity of each output with its input (1 for an unchanged word)
    cos = np.empty(outputs.shape)
    for i, row in enumerate(rows):
        cos[i] = space.cosine_similarities(row, outputs[i])
    per_word["cosine"], var["cosine"] = cos.mean(axis=2), cos.var(axis=2, ddof=1) / s
    # distinct outputs and the entropy of each word's empirical output law, from runs of equal outputs
    flat = np.sort(outputs.reshape(m * n_eps, s), axis=1)
    starts = np.ones(flat.shape, dtype=bool)
    starts[:, 1:] = flat[:, 1:] != flat[:, :-1]
    at = np.flatnonzero(starts.ravel())
    lengths = np.diff(np.append(at, flat.size))
    group = at // s
    p = lengths / s
    cells = m * n_eps
    distinct = np.bincount(group, minlength=cells).astype(np.float64)
    singles = np.bincount(group, weights=(lengths == 1), minlength=cells)
    plug_in = np.bincount(group, weights=-p * np.log(p), minlength=cells)
    second = np.bincount(group, weights=p * np.log(p) ** 2, minlength=cells)
    entropy = plug_in + (distinct - 1) / (2 * s)  # Miller-Madow bias correction
    per_word["distinct"] = distinct.reshape(m, n_eps)
    var["distinct"] = ((s - 1) * singles * (s - singles) / s**2).reshape(m, n_eps)  # jackknife over runs
    per_word["effective"] = np.exp(entropy).reshape(m, n_eps)
    var["effective"] = (np.exp(2 * entropy) * np.maximum(second - plug_in**2, 0.0) / s).reshape(m, n_eps)
    return {"per_word": per_word, "variance": var, "ranks": ranks}


def _sampled_metrics(space, ws: WordSet, eps, mech, samples: int, close: int, rng, report, client=None):
    rows, m, n_eps, s = ws.rows, len(ws), eps.size, samples
    blocks = word_blocks(m, words_per_block(n_eps * s))
    seeds = block_seeds(rng, len(blocks))
    task_space, task_mechanism = space_for_tasks(space, client), mechanism_for_tasks(mech, client)
    parts = run_word_blocks(
        client, sampled_block_metrics,
        [(task_space, task_mechanism, rows[a:b], eps, s, close, seed) for (a, b), seed in zip(blocks, seeds)],
        lambda fraction, message: report(0.95 * fraction, message))
    per_word = {name: np.concatenate([part["per_word"][name] for part in parts]) for name in PER_WORD_METRICS}
    var = {name: np.concatenate([part["variance"][name] for part in parts]) for name in PER_WORD_METRICS}
    ranks = np.concatenate([part["ranks"] for part in parts])

    values, ses, bands = _aggregate(per_word, var, ws.scope)
    # the most-kept word: its binomial SE; band from the words' Wilson intervals
    kept = per_word["unchanged"]
    top = kept.argmax(axis=0)
    values["unchanged_max"] = kept.max(axis=0)
    ses["unchanged_max"] = np.sqrt(var["unchanged"][top, np.arange(n_eps)])
    w_lo, w_hi = wilson_interval(kept, s, BAND_SE)
    bands["unchanged_max"] = (w_lo.max(axis=0), w_hi.max(axis=0))
    # median rank of the pooled outputs, Woodruff interval
    pooled = ranks.transpose(1, 0, 2).reshape(n_eps, m * s)
    median = np.quantile(pooled, 0.5, axis=1, method="inverted_cdf").astype(np.float64)
    below = (ranks <= median[None, :, None]).mean(axis=2)  # F_w(median), (m, E)
    se_f = _aggregate({"f": below}, {"f": below * (1 - below) / s}, ws.scope)[1]["f"]

    def quantiles(levels):
        return np.array([np.quantile(pooled[j], np.clip(levels[j], 0, 1), method="inverted_cdf")
                         for j in range(n_eps)], dtype=np.float64)

    values["median_rank"] = median
    ses["median_rank"] = (quantiles(0.5 + se_f) - quantiles(0.5 - se_f)) / 2
    bands["median_rank"] = (quantiles(0.5 - BAND_SE * se_f), quantiles(0.5 + BAND_SE * se_f))
    return values, ses, bands, per_word


def _rank_grid(n_words: int) -> np.ndarray:
    """Ranks 0..1023 and 256 log-spaced ranks beyond (for per-word CDFs of exact laws)."""
    head = np.arange(min(1024, n_words))
    tail = np.geomspace(1024, n_words - 1, 256).astype(np.int64) if n_words > 1025 else np.empty(0, np.int64)
    return np.unique(np.concatenate([head, tail]))


def _exact_metrics(space, ws: WordSet, eps, mech, samples: int, close: int, report):
    rows, m, n_eps, n = ws.rows, len(ws), eps.size, len(space)
    per_word = {name: np.empty((m, n_eps)) for name in PER_WORD_METRICS}
    grid = _rank_grid(n)
    cdf_grid = np.empty((m, n_eps, grid.size))
    median = np.empty(n_eps)
    chunk = max(1, _EXACT_CELLS // n)  # epsilons per pass: the pooled rank law is chunk x N
    passes = -(-n_eps // chunk)
    for k, j0 in enumerate(range(0, n_eps, chunk)):
        js = range(j0, min(j0 + chunk, n_eps))
        pooled = np.zeros((len(js), n))
        for i, row in enumerate(rows):
            order = neighbour_ranks(space, int(row)).order
            cos = space.cosine_similarities(row)
            for t, j in enumerate(js):
                p = mech.output_probabilities(space, int(row), float(eps[j]))
                by_rank = p[order]
                cum = np.cumsum(by_rank)
                per_word["unchanged"][i, j] = by_rank[0]
                per_word["close"][i, j] = by_rank[1:close + 1].sum()
                per_word["within_k"][i, j] = by_rank[:close + 1].sum()
                per_word["cosine"][i, j] = p @ cos
                nz = p[p > 0]
                entropy = float(-(nz * np.log(nz)).sum())
                per_word["effective"][i, j] = math.exp(entropy)
                with np.errstate(divide="ignore"):
                    per_word["distinct"][i, j] = float(-np.expm1(samples * np.log1p(-nz)).sum())
                cdf_grid[i, j] = cum[grid]
                pooled[t] += by_rank
            report(0.95 * (k * m + i + 1) / (passes * m), f"{mech.label}: exact laws of {i + 1}/{m} words")
        for t, j in enumerate(js):
            cum = np.cumsum(pooled[t] / m)
            median[j] = min(int(np.searchsorted(cum, 0.5 * cum[-1])), n - 1)
        del pooled
    values, ses, bands = _aggregate(per_word, None, ws.scope)
    kept = per_word["unchanged"]
    values["unchanged_max"] = kept.max(axis=0)
    ses["unchanged_max"] = np.zeros(n_eps)
    bands["unchanged_max"] = (values["unchanged_max"], values["unchanged_max"])
    values["median_rank"] = median
    if ws.scope == VOCABULARY:
        at = np.searchsorted(grid, median, side="right") - 1
        below = cdf_grid[:, np.arange(n_eps), at]
        se_f = below.std(axis=0, ddof=1) / math.sqrt(m)
        # quantiles of the pooled exact law need it again: recompute the pooled CDF per epsilon
        # from the grid CDFs (exact at ranks < 1024, interpolated on the log grid beyond)
        pooled_grid = cdf_grid.mean(axis=0)

        def quantile(j, level):
            level = min(max(level, 0.0), 1.0)
            idx = int(np.searchsorted(pooled_grid[j], level))
            return float(grid[min(idx, grid.size - 1)])

        lo1 = np.array([quantile(j, 0.5 - se_f[j]) for j in range(n_eps)])
        hi1 = np.array([quantile(j, 0.5 + se_f[j]) for j in range(n_eps)])
        ses["median_rank"] = (hi1 - lo1) / 2
        bands["median_rank"] = (np.minimum(median, [quantile(j, 0.5 - BAND_SE * se_f[j]) for j in range(n_eps)]),
                                np.maximum(median, [quantile(j, 0.5 + BAND_SE * se_f[j]) for j in range(n_eps)]))
    else:
        ses["median_rank"] = np.zeros(n_eps)
        bands["median_rank"] = (median.copy(), median.copy())
    return values, ses, bands, per_word
