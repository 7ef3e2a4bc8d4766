"""Ten users on one server: the Neighbour ranks page's work on an epsilon change, from threads.

The issue: ten browser sessions changing epsilon on Neighbour ranks were served one at a time
(~7.7 s per interaction, 1.4 GB resident at peak). Browsers are not run here (they would share the
two cores with the server): Streamlit runs each session's script in its own thread, all sharing
the one cached `EmbeddingSpace` (``st.cache_resource``), so the server's own work is reproduced by
threads calling the page's computations on one shared space.

One interaction = what the page (``pages/neighbour_ranks.py``) does on an epsilon
change: a cache miss of ``cached_rank_experiment`` -> ``rank_experiment(space, word, eps, 2000)``
(pickled into and out of ``st.cache_data``), then the page's rendering from privlib: the standard
errors, the rank histogram, the top table, the CSV and JSON downloads, the proportions-vs-epsilon
chart with the word's cached curve (computed once per word before timing: its key has no epsilon),
and both figures serialised as ``st.plotly_chart`` does (``plotly.io.to_json``).

Phases, each in a fresh process (so peak RSS is the phase's own), same run:
  solo  — 1 user doing ``--solo`` interactions one after another (the baseline);
  crowd — ``--users`` users (threads) started together, each doing ``--rounds`` interactions.
for "before" (`ExactSearch` as of ``--baseline-rev``, via ``git show``) and "after" (the
working tree), alternating the order per repeat. Every user has its own word and epsilons, so no
two interactions share a cache entry; outputs (ranks) must be identical before and after.
Reported: p50 / p95 latency per interaction, throughput, CPU cores busy (process CPU / wall),
peak RSS (sampled every 10 ms; and ru_maxrss), BLAS threads seen during the phase and after it.

    python bench/bench_concurrency.py [--users 10] [--rounds 2] [--solo 4] [--repeats 1]
"""
import argparse
import hashlib
import json
import pickle
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere

from bench_search_gap import BASELINE_REV, previous_search_module, use_search
from timing import machine_info

#: One word per user (frequent words, as the page's picker offers) and each user's first epsilon.
WORDS = ("king", "queen", "paris", "computer", "music", "river", "doctor", "happy", "green", "money",
         "water", "school", "house", "car", "friend", "city")
EPSILONS = (10, 12, 8, 15, 5, 20, 7, 9, 11, 13, 6, 14, 16, 18, 25, 30)
CURVE_EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)  # the page's per-word curve
SEED = 42


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


class Sampler(threading.Thread):
    """Peak resident memory and the BLAS thread counts seen, every ``period`` seconds."""

    def __init__(self, period: float = 0.01):
        super().__init__(daemon=True)
        from threadpoolctl import ThreadpoolController

        self.blas = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
        self.period = period
        self.peak = rss_mb()
        self.multi = 0
        self.samples = 0
        self.running = True

    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_mb())
            if self.samples % 5 == 0:  # BLAS counts every 50 ms (a cheap read of each library's setting)
                self.multi += any(c.get_num_threads() > 1 for c in self.blas)
            self.samples += 1
            time.sleep(self.period)


def interaction(space, word, epsilon, curve, samples, close=100):
    """The page's work on an epsilon change; returns (seconds in rank_experiment, ranks digest)."""
    import plotly.io

    from privlib.presentation.words import figures
    from privlib.words.experiments import rank_experiment
    from privlib.words.mechanisms import MultivariateLaplace

    t = time.perf_counter()
    result = rank_experiment(space, word, epsilon, samples, MultivariateLaplace(), close, rng=SEED)
    compute = time.perf_counter() - t
    result = pickle.loads(pickle.dumps(result))  # st.cache_data stores and returns a pickled copy
    result.standard_errors()
    histogram = figures.rank_histogram(*result.rank_distribution(), len(space), close, exact=result.exact,
                                       title=f"Ranks of {samples:,} outputs for “{word}” at ε = {epsilon:g}")
    result.top_table()
    result.to_csv()
    result.to_json()
    chart = figures.proportions_vs_epsilon([(f"“{word}” (300 samples per ε)", curve)],
                                           title="Proportions of outputs against ε")
    for fig in (histogram, chart):
        plotly.io.to_json(fig, validate=False)
    return compute, hashlib.sha1(np.ascontiguousarray(result.ranks).tobytes()).hexdigest()[:12]


def run_phase(impl: str, users: int, rounds: int, samples: int, rev: str) -> dict:
    """One phase in this process: ``users`` threads x ``rounds`` interactions (users = 1: solo)."""
    from threadpoolctl import threadpool_info

    from privlib.words import EmbeddingSpace
    from privlib.words.experiments import epsilon_sweep

    space = EmbeddingSpace.glove_6b_50d()
    if impl == "before":
        use_search(space, previous_search_module(rev).ExactSearch(space))
    else:
        use_search(space, space.exact_search)  # built here, not in the first interaction
    words = [WORDS[u % len(WORDS)] for u in range(users)]
    curves = {w: epsilon_sweep(space, CURVE_EPSILONS, [w], close=100, rng=SEED, samples_per_word=300)
              for w in set(words)}  # cached by the page on the first view; an epsilon change reuses it
    interaction(space, "king", 3.0, curves[words[0]], samples)  # warm-up (first touch, threads, plotly)
    rss_before = rss_mb()
    records = []
    lock = threading.Lock()
    barrier = threading.Barrier(users)

    def user(u):
        barrier.wait()
        for k in range(rounds):
            eps = EPSILONS[u % len(EPSILONS)] + 0.5 * k
            t = time.perf_counter()
            compute, digest = interaction(space, words[u], eps, curves[words[u]], samples)
            with lock:
                records.append({"user": u, "round": k, "seconds": time.perf_counter() - t, "compute": compute,
                                "digest": digest})

    sampler = Sampler()
    sampler.start()
    threads = [threading.Thread(target=user, args=(u,), name=f"session-{u}") for u in range(users)]
    t0, c0 = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sampler.running = False
    sampler.join()
    latencies = np.array([r["seconds"] for r in records])
    return {
        "impl": impl, "users": users, "rounds": rounds, "wall": wall, "cpu": cpu,
        "p50": float(np.percentile(latencies, 50)), "p95": float(np.percentile(latencies, 95)),
        "mean": float(latencies.mean()), "compute_mean": float(np.mean([r["compute"] for r in records])),
        "throughput": len(records) / wall, "rss_before": rss_before, "rss_peak": sampler.peak,
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "blas_multi_fraction": sampler.multi / max(1, -(-sampler.samples // 5)),
        "blas_after": [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"],
        "digests": {f"{r['user']}-{r['round']}": r["digest"] for r in records},
        "finish_order": [r["user"] for r in records],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2, help="interactions per user in the crowd phase")
    parser.add_argument("--solo", type=int, default=4, help="interactions of the lone user")
    parser.add_argument("--samples", type=int, default=2000, help="the page's default sample count")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    parser.add_argument("--phase", nargs=3, metavar=("IMPL", "USERS", "ROUNDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # a child process: one phase, JSON on stdout
        impl, users, rounds = args.phase[0], int(args.phase[1]), int(args.phase[2])
        print(json.dumps(run_phase(impl, users, rounds, args.samples, args.baseline_rev)))
        return

    print(machine_info())
    results = []
    for rep in range(args.repeats):
        order = ("before", "after") if rep % 2 == 0 else ("after", "before")
        for users, rounds in ((1, args.solo), (args.users, args.rounds)):
            for impl in order:
                out = subprocess.run([sys.executable, __file__, "--samples", str(args.samples), "--baseline-rev",
                                      args.baseline_rev, "--phase", impl, str(users), str(rounds)],
                                     check=True, capture_output=True, text=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                results.append(r)
                print(f"  [{rep}] {impl:6s} {users:2d} user(s) x {rounds}: p50 {r['p50']:.2f} s, p95 {r['p95']:.2f} s, "
                      f"mean {r['mean']:.2f} s (rank_experiment {r['compute_mean']:.2f} s), "
                      f"{r['throughput'] * 60:.1f} interactions/min, {r['cpu'] / r['wall']:.2f} cores busy, "
                      f"RSS {r['rss_before']:.0f} -> peak {r['rss_peak']:.0f} MB (ru_maxrss {r['maxrss']:.0f} MB), "
                      f"BLAS > 1 thread in {r['blas_multi_fraction']:.0%} of samples, after: {r['blas_after']}",
                      flush=True)

    print("\nsummary (median over repeats):")
    for users in (1, args.users):
        line = []
        for impl in ("before", "after"):
            rs = [r for r in results if r["impl"] == impl and r["users"] == users]
            line.append(f"{impl}: p50 {np.median([r['p50'] for r in rs]):.2f} s, "
                        f"p95 {np.median([r['p95'] for r in rs]):.2f} s, "
                        f"{np.median([r['throughput'] for r in rs]) * 60:.1f}/min, "
                        f"peak RSS {np.median([r['rss_peak'] for r in rs]):.0f} MB")
        print(f"  {users:2d} user(s): " + " | ".join(line))
    same = all(r["digests"][k] == s["digests"][k] for r in results for s in results
               if r["users"] == s["users"] and r["rounds"] == s["rounds"] for k in r["digests"])
    print(f"outputs identical before/after (ranks of every interaction): {same}")


if __name__ == "__main__":
    main()
