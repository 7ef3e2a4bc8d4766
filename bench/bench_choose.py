"""Choosing epsilon on the full GloVe 6B 50d vocabulary (400,000 words).

Task: 100 words drawn uniformly from the vocabulary x 30 epsilons (1..30) x 200 runs each with
the multivariate Laplace mechanism -> every metric of `privlib.words.choice` (600,000 exact
nearest-neighbour searches, their exact ranks, cosines, distinct outputs, entropies, medians)
and the inverse answers. Same-run baseline: `experiments.epsilon_sweep` on the same words, grid
and runs per word — the same sampling, but only the original / close / distant classes — so
the ratio is the price of the extra metrics. (Compute only: the embedding is loaded first.)

    python bench/bench_choose.py [--words 100] [--epsilons 1:30] [--samples 200] [--repeats 1]
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import timed  # noqa: E402  (bench/timing.py, beside this script)
from privlib.words import EmbeddingSpace, MultivariateLaplace  # noqa: E402
from privlib.words.choice import Targets, WordSet, assemble_choice, epsilon_grid, mechanism_metrics  # noqa: E402
from privlib.words.experiments import epsilon_sweep  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=100)
    parser.add_argument("--epsilons", default="1:30")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.python_version()}, numpy {np.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    space = EmbeddingSpace.glove_6b_50d()
    space.exact_search
    MultivariateLaplace().sample_many(space, np.arange(2000), 10.0, rng=0)  # warm-up (first touch, threads)
    space.squared_distances([0, 1])  # builds the float64 copy used by every multi-word distance block
    words = WordSet.random(space, args.words, seed=0)
    grid = epsilon_grid(args.epsilons)
    runs = len(words) * grid.size * args.samples
    print(f"{len(words)} words x {grid.size} epsilons x {args.samples} runs = {runs:,} runs on {len(space):,} words")

    phases = {}

    def choose():
        phases.clear()
        start = time.perf_counter()

        def progress(fraction, message):
            if ": ran ε" in message:  # the last one marks the end of the sampling
                phases["sampling"] = time.perf_counter() - start

        result = mechanism_metrics(space, words, grid, MultivariateLaplace(), args.samples, rng=1, progress=progress)
        phases["total"] = time.perf_counter() - start
        return result

    t_choose, times, result = timed(choose, args.repeats)
    answer = assemble_choice(space, words, [result], Targets()).answers[0]
    print(f"choose (all metrics): median {t_choose:.1f} s (runs {', '.join(f'{t:.1f}' for t in times)}) = "
          f"{runs / t_choose:,.0f} runs/s; of which sampling {phases['sampling']:.1f} s, ranks + statistics "
          f"{phases['total'] - phases['sampling']:.1f} s")
    print(f"  answer: {answer.message}")

    t_sweep, times, sweep = timed(lambda: epsilon_sweep(space, grid, list(words.words), MultivariateLaplace(),
                                                        rng=1, samples_per_word=args.samples), args.repeats)
    print(f"baseline epsilon_sweep (same runs, classes only): median {t_sweep:.1f} s "
          f"(runs {', '.join(f'{t:.1f}' for t in times)})")
    print(f"ratio choose / sweep: {t_choose / t_sweep:.2f}")
    # same seed and batching: both draw the same outputs, so their shares must agree exactly
    same = np.allclose(result.values["unchanged"], sweep.proportions["original"], rtol=0, atol=1e-12) and \
        np.allclose(result.values["close"], sweep.proportions["close"], rtol=0, atol=1e-12)
    print(f"check: same draws, unchanged/close shares identical to the sweep's original/close: {same}")


if __name__ == "__main__":
    main()
