"""The same word-level workloads timed on two checkouts of this repository, interleaved, to show
that a change (e.g. a restructuring) slowed nothing down beyond noise.

    python bench/bench_checkouts.py BASELINE_ROOT NEW_ROOT [--repeats 5]

Each repeat runs every workload once in a fresh process per checkout (order alternating), so both
see the same machine load; it prints the median time of each workload on each checkout and their
ratio. Workloads (full GloVe 6B 50d vocabulary, fixed seeds):
- ranks:      `rank_experiment`, 2,000 samples of 'king' at ε = 10 (multivariate Laplace);
- sweep:      `epsilon_sweep`, 50 random words × 10 ε (the Fig. 2 route);
- fix:        the post-processing fix, 2,000 samples of 'king' at ε = 10;
- santext:    SanText's exact output law of 'king' (a 400k softmax);
- sanitize:   `sanitize_many`, 50 copies of the paper's paragraph;
- table2:     `neighbour_distances`, 500 random words;
- choose:     `mechanism_metrics` of the fix, the paper's paragraph × 4 ε × 20 runs.
The script only imports public names, under the module paths of either layout (before and after
the restructuring into privlib.core / privlib.words).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

WORKER = r'''
import json, sys, time
sys.path.insert(0, ROOT)
try:  # the layout after the restructuring
    from privlib.words import EmbeddingSpace, rank_experiment, epsilon_sweep, make_mechanism
    from privlib.words.text import sanitize_many, PAPER_EXAMPLE, vocabulary_words
    from privlib.words.theory.neighbour_distances import neighbour_distances
    from privlib.words.choice import mechanism_metrics
except ImportError:  # the flat layout before it
    from privlib import EmbeddingSpace, rank_experiment, epsilon_sweep
    from privlib.mechanisms import make_mechanism
    from privlib.text import sanitize_many, PAPER_EXAMPLE, vocabulary_words
    from privlib.neighbour_distances import neighbour_distances
    from privlib.epsilon_choice import mechanism_metrics

space = EmbeddingSpace.glove_6b_50d()
space.exact_search
laplace, fix, santext = (make_mechanism(n) for n in ("multivariate-laplace", "postprocessing-fix", "santext"))
words = vocabulary_words(PAPER_EXAMPLE, space)
work = {
    "ranks": lambda: rank_experiment(space, "king", 10.0, 2000, laplace, rng=1),
    "sweep": lambda: epsilon_sweep(space, [1, 2, 3, 5, 7, 10, 15, 20, 25, 30], 50, laplace, rng=2),
    "fix": lambda: fix.sample(space, "king", 10.0, 2000, rng=3),
    "santext": lambda: santext.output_probabilities(space, "king", 3.0),
    "sanitize": lambda: sanitize_many([PAPER_EXAMPLE] * 50, laplace, 10.0, space, rng=4),
    "table2": lambda: neighbour_distances(space, 500, rng=5),
    "choose": lambda: mechanism_metrics(space, words, [1, 5, 10, 30], fix, 20, rng=6),
}
work["santext"]()  # builds what SanText caches on first use, outside the timing
times = {}
for name, run in work.items():
    start = time.perf_counter()
    run()
    times[name] = time.perf_counter() - start
print(json.dumps(times))
'''


def run_once(root: str) -> dict:
    out = subprocess.run([sys.executable, "-c", WORKER.replace("ROOT", repr(root))], capture_output=True, text=True,
                         check=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline")
    parser.add_argument("new")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    runs = {"baseline": [], "new": []}
    for i in range(args.repeats):
        order = ("baseline", "new") if i % 2 == 0 else ("new", "baseline")
        for which in order:
            runs[which].append(run_once(getattr(args, which)))
    print(f"{'workload':<10} {'baseline s':>11} {'new s':>8} {'new/baseline':>13}   (medians of {args.repeats})")
    for name in runs["baseline"][0]:
        old = statistics.median(r[name] for r in runs["baseline"])
        new = statistics.median(r[name] for r in runs["new"])
        print(f"{name:<10} {old:>11.3f} {new:>8.3f} {new / old:>13.2f}")


if __name__ == "__main__":
    main()
