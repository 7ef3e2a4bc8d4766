"""Choosing epsilon before a deployment: what privacy and what utility each mechanism gives on
*your* words over a grid of epsilons, with standard errors, and the inverse questions ("the
smallest epsilon that meets my utility target", "the largest epsilon that keeps my privacy
floor").

Privacy statistics are the plausible-deniability statistics of Feyisetan et al. (WSDM 2020;
spec dx-text §7): for a word w and many runs of the mechanism, N_w = the fraction of runs whose
output is w itself and S_w = the number of distinct outputs; high N_w / low S_w = weak
deniability. Ranks are the paper's (spec §2): rank 0 = the word itself, 1..K = close
neighbours. Budgets compose (spec §1): a sentence of L sanitised words spends L·eps.

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
`ranks.output_ranks`): cost is linear in words x epsilons x samples. Mechanisms with exact
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

import csv
import io
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.words.experiments import MAX_EPSILONS, SWEEP_QUERIES, parse_epsilons
from privlib.words.mechanisms import Mechanism, make_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE, neighbour_ranks, output_ranks
from privlib.words.text import (
    MAX_CHARACTERS,
    NUMBER,
    WORD,
    SanitisePolicy,
    stop_words,
    tokenize,
    vocabulary_words,
)

#: Width of every uncertainty band, in standard errors (the inverse questions use the same).
BAND_SE = 2.0
#: Default runs of the mechanism per word and epsilon.
DEFAULT_SAMPLES = 100
#: Default length L of a sentence for the composed budget L·eps.
DEFAULT_SENTENCE_LENGTH = 20
#: Largest number of runs per word and epsilon.
MAX_SAMPLES = 10_000
#: Largest words x epsilons x samples of one mechanism (memory: about 40 bytes per run).
MAX_RUNS = 5_000_000
#: Exact laws: epsilons handled per pass over the words (bounds the pooled rank law in memory).
_EXACT_CELLS = 4_000_000

WORDS, VOCABULARY = "words", "vocabulary"
SCOPES = {
    WORDS: "exactly these words (SE = Monte-Carlo sampling error only)",
    VOCABULARY: "a uniform random sample of the vocabulary (SE = between-word SD / sqrt(words))",
}

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
_PER_WORD = ("unchanged", "close", "within_k", "cosine", "distinct", "effective")
_FRACTIONS = ("unchanged", "close", "within_k")


# ----------------------------------------------------------------------------- words
@dataclass(frozen=True, eq=False)
class WordSet:
    """The words to analyse: distinct vocabulary words and their rows, the scope of the
    standard errors (`SCOPES`), where they came from, and the distinct input words that are
    not in the vocabulary (reported, never used)."""

    words: tuple
    rows: np.ndarray = field(repr=False)
    scope: str = WORDS
    source: str = "word list"
    unknown: tuple = ()
    seed: int | None = None  # the seed of a random sample

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {self.scope!r}.")
        if not self.words:
            raise ValueError("None of the words is in the vocabulary: give at least one vocabulary word.")
        if self.scope == VOCABULARY and len(self.words) < 2:
            raise ValueError("A random sample needs at least 2 words (its standard errors compare words).")

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def from_text(cls, text: str, space, policy=None, source: str = "text") -> "WordSet":
        """The distinct words `privlib.words.text.sanitize` would sanitise in ``text`` (any text, or a
        word list one per line), via `privlib.words.text.vocabulary_words`, in order of appearance;
        distinct word tokens not in the vocabulary go to ``unknown``. Texts longer than
        `privlib.words.text.MAX_CHARACTERS` are read in chunks of whole lines."""
        if not isinstance(text, str):
            raise ValueError(f"Text must be a string, got {type(text).__name__}.")
        if not text.strip():
            raise ValueError("The text is empty: paste a text or give a list of words.")
        policy = policy or SanitisePolicy()
        found: dict = {}
        unknown: dict = {}
        checked: set = set()
        stops = stop_words() if policy.keep_stop_words else frozenset()
        for chunk in _line_chunks(text, MAX_CHARACTERS):
            for w in vocabulary_words(chunk, space, policy):
                found.setdefault(w, None)
            for tok in tokenize(chunk):
                if (tok.kind == WORD or (tok.kind == NUMBER and policy.sanitise_numbers)) and tok.text not in checked:
                    checked.add(tok.text)
                    if tok.text.lower() not in stops and not vocabulary_words(tok.text, space, policy):
                        unknown.setdefault(tok.text, None)
        return cls._checked(tuple(found), tuple(unknown), space, source)

    @classmethod
    def _checked(cls, words: tuple, unknown: tuple, space, source: str) -> "WordSet":
        if not words:
            if not unknown:
                raise ValueError("There are no words in this input: paste a text or give a list of words.")
            shown = ", ".join(repr(w) for w in unknown[:5])
            raise ValueError(f"None of the {len(unknown):,} distinct words is in the vocabulary of {space.name} "
                             f"({shown}{', …' if len(unknown) > 5 else ''}): check the spelling or the embedding.")
        return cls(words, space.indices(words), WORDS, source, unknown)

    @classmethod
    def from_words(cls, words, space, source: str = "word list") -> "WordSet":
        """Vocabulary words given one by one (exactly as typed, else in lower case), distinct,
        in order; the others go to ``unknown``."""
        if isinstance(words, str):
            words = [words]
        found: dict = {}
        unknown: dict = {}
        for w in words:
            if not isinstance(w, str):
                raise ValueError(f"Words must be strings, got {w!r}.")
            key = w if w in space else (w.lower() if w.lower() in space else None)
            (found if key else unknown).setdefault(key or w, None)
        return cls._checked(tuple(found), tuple(unknown), space, source)

    @classmethod
    def random(cls, space, count: int, seed: int | None = None) -> "WordSet":
        """``count`` distinct words drawn uniformly from the whole vocabulary (scope
        "vocabulary"), in row order. The draw uses its own stream, derived from ``seed``
        ([seed, 1]), so it never shares random numbers with the mechanism runs; seed None draws
        a fresh seed, recorded in ``seed``."""
        count = check_positive_int(count, "number of random words", minimum=2, maximum=len(space))
        seed = _fresh_seed() if seed is None else _check_seed(seed)
        rng = np.random.default_rng([seed, 1])
        rows = np.sort(rng.choice(len(space), size=count, replace=False))
        return cls(tuple(space.words[r] for r in rows), rows, VOCABULARY,
                   f"random sample of {count:,} of the {len(space):,} vocabulary words (seed {seed})", (), seed)

    def to_dict(self) -> dict:
        return {"words": list(self.words), "count": len(self.words), "scope": self.scope, "source": self.source,
                "unknown": list(self.unknown), "seed": self.seed}


def _line_chunks(text: str, limit: int):
    """``text`` cut at line ends into pieces of at most ``limit`` characters (a longer single
    line is left whole, for `vocabulary_words` to refuse with its own message)."""
    if len(text) <= limit:
        yield text
        return
    piece, size = [], 0
    for line in text.splitlines(keepends=True):
        if size + len(line) > limit and piece:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(line)
        size += len(line)
    if piece:
        yield "".join(piece)


def _fresh_seed() -> int:
    return int(np.random.default_rng().integers(2**31))


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative whole number, got {seed!r}.")
    return int(seed)


# ----------------------------------------------------------------------------- arguments
def epsilon_grid(epsilons) -> np.ndarray:
    """A grid of epsilons, sorted ascending without duplicates: a string as
    `experiments.parse_epsilons` reads it ("1:30", "1:30:0.5", "0.5,1,2") or numbers."""
    if isinstance(epsilons, str):
        values = parse_epsilons(epsilons)
    else:
        values = np.array([check_epsilon(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=object))],
                          dtype=np.float64)
    if values.size == 0:
        raise ValueError("The epsilon grid is empty: give at least one epsilon, e.g. 1:30.")
    if values.size > MAX_EPSILONS:
        raise ValueError(f"The grid has {values.size:,} epsilons; the limit is {MAX_EPSILONS:,}.")
    return np.unique(values)


def resolve_mechanism(spec):
    """A `Mechanism` from an instance, a registered name, or (name, parameters) with parameters
    a dict or ((key, value), ...) pairs (the page's hashable form)."""
    if isinstance(spec, Mechanism):
        return spec
    if isinstance(spec, str):
        return make_mechanism(spec)
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str):
        return make_mechanism(spec[0], **dict(spec[1]))
    raise ValueError(f"A mechanism must be a Mechanism, a mechanism name or (name, parameters), got {spec!r}.")


def _word_set(words, space) -> WordSet:
    if isinstance(words, WordSet):
        return words
    if isinstance(words, (int, np.integer)) and not isinstance(words, bool):
        raise ValueError("For a random sample of the vocabulary use WordSet.random(space, count, seed).")
    ws = WordSet.from_words(list(words) if not isinstance(words, str) else [words], space)
    if ws.unknown:
        space.index(ws.unknown[0])  # raises with the vocabulary's own message and hint
    return ws


# ----------------------------------------------------------------------------- results
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
            "close": self.close, "epsilons": _floats(self.epsilons),
            "values": {k: _floats(v) for k, v in self.values.items()},
            "standard_errors": {k: _floats(v) for k, v in self.standard_errors.items()},
            "bands": {k: {"low": _floats(lo), "high": _floats(hi)} for k, (lo, hi) in self.bands.items()},
        }


def _floats(a) -> list:
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def mechanism_metrics(space, words, epsilons, mechanism="multivariate-laplace", samples: int = DEFAULT_SAMPLES,
                      close: int = DEFAULT_CLOSE, rng=None, progress=None) -> MechanismMetrics:
    """Privacy and utility metrics of ``mechanism`` for ``words`` at each epsilon of the grid
    (module docstring: definitions, exact laws, standard errors).

    ``words``: a `WordSet` (its scope decides the standard errors) or vocabulary words (scope
    "words"). ``epsilons``: see `epsilon_grid`. ``samples`` (>= 2): runs per word and epsilon
    for sampled mechanisms, and the run count of the expected S_w for exact ones. ``close``: K.
    ``rng``: seed or Generator (same seed, same numbers). ``progress(fraction, message)``.
    """
    mech = resolve_mechanism(mechanism)
    ws = _word_set(words, space)
    eps = epsilon_grid(epsilons)
    samples = check_positive_int(samples, "samples", minimum=2, maximum=MAX_SAMPLES)
    close = check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)
    runs = len(ws) * eps.size * samples
    if not mech.has_exact_probabilities and runs > MAX_RUNS:
        raise ValueError(f"{len(ws):,} words x {eps.size:,} epsilons x {samples:,} samples = {runs:,} runs; "
                         f"the limit is {MAX_RUNS:,}: use fewer words, epsilons or samples.")
    report = progress or (lambda fraction, message: None)
    rng = as_generator(rng)
    if mech.has_exact_probabilities:
        values, ses, bands, per_word = _exact_metrics(space, ws, eps, mech, samples, close, report)
    else:
        values, ses, bands, per_word = _sampled_metrics(space, ws, eps, mech, samples, close, rng, report)
    report(1.0, f"{mech.label}: done")
    for d in (values, ses, per_word):
        for a in d.values():
            a.flags.writeable = False
    return MechanismMetrics(mech.name, mech.label, dict(mech.parameters), mech.guarantee,
                            bool(mech.has_exact_probabilities), eps, ws.words, ws.scope, samples, close,
                            values, ses, bands, per_word)


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
        if name in _FRACTIONS:
            lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
        elif name == "cosine":
            lo, hi = np.clip(lo, -1, 1), np.clip(hi, -1, 1)
        bands[name] = (lo, hi)
    return values, ses, bands


def _wilson(p, n: int, z: float):
    """Wilson score interval (low, high) for a binomial fraction p of n trials."""
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _sampled_metrics(space, ws: WordSet, eps, mech, samples: int, close: int, rng, report):
    rows, m, n_eps, s = ws.rows, len(ws), eps.size, samples
    inputs = np.repeat(rows, s)
    outputs = np.empty((n_eps, inputs.size), dtype=np.int64)
    per_batch = max(1, SWEEP_QUERIES // inputs.size)
    for j0 in range(0, n_eps, per_batch):  # one sample_many call serves a batch of epsilons
        e = eps[j0:j0 + per_batch]
        outputs[j0:j0 + e.size] = mech.sample_many(space, np.tile(inputs, e.size), np.repeat(e, inputs.size),
                                                    rng).reshape(e.size, inputs.size)
        report(0.85 * (j0 + e.size) / n_eps, f"{mech.label}: ran ε = {e[-1]:g} ({j0 + e.size}/{n_eps})")
    outputs = outputs.reshape(n_eps, m, s).transpose(1, 0, 2)  # (word, epsilon, run)
    ranks = output_ranks(space, np.repeat(rows, n_eps * s), outputs.ravel(),
                         progress=lambda done, total: report(0.85 + 0.1 * done / total,
                                                             f"{mech.label}: ranked {done}/{total} words")
                         ).reshape(m, n_eps, s)

    per_word, var = {}, {}
    for name, hit in (("unchanged", ranks == 0), ("close", (ranks >= 1) & (ranks <= close)),
                      ("within_k", ranks <= close)):
        p = hit.mean(axis=2)
        per_word[name], var[name] = p, p * (1 - p) / s
    # cosine similarity of each output with its input (1 for an unchanged word)
    norms = np.sqrt(space.sq_norms)
    cos = np.empty(outputs.shape)
    for i, row in enumerate(rows):
        x = space.vectors[row].astype(np.float64)
        out = outputs[i]
        c = (space.vectors[out.ravel()] @ x).reshape(out.shape) / np.maximum(norms[out] * norms[row], 1e-300)
        c[out == row] = 1.0
        cos[i] = np.clip(c, -1.0, 1.0)
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

    values, ses, bands = _aggregate(per_word, var, ws.scope)
    # the most-kept word: its binomial SE; band from the words' Wilson intervals
    kept = per_word["unchanged"]
    top = kept.argmax(axis=0)
    values["unchanged_max"] = kept.max(axis=0)
    ses["unchanged_max"] = np.sqrt(var["unchanged"][top, np.arange(n_eps)])
    w_lo, w_hi = _wilson(kept, s, BAND_SE)
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
    per_word = {name: np.empty((m, n_eps)) for name in _PER_WORD}
    grid = _rank_grid(n)
    cdf_grid = np.empty((m, n_eps, grid.size))
    median = np.empty(n_eps)
    chunk = max(1, _EXACT_CELLS // n)  # epsilons per pass: the pooled rank law is chunk x N
    norms = np.sqrt(space.sq_norms)
    passes = -(-n_eps // chunk)
    for k, j0 in enumerate(range(0, n_eps, chunk)):
        js = range(j0, min(j0 + chunk, n_eps))
        pooled = np.zeros((len(js), n))
        for i, row in enumerate(rows):
            order = neighbour_ranks(space, int(row)).order
            x = space.vectors[row].astype(np.float64)
            cos = np.concatenate([space.vectors[a:a + 65536] @ x for a in range(0, n, 65536)])  # float64
            cos /= np.maximum(norms * norms[row], 1e-300)
            cos[row] = 1.0
            np.clip(cos, -1.0, 1.0, out=cos)
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


# ----------------------------------------------------------------------------- targets
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
        if self.keep_statistic not in ("max", "mean"):
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
                "recommended_epsilons": _floats(self.epsilons[self.recommended]),
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
    if metric in _FRACTIONS or metric == "unchanged_max":
        return f"{float(value):.0%}"
    return f"{float(value):.3g}"


# ----------------------------------------------------------------------------- the whole analysis
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
        """Composed budget of an L-word sentence at each grid epsilon: L·eps (spec §1)."""
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
            "embedding": dict(self.embedding), "words": self.words.to_dict(), "epsilons": _floats(self.epsilons),
            "samples": self.samples, "close": self.close, "sentence_length": self.sentence_length,
            "budget": _floats(self.budget), "seed": self.seed, "targets": self.targets.to_dict(),
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
                                 **{name: float(r.per_word[name][i, j]) for name in _PER_WORD}})
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
                   progress=None) -> EpsilonChoice:
    """The whole analysis: `mechanism_metrics` for each mechanism, then `answer` for the
    targets. ``mechanisms``: names, `Mechanism` instances or (name, parameters).

    Each mechanism runs on a fresh generator from ``seed`` (so its numbers do not depend on
    which other mechanisms are compared); seed None draws a fresh seed, recorded in the result
    so the analysis can be reproduced.
    """
    seed = _fresh_seed() if seed is None else _check_seed(seed)
    ws = _word_set(words, space)
    single = isinstance(mechanisms, (str, Mechanism))
    mechs = [resolve_mechanism(m) for m in ([mechanisms] if single else mechanisms)]
    report = progress or (lambda fraction, message: None)
    results = []
    for i, mech in enumerate(mechs):
        results.append(mechanism_metrics(
            space, ws, epsilons, mech, samples, close, rng=seed,
            progress=lambda f, msg, i=i: report(min(1.0, (i + f) / len(mechs)), msg)))
    return assemble_choice(space, ws, results, targets, sentence_length, seed)
