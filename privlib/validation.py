"""Shared argument checks and random-generator handling (one home for each)."""
from __future__ import annotations

import math
import numbers

import numpy as np


def check_epsilon(epsilon) -> float:
    """Return epsilon as a float, or raise ValueError saying what a valid epsilon is.

    d_X-privacy needs 0 < epsilon < inf: epsilon = 0 would mean infinite noise, and a
    smaller epsilon means more privacy (more noise).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise ValueError(f"epsilon must be a number, got {epsilon!r}.")
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(
            f"epsilon must be a finite number greater than 0 (smaller = more privacy), got {epsilon!r}."
        )
    return value


def check_positive_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """Return value as an int within [minimum, maximum], or raise a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number, got {value!r}.")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = f" and at most {maximum:,}" if maximum is not None else ""
        raise ValueError(f"{name} must be at least {minimum:,}{upper}, got {value:,}.")
    return value


def as_generator(seed=None) -> np.random.Generator:
    """A numpy Generator from a seed, an existing Generator, or None.

    None gives a generator seeded from fresh OS entropy (never a fixed default), so an
    unseeded run is as unpredictable as numpy can make it; seeds are for reproducibility.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative whole number or None, got {seed!r}.")
    return np.random.default_rng(int(seed))
