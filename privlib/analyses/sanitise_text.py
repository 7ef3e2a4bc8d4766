"""The Sanitise text page's analysis: its settings, its numbers and its code.

The text the user typed is a private setting (`Setting.private`): never in a link, and in a settings
file or the exported code only when the user ticks the page's box; otherwise the code sanitises the
paper's worked example and says where to paste a text.
"""
from __future__ import annotations

import numpy as np

from privlib.analyses.code import code, markdown
from privlib.analyses.embedding import EMBEDDING_SETTINGS, load_space_code
from privlib.analyses.settings import PageSettings, Setting, parameter_settings
from privlib.core.validation import EPSILON_MAX, EPSILON_MIN
from privlib.words.mechanisms import MECHANISMS
from privlib.words.neighbours import DEFAULT_CLOSE
from privlib.words.text import CASE_POLICIES, MAX_CHARACTERS, NUMBER_POLICIES, OOV_POLICIES, PAPER_EXAMPLE

#: The most mechanisms the page compares side by side.
MAX_MECHANISMS = 3
DEFAULT_MECHANISMS = tuple(m for m in ("multivariate-laplace", "postprocessing-fix", "santext") if m in MECHANISMS)
#: The prefix of the mechanisms' parameters' settings (e.g. "santext-plus.p").
PARAMETER_PREFIX = ""

#: The page's settings; `sanitize` takes its settings file (``--settings FILE``): the option names are the
#: settings' names (``--mechanisms``, ``--draw``, ``--epsilon``, …) and a mechanism's parameter "<name>.<p>" is
#: ``--param <name>.<p>=VALUE`` there.
SETTINGS = PageSettings("sanitise_text", "Sanitise text", command="sanitize", settings=(
    *EMBEDDING_SETTINGS,
    Setting("text", PAPER_EXAMPLE, "text", max_chars=MAX_CHARACTERS, private=True, label="Text to sanitise"),
    Setting("mechanisms", DEFAULT_MECHANISMS, "choices", choices=tuple(MECHANISMS), high=MAX_MECHANISMS,
            label="Mechanisms to compare"),
    Setting("epsilon", 10.0, "float", low=EPSILON_MIN, high=EPSILON_MAX, label="ε (epsilon) per token"),
    Setting("draw", 0, "int", low=0, high=10**9, label="Resamples",
            help="How many times Resample was pressed: each gives fresh randomness from the seed."),
    Setting("oov", "redact", "choice", choices=tuple(OOV_POLICIES), label="Not in the vocabulary"),
    Setting("case", "match", "choice", choices=tuple(CASE_POLICIES), label="Capitals"),
    Setting("keep_stop_words", False, "bool", label="Leave stop words untouched"),
    Setting("numbers", "sanitise", "choice", choices=tuple(NUMBER_POLICIES), label="Numbers"),
    Setting("close", DEFAULT_CLOSE, "int", low=1, high=10_000, label="K (close neighbours: ranks 1 … K)"),
    *parameter_settings(MECHANISMS, PARAMETER_PREFIX),
))

PROTECTS = ("Each word of the text: its replacement hides which word it was (d_X-privacy: ε per token, weaker for "
            "words close in the embedding); a text of m sanitised tokens spends m·ε.")


def mechanism_specs(values) -> list:
    """(name, ((parameter, value), ...)) of each chosen mechanism, as the page resolves them."""
    return [(name, tuple((pname, values[f"{PARAMETER_PREFIX}{name}.{pname}"]) for pname in MECHANISMS[name].PARAMETERS))
            for name in values["mechanisms"]]


def column_rng(seed: int, draw: int, slot: int) -> np.random.Generator:
    """The random stream of the page's column ``slot`` (0, 1, 2: the mechanisms' order) after ``draw`` presses
    of Resample: ``default_rng([seed, draw, slot])``, one independent stream per (seed, resample, column), as the
    page and its exported code draw (and ``sanitize --mechanisms``)."""
    return np.random.default_rng([seed, draw, slot])


def numbers(results, close: int) -> dict:
    """Per mechanism (in the page's order): the fractions of sanitised tokens output unchanged, as a close
    neighbour and as a distant word, and the budget the text spends. Never a word of the text."""
    found = {}
    for result in results:
        summary = result.summary(close)
        for name in ("unchanged", "close", "distant"):
            found[f"{result.mechanism}, {name}"] = float(summary["fractions"][name])
        found[f"{result.mechanism}, sanitised tokens"] = int(summary["sanitised_tokens"])
        found[f"{result.mechanism}, budget"] = float(summary["budget"])
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` as cells; without a "text" in ``values`` (the box unticked) the code
    sanitises the paper's example and says where to paste a text."""
    typed = "text" in values
    v = SETTINGS.check(values)
    text_line = (f"text = {v['text']!r}" if typed else
                 "# Your text was not included in this export (tick the box on the page to include it):\n"
                 "# paste a text here. Meanwhile, the worked example of Asghar et al. (2026):\n"
                 f"text = {PAPER_EXAMPLE!r}")
    return [
        markdown(f"""
# Sanitise text — from Epsilon Lab
Each word and number of the text is run through a word-level privacy mechanism at the same ε and replaced by its
output; up to three mechanisms side by side. Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
import numpy as np

from privlib.analyses.code import print_numbers
from privlib.analyses.sanitise_text import numbers
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import resolve_mechanism
from privlib.words.text import SanitisePolicy, sanitize"""),
        code(f"""
# The page's settings
{text_line}
mechanisms = {mechanism_specs(v)!r}
epsilon = {v['epsilon']!r}
policy = SanitisePolicy(case={v['case']!r}, oov={v['oov']!r}, keep_stop_words={v['keep_stop_words']!r}, numbers={v['numbers']!r})
close = {v['close']!r}  # K: ranks 1..K are close neighbours
seed, draw = {v['seed']!r}, {v['draw']!r}  # draw: how many times Resample was pressed
{load_space_code(v)}"""),
        code("""
results = []
for slot, mechanism in enumerate(mechanisms):
    rng = np.random.default_rng([seed, draw, slot])  # one stream per (seed, resample, column), as on the page
    result = sanitize(text, resolve_mechanism(mechanism), epsilon, space, rng, policy)
    results.append(result)
    print(f"{result.mechanism} → {result.sanitised}")
print(results[0].budget_message())"""),
        markdown("## The numbers (the page's metrics)"),
        code("print_numbers(numbers(results, close))"),
    ]
