"""What the app's pages used to compute themselves, now in privlib: each function against the
page's former code (copied here as it was), on small spaces."""
import io
import json

import numpy as np
import pytest

from privlib.words.experiments import compare_sweeps, epsilon_sweep, rank_experiment, sweeps_to_json
from privlib.words.mechanisms import make_mechanism, resolve_mechanism
from privlib.words.neighbours import neighbour_ranks
from privlib.words.text import records_table, results_json, sanitize
from privlib.words.theory.analogies import (
    PointMap,
    keep_rates,
    laplace_1d_comparison,
    laplace_1d_proportions,
    planar_noise,
    simulate_laplace_1d,
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
from privlib.words.theory.noisy_dot import (
    AngularComponent,
    NoiseRadius,
    NoisyDotProduct,
    chebyshev_tail_bound,
    chernoff_tail_bound,
    thm8_tail_bound,
)


# ----------------------------------------------------------------------------- Neighbour ranks
def _former_csv(result) -> str:
    ranks, weights = result.rank_distribution()
    csv = io.StringIO()
    csv.write("rank,probability\n" if result.exact else "rank,count\n")
    if result.exact:
        csv.writelines(f"{r},{w:.17g}\n" for r, w in zip(ranks, weights))
    else:
        csv.writelines(f"{r},{c}\n" for r, c in zip(*result.rank_counts()))
    return csv.getvalue()


def _former_top_rows(result, samples):
    return [{"word": t["word"], "rank": t["rank"],
             **({"count": t["count"], "share": t["count"] / samples} if "count" in t else {"share": t["probability"]}),
             "distance": t["distance"], "cosine": t["cosine"]} for t in result.top]


@pytest.mark.parametrize("spec", [("multivariate-laplace", ()), ("santext", ()), "postprocessing-fix"])
def test_rank_experiment_downloads_and_table_are_the_former_ones(gaussian_space, spec):
    result = rank_experiment(gaussian_space, "w7", 3.0, 500, resolve_mechanism(spec), 50, rng=4)
    assert result.to_csv() == _former_csv(result)
    assert result.to_csv().splitlines()[0] == ("rank,probability" if result.exact else "rank,count")
    assert result.to_json() == json.dumps(result.to_dict(), indent=2)
    assert result.top_table() == _former_top_rows(result, 500)
    if not result.exact:  # the counts of the CSV add up to the samples
        assert sum(int(line.split(",")[1]) for line in result.to_csv().splitlines()[1:]) == 500


def test_resolve_mechanism_builds_what_the_pages_built():
    spec = ("postprocessing-fix", (("c", 0.01),))
    old, new = make_mechanism(spec[0], **dict(spec[1])), resolve_mechanism(spec)
    assert type(new) is type(old) and new.name == old.name and new.guarantee == old.guarantee


def test_sweeps_json_is_the_former_one(gaussian_space):
    a = epsilon_sweep(gaussian_space, (1, 5), 20, rng=1)
    b = epsilon_sweep(gaussian_space, (1, 5), 20, make_mechanism("postprocessing-fix"), rng=1)
    labelled = [("first", a), ("second", b)]
    assert sweeps_to_json(labelled) == json.dumps({label: s.to_dict() for label, s in labelled}, indent=2)


def test_compare_sweeps_is_the_former_fix_comparison(gaussian_space):
    epsilons, words, seed = (1, 5, 20), 30, 3
    former = []
    for name in ("multivariate-laplace", "postprocessing-fix"):
        former.append(epsilon_sweep(gaussian_space, epsilons, words, make_mechanism(name), rng=seed))
    fractions = []
    new = compare_sweeps(gaussian_space, epsilons, words, ("multivariate-laplace", "postprocessing-fix"), rng=seed,
                         progress=lambda f, m: fractions.append(f))
    assert [s.mechanism for s in new] == ["multivariate-laplace", "postprocessing-fix"]
    for old, now in zip(former, new):
        assert now.words == old.words
        for k in old.proportions:
            np.testing.assert_array_equal(now.proportions[k], old.proportions[k])
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0) and fractions[0] <= 0.5
    with pytest.raises(ValueError, match="at least one mechanism"):
        compare_sweeps(gaussian_space, epsilons, words, [])


# ----------------------------------------------------------------------------- Sanitise text
def test_token_table_and_json_are_the_former_ones(glove_small):
    text = "Maria met Élodie's doctor in 2023."
    results = [sanitize(text, make_mechanism(name), 5, glove_small, 2) for name in ("multivariate-laplace", "santext")]
    assert records_table(results) == [{"mechanism": r.mechanism, **t.to_dict()} for r in results for t in r.records]
    assert results_json(results, 50) == json.dumps([r.to_dict(50) for r in results], indent=2, ensure_ascii=False)
    assert "Élodie" in results_json(results)


# ----------------------------------------------------------------------------- Noisy dot product
@pytest.mark.parametrize("n, epsilon", [(50, 10.0), (2, 0.5), (1, 3.0)])
def test_law_curves_are_the_former_ones(n, epsilon):
    law = NoisyDotProduct(n, epsilon)
    half = float(law.isf(0.0005))
    lo, hi = -1.1 * half, 1.1 * half
    grid = np.linspace(lo, hi, 401)
    curves = law_curves(n, epsilon)
    np.testing.assert_array_equal(curves.grid, grid)
    np.testing.assert_array_equal(curves.pdf, law.pdf(grid))
    np.testing.assert_array_equal(curves.cdf, law.cdf(grid))
    assert curves.integral_pdf is None and DISPLAY_TAIL == 0.0005
    # the page drew the integral at 81 points and moved the trace onto them; now it is on the grid itself
    with_integral = law_curves(n, epsilon, with_integral=True)
    assert with_integral.integral_pdf.shape == grid.shape
    former = law.pdf_integral(np.linspace(lo, hi, 81))
    np.testing.assert_allclose(with_integral.integral_pdf[::5], former, rtol=1e-10)
    np.testing.assert_allclose(with_integral.integral_pdf, law.pdf_integral(grid), rtol=1e-12)


def _former_tails(n, epsilon, t_max):
    t = np.linspace(t_max / 200, t_max, 200)
    exact = 2 * NoisyDotProduct(n, epsilon).sf(t)
    bounds = {
        "Thm 8 (paper, best c1·c2)": thm8_tail_bound(n, epsilon, t),
        "Chebyshev (Cor. 2)": chebyshev_tail_bound(n, epsilon, t),
        "Chernoff (optimal, from the MGF)": chernoff_tail_bound(n, epsilon, t),
    }
    return t, exact, bounds


@pytest.mark.parametrize("word, normalise", [(None, True), ("w3", True), ("w3", False)])
def test_tail_table_and_empirical_tail_are_the_former_ones(gaussian_space, word, normalise):
    exp = dot_product_experiment(8, 2.0, 20_000, gaussian_space, word, normalise, rng=5)
    law = exp.law
    half = float(law.isf(0.0005))
    t, exact, bounds = _former_tails(law.n, law.epsilon, 1.5 * half)
    abs_sorted = np.sort(np.abs(exp.values))
    emp_t = t[::10]
    emp = 1 - np.searchsorted(abs_sorted, emp_t, side="right") / abs_sorted.size
    keep = emp > 0

    table = tail_table(law.n, law.epsilon)
    np.testing.assert_array_equal(table.thresholds, t)
    np.testing.assert_array_equal(table.exact, exact)
    assert list(table.bounds) == list(bounds)
    for name in bounds:
        np.testing.assert_array_equal(table.bounds[name], bounds[name])
    assert table.empirical is None
    for tails in (table.with_empirical(exp.values), exp.tail_table()):
        np.testing.assert_array_equal(tails.empirical[0], emp_t[keep])
        np.testing.assert_array_equal(tails.empirical[1], emp[keep])
    np.testing.assert_array_equal(exp.empirical_tail(emp_t)[1], emp[keep])
    assert exp.display_half_width() == half
    json.dumps(exp.tail_table().to_dict())


@pytest.mark.parametrize("n", [1, 2, 50])
def test_component_curves_are_the_former_ones(n):
    exp = dot_product_experiment(n, 4.0, 1_000, rng=0)
    radius_law = NoiseRadius(n, 4.0)
    r_grid = np.linspace(max(radius_law.ppf(1e-4), 0), radius_law.ppf(1 - 1e-4), 300)
    curves = exp.component_curves()
    np.testing.assert_array_equal(curves.radius_grid, r_grid)
    np.testing.assert_array_equal(curves.radius_pdf, radius_law.pdf(r_grid))
    if n == 1:
        assert curves.angle_grid is None and curves.angle_pdf is None
    else:
        k_grid = np.linspace(-1, 1, 401)[1:-1]
        np.testing.assert_array_equal(curves.angle_grid, k_grid)
        np.testing.assert_array_equal(curves.angle_pdf, AngularComponent(n).pdf(k_grid))


# ----------------------------------------------------------------------------- Why it happens
QUANTITY_LABELS = {"z_w_x1": "z(w, x₁) = ‖w − x₁‖/2", "z_x1_x2": "z(x₁, x₂)  (Eq. 19)",
                   f"z_x1_x{FAR_RANK}": f"z(x₁, x{FAR_RANK})  (Eq. 19)"}


def _former_rows(table, published):
    means, se, sd = table.means(), table.standard_errors(), table.standard_deviations()
    rows = []
    for i, name in enumerate(table.names):
        row = {"quantity": QUANTITY_LABELS.get(name, name), "mean (ours)": means[name], "± standard error": se[name],
               "standard deviation over words": sd[name]}
        if published is not None:
            row["paper (Table 2)"] = published["paper"][i]
            row["artifact's run"] = published["artifact"][i]
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def table(gaussian_space):
    return neighbour_distances(gaussian_space, 60, rng=2)


def test_table2_rows_are_the_former_ones(table):
    published = {"dim": 8, "paper": (1.369, 0.172, 0.757), "artifact": (1.383, 0.165, 0.750)}
    for pub in (None, published):
        rows = table2_rows(table, pub)
        former = _former_rows(table, pub)
        assert [list(r) for r in rows] == [list(r) for r in former]
        assert json.dumps(rows) == json.dumps(former)


def test_word_neighbourhood_is_the_former_pair(gaussian_space):
    profile = neighbour_ranks(gaussian_space, "w11").distances[: FAR_RANK + 1].copy()
    former = neighbour_distances(gaussian_space, ["w11"])
    now = word_neighbourhood(gaussian_space, "w11")
    np.testing.assert_array_equal(now.distances, profile)
    assert now.word == "w11" and now.neighbours == former.neighbour_words[0]
    assert now.z == {k: float(v[0]) for k, v in former.values().items()}
    assert now.table.neighbour_words == former.neighbour_words
    with pytest.raises(ValueError):
        word_neighbourhood(gaussian_space, "not-a-word")


def test_first_reaching_is_the_former_sentence_numbers(table):
    probabilities = win_probabilities(table, (0.5, 1, 2, 5, 10, 20, 50))
    mean = probabilities.mean()
    reach = np.flatnonzero(mean["w_beats_x1"] >= 0.9)
    assert reach.size  # so the comparison below means something
    j = int(reach[0])
    assert probabilities.first_reaching(0.9) == {"epsilon": probabilities.epsilons[j],
                                                 "w_beats_x1": mean["w_beats_x1"][j],
                                                 "x1_beats_x2": mean["x1_beats_x2"][j]}
    assert probabilities.first_reaching(1.5) is None
    with pytest.raises(ValueError):
        probabilities.first_reaching(0.9, "nope")


def test_one_dimension_comparison_is_the_former_pair():
    epsilons = tuple(float(e) for e in np.geomspace(0.001, 10, 21))
    for kind in ("rounded", "geometric"):
        exact, simulated = laplace_1d_comparison(epsilons, 500, kind=kind, rng=3)
        former = (laplace_1d_proportions(epsilons, kind=kind), simulate_laplace_1d(epsilons, 500, kind=kind, rng=3))
        for now, old in zip((exact, simulated), former):
            assert now.to_dict() == old.to_dict()


def test_map_keep_rates_at_and_planar_densities_are_the_former_ones():
    epsilons = (0.001, 0.002, 0.005)
    rates = keep_rates(PointMap.us_states(), epsilons, 50, rng=1)
    for j, e in enumerate(epsilons):
        np.testing.assert_array_equal(rates.at(e), rates.rates[:, epsilons.index(e)])
        assert j == epsilons.index(e)
    with pytest.raises(ValueError, match="not one of"):
        rates.at(0.003)
    noise = planar_noise(0.002, 100, rng=1)
    law = noise.radius_law
    r_grid = np.linspace(0, law.ppf(0.999), 300)
    exact = noise.exact_densities()
    np.testing.assert_array_equal(exact["radius"][0], r_grid)
    np.testing.assert_array_equal(exact["radius"][1], law.pdf(r_grid))
    np.testing.assert_array_equal(exact["angle"][0], np.linspace(-np.pi, np.pi, 3))
    np.testing.assert_array_equal(exact["angle"][1], np.full(3, 1 / (2 * np.pi)))
