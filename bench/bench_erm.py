"""Private ERM: the default comparison (non-private, Output, Obj-Gauss, Input safe × 8 values of n from 300
to 10⁶ × 20 trials, synthetic regression, ε = 1, δ = 1e-6), target ≤ 10 s, with a per-part breakdown and
baselines measured in the same run:

- parts: drawing the data (each trial's sums, accumulated blockwise on the sweep's threads), the cached
  test set, and the fits of each method on those sums;
- baseline 1, the non-private-only sweep (data + one fit per trial): what any comparison costs at least;
- baseline 2, the same sweep with the data drawn on one thread;
- baseline 3, one n = 10⁶ draw as a whole array (``synthetic_records`` + ``loss.sums``) against the
  blockwise sums;
- baseline 4, Input's per-record protocol (explicit ã, b̃ for every record) against the exact O(d³)
  sampler, one fit at n = 10⁴.

    python bench/bench_erm.py [--repeats 3]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import machine_info, timed

import privlib.erm.sweep as sweep_module
from privlib.erm.datasets import synthetic_records, synthetic_sums, synthetic_test_set, trial_seed
from privlib.erm.losses import make_loss
from privlib.erm.mechanisms import InputPerturbationSafe, make_mechanism
from privlib.erm.sweep import COMPARISON_METHODS, DEFAULT_NS, n_sweep, noise_generator, valid_of

TRIALS = 20
EPSILON, DELTA = 1.0, 1e-6
TARGET_SECONDS = 10.0


def default_comparison(methods=COMPARISON_METHODS):
    return n_sweep("synthetic", methods, DEFAULT_NS, epsilon=EPSILON, delta=DELTA, repeats=TRIALS, seed=0)


def data_part(loss):
    """Every trial's sums, drawn as the sweep draws them (threads, BLAS on one thread)."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(limits=1), ThreadPoolExecutor(max_workers=sweep_module.workers()) as pool:
        for n in DEFAULT_NS:
            out[n] = list(pool.map(lambda t, n=n: synthetic_sums(loss, n, 10, trial_seed(0, n, t)), range(TRIALS)))
    return out


def fits_part(loss, sums_by_n, method):
    mechanism = make_mechanism(method, epsilon=EPSILON, delta=DELTA)
    for n, trials in sums_by_n.items():
        for t, sums in enumerate(trials):
            mechanism.release(sums, loss, noise_generator(0, n, t, method, EPSILON))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of the comparison and baselines 1-2")
    args = parser.parse_args()
    print(machine_info(), flush=True)
    loss = make_loss("squared")
    rows = sum(DEFAULT_NS) * TRIALS
    print(f"\nDefault comparison: {COMPARISON_METHODS} × n {DEFAULT_NS} × {TRIALS} trials "
          f"({rows:,} synthetic records of d = 10), ε = {EPSILON:g}, δ = {DELTA:g}, {sweep_module.workers()} "
          "data threads", flush=True)
    t = time.perf_counter()
    synthetic_test_set(10)
    test_seconds = time.perf_counter() - t
    # the comparison and baselines 1 and 2 interleaved, so that a change of machine load hits all three
    times = {"comparison": [], "non_private": [], "one_thread": []}
    original = sweep_module.workers
    for _ in range(args.repeats):
        seconds, _, sweep = timed(default_comparison, 1)
        times["comparison"].append(seconds)
        times["non_private"].append(timed(lambda: default_comparison(("non_private",)), 1)[0])
        sweep_module.workers = lambda: 1
        try:
            times["one_thread"].append(timed(default_comparison, 1)[0])
        finally:
            sweep_module.workers = original
    seconds, np_seconds, single = (statistics.median(times[k]) for k in ("comparison", "non_private", "one_thread"))
    verdict = "within" if seconds <= TARGET_SECONDS else "OVER"
    print(f"  n_sweep: {seconds:.2f} s (median; runs: {', '.join(f'{x:.2f}' for x in times['comparison'])}), "
          f"{verdict} the {TARGET_SECONDS:g} s target", flush=True)
    for m in sweep.mechanisms:
        cells = ("invalid" if not ok else f"{v:.4f}" for v, ok in zip(sweep.mean(m, "rmse"), valid_of(sweep, m)))
        print(f"    {m:<12}" + " ".join(cells))

    print("\nParts:", flush=True)
    print(f"  test set (20,000 points, drawn once and cached): {test_seconds:.3f} s")
    t = time.perf_counter()
    sums_by_n = data_part(loss)
    data_seconds = time.perf_counter() - t
    print(f"  data: {len(DEFAULT_NS) * TRIALS} trials' sums, blockwise, {sweep_module.workers()} threads: "
          f"{data_seconds:.2f} s ({data_seconds / rows * 1e9:.0f} ns per record)", flush=True)
    fit_total = 0.0
    for method in COMPARISON_METHODS:
        t = time.perf_counter()
        fits_part(loss, sums_by_n, method)
        part = time.perf_counter() - t
        fit_total += part
        count = len(DEFAULT_NS) * TRIALS
        print(f"  fits, {method:<12}: {part:.3f} s ({part / count * 1e6:.0f} µs per fit)", flush=True)
    print(f"  data + fits: {data_seconds + fit_total:.2f} s (the rest of the sweep: evaluation and bookkeeping)")

    print("\nBaselines (same run; 1 and 2 interleaved with the comparison, medians):", flush=True)
    runs = ", ".join(f"{x:.2f}" for x in times["non_private"])
    print(f"  1. non-private-only sweep: {np_seconds:.2f} s (runs: {runs}; the comparison costs "
          f"{seconds / np_seconds:.2f}x)", flush=True)
    print(f"  2. the comparison with the data on one thread: {single:.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in times['one_thread'])}; two threads give {single / seconds:.2f}x)",
          flush=True)
    n = 1_000_000
    block, _, _ = timed(lambda: synthetic_sums(loss, n, 10, trial_seed(0, n, 0)), 3)
    whole, _, _ = timed(lambda: loss.sums(*synthetic_records(n, 10, trial_seed(0, n, 0))), 3)
    print(f"  3. one n = 10⁶ draw: blockwise sums {block:.3f} s, whole array + loss.sums {whole:.3f} s "
          f"({whole / block:.2f}x)", flush=True)
    n = 10_000
    X, y = synthetic_records(n, 10, 1)
    sums = loss.sums(X, y)
    records = (loss.a(X), loss.b(X, y))
    rng = np.random.default_rng(0)
    safe = InputPerturbationSafe(epsilon=EPSILON, delta=DELTA)
    fast, _, _ = timed(lambda: safe.release(sums, loss, rng), 50)
    slow, _, _ = timed(lambda: safe.release(sums, loss, rng, records=records), 10)
    print(f"  4. Input at n = 10⁴: exact sampler {fast * 1e6:.0f} µs per fit, per-record protocol "
          f"{slow * 1e3:.2f} ms per fit ({slow / fast:.0f}x)", flush=True)


if __name__ == "__main__":
    main()
