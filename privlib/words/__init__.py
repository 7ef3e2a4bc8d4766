"""Word-level text privacy: d_X-privacy on word embeddings (Feyisetan et al. 2020) and the
"curse of dimensionality" of the seed paper (Asghar, Carpentier, Zhao, Kaafar, PoPETs 2026).

Inside this package imports run one way, bottom to top:
embeddings → search → neighbours → mechanisms → experiments, text → choice → theory.
"""
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.experiments import EpsilonSweep, RankExperiment, epsilon_sweep, rank_experiment
from privlib.words.mechanisms import MECHANISMS, Mechanism, MultivariateLaplace, make_mechanism, resolve_mechanism
from privlib.words.neighbours import NeighbourRanks, neighbour_ranks
from privlib.words.text import SanitisedText, SanitisePolicy, sanitize, tokenize

__all__ = [
    "EmbeddingSpace",
    "EpsilonSweep",
    "MECHANISMS",
    "Mechanism",
    "MultivariateLaplace",
    "NeighbourRanks",
    "RankExperiment",
    "SanitisePolicy",
    "SanitisedText",
    "epsilon_sweep",
    "make_mechanism",
    "neighbour_ranks",
    "rank_experiment",
    "resolve_mechanism",
    "sanitize",
    "tokenize",
]
