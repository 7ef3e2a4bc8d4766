"""The privacy–utility sweep (privlib.projections.sweep): the rp-sweep JSON, determinism, the
retrieval arithmetic against the estimators' reference protocol, and the one-projection-per-
configuration rule."""
import json

import numpy as np
import pytest

from privlib.core.calibration import analytic_gaussian_sigma
from privlib.projections import sweep as S
from privlib.projections.datasets import load_dataset
from privlib.projections.estimators import precision_at, retrieve, true_neighbours
from privlib.projections.mechanisms import MECHANISMS, ProjectionMechanism, make_mechanism
from privlib.projections.quantities import flip_probability, variance_oporp, variance_raw, variance_rp_rademacher

SPEC_KEYS = {"p", "k", "n_db", "n_queries", "chance", "nonprivate", "results"}
RESULT_KEYS = {"mechanism", "guarantee", "epsilon", "precision_at_50", "sd"}


class Identity(ProjectionMechanism):
    """Not a privacy mechanism: releases the data unchanged (a test oracle for the retrieval)."""

    name = "identity"
    label = "identity (no privacy)"
    output = "real"
    kind = None
    uses_delta = False

    def projections(self, p):
        return ()

    def project(self, X):
        return self.check_data(X).copy()

    def _width(self, p):
        return p

    def _public(self, projections, p):
        return {}

    def _randomise(self, projected, public, rng, X):
        return projected.copy(), {}


@pytest.fixture(scope="module")
def small():
    return S.privacy_utility_sweep("digits", ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"], (0.5, 5.0),
                                   k=16, t=1, reps=2, seed=3)


def test_json_has_the_spec_shape_and_is_valid_json(small):
    d = small.to_dict()
    assert SPEC_KEYS <= set(d)
    assert set(d["nonprivate"]) == {"rp", "signrp"}
    assert (d["p"], d["k"], d["n_db"], d["n_queries"]) == (64, 16, 1597, 200)
    assert d["chance"] == pytest.approx(50 / 1597)
    assert len(d["results"]) == 3 * 2
    for row in d["results"]:
        assert set(row) == RESULT_KEYS
        assert 0 <= row["precision_at_50"] <= 1 and row["sd"] >= 0
    assert [r["mechanism"] for r in d["results"]][::2] == ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"]
    idp = [r for r in d["results"] if r["mechanism"] == "idp-signrp-rr"]
    assert all("not DP" in r["guarantee"] for r in idp)
    assert [m["is_dp"] for m in d["mechanisms"]] == [True, True, False]
    json.loads(json.dumps(d, allow_nan=False))  # no NaN or numpy types
    # each mean is the mean of its repetitions
    for pt in small.points:
        assert pt.precision == pytest.approx(np.mean(pt.per_rep)) and len(pt.per_rep) == 2


def test_same_seed_same_result_other_seed_other_result(small):
    again = S.privacy_utility_sweep("digits", ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"], (0.5, 5.0),
                                    k=16, t=1, reps=2, seed=3)
    assert again.to_dict() == small.to_dict()
    other = S.privacy_utility_sweep("digits", ["dp-oporp"], (5.0,), k=16, reps=2, seed=4)
    assert other.point("dp-oporp", 5.0).per_rep != small.point("dp-oporp", 5.0).per_rep
    # a point depends on its own epsilon, not on the rest of the grid
    alone = S.privacy_utility_sweep("digits", ["dp-signoporp-rr-smooth"], (5.0,), k=16, t=1, reps=2, seed=3)
    assert alone.point("dp-signoporp-rr-smooth", 5.0) == small.point("dp-signoporp-rr-smooth", 5.0)


def test_a_mechanism_results_do_not_depend_on_the_others(small):
    alone = [S.privacy_utility_sweep("digits", [name], (0.5, 5.0), k=16, t=1, reps=2, seed=3)
             for name in ("dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr")]
    assert S.PrivacyUtilitySweep.combine(alone).to_dict() == small.to_dict()
    with pytest.raises(ValueError, match="differ: k"):
        S.PrivacyUtilitySweep.combine([alone[0], S.privacy_utility_sweep("digits", ["dp-rp-g"], (0.5, 5.0), k=8,
                                                                          reps=2, seed=3)])


def test_identity_mechanism_retrieves_every_true_neighbour():
    result = S.privacy_utility_sweep("digits", [Identity], (0.1, 1.0, 10.0), k=16, reps=2, seed=0)
    for eps in (0.1, 1.0, 10.0):
        pt = result.point("identity", eps)
        assert pt.precision == 1.0 and pt.sd == 0.0
        assert pt.bits_per_vector == 64 * 64


def test_tiny_epsilon_gives_chance_within_4_standard_errors():
    # sigma*(1e-3, 1e-6, 1) is about 3,600 against coordinates <= 1: the released vectors are noise
    result = S.privacy_utility_sweep("digits", ["dp-oporp"], (1e-3,), k=16, reps=12, seed=11)
    per_rep = np.array(result.point("dp-oporp", 1e-3).per_rep)
    se = per_rep.std(ddof=1) / np.sqrt(per_rep.size)
    assert abs(per_rep.mean() - result.chance) < 4 * se
    # and at a large epsilon the same mechanism is far above chance (the test can fail)
    high = S.privacy_utility_sweep("digits", ["dp-oporp"], (100.0,), k=16, reps=2, seed=11)
    assert high.point("dp-oporp", 100.0).precision > 5 * result.chance


def test_nonprivate_levels_are_the_estimators_protocol_on_a_gaussian_projection():
    from privlib.projections.mechanisms import signs_with_coins
    from privlib.projections.projection import make_projection

    data = load_dataset("digits")
    result = S.privacy_utility_sweep(data, ["dp-oporp"], (1.0,), k=16, reps=1, seed=5)
    X_all = np.concatenate([data.X, data.Q])
    x = make_projection("gaussian", data.p, 16, S.repetition_seed(5, 0)).apply(X_all)
    truth = true_neighbours(data.X, data.Q, 50)
    assert result.nonprivate_rp == pytest.approx(precision_at(truth, retrieve(x[:1597], x[1597:], 50)), abs=1e-15)
    signs = signs_with_coins(x, np.random.default_rng(0))  # no projection is exactly 0 here
    assert result.nonprivate_signrp == pytest.approx(
        precision_at(truth, retrieve(signs[:1597], signs[1597:], 50, "hamming")), abs=1e-15)


@pytest.mark.parametrize("kind", ["float", "int", "few-values"])
def test_precision_from_scores_equals_the_stable_ranking(kind):
    rng = np.random.default_rng({"float": 1, "int": 2, "few-values": 3}[kind])
    for _ in range(60):
        n = int(rng.integers(2, 300))
        R = int(rng.integers(1, n + 1))
        nq = int(rng.integers(1, 8))
        if kind == "float":
            scores = rng.standard_normal((nq, n))
        elif kind == "int":
            scores = rng.integers(-20, 21, (nq, n)).astype(np.int16)
        else:
            scores = rng.integers(0, 3, (nq, n)).astype(np.float64)
        truth = np.stack([rng.permutation(n)[:R] for _ in range(nq)])
        order = np.argsort(-scores.astype(np.float64), axis=1, kind="stable")[:, :R]
        expected = np.mean([len(set(a) & set(b)) for a, b in zip(order, truth)]) / R
        assert S.precision_from_scores(truth, scores, R) == pytest.approx(expected, abs=1e-15)


def test_retrieval_precision_equals_the_estimators_on_released_data():
    data = load_dataset("digits")
    truth = true_neighbours(data.X, data.Q, 50)
    X_all = np.concatenate([data.X, data.Q])
    for name in ("raw-data-g-opt", "dp-oporp", "dp-signoporp-rr", "dp-signrp-rr-smooth"):
        mech = make_mechanism(name, epsilon=5.0, k=16, seed=1)
        values = mech.release(X_all, np.random.default_rng(2)).values
        metric = "hamming" if mech.output == "sign" else "cosine"
        expected = precision_at(truth, retrieve(values[:1597], values[1597:], 50, metric))
        assert S.retrieval_precision(truth, values[:1597], values[1597:], 50, metric) == pytest.approx(expected,
                                                                                                      abs=1e-15)


def test_the_projection_is_computed_once_per_repetition_and_configuration(monkeypatch):
    calls = []
    original = ProjectionMechanism.project

    def counting(self, X):
        calls.append(self.name)
        return original(self, X)

    monkeypatch.setattr(ProjectionMechanism, "project", counting)
    S.privacy_utility_sweep("digits", ["dp-rp-g", "dp-rp-g-opt", "dp-signrp-rr", "dp-oporp", "dp-signoporp-rr"],
                            (0.5, 1.0, 5.0), k=16, t=1, reps=2, seed=0)
    # Gaussian W (dp-rp-g, dp-rp-g-opt, dp-signrp-rr) and OPORP with t = 1 (dp-oporp, dp-signoporp-rr):
    # two configurations, projected once in each of the two repetitions
    assert calls == ["dp-rp-g", "dp-oporp"] * 2


def test_expected_flipped_bits_is_exact_for_randomised_response():
    data = load_dataset("digits")
    result = S.privacy_utility_sweep(data, ["dp-signoporp-rr"], (0.5, 4.0), k=16, t=2, reps=1, seed=7)
    mech = make_mechanism("dp-signoporp-rr", epsilon=0.5, k=16, t=2, seed=S.repetition_seed(7, 0))
    x = mech.project(np.concatenate([data.X, data.Q]))
    zeros = (x == 0).sum(axis=1)  # empty or cancelling bins: coins, wrong half the time
    for eps in (0.5, 4.0):
        expected = np.mean((16 - zeros) * flip_probability(eps / 2) + zeros * 0.5)
        pt = result.point("dp-signoporp-rr", eps)
        assert pt.expected_flips == pytest.approx(expected, rel=1e-12)
        assert pt.epsilon_per_bit == pytest.approx(eps / 2) and pt.bits_per_vector == 16


def test_table_rows_at_a_grid_epsilon(small):
    rows = small.table_rows(5.0)
    assert [r["name"] for r in rows] == ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"]
    oporp = rows[0]
    assert oporp["sigma"] == pytest.approx(analytic_gaussian_sigma(5.0, 1e-6, 1.0)) and oporp["delta2"] == 1.0
    assert oporp["expected_flips"] is None and oporp["bits"] == 64 * 16
    assert rows[2]["is_dp"] is False
    with pytest.raises(KeyError):
        small.table_rows(2.0)


def test_resolving_mechanisms_and_bad_input():
    assert [c.name for c in S.resolve_mechanisms("dp")] == [n for n, c in MECHANISMS.items() if c.is_dp]
    assert [c.name for c in S.resolve_mechanisms("idp")] == ["idp-signrp-g", "idp-signrp-rr"]
    assert len(S.resolve_mechanisms("all,dp-oporp")) == len(MECHANISMS)
    for bad in ("nope", "", []):
        with pytest.raises(ValueError):
            S.resolve_mechanisms(bad)
    with pytest.raises(ValueError, match="repeated"):
        S.privacy_utility_sweep("digits", "dp-oporp", (1.0, 1.0), k=16, reps=1)
    with pytest.raises(ValueError, match="t = 3 must divide k"):
        S.privacy_utility_sweep("digits", "dp-signoporp-rr", (1.0,), k=16, t=3, reps=1)
    with pytest.raises(ValueError, match="Unknown dataset"):
        S.privacy_utility_sweep("cifar", "dp-oporp", (1.0,), k=16, reps=1)


def test_progress_reaches_one_in_order():
    seen = []
    S.privacy_utility_sweep("digits", ["dp-oporp", "dp-signoporp-rr"], (1.0, 2.0), k=16, reps=2, seed=0,
                            progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) == 2 * (1 + 2 * 2)


def test_query_subset_spreads_over_the_queries():
    assert S.query_subset(500, None).tolist() == list(range(500))
    chosen = S.query_subset(500, 10)
    assert chosen.tolist() == [0, 55, 111, 166, 222, 277, 333, 388, 444, 499]
    result = S.privacy_utility_sweep("mnist", ["dp-oporp"], (5.0,), k=16, reps=1, queries=50)
    assert result.n_queries == 50
    labels = load_dataset("mnist").labels_q[S.query_subset(500, 50)]
    assert np.bincount(labels).tolist() == [5] * 10  # every digit kept


def test_monte_carlo_variances_match_the_closed_forms():
    data = load_dataset("digits")
    u, v = data.Q[0], data.Q[1]
    check = S.inner_product_monte_carlo(u, v, (1.0, 20.0), 16, draws=400, seed=1)
    for j, eps in enumerate((1.0, 20.0)):
        sigma = analytic_gaussian_sigma(eps, 1e-6, 1.0)
        for name, exact in (("raw-data-g-opt", variance_raw(u, v, sigma)),
                            ("dp-rp-g-opt-b", variance_rp_rademacher(u, v, sigma, 16)),
                            ("dp-oporp", variance_oporp(u, v, sigma, 16))):
            assert abs(check.variance[name][j] - exact) < 4 * check.standard_error[name][j], (name, eps)


def test_smooth_levels_on_data_are_the_release_diagnostics():
    levels = S.smooth_levels_on_data("digits", 16, t=1, seed=0, rows=100)
    assert set(levels) == {"DP-SignRP-RR-smooth", "DP-SignOPORP-RR-smooth"}
    data = load_dataset("digits")
    x = make_mechanism("dp-signoporp-rr-smooth", epsilon=1.0, k=16, seed=0).project(data.X[:100])
    assert np.array_equal(levels["DP-SignOPORP-RR-smooth"], np.ceil(np.abs(x) / 1.0).astype(np.int64))
