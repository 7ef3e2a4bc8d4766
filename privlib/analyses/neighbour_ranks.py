"""The Neighbour ranks page's analysis: its settings, its numbers and its code.

The page runs a word-level mechanism on one word many times (or takes its exact output law) and ranks
each output among the word's neighbours: rank 0 = the word itself, 1..K = a close neighbour, > K = a
distant word (Asghar et al., Fig. 2 for one word; `privlib.words.experiments.rank_experiment`). That run
is its main result and the script's. The word's curve across ε (`CURVE_EPSILONS`, `CURVE_SAMPLES` runs per
ε: seconds for most mechanisms) is the script's last cell, marked: on the page it waits for its button.
The average over random words (Fig. 2) and the Attacker's view run on request on the page and are not in
the export; their controls are settings all the same (a link restores them).
"""
from __future__ import annotations

from privlib.analyses.code import code, markdown
from privlib.analyses.embedding import EMBEDDING_SETTINGS, load_space_code
from privlib.analyses.settings import PageSettings, Setting, parameter_settings
from privlib.core.validation import EPSILON_MAX, EPSILON_MIN
from privlib.words.attacks import DEFAULT_TARGET, PRIORS
from privlib.words.mechanisms import MECHANISMS
from privlib.words.neighbours import DEFAULT_CLOSE

#: The sample sizes the page offers.
SAMPLE_CHOICES = (100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000)
#: The largest K the page offers (and at most the vocabulary's size − 1).
MAX_CLOSE = 10_000
#: The longest word a link or a settings file may carry.
MAX_WORD_CHARS = 1_000
#: The mechanism the page starts with.
DEFAULT_MECHANISM = "multivariate-laplace"
#: The word's curve across ε: its ε grid and runs of the mechanism per ε.
CURVE_EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)
CURVE_SAMPLES = 300
#: The average over random words (the paper's Figs. 2, 8, 9): its ε grid, the word counts offered, the most
#: mechanisms compared.
AVERAGE_EPSILONS = tuple(range(1, 31))
AVERAGE_WORDS = (50, 100, 200, 500, 1_000, 2_000, 5_000)
MAX_COMPARED = 4
#: The Attacker's view: the candidate counts offered (the N most frequent words).
ATTACK_CANDIDATES = (100, 200, 500, 1_000, 2_000, 5_000)
#: The mechanism parameters' settings, named "<mechanism>.<parameter>" (the page's mechanism controls).
PARAMETER_SETTINGS = parameter_settings(MECHANISMS)

#: The page's settings. The names of `ranks`' options where it has them (word, epsilon, samples, close,
#: mechanism, seed, vocab_size); the mechanism's parameters are page-only (`ranks` takes them as
#: ``--param KEY=VALUE``), as are the controls of the sections that run on request.
SETTINGS = PageSettings("neighbour_ranks", "Neighbour ranks", command="ranks", settings=(
    *EMBEDDING_SETTINGS,
    Setting("word", "king", "text", max_chars=MAX_WORD_CHARS, label="Word",
            help="Any word of the vocabulary (a word outside it is named on the page)."),
    Setting("epsilon", 10.0, "float", low=EPSILON_MIN, high=EPSILON_MAX, label="ε (epsilon)"),
    Setting("samples", 2_000, "choice", choices=SAMPLE_CHOICES, label="Samples",
            help="Runs of the mechanism on the word (mechanisms with exact output probabilities are not sampled)."),
    Setting("close", DEFAULT_CLOSE, "int", low=1, high=MAX_CLOSE, label="K (close ranks)",
            help="Outputs ranked 1..K are close neighbours (at most the vocabulary's size − 1)."),
    Setting("mechanism", DEFAULT_MECHANISM, "choice", choices=tuple(MECHANISMS), label="Mechanism"),
    *PARAMETER_SETTINGS,
    Setting("average_mechanisms", (DEFAULT_MECHANISM,), "choices", choices=tuple(MECHANISMS), high=MAX_COMPARED,
            optional=True, label="Average over random words: mechanisms"),
    Setting("average_words", 200, "choice", choices=AVERAGE_WORDS, label="Average over random words: words"),
    Setting("candidates", 2_000, "int", low=1, high=max(ATTACK_CANDIDATES),
            label="Attacker's view: candidate words (the most frequent)"),
    Setting("prior", "uniform", "choice", choices=tuple(PRIORS), label="Attacker's view: prior over them"),
    Setting("target", DEFAULT_TARGET, "float", low=0.0, high=1.0, label="Attacker's view: attack success you accept"),
    Setting("frontier_mechanisms", (DEFAULT_MECHANISM,), "choices", choices=tuple(MECHANISMS), high=MAX_COMPARED,
            optional=True, label="Frontier: mechanisms"),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("A word: the output hides which word was typed. Most mechanisms here are d_X-private (ε per unit of "
            "embedding distance: two words close in the embedding are harder to tell apart than two far ones); "
            "SanText+ protects its sensitive words, CusText the words of one output set. Each mechanism's "
            "guarantee is stated on the page (About this mechanism).")


def mechanism_parameters(values) -> dict:
    """The chosen mechanism's parameters (parameter → value) in ``values`` (see `SETTINGS`)."""
    name = values["mechanism"]
    return {pname: values[f"{name}.{pname}"] for pname in MECHANISMS[name].PARAMETERS}


def numbers(result) -> dict:
    """The numbers of the page's main result (a `RankExperiment`): the shares of outputs that are the word
    (rank 0), a close neighbour (1..K) and a distant word (> K) with their standard errors (0 when exact),
    and the most frequent (or most probable) outputs' ranks and shares, named by their words."""
    found = {}
    errors = result.standard_errors()
    for name in ("original", "close", "distant"):
        found[name] = float(result.proportions[name])
        found[f"{name}, standard error"] = float(errors[name])
    share = "probability" if result.exact else "share"
    for i, row in enumerate(result.top_table(), 1):
        found[f"output {i} ({row['word']}), rank"] = int(row["rank"])
        found[f"output {i} ({row['word']}), {share}"] = float(row["share"])
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    params = ", ".join(f"{k}={p!r}" for k, p in mechanism_parameters(v).items())
    mechanism_line = f"mechanism = make_mechanism({v['mechanism']!r}{', ' + params if params else ''})"
    return [
        markdown(f"""
# Neighbour ranks — from Epsilon Lab
A word-level mechanism replaces the word by a word of the vocabulary. Is the output the word itself, one of its
close neighbours, or a far-off word? Each output is ranked among the word's neighbours (rank 0 = the word itself,
1 = its nearest neighbour, …; ranks 1..K are close neighbours). Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
import pandas as pd

from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.neighbour_ranks import numbers
from privlib.presentation.words import figures
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.experiments import epsilon_sweep, rank_experiment
from privlib.words.mechanisms import make_mechanism"""),
        code(f"""
# The page's settings
word = {v['word']!r}
epsilon = {v['epsilon']!r}
samples = {v['samples']!r}
close = {v['close']!r}  # K: ranks 1..K are close neighbours
seed = {v['seed']!r}
{mechanism_line}
{load_space_code(v)}"""),
        code("""
result = rank_experiment(space, word, epsilon, samples, mechanism, close, rng=seed)
print(f"{mechanism.label} on {word!r} at ε = {epsilon:g}: "
      + ("exact output probabilities" if result.exact else f"{samples:,} samples"))"""),
        markdown("## Where the outputs land"),
        code("""
what = "Exact output law" if result.exact else f"Ranks of {samples:,} outputs"
histogram = figures.rank_histogram(*result.rank_distribution(), len(space), close, exact=result.exact,
                                   title=f"{what} for “{word}” at ε = {epsilon:g}")
histogram"""),
        code("""
# the most probable (exact) or most frequent (sampled) outputs
pd.DataFrame(result.top_table())"""),
        markdown("## The numbers (the page's metrics and table)"),
        code("""
print_numbers(numbers(result))
charts = [histogram]
save_charts("neighbour-ranks-charts.html", charts, title="Neighbour ranks")"""),
        markdown(f"""
## On the page on request: the word's curve across ε
{len(CURVE_EPSILONS)} values of ε × {CURVE_SAMPLES} runs of the mechanism on the word: seconds for most mechanisms
(the page draws it when you ask). Delete this cell to skip it. The average over random words (the paper's Fig. 2:
`epsilon_sweep(space, epsilons, n_words, mechanism, close, rng=seed)`) and the Attacker's view
(`privlib.words.attacks`) are not in this export."""),
        code(f"""
curve = epsilon_sweep(space, {CURVE_EPSILONS!r}, [word], mechanism, close, rng=seed,
                      samples_per_word={CURVE_SAMPLES!r})
sweeps = [(f"“{{word}}” ({CURVE_SAMPLES} samples per ε)", curve)]
curve_chart = figures.proportions_vs_epsilon(sweeps, title="Proportions of outputs against ε", chosen_epsilon=epsilon,
                                             shown=figures.curve_set_labels(sweeps))
charts.append(curve_chart)
save_charts("neighbour-ranks-charts.html", charts, title="Neighbour ranks")
curve_chart"""),
    ]
