"""Neighbour-order prefixes for the post-processing fix on the full GloVe 6B 50d vocabulary.

Workload: the "Choose epsilon" page's default run of the fix — the paper's paragraph (30 distinct
words) x 20 runs x epsilons 1,2,3,5,8,12,20,30 = 4,800 pivots from the multivariate Laplace
mechanism; the post-processing step draws a rank per pivot and needs each distinct pivot's
neighbour order up to the largest rank drawn for it.

Compared in the same run, on the same pivots and ranks:
- `PostProcessingFix.post_process` (threshold guessed from a sample of scores, one chunked pass
  keeping the scores below it, `postprocessing._prefixes_fast`);
- the former route, written out here: the full float32 score row of each pivot (blocks of 32
  pivots) and a partition of all N scores per pivot to find the threshold.
Both must give identical outputs.

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

import privlib.words.mechanisms.postprocessing as pp  # noqa: E402
from privlib.words import EmbeddingSpace, MultivariateLaplace  # noqa: E402
from privlib.words.text import PAPER_EXAMPLE, vocabulary_words  # noqa: E402


def former_prefixes_fast(space, rows, lengths):
    """The threshold by a partition of each pivot's whole float32 score row (then the same
    candidates, float64 re-score and certificate as `_prefixes_fast`: `_certified_prefix`)."""
    search = space.exact_search
    p64 = space.vectors[rows].astype(np.float64)
    queries = np.empty((rows.size, space.dim + 1), dtype=np.float32)
    queries[:, :space.dim] = -2.0 * p64
    queries[:, space.dim] = 1.0
    scores = queries @ search._augmented.T
    norms = np.sqrt(space.sq_norms[rows])
    tau = search._tau_factor * (2.0 * norms * search._max_norm + search._max_norm**2)
    margin = 8 * (space.dim + 2) * 2.0**-53 * (norms + search._max_norm) ** 2
    out = []
    for i, (row, k) in enumerate(zip(rows, lengths)):
        t = float(np.partition(scores[i], k)[k])
        cand = np.flatnonzero(scores[i] <= np.nextafter(np.float32(t + 2.0 * tau[i]), np.float32(np.inf)))
        out.append(pp._certified_prefix(space, int(row), int(k), cand, p64[i], margin[i]))
    return out


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
    fix = pp.PostProcessingFix()
    print(f"{pivots.size:,} pivots, {np.unique(pivots).size:,} distinct, on {len(space):,} words")

    new_route, former = pp._prefixes_fast, former_prefixes_fast
    times = {"new": [], "former": []}
    outputs = {}
    for _ in range(args.repeats):  # interleaved: both see the same machine load
        for name, route, block in (("new", new_route, pp.PIVOT_BLOCK), ("former", former, 32)):
            pp._prefixes_fast, saved_block = route, pp.PIVOT_BLOCK
            pp.PIVOT_BLOCK = block
            t = time.perf_counter()
            outputs[name] = fix.post_process(space, pivots, per_row_eps, rng=2)
            times[name].append(time.perf_counter() - t)
            pp._prefixes_fast, pp.PIVOT_BLOCK = new_route, saved_block
    new, old = np.median(times["new"]), np.median(times["former"])
    print(f"post-processing step, new route:    median {new:.2f} s  runs " + ", ".join(f"{x:.2f}" for x in times["new"]))
    print(f"post-processing step, former route: median {old:.2f} s  runs " + ", ".join(f"{x:.2f}" for x in times["former"]))
    print(f"speed-up: {old / new:.2f}x; identical outputs: {np.array_equal(outputs['new'], outputs['former'])}")


if __name__ == "__main__":
    main()
