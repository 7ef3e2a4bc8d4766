"""How close the word-level cost model's estimates (privlib.words.cost, what the CLI's long-work
refusal uses) come to the time the work then takes on this machine.

    python bench/bench_cost_model.py [--workloads ranks,sweep,table2,choose]

For each workload: the estimate (timed kernels of this machine, so it follows the load), the time
the work took, their ratio, and the time the estimate itself took. The estimate is meant to be
within a factor of 3 of the work on a machine whose load does not change between the two; a
benchmark, not a test, since the ratio depends on that load (tests fix the kernel costs with
PRIVLIB_KERNEL_NANOSECONDS instead).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import machine_info  # noqa: E402

from privlib.words.choice import WordSet, mechanism_metrics  # noqa: E402
from privlib.words.cost import (  # noqa: E402
    KERNEL_NANOSECONDS_VARIABLE,
    epsilon_sweep_seconds,
    mechanism_metrics_seconds,
    neighbour_distances_seconds,
    rank_experiment_seconds,
)
from privlib.words.embeddings import EmbeddingSpace  # noqa: E402
from privlib.words.experiments import epsilon_sweep, rank_experiment  # noqa: E402
from privlib.words.mechanisms import MultivariateLaplace  # noqa: E402
from privlib.words.theory.neighbour_distances import neighbour_distances  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="ranks,sweep,table2,choose")
    args = parser.parse_args(argv)
    os.environ.pop(KERNEL_NANOSECONDS_VARIABLE, None)  # the real, timed kernels
    print(machine_info())
    glove = EmbeddingSpace.glove_6b_50d()
    laplace, grid = MultivariateLaplace.family(), np.arange(1.0, 11.0)
    words = WordSet.random(glove, 10, 0)
    workloads = {
        "ranks": (lambda: rank_experiment_seconds(glove, "king", 10.0, 5000, laplace),
                  lambda: rank_experiment(glove, "king", 10.0, 5000, laplace, rng=0)),
        "sweep": (lambda: epsilon_sweep_seconds(glove, grid, 200, laplace),
                  lambda: epsilon_sweep(glove, grid, 200, laplace, rng=0)),
        "table2": (lambda: neighbour_distances_seconds(glove, 1500),
                   lambda: neighbour_distances(glove, 1500, rng=0)),
        "choose": (lambda: mechanism_metrics_seconds(glove, words, grid, laplace, 50),
                   lambda: mechanism_metrics(glove, words, grid, laplace, 50, rng=0)),
    }
    print(f"{'workload':<8} {'estimate s':>11} {'took s':>8} {'estimate/took':>14} {'estimating s':>13}")
    for name in args.workloads.split(","):
        estimate, work = workloads[name]
        start = time.perf_counter()
        seconds = estimate()
        estimating = time.perf_counter() - start
        start = time.perf_counter()
        work()
        taken = time.perf_counter() - start
        print(f"{name:<8} {seconds:>11.2f} {taken:>8.2f} {seconds / taken:>14.2f} {estimating:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
