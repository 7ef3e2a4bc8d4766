"""How long the audit of one mechanism per topic takes at the default settings (10,000 releases per
input, 95 % confidence; privlib.<topic>.audit.audit_mechanism), with progress on stderr.
Target (issue 23): an audit of one mechanism at default settings <= 10 s on the 2-core machine.

Baseline, in the same run: the core auditor on binary randomised response (privlib.core's
RandomisedResponse with its exact law: the cheapest release there is), so the topic's own cost (its
mechanism's releases and its pair) reads against the auditor's fixed cost on the same machine at the
same load. CPU seconds of this process are printed beside the wall time: on a shared machine the CPU
time is the steadier measure of the work done.

    python bench/bench_audit.py [--repeats 1] [--quiet]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import machine_info  # bench/timing.py, beside this script

from privlib.cli.common import Progress
from privlib.core.audit import DEFAULT_RELEASES, audit
from privlib.core.mechanism import Guarantee
from privlib.core.randomised_response import RandomisedResponse

TARGET = 10.0

#: One mechanism per topic, at a typical ε (and δ where it has one).
CASES = (
    ("words", "privlib.words.audit", "santext", {"epsilon": 10.0}),
    ("projections", "privlib.projections.audit", "dp-oporp", {"epsilon": 1.0, "delta": 1e-6}),
    ("label-dp", "privlib.label_dp.audit", "rr", {"epsilon": 1.0}),
    ("erm", "privlib.erm.audit", "output", {"epsilon": 1.0}),
)


def cpu_and_wall(fn):
    """(CPU seconds of this process, wall seconds, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def baseline(progress):
    """The core auditor on binary RR at ε = 1 with its exact law (the same default settings)."""
    mechanism = RandomisedResponse(2, 1.0)

    def release(x, rng, size):
        return mechanism.sample(np.full(size, x), rng)

    def law(x):
        return np.where(np.arange(2) == x, mechanism.keep_probability, mechanism.other_probability)

    claim = Guarantee(kind="pure-dp", text="1-DP", epsilon=1.0)
    return audit(release, (0, 1), releases=DEFAULT_RELEASES, seed=0, claim=claim, law=law, progress=progress)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per case (the first is reported apart)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args()
    import importlib

    print(machine_info())

    def progress():
        return None if args.quiet else Progress(terminal=False, stream=sys.stderr)

    rows = []
    cpu, wall, result = cpu_and_wall(lambda: baseline(progress()))
    rows.append(("core (baseline)", "binary rr", wall, cpu, result))
    for topic, module_name, name, settings in CASES:
        module = importlib.import_module(module_name)
        for repeat in range(max(1, args.repeats)):
            def run(module=module, name=name, seed=repeat, settings=settings):
                return module.audit_mechanism(name, releases=DEFAULT_RELEASES, seed=seed, progress=progress(),
                                              **settings)

            cpu, wall, result = cpu_and_wall(run)
            rows.append((topic + (" (first)" if repeat == 0 and args.repeats > 1 else ""), name, wall, cpu, result))
    print(f"\nDefault audit ({DEFAULT_RELEASES:,} releases per input, 95 %); target <= {TARGET:g} s")
    print(f"{'topic':<20} {'mechanism':<12} {'wall s':>8} {'CPU s':>8} {'ε̂':>7} {'claim':>7} {'μ̂':>7} {'μ claim':>8}  verdict")
    for topic, name, wall, cpu, r in rows:
        mu = "" if r.mu is None else f"{r.mu:.3f}"
        claimed_mu = "" if r.claimed_mu is None else f"{r.claimed_mu:.3f}"
        verdict = "ok" if wall <= TARGET else "ABOVE TARGET"
        print(f"{topic:<20} {name:<12} {wall:8.2f} {cpu:8.2f} {r.epsilon:7.3f} {r.claimed_epsilon:7.3f} {mu:>7} "
              f"{claimed_mu:>8}  {verdict}")
    print(machine_info())


if __name__ == "__main__":
    main()
