"""What an attacker learns from a sanitised word: re-identification among the N most frequent words.

The game (spec "attacks and audits" §2–§3, Words). A secret word w is drawn from a prior π over
the candidates — the N most frequent words of the space (default 2,000; GloVe's rows are in
frequency order), π uniform or Zipf (π_r ∝ 1/r, a proxy for word frequencies) — and sanitised
once; the attacker sees the output o (a row of the whole vocabulary: outputs and the mechanism's
normalisers use its full vocabulary) and names one candidate.

* **Bayes re-identification** (exact, for the mechanisms with an exact output law: SanText,
  SanText+, TEM, CusText): the best attacker's success is Σ_o max_w π_w P(o | w) (guess the
  posterior argmax for each output; Wasserman & Zhou 2010, Chatzikokolakis et al. 2013). No
  attacker who sees one output does better; `BayesAttack.posterior` gives each output's posterior.
* **Guess the output itself**: success Σ_w π_w P(M(w) = w) — the naive attacker who names the
  output word (0 when the output is not a candidate).
* **The prior baseline** π_max: naming the most likely candidate without looking at the output.
* **A sampled attack** (any mechanism; the only one for the multivariate Laplace mechanism, the
  post-processing fix, Mahalanobis and Vickrey, which have no closed-form law): likelihoods are
  estimated from one set of samples (m outputs per candidate) — the distance rule's P̂(o | w) ∝
  e^{−β d(w, o)}, β chosen on them (`DistanceRule`), or the samples' own counts (`CountRule`),
  whichever names more of them (`fit_rule`) —, the decision rule is fixed, and it is scored on
  fresh runs (inputs drawn from π) with a binomial (Wilson) interval. It is one attacker, so its
  success is a lower bound on the best attacker's; scored on its own fitting samples the count
  rule overstates (`SampledAttack.in_sample`).

Success against ε beside a utility measure — the share of outputs that are a close neighbour of
the input (rank 1..K, K = 100, `privlib.words.neighbours`), the paper's Fig. 2 measure — is the
frontier (`attack_frontier`); ε values compare only within the Euclidean d_X family.

The §2 bounds under Euclidean ε·d_X-privacy (the LP over the candidates, its cheap dual bound, the
closed form) are `privlib.core.risk`'s; `metric_bounds` gives them for the candidates of a space
and `attack_frontier` carries one of them per ε (``bound``).

The attacker's view (what the Neighbour ranks page and the ``word-attack`` command show, from the
same calls): `candidate_guarantee` (which guarantee covers re-identification among the candidates —
ε·d_X, Mahalanobis' Euclidean corollary, pure ε within one CusText group, or none: SanText+'s kept
words, CusText across groups) and `guarantee_bound` (its dual metric bound, or the pure-ε bound
with the prior); `attacker_view` (one attack at one ε with its bound and `attack_sentence`);
`attack_curve` (success against ε with the bound at each ε); `largest_epsilon_under` (the largest
ε of the grid that keeps the attack under a target, by the bound and by the measured attack);
`pair_tradeoff` (one pair of words: the guarantee's trade-off curve, the exact curve or a sampled
test's ROC); `attack_seconds` (how long the attacks take, before they run).

Cost. The exact attacks compute each candidate's distances to the whole vocabulary in blocks of
`block_rows` rows (a block of B × V float64 values, at most `BLOCK_BYTES`; two such buffers live),
and for each ε one exp pass over the block: about N·V·(dim + 10·E) operations for E epsilons, the
distance product dominating for one ε. Measured (bench/bench_word_attacks.py, 2,000 candidates,
one ε, CPU seconds of the 2-core Xeon, which a loaded machine stretches less than wall time):
SanText ~2.3 s CPU on a 50,000-word vocabulary, scaling linearly with V — ~20 s for all 400,000
GloVe words, so the 5 s of a page is met by the mechanism running on a vocabulary of up to about
50,000 words (the page's "Vocabulary size"), not on the whole of GloVe. CusText's law is sparse
(each word's output set is its group of K words): it costs only its groups, built once per space
(`CusText.groups`, ~9 s on all of GloVe).

The sampled attack costs its N·m + runs outputs of the mechanism — for the multivariate Laplace
mechanism one exact nearest-word search each, ~0.6 ms CPU over all 400,000 GloVe words (float32
products at the machine's pace, re-checked in float64: `privlib.words.search.ExactSearch`) — and the
close table when its close-neighbour share is read (~3.7 s CPU for 2,000 candidates of all GloVe).
At the page's defaults (2,000 candidates, m = 1, 4,000 runs: 6,000 searches) the attacker's view
takes ~4–5 s CPU (bench/bench_word_attack_view.py), where the former 20 samples per word and as many
runs (80,000 searches, and the close table) took ~65 s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privlib.core.statistics import binomial_standard_error, wilson_interval
from privlib.core.sweep import Progress, child_rng
from privlib.core.validation import check_epsilons, check_positive_int, check_seed, shown
from privlib.words.kernel_costs import STORED_KERNEL_NANOSECONDS, untimed_nanoseconds
from privlib.words.mechanisms import TEM, CusText, Mechanism, SanText, SanTextPlus, resolve_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE

#: Default number of candidates (the most frequent words).
DEFAULT_CANDIDATES = 2000
#: The priors over the candidates: uniform, or Zipf (π_r ∝ 1/r: a proxy for word frequencies).
PRIORS = ("uniform", "zipf")
#: Largest float64 block of candidate-to-vocabulary values held at once (two such buffers live).
BLOCK_BYTES = 128 * 2**20
#: Default outputs per candidate that fit a sampled attack. One, not the former 20: the distance rule
#: (`DistanceRule`) needs them only to choose β, and with 20 the count rule still named fewer words than the
#: distance rule does with none (GloVe 6B 50d, 400,000 words, 2,000 candidates, the multivariate Laplace
#: mechanism: bench/bench_word_attack_view.py); the searches of 40,000 + 40,000 noisy points over 400,000 words
#: (~50 s CPU) were the attacker's view's cost.
DEFAULT_SAMPLES_PER_WORD = 1
#: Default fresh runs that score a sampled attack: as many as the fitting samples (N·m), at least this many
#: (a binomial standard error of at most 0.5/√4,000 ≈ 0.8 points).
DEFAULT_RUNS = 4000
#: Width of the intervals reported with the sampled attacks, in standard errors.
INTERVAL_Z = 2.0
#: The sampled attack's shrinkages f to choose from (`CountRule`): 0 = counts alone, 1000 ≈ the prior alone.
SHRINKAGES = (0.0, 0.001, 0.01, 0.1, 1.0, 10.0, 1000.0)
#: Columns sampled to bound a word's K-th nearest distance before the exact partition.
NEAREST_SAMPLE = 4096
#: The mechanisms whose exact law the Bayes attack uses.
EXACT_MECHANISMS = (SanText, SanTextPlus, TEM, CusText)


# ----------------------------------------------------------------------------- candidates
@dataclass(frozen=True, eq=False)
class Candidates:
    """The N most frequent words (rows 0..N−1 of the space: candidate index = row) and a prior."""

    count: int
    prior_name: str
    prior: np.ndarray

    @property
    def rows(self) -> np.ndarray:
        return np.arange(self.count, dtype=np.int64)

    @property
    def prior_baseline(self) -> float:
        """π_max: the success of naming the most likely candidate without looking at the output."""
        return float(self.prior.max())

    @property
    def label(self) -> str:
        kind = "uniform prior" if self.prior_name == "uniform" else "Zipf prior (π_r ∝ 1/r, a proxy for frequencies)"
        return f"the {self.count:,} most frequent words, {kind}"


def word_candidates(space, count: int = DEFAULT_CANDIDATES, prior: str = "uniform") -> Candidates:
    """The ``count`` most frequent words of ``space`` (its first rows) with the prior ``prior``:
    "uniform" (π_w = 1/N) or "zipf" (π_r ∝ 1/r for the word of rank r = 1..N, a proxy: the
    frequencies of the words themselves are not in the embedding)."""
    count = check_positive_int(count, "count (number of candidate words)", minimum=2, maximum=len(space))
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {shown(prior)}.")
    if prior == "uniform":
        weights = np.full(count, 1.0 / count)
    else:
        weights = 1.0 / np.arange(1, count + 1, dtype=np.float64)
        weights /= weights.sum()
    weights.flags.writeable = False
    return Candidates(count, prior, weights)


def _candidates(space, candidates, prior) -> Candidates:
    if isinstance(candidates, Candidates):
        if candidates.count > len(space):
            raise ValueError(f"{candidates.count:,} candidates, but the space has only {len(space):,} words.")
        return candidates
    # the default: the 2,000 most frequent words, or the whole vocabulary of a smaller space
    return word_candidates(space, min(DEFAULT_CANDIDATES, len(space)) if candidates is None else candidates, prior)


def close_neighbours(space, count: int, close: int = DEFAULT_CLOSE) -> np.ndarray:
    """The neighbour order's first ``close`` + 1 rows for each of the first ``count`` rows, shape
    (count, close + 1): column 0 the word itself, columns 1..K its close neighbours (rank 1..K of
    `privlib.words.neighbours`: by squared distance, ties by row). Built once per space and
    kept with it (`EmbeddingSpace.derived`)."""
    count = check_positive_int(count, "count", minimum=1, maximum=len(space))
    close = _close(space, close)
    holder = _close_holder(space, count, close)
    if "table" not in holder:
        holder["table"] = _close_table(space, count, close)
    return holder["table"]


def _close(space, close) -> int:
    """K, the close-neighbour cut-off: `DEFAULT_CLOSE` (the paper's 100, at most V − 1) for None."""
    if close is None:
        return min(DEFAULT_CLOSE, len(space) - 1)
    return check_positive_int(close, "close (K)", minimum=1, maximum=len(space) - 1)


def _close_holder(space, count: int, close: int) -> dict:
    """The space's cache entry for the table: a dict, filled by whichever computation gets there
    first (`close_neighbours`, or the exact attacks' own pass over the same distances)."""
    return space.derived(("word-attacks-close", count, close), dict)


def _close_table(space, count: int, close: int) -> np.ndarray:
    """The first K + 1 words of each candidate's neighbour order: `privlib.words.neighbours.neighbour_order_prefixes`
    (on a large vocabulary a float32 pre-selection certified exact, with the float64 order of `neighbour_ranks`
    where it cannot certify: 2,000 candidates of all GloVe 6B 50d in ~3.7 s CPU, against ~15 s for the float64
    distance rows of every candidate partitioned by `_nearest_rows`; 0.75 s against 1.6 s on 50,000 words)."""
    from privlib.words.neighbours import neighbour_order_prefixes

    table = np.empty((count, close + 1), dtype=np.int64)
    # "fast" on every vocabulary ("auto" takes the float64 rows one by one up to 50,000 words: 10 s CPU for
    # 2,000 candidates of 50,000 words, against 0.75 s; 0.2 s against 0.14 s on 2,000 words)
    for i, prefix in neighbour_order_prefixes(space, np.arange(count, dtype=np.int64), close + 1, method="fast"):
        table[i] = prefix
    table.flags.writeable = False
    return table


def _nearest_rows(sq: np.ndarray, rows: np.ndarray, close: int) -> np.ndarray:
    """Ranks 0..K of each row of squared distances ``sq`` (the word itself first, then by
    distance, ties by row: the stable order of `privlib.words.neighbours.neighbour_ranks`)."""
    out = np.empty((rows.size, close + 1), dtype=np.int64)
    stride = max(1, sq.shape[1] // NEAREST_SAMPLE)
    for i, row in enumerate(rows):
        d = sq[i]
        kept = d[row]
        d[row] = -1.0
        # the (K+1)-th smallest of a strided sample bounds the row's own from above: partition
        # only the words below it (a full partition of 400,000 values per word is ~10 x slower)
        sample = d[::stride]
        near = np.flatnonzero(d <= np.partition(sample, close)[close]) if sample.size > close else np.arange(d.size)
        kth = np.partition(d[near], close)[close]
        near = near[d[near] <= kth]
        out[i] = near[np.lexsort((near, d[near]))][:close + 1]
        d[row] = kept
    return out


def block_rows(vocabulary: int) -> int:
    """Candidates per block: a block of candidates × vocabulary float64 values within `BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // (8 * int(vocabulary)))


def candidate_distances(space, count: int) -> np.ndarray:
    """Euclidean distances between the first ``count`` words, a (count × count) float64 matrix
    (the library's formula, made exactly symmetric with a zero diagonal)."""
    count = check_positive_int(count, "count", minimum=1, maximum=len(space))
    rows = np.arange(count, dtype=np.int64)
    d = _pair_distances(space, rows, rows)
    d = (d + d.T) / 2.0
    np.fill_diagonal(d, 0.0)
    return d


def metric_bounds(space, epsilon: float, *, candidates=None, prior: str = "uniform", lp: bool = True):
    """The §2 bounds on re-identification among the candidates under ε·d_X-privacy with Euclidean d
    (the guarantee of the multivariate Laplace mechanism, the post-processing fix, Vickrey, SanText
    and TEM; not Mahalanobis, whose d is its own, nor SanText+'s kept words or CusText across
    groups): `privlib.core.risk.metric_reidentification_bounds` over the candidates' distances —
    the LP (when ``lp``; seconds for a few hundred candidates, 6–45 s for 2,000), the cheap dual
    bound and the closed form."""
    from privlib.core.risk import metric_reidentification_bounds

    cand = _candidates(space, candidates, prior)
    return metric_reidentification_bounds(cand.prior, candidate_distances(space, cand.count), epsilon, lp=lp)


# ----------------------------------------------------------------------------- exact laws
def _pair_distances(space, w_rows: np.ndarray, o_rows: np.ndarray) -> np.ndarray:
    """Euclidean distances between each candidate ``w_rows`` and each output ``o_rows`` (grid,
    shape (len(w), len(o))), by the library's formula ||a||² + ||b||² − 2<a, b> in float64 from the
    float32 vectors, clipped at 0, and exactly 0 from a word to itself."""
    dots = space.vectors[w_rows].astype(np.float64) @ space.vectors[o_rows].astype(np.float64).T
    sq = space.sq_norms[w_rows][:, None] + space.sq_norms[o_rows][None, :] - 2.0 * dots
    d = np.sqrt(np.maximum(sq, 0.0))
    d[w_rows[:, None] == o_rows[None, :]] = 0.0
    return d


class _DenseLaw:
    """The exact law of SanText, TEM or SanText+ for candidate blocks: ``block`` writes
    P(o | w) for every output o into a buffer (and keeps the per-candidate constants ``pairs``
    needs); ``pairs`` gives P(o | w) on a grid of candidates × outputs from those constants."""

    def __init__(self, mechanism, space, epsilon: float, count: int):
        self.mechanism, self.space, self.epsilon = mechanism, space, epsilon
        self.n = len(space)
        self.log_z = np.empty(count)  # log normaliser of each candidate's (shifted) weights
        self.shift = np.zeros(count)  # the distance subtracted before exp (keeps exp <= 1)
        if isinstance(mechanism, TEM):
            self.gamma = mechanism.threshold(self.n, epsilon)
        if isinstance(mechanism, SanTextPlus):
            self.first = self.n - mechanism.sensitive_count(self.n)
            self.p = mechanism.p

    def _effective(self, d):
        """The distance the exponent uses: d (SanText, SanText+) or min(d, γ) (TEM)."""
        return np.minimum(d, self.gamma) if isinstance(self.mechanism, TEM) else d

    def block(self, d: np.ndarray, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
        """P(o | w) for the candidates ``rows`` (distances ``d`` to every word, d(w, w) = 0) in ``out``."""
        half = 0.5 * self.epsilon
        if isinstance(self.mechanism, SanTextPlus):
            return self._block_plus(d, rows, out)
        if isinstance(self.mechanism, TEM):
            np.minimum(d, self.gamma, out=out)
            shift = min(0.0, self.gamma)  # the smallest effective distance (the word itself)
            out -= shift
            self.shift[rows] = shift
            out *= -half
        else:
            np.multiply(d, -half, out=out)
        np.exp(out, out=out)
        z = out.sum(axis=1)
        out /= z[:, None]
        self.log_z[rows] = np.log(z)
        return out

    def _block_plus(self, d, rows, out):
        first, half = self.first, 0.5 * self.epsilon
        out[:, :first] = 0.0
        sensitive = d[:, first:]
        shift = sensitive.min(axis=1)  # 0 for a sensitive word (itself), the nearest sensitive word's otherwise
        np.subtract(sensitive, shift[:, None], out=out[:, first:])
        out[:, first:] *= -half
        np.exp(out[:, first:], out=out[:, first:])
        z = out[:, first:].sum(axis=1)
        out[:, first:] /= z[:, None]
        self.log_z[rows], self.shift[rows] = np.log(z), shift
        kept = rows < first  # non-sensitive: itself with probability 1 − p, else the law over V_S
        if kept.any():
            out[kept, first:] *= self.p
            out[np.flatnonzero(kept), rows[kept]] = 1.0 - self.p
        return out

    def pairs(self, w_rows: np.ndarray, o_rows: np.ndarray) -> np.ndarray:
        """P(o | w) on the grid candidates ``w_rows`` × outputs ``o_rows`` (after ``block`` has run
        for those candidates)."""
        d = _pair_distances(self.space, w_rows, o_rows)
        log_p = -0.5 * self.epsilon * (self._effective(d) - self.shift[w_rows][:, None]) - self.log_z[w_rows][:, None]
        p = np.exp(log_p)
        if isinstance(self.mechanism, SanTextPlus):
            first = self.first
            kept = (w_rows < first)[:, None]
            p = np.where(kept, self.p * p, p)
            p[:, o_rows < first] = 0.0
            same = (w_rows[:, None] == o_rows[None, :]) & kept
            p[same] = 1.0 - self.p
        return p


def check_custext_candidates(mechanism: CusText, space, count: int) -> None:
    """ValueError unless CusText maps every one of the ``count`` candidates (its ``vocab_limit``)."""
    mapped = mechanism.vocab_limit if mechanism.vocab_limit is not None else len(space)
    if count > min(mapped, len(space)):
        raise ValueError(f"CusText maps only the {min(mapped, len(space)):,} most frequent words (vocab_limit): "
                         f"choose at most that many candidates, or raise vocab_limit.")


class _GroupLaw:
    """CusText's exact law: each word's outputs are its group Y (K words); u(x, y) =
    −(d(x, y) − min_Y d(x, ·))/(max_Y d(x, ·) − min_Y d(x, ·)) (0 when max = min) and
    P(y | x) ∝ e^{ε u(x, y)/2} over Y (`privlib.words.mechanisms.CusText`)."""

    def __init__(self, mechanism: CusText, space, epsilons: np.ndarray, count: int):
        self.mechanism, self.space, self.epsilons = mechanism, space, epsilons
        check_custext_candidates(mechanism, space, count)
        self.groups = mechanism.groups(space)
        self.low = np.empty(count)
        self.high = np.empty(count)
        self.log_z = np.empty((epsilons.size, count))

    def group_laws(self, members: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """P(y | x) for x in ``inputs`` (candidates of the group) and y in ``members`` (the
        group), for every ε: shape (E, len(inputs), len(members))."""
        d = _pair_distances(self.space, inputs, members)
        low, high = d.min(axis=1), d.max(axis=1)
        spread = high - low
        u = np.where(spread[:, None] > 0, -(d - low[:, None]) / np.where(spread > 0, spread, 1.0)[:, None], 0.0)
        self.low[inputs], self.high[inputs] = low, high
        weights = np.exp(0.5 * self.epsilons[:, None, None] * u[None])  # u <= 0: no overflow
        z = weights.sum(axis=2)
        self.log_z[:, inputs] = np.log(z)
        return weights / z[:, :, None]

    def pairs(self, j: int, w_rows: np.ndarray, o_rows: np.ndarray) -> np.ndarray:
        """P(o | w) at ε number ``j`` on the grid candidates × outputs (after `group_laws`)."""
        d = _pair_distances(self.space, w_rows, o_rows)
        spread = (self.high - self.low)[w_rows][:, None]
        u = np.where(spread > 0, -(d - self.low[w_rows][:, None]) / np.where(spread > 0, spread, 1.0), 0.0)
        p = np.exp(0.5 * self.epsilons[j] * u - self.log_z[j, w_rows][:, None])
        same_group = self.groups.group_of[w_rows][:, None] == self.groups.group_of[o_rows][None, :]
        return np.where(same_group, p, 0.0)


@dataclass(frozen=True, eq=False)
class BayesAttack:
    """The exact attacks on one mechanism at one ε over the candidates (all exact: no standard error).

    ``success``: the Bayes attacker's Σ_o max_w π_w P(o | w); ``guess_output``: Σ_w π_w P(M(w) = w);
    ``prior_baseline``: π_max; ``close``: Σ_w π_w P(rank of the output among w's neighbours is
    1..K) (utility; K = ``settings["close"]``). `posterior` and `guesses` give the attacker's view of
    any outputs."""

    mechanism: str
    label: str
    epsilon: float
    candidates: Candidates
    success: float
    guess_output: float
    close: float
    settings: dict
    _likelihood: object = field(repr=False)

    standard_error: float = 0.0

    @property
    def prior_baseline(self) -> float:
        return self.candidates.prior_baseline

    @property
    def advantage(self) -> float:
        """Success above the prior baseline (points of probability)."""
        return self.success - self.prior_baseline

    def likelihoods(self, outputs) -> np.ndarray:
        """P(o | w) for every candidate w (rows) and each output of ``outputs`` (rows or words;
        columns): at most 4·`BLOCK_BYTES` of values at once (`guesses` takes any number)."""
        outputs = _output_rows(outputs, self._likelihood.space)
        if 8 * outputs.size * self.candidates.count > 4 * BLOCK_BYTES:
            raise ValueError(f"{outputs.size:,} outputs × {self.candidates.count:,} candidates is too large at once: "
                             f"ask for at most {4 * BLOCK_BYTES // (8 * self.candidates.count):,} outputs per call.")
        return self._likelihood(self.candidates.rows, outputs)

    def posterior(self, outputs) -> np.ndarray:
        """P(w | o) over the candidates (rows) for each output of ``outputs`` (columns); a column of
        NaN for an output no candidate produces."""
        joint = self.candidates.prior[:, None] * self.likelihoods(outputs)
        total = joint.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, joint / total, np.nan)

    def guesses(self, outputs) -> np.ndarray:
        """The Bayes attacker's guess (a candidate row, the most frequent on ties) for each output
        (any number of outputs: computed in blocks)."""
        outputs = _output_rows(outputs, self._likelihood.space)
        step = max(1, BLOCK_BYTES // (8 * self.candidates.count))
        out = np.empty(outputs.size, dtype=np.int64)
        for start in range(0, outputs.size, step):
            chunk = outputs[start:start + step]
            joint = self.candidates.prior[:, None] * self._likelihood(self.candidates.rows, chunk)
            out[start:start + step] = np.argmax(joint, axis=0)
        return out

    def rule_success(self, rule) -> float:
        """The exact success of any decision rule: Σ_o π_g(o) P(o | g(o)) over every output o of the
        vocabulary, ``rule(outputs)`` giving the guessed candidate row g(o) for an array of output
        rows (e.g. a fitted `SampledAttack.guess`)."""
        space = self._likelihood.space
        total = 0.0
        step = max(1, BLOCK_BYTES // (8 * 64))
        for start in range(0, len(space), step):
            outputs = np.arange(start, min(start + step, len(space)), dtype=np.int64)
            guessed = np.asarray(rule(outputs), dtype=np.int64)
            for value in np.unique(guessed):
                chosen = outputs[guessed == value]
                p = self._likelihood(np.array([value]), chosen)[0]
                total += float(self.candidates.prior[value] * p.sum())
        return total

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "label": self.label, "epsilon": self.epsilon, "exact": True,
                "candidates": self.candidates.count, "prior": self.candidates.prior_name,
                "success": self.success, "standard_error": 0.0, "guess_output": self.guess_output,
                "prior_baseline": self.prior_baseline, "close": self.close, "settings": self.settings}


class _Likelihood:
    """P(o | w) on a grid from one exact law at one ε (what a `BayesAttack` keeps)."""

    def __init__(self, law, space, j: int | None = None):
        self.law, self.space, self.j = law, space, j

    def __call__(self, w_rows, o_rows) -> np.ndarray:
        w_rows = np.asarray(w_rows, dtype=np.int64)
        if self.j is None:
            return self.law.pairs(w_rows, o_rows)
        return self.law.pairs(self.j, w_rows, o_rows)


def _output_rows(outputs, space) -> np.ndarray:
    """Output rows from rows (an integer array, checked at once) or words."""
    array = np.atleast_1d(np.asarray(outputs))
    if array.dtype.kind in "iu":
        if array.size and (array.min() < 0 or array.max() >= len(space)):
            raise ValueError(f"Output rows must be between 0 and {len(space) - 1}.")
        return array.astype(np.int64).ravel()
    return np.array([space.row(o if isinstance(o, str) else int(o)) for o in array.ravel().tolist()], dtype=np.int64)


def _exact_mechanism(mechanism) -> Mechanism:
    mechanism = resolve_mechanism(mechanism)
    exact = isinstance(mechanism, EXACT_MECHANISMS)  # a bad value of a valid type: ValueError
    if not exact:
        names = ", ".join(cls.name for cls in EXACT_MECHANISMS)
        raise ValueError(f"{mechanism.label} has no exact output law: the exact Bayes attack runs on {names}; "
                         "use sampled_attack for the others.")
    return mechanism


def _epsilons(mechanism: Mechanism, epsilons) -> np.ndarray:
    if epsilons is None:
        if mechanism.is_family:
            raise ValueError("Give the epsilon(s): this mechanism is a family (no ε of its own).")
        return np.array([mechanism.epsilon])
    return check_epsilons(epsilons)


def bayes_attacks(space, mechanism, epsilons=None, *, candidates=None, prior: str = "uniform",
                  close: int | None = None, progress: Progress | None = None) -> list[BayesAttack]:
    """The exact attacks (`BayesAttack`) on ``mechanism`` (SanText, SanText+, TEM or CusText: an
    instance, a family, a name or a (name, parameters) pair) at each ε of ``epsilons`` (None: the
    mechanism's own), over ``candidates`` (a `Candidates`, or a count: the most frequent words,
    default 2,000, with ``prior``).

    One pass over the candidates in blocks (`block_rows`): each block's distances to the whole
    vocabulary serve every ε; per ε the block's law P(o | w) (rows summing to 1, normalisers over
    the full vocabulary) updates the running max_w π_w P(o | w) of every output o. Success is the
    sum of those maxima. ``progress(fraction, message)``."""
    mechanism = _exact_mechanism(mechanism)
    eps = _epsilons(mechanism, epsilons)
    cand = _candidates(space, candidates, prior)
    close = _close(space, close)
    report = progress or (lambda fraction, message: None)
    settings = {"close": close, "vocabulary": len(space), "space": space.name}
    if isinstance(mechanism, CusText):
        return _group_attacks(space, mechanism, eps, cand, close, report, settings)
    per_pass = block_rows(len(space))  # the running maxima of a pass: (epsilons × V) within BLOCK_BYTES
    if eps.size > per_pass:
        chunks = [eps[i:i + per_pass] for i in range(0, eps.size, per_pass)]
        results = []
        for k, chunk in enumerate(chunks):
            def part(fraction, message, k=k):
                report((k + fraction) / len(chunks), message)

            results += _dense_attacks(space, mechanism, chunk, cand, close, part, settings)
        return results
    return _dense_attacks(space, mechanism, eps, cand, close, report, settings)


def _dense_attacks(space, mechanism, eps, cand, close, report, settings) -> list[BayesAttack]:
    n, count = len(space), cand.count
    holder = _close_holder(space, count, close)
    table = holder.get("table")
    fill = table is None  # not built yet: built in this pass, from the same distances
    if fill:
        table = np.empty((count, close + 1), dtype=np.int64)
    laws = [_DenseLaw(mechanism, space, float(e), count) for e in eps]
    best = np.zeros((eps.size, n))
    own = np.empty((eps.size, count))
    near = np.empty((eps.size, count))
    step = block_rows(n)
    buffer = np.empty((min(step, count), n))
    for start in range(0, count, step):
        rows = np.arange(start, min(start + step, count), dtype=np.int64)
        d = space.squared_distances(rows)
        if fill:  # the close-neighbour table from the same distances (saves a second pass)
            table[rows] = _nearest_rows(d, rows, close)
        np.sqrt(d, out=d)
        d[np.arange(rows.size), rows] = 0.0
        out = buffer[:rows.size]
        for j, law in enumerate(laws):
            p = law.block(d, rows, out)
            own[j, rows] = p[np.arange(rows.size), rows]
            near[j, rows] = np.take_along_axis(p, table[rows, 1:], axis=1).sum(axis=1)
            p *= cand.prior[rows][:, None]
            np.maximum(best[j], p.max(axis=0), out=best[j])
        report(rows[-1] / count, f"{mechanism.label}: exact laws of {rows[-1] + 1:,} of {count:,} candidates")
    if fill:
        table.flags.writeable = False
        holder["table"] = table
    report(1.0, f"{mechanism.label}: done")
    return [BayesAttack(mechanism.name, mechanism.label, float(e), cand, float(best[j].sum()),
                        float(cand.prior @ own[j]), float(cand.prior @ near[j]), settings,
                        _Likelihood(laws[j], space))
            for j, e in enumerate(eps)]


def _group_attacks(space, mechanism, eps, cand, close, report, settings) -> list[BayesAttack]:
    law = _GroupLaw(mechanism, space, eps, cand.count)
    table = close_neighbours(space, cand.count, close)
    groups = law.groups
    success = np.zeros(eps.size)
    own = np.empty((eps.size, cand.count))
    near = np.empty((eps.size, cand.count))
    ids = np.unique(groups.group_of[cand.rows])
    for i, g in enumerate(ids):
        members = groups.members[groups.offsets[g]:groups.offsets[g + 1]]
        inputs = np.sort(members[members < cand.count])
        p = law.group_laws(members, inputs)  # (E, inputs, members)
        success += (cand.prior[inputs][None, :, None] * p).max(axis=1).sum(axis=1)
        is_self = inputs[:, None] == members[None, :]
        own[:, inputs] = (p * is_self[None]).sum(axis=2)
        is_close = (table[inputs, 1:, None] == members[None, None, :]).any(axis=1)
        near[:, inputs] = (p * is_close[None]).sum(axis=2)
        if i % 64 == 0:
            report(i / ids.size, f"{mechanism.label}: exact laws of {i + 1:,} of {ids.size:,} groups")
    report(1.0, f"{mechanism.label}: done")
    return [BayesAttack(mechanism.name, mechanism.label, float(e), cand, float(success[j]),
                        float(cand.prior @ own[j]), float(cand.prior @ near[j]), settings,
                        _Likelihood(law, space, j))
            for j, e in enumerate(eps)]


def bayes_attack(space, mechanism, epsilon=None, *, candidates=None, prior: str = "uniform",
                 close: int | None = None, progress: Progress | None = None) -> BayesAttack:
    """`bayes_attacks` at one ε (None: the mechanism's own)."""
    return bayes_attacks(space, mechanism, None if epsilon is None else [epsilon], candidates=candidates,
                         prior=prior, close=close, progress=progress)[0]


# ----------------------------------------------------------------------------- the sampled attack
class CountRule:
    """A fitted decision rule of the sampled attack: for an output o, the candidate maximising

        π_w · (c_w(o) + f·(C(o) + 1) + ½·[o = w]),

    c_w(o) the fitting samples of w that gave o, C(o) = Σ_w c_w(o) those of every candidate, f ≥ 0
    the shrinkage. This is the posterior argmax under the estimate P̂(o | w) ∝ c_w(o) + f·(C(o) + 1)
    + ½[o = w] (all words have the same m samples): each word's counts shrunk towards the pooled
    (add-one) output law of every word — with m ≈ 20 samples a count of 1 says little about a
    probability of 1/V, and without shrinkage a rare word seen once would beat a frequent word's
    prior; a large f leaves the prior (under a uniform prior f changes nothing) — plus half a
    pseudo-sample on the word itself, so that an output never seen from any word points to itself
    when it is a candidate. Ties go to the lower row (the more
    frequent word). Why counts and not a kernel on the embedding: these mechanisms output the word
    itself or a few recurring words (hubs), which counts capture exactly, while a kernel needs a
    bandwidth and a distance pass per output."""

    kind = "counts"

    def __init__(self, cand: Candidates, inputs: np.ndarray, outputs: np.ndarray, vocabulary: int, shrinkage: float):
        self.cand, self.vocabulary, self.shrinkage = cand, int(vocabulary), float(shrinkage)
        self.pooled_outputs, pooled = np.unique(outputs, return_counts=True)
        self.pooled = pooled + 1.0  # C(o) + 1
        keys, counts = np.unique(inputs * np.int64(vocabulary) + outputs, return_counts=True)
        owners, seen = keys // vocabulary, keys % vocabulary
        scores = cand.prior[owners] * (counts + self.shrinkage * self._background(seen) + 0.5 * (owners == seen))
        order = np.lexsort((owners, -scores, seen))  # per output: best score first, then the lower row
        seen, scores, owners = seen[order], scores[order], owners[order]
        first = np.concatenate([[True], seen[1:] != seen[:-1]])
        self.seen, self.scores, self.owners = seen[first], scores[first], owners[first]

    @property
    def description(self) -> str:
        return f"the fitting samples' counts, shrunk towards the pooled counts (f = {self.shrinkage:g})"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "beta": None, "shrinkage": self.shrinkage}

    def _background(self, outputs: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.pooled_outputs, outputs), self.pooled_outputs.size - 1)
        return np.where(self.pooled_outputs[at] == outputs, self.pooled[at], 1.0)

    def __call__(self, outputs) -> np.ndarray:
        """The guessed candidate row for each output row: the best of (a) the best candidate that
        gave o in fitting, (b) o itself when it is a candidate, (c) the most likely candidate a
        priori — the score above is largest at one of them."""
        outputs = np.atleast_1d(np.asarray(outputs, dtype=np.int64))
        prior, count = self.cand.prior, self.cand.count
        shrunk = self.shrinkage * self._background(outputs)
        top = int(np.argmax(prior))
        guess = np.full(outputs.size, top, dtype=np.int64)
        score = prior[top] * (shrunk + 0.5 * (outputs == top))
        own = np.where(outputs < count, prior[np.minimum(outputs, count - 1)] * (shrunk + 0.5), -1.0)
        better = (own > score) | ((own == score) & (outputs < guess))
        guess[better], score[better] = outputs[better], own[better]
        at = np.minimum(np.searchsorted(self.seen, outputs), max(self.seen.size - 1, 0))
        found = np.flatnonzero(self.seen[at] == outputs) if self.seen.size else np.empty(0, np.int64)
        fitted, owner = self.scores[at[found]], self.owners[at[found]]
        take = (fitted > score[found]) | ((fitted == score[found]) & (owner < guess[found]))
        guess[found[take]] = owner[take]
        return guess


def _weighted_hits(cand: Candidates, rule, inputs: np.ndarray, outputs: np.ndarray, per_word: int) -> tuple:
    """Σ_w π_w (hits_w / m) over samples laid out word by word (m = ``per_word``), and its SE."""
    return _weighted_share(cand, rule(outputs) == inputs, per_word)


def _weighted_share(cand: Candidates, hit: np.ndarray, per_word: int) -> tuple:
    """Σ_w π_w (hits_w / m) of the hits ``hit`` of samples laid out word by word, and its SE."""
    hits = hit.reshape(cand.count, per_word).mean(axis=1)
    return float(cand.prior @ hits), float(np.sqrt(np.sum(cand.prior ** 2 * hits * (1 - hits) / per_word)))


def _count_rule_choice(cand: Candidates, inputs: np.ndarray, outputs: np.ndarray, vocabulary: int,
                       per_word: int) -> tuple[float, float]:
    """(the shrinkage `fit_count_rule` chooses, its two-fold cross-validated score s_f)."""
    half = per_word // 2
    layout = np.arange(inputs.size).reshape(cand.count, per_word)
    parts = (layout[:, :half].ravel(), layout[:, half:2 * half].ravel())
    scores = []
    for shrinkage in SHRINKAGES:
        score = 0.0
        for fit, held in (parts, parts[::-1]):
            rule = CountRule(cand, inputs[fit], outputs[fit], vocabulary, shrinkage)
            score += _weighted_hits(cand, rule, inputs[held], outputs[held], half)[0] / 2
        scores.append(score)
    best = max(scores)
    se = math.sqrt(float(np.sum(cand.prior ** 2)) * best * (1 - best) / (2 * half))
    chosen = max(f for f, score in zip(SHRINKAGES, scores) if score >= best - se)
    return chosen, scores[SHRINKAGES.index(chosen)]


def fit_count_rule(cand: Candidates, inputs: np.ndarray, outputs: np.ndarray, vocabulary: int,
                   per_word: int) -> CountRule:
    """The `CountRule` of fitting samples laid out word by word (``per_word`` outputs of each
    candidate, in row order), its shrinkage f chosen among `SHRINKAGES` by two-fold
    cross-validation inside the fitting samples: fit on the first half of each word's samples and
    score s_f = Σ_w π_w hits_w on the second, and the reverse (mean of the two). With the
    one-standard-error rule (Breiman et al. 1984, "Classification and Regression Trees", §3.4.3):
    the largest f whose s_f is within one standard error of the best, SE² = Σ_w π_w² s(1 − s)/m
    at the best s — with few samples a frequent word's single sample decides s_f by chance, and the
    rule then prefers the prior to a noisy count. One sample per word: f = 1."""
    if per_word < 2:
        return CountRule(cand, inputs, outputs, vocabulary, 1.0)
    return CountRule(cand, inputs, outputs, vocabulary, _count_rule_choice(cand, inputs, outputs, vocabulary,
                                                                           per_word)[0])


#: The distance rule's β to choose from, in units of ε (`DistanceRule`): ∞ (the nearest candidate, listed first:
#: under a uniform prior every β > 0 gives its guesses, and the first of equal scores is kept) down to 0 (the
#: prior alone: the most likely candidate, whatever the output). Far under ε too: at a small ε the Laplace
#: outputs are hubs, whose distances say little (Zipf prior, ε = 3, GloVe's 2,000 most frequent words: β = ε
#: names 8.9 %, under the prior's 12.2 %).
DISTANCE_SCALES = (math.inf, 4.0, 2.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.0)
#: Largest float64 block of output-to-candidate distances `DistanceRule` holds at once.
DISTANCE_BLOCK_BYTES = 32 * 2**20
#: The decision rules `sampled_attack` fits: the better of the two on the fitting samples, or one of them.
RULES = ("auto", "distance", "counts")


class DistanceRule:
    """A fitted decision rule of the sampled attack from the embedding: for an output o, the candidate
    maximising

        log π_w − β·d(w, o),

    d the Euclidean distance (`_pair_distances`: the library's formula, exactly 0 from a word to
    itself), β ≥ 0 (∞: the nearest candidate; 0: the prior alone); ties go to the lower row (the more
    frequent word).
    This is the posterior argmax under the likelihood estimate P̂(o | w) ∝ e^{−β d(w, o)}, the
    shape of the d_X-private mechanisms' laws: the multivariate Laplace noise has density
    ∝ e^{−ε‖η‖}, so the nearer the input w to the output o, the likelier the noisy point lands in
    o's cell, and SanText's law is exactly e^{−ε d(w, o)/2}/Z_w. Under a uniform prior every β gives
    the nearest candidate; β matters with a Zipf prior and is chosen on the fitting samples
    (`fit_rule`). Why beside `CountRule`: with a few samples per word most outputs are seen once or
    never and their counts say little, while a distance says something about every output (GloVe
    6B 50d, 400,000 words, 2,000 candidates, uniform prior, the multivariate Laplace mechanism, the
    same 40,000 fresh runs: at ε = 10 the nearest candidate names 71.25 % against 69.31 % for the
    count rule fitted on 20 samples per word and 66.64 % on 2; at ε = 3, 1.91 % against 0.50 % and
    0.57 %; bench/bench_word_attack_view.py)."""

    kind = "distance"

    def __init__(self, space, cand: Candidates, beta: float):
        self.space, self.cand, self.beta = space, cand, float(beta)

    def __call__(self, outputs) -> np.ndarray:
        """The guessed candidate row for each output row."""
        return _distance_guesses(self.space, self.cand, outputs, [self.beta])[0]

    @property
    def description(self) -> str:
        if math.isinf(self.beta):
            return "the nearest candidate to the output"
        if self.beta == 0:
            return "the most likely candidate a priori (the output does not help)"
        return f"the candidate maximising log π_w − β·d(w, o), β = {self.beta:.3g}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "beta": None if math.isinf(self.beta) else self.beta, "shrinkage": None}


def _distance_guesses(space, cand: Candidates, outputs, betas) -> np.ndarray:
    """`DistanceRule`'s guesses for the output rows ``outputs`` at each β of ``betas``: shape
    (len(betas), len(outputs)); each distinct output once, in blocks of `DISTANCE_BLOCK_BYTES`. The
    distances by `_pair_distances`' formula (exactly 0 from a candidate to itself); β = ∞ compares the
    squared distances (the same order, no square root)."""
    outputs = np.atleast_1d(np.asarray(outputs, dtype=np.int64))
    distinct, back = np.unique(outputs, return_inverse=True)
    guesses = np.empty((len(betas), distinct.size), dtype=np.int64)
    log_prior = np.log(cand.prior)
    vectors = space.vectors[:cand.count].astype(np.float64)
    norms = space.sq_norms[:cand.count]
    step = max(1, DISTANCE_BLOCK_BYTES // (8 * cand.count))
    for start in range(0, distinct.size, step):
        chunk = distinct[start:start + step]
        sq = space.vectors[chunk].astype(np.float64) @ vectors.T  # (outputs, candidates)
        sq *= -2.0
        sq += space.sq_norms[chunk][:, None]
        sq += norms[None, :]
        np.maximum(sq, 0.0, out=sq)
        own = np.flatnonzero(chunk < cand.count)
        sq[own, chunk[own]] = 0.0
        d = None
        for i, beta in enumerate(betas):
            # argmin/argmax keep the first of equal values: the lower row
            if math.isinf(beta):
                guesses[i, start:start + chunk.size] = sq.argmin(axis=1)
            else:
                d = np.sqrt(sq) if d is None else d
                guesses[i, start:start + chunk.size] = (log_prior - beta * d).argmax(axis=1)
    return guesses[:, back.ravel()]


def fit_rule(space, cand: Candidates, inputs: np.ndarray, outputs: np.ndarray, per_word: int, epsilon: float,
             rule: str = "auto"):
    """The decision rule of a sampled attack, fitted on samples laid out word by word (``per_word``
    outputs of each candidate, in row order): ``rule`` "counts" — `fit_count_rule`; "distance" — the
    `DistanceRule` whose β (among `DISTANCE_SCALES` × ε) scores best on the samples, s_β = Σ_w π_w
    hits_w (β is its only parameter: no held-out part needed to choose it), by the one-standard-error
    rule towards the prior (the smallest β within one SE of the best); "auto" — the better of
    the two: the distance rule's s_β against the count rule's two-fold cross-validated score (with
    fewer than two samples per word the counts cannot be cross-validated: the distance rule), the
    distance rule on a tie. The count rule wins with many samples per word (it tends to the Bayes
    rule), the distance rule with few."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {shown(rule)}.")
    if rule == "counts":
        return fit_count_rule(cand, inputs, outputs, len(space), per_word)
    # under a uniform prior every β gives the nearest candidate's guesses: only ∞ is scored
    betas = [scale * float(epsilon) for scale in (DISTANCE_SCALES if cand.prior_name != "uniform" else [math.inf])]
    hits = (_distance_guesses(space, cand, outputs, betas) == inputs[None, :]).reshape(len(betas), cand.count,
                                                                                        per_word)
    scores = hits.mean(axis=2) @ cand.prior
    best = int(np.argmax(scores))
    # the one-standard-error rule towards the prior (as `fit_count_rule`'s): the smallest β whose score is
    # within one SE of the best's, at the largest binomial variance, SE² = Σ_w π_w²/(4m): under a Zipf prior
    # one sample of a frequent word weighs π_w, and the best score then often wins by chance (300 candidates,
    # 4 samples per word, ε = 1: the best β, 18.2 % on the samples, named 12.7 % on fresh runs, the prior
    # alone 15.9 %); the SE of the scores' observed differences fell short there (the frequent words'
    # few samples happened to agree)
    se = math.sqrt(float(np.sum(cand.prior ** 2)) / (4 * per_word))
    within = np.flatnonzero(scores >= scores[best] - se)
    chosen = int(within[np.argmin(np.asarray(betas)[within])])
    if rule == "auto" and per_word >= 2:
        shrinkage, counted = _count_rule_choice(cand, inputs, outputs, len(space), per_word)
        if counted > scores[chosen]:
            return CountRule(cand, inputs, outputs, len(space), shrinkage)
    return DistanceRule(space, cand, betas[chosen])


@dataclass(frozen=True, eq=False)
class SampledAttack:
    """A sampled attack on one mechanism at one ε (a lower bound on the best attacker's success).

    Fitting: m outputs per candidate (``samples_per_word``) fix the decision rule `rule` (`fit_rule`:
    a `DistanceRule` or a `CountRule`, chosen on the fitting samples). Scoring: ``runs`` fresh inputs
    drawn from π, one output each: ``success`` = the fraction named right, with its binomial
    ``standard_error`` and Wilson ``interval``. ``in_sample``: the same rule scored on its own
    fitting samples, Σ_w π_w (hits_w / m) — optimistic for a count rule, shown to say by how much.
    ``guess_output`` and ``close``: the fresh runs' shares of outputs equal to the input and of
    close neighbours (rank 1..K), with binomial standard errors; ``close`` needs the candidates'
    neighbour orders (`close_neighbours`), built when it is first read (the attacker's view does
    not show it: on all of GloVe the table costs as long as the attack)."""

    mechanism: str
    label: str
    epsilon: float
    candidates: Candidates
    samples_per_word: int
    runs: int
    hits: int
    in_sample: float
    in_sample_standard_error: float
    kept: int
    seed: int
    settings: dict
    rule: object = field(repr=False)
    #: (space, input rows, output rows) of the fresh runs: what `closes` counts from.
    scored: tuple = field(repr=False)

    @property
    def closes(self) -> int:
        """Fresh runs whose output is a close neighbour of the input (rank 1..K), counted once."""
        if "_closes" not in self.__dict__:
            space, inputs, outputs = self.scored
            table = close_neighbours(space, self.candidates.count, self.settings["close"])
            object.__setattr__(self, "_closes", int((table[inputs, 1:] == outputs[:, None]).any(axis=1).sum()))
        return self.__dict__["_closes"]

    @property
    def success(self) -> float:
        return self.hits / self.runs

    @property
    def standard_error(self) -> float:
        return float(binomial_standard_error(self.success, self.runs))

    def interval(self, z: float = INTERVAL_Z) -> tuple[float, float]:
        """Wilson interval of the held-out success, ``z`` standard errors wide."""
        low, high = wilson_interval(self.success, self.runs, z)
        return float(low), float(high)

    @property
    def guess_output(self) -> float:
        return self.kept / self.runs

    @property
    def guess_output_standard_error(self) -> float:
        return float(binomial_standard_error(self.guess_output, self.runs))

    @property
    def close(self) -> float:
        return self.closes / self.runs

    @property
    def close_standard_error(self) -> float:
        return float(binomial_standard_error(self.close, self.runs))

    @property
    def prior_baseline(self) -> float:
        return self.candidates.prior_baseline

    def guess(self, outputs) -> np.ndarray:
        """The fitted rule's guess (a candidate row) for each output row of ``outputs``."""
        return self.rule(outputs)

    def to_dict(self) -> dict:
        low, high = self.interval()
        return {"mechanism": self.mechanism, "label": self.label, "epsilon": self.epsilon, "exact": False,
                "candidates": self.candidates.count, "prior": self.candidates.prior_name,
                "samples_per_word": self.samples_per_word, "runs": self.runs, "success": self.success,
                "standard_error": self.standard_error, "interval": [low, high], "interval_z": INTERVAL_Z,
                "in_sample": self.in_sample, "in_sample_standard_error": self.in_sample_standard_error,
                "guess_output": self.guess_output, "guess_output_standard_error": self.guess_output_standard_error,
                "prior_baseline": self.prior_baseline, "close": self.close,
                "close_standard_error": self.close_standard_error, "rule": self.rule.to_dict(),
                "shrinkage": self.rule.to_dict()["shrinkage"], "seed": self.seed, "settings": self.settings}


def default_runs(count: int, samples_per_word: int) -> int:
    """The fresh runs that score a sampled attack by default: max(N·m, `DEFAULT_RUNS`)."""
    return max(int(count) * int(samples_per_word), DEFAULT_RUNS)


def sampled_attack(space, mechanism, epsilon=None, *, candidates=None, prior: str = "uniform",
                   samples_per_word: int = DEFAULT_SAMPLES_PER_WORD, runs: int | None = None, seed=0,
                   close: int | None = None, rule: str = "auto", progress: Progress | None = None) -> SampledAttack:
    """A sampled attack (`SampledAttack`) on any mechanism at ε (None: its own): the rule fitted
    on ``samples_per_word`` outputs per candidate (`fit_rule` with ``rule``), scored on ``runs``
    fresh runs (default `default_runs`: as many as the fitting samples, at least `DEFAULT_RUNS`) with inputs
    drawn from the prior. Draws:
    ``child_rng(seed, "word-attack", part, mechanism name, ε)``, part "fit" or "score".
    ``progress(fraction, message)``."""
    mechanism = resolve_mechanism(mechanism)
    eps = float(_epsilons(mechanism, None if epsilon is None else [epsilon])[0])
    cand = _candidates(space, candidates, prior)
    m = check_positive_int(samples_per_word, "samples_per_word", minimum=1, maximum=10_000)
    runs = default_runs(cand.count, m) if runs is None else check_positive_int(runs, "runs", minimum=1,
                                                                                maximum=10_000_000)
    close = _close(space, close)
    seed = check_seed(seed)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {shown(rule)}.")
    report = progress or (lambda fraction, message: None)
    v = len(space)
    # the fitting samples and the fresh runs in one search (one pass over the vocabulary), each part
    # from its own stream as before: the outputs of `sample_many` depend on its rows, ε and generator only
    report(0.0, f"{mechanism.label}: {cand.count * m:,} fitting outputs and {runs:,} fresh runs")
    fit_inputs = np.repeat(cand.rows, m)
    fit_rng = child_rng(seed, "word-attack", "fit", mechanism.name, eps)
    rng = child_rng(seed, "word-attack", "score", mechanism.name, eps)
    inputs = rng.choice(cand.count, size=runs, p=cand.prior)
    both = mechanism.sample_groups(space, np.concatenate([fit_inputs, inputs]), eps, [fit_rng, rng],
                                   [fit_inputs.size, runs])
    fit_outputs, outputs = both[:fit_inputs.size], both[fit_inputs.size:]
    report(0.9, f"{mechanism.label}: fitting the rule")
    fitted = fit_rule(space, cand, fit_inputs, fit_outputs, m, eps, rule)
    in_sample, in_sample_se = _weighted_hits(cand, fitted, fit_inputs, fit_outputs, m)
    hits = int((fitted(outputs) == inputs).sum())
    report(1.0, f"{mechanism.label}: done")
    return SampledAttack(mechanism.name, mechanism.label, eps, cand, m, runs, hits, in_sample, in_sample_se,
                         int((outputs == inputs).sum()), seed, {"close": close, "vocabulary": v, "space": space.name},
                         fitted, (space, inputs, outputs))


# ----------------------------------------------------------------------------- the frontier
@dataclass(frozen=True, eq=False)
class AttackFrontier:
    """Attack success and utility per mechanism over an ε grid: ``success[m, e]`` (the exact Bayes
    success, or a sampled attack's held-out success) with ``success_se`` (0 when exact),
    ``guess_output`` and ``close`` (the utility: share of outputs that are a close neighbour, rank
    1..K) with standard errors; ``exact[m]`` says which; ``bound[e]`` the §2 bound when given (NaN
    otherwise); ``prior_baseline`` π_max."""

    mechanisms: tuple[str, ...]
    labels: dict
    epsilons: np.ndarray
    candidates: Candidates
    exact: tuple[bool, ...]
    success: np.ndarray
    success_se: np.ndarray
    in_sample: np.ndarray
    guess_output: np.ndarray
    guess_output_se: np.ndarray
    close: np.ndarray
    close_se: np.ndarray
    bound: np.ndarray
    settings: dict

    @property
    def prior_baseline(self) -> float:
        return self.candidates.prior_baseline

    def _index(self, mechanism: str) -> int:
        if mechanism not in self.mechanisms:
            raise ValueError(f"This frontier has no mechanism {shown(mechanism)}; it has: {', '.join(self.mechanisms)}.")
        return self.mechanisms.index(mechanism)

    def points(self, mechanism: str) -> list[dict]:
        """The frontier of one mechanism: (ε, utility, success) with their standard errors, by ε."""
        m = self._index(mechanism)
        return [{"epsilon": float(e), "close": float(self.close[m, i]), "close_se": float(self.close_se[m, i]),
                 "success": float(self.success[m, i]), "success_se": float(self.success_se[m, i])}
                for i, e in enumerate(self.epsilons)]

    def to_dict(self) -> dict:
        def listed(a):
            return [[None if not math.isfinite(x) else float(x) for x in row] for row in np.atleast_2d(a)]

        return {"mechanisms": list(self.mechanisms), "labels": self.labels, "exact": list(self.exact),
                "epsilons": [float(e) for e in self.epsilons], "candidates": self.candidates.count,
                "prior": self.candidates.prior_name, "prior_baseline": self.prior_baseline,
                "success": listed(self.success), "success_se": listed(self.success_se),
                "in_sample": listed(self.in_sample),
                "guess_output": listed(self.guess_output), "guess_output_se": listed(self.guess_output_se),
                "close": listed(self.close), "close_se": listed(self.close_se),
                "bound": listed(self.bound)[0], "settings": self.settings}


def attack_frontier(space, mechanisms, epsilons, *, candidates=None, prior: str = "uniform",
                    close: int | None = None, samples_per_word: int = DEFAULT_SAMPLES_PER_WORD,
                    runs: int | None = None, seed=0, bound=None, progress: Progress | None = None) -> AttackFrontier:
    """Attack success against utility for each mechanism over ``epsilons``: the exact Bayes attack
    for SanText, SanText+, TEM and CusText (all ε in one pass), a sampled attack (held-out, with
    its standard error) for the others. ``bound``: the §2 bound for these candidates and prior under
    Euclidean ε·d_X-privacy (`metric_bounds`: it covers Laplace, the fix, Vickrey, SanText and TEM):
    "lp", "dual" (cheap) or "closed_form", or a function ε → a bound, or None (NaN)."""
    resolved = [resolve_mechanism(spec) for spec in mechanisms]
    if not resolved:
        raise ValueError("Give at least one mechanism.")
    names = [m.name for m in resolved]
    if len(set(names)) < len(names):
        raise ValueError(f"The mechanisms must differ; got {', '.join(names)}.")
    eps = check_epsilons(epsilons)
    cand = _candidates(space, candidates, prior)
    close = _close(space, close)
    shape = (len(resolved), eps.size)
    arrays = {key: np.full(shape, np.nan) for key in ("success", "success_se", "in_sample", "guess_output",
                                                      "guess_output_se", "close", "close_se")}
    report = progress or (lambda fraction, message: None)
    for i, mechanism in enumerate(resolved):
        def part(fraction, message, i=i):
            report((i + fraction) / len(resolved), message)

        if isinstance(mechanism, EXACT_MECHANISMS):
            for j, attack in enumerate(bayes_attacks(space, mechanism, eps, candidates=cand, close=close,
                                                     progress=part)):
                arrays["success"][i, j] = attack.success
                arrays["success_se"][i, j] = arrays["guess_output_se"][i, j] = arrays["close_se"][i, j] = 0.0
                arrays["guess_output"][i, j], arrays["close"][i, j] = attack.guess_output, attack.close
        else:
            for j, e in enumerate(eps):
                def cell(fraction, message, j=j):
                    part((j + fraction) / eps.size, message)

                attack = sampled_attack(space, mechanism, float(e), candidates=cand, samples_per_word=samples_per_word,
                                        runs=runs, seed=seed, close=close, progress=cell)
                arrays["success"][i, j], arrays["success_se"][i, j] = attack.success, attack.standard_error
                arrays["in_sample"][i, j] = attack.in_sample
                arrays["guess_output"][i, j] = attack.guess_output
                arrays["guess_output_se"][i, j] = attack.guess_output_standard_error
                arrays["close"][i, j], arrays["close_se"][i, j] = attack.close, attack.close_standard_error
    bounds = _frontier_bounds(space, cand, eps, bound)
    for a in (*arrays.values(), bounds, eps):
        a.flags.writeable = False
    return AttackFrontier(tuple(names), {m.name: m.label for m in resolved}, eps, cand,
                          tuple(isinstance(m, EXACT_MECHANISMS) for m in resolved), bound=bounds,
                          settings={"close": close, "samples_per_word": samples_per_word, "runs": runs, "seed": seed,
                                    "vocabulary": len(space), "space": space.name},
                          **arrays)


#: The §2 bounds `attack_frontier` computes by name (fields of `privlib.core.risk.MetricReidentificationBounds`).
FRONTIER_BOUNDS = ("lp", "dual", "closed_form")


def _frontier_bounds(space, cand: Candidates, eps: np.ndarray, bound) -> np.ndarray:
    if bound is None:
        return np.full(eps.size, np.nan)
    if callable(bound):
        return np.array([float(bound(float(e))) for e in eps])
    if bound not in FRONTIER_BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(FRONTIER_BOUNDS)}, a function of ε or None; "
                         f"got {shown(bound)}.")
    from privlib.core.risk import metric_reidentification_bounds

    distances = candidate_distances(space, cand.count)
    return np.array([getattr(metric_reidentification_bounds(cand.prior, distances, float(e), lp=bound == "lp"), bound)
                     for e in eps])


# ----------------------------------------------------------------------------- the attacker's view
# What the pages and `word-attack` show (spec §1–§3, Words): one mechanism's attack at one ε with the
# bound that covers it and the prior baseline, in one sentence; success against ε with the bound; the
# largest ε of a grid that keeps the attack under a target; the trade-off curve of one pair of words;
# and the time all that takes, before it runs.

#: The ε grid of success against ε (the Neighbour ranks page and ``word-attack --epsilons``' default).
VIEW_EPSILONS = (0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0)
#: Default attack success the user accepts (the target of `largest_epsilon_under`).
DEFAULT_TARGET = 0.2
#: The kinds of `CandidateGuarantee`: an ε′·d_X (Euclidean) guarantee, pure ε among the candidates, none.
GUARANTEE_KINDS = ("metric", "pure", "none")
#: Most candidates whose distance matrix is kept with the space for the metric bounds (32 MB at 2,000).
KEPT_DISTANCES_MAX = 2000


def _share(value: float) -> str:
    """A probability in a sentence to 4 significant figures ("12.35 %"): the Bayes success and the
    prior baseline often differ in the third digit (0.1235 against 0.1223), which
    `privlib.core.risk.percent` (whole percents from 1 % to 99 %) would show as one number."""
    return f"{100 * float(value):.4g} %"


@dataclass(frozen=True)
class CandidateGuarantee:
    """What the mechanism's guarantee says about re-identification among the candidates (spec §1–§2):
    ``kind`` "metric" — ε′·d_X-privacy with Euclidean d, ε′ = ``epsilon`` (the mechanism's own ε, or
    for Mahalanobis the Euclidean corollary ε/√λ_min); "pure" — ε-DP between every two candidates
    (CusText when all candidates share one group); "none" — no guarantee (SanText+'s kept
    non-sensitive words, CusText across groups, a singular Mahalanobis covariance). ``text``: for people."""

    mechanism: str
    kind: str
    epsilon: float | None
    text: str

    @property
    def exists(self) -> bool:
        return self.kind != "none"

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "kind": self.kind, "epsilon": self.epsilon, "text": self.text}


def candidate_guarantee(space, mechanism, epsilon=None, *, candidates=None, prior: str = "uniform") -> CandidateGuarantee:
    """The guarantee that bounds re-identification among ``candidates`` for ``mechanism`` at ε
    (None: its own). The multivariate Laplace mechanism, the fix (post-processing of it), SanText,
    TEM and Vickrey on the Laplace base are ε·d_X-private with Euclidean d; Mahalanobis (and Vickrey
    on it) ε·d_RM-private, hence ε′·d_2-private with ε′ = ε/√λ_min(Σ_p) (its `euclidean_epsilon`);
    SanText+ gives its kept words no guarantee unless p = 1 (then SanText over the sensitive words,
    ε·d_X); CusText is ε-DP only within a group (Chatzikokolakis et al. 2013; spec §1 "No guarantee")."""
    from privlib.words.mechanisms import Mahalanobis, Vickrey

    mechanism = resolve_mechanism(mechanism)
    eps = float(_epsilons(mechanism, None if epsilon is None else [epsilon])[0])
    cand = _candidates(space, candidates, prior)
    name = mechanism.name
    if isinstance(mechanism, SanTextPlus):
        first = len(space) - mechanism.sensitive_count(len(space))
        if mechanism.p < 1 and first > 0:
            return CandidateGuarantee(name, "none", None, (
                f"no guarantee: it keeps a non-sensitive word with probability 1 − p = {1 - mechanism.p:g}, "
                "and a kept word can be named outright (posterior 1)"))
        return CandidateGuarantee(name, "metric", eps, f"ε·d_X-privacy (Euclidean d), ε = {eps:g}")
    if isinstance(mechanism, CusText):
        if cand.count <= mechanism.k:
            groups = mechanism.groups(space)
            if np.unique(groups.group_of[cand.rows]).size == 1:
                return CandidateGuarantee(name, "pure", eps, f"ε-DP within the candidates' one group, ε = {eps:g}")
        return CandidateGuarantee(name, "none", None, (
            f"no guarantee: it is ε-DP only within a group of K = {mechanism.k} words, and the "
            f"{cand.count:,} candidates span several groups (the output reveals the group)"))
    base = mechanism
    if isinstance(mechanism, Vickrey) and mechanism.base == "mahalanobis":
        base = Mahalanobis.family(lam=mechanism.lam)
    if isinstance(base, Mahalanobis):
        corollary = base.euclidean_epsilon(space, eps)
        if not math.isfinite(corollary):
            return CandidateGuarantee(name, "none", None, (
                "no Euclidean bound: the guarantee is in the Mahalanobis distance and its covariance is "
                "singular (ε/√λ_min is infinite)"))
        return CandidateGuarantee(name, "metric", corollary, (
            f"ε·d_RM-privacy, hence ε′·d_X with ε′ = ε/√λ_min = {corollary:.3g} (the Euclidean corollary)"))
    return CandidateGuarantee(name, "metric", eps, f"ε·d_X-privacy (Euclidean d), ε = {eps:g}")


def _kept_distances(space, count: int) -> np.ndarray:
    """`candidate_distances`, kept with the space for up to `KEPT_DISTANCES_MAX` candidates."""
    if count > KEPT_DISTANCES_MAX:
        return candidate_distances(space, count)

    def build():
        d = candidate_distances(space, count)
        d.flags.writeable = False
        return d

    return space.derived(("word-attacks-distances", count), build)


def guarantee_bound(space, guarantee: CandidateGuarantee, candidates: Candidates) -> float | None:
    """The §2 bound on re-identification among ``candidates`` that ``guarantee`` gives: the cheap
    dual bound min_{c ≥ 0}[c + Σ_v (π_v − c Σ_w π_w e^{−ε′ d(w, v)})₊] for "metric"
    (`privlib.core.risk.metric_dual_bound`: valid, never below the LP's, seconds instead of the LP's
    minutes at 2,000 candidates), max_m e^ε S_m/(e^ε + m − 1) for "pure"
    (`privlib.core.risk.reidentification_bound`), None for "none"."""
    from privlib.core.risk import metric_dual_bound, reidentification_bound

    if guarantee.kind == "none":
        return None
    if guarantee.kind == "pure":
        return reidentification_bound(candidates.prior, guarantee.epsilon)
    return metric_dual_bound(candidates.prior, _kept_distances(space, candidates.count), guarantee.epsilon)


def mechanism_bound(space, mechanism, *, candidates=None, prior: str = "uniform"):
    """The function ε → `guarantee_bound` of ``mechanism`` at ε (NaN where there is no guarantee), for
    `attack_frontier`'s ``bound``."""
    cand = _candidates(space, candidates, prior)

    def bound(epsilon: float) -> float:
        value = guarantee_bound(space, candidate_guarantee(space, mechanism, epsilon, candidates=cand), cand)
        return math.nan if value is None else value

    return bound


@dataclass(frozen=True, eq=False)
class AttackerView:
    """One mechanism's attack at one ε over the candidates, with its bound: ``attack`` (a
    `BayesAttack`, exact, or a `SampledAttack`, held-out with a binomial interval), ``guarantee`` (a
    `CandidateGuarantee`) and ``bound`` (its §2 bound, None without a guarantee)."""

    attack: object
    guarantee: CandidateGuarantee
    bound: float | None

    @property
    def exact(self) -> bool:
        return isinstance(self.attack, BayesAttack)

    @property
    def epsilon(self) -> float:
        return self.attack.epsilon

    @property
    def success(self) -> float:
        return self.attack.success

    @property
    def standard_error(self) -> float:
        return float(self.attack.standard_error)

    def interval(self) -> tuple[float, float]:
        """The exact value twice, or the sampled attack's Wilson interval (±`INTERVAL_Z` SE)."""
        return (self.success, self.success) if self.exact else self.attack.interval()

    @property
    def guess_output(self) -> float:
        return self.attack.guess_output

    @property
    def guess_output_standard_error(self) -> float:
        return 0.0 if self.exact else self.attack.guess_output_standard_error

    @property
    def prior_baseline(self) -> float:
        return self.attack.prior_baseline

    @property
    def sentence(self) -> str:
        return attack_sentence(self)

    def to_dict(self) -> dict:
        low, high = self.interval()
        return {"mechanism": self.attack.mechanism, "label": self.attack.label, "epsilon": self.epsilon,
                "exact": self.exact, "candidates": self.attack.candidates.count,
                "prior": self.attack.candidates.prior_name, "success": self.success,
                "standard_error": self.standard_error, "interval": [low, high],
                "guess_output": self.guess_output, "guess_output_standard_error": self.guess_output_standard_error,
                "prior_baseline": self.prior_baseline, "guarantee": self.guarantee.to_dict(), "bound": self.bound,
                "bound_method": None if self.bound is None else
                ("the dual metric bound" if self.guarantee.kind == "metric" else "the pure-ε bound with the prior"),
                "sentence": self.sentence, "attack": self.attack.to_dict()}


def attack_sentence(view: AttackerView) -> str:
    """The attacker's view in one sentence: "At ε = 2, somebody who sees the sanitised word names the
    original X % of the time (…); naming the sanitised word itself gets G %; guessing the most
    frequent candidate without seeing anything gets Y %; the guarantee allows at most Z %." — ±2 SE
    where measured; "no guarantee" said plainly where there is none."""
    attack = view.attack
    cand = attack.candidates
    if view.exact:
        how = "exactly, the best any attacker can do"
        success, kept = _share(view.success), _share(view.guess_output)
    else:
        how = f"a sampled attack ±{INTERVAL_Z:g} SE over {attack.runs:,} runs; the best attacker may do better"
        success = f"{_share(view.success)} ± {_share(INTERVAL_Z * view.standard_error)}"
        kept = f"{_share(view.guess_output)} ± {_share(INTERVAL_Z * view.guess_output_standard_error)}"
    baseline = (f"naming one of the {cand.count:,} candidates without seeing anything" if cand.prior_name == "uniform"
                else "naming the most frequent candidate without seeing anything")
    if view.bound is None:
        limit = f"{attack.label} gives {view.guarantee.text}"
    else:
        limit = f"the guarantee ({view.guarantee.text}) allows at most {_share(view.bound)}"
    return (f"At ε = {view.epsilon:g}, somebody who sees the sanitised word names the original {success} of the "
            f"time ({how}); naming the sanitised word itself gets {kept}; {baseline} gets "
            f"{_share(cand.prior_baseline)}; {limit}. (Secret words: {cand.label}.)")


def attacker_view(space, mechanism, epsilon=None, *, candidates=None, prior: str = "uniform",
                  samples_per_word: int = DEFAULT_SAMPLES_PER_WORD, runs: int | None = None, seed=0,
                  close: int | None = None, progress: Progress | None = None) -> AttackerView:
    """The `AttackerView` of ``mechanism`` at ε (None: its own): the exact Bayes attack
    (`bayes_attack`) for SanText, SanText+, TEM and CusText, else the sampled attack
    (`sampled_attack`, with ``samples_per_word``, ``runs`` and ``seed``), with the bound of
    `candidate_guarantee` (`guarantee_bound`). The pages and ``word-attack`` call this one function,
    so the same seed gives the same numbers."""
    mechanism = resolve_mechanism(mechanism)
    cand = _candidates(space, candidates, prior)
    if isinstance(mechanism, EXACT_MECHANISMS):
        attack = bayes_attack(space, mechanism, epsilon, candidates=cand, close=close, progress=progress)
    else:
        attack = sampled_attack(space, mechanism, epsilon, candidates=cand, samples_per_word=samples_per_word,
                                runs=runs, seed=seed, close=close, progress=progress)
    guarantee = candidate_guarantee(space, mechanism, attack.epsilon, candidates=cand)
    return AttackerView(attack, guarantee, guarantee_bound(space, guarantee, cand))


def attack_curve(space, mechanism, epsilons=VIEW_EPSILONS, *, candidates=None, prior: str = "uniform",
                 samples_per_word: int = DEFAULT_SAMPLES_PER_WORD, runs: int | None = None, seed=0,
                 close: int | None = None, progress: Progress | None = None) -> AttackFrontier:
    """Success against ε of one mechanism (`attack_frontier` of it alone) with its own bound at each ε
    (`mechanism_bound`: NaN where there is no guarantee); at each ε the same numbers as
    `attacker_view` with the same seed."""
    cand = _candidates(space, candidates, prior)
    return attack_frontier(space, [mechanism], epsilons, candidates=cand, close=close,
                           samples_per_word=samples_per_word, runs=runs, seed=seed,
                           bound=mechanism_bound(space, mechanism, candidates=cand), progress=progress)


@dataclass(frozen=True)
class EpsilonTarget:
    """The largest ε of a grid that keeps the attack under ``target``: ``by_bound`` (the guarantee's
    bound: holds for every attacker; None when no ε of the grid does or there is no guarantee) and
    ``by_attack`` (the measured attack: the exact Bayes success, or a sampled attack's success + 2 SE
    — a lower bound on the best attacker, so an optimistic answer); ``below_prior``: the target is
    under the prior baseline (no ε meets it); ``sentence`` for people."""

    target: float
    mechanism: str
    by_bound: float | None
    by_attack: float | None
    exact: bool
    guaranteed: bool
    below_prior: bool
    sentence: str

    def to_dict(self) -> dict:
        return {"target": self.target, "mechanism": self.mechanism, "by_bound": self.by_bound,
                "by_attack": self.by_attack, "exact": self.exact, "guaranteed": self.guaranteed,
                "below_prior": self.below_prior, "sentence": self.sentence}


def largest_epsilon_under(curve: AttackFrontier, target: float = DEFAULT_TARGET,
                          mechanism: str | None = None) -> EpsilonTarget:
    """The largest ε of ``curve``'s grid (an `attack_curve` or `attack_frontier` with a bound) that
    keeps the re-identification of ``mechanism`` (default: the curve's first) at most ``target``:
    by the bound, and separately by the measured attack (the exact value, or the sampled value
    + `INTERVAL_Z` standard errors): each by `privlib.core.risk.largest_epsilon_under`, the one rule
    (the prefix of the grid under the target; what Choose epsilon's attack target answers too)."""
    from privlib.core.risk import largest_epsilon_under as largest_epsilon_under_grid
    from privlib.core.validation import check_probability

    target = check_probability(target, "target (the attack success you accept)")
    name = curve.mechanisms[0] if mechanism is None else mechanism
    m = curve._index(name)
    exact = curve.exact[m]
    guaranteed = bool(np.all(np.isfinite(curve.bound)))
    by_bound = largest_epsilon_under_grid(target, curve.epsilons, curve.bound) if guaranteed else None
    by_attack = largest_epsilon_under_grid(target, curve.epsilons, curve.success[m],
                                           None if exact else curve.success_se[m], z=INTERVAL_Z)
    below = target < curve.prior_baseline
    label = curve.labels[name]
    lowest, highest = float(curve.epsilons.min()), float(curve.epsilons.max())

    def said(value, what):
        if value is None:
            return f"no ε of the grid (from {lowest:g}) {what}"
        return f"ε = {value:g}{' (the top of the grid)' if value == highest else ''} {what}"

    if below:
        sentence = (f"No ε keeps the attack under {_share(target)}: naming the most likely candidate without "
                    f"seeing anything already succeeds {_share(curve.prior_baseline)} of the time.")
    else:
        bound_part = (said(by_bound, "by the guarantee's bound, which holds for every attacker") if guaranteed
                      else f"no ε by a guarantee ({label} gives none over these candidates)")
        attack_part = said(by_attack, "by the exact Bayes attack" if exact else
                           f"by the sampled attack with its +{INTERVAL_Z:g} SE (a lower bound on the best attacker, "
                           "so this ε is optimistic)")
        sentence = (f"The largest ε that keeps re-identification under {_share(target)} with {label}: "
                    f"{bound_part}; {attack_part}.")
    return EpsilonTarget(target, name, by_bound, by_attack, exact, guaranteed, below, sentence)


@dataclass(frozen=True, eq=False)
class PairTradeoff:
    """Telling two words apart from one output (spec §1): ``word`` (x, "positive") and ``other`` (x′,
    by default its nearest neighbour) at ``distance`` (Euclidean; d_RM for Mahalanobis);
    ``bound`` the guarantee's curve f_{ε·d, 0} (`privlib.core.risk.DPCurve`; None: no guarantee for
    the pair) and ``exact`` the pair's exact curve (`privlib.core.risk.FinitePairCurve`, the best
    test's ROC) where the output law is exact, else None; ``sampled`` (mechanisms without an exact
    law) the ROC of a fixed test measured on samples (`PairROC`), else None."""

    mechanism: str
    label: str
    epsilon: float
    word: str
    other: str
    distance: float
    bound: object
    exact: object
    guarantee: str
    sampled: object = None


#: Outputs per word of `pair_tradeoff`'s sampled ROC.
DEFAULT_PAIR_SAMPLES = 500


@dataclass(frozen=True, eq=False)
class PairROC:
    """The ROC of the distance test on sampled outputs: say "x" when d(o, x′) − d(o, x) ≥ t, for every
    threshold t; ``tpr`` from ``samples`` outputs of x, ``fpr`` from as many of x′ (each point within
    its binomial standard error, at most 0.5/√samples). The test is fixed before the samples are
    drawn (nothing is fitted on them), so its ROC is that of one attacker, which no guarantee's limit
    lets above its curve."""

    fpr: np.ndarray
    tpr: np.ndarray
    samples: int
    seed: int


def pair_tradeoff(space, mechanism, epsilon, word, other=None, *, samples: int = DEFAULT_PAIR_SAMPLES,
                  seed=0) -> PairTradeoff:
    """The `PairTradeoff` of ``word`` and ``other`` (a word or row; None: ``word``'s nearest neighbour);
    for a mechanism without an exact law, the sampled ROC of ``samples`` outputs of each word (draws:
    ``child_rng(seed, "word-attack", "pair", mechanism name, ε)``)."""
    from privlib.core.risk import DPCurve, FinitePairCurve
    from privlib.words.mechanisms import Mahalanobis, Vickrey

    mechanism = resolve_mechanism(mechanism)
    eps = float(_epsilons(mechanism, None if epsilon is None else [epsilon])[0])
    x = space.row(word)
    if other is None:
        sq = space.squared_distances(np.array([x]))[0]
        sq[x] = np.inf
        y = int(np.argmin(sq))
    else:
        y = space.row(other)
    if x == y:
        raise ValueError("Give two different words: the test tells one from the other.")
    d = float(_pair_distances(space, np.array([x]), np.array([y]))[0, 0])
    base = Mahalanobis.family(lam=mechanism.lam) if isinstance(mechanism, Vickrey) and mechanism.base == "mahalanobis" \
        else mechanism
    bound = None
    if isinstance(mechanism, SanTextPlus):
        first = len(space) - mechanism.sensitive_count(len(space))
        if mechanism.p == 1 or min(x, y) >= first:
            bound, text = DPCurve(eps * d), f"ε·d_X-privacy: ε·d = {eps * d:.3g}"
        else:
            text = "no guarantee: a kept non-sensitive word can be named outright"
    elif isinstance(mechanism, CusText):
        groups = mechanism.groups(space)
        if max(x, y) < groups.group_of.size and groups.group_of[x] == groups.group_of[y]:
            bound, text = DPCurve(eps), f"ε-DP within their group, ε = {eps:g}"
        else:
            text = "no guarantee: the two words are in different CusText groups (the group is revealed)"
    elif isinstance(base, Mahalanobis):
        d = base.distance(space, x, y)
        bound, text = DPCurve(eps * d), f"ε·d_RM-privacy: ε·d_RM = {eps * d:.3g}"
    else:
        bound, text = DPCurve(eps * d), f"ε·d_X-privacy: ε·d = {eps * d:.3g}"
    exact = sampled = None
    if isinstance(mechanism, EXACT_MECHANISMS):
        exact = FinitePairCurve(mechanism.output_probabilities(space, x, eps),
                                mechanism.output_probabilities(space, y, eps))
    else:
        sampled = _pair_roc(space, mechanism, eps, x, y, samples, seed)
    return PairTradeoff(mechanism.name, mechanism.label, eps, space.words[x], space.words[y], d, bound, exact, text,
                        sampled)


def _pair_roc(space, mechanism, eps: float, x: int, y: int, samples, seed) -> PairROC:
    samples = check_positive_int(samples, "samples (outputs per word)", minimum=1, maximum=1_000_000)
    seed = check_seed(seed)
    rng = child_rng(seed, "word-attack", "pair", mechanism.name, eps)
    outputs = mechanism.sample_many(space, np.repeat(np.array([x, y]), samples), eps, rng)
    d = _pair_distances(space, np.array([x, y]), outputs)
    score = d[1] - d[0]  # larger: nearer x than x′
    under_x, under_y = np.sort(score[:samples]), np.sort(score[samples:])
    thresholds = np.concatenate([[np.inf], np.unique(score)[::-1]])
    # P(score ≥ t) under each word, for every threshold from "never x" to "always x"
    tpr = 1.0 - np.searchsorted(under_x, thresholds, side="left") / samples
    fpr = 1.0 - np.searchsorted(under_y, thresholds, side="left") / samples
    return PairROC(fpr, tpr, samples, seed)


# ----------------------------------------------------------------------------- how long it takes
#: Words of the space the kernels are timed on (its first ones; the space itself when smaller): each
#: kernel costs about V per unit, so it is timed on few words and scaled to the vocabulary (a probe on all
#: 400,000 GloVe words took seconds on a loaded machine, before the page's first view).
CALIBRATION_WORDS = 16_384
#: Sizes (candidate rows; outputs) a timing probe grows through until one call lasts `PROBE_SECONDS`;
#: candidate rows start above `EmbeddingSpace.squared_distances`' few-row path, as the attacks' blocks do.
PROBE_ROWS = (64, 256, 1024)
PROBE_OUTPUTS = (16, 64, 256, 1024)
PROBE_SECONDS = 0.05
#: Timed calls at the final size (the quickest counts).
PROBES = 2
#: The ε the sampling kernel is timed at.
PROBE_EPSILON = 2.0


def _calibration_space(space):
    """The first `CALIBRATION_WORDS` words of ``space`` as a space of their own (kept with it), or the space."""
    if len(space) <= CALIBRATION_WORDS:
        return space
    return space.derived(("word-attacks-calibration", CALIBRATION_WORDS), lambda: type(space).from_arrays(
        space.words[:CALIBRATION_WORDS], space.vectors[:CALIBRATION_WORDS],
        name=f"{space.name} (first {CALIBRATION_WORDS:,} words)"))


def _per_word_seconds(space, key: tuple, run, sizes, stored: float | None = None) -> float:
    """Seconds per unit and per vocabulary word of one kernel: the fixed cost of
    `privlib.words.kernel_costs.KERNEL_NANOSECONDS_VARIABLE` when set, else the ``stored`` cost (an entry
    of `privlib.words.kernel_costs.STORED_KERNEL_NANOSECONDS`; None: timed), else ``run(sub, size)``, doing
    ``size`` units on the calibration space ``sub``, timed (`probe_seconds`) once per space (kept with it)."""
    untimed = untimed_nanoseconds(stored)
    if untimed is not None:  # before the cache of the space: a timing cached there must not hide it
        return untimed * 1e-9

    def measure():
        sub = _calibration_space(space)
        return probe_seconds(len(sub), lambda size: run(sub, size), sizes)

    return space.derived(("word-attacks-cost", *key), measure)


def probe_seconds(words: int, run, sizes) -> float:
    """Seconds per unit and per word of ``run(size)`` on a space of ``words`` words, timed: one untimed
    call (one-off set-up: a search, a covariance, the float64 copy), then ``sizes`` growing until a call
    lasts `PROBE_SECONDS` (shorter calls measure a busy machine's time slices, not its pace), and the
    quickest of `PROBES` calls at that size. (The one place the attacks' estimate times anything.)"""
    import time

    def timed(size) -> float:
        start = time.perf_counter()
        run(size)
        return time.perf_counter() - start

    sizes = [min(size, words) for size in sizes]
    run(sizes[0])
    for size in sizes:
        elapsed = timed(size)
        if elapsed >= PROBE_SECONDS:
            break
    elapsed = min([elapsed] + [timed(size) for _ in range(PROBES - 1)])
    return elapsed / (size * words)


def _distance_kernel(space, timed: bool) -> float:
    """A candidate's distances to the vocabulary and its nearest K (the exact pass and the close table)."""
    def run(sub, size):
        rows = np.arange(size, dtype=np.int64)
        _nearest_rows(sub.squared_distances(rows), rows, min(DEFAULT_CLOSE, len(sub) - 1))

    stored = None if timed else STORED_KERNEL_NANOSECONDS["distances"]
    return _per_word_seconds(space, ("distances",), run, PROBE_ROWS, stored)


def _law_kernel(space, mechanism, timed: bool) -> float:
    """One candidate's exact law at one ε over the vocabulary (`_DenseLaw.block`)."""
    def run(sub, size):
        rows = np.arange(size, dtype=np.int64)
        d = np.sqrt(sub.squared_distances(rows))  # (timed too: a small part beside the law's exp)
        d[np.arange(size), rows] = 0.0
        _DenseLaw(mechanism, sub, PROBE_EPSILON, size).block(d, rows, np.empty_like(d))

    stored = None if timed else STORED_KERNEL_NANOSECONDS["law"].get(mechanism.name)  # (none stored: timed)
    return _per_word_seconds(space, ("law", repr(mechanism)), run, PROBE_ROWS, stored)


def _sampling_kernel(space, mechanism, timed: bool) -> float:
    """One output of ``mechanism`` (``sample_many``, as the sampled attack draws), timed at
    `PROBE_EPSILON` (the exact nearest-word search that dominates costs the same at any ε); untimed, the
    cost model's sampling kernel (the same ``sample_many``)."""
    rng = np.random.default_rng(0)

    def run(sub, size):
        rows = np.arange(size, dtype=np.int64) % len(sub)
        mechanism.sample_many(sub, rows, np.full(size, PROBE_EPSILON), rng)

    stored = None if timed else STORED_KERNEL_NANOSECONDS["sampling"].get(mechanism.name)  # (none stored: timed)
    return _per_word_seconds(space, ("sampling", repr(mechanism)), run, PROBE_OUTPUTS, stored)


def attack_seconds(space, mechanisms, epsilons, *, candidates=None, prior: str = "uniform",
                   samples_per_word: int = DEFAULT_SAMPLES_PER_WORD, runs: int | None = None,
                   close: int | None = None, bound: bool = True, utility: bool = True, timed: bool = True) -> float:
    """Estimated seconds of the attacks on ``mechanisms`` (one, or a list) at ``epsilons`` over the
    candidates — `attacker_view` (one ε), `attack_curve` or `attack_frontier` — with the bounds when
    ``bound``, and with the sampled attacks' close-neighbour share (`SampledAttack.close`, which
    builds the close table when first read: `attack_curve`, `attack_frontier` and ``to_dict`` read it,
    the attacker's view on a page need not) when ``utility``. Same checks and errors as the work itself. The model counts the work in kernels, each
    costing about V (the vocabulary) per unit, in nanoseconds per unit and per vocabulary word — the
    word-level cost model's kernel costs (`privlib.words.kernel_costs`): fixed by
    `privlib.words.kernel_costs.KERNEL_NANOSECONDS_VARIABLE` when set; else, without ``timed``, the stored
    costs (`privlib.words.kernel_costs.STORED_KERNEL_NANOSECONDS`: nothing runs, microseconds in any process,
    what a page uses to decide whether an attack starts by itself); else timed once per space on its
    first `CALIBRATION_WORDS` words and scaled to V (a mechanism outside the registry is timed in any case):

    * an exact mechanism: N distance rows, plus N·E laws (N candidates, E epsilons); CusText: its
      groups (the stored "custext-groups" cost per vocabulary word, never timed) and N distance rows
      (the close table);
    * a sampled mechanism: E·(N·m + runs) outputs (m samples per word) and the rule's N distances for each
      (the stored "distance-rule" cost per output and candidate), plus with ``utility`` the close table
      (the stored "close-table" cost per candidate and vocabulary word; never timed: its method depends on V);
    * the bounds: E·N² kernel values and N² distances (units of SanText's law kernel per word).

    An upper estimate where caches (the close table, CusText's groups) already exist."""
    listed = [mechanisms] if isinstance(mechanisms, (str, tuple, Mechanism)) else list(mechanisms)
    resolved = [resolve_mechanism(spec) for spec in listed]
    if not resolved:
        raise ValueError("Give at least one mechanism.")
    eps = check_epsilons(epsilons)
    cand = _candidates(space, candidates, prior)
    _close(space, close)
    m = check_positive_int(samples_per_word, "samples_per_word", minimum=1, maximum=10_000)
    runs = default_runs(cand.count, m) if runs is None else check_positive_int(runs, "runs", minimum=1,
                                                                                maximum=10_000_000)
    v, n = len(space), cand.count
    rows = n * v * _distance_kernel(space, timed)
    total = 0.0
    for mechanism in resolved:
        if isinstance(mechanism, CusText):
            check_custext_candidates(mechanism, space, n)
            groups = untimed_nanoseconds(STORED_KERNEL_NANOSECONDS["custext-groups"]) * 1e-9
            total += v * groups + rows
        elif isinstance(mechanism, EXACT_MECHANISMS):
            total += rows + n * v * eps.size * _law_kernel(space, mechanism, timed)
        else:
            per_output = _sampling_kernel(space, mechanism, timed)
            per_guess = untimed_nanoseconds(STORED_KERNEL_NANOSECONDS["distance-rule"]) * 1e-9
            total += eps.size * (n * m + runs) * (v * per_output + n * per_guess)
            if utility:
                total += n * v * untimed_nanoseconds(STORED_KERNEL_NANOSECONDS["close-table"]) * 1e-9
    if bound:
        total += (eps.size + 1) * n * n * _law_kernel(space, SanText.family(), timed)
    return float(total)


__all__ = [
    "BLOCK_BYTES",
    "CALIBRATION_WORDS",
    "DEFAULT_CANDIDATES",
    "DEFAULT_PAIR_SAMPLES",
    "DEFAULT_RUNS",
    "DEFAULT_SAMPLES_PER_WORD",
    "DEFAULT_TARGET",
    "DISTANCE_BLOCK_BYTES",
    "DISTANCE_SCALES",
    "EXACT_MECHANISMS",
    "FRONTIER_BOUNDS",
    "GUARANTEE_KINDS",
    "INTERVAL_Z",
    "KEPT_DISTANCES_MAX",
    "PRIORS",
    "PROBES",
    "PROBE_EPSILON",
    "PROBE_OUTPUTS",
    "PROBE_ROWS",
    "PROBE_SECONDS",
    "RULES",
    "SHRINKAGES",
    "VIEW_EPSILONS",
    "AttackFrontier",
    "AttackerView",
    "BayesAttack",
    "CandidateGuarantee",
    "Candidates",
    "CountRule",
    "DistanceRule",
    "EpsilonTarget",
    "PairROC",
    "PairTradeoff",
    "SampledAttack",
    "attack_curve",
    "attack_frontier",
    "attack_seconds",
    "attack_sentence",
    "attacker_view",
    "bayes_attack",
    "bayes_attacks",
    "block_rows",
    "candidate_guarantee",
    "check_custext_candidates",
    "close_neighbours",
    "default_runs",
    "fit_count_rule",
    "fit_rule",
    "guarantee_bound",
    "largest_epsilon_under",
    "mechanism_bound",
    "pair_tradeoff",
    "probe_seconds",
    "sampled_attack",
    "word_candidates",
]
