"""Choosing ε before a deployment, in four steps that import one way:

- `words`: which words (a text, a word list, a random vocabulary sample) and the scope of the SEs;
- `metrics`: each mechanism's privacy and utility metrics over an ε grid, with standard errors;
- `attack_metrics`: how often an attacker names the original word, over the ε grid (exact Bayes or sampled);
- `targets`: the inverse questions (smallest ε for a utility target, largest for a privacy floor and
  for an attack target);
- `epsilon_choice`: the whole study, its answers and CSV exports.
"""
from privlib.words.choice.attack_metrics import (
    AttackMetrics,
    AttackSettings,
    attack_metrics,
    attack_metrics_seconds,
)
from privlib.words.choice.epsilon_choice import EpsilonChoice, assemble_choice, choose_epsilon, embedding_info
from privlib.words.choice.metrics import (
    BAND_SE,
    DEFAULT_SAMPLES,
    METRICS,
    PRIVACY_METRICS,
    UTILITY_METRICS,
    MechanismMetrics,
    epsilon_grid,
    mechanism_metrics,
)
from privlib.words.choice.targets import (
    ATTACK_MEASURES,
    DEFAULT_SENTENCE_LENGTH,
    KEEP_STATISTICS,
    Answer,
    Targets,
    Threshold,
    answer,
)
from privlib.words.choice.words import SCOPES, VOCABULARY, WORDS, WordSet

__all__ = [
    "ATTACK_MEASURES",
    "BAND_SE",
    "DEFAULT_SAMPLES",
    "DEFAULT_SENTENCE_LENGTH",
    "KEEP_STATISTICS",
    "METRICS",
    "PRIVACY_METRICS",
    "SCOPES",
    "UTILITY_METRICS",
    "VOCABULARY",
    "WORDS",
    "Answer",
    "AttackMetrics",
    "AttackSettings",
    "EpsilonChoice",
    "MechanismMetrics",
    "Targets",
    "Threshold",
    "WordSet",
    "answer",
    "assemble_choice",
    "attack_metrics",
    "attack_metrics_seconds",
    "choose_epsilon",
    "embedding_info",
    "epsilon_grid",
    "mechanism_metrics",
]
