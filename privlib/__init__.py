"""privlib — word-level d_X-privacy mechanisms and the exact mathematics behind them.

The library behind Epsilon Lab. Pure numpy/scipy (gensim, annoy and plotly where needed);
it never imports streamlit, so everything a page shows is computed and tested here.
"""
from privlib.embeddings import EmbeddingSpace
from privlib.mechanisms import MECHANISMS, Mechanism, MultivariateLaplace, laplace_noise
import privlib.exponential  # noqa: F401  (registers its mechanisms)
import privlib.postprocessing  # noqa: F401  (registers its mechanism)
import privlib.mahalanobis  # noqa: F401  (registers its mechanisms)
from privlib.ranks import NeighbourRanks, neighbour_ranks
from privlib.experiments import EpsilonSweep, RankExperiment, epsilon_sweep, rank_experiment
from privlib.text import SanitisePolicy, SanitisedText, sanitize, tokenize
from privlib.validation import as_generator, check_epsilon

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
    "as_generator",
    "check_epsilon",
    "epsilon_sweep",
    "laplace_noise",
    "neighbour_ranks",
    "rank_experiment",
    "sanitize",
    "tokenize",
]
