"""Auditing a word mechanism against its claim (`privlib.core.audit`, the procedure of Jagielski,
Ullman & Oprea 2020 and Nasr et al. 2021: the empirical lower bound ε̂ with Clopper–Pearson
confidence).

The unit of protection is one word, and the word mechanisms are ε·d_X-private (Chatzikokolakis et
al. 2013): two words x, x′ are told apart no better than ε·d(x, x′)-DP allows, d the Euclidean
distance of their embeddings (the Mahalanobis mechanism, and Vickrey on its base: the regularised
Mahalanobis distance d_RM of Xu et al. 2020). So the audit's claim for a pair is ε·d(x, x′), and the
pair is a close one: the closest two of `AUDIT_VOCABULARY` most frequent GloVe 6B 50d words (d small:
the claim ε·d stays within what the releases can show at a useful ε). SanText+ guarantees ε·d only
for two sensitive words (its kept non-sensitive words are unprotected by design): its pair is the
closest two sensitive words; CusText guarantees ε-DP only within one output set: its pair is the
closest two words of one group, and its claim is ε.

The test: the exact likelihood ratio where the output law is exact (SanText, SanText+, TEM,
CusText: ``output_probabilities``; the audit then also reports the pair's exact privacy loss), else
the score d(y, x′) − d(y, x) of the output word y (which of the two inputs the output is nearer,
the likelihood ratio of the noisy point under isotropic noise, read on the output word).
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from privlib.core.audit import DEFAULT_RELEASES, AuditResult, audit, claim_of
from privlib.core.sweep import Progress
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MECHANISMS, CusText, Mahalanobis, SanTextPlus, Vickrey, make_mechanism

#: The audit's vocabulary: the 2,000 most frequent words of GloVe 6B 50d (the attacks' candidate
#: count): outputs and normalisers use it, so the exponential mechanisms are not near-uniform at
#: the ε where a pair's claim ε·d is within an audit's reach, and a release searches 2,000 words.
AUDIT_VOCABULARY = 2_000

#: The pair, for people.
UNIT_OF_PROTECTION = (f"one word: the closest two of the {AUDIT_VOCABULARY:,} most frequent GloVe 6B 50d words "
                      "(SanText+: two sensitive words; CusText: two words of one output set); claim ε·d(x, x′)")


@lru_cache(maxsize=1)
def audit_space() -> EmbeddingSpace:
    """The audit's embedding space (`AUDIT_VOCABULARY` words of GloVe 6B 50d), loaded once."""
    return EmbeddingSpace.glove_6b_50d(vocab_size=AUDIT_VOCABULARY)


def closest_pair(space: EmbeddingSpace, rows) -> tuple[int, int]:
    """The two rows of ``rows`` whose embeddings are closest (Euclidean; ties: the lowest rows)."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size < 2:
        raise ValueError("An audit needs two words to compare; this vocabulary offers fewer.")
    vectors = space.vectors[rows].astype(np.float64)
    squared = np.einsum("ij,ij->i", vectors, vectors)
    distances = squared[:, None] + squared[None, :] - 2 * vectors @ vectors.T
    np.fill_diagonal(distances, np.inf)
    i, j = np.unravel_index(int(np.argmin(distances)), distances.shape)
    return int(rows[min(i, j)]), int(rows[max(i, j)])


def neighbouring_pair(mechanism, space: EmbeddingSpace) -> tuple[int, int]:
    """The rows (x, x′) the audit compares: the closest pair the mechanism's guarantee covers."""
    if isinstance(mechanism, SanTextPlus):
        return closest_pair(space, mechanism.sensitive_rows(space))
    if isinstance(mechanism, CusText):
        groups, seen = [], set()
        for row in range(min(mechanism.vocab_limit or len(space), len(space))):
            if row not in seen:
                group = mechanism.output_set(space, row)
                seen.update(int(r) for r in group)
                if group.size >= 2:
                    groups.append(closest_pair(space, group))
        if not groups:
            raise ValueError("CusText's output sets all hold one word here: choose a larger k.")
        return min(groups, key=lambda pair: euclidean(space, *pair))
    return closest_pair(space, np.arange(len(space)))


def euclidean(space: EmbeddingSpace, x: int, y: int) -> float:
    return float(np.linalg.norm(space.vectors[x].astype(np.float64) - space.vectors[y].astype(np.float64)))


def claimed_distance(mechanism, space: EmbeddingSpace, x: int, y: int) -> float:
    """d(x, x′) of the mechanism's guarantee: d_RM for Mahalanobis (and Vickrey on its base), else Euclidean."""
    if isinstance(mechanism, Mahalanobis):
        return mechanism.distance(space, x, y)
    if isinstance(mechanism, Vickrey) and mechanism.base == "mahalanobis":
        return Mahalanobis.family(lam=mechanism.lam).distance(space, x, y)
    return euclidean(space, x, y)


def nearer_score(space: EmbeddingSpace, x: int, y: int):
    """score(outputs) = d(output, x′) − d(output, x): larger when the output word is nearer x."""
    vectors = space.vectors.astype(np.float64)
    to_x = np.linalg.norm(vectors - vectors[x], axis=1)
    to_y = np.linalg.norm(vectors - vectors[y], axis=1)
    difference = to_y - to_x
    return lambda outputs: difference[np.asarray(outputs, dtype=np.int64).reshape(-1)]


def audit_mechanism(name: str, *, epsilon: float, delta: float | None = None, releases: int = DEFAULT_RELEASES,
                    seed, confidence: float = 0.95, progress: Progress | None = None, allow_long: bool = False,
                    parameters: Mapping | None = None) -> AuditResult:
    """Audit the word mechanism ``name`` of `MECHANISMS` at ``epsilon`` (with ``parameters``, its
    ``PARAMETERS``) on the closest pair it protects (module docstring): `privlib.core.audit.audit`
    with the claim ε·d(x, x′) (CusText: ε), ``releases`` per word, ``confidence``, ``seed``,
    ``progress`` and the refusal of long work (``allow_long``). ``delta``: the δ of ε̂ (the word
    mechanisms have none; default 0). ValueError for an unknown name or parameter, or a
    mechanism without a guarantee."""
    mechanism = make_mechanism(name, epsilon=epsilon, **dict(parameters or {}))
    claim = claim_of(mechanism)
    space = audit_space()
    x, y = neighbouring_pair(mechanism, space)
    exact = getattr(mechanism, "has_exact_probabilities", False)
    return audit(lambda word, rng, size: mechanism.release(space, word, size, rng), (x, y), releases=releases,
                 seed=seed, confidence=confidence, delta=delta, claim=claim,
                 distance=claimed_distance(mechanism, space, x, y),
                 law=(lambda word: mechanism.output_probabilities(space, word)) if exact else None,
                 score=None if exact else nearer_score(space, x, y), progress=progress, allow_long=allow_long)


__all__ = ["AUDIT_VOCABULARY", "MECHANISMS", "UNIT_OF_PROTECTION", "audit_mechanism", "audit_space",
           "claimed_distance", "closest_pair", "neighbouring_pair"]
