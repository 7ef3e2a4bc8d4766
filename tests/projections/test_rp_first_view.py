"""What the Random projections page's lighter first view rests on (issue 22), each against an independent
computation: the same sweep numbers as before for the same seed (stored from commit bdaf445), the
Δ₂ quantiles and the attack's AUC without scipy.stats against scipy.stats itself, the randomised-response
output law against its formula, precision@R against a brute-force stable ranking, projections shared
between one-mechanism sweeps; and the attack/utility frontier's pairing of a sweep with attack curves
(issue 23)."""
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from privlib.core.sweep import SweepResult
from privlib.projections import attacks
from privlib.projections import sweep as rp_sweep
from privlib.projections.datasets import load_dataset_at
from privlib.projections.mechanisms import MECHANISMS, make_mechanism
from privlib.projections.quantities import delta2_quantile

# ---------------------------------------------------------------------------------------------
# the same numbers as before

#: precision@50 (mean of 3 repetitions) and expected flipped bits (sign outputs) of the page's default
#: sweep (MNIST, k = 32, β = 1, δ = 1e-6, t = 1, seed 0, each query's top 50 true), at four ε, computed at
#: commit bdaf445 (before the first view was made lighter).
BEFORE = {
    "dp-oporp": {"precision": (0.010786666666666667, 0.02032, 0.23278666666666667, 0.5122666666666666)},
    "dp-signoporp-rr": {"precision": (0.011666666666666667, 0.026533333333333336, 0.23341333333333333,
                                      0.24663999999999997),
                        "expected_flipped_bits": (15.217365420143175, 8.760595845606623, 0.5439635023058647,
                                                  0.3342666666666667)},
    "dp-signoporp-rr-smooth": {"precision": (0.01164, 0.07570666666666666, 0.24308, 0.24595999999999998),
                               "expected_flipped_bits": (14.600649038598583, 5.892380236948885, 0.4395928411879783,
                                                         0.3342666666666667)},
}
BEFORE_EPSILONS = (0.1, 1.0, 5.0, 50.0)


@pytest.fixture(scope="module")
def mnist():
    return load_dataset_at("mnist", 784)


@pytest.fixture(scope="module")
def default_sweeps(mnist):
    """The page's way: one shared reference, then one sweep per mechanism (sharing its projections)."""
    shared = rp_sweep.shared_reference(mnist, k=32, R=50, repeats=3, seed=0, true=rp_sweep.TRUE_NEIGHBOURS)
    sweeps = {}
    for name in BEFORE:
        read = rp_sweep.mechanism_settings(name, delta=1e-6, t=1, m=0.0, projection="rademacher", s=3.0)
        sweeps[name] = rp_sweep.sweep(mnist, [name], BEFORE_EPSILONS, repeats=3, seed=0, k=32, beta=1.0, R=50,
                                      true=rp_sweep.TRUE_NEIGHBOURS, shared=shared, **read)
    return shared, sweeps


def test_the_default_sweep_gives_the_same_numbers_as_before(default_sweeps):
    _, sweeps = default_sweeps
    for name, metrics in BEFORE.items():
        for metric, expected in metrics.items():
            assert sweeps[name].mean(name, metric).tolist() == list(expected), (name, metric)


def test_one_mechanism_sweeps_share_the_oporp_projection_and_equal_a_sweep_without_sharing(mnist, default_sweeps):
    shared, sweeps = default_sweeps
    # DP-OPORP and both DP-SignOPORPs project with the same OPORP: one entry per repetition, not one per mechanism
    assert len(shared.projections.rows) == 3
    assert all(not rows.flags.writeable for rows in shared.projections.rows.values())
    alone = rp_sweep.sweep(mnist, ["dp-signoporp-rr-smooth"], BEFORE_EPSILONS, repeats=3, seed=0, k=32, beta=1.0,
                           R=50, true=rp_sweep.TRUE_NEIGHBOURS)
    assert np.array_equal(alone.values, sweeps["dp-signoporp-rr-smooth"].values, equal_nan=True)


def test_projected_rows_keep_at_most_their_size_and_compute_each_once():
    kept = rp_sweep.ProjectedRows(size=2)
    calls = []

    def project(value):
        def compute():
            calls.append(value)
            return np.full((2, 2), len(calls), dtype=np.float64)
        return compute

    for key in ("a", "b", "a", "c", "a"):
        kept.get((key,), project(key))
    assert calls == ["a", "b", "c", "a"]  # "a" again only after "c" pushed it out (the oldest first)
    assert list(kept.rows) == [("c",), ("a",)]


def test_a_page_first_view_imports_no_scipy_stats():
    """The page's modules and the work of its first view (a Δ₂ quantile of each kind, the attribute attack
    with its AUC) run without importing scipy.stats (about half a second), in a fresh interpreter."""
    code = (
        "import sys\n"
        "import privlib.presentation.projections.figures, privlib.presentation.risk\n"
        "from privlib.projections import attacks, sweep\n"
        "from privlib.projections.quantities import delta2_quantile\n"
        "delta2_quantile('gaussian', 0.5, 784, 32); delta2_quantile('sparse', 0.5, 784, 32, s=3)\n"
        "attacks.attribute_inference('dp-oporp', epsilon=5.0, delta=1e-6, p=784, seed=0, releases=200,\n"
        "                            parameters={'k': 32})\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------------------------
# the same formulas without scipy.stats


@pytest.mark.parametrize("k", [1, 2, 7, 16, 32, 64, 128, 256])
@pytest.mark.parametrize("p", [64, 784, 2048, 8192])
def test_delta2_quantiles_equal_scipy_stats(k, p):
    for q in (0.1, 0.5, 0.9):
        level = math.exp(math.log(q) / p)
        assert delta2_quantile("gaussian", q, p, k, 0.7) == 0.7 * math.sqrt(stats.chi2.ppf(level, k) / k)
        for s in (1.0, 3.0, 10.0, 33.3):
            b = stats.binom.ppf(level, k, 1.0 / s)
            assert delta2_quantile("sparse", q, p, k, 0.7, s) == 0.7 * math.sqrt(s * b / k), (q, s)


def test_auc_and_its_standard_error_equal_the_midrank_formula():
    rng = np.random.default_rng(5)
    for trial in range(50):
        n_x, n_y = rng.integers(2, 60, size=2)
        # few distinct values (many ties) and infinite scores, as sign releases give
        x = rng.choice([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf], size=n_x)
        y = rng.choice([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf], size=n_y) if trial % 2 else rng.normal(size=n_y)
        ranks = stats.rankdata(np.concatenate([x, y]))
        v10 = (ranks[:n_x] - stats.rankdata(x)) / n_y
        v01 = 1.0 - (ranks[n_x:] - stats.rankdata(y)) / n_x
        expected = (float(v10.mean()), math.sqrt(max(v10.var(ddof=1) / n_x + v01.var(ddof=1) / n_y, 0.0)))
        assert attacks.auc_with_standard_error(x, y) == expected
    assert all(math.isnan(v) for v in attacks.auc_with_standard_error(np.array([0.0, np.nan]), np.array([1.0, 2.0])))


@pytest.mark.parametrize("name", ["dp-signrp-rr", "dp-signoporp-rr"])
def test_randomised_response_output_law_is_the_formula(name):
    mechanism = make_mechanism(name, epsilon=1.3, k=16, p=64)
    rng = np.random.default_rng(1)
    projected = np.round(rng.normal(size=(300, 16)), 1)  # zeros included: a coin
    assert np.any(projected == 0)
    e = mechanism.public_parameters()["epsilon_per_bit"]
    expected = np.where(projected > 0, expit(e), np.where(projected < 0, expit(-e), 0.5))
    assert np.array_equal(mechanism.plus_probabilities(projected), expected)
    wrong = np.where(projected > 0, 1 - expected, np.where(projected < 0, expected, 0.5))
    assert rp_sweep.expected_flipped_bits(expected, projected) == float(wrong.sum(axis=1).mean())


def test_precision_equals_a_brute_force_stable_ranking():
    rng = np.random.default_rng(3)

    def brute(truth, scores, R):
        found = 0
        for q in range(scores.shape[0]):
            retrieved = np.lexsort((np.arange(scores.shape[1]), -scores[q].astype(np.float64)))[:R]
            found += np.isin(truth[q], retrieved).sum()
        return found / (scores.shape[0] * R)

    for trial in range(150):
        nq, n = int(rng.integers(1, 20)), int(rng.integers(5, 300))
        R = int(rng.integers(1, n + 1))
        true = int(rng.integers(1, n + 1))
        scores = rng.integers(-4, 5, size=(nq, n)).astype(np.int16) if trial % 2 else rng.normal(size=(nq, n))
        truth = np.stack([rng.choice(n, true, replace=False) for _ in range(nq)])
        assert rp_sweep.precision_from_scores(truth, scores, R) == brute(truth, scores, R), trial


# ---------------------------------------------------------------------------------------------
# the attack/utility frontier


def _sweep(names, epsilons, precision):
    values = np.full((len(names), len(epsilons), 2, len(rp_sweep.METRICS)), np.nan)
    values[..., 0] = precision  # (mechanisms, epsilons, 2 repetitions)
    return SweepResult(mechanisms=tuple(names), epsilons=np.array(epsilons), metrics=rp_sweep.METRICS,
                       values=values, seed=0, labels={n: MECHANISMS[n].label for n in names})


def _curves(name, epsilons, success):
    size = len(epsilons)
    return attacks.AttackCurves(name, MECHANISMS[name].label, np.array(epsilons), np.full(size, np.nan),
                                np.array(success), np.zeros(size), True, None, None, None, None, None)


def test_the_frontier_pairs_precision_and_attack_success_by_epsilon():
    precision = np.array([[[0.1, 0.3], [0.4, 0.6], [0.8, 0.8]],
                          [[0.2, 0.2], [0.5, 0.5], [0.9, 0.7]]])
    result = _sweep(["dp-oporp", "dp-signoporp-rr"], [0.5, 1.0, 5.0], precision)
    points = attacks.attack_utility_frontier(result, [
        _curves("dp-signoporp-rr", [0.1, 1.0, 5.0, 20.0], [0.51, 0.6, 0.9, 0.99]),  # 1 and 5 in common
        _curves("dp-oporp", [0.5, 1.0, 5.0], [0.52, 0.55, 0.7])])
    assert list(points) == ["DP-SignOPORP-RR", "DP-OPORP"]  # the curves' order
    utility, success, epsilons = points["DP-SignOPORP-RR"]
    assert epsilons.tolist() == [1.0, 5.0]
    assert utility.tolist() == [0.5, 0.8] and success.tolist() == [0.6, 0.9]  # means over the repetitions
    utility, success, epsilons = points["DP-OPORP"]
    assert epsilons.tolist() == [0.5, 1.0, 5.0]
    assert utility.tolist() == [0.2, 0.5, 0.8] and success.tolist() == [0.52, 0.55, 0.7]


def test_the_frontier_refuses_what_it_cannot_pair():
    result = _sweep(["dp-oporp"], [0.5, 1.0], np.full((1, 2, 2), 0.3))
    with pytest.raises(ValueError, match="not in the sweep"):
        attacks.attack_utility_frontier(result, [_curves("dp-signoporp-rr", [0.5, 1.0], [0.5, 0.6])])
    with pytest.raises(ValueError, match="share no ε"):
        attacks.attack_utility_frontier(result, [_curves("dp-oporp", [2.0, 3.0], [0.5, 0.6])])
    with pytest.raises(ValueError, match="metric"):
        attacks.attack_utility_frontier(result, [_curves("dp-oporp", [0.5, 1.0], [0.5, 0.6])], metric="recall")


# ---------------------------------------------------------------------------------------------
# the per-mechanism table without pandas


def test_the_markdown_table_reads_back_cell_for_cell():
    from privlib.presentation.projections.figures import markdown_table

    rows = [{"mechanism": "DP-OPORP", "guarantee": "a | b, *not* x_1 `c` $5 ~d \\ e", "n": 3},
            {"mechanism": "iDP\nsplit", "guarantee": "—", "n": None}]
    lines = markdown_table(rows).splitlines()
    assert len(lines) == 4 and lines[1] == "|---|---|---|"

    def cells(line):  # split on unescaped bars, then drop the escapes: what a Markdown reader shows
        parts = []
        current = ""
        escaped = False
        for c in line.strip()[1:-1]:
            if escaped:
                current, escaped = current + c, False
            elif c == "\\":
                escaped = True
            elif c == "|":
                parts.append(current.strip())
                current = ""
            else:
                current += c
        return parts + [current.strip()]

    assert cells(lines[0]) == ["mechanism", "guarantee", "n"]
    assert cells(lines[2]) == ["DP-OPORP", "a | b, *not* x_1 `c` $5 ~d \\ e", "3"]
    assert cells(lines[3]) == ["iDP split", "—", "None"]
    assert markdown_table([]) == ""
