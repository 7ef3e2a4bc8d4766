"""Reproductions (slow): the synthetic RMSE-vs-n comparison (Input → non-private, Input ≈ Obj-Gauss from
n ≈ 10⁴, excess risk falling faster than 1/n, Input undefined below n = 410), the census2000 curve and the
diabetes ε sweep. Run with -s to print the tables.

Reference values (20 trials, ε = 1, δ = 1e-6; data seeds 1000·n + t; mean (sd)) were computed by the
project for the synthetic set; the diabetes ones over 100 random 80/20 splits at δ = 1e-5. Margins come
from the spread over trials: |ours − reference| < 4 SE with SE = √(sd_ours² + sd_ref²)/√trials (the
reference's sd taken equal to ours where it was not recorded), plus half a unit of the reference's last
printed digit for the nearly noiseless non-private RMSE.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from privlib.erm.datasets import census2000, diabetes
from privlib.erm.sweep import n_sweep, sweep

pytestmark = pytest.mark.slow

TRIALS = 20
SYNTHETIC_NS = (409, 410, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
# n: {method: (mean, sd or None)}, ε = 1, δ = 1e-6, 20 trials
SYNTHETIC_REFERENCE = {
    1000: {"non_private": (0.0999, None), "obj_gauss": (0.271, 0.047), "output": (0.191, 0.020),
           "input_safe": (0.333, 0.061)},
    3000: {"non_private": (0.0995, None), "obj_gauss": (0.178, 0.022), "output": (0.157, 0.008),
           "input_safe": (0.198, 0.025)},
    10_000: {"non_private": (0.0994, None), "obj_gauss": (0.110, 0.005), "output": (0.130, 0.007),
             "input_safe": (0.114, 0.006)},
    100_000: {"non_private": (0.0994, None), "obj_gauss": (0.0995, None), "output": (0.105, 0.001),
              "input_safe": (0.0995, None)},
    1_000_000: {"non_private": (0.0994, None), "obj_gauss": (0.0994, None), "output": (0.1002, None),
                "input_safe": (0.0994, None)},
}
# ε: {method: mean}, 100 splits, δ = 1e-5 (None: invalid)
DIABETES_REFERENCE = {1.0: {"non_private": 0.337, "obj_gauss": 0.449, "output": 0.420, "input_safe": None},
                      4.0: {"non_private": 0.337, "obj_gauss": 0.397, "output": 0.393, "input_safe": 0.433},
                      10.0: {"non_private": 0.337, "obj_gauss": 0.366, "output": 0.376, "input_safe": 0.384},
                      30.0: {"non_private": 0.337, "obj_gauss": 0.347, "output": 0.357, "input_safe": 0.351}}
DIABETES_TRAIN_MEAN = 0.440


def mean(result, method, metric="rmse"):
    return result.mean(method, metric)


def sd(result, method, metric="rmse"):
    return result.sd(method, metric)


def valid(result, method):
    return result.count(method, "rmse") == result.repeats


def print_table(title, result):
    print(f"\n{title}")
    head = "n" if result.axis == "n" else "ε"
    print(f"{head:>9}  " + "  ".join(f"{m:>17}" for m in result.mechanisms))
    for i, value in enumerate(result.epsilons):
        cells = "  ".join(f"{mean(result, m)[i]:8.4f} ({sd(result, m)[i]:.4f})" if valid(result, m)[i]
                          else f"{'invalid':>17}" for m in result.mechanisms)
        print(f"{value:>9g}  {cells}")


def print_excess(result):
    print("excess empirical risk J(w) − J(ŵ), mean over trials")
    for i, value in enumerate(result.epsilons):
        print(f"{value:>9g}  " + "  ".join(f"{mean(result, m, 'excess_risk')[i]:17.3e}" for m in result.mechanisms))


def paired_se(result, a, b, i):
    """SE of mean(a − b) over trials at value i (the methods share each trial's data)."""
    diff = result.per_repeat(a, "rmse")[i] - result.per_repeat(b, "rmse")[i]
    return float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(diff.size))


def slope_and_se(ns, means, sds, trials):
    """Weighted least-squares slope of log(mean excess risk) on log n and its SE, with the SE of a log mean
    ≈ (sd/mean)/√trials (delta method)."""
    x, y = np.log(ns), np.log(means)
    w = 1.0 / ((sds / means) ** 2 / trials)
    xm = np.sum(w * x) / np.sum(w)
    slope = np.sum(w * (x - xm) * (y - np.sum(w * y) / np.sum(w))) / np.sum(w * (x - xm) ** 2)
    return float(slope), float(1.0 / math.sqrt(np.sum(w * (x - xm) ** 2)))


@pytest.fixture(scope="module")
def synthetic():
    sweep = n_sweep("synthetic", ns=SYNTHETIC_NS, epsilon=1.0, delta=1e-6, repeats=TRIALS, seed=0)
    print_table("Synthetic regression, test RMSE (sd), ε = 1, δ = 1e-6, 20 trials", sweep)
    print_excess(sweep)
    return sweep


def test_synthetic_matches_the_reference_table(synthetic):
    index = {int(n): i for i, n in enumerate(synthetic.epsilons)}
    for n, row in SYNTHETIC_REFERENCE.items():
        i = index[n]
        for method, (ref, ref_sd) in row.items():
            ours, spread = mean(synthetic, method)[i], sd(synthetic, method)[i]
            se = math.sqrt(spread**2 + (spread if ref_sd is None else ref_sd) ** 2) / math.sqrt(TRIALS)
            rounding = 0.5 * 10 ** -(len(f"{ref}".split(".")[1]))
            assert abs(ours - ref) < 4 * se + rounding, (n, method, ours, ref, se)


def test_synthetic_input_approaches_non_private_and_obj_gauss(synthetic):
    index = {int(n): i for i, n in enumerate(synthetic.epsilons)}
    i5 = index[100_000]
    assert mean(synthetic, "input_safe")[i5] <= 1.02 * mean(synthetic, "non_private")[i5]
    gaps = [mean(synthetic, "input_safe")[index[n]] - mean(synthetic, "non_private")[index[n]]
            for n in (1000, 10_000, 100_000, 1_000_000)]
    assert all(a > b for a, b in zip(gaps, gaps[1:]))
    print("\nInput − Obj-Gauss (paired over trials), n ≥ 10⁴:")
    for n in (10_000, 30_000, 100_000, 300_000, 1_000_000):
        diff, se = paired_se(synthetic, "input_safe", "obj_gauss", index[n])
        obj = mean(synthetic, "obj_gauss")[index[n]]
        print(f"  n = {n:>9,}: {diff:+.5f} (SE {se:.5f}), Input/Obj-Gauss = {1 + diff / obj:.4f}")
        # margin: within 4 SE of Obj-Gauss, and never more than 5% above it
        assert diff < 4 * se and diff / obj < 0.05
    # the asymptotic match tracks Obj-Gauss at every n (not a guarantee, just the same noise scale)
    for n in (1000, 3000, 10_000):
        diff, se = paired_se(synthetic, "input_asymptotic", "obj_gauss", index[n])
        assert abs(diff) < 4 * se, (n, diff, se)
    # Output converges more slowly
    diff, se = paired_se(synthetic, "output", "obj_gauss", i5)
    assert diff > 4 * se


def test_synthetic_input_undefined_below_410(synthetic):
    index = {int(n): i for i, n in enumerate(synthetic.epsilons)}
    assert not valid(synthetic, "input_safe")[index[409]]
    assert valid(synthetic, "input_safe")[index[410]]
    assert valid(synthetic, "input_asymptotic").all() and valid(synthetic, "obj_gauss").all()


def test_synthetic_excess_risk_falls_at_least_like_one_over_n(synthetic):
    ns = synthetic.epsilons.astype(np.float64)
    keep = ns >= 10_000
    print("\nslope of log excess risk on log n, n ≥ 10⁴ (± SE):")
    slopes = {}
    for m in ("output", "obj_gauss", "input_safe", "input_asymptotic"):
        slopes[m] = slope_and_se(ns[keep], mean(synthetic, m, "excess_risk")[keep],
                                 sd(synthetic, m, "excess_risk")[keep], TRIALS)
        print(f"  {m:<17} {slopes[m][0]:+.3f} ± {slopes[m][1]:.3f}")
    for m in ("obj_gauss", "input_safe", "input_asymptotic"):
        slope, se = slopes[m]
        assert slope <= -1 + 4 * se, (m, slope, se)
    assert slopes["output"][0] > slopes["input_safe"][0]  # Output's ridge bias decays more slowly


def test_census_input_approaches_non_private():
    ns = (1000, 2000, 3000, 5000, 10_000, 24_000)
    sweep = n_sweep("census2000", ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic"), ns,
                    epsilon=1.0, delta=1e-6, repeats=TRIALS, seed=0)
    print_table("census2000 (lweekinc on educ, exper, expersq), test RMSE (sd), ε = 1, δ = 1e-6, 20 trials", sweep)
    print_excess(sweep)
    gap = {}
    for i, n in enumerate(ns):
        diff, se = paired_se(sweep, "input_safe", "non_private", i)
        gap[n] = (diff, se)
    first, last = gap[ns[0]], gap[ns[-1]]
    assert first[0] - last[0] > 4 * math.hypot(first[1], last[1])  # the gap to non-private shrinks
    diffs = [paired_se(sweep, "input_safe", "obj_gauss", i) for i in range(len(ns))]
    print("Input − Obj-Gauss (paired over trials):")
    for n, (diff, se) in zip(ns, diffs):
        print(f"  n = {n:>6,}: {diff:+.5f} (SE {se:.5f}, {diff / se:+.1f} SE)")
    # where Input reaches Obj-Gauss: the smallest n from which every difference is below 2 SE
    reached = next(n for k, n in enumerate(ns) if all(d < 2 * se for d, se in diffs[k:]))
    constant = np.mean([math.sqrt(np.mean((census2000(seed=t).y_test - census2000(seed=t).y_train.mean()) ** 2))
                        for t in range(TRIALS)])
    print(f"Input within 2 SE of Obj-Gauss from n = {reached:,}; the training mean as predictor: RMSE {constant:.4f}")
    assert reached <= 10_000
    for n, (diff, se) in zip(ns, diffs):
        if n >= 3000:
            assert abs(diff) < 4 * se, (n, diff, se)
    assert mean(sweep, "non_private")[-1] < constant


def test_diabetes_epsilon_sweep():
    trials = 100
    result = sweep("diabetes", ("non_private", "obj_gauss", "output", "input_safe"), tuple(DIABETES_REFERENCE),
                   delta=1e-5, repeats=trials, seed=0)
    train_mean = np.mean([math.sqrt(np.mean((diabetes(s).y_test - diabetes(s).y_train.mean()) ** 2))
                          for s in range(trials)])
    print_table(f"diabetes, test RMSE (sd) against ε, δ = 1e-5, 100 splits; train mean {train_mean:.4f}", result)
    for i, eps in enumerate(result.epsilons):
        for method, ref in DIABETES_REFERENCE[float(eps)].items():
            if ref is None:
                assert not valid(result, method)[i]
                continue
            assert valid(result, method)[i]
            se = math.sqrt(2.0) * sd(result, method)[i] / math.sqrt(trials)
            assert abs(mean(result, method)[i] - ref) < 4 * se, (eps, method, mean(result, method)[i], ref, se)
    assert abs(train_mean - DIABETES_TRAIN_MEAN) < 4 * math.sqrt(2.0) * 0.03 / math.sqrt(trials)
    # at ε = 1 no private model beats the constant predictor
    assert min(mean(result, "obj_gauss")[0], mean(result, "output")[0]) > train_mean - 0.03
