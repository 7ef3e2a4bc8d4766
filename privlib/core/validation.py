"""Shared argument checks and random-generator handling (one home for each)."""
from __future__ import annotations

import math
import numbers

import numpy as np

#: Characters of a value that a message repeats; a longer value is cut (never quoted in full).
SHOWN_CHARS = 40


def duration(seconds: float) -> str:
    """A duration for people: "45 s", "17 min", "3.2 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def shown(value, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters followed by "…" when longer: a
    10,000-character argument (or a file's contents) is never repeated in full. A long whole
    number is given by its number of digits instead (its first 40 digits would hide its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        text = _shown_int(value, limit)
        return text if text.startswith("a whole number") else repr(value)
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _as_float(value) -> float:
    """float(value) for a real number, ±inf for one beyond float64 (a 400-digit int raises
    OverflowError in float(): here it is simply out of every range)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _shown_int(value: int, limit: int = 30) -> str:
    """A whole number with thousands separators, or its number of digits when it has more than
    ``limit`` (a 401-digit count is not repeated in full; str() refuses beyond 4,300 digits)."""
    digits = len(str(abs(value))) if value.bit_length() < 14_000 else int(value.bit_length() * 0.30103) + 1
    if digits > limit:
        return f"a whole number of {digits:,} digits"
    return f"{value:,}"


#: The range of epsilon every mechanism can represent in float64 (inclusive). 1/ε and ε stay
#: normal floats with a factor of 1e8 to spare (for a sensitivity, a dimension, a sum over many
#: releases, the largest draw of a noise law), so no mechanism meets an overflow to inf or an
#: underflow to 0 from ε alone. It is a representability bound, not advice: ε of about 0.01 to
#: 10 is usual, below 1e-300 every release is pure noise and above 1e300 (indeed above ~50) none
#: hides anything. Mechanisms with a narrower float64 range refuse more (e.g. the two-sided
#: geometric noise needs ε >= 1e-14: `privlib.core.noise`).
EPSILON_MIN, EPSILON_MAX = 1e-300, 1e300


def check_epsilon(epsilon, allow_zero: bool = False) -> float:
    """Return epsilon as a float, or raise ValueError saying what a valid epsilon is.

    d_X-privacy needs 0 < epsilon < inf: epsilon = 0 would mean infinite noise, and a
    smaller epsilon means more privacy (more noise). ``allow_zero=True`` also accepts 0, for
    mechanisms where epsilon = 0 is a well-defined (useless but private) output, e.g. randomised
    response answering uniformly at random. Besides 0, only EPSILON_MIN <= epsilon <= EPSILON_MAX
    (1e-300 to 1e300) is accepted: what float64 can carry through every mechanism.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise ValueError(f"epsilon must be a number, got {shown(epsilon)}.")
    value = _as_float(epsilon)
    if allow_zero and value == 0:
        return 0.0
    if allow_zero and (not math.isfinite(value) or value < 0):
        raise ValueError(
            f"epsilon must be a finite number of at least 0 (0 = no information released, smaller = "
            f"more privacy), got {shown(epsilon)}."
        )
    if not math.isfinite(value) or value <= 0:
        raise ValueError(
            f"epsilon must be a finite number greater than 0 (smaller = more privacy), got {shown(epsilon)}."
        )
    if not EPSILON_MIN <= value <= EPSILON_MAX:
        raise ValueError(
            f"epsilon must be between {EPSILON_MIN:g} and {EPSILON_MAX:g} (float64 cannot carry a "
            f"{'smaller' if value < EPSILON_MIN else 'larger'} one through the mechanisms; usual values are "
            f"0.01 to 10), got {shown(epsilon)}."
        )
    return value


def check_positive_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """Return value as an int within [minimum, maximum], or raise a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number, got {shown(value)}.")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = f" and at most {maximum:,}" if maximum is not None else ""
        raise ValueError(f"{name} must be at least {minimum:,}{upper}, got {_shown_int(value)}.")
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
        raise ValueError(f"seed must be a non-negative whole number or None, got {shown(seed)}.")
    return np.random.default_rng(int(seed))


def _check_real(value, name: str) -> float:
    """value as a finite float, or a ValueError naming it (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {shown(value)}.")
    result = _as_float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite number, got {shown(value)}.")
    return result


def check_delta(delta, allow_zero: bool = False) -> float:
    """Return delta as a float, or raise ValueError saying what a valid delta is.

    In (epsilon, delta)-DP, delta is the probability mass on which the epsilon guarantee may fail,
    so it must satisfy 0 < delta < 1 (0 <= delta < 1 with ``allow_zero``: delta = 0 is pure
    epsilon-DP); in practice it should be much smaller than 1/n for n people.
    """
    lower = "0 <= delta < 1" if allow_zero else "0 < delta < 1"
    message = (
        f"delta must be a number with {lower} (delta is the probability that the epsilon guarantee "
        f"fails; use much less than 1/n for n people, e.g. 1e-6), got {shown(delta)}."
    )
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise ValueError(message)
    value = _as_float(delta)
    if not math.isfinite(value) or value >= 1 or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(message)
    return value


def check_probability(p, name: str, open_low: bool = False, open_high: bool = False) -> float:
    """Return p as a float in [0, 1] (an end excluded when ``open_low`` / ``open_high``), or raise
    a ValueError naming it and the allowed interval."""
    interval = f"{'(' if open_low else '['}0, 1{')' if open_high else ']'}"
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise ValueError(f"{name} must be a probability in {interval}, got {shown(p)}.")
    value = _as_float(p)
    if (not math.isfinite(value) or value < 0 or value > 1 or (open_low and value == 0)
            or (open_high and value == 1)):
        raise ValueError(f"{name} must be a probability in {interval}, got {shown(p)}.")
    return value


def check_probability_vector(values, name: str, normalise: bool = True, length: int | None = None,
                             min_length: int = 1) -> np.ndarray:
    """A probability vector (1-D), or one per row (2-D), as float64, or a ValueError saying what to do.

    Every entry must be a finite number >= 0 and every vector must have a positive sum that
    float64 can hold (a sum that overflows, e.g. of [1e308, 1e308], is refused rather than
    dividing by inf, which would turn every entry into 0). ``normalise=True``: the entries are
    weights, returned divided by their sum (so [2, 1, 1] gives [0.5, 0.25, 0.25]);
    ``normalise=False``: they must already sum to 1 (within 1e-9, the rounding of summing many
    probabilities) and are returned as given, so [0.5, 0.6] is refused. ``length``: the exact
    number of entries per vector required; ``min_length``: the fewest.
    """
    what = "weights" if normalise else "probabilities"
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a list of numbers ({what}), got text {shown(values)}.")
    try:
        array = np.asarray(values)
        if array.dtype == bool or array.dtype.kind not in "iuf":
            raise TypeError
        array = array.astype(np.float64)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise ValueError(f"{name} must be a list of numbers ({what}), one per class; got {shown(values)}.") from None
    if array.ndim not in (1, 2) or array.shape[-1] < min_length:
        raise ValueError(f"{name} must be a list of at least {min_length:,} numbers (or one such list per row), "
                         f"got shape {array.shape}.")
    if length is not None and array.shape[-1] != length:
        raise ValueError(f"{name} must have one entry per class ({length:,}), got {array.shape[-1]:,}.")
    bad = ~np.isfinite(array) | (array < 0)
    if bad.any():
        first = array.flat[int(np.flatnonzero(bad)[0])]
        raise ValueError(f"{name} entries must be finite numbers of at least 0, got {shown(float(first))}.")
    with np.errstate(over="ignore"):
        total = array.sum(axis=-1, keepdims=True)
    if not np.all(np.isfinite(total)):
        raise ValueError(f"{name} sums to more than float64 can hold (1.8e308): scale the entries down "
                         f"(only their ratios matter{' when normalised' if normalise else ''}).")
    if np.any(total <= 0):
        raise ValueError(f"{name} must have a positive sum (at least one entry above 0).")
    if normalise:
        tiny = total < np.finfo(np.float64).tiny
        if tiny.any():  # subnormal sums: scale by 2^600 first (exact) so the ratios keep full precision
            array = np.where(tiny, np.ldexp(array, 600), array)
            total = np.where(tiny, np.ldexp(total, 600), total)
        return array / total
    if np.any(np.abs(total - 1.0) > 1e-9):
        worst = float(total.flat[int(np.argmax(np.abs(total - 1.0)))])
        raise ValueError(f"{name} must sum to 1 (probabilities), got a sum of {worst:.12g}: correct the entries.")
    return array


def check_range(value, name: str, low: float | None = None, high: float | None = None,
                low_inclusive: bool = True, high_inclusive: bool = True) -> float:
    """Return value as a finite float within the bounds, or raise a ValueError naming it.

    ``low`` / ``high`` = None leave that side unbounded; ``low_inclusive`` / ``high_inclusive``
    say whether the bound itself is allowed.
    """
    result = _check_real(value, name)
    too_low = low is not None and (result < low or (not low_inclusive and result == low))
    too_high = high is not None and (result > high or (not high_inclusive and result == high))
    if too_low or too_high:
        bounds = []
        if low is not None:
            bounds.append(f"{'at least' if low_inclusive else 'greater than'} {low:g}")
        if high is not None:
            bounds.append(f"{'at most' if high_inclusive else 'less than'} {high:g}")
        raise ValueError(f"{name} must be a number {' and '.join(bounds)}, got {shown(value)}.")
    return result


def check_epsilons(values) -> np.ndarray:
    """A non-empty 1-D float64 array of valid epsilons (each checked by ``check_epsilon``), from a
    number or a 1-D sequence; ValueError otherwise."""
    try:
        array = np.asarray(values, dtype=object)
    except (ValueError, TypeError, RecursionError):
        array = None
    if array is None or array.ndim > 1:
        raise ValueError(f"epsilons must be a number or a flat list of numbers, got {shown(values)}.")
    items = np.atleast_1d(array).tolist()
    if not items:
        raise ValueError("epsilons is empty: give at least one epsilon.")
    return np.array([check_epsilon(e) for e in items], dtype=np.float64)


def parse_epsilon_grid(text: str, max_values: int = 1000) -> np.ndarray:
    """Parse an epsilon grid: "1:30" (integers 1..30), "1:30:0.5" (start:stop:step, stop
    included), or a comma list "0.5,1,2"; at most ``max_values`` values, each a valid epsilon."""
    max_values = check_positive_int(max_values, "max_values")
    text = str(text).strip()
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1.0
            if step <= 0 or stop < start:
                raise ValueError
            count = (stop - start) / step  # start + k*step for k = 0..floor(count): never past stop
            if not np.isfinite(count):
                raise ValueError
            if count >= max_values:
                values = None
            else:
                values = start + step * np.arange(int(np.floor(count + 1e-9)) + 1)
        else:
            values = np.array([float(p) for p in text.split(",") if p.strip()])
    except ValueError:
        raise ValueError(
            f"Cannot read the epsilon grid {shown(text)}: use start:stop (e.g. 1:30), start:stop:step "
            "(e.g. 0.5:10:0.5) or a comma list (e.g. 1,5,10)."
        ) from None
    if values is None or values.size > max_values:
        raise ValueError(f"The epsilon grid {shown(text)} has more than {max_values:,} values: use a larger step.")
    if values.size == 0:
        raise ValueError("The epsilon grid is empty.")
    for e in values:
        check_epsilon(float(e))
    return values


def check_seed(seed) -> int:
    """Return a seed as an int >= 0, or raise ValueError (seeds are for reproducibility: the same
    seed gives the same numbers)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative whole number, got {shown(seed)}.")
    return int(seed)


def fresh_seed() -> int:
    """A seed drawn from fresh OS entropy, for a run that was given none; record it with the
    result so that the run can be reproduced."""
    return int(np.random.default_rng().integers(2**31))


def environment_number(variable: str, unit: str, allow_infinity: bool = False) -> float | None:
    """The number >= 0 the environment variable ``variable`` holds (a setting such as a time limit
    or a fixed cost, in ``unit``), or None when it is unset or empty; ValueError naming the
    variable when it holds anything else (infinity only with ``allow_infinity``: "no limit")."""
    import os

    text = os.environ.get(variable, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value >= 0 and (allow_infinity or math.isfinite(value))):
        limit = " (inf = no limit)" if allow_infinity else ""
        raise ValueError(f"{variable} must be a number of {unit} >= 0{limit}, got {shown(text)}.")
    return value


#: Work estimated to take longer than this many seconds is refused unless allowed (the CLI's
#: ``--allow-long``, the library's ``allow_long=True``).
LONG_WORK_SECONDS = 60.0
#: The environment variable that replaces `LONG_WORK_SECONDS` (a number of seconds >= 0; inf = never refuse).
LONG_WORK_VARIABLE = "PRIVLIB_LONG_WORK_SECONDS"


def long_work_limit() -> float:
    """The limit in seconds: `LONG_WORK_VARIABLE` when set, else `LONG_WORK_SECONDS`; ValueError
    when the variable is not a number >= 0."""
    value = environment_number(LONG_WORK_VARIABLE, "seconds", allow_infinity=True)
    return LONG_WORK_SECONDS if value is None else value


class LongWorkRefused(ValueError):
    """Work refused by `refuse_long_work`: a ValueError (what to do) that also carries the estimate
    (``seconds``) and the ``limit``, so a page can offer "run it anyway (about …)"."""

    def __init__(self, message: str, seconds: float, limit: float):
        super().__init__(message)
        self.seconds = seconds
        self.limit = limit


def refuse_long_work(seconds: float, allow_long: bool, what: str, smaller: str,
                     allow: str = "allow_long=True") -> None:
    """Refuse work estimated at ``seconds`` when that is above `long_work_limit` and ``allow_long``
    is false: `LongWorkRefused` saying "<what> would take about 5 min (estimate, limit 60 s): pass
    <allow> to run it anyway, or <smaller>." (``smaller``: how to make the work smaller; ``allow``:
    how the caller allows long work, e.g. the CLI's ``--allow-long``)."""
    limit = long_work_limit()
    if seconds > limit and not allow_long:
        raise LongWorkRefused(f"{what} would take about {duration(seconds)} (estimate, limit {duration(limit)}); "
                              f"pass {allow} to run it anyway, or {smaller}.", seconds, limit)
