"""Neighbour-order prefixes for the post-processing fix on the full GloVe 6B 50d vocabulary.

Workload: the "Choose epsilon" page's default run of the fix — the paper's paragraph (30 distinct
words) x 20 runs x epsilons 1,2,3,5,8,12,20,30 = 4,800 pivots from the multivariate Laplace
mechanism; the post-processing step draws a rank per pivot and needs each distinct pivot's
neighbour order up to the largest rank drawn for it (`neighbour_order_prefixes`).

Compared in the same run, on the same pivots and lengths (interleaved, so both see the same load):
- the fast route (`method="fast"`: a float32 pre-selection with a threshold guessed from a sample
  of scores, then a float64 certificate — what the mechanism uses on large vocabularies);
- the direct route (`method="direct"`: float64 distances to every word and a partition per pivot).
Both must give identical prefixes. The full step (`PostProcessingFix.post_process`) is timed too.

    python bench/bench_prefixes.py [--repeats 3]
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from privlib.words import EmbeddingSpace, MultivariateLaplace  # noqa: E402
from privlib.words.mechanisms import PostProcessingFix  # noqa: E402
from privlib.words.mechanisms.postprocessing import sample_ranks  # noqa: E402
from privlib.words.neighbours import neighbour_order_prefixes  # noqa: E402
from privlib.words.text import PAPER_EXAMPLE, vocabulary_words  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.python_version()}, numpy {np.__version__}")
    space = EmbeddingSpace.glove_6b_50d()
    space.exact_search
    rows = space.indices(vocabulary_words(PAPER_EXAMPLE, space))
    eps = np.array([1, 2, 3, 5, 8, 12, 20, 30.0])
    inputs = np.tile(np.repeat(rows, 20), eps.size)
    per_row_eps = np.repeat(eps, rows.size * 20)
    pivots = MultivariateLaplace().sample_many(space, inputs, per_row_eps, rng=1)
    fix = PostProcessingFix()
    ranks = sample_ranks(len(space), fix.c * per_row_eps, rng=2)
    unique, inverse = np.unique(pivots, return_inverse=True)
    lengths = np.zeros(unique.size, dtype=np.int64)
    np.maximum.at(lengths, inverse, ranks + 1)
    print(f"{pivots.size:,} pivots, {unique.size:,} distinct, on {len(space):,} words")

    times = {"fast": [], "direct": [], "post_process": []}
    prefixes = {}
    for _ in range(args.repeats):
        for method in ("fast", "direct"):
            t = time.perf_counter()
            prefixes[method] = dict(neighbour_order_prefixes(space, unique, lengths, method=method))
            times[method].append(time.perf_counter() - t)
        t = time.perf_counter()
        fix.post_process(space, pivots, per_row_eps, rng=2)
        times["post_process"].append(time.perf_counter() - t)
    same = all(np.array_equal(prefixes["fast"][i], prefixes["direct"][i]) for i in range(unique.size))
    for name, values in times.items():
        print(f"{name:<13} median {np.median(values):.2f} s  runs " + ", ".join(f"{x:.2f}" for x in values))
    print(f"fast route speed-up over direct: {np.median(times['direct']) / np.median(times['fast']):.2f}x; "
          f"identical prefixes: {same}")


if __name__ == "__main__":
    main()
