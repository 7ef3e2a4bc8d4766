"""The Choose epsilon page's analysis: its settings, its numbers, its code and its report.

The page runs each chosen word-level mechanism many times on each of your words over an ε grid
(`privlib.words.choice.mechanism_metrics`; exact output laws where they exist), optionally attacks it
(`attack_metrics`: how often somebody who sees the sanitised word names the original), and answers the
inverse questions for your targets (`assemble_choice`): the smallest ε for the utility target, the largest
for the privacy floor and for the attack target. The script makes the same calls through
`privlib.words.choice.choose_epsilon` (the same functions, seeds and arguments), so it prints the same numbers.

The words are what the user typed or uploaded: a private setting (`Setting.private`, "text") — never in a
link, and in a settings file, the code and the report only when the user ticks the page's box; otherwise
the code analyses the paper's worked example (a pasted text) or reads the word list from a file of the
same name beside the script (an uploaded one), and the report lists no word of it.
"""
from __future__ import annotations

from privlib.analyses.code import code, markdown, percent_script
from privlib.analyses.embedding import EMBEDDING_SETTINGS, GLOVE_WORDS, load_space_code
from privlib.analyses.report import code_html, settings_html
from privlib.analyses.settings import PageSettings, Setting, parameter_settings
from privlib.words.attacks import PRIORS
from privlib.words.choice import (
    ATTACK_MEASURES,
    DEFAULT_SENTENCE_LENGTH,
    KEEP_STATISTICS,
    PRIVACY_METRICS,
    AttackSettings,
    Targets,
)
from privlib.words.mechanisms import MECHANISMS
from privlib.words.neighbours import DEFAULT_CLOSE
from privlib.words.text import MAX_CHARACTERS, PAPER_EXAMPLE

#: Where the words come from: a pasted text, an uploaded word list, or a uniform sample of the vocabulary.
TEXT, FILE, RANDOM = "text", "file", "random"
SOURCES = {TEXT: "Paste a text", FILE: "Upload a word list", RANDOM: "Random vocabulary words"}
#: The runs per word and ε the page offers.
SAMPLE_CHOICES = (10, 20, 30, 50, 100, 200, 500, 1000)
#: The most mechanisms compared at once.
MAX_MECHANISMS = 4
DEFAULT_MECHANISMS = ("multivariate-laplace", "postprocessing-fix")
DEFAULT_GRID = "1,2,3,5,8,12,20,30"
#: The largest K and sentence length the page offers.
MAX_CLOSE = 10_000
MAX_SENTENCE_LENGTH = 10_000
#: The most random vocabulary words the page draws.
MAX_RANDOM_WORDS = 5_000
#: The longest text of words (pasted, or an uploaded word list's): the page reads any text in chunks of
#: `privlib.words.text.MAX_CHARACTERS`; a settings file that includes it is read back up to its own size limit.
MAX_TEXT_CHARS = 100 * MAX_CHARACTERS
#: The longest file name a link or a settings file may carry.
MAX_NAME_CHARS = 255
#: The mechanism parameters' settings, named "<mechanism>.<parameter>" (the page's parameter controls).
PARAMETER_SETTINGS = parameter_settings(MECHANISMS)
#: The settings that need a new Run when they change (the others — the targets, the chart's privacy measure —
#: apply at once to the last run's results).
RUN_SETTINGS = ("embedding", "vocab_size", "seed", "source", "text", "words_file", "words", "mechanisms",
                *(s.name for s in PARAMETER_SETTINGS), "epsilons", "samples", "close", "attack_candidates",
                "attack_prior")

#: The page's settings: the names of `choose`'s options where it has them (target_close, max_keep, keep_statistic,
#: sentence_length, close, words (how many random words), words_file, epsilons, samples, attack_target,
#: attack_measure, attack_candidates, attack_prior, seed, vocab_size); the page's own: where the words come from,
#: the text (private), the mechanisms compared and their parameters (`choose` runs one: --mechanism, --param) and
#: the trade-off chart's privacy measure.
SETTINGS = PageSettings("choose_epsilon", "Choose epsilon", command="choose", settings=(
    *EMBEDDING_SETTINGS,
    Setting("target_close", 0.6, "float", low=0.05, high=1.0,
            label="Utility target: outputs unchanged or among the K nearest (a fraction)"),
    Setting("close", DEFAULT_CLOSE, "int", low=1, high=MAX_CLOSE, label="K (nearest neighbours)",
            help="At most the vocabulary's size − 1."),
    Setting("max_keep", 0.5, "float", low=0.0, high=1.0, label="Privacy floor: kept unchanged at most (a fraction)"),
    Setting("keep_statistic", "max", "choice", choices=tuple(KEEP_STATISTICS),
            label="The floor applies to every word (max) or on average (mean)"),
    Setting("sentence_length", DEFAULT_SENTENCE_LENGTH, "int", low=1, high=MAX_SENTENCE_LENGTH,
            label="Sentence length L (budget L·ε)"),
    Setting("attack_target", None, "float", low=0.001, high=1.0, optional=True,
            label="Attack target: re-identified at most (a fraction: 0.2 = 20 %, or 0.05 = 5 points above the "
                  "prior); none: no attack target"),
    Setting("attack_measure", "success", "choice", choices=tuple(ATTACK_MEASURES),
            label="Attack target measured as a share of the words (success) or points above the prior"),
    Setting("attack_candidates", AttackSettings.candidates, "int", low=2, high=GLOVE_WORDS,
            label="Attack: candidates, the N most frequent words", help="At most the vocabulary's size."),
    Setting("attack_prior", AttackSettings.prior, "choice", choices=tuple(PRIORS), label="Attack: prior"),
    Setting("source", TEXT, "choice", choices=tuple(SOURCES), label="Word source",
            help="text: a pasted text; file: an uploaded word list; random: words drawn from the vocabulary."),
    Setting("text", PAPER_EXAMPLE, "text", max_chars=MAX_TEXT_CHARS, private=True, label="Your words",
            help="The pasted text, or the uploaded word list's text."),
    Setting("words_file", None, "text", optional=True, max_chars=MAX_NAME_CHARS, label="Word list file (its name)",
            help="The uploaded word list's name: a link or a settings file names it; you load the file yourself."),
    Setting("words", 30, "int", low=2, high=MAX_RANDOM_WORDS, label="Random vocabulary words: how many"),
    Setting("mechanisms", DEFAULT_MECHANISMS, "choices", choices=tuple(MECHANISMS), high=MAX_MECHANISMS,
            optional=True, label="Mechanisms to compare"),
    *PARAMETER_SETTINGS,
    Setting("epsilons", DEFAULT_GRID, "text", max_chars=1_000, label="ε grid",
            help="A comma list (1,2,5,10), or start:stop (1:30) or start:stop:step (0.5:10:0.5)."),
    Setting("samples", 20, "choice", choices=SAMPLE_CHOICES, label="Runs per word and ε"),
    Setting("privacy_metric", "unchanged", "choice", choices=tuple(PRIVACY_METRICS),
            label="Privacy measure on the trade-off chart"),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("Each word of a sentence: its sanitised replacement hides which word it was. Most mechanisms here are "
            "d_X-private (ε per unit of embedding distance: close words are harder to tell apart than far ones); a "
            "sentence of L sanitised words spends L·ε. The attack target measures one word: how often somebody who "
            "sees its replacement names it among the most frequent words.")


def attack_percent(fraction: float) -> float:
    """The page's attack limit (in % or points) of an ``attack_target`` fraction; `attack_fraction` reads it back
    to the same fraction for any value of at most 12 significant digits (0.3 → 30.0 → 0.3, not 0.30000000000000004)."""
    return float(f"{fraction * 100:.12g}")


def attack_fraction(percent: float) -> float:
    """The ``attack_target`` fraction of the page's attack limit (in % or points); see `attack_percent`."""
    return float(f"{percent / 100:.12g}")


def mechanism_specs(values) -> list:
    """(name, ((parameter, value), ...)) of each compared mechanism, as the page resolves them."""
    return [(name, tuple((pname, values[f"{name}.{pname}"]) for pname in MECHANISMS[name].PARAMETERS))
            for name in values["mechanisms"] or ()]


def targets_of(values) -> Targets:
    """The page's targets at ``values`` (see `SETTINGS`)."""
    return Targets(utility=values["target_close"], max_keep=values["max_keep"],
                   keep_statistic=values["keep_statistic"], attack=values["attack_target"],
                   attack_measure=values["attack_measure"])


def numbers(choice) -> dict:
    """The numbers of the page's answers and table (an `EpsilonChoice`), per mechanism: the recommended ε range
    ("none" when no grid ε meets every target), the utility target's smallest ε, the privacy floor's largest and,
    with an attack target, the attack's largest ε ("none" when there is none); per grid ε: the share of outputs
    unchanged or among the K nearest with its standard error, the mean and the most-kept word's share kept
    unchanged, the share re-identified (with an attack) and whether ε is recommended. Never a word."""
    found = {}
    for i, (r, a) in enumerate(zip(choice.results, choice.answers)):
        m = r.mechanism
        lo, hi = a.range if a.feasible else ("none", "none")
        found[f"{m}, recommended ε from"], found[f"{m}, recommended ε to"] = lo, hi
        for name, threshold in (("utility target, smallest ε", a.utility), ("privacy floor, largest ε", a.privacy),
                                ("attack target, largest ε", a.attack)):
            if threshold is not None:
                found[f"{m}, {name}"] = "none" if threshold.epsilon is None else float(threshold.epsilon)
        for j, eps in enumerate(choice.epsilons):
            at = f"{m}, ε = {float(eps):g}"
            found[f"{at}, unchanged or among the K nearest"] = float(r.values["within_k"][j])
            found[f"{at}, unchanged or among the K nearest, standard error"] = float(r.standard_errors["within_k"][j])
            found[f"{at}, unchanged (mean)"] = float(r.values["unchanged"][j])
            found[f"{at}, unchanged (most-kept word)"] = float(r.values["unchanged_max"][j])
            if choice.attacks:
                found[f"{at}, re-identified"] = float(choice.attacks[i].success[j])
            found[f"{at}, recommended"] = "yes" if a.recommended[j] else "no"
    return found


def _words_lines(v, typed: bool) -> str:
    """The lines that make ``words``: the user's text when included, else a placeholder that says what to do."""
    if v["source"] == RANDOM:
        return (f"n_words = {v['words']!r}  # drawn uniformly from the vocabulary with the seed\n"
                "words = WordSet.random(space, n_words, seed)")
    if typed:
        source = "pasted text" if v["source"] == TEXT else f"words of {v['words_file']}"
        return f"text = {v['text']!r}\nwords = WordSet.from_text(text, space, source={source!r})"
    if v["source"] == FILE and v["words_file"]:
        name = v["words_file"]
        return ("# Your word list (not included in this export): copy it beside this script\n"
                f"with open({name!r}, encoding=\"utf-8\") as fh:\n    text = fh.read()\n"
                f"words = WordSet.from_text(text, space, source={'words of ' + name!r})")
    return ("# Your words were not included in this export (tick the box on the page to include them):\n"
            "# paste a text here. Meanwhile, the worked example of Asghar et al. (2026):\n"
            f"text = {PAPER_EXAMPLE!r}\nwords = WordSet.from_text(text, space, source=\"pasted text\")")


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells; without a "text" in ``values`` (the box
    unticked) the code analyses a placeholder and says where to put the words (see the module docstring)."""
    typed = "text" in values
    v = SETTINGS.check(values)
    attack = (f"AttackSettings(candidates={v['attack_candidates']!r}, prior={v['attack_prior']!r})"
              if v["attack_target"] is not None else "None  # no attack target")
    return [
        markdown(f"""
# Choose epsilon — from Epsilon Lab
Which ε gives the utility you need on your words, and what privacy do you get for it? Each mechanism is run many
times on each word over a grid of ε (mechanisms with exact output probabilities are computed exactly); the answers
are the smallest ε that meets the utility target, the largest that keeps the privacy floor and, with an attack
target, the largest that keeps the attacker under it. Smaller ε = more noise = more privacy; a sentence of L words
spends L·ε.

What ε protects: {PROTECTS}"""),
        code("""
from privlib.analyses.choose_epsilon import numbers
from privlib.analyses.code import print_numbers, save_charts
from privlib.presentation.words.report import choice_figures
from privlib.words.choice import AttackSettings, Targets, WordSet, choose_epsilon
from privlib.words.embeddings import EmbeddingSpace"""),
        code(f"""
# The page's settings
seed = {v['seed']!r}
{load_space_code(v)}
{_words_lines(v, typed)}
mechanisms = {mechanism_specs(v)!r}  # (name, ((parameter, value), ...))
epsilons = {v['epsilons']!r}
samples = {v['samples']!r}  # runs per word and ε (exact output laws are not sampled)
close = {v['close']!r}  # K: outputs ranked 1..K are close neighbours
targets = Targets(utility={v['target_close']!r}, max_keep={v['max_keep']!r}, keep_statistic={v['keep_statistic']!r},
                  attack={v['attack_target']!r}, attack_measure={v['attack_measure']!r})
sentence_length = {v['sentence_length']!r}
attack = {attack}"""),
        code("""
# allow_long: the page asked for this work with its estimate (a long attack waits for its button there)
choice = choose_epsilon(space, words, epsilons, mechanisms, samples, close, targets, sentence_length, seed,
                        attack=attack, allow_long=True)
print(f"{len(words):,} distinct vocabulary words ({words.source}); {len(words.unknown):,} left out")
for i, answer in enumerate(choice.answers):
    print(f"{answer.label}: {answer.message}")
    if answer.attack_summary:
        print(answer.attack_summary)
    print(choice.summary(i))"""),
        markdown("## The charts"),
        code(f"""
privacy_metric = {v['privacy_metric']!r}  # the trade-off chart's privacy measure
charts = dict(choice_figures(choice, privacy_metric))
charts["tradeoff"]"""),
        code("""
charts["within_k"]  # the utility target's measure against ε (the other charts: charts.keys())"""),
        markdown("## The numbers (the page's answers and table)"),
        code("""
print_numbers(numbers(choice))
save_charts("choose-epsilon-charts.html", list(charts.values()), title="Choose epsilon")"""),
    ]


def report(choice, values, privacy_metric: str | None = None, created: str | None = None) -> str:
    """The page's one-file HTML report (`privlib.presentation.words.report.choice_report`) with what ε protects,
    the settings, the export's script and the settings file (`privlib.analyses.report.code_html`). ``values``: the
    page's settings; without a "text" the words of a pasted or uploaded text are left out of it (the report
    lists the words only when they are included or drawn at random)."""
    from privlib.presentation.words.report import choice_report

    typed = "text" in values
    v = SETTINGS.check(values)
    appendix = (f"<h2>What ε protects here</h2><p>{_escape(PROTECTS)}</p>" + settings_html(SETTINGS, values)
                + code_html(SETTINGS, values, percent_script(cells(values))))
    return choice_report(choice, privacy_metric or v["privacy_metric"], created=created,
                         list_words=typed or v["source"] == RANDOM, appendix=appendix)


def _escape(text: str) -> str:
    import html

    return html.escape(text)
