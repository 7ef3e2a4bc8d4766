"""The exact search on 1 and T threads: how it cuts the work (`search_pieces`) and the speed-up, this
checkout against a baseline revision's `privlib/words/search.py`, in the same run.

Task: m noisy queries (m random GloVe words + multivariate Laplace noise at epsilon = 10, the
sweeps' random-word workload) -> the exact nearest word of each, over the full GloVe 6B 50d
vocabulary (400,000 words). For each m and each thread count, the baseline and this checkout run in
alternation (round by round, so both see the same machine load); each reports its median time,
and the speed-up of T threads over 1. Every answer is checked equal to the one-thread answer of
this checkout (indices; the distances follow from them).

Before the timings, the cut each version makes is printed for 1, 2, 8 and 16 threads (the
baseline's by its own rules: query chunks of at most 1,000, a multiple of its thread count, which
its default capped at 8; at most 1,000 queries: vocabulary parts).

    python bench/bench_search_threads.py [--baseline 5e74ab2] [--queries 2000,20000] [--threads 1,2]
                                         [--repeats 5]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import machine_info  # bench/timing.py, beside this script

import privlib.words.search as new_search
from privlib.core.noise import laplace_noise
from privlib.words import EmbeddingSpace

#: The last commit before the cut for T threads (query chunks or vocabulary parts, 8 threads at most).
BASELINE = "5e74ab2"
THREADS_VARIABLE = "PRIVLIB_THREADS"


def load_baseline(revision: str):
    """The baseline's privlib/words/search.py as a module of its own (it imports this checkout's
    privlib.core, whose functions it uses are unchanged)."""
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{revision}:privlib/words/search.py"],
                          check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix="bench_search_threads_") as folder:  # loaded, then removed
        path = Path(folder) / "search_baseline.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location("search_baseline", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def baseline_cut(old, m: int, threads: int, default: bool = False) -> str:
    """The baseline's cut of m queries on ``threads`` threads (its default capped threads at 8)."""
    threads = min(threads, 8) if default else threads
    if m <= old.QUERY_BLOCK:
        parts = min(threads, -(-400_000 // old.WORD_BLOCK))
        return f"{parts} vocabulary part(s) x {m} queries, then step 2 in the calling thread"
    os.environ[THREADS_VARIABLE] = str(threads)
    try:
        chunks = old._query_chunks(m)
    finally:
        del os.environ[THREADS_VARIABLE]
    sizes = sorted({c.stop - c.start for c in chunks})
    return f"{len(chunks)} query chunk(s) of {'/'.join(map(str, sizes))}, each over the whole vocabulary"


def new_cut(m: int, threads: int) -> str:
    pieces = new_search.search_pieces(m, 400_000, threads)
    chunks = sorted({(p.queries.start, p.queries.stop) for p in pieces})
    slices = len(pieces) // len(chunks)
    sizes = sorted({b - a for a, b in chunks})
    words = f"{slices} vocabulary slice(s)" if slices > 1 else "the whole vocabulary"
    return f"{len(pieces)} pieces = {len(chunks)} query chunk(s) of {'/'.join(map(str, sizes))} x {words}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--queries", default="2000,20000")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--epsilon", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(v) for v in args.queries.split(",")]
    thread_counts = [int(v) for v in args.threads.split(",")]

    print(machine_info())
    print(f"cores this process may use: {len(os.sched_getaffinity(0))}")
    old = load_baseline(args.baseline)
    print(f"\nthe cut of a search over 400,000 words (baseline {args.baseline} | this checkout):")
    for m in sizes:
        for threads in (1, 2, 8, 16):
            default = " (its default on 16 cores: 8 threads)" if threads == 16 else ""
            print(f"  {m:>6} queries, {threads:>2} threads: baseline {baseline_cut(old, m, threads, bool(default))}"
                  f"{default} | new {new_cut(m, threads)}")

    space = EmbeddingSpace.glove_6b_50d()
    rng = np.random.default_rng(0)
    searches = {"baseline": old.ExactSearch(space), "new": new_search.ExactSearch(space)}

    def use(version: str, threads: int):
        """Make ``version``'s search run on ``threads`` worker threads (a fresh pool)."""
        if version == "new":
            new_search.SEARCH_WORKERS.shutdown()
            new_search.SEARCH_WORKERS = new_search.SearchWorkers(threads=threads)
        else:  # the baseline reads the thread count from the environment (pool and cut)
            os.environ[THREADS_VARIABLE] = str(threads)
            if old.SEARCH_WORKERS._executor is not None:  # the baseline has no shutdown of its own
                old.SEARCH_WORKERS._executor.shutdown()
            old.SEARCH_WORKERS = old.SearchWorkers()

    for m in sizes:
        rows = rng.choice(len(space), m, replace=False)
        points = space.vectors[rows].astype(np.float64) + laplace_noise(space.dim, args.epsilon, m, rng)
        use("new", 1)
        reference = searches["new"].nearest(points)
        times = {(v, t): [] for v in searches for t in thread_counts}
        load = []
        for _ in range(args.repeats):  # round by round: every variant sees the same load
            load.append(os.getloadavg()[0])
            for threads in thread_counts:
                for version, search in searches.items():
                    use(version, threads)
                    search.nearest(points[:50])  # start the pool's threads outside the timing
                    start = time.perf_counter()
                    found = search.nearest(points)
                    times[version, threads].append(time.perf_counter() - start)
                    if not np.array_equal(found, reference):
                        raise SystemExit(f"{version} on {threads} threads differs from the one-thread answer "
                                         f"({np.count_nonzero(found != reference)} of {m} queries)")
        print(f"\n{m} queries at epsilon = {args.epsilon:g}, {args.repeats} rounds, load average (1 min) during the "
              f"rounds: median {statistics.median(load):.1f} (from {min(load):.1f} to {max(load):.1f}); "
              "answers equal to the one-thread answer: yes")
        for version in searches:
            medians = {t: statistics.median(times[version, t]) for t in thread_counts}
            runs = "; ".join(f"{t} thread(s): median {medians[t]:.3f} s (runs "
                             f"{', '.join(f'{x:.2f}' for x in times[version, t])})" for t in thread_counts)
            print(f"  {version:>8}: {runs}")
            for t in thread_counts[1:]:
                print(f"  {version:>8}: speed-up of {t} threads over {thread_counts[0]}: "
                      f"x{medians[thread_counts[0]] / medians[t]:.2f}")
        for t in thread_counts:
            print(f"  new / baseline time on {t} thread(s): "
                  f"{statistics.median(times['new', t]) / statistics.median(times['baseline', t]):.2f}")
    os.environ.pop(THREADS_VARIABLE, None)


if __name__ == "__main__":
    main()
