"""The privacy–utility sweep (privlib.projections.sweep): a core SweepResult, the rp-sweep JSON, determinism, the
retrieval arithmetic against the estimators' reference protocol, and the one-projection-per-
configuration rule."""
import json

import numpy as np
import pytest

from privlib.core.calibration import analytic_gaussian_sigma
from privlib.core.mechanism import Guarantee
from privlib.core.randomised_response import binary_flip_probability
from privlib.core.sweep import SweepResult
from privlib.projections import sweep as S
from privlib.projections.datasets import Dataset, load_dataset
from privlib.projections.estimators import precision_at, retrieve, true_neighbours
from privlib.projections.mechanisms import MECHANISMS, ProjectionMechanism, make_mechanism
from privlib.projections.quantities import variance_oporp, variance_raw, variance_rp_rademacher

SPEC_KEYS = {"p", "k", "n_db", "n_queries", "chance", "nonprivate", "results"}
RESULT_KEYS = {"mechanism", "guarantee", "epsilon", "precision_at_50", "sd"}


class Identity(ProjectionMechanism):
    """Not a privacy mechanism: releases the data unchanged (a test oracle for the retrieval)."""

    name = "identity"
    label = "identity (no privacy)"
    output = "real"
    kind = None
    is_dp = False
    USES_DELTA = False

    def _guarantee(self):
        return Guarantee("none", text="no privacy (a test oracle)")

    def projections(self, p):
        return ()

    def _project(self, X):
        return X.copy()

    def _width(self, p):
        return p

    def _public(self, projections, p):
        return {}

    def _randomise(self, projected, public, rng, X):
        return projected.copy(), {}


@pytest.fixture(scope="module")
def small():
    return S.sweep("digits", ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"], (0.5, 5.0),
                   repeats=2, seed=3, k=16, t=1)


def test_result_is_a_sweep_result_and_the_json_has_the_spec_shape(small):
    assert isinstance(small, SweepResult) and small.metrics == S.METRICS and small.repeats == 2
    assert small.settings["R"] == 50 and "precision_at_50" not in small.metrics  # R is a setting, not a name
    d = S.report_dict(small)
    assert SPEC_KEYS <= set(d)
    assert set(d["nonprivate"]) == {"rp", "signrp"}
    assert (d["p"], d["k"], d["n_db"], d["n_queries"]) == (64, 16, 1597, 200)
    assert d["chance"] == pytest.approx(50 / 1597) == small.reference[S.CHANCE]
    assert len(d["results"]) == 3 * 2
    for row in d["results"]:
        assert set(row) == RESULT_KEYS
        assert 0 <= row["precision_at_50"] <= 1 and row["sd"] >= 0
    assert [r["mechanism"] for r in d["results"]][::2] == ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"]
    idp = [r for r in d["results"] if r["mechanism"] == "idp-signrp-rr"]
    assert all("not DP" in r["guarantee"] for r in idp)
    assert [m["is_dp"] for m in d["mechanisms"]] == [True, True, False]
    json.loads(json.dumps(d, allow_nan=False))  # no NaN or numpy types
    json.loads(small.to_json())
    # each mean is the mean of its repetitions
    for row, detail in zip(d["results"], d["details"]):
        assert row["precision_at_50"] == pytest.approx(np.mean(detail["per_rep"])) and len(detail["per_rep"]) == 2
    np.testing.assert_allclose(small.mean("dp-oporp", "precision"),
                               [np.mean(x["per_rep"]) for x in d["details"] if x["mechanism"] == "dp-oporp"],
                               rtol=1e-14)


def test_same_seed_same_result_other_seed_other_result(small):
    again = S.sweep("digits", ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"], (0.5, 5.0), repeats=2,
                    seed=3, k=16, t=1)
    assert S.report_dict(again) == S.report_dict(small)
    other = S.sweep("digits", ["dp-oporp"], (5.0,), repeats=2, seed=4, k=16)
    assert not np.array_equal(other.per_repeat("dp-oporp", "precision")[0],
                              small.per_repeat("dp-oporp", "precision")[1])
    # a point depends on its own epsilon, not on the rest of the grid
    alone = S.sweep("digits", ["dp-signoporp-rr-smooth"], (5.0,), repeats=2, seed=3, k=16, t=1)
    np.testing.assert_array_equal(alone.values[0, 0], small.values[1, 1])


def test_seeds_are_todays_key_tuples():
    """The one seeding scheme (core.sweep.child_rng) draws what the sweep drew before it: the tuple
    (seed, 2, rep, crc32(name), bits of ε) given straight to default_rng."""
    import zlib

    eps = 0.7
    old = np.random.default_rng((5, 2, 1, zlib.crc32(b"dp-oporp"), int(np.float64(eps).view(np.uint64))))
    np.testing.assert_array_equal(S.noise_generator(5, 1, "dp-oporp", eps).random(8), old.random(8))
    assert S.repetition_seed(5, 1) == int(np.random.SeedSequence((5, 1, 1)).generate_state(1, dtype=np.uint32)[0])


def test_a_mechanism_results_do_not_depend_on_the_others(small):
    alone = [S.sweep("digits", [name], (0.5, 5.0), repeats=2, seed=3, k=16, t=1)
             for name in ("dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr")]
    assert S.report_dict(S.combine(alone)) == S.report_dict(small)
    with pytest.raises(ValueError, match="differ: k"):
        S.combine([alone[0], S.sweep("digits", ["dp-rp-g"], (0.5, 5.0), repeats=2, seed=3, k=8)])
    with pytest.raises(ValueError, match="in two of the sweeps"):
        S.combine([alone[0], alone[0]])


def test_identity_mechanism_retrieves_every_true_neighbour():
    result = S.sweep("digits", [Identity], (0.1, 1.0, 10.0), repeats=2, seed=0, k=16)
    np.testing.assert_array_equal(result.per_repeat("identity", "precision"), 1.0)
    assert np.all(result.sd("identity", "precision") == 0.0)
    np.testing.assert_array_equal(result.per_repeat("identity", "bits_per_vector"), 64 * 64)


def test_tiny_epsilon_gives_chance_within_4_standard_errors():
    # sigma*(1e-3, 1e-6, 1) is about 3,600 against coordinates <= 1: the released vectors are noise
    result = S.sweep("digits", ["dp-oporp"], (1e-3,), repeats=12, seed=11, k=16)
    mean, se = result.mean("dp-oporp", "precision")[0], result.standard_error("dp-oporp", "precision")[0]
    assert abs(mean - result.reference[S.CHANCE]) < 4 * se
    # and at a large epsilon the same mechanism is far above chance (the test can fail)
    high = S.sweep("digits", ["dp-oporp"], (100.0,), repeats=2, seed=11, k=16)
    assert high.mean("dp-oporp", "precision")[0] > 5 * result.reference[S.CHANCE]


def test_nonprivate_levels_are_the_estimators_protocol_on_a_gaussian_projection():
    from privlib.projections.mechanisms import signs_with_coins
    from privlib.projections.projection import make_projection

    data = load_dataset("digits")
    result = S.sweep(data, ["dp-oporp"], (1.0,), repeats=1, seed=5, k=16)
    X_all = np.concatenate([data.X, data.Q])
    x = make_projection("gaussian", data.p, 16, S.repetition_seed(5, 0)).apply(X_all)
    truth = true_neighbours(data.X, data.Q, 50)
    assert result.reference[S.NONPRIVATE_RP] == pytest.approx(
        precision_at(truth, retrieve(x[:1597], x[1597:], 50)), abs=1e-15)
    signs = signs_with_coins(x, np.random.default_rng(0))  # no projection is exactly 0 here
    assert result.reference[S.NONPRIVATE_SIGNRP] == pytest.approx(
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
        mech = make_mechanism(name, epsilon=5.0, delta=1e-6, k=16, seed=1)
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
    S.sweep("digits", ["dp-rp-g", "dp-rp-g-opt", "dp-signrp-rr", "dp-oporp", "dp-signoporp-rr"], (0.5, 1.0, 5.0),
            repeats=2, seed=0, k=16, t=1)
    # Gaussian W (dp-rp-g, dp-rp-g-opt, dp-signrp-rr) and OPORP with t = 1 (dp-oporp, dp-signoporp-rr):
    # two configurations, projected once in each of the two repetitions
    assert calls == ["dp-rp-g", "dp-oporp"] * 2


def test_expected_flipped_bits_is_exact_for_randomised_response():
    data = load_dataset("digits")
    result = S.sweep(data, ["dp-signoporp-rr"], (0.5, 4.0), repeats=1, seed=7, k=16, t=2)
    mech = make_mechanism("dp-signoporp-rr", epsilon=0.5, k=16, t=2, seed=S.repetition_seed(7, 0))
    x = mech.project(np.concatenate([data.X, data.Q]))
    zeros = (x == 0).sum(axis=1)  # empty or cancelling bins: coins, wrong half the time
    for j, eps in enumerate((0.5, 4.0)):
        expected = np.mean((16 - zeros) * binary_flip_probability(eps / 2) + zeros * 0.5)
        assert result.per_repeat("dp-signoporp-rr", "expected_flipped_bits")[j, 0] == pytest.approx(expected,
                                                                                                      rel=1e-12)
        assert result.per_repeat("dp-signoporp-rr", "epsilon_per_bit")[j, 0] == pytest.approx(eps / 2)
        assert result.per_repeat("dp-signoporp-rr", "bits_per_vector")[j, 0] == 16


def test_table_rows_at_a_grid_epsilon(small):
    rows = S.table_rows(small, 5.0)
    assert [r["name"] for r in rows] == ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"]
    oporp = rows[0]
    assert oporp["sigma"] == pytest.approx(analytic_gaussian_sigma(5.0, 1e-6, 1.0)) and oporp["delta2"] == 1.0
    assert oporp["expected_flips"] is None and oporp["bits"] == 64 * 16
    assert oporp["precision"] == pytest.approx(small.mean("dp-oporp", "precision")[1])
    assert rows[2]["is_dp"] is False and "not DP" in rows[2]["guarantee"]
    with pytest.raises(KeyError):
        S.table_rows(small, 2.0)


def test_resolving_mechanisms_and_bad_input():
    assert [c.name for c in S.resolve_mechanisms("dp")] == [n for n, c in MECHANISMS.items() if c.is_dp]
    assert [c.name for c in S.resolve_mechanisms("idp")] == ["idp-signrp-g", "idp-signrp-rr"]
    assert len(S.resolve_mechanisms("all,dp-oporp")) == len(MECHANISMS)
    for bad in ("nope", "", []):
        with pytest.raises(ValueError):
            S.resolve_mechanisms(bad)
    with pytest.raises(ValueError, match="repeated"):
        S.sweep("digits", "dp-oporp", (1.0, 1.0), repeats=1, k=16)
    with pytest.raises(ValueError, match="t = 3 must divide k"):
        S.sweep("digits", "dp-signoporp-rr", (1.0,), repeats=1, k=16, t=3)
    with pytest.raises(ValueError, match="Unknown dataset"):
        S.sweep("cifar", "dp-oporp", (1.0,), repeats=1, k=16)
    with pytest.raises(ValueError, match="delta"):
        S.sweep("digits", "dp-signoporp-rr", (1.0,), repeats=1, k=16, delta=0.0)  # checked even for ε-DP ones


def test_progress_reaches_one_in_order():
    seen = []
    S.sweep("digits", ["dp-oporp", "dp-signoporp-rr"], (1.0, 2.0), repeats=2, seed=0, k=16,
            progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) == 2 * (1 + 2 * 2)


def test_query_subset_spreads_over_the_queries():
    assert S.query_subset(500, None).tolist() == list(range(500))
    chosen = S.query_subset(500, 10)
    assert chosen.tolist() == [0, 55, 111, 166, 222, 277, 333, 388, 444, 499]
    result = S.sweep("mnist", ["dp-oporp"], (5.0,), repeats=1, k=16, queries=50)
    assert result.settings["n_queries"] == 50
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
    x = make_mechanism("dp-signoporp-rr-smooth", epsilon=1.0, delta=1e-6, k=16, seed=0).project(data.X[:100])
    assert np.array_equal(levels["DP-SignOPORP-RR-smooth"], np.ceil(np.abs(x) / 1.0).astype(np.int64))


def test_combining_epsilon_grids_equals_one_sweep_over_their_union(small):
    names = ["dp-oporp", "dp-signoporp-rr-smooth", "idp-signrp-rr"]
    parts = [S.sweep("digits", names, (eps,), repeats=2, seed=3, k=16, t=1) for eps in (5.0, 0.5)]
    merged = S.combine_epsilons(parts)
    assert merged.epsilons.tolist() == [0.5, 5.0]
    np.testing.assert_array_equal(merged.values, small.values)
    assert S.report_dict(merged) == S.report_dict(small)
    with pytest.raises(ValueError, match="share an epsilon"):
        S.combine_epsilons([parts[0], parts[0]])
    with pytest.raises(ValueError, match="differ: settings"):
        S.combine_epsilons([parts[0], S.sweep("digits", names, (0.5,), repeats=2, seed=3, k=8, t=1)])


def test_recall_at_needs_a_sweep_with_its_own_true_neighbours():
    """recall@R out of the top T (§5.1's "recall@R out of 50") = precision@R · R/T; a sweep whose true
    neighbours are its top R has no separate recall."""
    data = load_dataset("digits")
    plain = S.sweep(data, "dp-oporp", [5.0], repeats=1, k=16, queries=20, R=10)
    with pytest.raises(ValueError, match="true=T"):
        S.recall_at(plain, 5.0)
    wide = S.sweep(data, "dp-oporp", [5.0], repeats=1, k=16, queries=20, R=10, true=50)
    precision = float(wide.mean("dp-oporp", "precision")[0])
    assert S.recall_at(wide, 5.0)["dp-oporp"] == pytest.approx(precision * 10 / 50)
    assert wide.reference[S.CHANCE] == pytest.approx(50 / data.n_db)
    assert precision >= float(plain.mean("dp-oporp", "precision")[0])  # the top 10 lie inside the top 50


# ------------------------------------------------------------------ one mechanism at a time (a page's cache)
@pytest.fixture(scope="module")
def digits_shared():
    data = load_dataset("digits")
    return data, S.shared_reference(data, k=16, R=50, repeats=2, seed=3)


def test_one_mechanism_sweeps_with_a_shared_reference_equal_one_sweep_of_all(small, digits_shared):
    data, shared = digits_shared
    parts = [S.sweep(data, [name], (0.5, 5.0), repeats=2, seed=3, k=16, t=1, shared=shared)
             for name in small.mechanisms]
    combined = S.combine(parts)
    np.testing.assert_array_equal(combined.values, small.values)
    assert combined.reference == small.reference and combined.guarantees == small.guarantees
    assert combined.settings == small.settings


@pytest.mark.parametrize("changed", [{"seed": 4}, {"k": 32}, {"repeats": 1}, {"R": 20}])
def test_a_shared_reference_of_other_settings_is_refused(digits_shared, changed):
    data, shared = digits_shared
    settings = {"repeats": 2, "seed": 3, "k": 16, **changed}
    with pytest.raises(ValueError, match="shared reference was computed for other settings"):
        S.sweep(data, ["dp-oporp"], (1.0,), shared=shared, **settings)


def test_a_shared_reference_of_other_data_with_the_same_name_and_shape_is_refused(digits_shared):
    data, shared = digits_shared
    reordered = Dataset(name=data.name, X=data.X[::-1].copy(), Q=data.Q, description=data.description,
                        source=data.source)
    with pytest.raises(ValueError, match="shared reference was computed for other settings"):
        S.sweep(reordered, ["dp-oporp"], (1.0,), repeats=2, seed=3, k=16, shared=shared)


#: A value other than `S.MECHANISM_SPECIFIC`'s for each mechanism-specific setting.
OTHER_VALUES = {"delta": 1e-3, "t": 4, "m": 10.0, "projection": "sparse", "s": 10.0}


@pytest.mark.parametrize("name", S.DP_MECHANISMS + S.IDP_MECHANISMS)
def test_a_mechanism_result_does_not_depend_on_the_settings_it_does_not_read(name, digits_shared):
    """What lets a page cache each mechanism under `mechanism_settings`: changing a setting the
    mechanism does not read changes none of its numbers or guarantees."""
    data, shared = digits_shared
    base = S.sweep(data, [name], (2.0,), repeats=2, seed=3, k=16, shared=shared)
    unread = [key for key in OTHER_VALUES if not S.reads_setting(name, key)]
    for key in unread:
        other = S.sweep(data, [name], (2.0,), repeats=2, seed=3, k=16, shared=shared, **{key: OTHER_VALUES[key]})
        np.testing.assert_array_equal(other.values, base.values, err_msg=key)
        assert other.guarantees == base.guarantees, key
    assert set(S.mechanism_settings(name, **OTHER_VALUES).items()) == (
        {(key, S.MECHANISM_SPECIFIC[key]) for key in unread}
        | {(key, value) for key, value in OTHER_VALUES.items() if key not in unread})


def test_which_mechanisms_read_which_settings():
    assert S.reads_setting("dp-signoporp-rr", "t") and not S.reads_setting("dp-oporp", "t")
    assert S.reads_setting("dp-rp-g-opt-b", "projection") and S.reads_setting("dp-rp-g-opt-b", "s")
    assert not S.reads_setting("dp-rp-g-opt", "projection")
    assert S.reads_setting("raw-data-g-opt", "delta") and not S.reads_setting("dp-signoporp-rr-smooth", "delta")
    assert S.reads_setting("dp-signrp-rr", "delta") and S.reads_setting("dp-signrp-rr", "m")  # (ε, δ)-DP when m > 0
    with pytest.raises(ValueError, match="Unknown mechanism-specific setting"):
        S.reads_setting("dp-oporp", "k")


def test_restating_settings_no_mechanism_reads_combines_with_those_that_read_them(digits_shared):
    data, shared = digits_shared
    oporp = S.sweep(data, ["dp-oporp"], (2.0,), repeats=2, seed=3, k=16, shared=shared)  # t = 1
    signs = S.sweep(data, ["dp-signoporp-rr"], (2.0,), repeats=2, seed=3, k=16, t=4, shared=shared)
    with pytest.raises(ValueError, match="Only sweeps with the same settings"):
        S.combine([oporp, signs])
    combined = S.combine([S.restate_settings(oporp, t=4), signs])
    both = S.sweep(data, ["dp-oporp", "dp-signoporp-rr"], (2.0,), repeats=2, seed=3, k=16, t=4)
    np.testing.assert_array_equal(combined.values, both.values)
    assert combined.settings == both.settings
    with pytest.raises(ValueError, match="dp-signoporp-rr reads t"):
        S.restate_settings(signs, t=1)
    with pytest.raises(ValueError, match="can be restated"):
        S.restate_settings(oporp, k=32)
