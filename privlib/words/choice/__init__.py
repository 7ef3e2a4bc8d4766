"""Choosing ε before a deployment, in four steps that import one way:

- `words`: which words (a text, a word list, a random vocabulary sample) and the scope of the SEs;
- `metrics`: each mechanism's privacy and utility metrics over an ε grid, with standard errors;
- `targets`: the inverse questions (smallest ε for a utility target, largest for a privacy floor);
- `epsilon_choice`: the whole study, its answers and CSV exports.
"""
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
from privlib.words.choice.targets import DEFAULT_SENTENCE_LENGTH, KEEP_STATISTICS, Answer, Targets, Threshold, answer
from privlib.words.choice.words import SCOPES, VOCABULARY, WORDS, WordSet

__all__ = [
    "Answer", "BAND_SE", "DEFAULT_SAMPLES", "DEFAULT_SENTENCE_LENGTH", "EpsilonChoice", "KEEP_STATISTICS", "METRICS",
    "MechanismMetrics", "PRIVACY_METRICS", "SCOPES", "Targets", "Threshold", "UTILITY_METRICS", "VOCABULARY",
    "WORDS", "WordSet", "answer", "assemble_choice", "choose_epsilon", "embedding_info", "epsilon_grid",
    "mechanism_metrics",
]
