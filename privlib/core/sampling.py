"""Exact sampling from a finite law given by (log-)weights: the step every exponential-family
mechanism ends with (SanText, TEM, CusText; also the label mechanisms of later topics), with no
output lost to float64 rounding however small its probability."""
from __future__ import annotations

import numpy as np

#: The smallest normal float64: the floor of the probability of a legitimate output.
TINY = float(np.finfo(np.float64).tiny)


def probabilities_from_log_weights(log_weights: np.ndarray) -> np.ndarray:
    """exp(log_weights − logsumexp(log_weights)) in float64, floored at the smallest normal float.

    ``-inf`` entries (outputs the mechanism never produces) stay exactly 0. The max-shift keeps
    exp from overflowing and makes the largest weight 1, so the total is ≥ 1 and any weight that
    underflows belongs to a probability below the floor anyway."""
    log_weights = np.asarray(log_weights, dtype=np.float64)
    p = log_weights - np.max(log_weights)
    np.exp(p, out=p)
    p /= np.sum(p)
    np.maximum(p, TINY, out=p)
    impossible = np.isneginf(log_weights)
    if impossible.any():
        p[impossible] = 0.0
    return p


def fine_uniform(rng: np.random.Generator, size: int) -> np.ndarray:
    """Uniform draws on (0, 1) with full float64 precision at every scale.

    ``rng.random()`` returns multiples of 2^-53, so P(u < x) is wrong for x < 2^-53. Here
    u = (1 + m·2^-52)·2^-e with P(e = k) = 2^-k (the position of the first 1 in a stream of fair
    bits, read 53 at a time) and m uniform on 52 bits: P(u < x) = x to within a relative 2^-52 for
    every normal x. Never 0, never 1.
    """
    exponent = np.zeros(size, dtype=np.int64)
    bits = rng.integers(0, 2**53, size=size, dtype=np.int64)
    zero = np.flatnonzero(bits == 0)
    while zero.size:  # probability 2^-53 per draw: read 53 more bits
        exponent[zero] += 53
        bits[zero] = rng.integers(0, 2**53, size=zero.size, dtype=np.int64)
        zero = zero[bits[zero] == 0]
    # bits in [2^(j-1), 2^j) has 53 − j leading zeros; frexp gives j exactly (bits < 2^53 is exact)
    exponent += 54 - np.frexp(bits.astype(np.float64))[1]
    mantissa = rng.integers(0, 2**52, size=size, dtype=np.int64)
    return np.ldexp(1.0 + mantissa * 2.0**-52, -exponent)


def sample_categorical(p: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` indices drawn from the probabilities ``p`` (need not sum exactly to 1) by inverse CDF.

    Two stages, each an inverse CDF with the full-precision uniform of `fine_uniform`: first the
    binade (the power of two of p_i) with probability Σ of its members — cumulated from the
    smallest binade up, so an output of probability 1e-200 is not lost in the rounding of a sum
    near 1 — then a member of that binade in proportion to p_i (members differ by less than a
    factor 2, so their cumulative sum is accurate). Every output with p_i > 0 is drawn with
    probability p_i/Σp up to relative rounding errors of order N·2^-52; zeros are never drawn.
    """
    binade = np.frexp(p)[1]  # p in [2^(b-1), 2^b) -> b, from -1073 (subnormal) to 1 (p = 1)
    binade += 1075  # buckets 2 ... 1076, ascending with p
    if p.min() == 0:
        binade[p == 0] = 0  # bucket 0 holds only the zeros: weight 0, never chosen
    sums = np.bincount(binade, weights=p)
    cumulative = np.cumsum(sums)
    last = int(np.flatnonzero(sums)[-1])
    chosen = np.searchsorted(cumulative, fine_uniform(rng, size) * cumulative[-1], side="right")
    np.minimum(chosen, last, out=chosen)  # a target rounded up to the total (~2^-53)
    out = np.empty(size, dtype=np.int64)
    for bucket in np.unique(chosen):
        where = np.flatnonzero(chosen == bucket)
        members = np.flatnonzero(binade == bucket)
        inner = np.cumsum(p[members])
        idx = np.searchsorted(inner, fine_uniform(rng, where.size) * inner[-1], side="right")
        out[where] = members[np.minimum(idx, members.size - 1)]
    return out
