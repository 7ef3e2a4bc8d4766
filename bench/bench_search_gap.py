"""The exact search on one repeated word against random words (issue: ~1,900 q/s for random words,
~3,500 q/s for one repeated word), before and after, in the same run.

Workloads (full GloVe 6B 50d, 400,000 words; noisy queries of the multivariate Laplace mechanism
at ``--epsilon``, through the mechanism's own paths):

  (a) one word:      2,000 noisy copies of "king" in one ``space.nearest`` call — what
                     ``MultivariateLaplace.sample(space, "king", eps, 2000)`` (the rank page) searches;
  (b) random words:  one noisy copy of each of 2,000 words drawn from the whole vocabulary, in one
                     call — what ``sample_many`` (the sweeps' path) searches;
  (c) random words in small calls: ``sample(space, w, eps, --per-word)`` word by word — a caller
                     that does not batch (each call pays a full pass over the vocabulary).

(a) and (b) time the search alone on points drawn once, as the mechanism draws them (so a cache
of recent ``sample_many`` calls cannot answer for the search under test).

"before" is `ExactSearch` as of ``--baseline-rev`` (read with ``git show``, imported from a
temporary file), "after" the working tree's; each repeat runs both on every workload, alternating
which goes first. Outputs must be identical (same seeds). One extra instrumented run per
implementation reports where the CPU time goes (summed over the worker threads).

    python bench/bench_search_gap.py [--epsilon 10] [--repeats 3] [--per-word 8] [--per-word-queries 400]
"""
import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere

from timing import machine_info

from privlib.core.noise import laplace_noise
from privlib.words import EmbeddingSpace, MultivariateLaplace
from privlib.words.search import ExactSearch

#: The commit whose `privlib/words/search.py` is "before" (the last one before the block-minima search).
BASELINE_REV = "fa6f72d"


def previous_search_module(rev: str = BASELINE_REV):
    """`privlib.words.search` as of commit ``rev``, imported under another name from a temporary
    copy (``git show``; nothing in the repository changes)."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:privlib/words/search.py"],
                          check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix="search-before-") as folder:
        path = Path(folder) / "search_before.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"search_before_{rev}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def use_search(space, search) -> None:
    """Make ``search`` the space's exact search (what `MultivariateLaplace` asks for)."""
    space.__dict__["exact_search"] = search


def cpu_profile(cls, names):
    """Wrap methods ``names`` of ``cls`` to add their thread CPU time (and calls) to a dict;
    returns (dict, undo)."""
    spent, originals = {}, {}
    for name in names:
        original = getattr(cls, name)
        originals[name] = original

        def wrapper(self, *args, _name=name, _original=original, **kwargs):
            t = time.thread_time()
            try:
                return _original(self, *args, **kwargs)
            finally:
                cpu, calls = spent.get(_name, (0.0, 0))
                spent[_name] = (cpu + time.thread_time() - t, calls + 1)

        setattr(cls, name, wrapper)
    return spent, lambda: [setattr(cls, n, f) for n, f in originals.items()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epsilon", type=float, default=10.0)
    parser.add_argument("--samples", type=int, default=2000, help="queries of workloads (a) and (b)")
    parser.add_argument("--word", default="king")
    parser.add_argument("--per-word", type=int, default=8, help="samples per call in workload (c)")
    parser.add_argument("--per-word-queries", type=int, default=400, help="queries of workload (c)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    args = parser.parse_args()

    print(machine_info())
    space = EmbeddingSpace.glove_6b_50d()
    old_module = previous_search_module(args.baseline_rev)
    impls = {"before": old_module.ExactSearch(space), "after": ExactSearch(space)}
    mechanism = MultivariateLaplace()
    row = space.index(args.word)
    rows = np.random.default_rng(7).choice(len(space), args.samples, replace=False)
    small_rows = rows[: max(1, args.per_word_queries // args.per_word)]
    one_word = space.vectors[row].astype(np.float64) + laplace_noise(space.dim, args.epsilon, args.samples, rng=1)
    random_words = space.vectors[rows].astype(np.float64) + laplace_noise(space.dim, args.epsilon, rows.size, rng=1)
    workloads = {
        f"(a) '{args.word}' x {args.samples}, one call": (args.samples, lambda: space.nearest(one_word)),
        f"(b) {args.samples} random words x 1, one call": (rows.size, lambda: space.nearest(random_words)),
        f"(c) {small_rows.size} random words x {args.per_word}, one call each": (
            small_rows.size * args.per_word,
            lambda: np.concatenate([mechanism.sample(space, int(r), args.epsilon, args.per_word, rng=int(r))
                                    for r in small_rows])),
    }
    for name, search in impls.items():  # warm-up: first touch of the buffers, threads
        use_search(space, search)
        search.nearest(space.vectors[:2000].astype(np.float64) + 0.5)

    times = {(w, i): [] for w in workloads for i in impls}
    cpu = {(w, i): [] for w in workloads for i in impls}
    outputs = {}
    for rep in range(args.repeats):  # alternate the order of workloads and implementations (load drifts)
        for w in (list(workloads) if rep % 2 == 0 else list(workloads)[::-1]):
            for name in (list(impls) if rep % 2 == 0 else list(impls)[::-1]):
                use_search(space, impls[name])
                t, c = time.perf_counter(), time.process_time()
                outputs[(w, name)] = workloads[w][1]()
                times[(w, name)].append(time.perf_counter() - t)
                cpu[(w, name)].append(time.process_time() - c)

    print(f"\nepsilon = {args.epsilon:g}; queries per second (wall), median of {args.repeats} (all runs), and process "
          f"CPU ms per query (median), same run:")
    for w, (count, _) in workloads.items():
        qps = {i: count / np.median(times[(w, i)]) for i in impls}
        runs = {i: ", ".join(f"{count / t:,.0f}" for t in times[(w, i)]) for i in impls}
        ms = {i: 1000 * np.median(cpu[(w, i)]) / count for i in impls}
        same = np.array_equal(outputs[(w, "before")], outputs[(w, "after")])
        print(f"  {w}: before {qps['before']:,.0f} q/s ({runs['before']}), {ms['before']:.3f} CPU ms/q; "
              f"after {qps['after']:,.0f} q/s ({runs['after']}), {ms['after']:.3f} CPU ms/q; "
              f"speed-up {qps['after'] / qps['before']:.2f}x; outputs identical: {same}")
    a, b = list(workloads)[:2]
    for i in impls:  # paired: (a) and (b) of the same repeat ran next to each other
        wall = np.median(np.array(times[(b, i)]) / np.array(times[(a, i)])) * workloads[a][0] / workloads[b][0]
        work = np.median(np.array(cpu[(b, i)]) / np.array(cpu[(a, i)])) * workloads[a][0] / workloads[b][0]
        print(f"  {i}: random words / one word, per query: wall {wall:.2f}, CPU {work:.2f} "
              f"(median of per-repeat ratios)")

    print("\nwhere the CPU goes (one instrumented run each, CPU seconds per 1,000 queries, summed over threads):")
    parts = {"before": (type(impls["before"]), ["_scan", "_rescore"]),
             "after": (ExactSearch, ["_block_minima", "_settle", "_rescore"])}
    for name, (cls, names) in parts.items():
        use_search(space, impls[name])
        for w, (count, run) in workloads.items():
            spent, undo = cpu_profile(cls, names)
            try:
                c = time.process_time()
                run()
                total = time.process_time() - c
            finally:
                undo()
            detail = "; ".join(f"{n} {1000 * s / count:.3f} s ({k} calls)" for n, (s, k) in spent.items())
            print(f"  {name} {w}: process {1000 * total / count:.3f} s = {detail}")
    use_search(space, impls["after"])


if __name__ == "__main__":
    main()
