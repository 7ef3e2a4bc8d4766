"""What the app's pages used to compute themselves, now in privlib: each function against an
independent expectation — a closed form, exact values, or a property its output must have (never
a copy of its own code), on small spaces."""
import json
import math

import numpy as np
import pytest
from scipy import special, stats

from privlib.words.experiments import compare_sweeps, epsilon_sweep, rank_experiment, sweeps_to_json
from privlib.words.mechanisms import make_mechanism, resolve_mechanism
from privlib.words.neighbours import neighbour_ranks
from privlib.words.text import records_table, results_json, sanitize
from privlib.words.theory.analogies import (
    CLOSE_1D,
    PointMap,
    keep_rates,
    laplace_1d_comparison,
    planar_noise,
)
from privlib.words.theory.dot_experiment import (
    DISPLAY_TAIL,
    dot_product_experiment,
    law_curves,
    tail_table,
)
from privlib.words.theory.neighbour_distances import (
    FAR_RANK,
    neighbour_distances,
    table2_rows,
    win_probabilities,
    word_neighbourhood,
)
from privlib.words.theory.noisy_dot import NoisyDotProduct


# ----------------------------------------------------------------------------- Neighbour ranks
@pytest.mark.parametrize("spec", ["multivariate-laplace", "santext", "postprocessing-fix"])
def test_rank_experiment_downloads_and_table_agree_with_its_proportions(gaussian_space, spec):
    samples, close = 500, 50
    result = rank_experiment(gaussian_space, "w7", 3.0, samples, resolve_mechanism(spec), close, rng=4)
    header, *lines = result.to_csv().splitlines()
    ranks = np.array([int(line.split(",")[0]) for line in lines])
    assert ranks.tolist() == sorted(set(ranks.tolist())) and ranks[0] >= 0  # ascending, each rank once
    if result.exact:
        assert header == "rank,probability"
        weights = np.array([float(line.split(",")[1]) for line in lines])
        assert (weights > 0).all() and weights.sum() == pytest.approx(1.0, abs=1e-12)
    else:
        assert header == "rank,count"
        counts = np.array([int(line.split(",")[1]) for line in lines])
        assert counts.sum() == samples and (counts > 0).all()
        weights = counts / samples
    # the histogram gives the proportions: rank 0 original, 1..close close, beyond distant
    for name, at in (("original", ranks == 0), ("close", (ranks >= 1) & (ranks <= close)), ("distant", ranks > close)):
        assert weights[at].sum() == pytest.approx(result.proportions[name], abs=1e-12), name
    assert json.loads(result.to_json()) == result.to_dict() and result.to_json().startswith('{\n  "')
    # the table: the top outputs, each with its share and its distance and cosine to the input word
    w = gaussian_space.vectors[gaussian_space.index("w7")].astype(np.float64)
    table = result.top_table()
    assert [row["word"] for row in table] == [t["word"] for t in result.top] and table
    for row in table:
        x = gaussian_space.vectors[gaussian_space.index(row["word"])].astype(np.float64)
        assert row["distance"] == pytest.approx(np.linalg.norm(x - w), rel=1e-6)
        assert row["cosine"] == pytest.approx(x @ w / (np.linalg.norm(x) * np.linalg.norm(w)), abs=1e-9)
        if not result.exact:
            assert row["share"] == row["count"] / samples
        assert 0 < row["share"] <= 1
        assert weights[ranks == row["rank"]].sum() == pytest.approx(row["share"], abs=1e-12)


def test_resolve_mechanism_reads_a_name_a_pair_or_a_mechanism():
    fix = resolve_mechanism(("postprocessing-fix", (("c", 0.01),)))
    assert fix.name == "postprocessing-fix" and fix.parameters == {"c": 0.01}
    assert resolve_mechanism(("postprocessing-fix", {"c": 0.02})).parameters == {"c": 0.02}
    assert resolve_mechanism("postprocessing-fix").parameters == {"c": 0.005}  # the default
    assert resolve_mechanism(fix) is fix
    for bad in (42, ("postprocessing-fix",), ("no-such-mechanism", ())):
        with pytest.raises(ValueError):
            resolve_mechanism(bad)


def test_sweeps_json_holds_each_sweep_under_its_label(gaussian_space):
    a = epsilon_sweep(gaussian_space, (1, 5), 20, rng=1)
    b = epsilon_sweep(gaussian_space, (1, 5), 20, make_mechanism("postprocessing-fix"), rng=1)
    text = sweeps_to_json([("first", a), ("second", b)])
    assert text.startswith('{\n  "first": {')  # indented, in the given order
    assert json.loads(text) == {"first": a.to_dict(), "second": b.to_dict()}
    assert json.loads(sweeps_to_json([("same", a), ("same", b)])) == {"same": b.to_dict()}  # the later one wins


def test_compare_sweeps_is_one_epsilon_sweep_per_mechanism_from_the_same_seed(gaussian_space):
    # compare_sweeps's contract (its docstring): with an integer seed, each mechanism's sweep is
    # epsilon_sweep from that seed, so all run on the same words
    epsilons, words, seed = (1, 5, 20), 30, 3
    alone = [epsilon_sweep(gaussian_space, epsilons, words, make_mechanism(name), rng=seed)
             for name in ("multivariate-laplace", "postprocessing-fix")]
    fractions = []
    together = compare_sweeps(gaussian_space, epsilons, words, ("multivariate-laplace", "postprocessing-fix"),
                              rng=seed, progress=lambda f, m: fractions.append(f))
    assert [s.mechanism for s in together] == ["multivariate-laplace", "postprocessing-fix"]
    for old, now in zip(alone, together, strict=True):
        assert now.words == old.words
        for k in old.proportions:
            np.testing.assert_array_equal(now.proportions[k], old.proportions[k])
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0) and fractions[0] <= 0.5
    with pytest.raises(ValueError, match="at least one mechanism"):
        compare_sweeps(gaussian_space, epsilons, words, [])


# ----------------------------------------------------------------------------- Sanitise text
def test_token_table_has_a_row_per_token_and_json_keeps_the_text(glove_small):
    text = "Maria met Élodie's doctor in 2023."
    results = [sanitize(text, make_mechanism(name), 5, glove_small, 2) for name in ("multivariate-laplace", "santext")]
    rows = records_table(results)
    assert len(rows) == sum(len(r.records) for r in results) > 0
    assert [row["mechanism"] for row in rows] == [r.mechanism for r in results for _ in r.records]
    assert [row["original"] for row in rows] == [t.to_dict()["original"] for r in results for t in r.records]
    assert all(list(row)[0] == "mechanism" for row in rows)  # the mechanism first, then the token's fields
    out = results_json(results, 50)
    assert json.loads(out) == [json.loads(json.dumps(r.to_dict(50))) for r in results]
    assert "Élodie" in results_json(results)  # unescaped: readable in the download


# ----------------------------------------------------------------------------- Noisy dot product
@pytest.mark.parametrize("n, epsilon", [(50, 10.0), (2, 0.5), (1, 3.0)])
def test_law_curves_span_the_central_interval_and_the_integral_is_the_density(n, epsilon):
    law = NoisyDotProduct(n, epsilon)
    curves = law_curves(n, epsilon, with_integral=True)
    grid = curves.grid
    assert grid.size == 401 and DISPLAY_TAIL == 0.0005
    h = grid[-1] / 1.1  # the grid spans ±1.1 h, h the edge of the central 99.9 %
    assert grid[0] == -grid[-1] and law.cdf(h) == pytest.approx(1 - DISPLAY_TAIL, rel=1e-9)
    np.testing.assert_allclose(np.diff(grid), grid[1] - grid[0], rtol=1e-9)  # evenly spaced
    np.testing.assert_allclose(curves.pdf, curves.pdf[::-1], rtol=1e-12)  # Z is symmetric
    np.testing.assert_allclose(curves.cdf + curves.cdf[::-1], 1.0, atol=1e-12)
    assert np.all(np.diff(curves.cdf) > 0)
    # the density integrates to the CDF (trapezoid rule on the grid)
    mass = np.concatenate([[0.0], np.cumsum((curves.pdf[1:] + curves.pdf[:-1]) / 2 * np.diff(grid))])
    np.testing.assert_allclose(mass, curves.cdf - curves.cdf[0], atol=2e-4)
    # the paper's integral (Eq. 13, quadrature) and the closed form are the same density
    np.testing.assert_allclose(curves.integral_pdf, curves.pdf, rtol=1e-6, atol=1e-12)
    assert law_curves(n, epsilon).integral_pdf is None
    if n == 1:  # Z is the Laplace noise itself: density (eps/2) e^{-eps |z|}
        np.testing.assert_allclose(curves.pdf, epsilon / 2 * np.exp(-epsilon * np.abs(grid)), rtol=1e-12)


@pytest.mark.parametrize("word, normalise", [(None, True), ("w3", True), ("w3", False)])
def test_tail_table_bounds_hold_and_the_empirical_tail_follows_the_law(gaussian_space, word, normalise):
    samples = 20_000
    exp = dot_product_experiment(8, 2.0, samples, gaussian_space, word, normalise, rng=5)
    law = exp.law
    h = exp.display_half_width()
    assert law.sf(h) == pytest.approx(DISPLAY_TAIL, rel=1e-9)
    table = exp.tail_table()
    t = table.thresholds
    assert t.size == 200 and t[-1] == pytest.approx(1.5 * h, rel=1e-12) and t[0] == pytest.approx(1.5 * h / 200)
    np.testing.assert_allclose(table.exact, law.cdf(-t) + 1 - law.cdf(t), rtol=1e-9, atol=1e-15)  # P(|Z| > t)
    assert set(table.bounds) == {"Thm 8 (paper, best c1·c2)", "Chebyshev (Cor. 2)", "Chernoff (optimal, from the MGF)"}
    for name, bound in table.bounds.items():
        assert np.all(np.asarray(bound) >= table.exact * (1 - 1e-12)), name  # every bound holds
    emp_t, emp = table.empirical
    beyond = np.array([np.mean(np.abs(exp.values) > x) for x in t[::10]])  # the samples' own tail
    np.testing.assert_array_equal(emp_t, t[::10][beyond > 0])
    np.testing.assert_allclose(emp, beyond[beyond > 0], rtol=1e-12)
    expected = table.exact[::10][beyond > 0]
    assert np.all(np.abs(emp - expected) <= 4 * np.sqrt(expected * (1 - expected) / samples) + 1e-12)
    assert tail_table(law.n, law.epsilon).empirical is None
    json.dumps(exp.tail_table().to_dict())


@pytest.mark.parametrize("n", [1, 2, 50])
def test_component_curves_are_the_gamma_radius_and_the_angle_density(n):
    epsilon = 4.0
    curves = dot_product_experiment(n, epsilon, 1_000, rng=0).component_curves()
    radius = stats.gamma(a=n, scale=1 / epsilon)  # ||eta|| ~ Gamma(n, 1/eps)
    r = curves.radius_grid
    assert r.size == 300 and r[0] == pytest.approx(radius.ppf(1e-4)) and r[-1] == pytest.approx(radius.ppf(1 - 1e-4))
    np.testing.assert_allclose(curves.radius_pdf, radius.pdf(r), rtol=1e-9)
    if n == 1:
        assert curves.angle_grid is None and curves.angle_pdf is None
    else:  # K = cos(angle to a fixed axis) of a uniform direction: (1 - k^2)^((n-3)/2) / B(1/2, (n-1)/2)
        k = curves.angle_grid
        assert k.size == 399 and -1 < k[0] < k[-1] < 1
        expected = (1 - k**2) ** ((n - 3) / 2) / special.beta(0.5, (n - 1) / 2)
        np.testing.assert_allclose(curves.angle_pdf, expected, rtol=1e-9)


# ----------------------------------------------------------------------------- Why it happens
@pytest.fixture(scope="module")
def table(gaussian_space):
    return neighbour_distances(gaussian_space, 60, rng=2)


def test_table2_rows_label_each_quantity_with_its_mean_and_errors(table):
    values = table.values()
    published = {"dim": 8, "paper": (1.369, 0.172, 0.757), "artifact": (1.383, 0.165, 0.750)}
    rows, beside = table2_rows(table), table2_rows(table, published)
    assert [row["quantity"] for row in rows] == ["z(w, x₁) = ‖w − x₁‖/2", "z(x₁, x₂)  (Eq. 19)",
                                                 f"z(x₁, x{FAR_RANK})  (Eq. 19)"]
    assert [list(row) for row in rows] == [["quantity", "mean (ours)", "± standard error",
                                            "standard deviation over words"]] * 3
    for row, extra, name in zip(rows, beside, table.names, strict=True):
        v = values[name][~np.isnan(values[name])]
        assert row["mean (ours)"] == pytest.approx(v.mean(), rel=1e-12)
        assert row["standard deviation over words"] == pytest.approx(np.std(v, ddof=1), rel=1e-12)
        assert row["± standard error"] == pytest.approx(np.std(v, ddof=1) / math.sqrt(v.size), rel=1e-12)
        assert extra == {**row, "paper (Table 2)": extra["paper (Table 2)"], "artifact's run": extra["artifact's run"]}
    assert [(r["paper (Table 2)"], r["artifact's run"]) for r in beside] == [(1.369, 1.383), (0.172, 0.165),
                                                                             (0.757, 0.750)]
    json.dumps(beside)


def test_word_neighbourhood_is_the_words_neighbour_profile_and_its_table2_values(gaussian_space):
    # against the two library routes it gathers: the neighbour ranks and Table 2 of the one word
    profile = neighbour_ranks(gaussian_space, "w11").distances[: FAR_RANK + 1].copy()
    alone = neighbour_distances(gaussian_space, ["w11"])
    now = word_neighbourhood(gaussian_space, "w11")
    np.testing.assert_array_equal(now.distances, profile)
    assert now.word == "w11" and now.neighbours == alone.neighbour_words[0]
    assert now.z == {k: float(v[0]) for k, v in alone.values().items()}
    assert now.table.neighbour_words == alone.neighbour_words
    with pytest.raises(ValueError):
        word_neighbourhood(gaussian_space, "not-a-word")


def test_first_reaching_is_the_smallest_epsilon_whose_mean_reaches_the_level(table):
    grid = (0.5, 1, 2, 5, 10, 20, 50)
    probabilities = win_probabilities(table, grid)
    mean = probabilities.mean()
    first = probabilities.first_reaching(0.9)
    assert first is not None and first["epsilon"] in grid
    j = grid.index(first["epsilon"])
    assert first["w_beats_x1"] >= 0.9 and all(m < 0.9 for m in mean["w_beats_x1"][:j])  # the first that does
    assert (first["w_beats_x1"], first["x1_beats_x2"]) == (mean["w_beats_x1"][j], mean["x1_beats_x2"][j])
    assert probabilities.first_reaching(1.5) is None  # a probability never reaches 1.5
    with pytest.raises(ValueError):
        probabilities.first_reaching(0.9, "nope")


@pytest.mark.parametrize("kind", ["rounded", "geometric"])
def test_one_dimension_comparison_is_the_closed_form_and_a_simulation_of_it(kind):
    epsilons = np.geomspace(0.001, 10, 21)
    samples, k = 500, CLOSE_1D
    exact, simulated = laplace_1d_comparison(tuple(epsilons), samples, kind=kind, rng=3)
    e = epsilons
    if kind == "rounded":  # |eta| < 1/2, 1/2 <= |eta| < K + 1/2, beyond; eta ~ Laplace(0, 1/eps)
        law = {"original": 1 - np.exp(-e / 2), "close": np.exp(-e / 2) * (1 - np.exp(-e * k)),
               "distant": np.exp(-e * (k + 0.5))}
    else:  # two-sided geometric, q = e^{-eps}
        q = np.exp(-e)
        law = {"original": (1 - q) / (1 + q), "close": 2 * q * (1 - q**k) / (1 + q),
               "distant": 2 * q ** (k + 1) / (1 + q)}
    for name, p in law.items():
        np.testing.assert_allclose(exact.proportions[name], p, rtol=1e-9, atol=1e-15)
        se = np.sqrt(p * (1 - p) / samples)
        assert np.all(np.abs(simulated.proportions[name] - p) <= 4 * se + 1e-12), name


def test_map_keep_rates_at_an_epsilon_and_the_planar_densities():
    epsilons = (0.001, 0.002, 0.005)
    rates = keep_rates(PointMap.us_states(), epsilons, 50, rng=1)
    assert rates.rates.shape == (len(PointMap.us_states()), 3)
    for j, e in enumerate(epsilons):
        np.testing.assert_array_equal(rates.at(e), rates.rates[:, j])
    with pytest.raises(ValueError, match="not one of"):
        rates.at(0.003)
    epsilon = 0.002
    exact = planar_noise(epsilon, 100, rng=1).exact_densities()
    r, density = exact["radius"]
    # the radius of planar Laplace noise: Gamma(2, 1/eps), density eps^2 r e^{-eps r}, grid up to its
    # 99.9 % quantile (CDF 1 - e^{-eps r}(1 + eps r))
    assert r.size == 300 and r[0] == 0
    assert 1 - np.exp(-epsilon * r[-1]) * (1 + epsilon * r[-1]) == pytest.approx(0.999, rel=1e-9)
    np.testing.assert_allclose(density, epsilon**2 * r * np.exp(-epsilon * r), rtol=1e-9, atol=1e-300)
    np.testing.assert_array_equal(exact["angle"][0], [-np.pi, 0.0, np.pi])
    np.testing.assert_array_equal(exact["angle"][1], np.full(3, 1 / (2 * np.pi)))
