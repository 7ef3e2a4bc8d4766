"""The Why it happens page's analysis: its settings, its numbers and its code.

The page follows the paper's explanation (Asghar et al., PoPETs 2026) in five steps: Laplace noise on a
number line (Fig. 1, `laplace_1d_comparison`), planar noise on a map of the US states (Figs. 3 and 4,
`keep_rates`, `planar_noise`), a word's neighbourhood and Table 2 over random words (§6,
`word_neighbourhood`, `neighbour_distances`), the exact probabilities of Eqs. 18–19 (Fig. 6,
`win_probabilities`) and the paper's fix (§7). Table 2 is its main result and the script's (the command
line's `table2` computes the same table from the same settings file). Two parts run on request on the
page — Fig. 6's runs of the mechanism (`mechanism_frequencies`) and step 5's comparison without and with
the fix (`sweep`) — and are the script's last cell, marked (seconds of searches of the whole vocabulary).
"""
from __future__ import annotations

import math

import numpy as np

from privlib.analyses.code import code, markdown
from privlib.analyses.embedding import EMBEDDING_SETTINGS, load_space_code
from privlib.analyses.settings import PageSettings, Setting
from privlib.words.theory.analogies import KINDS_1D, PointMap

#: Step 1: the ε grid of the number line, the simulated draws per ε offered.
EPSILONS_1D = tuple(float(e) for e in np.geomspace(0.001, 10, 21))
SAMPLES_1D = (500, 2_000, 10_000, 50_000)
#: Step 2: the ε grid of the map (per km), the runs per place and ε, the draws of planar noise (Fig. 4), the
#: places the keep-rate chart shows when none is chosen, and the most places the page labels.
MAP_EPSILONS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
MAP_SAMPLES = 2_000
NOISE_SAMPLES = 5_000
DEFAULT_PLACES = ("Hawaii", "Kansas")
MAX_PLACES = 6
#: Step 3: the numbers of random words Table 2 offers (the first is computed by itself on the page).
TABLE2_WORDS = (1_000, 2_000, 5_000)
#: Step 4 (Fig. 6): its ε grid and the words the mechanism runs on (one run per word and ε).
FIG6_EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50)
FIG6_MECHANISM_WORDS = 200
#: Step 5: the ε grid, the random words and the two mechanisms compared.
FIX_EPSILONS = (1, 2, 5, 10, 15, 20, 30)
FIX_WORDS = 100
FIX_MECHANISMS = ("multivariate-laplace", "postprocessing-fix")
#: The level of Fig. 6's sentence: the first ε at which w beats x₁ with this mean probability.
REACH_LEVEL = 0.9

#: The page's settings. `words`, `vocab_size` and `seed` are the options of `table2` (which computes the page's
#: Table 2); the others are the page's only.
SETTINGS = PageSettings("why_it_happens", "Why it happens", command="table2", settings=(
    *EMBEDDING_SETTINGS,
    Setting("noise_1d", KINDS_1D[0], "choice", choices=KINDS_1D, label="Step 1: integer noise",
            help="rounded: Laplace noise rounded to the nearest integer; geometric: the discrete Laplace law."),
    Setting("samples_1d", 2_000, "choice", choices=SAMPLES_1D, label="Step 1: simulated draws per ε"),
    Setting("map_epsilon", 0.002, "choice", choices=MAP_EPSILONS, label="Step 2: ε per km"),
    Setting("places", DEFAULT_PLACES, "choices", choices=PointMap.us_states().names, high=MAX_PLACES, optional=True,
            label="Step 2: places on the curve"),
    Setting("word", "king", "text", max_chars=1_000, label="Step 3: word",
            help="Any word of the vocabulary (empty: no word)."),
    Setting("words", TABLE2_WORDS[0], "choice", choices=TABLE2_WORDS, label="Table 2: random words",
            help=f"More than {TABLE2_WORDS[0]:,} wait for their button on the page."),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("A word (steps 3–5): the multivariate Laplace mechanism hides which word was sanitised, with a guarantee "
            "that weakens with the distance between words (d_X-privacy, ε per unit of embedding distance); the "
            "analogies protect a count in step 1 (ε-DP, sensitivity 1) and a place in step 2 (ε per km: "
            "geo-indistinguishability).")


def _number(value: float):
    """A float as the page shows it: "undefined" for NaN (Eq. 19 is 0/0 where two neighbours have identical
    vectors), so that every number reads back."""
    return "undefined" if math.isnan(value) else float(value)


def numbers(table, neighbourhood=None, probabilities=None) -> dict:
    """The numbers of the page's main result: Table 2 over random words (``table``, a `NeighbourDistances`: the
    words, each quantity's mean, standard error, standard deviation over words and undefined count); with
    ``neighbourhood`` (a `WordNeighbourhood`) the step-3 word's neighbours x₁, x₂, x_far and its three
    quantities; with ``probabilities`` (the table's `WinProbabilities`) Fig. 6's sentence: the first ε at which
    w beats x₁ with mean probability `REACH_LEVEL`, and both mean probabilities there."""
    found = {"words": len(table)}
    means, errors, deviations, undefined = (table.means(), table.standard_errors(), table.standard_deviations(),
                                            table.undefined())
    for name in table.names:
        found[f"{name}, mean"] = _number(means[name])
        found[f"{name}, standard error"] = _number(errors[name])
        found[f"{name}, standard deviation"] = _number(deviations[name])
        found[f"{name}, undefined"] = int(undefined[name])
    if neighbourhood is not None:
        found["word"] = neighbourhood.word
        for label, neighbour in zip(("x1", "x2", f"x{neighbourhood.far}"), neighbourhood.neighbours):
            found[f"word, {label}"] = neighbour
        for name, value in neighbourhood.z.items():
            found[f"word, {name}"] = _number(value)
    reach = probabilities.first_reaching(REACH_LEVEL) if probabilities is not None else None
    if reach is not None:
        found[f"w beats x1 with probability {REACH_LEVEL:g} from epsilon"] = reach["epsilon"]
        found["there, w beats x1"] = reach["w_beats_x1"]
        found["there, x1 beats x2"] = reach["x1_beats_x2"]
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    places = tuple(v["places"] or ())
    word = v["word"].strip()
    word_cells = [
        code("""
neighbourhood = word_neighbourhood(space, word)
x1, x2, x_far = neighbourhood.neighbours
print(f"Nearest neighbours of {word!r}: x1 = {x1!r}, x2 = {x2!r}, x{FAR_RANK} = {x_far!r}; z = {neighbourhood.z}")
profile = figures.neighbour_distance_profile(neighbourhood.distances, word, FAR_RANK,
                                             title=f"The {FAR_RANK} nearest neighbours of “{word}”")
charts.append(profile)
profile"""),
    ] if word else [code("neighbourhood = None  # no word chosen on the page")]
    return [
        markdown(f"""
# Why it happens — from Epsilon Lab
On word embeddings the multivariate Laplace mechanism returns either the word itself or a far-off word, and
almost never one of its close neighbours. The paper's explanation (Asghar et al., PoPETs 2026) step by step:
noise on a number line, on a map, then the words' own distances (Table 2) and the exact probabilities of
Eqs. 18–19 (Fig. 6). Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
import numpy as np
import pandas as pd

from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.why_it_happens import numbers
from privlib.presentation.words import figures
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.theory.analogies import TRUE_VALUE_1D, PointMap, keep_rates, laplace_1d_comparison, planar_noise
from privlib.words.theory.neighbour_distances import (
    FAR_RANK,
    neighbour_distances,
    published_table2,
    table2_rows,
    win_probabilities,
    word_neighbourhood,
)"""),
        code(f"""
# The page's settings
seed = {v['seed']!r}
noise_1d = {v['noise_1d']!r}  # step 1: "rounded" Laplace or "geometric" (discrete Laplace)
samples_1d = {v['samples_1d']!r}  # step 1: simulated draws per ε
map_epsilon = {v['map_epsilon']!r}  # step 2: ε per km
places = {places!r}  # step 2: the places on the curve
word = {word!r}  # step 3
words = {v['words']!r}  # Table 2: random words
{load_space_code(v)}
charts = []"""),
        markdown("## 1. On a number line, Laplace noise behaves as expected"),
        code("""
exact_1d, simulated_1d = laplace_1d_comparison(np.geomspace(0.001, 10, 21), samples_1d, kind=noise_1d, rng=seed)
line = figures.proportions_vs_epsilon(
    [("exact (closed form)", exact_1d), (f"simulated ({samples_1d:,} draws per ε)", simulated_1d)],
    title=f"One dimension: outputs for the true value {TRUE_VALUE_1D:,}")
charts.append(line)
line"""),
        markdown("## 2. On a map, islands keep themselves"),
        code(f"""
point_map = PointMap.us_states()
rates = keep_rates(point_map, {MAP_EPSILONS!r}, {MAP_SAMPLES!r}, rng=seed)
state_map = figures.location_map(point_map, rates.at(map_epsilon), map_epsilon, highlight=places)
charts.append(state_map)
state_map"""),
        code(f"""
keep = figures.keep_rate_vs_epsilon(rates, list(places or {DEFAULT_PLACES!r}),
                                    title="Proportion of {MAP_SAMPLES:,} runs that keep the place",
                                    chosen_epsilon=map_epsilon)
charts.append(keep)
keep"""),
        code(f"""
# The noise in two dimensions (the paper's Fig. 4): radius Gamma(2, 1/ε), angle uniform
noise = planar_noise(map_epsilon, {NOISE_SAMPLES!r}, rng=seed)
exact = noise.exact_densities()
radius = figures.density_with_samples(*exact["radius"], noise.radius, x_title="radius ‖η‖ (km)",
                                      title="Radius: Gamma(2, 1/ε)", exact_name="Gamma(2, scale 1/ε) density")
charts.append(radius)
radius"""),
        code("""
angle = figures.density_with_samples(*exact["angle"], noise.angle, x_title="angle (radians)",
                                     title="Angle: uniform", exact_name="uniform density 1/(2π)")
charts.append(angle)
angle"""),
        code("""
scatter = figures.noise_scatter(noise.noise, map_epsilon, units=" km", title="Noise vectors η")
charts.append(scatter)
scatter"""),
        markdown("## 3. In a word embedding, every word is an island"),
        *word_cells,
        code("""
# Table 2 over random words of the whole vocabulary (python -m privlib table2 computes the same)
table = neighbour_distances(space, words, rng=seed)
published = published_table2(space)  # the paper's row, for its embeddings (None otherwise)
gaps = figures.neighbour_gap_distributions(
    table.values(), table.means(), dict(zip(table.names, published["paper"])) if published else None,
    title=f"Per-word distributions over {len(table):,} random words")
charts.append(gaps)
pd.DataFrame(table2_rows(table, published))"""),
        code("gaps"),
        markdown("## 4. The noisy dot product decides, and it cannot see small gaps (Fig. 6, exact)"),
        code(f"""
fig6_epsilons = {FIG6_EPSILONS!r}
probabilities = win_probabilities(table, fig6_epsilons)
word_curves = None if neighbourhood is None else (word, win_probabilities(neighbourhood.table, fig6_epsilons))
fig6 = figures.win_probabilities_vs_epsilon(probabilities, None, word_curves,
                                            title=f"Exact probabilities (n = {{space.dim}}) for {{len(table):,}} random words")
charts.append(fig6)
fig6"""),
        markdown("## The numbers (the page's Table 2, the word's metrics and Fig. 6's sentence)"),
        code("""
print_numbers(numbers(table, neighbourhood, probabilities))
save_charts("why-it-happens-charts.html", charts, title="Why it happens")"""),
        markdown(f"""
## On the page on request: the mechanism's runs (Fig. 6) and the fix (step 5)
Seconds of searches of the whole vocabulary (the page runs them when you ask); delete this cell to skip them.
Fig. 6's diamonds: the multivariate Laplace mechanism once per ε on {FIG6_MECHANISM_WORDS} of the table's words.
Step 5: how often {FIX_WORDS} random words come out as themselves, a close neighbour or a distant word, without and
with the paper's fix (§7)."""),
        code(f"""
from privlib.words.experiments import sweep
from privlib.words.theory.neighbour_distances import mechanism_frequencies

frequencies = mechanism_frequencies(space, table, fig6_epsilons, {FIG6_MECHANISM_WORDS!r}, 1, rng=seed)
fig6_runs = figures.win_probabilities_vs_epsilon(
    probabilities, frequencies, word_curves,
    title=f"Exact probabilities (n = {{space.dim}}) for {{len(table):,}} random words, and what the mechanism did")
charts.append(fig6_runs)
fig6_runs"""),
        code(f"""
fix = sweep(space, {FIX_MECHANISMS!r}, {FIX_EPSILONS!r}, repeats={FIX_WORDS!r}, seed=seed)
fix_chart = figures.proportions_vs_epsilon(fix, title=f"Outputs of {{fix.repeats}} random words, without and with the fix")
charts.append(fix_chart)
save_charts("why-it-happens-charts.html", charts, title="Why it happens")
fix_chart"""),
    ]
