"""Kernel costs: the numbers under every word-level time estimate — the cost model of
`privlib.words.cost` (rank experiment, ε sweep, Table 2, ε study) and the attacks' estimate
(`privlib.words.attacks.attack_seconds`). One home for them, low in the word-level topic (it imports
nothing of the topic), so that the attacks, which sit below the cost model, use the very same
stored costs and the very same fixed-cost variable.

A kernel is one library call whose cost grows with N, the vocabulary: its cost is a constant in
nanoseconds per unit and per vocabulary word, times N (a sort: times log2 N). Three sources, in this
order of precedence:

1. **fixed** — the environment variable `KERNEL_NANOSECONDS_VARIABLE` set to a number c: every
   kernel costs c, whatever the machine and its load (tests, reproducible refusals);
2. **stored** (``timed=False`` in the estimates) — `STORED_KERNEL_NANOSECONDS`, measured once on
   the reference machine: an estimate that costs nothing, the same in every process (what a page
   uses to decide whether work starts by itself: timing the kernels in a new process took about a
   second, the very wait it would decide about);
3. **timed** — measured on the space in hand, once per process and space (the command line: the
   estimate follows the machine and its load).
"""
from __future__ import annotations

from privlib.core.validation import environment_number

#: The environment variable of fixed kernel costs (nanoseconds per unit and per vocabulary word)
#: that replace the timings and the stored costs; unset or empty: the kernels are timed (or stored).
KERNEL_NANOSECONDS_VARIABLE = "PRIVLIB_KERNEL_NANOSECONDS"

#: Kernel costs for estimates that time nothing (``timed=False``): nanoseconds per unit and per
#: vocabulary word (N), so a kernel costs this × N.
#:
#: - "sampling": one output of the mechanism (``sample_many``), by the registry's mechanism name
#:   (other parameters at their defaults);
#: - "ranking": one input word's outputs classified among its neighbours (`classify_outputs`: its
#:   float64 distance row dominates, so per input word whatever its number of outputs);
#: - "distances": one candidate's distances to the vocabulary and its K nearest (the attacks' exact
#:   pass and close-neighbour table: `privlib.words.attacks`);
#: - "law": one candidate's exact output law at one ε over the vocabulary (the exact attacks and the
#:   bounds), by mechanism name (SanText, SanText+, TEM);
#: - "custext-groups": building CusText's groups, per vocabulary word (one unit: ~9 s for all
#:   400,000 GloVe words; never timed, since a timing would build the groups);
#: - "close-table": the sampled attack's close-neighbour table, per candidate and vocabulary word
#:   (`privlib.words.neighbours.neighbour_order_prefixes`' certified float32 route; never timed: a probe
#:   on the calibration words would not measure the route of a large vocabulary);
#: - "distance-rule": the sampled attack's distance rule, per output and per candidate (not per
#:   vocabulary word: its distances are to the N candidates).
#:
#: How they were obtained: `privlib.words.cost.kernel_nanoseconds` on GloVe 6B 50d on the reference
#: machine (a 2-core Xeon) gave each sampling and ranking kernel's cost relative to the multivariate
#: Laplace mechanism's (santext 100, santext-plus 85, tem 80, custext 27, postprocessing-fix 4.7,
#: vickrey 2.2, mahalanobis 0.9; ranking 8.5), and the Laplace mechanism's is 2 — its pace when the
#: machine is shared with other work (0.9 when it is quiet: the pages' estimates lean long rather than
#: start work that then keeps a user waiting). The attacks' kernels, from the exact Bayes attack over
#: 2,000 candidates at one ε (bench/bench_word_attacks.py: ~2.3 s CPU on a 50,000-word vocabulary, so
#: distances and law together ~25 ns per candidate and word when quiet) and its CPU time on a
#: 20,000-word vocabulary at one and at four ε (1.3–1.7 s, 2.0–3.8 s; most of it the distance pass
#: with its nearest K, the three laws within 30 % of each other), likewise doubled for a shared machine:
#: distances 30, each law 20. The close table (2,000 candidates): 2.9–3.7 s CPU on all 400,000 GloVe words,
#: 0.75 s on 50,000, 0.54 s on 20,000 (3.6–13.5 ns per candidate and word, a fixed part weighing on small
#: vocabularies): 8. The distance rule: 0.5–0.6 s CPU for 6,000 outputs over 2,000 candidates on a loaded
#: machine (~45 ns per output and candidate with six β, fewer with one): 20. Every mechanism of the registry has a sampling cost and every exact dense
#: law a law cost (tests/words/test_cost_stored.py, tests/words/test_attacks_page.py).
STORED_KERNEL_NANOSECONDS = {
    "sampling": {
        "multivariate-laplace": 2.0,
        "postprocessing-fix": 9.5,
        "mahalanobis": 2.0,
        "vickrey": 4.5,
        "santext": 200.0,
        "santext-plus": 170.0,
        "tem": 160.0,
        "custext": 55.0,
    },
    "ranking": 17.0,
    "distances": 30.0,
    "law": {
        "santext": 20.0,
        "santext-plus": 20.0,
        "tem": 20.0,
    },
    "custext-groups": 25_000.0,
    "close-table": 8.0,
    "distance-rule": 20.0,
}
#: The epsilons the stored sampling costs were measured at (the Neighbour ranks page's curve).
STORED_EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)


def fixed_kernel_nanoseconds() -> float | None:
    """The fixed cost of `KERNEL_NANOSECONDS_VARIABLE` (nanoseconds per unit and per vocabulary
    word), or None when it is unset or empty (the kernels are timed, or stored); ValueError when it
    is not a finite number >= 0."""
    return environment_number(KERNEL_NANOSECONDS_VARIABLE, "nanoseconds")


def untimed_nanoseconds(stored: float | None) -> float | None:
    """A kernel's cost without timing it, in nanoseconds per unit and per vocabulary word: the fixed
    cost (`fixed_kernel_nanoseconds`) when set, else ``stored`` (an entry of
    `STORED_KERNEL_NANOSECONDS`, or None: the kernel is to be timed)."""
    fixed = fixed_kernel_nanoseconds()
    return stored if fixed is None else fixed


__all__ = [
    "KERNEL_NANOSECONDS_VARIABLE",
    "STORED_EPSILONS",
    "STORED_KERNEL_NANOSECONDS",
    "fixed_kernel_nanoseconds",
    "untimed_nanoseconds",
]
