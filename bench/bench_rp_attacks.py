"""The random-projection attacker's view (privlib.projections.attacks): measured seconds of each attack
beside the library's estimate (`attack_seconds`, the `Rates` the page's run-on-request decision and the
CLI's refusal read), on the page's data sets at its default k = 32.

Baseline, in the same run: the estimate itself — the ratio measured/estimate says how far the rates are
from this machine at its current load (the page and the CLI only need seconds told from minutes).

    python bench/bench_rp_attacks.py [--repeats 3] [--mechanisms dp-oporp,dp-signoporp-rr] [--k 32]
"""
import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import machine_info, timed  # bench/timing.py, beside this script

from privlib.projections import attacks
from privlib.projections.datasets import load_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mechanisms", default="dp-oporp,dp-signoporp-rr,dp-rp-l")
    parser.add_argument("--k", type=int, default=32)
    args = parser.parse_args()
    print(machine_info())
    print(f"{'data':<8} {'mechanism':<18} {'attack':<22} {'measured s':>10} {'estimate s':>10} {'ratio':>6}")
    for dataset in ("digits", "mnist"):
        data = load_dataset(dataset)
        rows = data.n_db + data.n_queries
        for name in args.mechanisms.split(","):
            parameters = {"k": args.k}
            cases = {
                "attribute (one ε)": (
                    partial(attacks.attribute_inference, name, epsilon=5.0, delta=1e-6, p=data.p,
                            parameters=parameters, allow_long=True),
                    attacks.attack_seconds(name, p=data.p, k=args.k)),
                "linkage (one ε)": (
                    partial(attacks.record_linkage, name, epsilon=5.0, delta=1e-6, dataset=data, parameters=parameters,
                            allow_long=True),
                    attacks.attack_seconds(name, p=data.p, k=args.k, releases=0, candidates=rows,
                                           targets=min(attacks.DEFAULT_TARGETS, rows))),
                "attribute over ε": (
                    partial(attacks.attack_curves, name, delta=1e-6, dataset=data, linkage=False, parameters=parameters,
                            allow_long=True),
                    attacks.attack_seconds(name, p=data.p, k=args.k, epsilons=len(attacks.DEFAULT_EPSILONS),
                                           releases=attacks.CURVE_RELEASES if name == "dp-rp-l" else 0)),
            }
            for label, (work, estimate) in cases.items():
                work()  # warm: imports, the data set, the public projection
                seconds, _, _ = timed(work, args.repeats)
                print(f"{dataset:<8} {name:<18} {label:<22} {seconds:>10.3f} {estimate:>10.3f} "
                      f"{seconds / max(estimate, 1e-9):>6.2f}")


if __name__ == "__main__":
    main()
