"""The Neighbour ranks page's attacker's view at its defaults (issue 23: <= 5 s on the 2-core machine):
the multivariate Laplace mechanism's sampled attack over the 2,000 most frequent words of all
400,000 GloVe 6B 50d words, uniform prior, ε = 10, seed 0, with its bound — `attacker_view`, the one
call of the page — on this checkout and on a baseline checkout, in the same run (a fresh process per
checkout and repeat, interleaved, so both see the same load).

Each process loads the space and builds its search outside the timing, then times (CPU seconds of the
process, all threads, and wall seconds):
- view:  `attacker_view` at the defaults (the page's call);
- close: the close-neighbour share afterwards (`SampledAttack.close`: built with the view on the
  baseline, when first read here);
and prints the success with its standard error, the runs, the rule, and the stored estimate of the view.

With ``--design EPS,…`` it also compares the rules on this checkout, at each ε on the same fresh runs
(paired): the baseline's default (the count rule fitted on 20 samples per word) against this
checkout's default (`fit_rule` on the first sample of each word) and the distance rule alone.

    python bench/bench_word_attack_view.py BASELINE_ROOT [--repeats 2] [--design 1,3,10,20] [--prior uniform]

BASELINE_ROOT: e.g. ``git archive 404080b | tar -x -C /tmp/base``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/timing.py, beside this script

from timing import machine_info

ROOT = str(Path(__file__).resolve().parent.parent)

WORKER = r'''
import json, os, sys, time
sys.path.insert(0, ROOT)
import numpy as np
from privlib.words import EmbeddingSpace
from privlib.words.attacks import attacker_view, attack_seconds, word_candidates
from privlib.words.mechanisms import MultivariateLaplace

space = EmbeddingSpace.glove_6b_50d()
space.exact_search
space.nearest(space.vectors[:4].astype(np.float64))  # the search's float32 matrix and threads
mechanism = MultivariateLaplace.family()
cand = word_candidates(space, 2000, PRIOR)
try:
    estimate = attack_seconds(space, mechanism, [10.0], candidates=cand, utility=False, timed=False)
except TypeError:  # the baseline has no utility flag
    estimate = attack_seconds(space, mechanism, [10.0], candidates=cand, timed=False)


def timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


load = os.getloadavg()[0]
view_cpu, view_wall, view = timed(lambda: attacker_view(space, mechanism, 10.0, candidates=cand, seed=0))
close_cpu, close_wall, close = timed(lambda: view.attack.close)
rule = view.attack.rule
rule = rule.description if hasattr(rule, "description") else f"counts, f = {rule.shrinkage:g}"  # the baseline's
print(json.dumps({"view_cpu": view_cpu, "view_wall": view_wall, "close_cpu": close_cpu, "close_wall": close_wall,
                  "success": view.success, "se": view.standard_error, "runs": view.attack.runs,
                  "samples_per_word": view.attack.samples_per_word, "rule": rule, "close": close,
                  "guess_output": view.guess_output, "bound": view.bound, "estimate": estimate, "load": load}))
'''


def run(root: str, prior: str) -> dict:
    code = WORKER.replace("ROOT", repr(root)).replace("PRIOR", repr(prior))
    env = {**os.environ, "PYTHONPATH": root}
    env.pop("PRIVLIB_KERNEL_NANOSECONDS", None)
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(f"the worker failed on {root}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def design(epsilons, prior: str, runs: int) -> None:
    """The baseline's default rule against this checkout's, paired on the same fresh runs at each ε."""
    sys.path.insert(0, ROOT)
    import numpy as np

    from privlib.core.sweep import child_rng
    from privlib.words import EmbeddingSpace
    from privlib.words.attacks import fit_count_rule, fit_rule, word_candidates
    from privlib.words.mechanisms import MultivariateLaplace

    space = EmbeddingSpace.glove_6b_50d()
    mechanism = MultivariateLaplace.family()
    cand = word_candidates(space, 2000, prior)
    m = 20
    for eps in epsilons:
        fit_inputs = np.repeat(cand.rows, m)
        fit_outputs = mechanism.sample_many(space, fit_inputs, eps, child_rng(0, "word-attack", "fit", mechanism.name, eps))
        rng = child_rng(0, "word-attack", "score", mechanism.name, eps)
        inputs = rng.choice(cand.count, size=runs, p=cand.prior)
        outputs = mechanism.sample_many(space, inputs, eps, rng)
        first = np.arange(fit_inputs.size).reshape(cand.count, m)[:, 0]
        rules = {"old default: counts, 20 per word": fit_count_rule(cand, fit_inputs, fit_outputs, len(space), m),
                 "new default: fit_rule, 1 per word": fit_rule(space, cand, fit_inputs[first], fit_outputs[first], 1,
                                                               eps),
                 "distance rule, 20 per word": fit_rule(space, cand, fit_inputs, fit_outputs, m, eps, "distance")}
        hits = {name: rule(outputs) == inputs for name, rule in rules.items()}
        base = hits["old default: counts, 20 per word"]
        print(f"ε = {eps:g}, {prior} prior ({runs:,} fresh runs; prior alone {cand.prior_baseline:.4f}, "
              f"naming the output {np.mean(outputs == inputs):.4f}):")
        for name, hit in hits.items():
            diff = hit.astype(float) - base
            what = getattr(rules[name], "description", "")
            print(f"  {name:>36}: {hit.mean():.4f} ± {np.sqrt(hit.mean() * (1 - hit.mean()) / runs):.4f}; "
                  f"minus the old {diff.mean():+.4f} ± {diff.std() / np.sqrt(runs):.4f} (paired SE)  [{what}]",
                  flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline", help="root of the baseline checkout (e.g. 404080b extracted)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--prior", default="uniform")
    parser.add_argument("--design", default="", help="ε values of the paired rule comparison (none: skipped)")
    parser.add_argument("--design-runs", type=int, default=20_000)
    args = parser.parse_args()
    print(machine_info())
    results = {"baseline": [], "new": []}
    for repeat in range(args.repeats):
        order = [("baseline", args.baseline), ("new", ROOT)]
        for name, root in order if repeat % 2 == 0 else order[::-1]:
            r = run(root, args.prior)
            results[name].append(r)
            print(f"{name:>8} #{repeat + 1}: view {r['view_cpu']:.2f} s CPU / {r['view_wall']:.2f} s wall; "
                  f"close share after it {r['close_cpu']:.2f} s CPU; success {r['success']:.4f} ± {r['se']:.4f} "
                  f"({r['runs']:,} runs, {r['samples_per_word']} fitting samples per word; {r['rule']}); "
                  f"naming the output {r['guess_output']:.4f}; close {r['close']:.4f}; bound {r['bound']:.4f}; "
                  f"stored estimate {r['estimate']:.1f} s; load {r['load']:.1f}", flush=True)
    for name, rows in results.items():
        cpu = statistics.median(r["view_cpu"] for r in rows)
        wall = statistics.median(r["view_wall"] for r in rows)
        print(f"{name:>8}: median view {cpu:.2f} s CPU, {wall:.2f} s wall (target: 5 s on the 2-core machine)")
    if args.design:
        design([float(e) for e in args.design.split(",")], args.prior, args.design_runs)
    print(machine_info())


if __name__ == "__main__":
    main()
