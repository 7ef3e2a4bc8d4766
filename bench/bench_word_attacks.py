"""The words attacker's view (privlib.words.attacks): how long the exact Bayes attack over the 2,000
most frequent words takes for SanText, TEM, SanText+ and CusText, on the whole GloVe 6B 50d
vocabulary and on smaller vocabularies (the mechanism runs on the space it is given: a page's
"Vocabulary size"), and how long a sampled attack on the multivariate Laplace mechanism takes.
Target (issue 23): the attacker's view at the page's defaults <= 5 s on the 2-core machine.

Baseline, in the same run: the same Bayes success from the mechanism's own public per-word law,
``output_probabilities(space, w, ε)`` for each candidate, accumulated output by output (timed on
--baseline-candidates candidates and scaled to all of them; its success on those candidates is
compared with the vectorised attack's on the same candidates).

    python bench/bench_word_attacks.py [--vocab 400000,50000,20000,2000] [--candidates 2000]
                                       [--epsilon 2] [--repeats 3] [--samples-per-word 2]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import machine_info, timed  # bench/timing.py, beside this script

from privlib.words import EmbeddingSpace
from privlib.words.attacks import bayes_attack, bayes_attacks, sampled_attack, word_candidates
from privlib.words.mechanisms import TEM, CusText, MultivariateLaplace, SanText, SanTextPlus

TARGET = 5.0


def cpu_and_wall(fn):
    """(CPU seconds of this process, wall seconds, result) of one call: on a shared machine the CPU
    time is the steadier measure of the work done (the wall time grows with the load)."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def baseline_success(space, mechanism, epsilon, cand) -> float:
    """Σ_o max_w π_w P(o | w) from one `output_probabilities` call per candidate."""
    best = np.zeros(len(space))
    for w in range(cand.count):
        np.maximum(best, cand.prior[w] * mechanism.output_probabilities(space, w, epsilon), out=best)
    return float(best.sum())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", default="400000,50000,20000,2000")
    parser.add_argument("--candidates", type=int, default=2000)
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline-candidates", type=int, default=100)
    parser.add_argument("--samples-per-word", type=int, default=2)
    parser.add_argument("--skip-custext", action="store_true", help="skip CusText (its mapping takes ~10 s per space)")
    args = parser.parse_args()
    print(machine_info())
    full = EmbeddingSpace.glove_6b_50d()
    for vocab in (int(v) for v in args.vocab.split(",")):
        space = full if vocab >= len(full) else EmbeddingSpace.glove_6b_50d(vocab_size=vocab)
        bench_space(space, args)
    print("\n" + machine_info())


def bench_space(space, args):
    eps = args.epsilon
    count = min(args.candidates, len(space))
    print(f"\n== vocabulary {len(space):,}, {count:,} candidates, ε = {eps:g}")
    # first call: also builds the space's float64 copy and the close-neighbour table
    cpu, wall, first = cpu_and_wall(lambda: bayes_attack(space, SanText.family(), eps, candidates=count, prior="zipf"))
    print(f"SanText (first call, builds caches): {wall:.2f} s wall, {cpu:.2f} s CPU; "
          f"Bayes {first.success:.4f}, guess-the-output {first.guess_output:.4f}, prior {first.prior_baseline:.4f}")
    for mechanism in (SanText.family(), TEM.family(), SanTextPlus.family()):
        median, times, result = timed(lambda m=mechanism: bayes_attack(space, m, eps, candidates=count,
                                                                       prior="zipf"), args.repeats)
        cpu, _, _ = cpu_and_wall(lambda m=mechanism: bayes_attack(space, m, eps, candidates=count, prior="zipf"))
        verdict = "meets" if median <= TARGET else "misses"
        print(f"{mechanism.name:>13}: median {median:.2f} s ({', '.join(f'{t:.2f}' for t in times)}), "
              f"{cpu:.2f} s CPU — {verdict} the {TARGET:g} s target; Bayes {result.success:.4f}")
    cpu, wall, _ = cpu_and_wall(lambda: bayes_attacks(space, SanText.family(), [0.5, 1, 2, 4, 8, 16],
                                                      candidates=count, prior="zipf"))
    print(f"SanText, 6 epsilons in one pass: {wall:.2f} s wall, {cpu:.2f} s CPU")
    if not args.skip_custext:
        started = time.perf_counter()
        custext = CusText.family(vocab_limit=len(space))
        custext.groups(space)
        print(f"CusText mapping (once per space): {time.perf_counter() - started:.2f} s")
        cpu, wall, result = cpu_and_wall(lambda: bayes_attack(space, custext, eps, candidates=count, prior="zipf"))
        print(f"      custext: {wall:.2f} s wall, {cpu:.2f} s CPU; Bayes {result.success:.4f}")
    # baseline: the mechanism's own per-word law, on fewer candidates, scaled
    small = word_candidates(space, min(args.baseline_candidates, count), "zipf")
    bayes_attack(space, SanText.family(), eps, candidates=small)  # its close-neighbour table, built once
    base_cpu, base_wall, base_value = cpu_and_wall(lambda: baseline_success(space, SanText.family(), eps, small))
    ours_cpu, ours_wall, ours = cpu_and_wall(lambda: bayes_attack(space, SanText.family(), eps, candidates=small))
    print(f"baseline (output_probabilities per candidate), {small.count} candidates: {base_wall:.2f} s wall, "
          f"{base_cpu:.2f} s CPU (~{base_cpu * count / small.count:.1f} s CPU for {count:,}); vectorised "
          f"{ours_wall:.2f} s wall, {ours_cpu:.2f} s CPU; same success: {base_value:.12f} vs {ours.success:.12f}")
    # a sampled attack on the page's default mechanism
    m = args.samples_per_word
    cpu, wall, attack = cpu_and_wall(lambda: sampled_attack(space, MultivariateLaplace.family(), eps, candidates=count,
                                                            prior="zipf", samples_per_word=m, seed=0))
    low, high = attack.interval()
    print(f"sampled attack, multivariate Laplace, {m} samples/word + {attack.runs:,} fresh runs: {wall:.2f} s wall, "
          f"{cpu:.2f} s CPU; "
          f"held-out {attack.success:.4f} [{low:.4f}, {high:.4f}], in-sample {attack.in_sample:.4f}")


if __name__ == "__main__":
    main()
