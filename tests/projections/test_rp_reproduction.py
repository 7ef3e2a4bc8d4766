"""The shape of the paper's retrieval results (Li & Li §5.1, Figs. 10–13 and 15–16), reproduced on
the synthetic sparse-cluster data (our addition: the paper's data is not shipped), and recorded — not
asserted — on the 5,000-image MNIST subset.

(a) Raw < DP-RP-G < DP-RP-G-OPT < DP-RP-G-OPT-B ≈ DP-OPORP (Figs. 10–12);
(b) smooth flipping > plain RR; DP-SignOPORP > DP-OPORP at small ε, the other way at ε = 20;
    smaller t is better at small ε (Fig. 13);
(c) iDP is flat near the non-private SignRP level, even at ε < 0.1 (Figs. 15–16);
(d) DP-SignRP-RR and DP-SignRP-RR-smooth (Alg 7) stay near chance.

Margins come from the run-to-run spread: "A < B" needs mean(B) − mean(A) > 3 SE of the difference
over repetitions (SE² = SD_A²/n + SD_B²/n), "A ≈ B" needs |mean(A) − mean(B)| < 4 SE.
"""
import numpy as np
import pytest

from privlib.projections.sweep import CHANCE, NONPRIVATE_RP, NONPRIVATE_SIGNRP, epsilon_index, sweep

pytestmark = pytest.mark.slow

EPS = (0.05, 2.0, 5.0, 10.0, 20.0)
REPS = 4
SYNTHETIC = ["raw-data-g-opt", "dp-rp-g", "dp-rp-g-opt", "dp-rp-g-opt-b", "dp-oporp", "dp-signrp-rr",
             "dp-signrp-rr-smooth", "dp-signoporp-rr", "dp-signoporp-rr-smooth", "idp-signrp-rr"]


def stats(sweep, name, eps):
    values = sweep.per_repeat(name, "precision")[epsilon_index(sweep, eps)]
    return values.mean(), values.std(ddof=1) / np.sqrt(values.size)


def difference(sweep_a, a, sweep_b, b, eps):
    """mean(b) − mean(a) and its standard error."""
    ma, sa = stats(sweep_a, a, eps)
    mb, sb = stats(sweep_b, b, eps)
    return mb - ma, float(np.hypot(sa, sb))


def below(sweep_a, a, sweep_b, b, eps, k=3.0) -> bool:
    diff, se = difference(sweep_a, a, sweep_b, b, eps)
    return diff > k * se


def close(sweep_a, a, sweep_b, b, eps, k=4.0) -> bool:
    diff, se = difference(sweep_a, a, sweep_b, b, eps)
    return abs(diff) < k * se


def near_chance(sweep, name, eps) -> bool:
    """Recovers less than a tenth of the way from chance to the non-private SignRP level."""
    mean, _ = stats(sweep, name, eps)
    chance = sweep.reference[CHANCE]
    return mean - chance < 0.1 * (sweep.reference[NONPRIVATE_SIGNRP] - chance)


def orderings(t1, t4, eps_small=2.0, eps_large=20.0) -> dict:
    """Which of (a)-(d) hold, as named booleans (t1: every mechanism with t = 1; t4: DP-SignOPORP
    with t = 4)."""
    chain = ["raw-data-g-opt", "dp-rp-g", "dp-rp-g-opt", "dp-rp-g-opt-b"]
    result = {}
    labels = {"raw-data-g-opt": "Raw", "dp-rp-g": "RP-G", "dp-rp-g-opt": "RP-G-OPT", "dp-rp-g-opt-b": "RP-G-OPT-B"}
    for eps in (5.0, 10.0):
        for a, b in zip(chain, chain[1:]):
            result[f"(a) {labels[a]} < {labels[b]} at ε = {eps:g}"] = below(t1, a, t1, b, eps)
        result[f"(a) Raw < RP-G-OPT-B and < OPORP at ε = {eps:g}"] = (
            below(t1, "raw-data-g-opt", t1, "dp-rp-g-opt-b", eps) and below(t1, "raw-data-g-opt", t1, "dp-oporp", eps))
        result[f"(a) RP-G-OPT-B ≈ OPORP at ε = {eps:g}"] = close(t1, "dp-rp-g-opt-b", t1, "dp-oporp", eps)
    result[f"(b) smooth > RR (t = 1) at ε = {eps_small:g}"] = below(t1, "dp-signoporp-rr", t1,
                                                                    "dp-signoporp-rr-smooth", eps_small)
    result[f"(b) SignOPORP-smooth > OPORP at ε = {eps_small:g}"] = below(t1, "dp-oporp", t1, "dp-signoporp-rr-smooth",
                                                                         eps_small)
    result["(b) SignOPORP-smooth > OPORP at ε = 5"] = below(t1, "dp-oporp", t1, "dp-signoporp-rr-smooth", 5.0)
    result[f"(b) OPORP > SignOPORP-smooth (t = 1 and t = 4) at ε = {eps_large:g}"] = (
        below(t1, "dp-signoporp-rr-smooth", t1, "dp-oporp", eps_large)
        and below(t4, "dp-signoporp-rr-smooth", t1, "dp-oporp", eps_large))
    result[f"(b) t = 1 > t = 4 at ε = {eps_small:g}"] = (
        below(t4, "dp-signoporp-rr-smooth", t1, "dp-signoporp-rr-smooth", eps_small)
        and below(t4, "dp-signoporp-rr", t1, "dp-signoporp-rr", eps_small))
    idp, _ = stats(t1, "idp-signrp-rr", 0.05)
    result["(c) iDP flat from ε = 0.05 to 20"] = _flat(t1)
    result["(c) iDP at ε = 0.05 near the non-private SignRP level"] = idp > 0.9 * t1.reference[NONPRIVATE_SIGNRP]
    result["(c) iDP at ε = 0.05 above every DP mechanism"] = all(
        below(t1, name, t1, "idp-signrp-rr", 0.05) for name in SYNTHETIC if name != "idp-signrp-rr")
    result["(d) DP-SignRP-RR and Alg 7 near chance for ε ≤ 20"] = all(
        near_chance(t1, name, eps) for name in ("dp-signrp-rr", "dp-signrp-rr-smooth") for eps in EPS)
    return result


def _flat(sweep) -> bool:
    """iDP's precision at every ε of the grid agrees with its precision at ε = 0.05 within 4 SE."""
    lo, slo = stats(sweep, "idp-signrp-rr", EPS[0])
    for eps in EPS[1:]:
        mean, se = stats(sweep, "idp-signrp-rr", eps)
        if abs(mean - lo) >= 4 * np.hypot(slo, se):
            return False
    return True


def run(dataset, k, reps, queries=None, eps=EPS):
    t1 = sweep(dataset, SYNTHETIC, eps, repeats=reps, seed=0, k=k, t=1, queries=queries)
    t4 = sweep(dataset, ["dp-signoporp-rr", "dp-signoporp-rr-smooth"], eps, repeats=reps, seed=0, k=k, t=4,
               queries=queries)
    return t1, t4


def test_orderings_a_to_d_hold_on_the_synthetic_data():
    t1, t4 = run("synthetic", 128, REPS)
    held = orderings(t1, t4)
    for name, ok in held.items():
        print(f"synthetic k = 128: {'holds' if ok else 'FAILS'}  {name}")
    failed = [name for name, ok in held.items() if not ok]
    assert not failed, failed
    # and the sweep is not trivially ordered: the non-private levels are where the spec measured them
    assert 0.80 < t1.reference[NONPRIVATE_RP] < 0.87 and 0.66 < t1.reference[NONPRIVATE_SIGNRP] < 0.73


def test_record_which_orderings_hold_on_mnist():
    """Beyond the paper's shipped data: print which orderings hold on MNIST (no assertion on them)."""
    table = {}
    for k in (32, 48, 128, 256):
        t1, t4 = run("mnist", k, reps=2, queries=200, eps=EPS)
        table[k] = orderings(t1, t4)
        print(f"MNIST k = {k}: non-private RP {t1.reference[NONPRIVATE_RP]:.3f}, "
              f"SignRP {t1.reference[NONPRIVATE_SIGNRP]:.3f}, "
              f"chance {t1.reference[CHANCE]:.4f}")
    names = list(table[32])
    print(f"{'ordering':<70}" + "".join(f"{'k=' + str(k):>8}" for k in table))
    for name in names:
        print(f"{name:<70}" + "".join(f"{('yes' if table[k][name] else 'no'):>8}" for k in table))
    assert set(table) == {32, 48, 128, 256} and all(len(v) == len(names) for v in table.values())
