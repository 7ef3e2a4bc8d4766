"""The private-learning attacker's view (privlib.erm.attacks): the membership game fits one model per game
and method — many small ERM fits — solved in batches (`minimise_in_ball_batch`, batched noisy sums).

Baseline, in the same run: the same games fitted one at a time with the mechanisms' own
``release(sums, loss, rng)`` (and `solver.minimise_in_ball` for the non-private fits of D and D′), scaled
from --baseline-games games. The batched study's numbers are printed beside its time, and the page's first
view (the game at n = 10,000, 10⁴ games, four methods) is timed too, with the library's estimate.

    python bench/bench_erm_attacks.py [--n 1000] [--d 10] [--games 10000] [--baseline-games 1000] [--repeats 3]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import machine_info, timed  # bench/timing.py, beside this script

from privlib.erm import attacks
from privlib.erm.losses import QuadraticSums, make_loss
from privlib.erm.mechanisms import make_mechanism
from privlib.erm.solver import minimise_in_ball


def naive_seconds(n: int, d: int, games: int, epsilon: float, delta: float) -> float:
    """The games of the study fitted one at a time: per game the non-private fits of D and D′ and one
    ``release`` per private method (the known-neighbour centres of output perturbation included)."""
    loss = make_loss("squared")
    data = attacks.game_chunk(n, d, "regression", loss, 0, games, seed=0)
    mechanisms = [make_mechanism(m, epsilon=epsilon, delta=delta) for m in ("input_safe", "obj_gauss", "output")]
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    for k in range(games):
        sums = QuadraticSums(S=data.S[k], b_sum=data.b[k], c_sum=0.0, n=n)
        minimise_in_ball(data.S[k] / n, data.b[k] / n, loss.R)
        minimise_in_ball(data.S_neighbour[k] / n, data.b_neighbour[k] / n, loss.R)
        minimise_in_ball(data.S_neighbour[k] / n + 0.1 * np.eye(d), data.b_neighbour[k] / n, loss.R)
        for mechanism in mechanisms:
            mechanism.release(sums, loss, rng)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--baseline-games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine_info())
    epsilon, delta = 1.0, 1e-6
    settings = {"n": args.n, "d": args.d, "games": args.games, "seed": 0, "allow_long": True}

    def batched():
        return attacks.membership_attack(epsilon, delta, **settings)

    batched()  # warm up (imports, caches)
    seconds, times, study = timed(batched, args.repeats)
    naive = naive_seconds(args.n, args.d, args.baseline_games, epsilon, delta) * args.games / args.baseline_games
    print(f"membership game, n = {args.n:,}, d = {args.d}, {args.games:,} games, 4 methods, ε = {epsilon:g}:")
    print(f"  batched (privlib.erm.attacks): median {seconds:.2f} s of {', '.join(f'{t:.2f}' for t in times)}; "
          f"estimate {attacks.estimate_seconds(args.n, args.d, args.games, attacks.ATTACK_METHODS):.2f} s")
    print(f"  one fit at a time (release per game, {args.baseline_games:,} games scaled): {naive:.2f} s "
          f"(the fits only: no data drawn, no score) -> speed-up {naive / seconds:.1f}x")
    for method in study.methods:
        result = study.at(method, epsilon)
        for m in result.attacks.values():
            print(f"    {method:<12} {m.attack:<16} success {m.success:.4f} ± {m.success_se:.4f}, AUC {m.auc:.4f}")
    page = {"n": 10_000, "d": 10, "games": attacks.DEFAULT_GAMES, "seed": 0, "allow_long": True}
    page_seconds, _, _ = timed(lambda: attacks.membership_attack(epsilon, delta, **page), 1)
    print(f"  the page's default game (n = 10,000, 10⁴ games): {page_seconds:.2f} s; estimate "
          f"{attacks.estimate_seconds(10_000, 10, attacks.DEFAULT_GAMES, attacks.ATTACK_METHODS):.2f} s "
          "(on request: above ui.AUTOMATIC_SECONDS)")


if __name__ == "__main__":
    main()
