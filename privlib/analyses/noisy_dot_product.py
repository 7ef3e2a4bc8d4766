"""The Noisy dot product page's analysis: its settings, its numbers and its code.

The page samples the multivariate Laplace mechanism's noise η and dots it with a unit vector e (or a
word's vector): Z = ⟨η, e⟩, against its exact law (`privlib.words.theory.noisy_dot`), its components
R = ‖η‖ and K = cos(η, e), and the paper's tail bounds (Asghar et al., §4–5, Thm 8).
"""
from __future__ import annotations

from privlib.analyses.code import code, markdown
from privlib.analyses.embedding import EMBEDDING_SETTINGS, load_space_code
from privlib.analyses.settings import PageSettings, Setting
from privlib.core.validation import EPSILON_MAX, EPSILON_MIN

#: The sample sizes the page offers.
SAMPLE_CHOICES = (1_000, 10_000, 100_000, 1_000_000)
#: The confidence of the interval in the page's table.
CONFIDENCE = 0.99

SETTINGS = PageSettings("noisy_dot_product", "Noisy dot product", command="dot", settings=(
    *EMBEDDING_SETTINGS,
    Setting("n", 50, "int", low=1, high=5000, label="Dimension n"),
    Setting("epsilon", 10.0, "float", low=EPSILON_MIN, high=EPSILON_MAX, label="ε (epsilon)"),
    Setting("samples", 100_000, "choice", choices=SAMPLE_CHOICES, label="Samples"),
    Setting("word", None, "text", optional=True, max_chars=200, label="Word (optional)",
            help="Dot the noise with this word's vector (n must be the embedding's dimension); none: a unit vector."),
    Setting("normalise", True, "bool", label="Dot product with the unit vector w/‖w‖ (law Z)",
            help="False: with the word vector w itself (law ‖w‖·Z)."),
    Setting("integral", False, "bool", label="Paper's integral",
            help="Overlay the paper's Eq. 13, integrated numerically."),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("A word: the multivariate Laplace mechanism hides which word was sanitised, with a guarantee that "
            "weakens with the distance between words (d_X-privacy, ε per unit of embedding distance).")


def numbers(experiment) -> dict:
    """The numbers of the page's table: each quantity's exact value, simulated value, its standard
    error and the paper's bounds (`DotProductExperiment.summary` at 99 %)."""
    found = {}
    for row in experiment.summary(CONFIDENCE):
        for column in ("exact", "simulated", "standard error", "bound", "bound (Chebyshev)"):
            if row.get(column) is not None:
                found[f"{row['quantity']}, {column}"] = float(row[column])
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    word = v["word"]
    uses_word = word is not None
    space_lines = (f"{load_space_code(v)}\n" if uses_word else "space = None  # no word: a fixed unit vector\n")
    subject = (f"⟨η, {word}⟩" if uses_word and not v["normalise"] else
               f"⟨η, {word}/‖{word}‖⟩" if uses_word else "⟨η, e⟩")
    return [
        markdown(f"""
# Noisy dot product — from Epsilon Lab
The multivariate Laplace mechanism outputs the word minimising ‖w − x‖² − 2⟨x, η⟩, so what matters is the
noisy dot product Z = ⟨η, e⟩ of its noise η with a unit vector e. Below: Z sampled from the mechanism's noise,
against its exact law, its two components and the paper's tail bounds (Asghar et al., §4–5).
Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.noisy_dot_product import numbers
from privlib.presentation.words import figures
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.theory.dot_experiment import dot_product_experiment, law_curves, tail_table"""),
        code(f"""
# The page's settings
n = {v['n']!r}
epsilon = {v['epsilon']!r}
samples = {v['samples']!r}
word = {word!r}
normalise = {v['normalise']!r}
seed = {v['seed']!r}
{space_lines}"""),
        code("""
experiment = dot_product_experiment(n, epsilon, samples, space, word, normalise, rng=seed)
law = experiment.law
curves = law_curves(law.n, law.epsilon, with_integral=""" + repr(v["integral"]) + """)
print(f"Z has standard deviation {law.var() ** 0.5:.6g} = √(n+1)/ε")"""),
        markdown("## Samples against the exact law"),
        code(f"""
subject = {subject!r}
density = figures.density_with_samples(curves.grid, curves.pdf, experiment.values, integral_pdf=curves.integral_pdf,
                                       x_title=subject, title=f"Density of {{subject}}: samples vs exact law")
density"""),
        code("""
cdf = figures.cdf_with_samples(curves.grid, curves.cdf, experiment.values, x_title=subject,
                               title="Cumulative distribution")
cdf"""),
        markdown("## The two components: length R and angle K"),
        code("""
components = experiment.component_curves()
radius = figures.density_with_samples(components.radius_grid, components.radius_pdf, experiment.radius,
                                      x_title="R = ‖η‖", title="Length R ~ Gamma(n, 1/ε)",
                                      exact_name="Gamma(n, 1/ε) density")
radius"""),
        code("""
# For n = 1 the direction is ±1: K takes the values −1 and 1, no density to draw
angle = None if components.angle_grid is None else figures.density_with_samples(
    components.angle_grid, components.angle_pdf, experiment.cosine, x_title="K = cos(angle between η and e)",
    title="Angle K", exact_name="f_B(k) = (1−k²)^((n−3)/2) / B((n−1)/2, 1/2)")
angle"""),
        markdown("## Tail probability P(|Z| > t): exact vs the paper's bounds"),
        code("""
tails = tail_table(law.n, law.epsilon).with_empirical(experiment.values)
tail_chart = figures.tail_bounds(tails.thresholds, tails.exact, tails.bounds, empirical_tail=tails.empirical,
                                 x_title=f"threshold t for {subject}")
tail_chart"""),
        markdown("## The numbers: exact vs simulated vs bound (the page's table)"),
        code("""
print_numbers(numbers(experiment))
charts = [chart for chart in (density, cdf, radius, angle, tail_chart) if chart is not None]
save_charts("noisy-dot-product-charts.html", charts, title="Noisy dot product")"""),
    ]
