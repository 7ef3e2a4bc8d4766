"""The post-processing fix on the full GloVe 6B 50d vocabulary (400,000 words).

1. Cost: 2,000 samples of one word at epsilon = 10 with the plain multivariate Laplace mechanism
   and with the fix, same seed (so the fix's pivots are exactly the plain mechanism's outputs),
   runs interleaved on the same loaded embedding; the added time per sample is fix - plain
   (target <= 2 ms). Also: the post-processing step alone on those pivots, and the same step
   with each pivot's order taken from float64 distances to all words (the direct route, what a
   per-pivot `neighbour_ranks` costs) for comparison.
2. The paper's Fig. 8: proportions of original (rank 0), close (ranks 1..K) and distant outputs
   against epsilon, plain mechanism vs fix, for words drawn uniformly from the vocabulary (one
   output per word and epsilon), with one standard error.

    python bench/bench_fix.py [--word king] [--samples 2000] [--epsilon 10] [--repeats 5]
                              [--words 300] [--epsilons 1,2,4,6,8,10,12,15,20,30]
"""
import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import privlib.words.mechanisms.postprocessing as pp  # noqa: E402
from privlib.words import EmbeddingSpace, MultivariateLaplace, epsilon_sweep  # noqa: E402
from privlib.words.mechanisms.postprocessing import PostProcessingFix  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--word", default="king")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--epsilon", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--words", type=int, default=300, help="words for the Fig. 8 table")
    parser.add_argument("--epsilons", default="1,2,4,6,8,10,12,15,20,30")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.python_version()}, numpy {np.__version__}")
    t0 = time.perf_counter()
    space = EmbeddingSpace.glove_6b_50d()
    space.exact_search
    print(f"loaded {space} in {time.perf_counter() - t0:.1f} s")
    plain, fix = MultivariateLaplace(), PostProcessingFix()
    row = space.index(args.word)
    n = args.samples

    # ---------------------------------------------------------------- cost
    plain.sample(space, row, args.epsilon, n, rng=args.seed)  # warm-up
    fix.sample(space, row, args.epsilon, n, rng=args.seed)
    t_plain, t_fix = [], []
    for _ in range(args.repeats):  # interleaved: both see the same machine load
        t = time.perf_counter()
        pivots = plain.sample(space, row, args.epsilon, n, rng=args.seed)
        t_plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        outputs, fix_pivots = fix.sample_with_pivots(space, row, args.epsilon, n, rng=args.seed)
        t_fix.append(time.perf_counter() - t)
    assert np.array_equal(pivots, fix_pivots), "same seed must give the same pivots"
    t_step = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        fix.post_process(space, pivots, args.epsilon, rng=args.seed)
        t_step.append(time.perf_counter() - t)
    saved = pp.DIRECT_MAX_WORDS
    pp.DIRECT_MAX_WORDS = len(space)  # every pivot through float64 distances to all words
    t = time.perf_counter()
    fix.post_process(space, pivots, args.epsilon, rng=args.seed)
    t_direct = time.perf_counter() - t
    pp.DIRECT_MAX_WORDS = saved

    mp, mf, ms = statistics.median(t_plain), statistics.median(t_fix), statistics.median(t_step)
    ranks_drawn = pp.sample_ranks(len(space), np.full(n, fix.c * args.epsilon), rng=args.seed)
    print(f"\n{n:,} samples of {args.word!r} at eps = {args.epsilon:g}, c = {fix.c:g} "
          f"(median of {args.repeats}, interleaved)")
    print(f"  plain mechanism:           {mp:7.3f} s   ({1e3 * mp / n:.3f} ms/sample)   runs: "
          + ", ".join(f"{x:.3f}" for x in t_plain))
    print(f"  fix (pivots + step):       {mf:7.3f} s   ({1e3 * mf / n:.3f} ms/sample)   runs: "
          + ", ".join(f"{x:.3f}" for x in t_fix))
    print(f"  added by the fix:          {1e3 * (mf - mp) / n:7.3f} ms/sample   (target <= 2 ms)")
    print(f"  post-processing step alone: {ms:6.3f} s   ({1e3 * ms / n:.3f} ms/sample)")
    print(f"  same step, direct route:   {t_direct:7.3f} s   ({1e3 * t_direct / n:.3f} ms/sample, one run)")
    print(f"  distinct pivots: {np.unique(pivots).size}, pivot = input word: {np.mean(pivots == row):.1%}, "
          f"output = input word: {np.mean(outputs == row):.1%}, largest rank drawn: {ranks_drawn.max()}")

    # ---------------------------------------------------------------- Fig. 8
    eps = np.array([float(e) for e in args.epsilons.split(",")])
    t = time.perf_counter()
    sweep_plain = epsilon_sweep(space, eps, words=args.words, rng=args.seed)
    t1 = time.perf_counter() - t
    t = time.perf_counter()
    sweep_fix = epsilon_sweep(space, eps, words=args.words, mechanism=fix, rng=args.seed)
    t2 = time.perf_counter() - t
    w = args.words
    print(f"\nFig. 8: {w} words drawn uniformly (seed {args.seed}), one output per word and eps, K = 100; "
          f"± one standard error ({t1:.1f} s plain, {t2:.1f} s fix)")
    print(f"{'eps':>5} | {'plain original':>15} {'close':>13} {'distant':>13} | "
          f"{'fix original':>13} {'close':>13} {'distant':>13}")
    for i, e in enumerate(eps):
        cells = []
        for sweep in (sweep_plain, sweep_fix):
            for key in ("original", "close", "distant"):
                p = float(sweep.proportions[key][i])
                cells.append(f"{p:6.3f} ± {np.sqrt(p * (1 - p) / w):.3f}")
        print(f"{e:5g} | {cells[0]:>15} {cells[1]:>13} {cells[2]:>13} | {cells[3]:>13} {cells[4]:>13} {cells[5]:>13}")


if __name__ == "__main__":
    main()
