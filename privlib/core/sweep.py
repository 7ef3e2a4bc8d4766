"""One sweep result, one progress signature and one seeding scheme for every topic.

Every topic's sweep is ``sweep(data, mechanisms, epsilons, *, repeats, seed, progress)`` and
returns a `SweepResult`: a long-form table of mechanism × ε × repetition × metric with means,
standard errors, ``to_dict``, ``to_csv`` and ``to_json``. Long computations report
``progress(fraction, message)`` (`Progress`). Randomness comes from `child_rng(seed, *keys)`: a
(mechanism, ε, repetition) cell gets its own stream from numpy's SeedSequence, whatever else runs
in the same sweep (no ``seed + r``: adjacent seeds would share streams).
"""
from __future__ import annotations

import csv
import io
import json
import math
import numbers
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int, check_seed, shown

#: ``progress(fraction, message)``: fraction in [0, 1] done, and a short line saying what runs.
Progress = Callable[[float, str], None]


def seed_key(key) -> int:
    """One SeedSequence entropy word from a key: a whole number >= 0 as itself, a string by its
    CRC-32 (stable across runs and machines, unlike ``hash``), a float by its IEEE-754 bits (so
    ε = 0.1 and ε = 0.1000001 get different streams)."""
    if isinstance(key, (bool, np.bool_)):
        return int(key)
    if isinstance(key, numbers.Integral):
        if int(key) < 0:
            raise ValueError(f"Seed keys must be whole numbers >= 0, got {shown(key)}.")
        return int(key)
    if isinstance(key, str):
        return zlib.crc32(key.encode("utf-8"))
    if isinstance(key, numbers.Real):
        return int(np.float64(key).view(np.uint64))
    raise ValueError(f"A seed key must be a whole number, a float or a string, got {type(key).__name__}.")


def child_seed_sequence(seed, *keys) -> np.random.SeedSequence:
    """``SeedSequence((seed, *keys))`` with every key turned into an integer by `seed_key`."""
    return np.random.SeedSequence((check_seed(seed), *(seed_key(k) for k in keys)))


def child_rng(seed, *keys) -> np.random.Generator:
    """The generator of one cell of a computation, e.g. ``child_rng(seed, "dp-oporp", epsilon, r)``:
    ``default_rng(SeedSequence((seed, *keys)))`` (keys as in `seed_key`). Two different key tuples
    give independent streams (SeedSequence mixes all its entropy words), so a cell's numbers do
    not depend on which other cells run, or in what order.

    One rule: the keys of one purpose always have the same length, a tag first (e.g. ``"noise"``).
    SeedSequence pads its entropy with zero words to its pool size, so ``(seed, k)`` and
    ``(seed, k, 0)`` are the same stream."""
    return np.random.default_rng(child_seed_sequence(seed, *keys))


def _finite_or_none(value: float):
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True, eq=False)
class SweepResult:
    """The values of a sweep in long form: ``values[m, e, r, k]`` is metric ``metrics[k]`` of
    mechanism ``mechanisms[m]`` at ``epsilons[e]`` in repetition r (NaN where undefined).

    ``axis`` names what ``epsilons`` holds ("epsilon", or e.g. "n" for a sweep over the data size
    at one ε); ``labels`` maps a mechanism's name to its label for people; ``reference`` holds
    values that do not depend on the mechanism or ε (a non-private baseline, chance level), each
    one number; ``settings`` the sweep's other parameters (JSON-ready), ``guarantees`` each
    mechanism's guarantee in words.
    """

    mechanisms: tuple[str, ...]
    epsilons: np.ndarray
    metrics: tuple[str, ...]
    values: np.ndarray
    seed: int
    labels: dict = field(default_factory=dict)
    axis: str = "epsilon"
    reference: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    guarantees: dict = field(default_factory=dict)

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.float64)
        epsilons = np.asarray(self.epsilons, dtype=np.float64)
        expected = (len(self.mechanisms), epsilons.size)
        if values.ndim != 4 or values.shape[:2] != expected or values.shape[3] != len(self.metrics):
            raise ValueError(f"values must have shape (mechanisms, epsilons, repeats, metrics) = "
                             f"({expected[0]}, {expected[1]}, R, {len(self.metrics)}), got {values.shape}.")
        values.flags.writeable = False
        epsilons.flags.writeable = False
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "epsilons", epsilons)
        object.__setattr__(self, "mechanisms", tuple(self.mechanisms))
        object.__setattr__(self, "metrics", tuple(self.metrics))

    @property
    def repeats(self) -> int:
        return self.values.shape[2]

    def _index(self, names: Sequence[str], name: str, kind: str) -> int:
        try:
            return names.index(name)
        except ValueError:
            raise ValueError(f"This sweep has no {kind} {shown(name)}; it has: {', '.join(names)}.") from None

    def per_repeat(self, mechanism: str, metric: str) -> np.ndarray:
        """The values of one mechanism and metric, shape (epsilons, repeats)."""
        m = self._index(self.mechanisms, mechanism, "mechanism")
        k = self._index(self.metrics, metric, "metric")
        return self.values[m, :, :, k]

    def count(self, mechanism: str, metric: str) -> np.ndarray:
        """Number of defined (non-NaN) repetitions per ε."""
        return np.sum(~np.isnan(self.per_repeat(mechanism, metric)), axis=1)

    def mean(self, mechanism: str, metric: str) -> np.ndarray:
        """Mean over the defined repetitions per ε (NaN where none is defined)."""
        values = self.per_repeat(mechanism, metric)
        count = np.sum(~np.isnan(values), axis=1)
        total = np.nansum(values, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    def sd(self, mechanism: str, metric: str) -> np.ndarray:
        """Sample standard deviation over the repetitions (ddof = 1) per ε; 0 with one repetition,
        NaN with none."""
        values = self.per_repeat(mechanism, metric)
        count = np.sum(~np.isnan(values), axis=1)
        centred = values - self.mean(mechanism, metric)[:, None]
        squares = np.nansum(centred ** 2, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 1, np.sqrt(squares / np.maximum(count - 1, 1)), np.where(count == 1, 0.0, np.nan))

    def standard_error(self, mechanism: str, metric: str) -> np.ndarray:
        """Standard error of the mean: sd / √(defined repetitions) per ε."""
        count = self.count(mechanism, metric)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, self.sd(mechanism, metric) / np.sqrt(np.maximum(count, 1)), np.nan)

    def label(self, mechanism: str) -> str:
        return self.labels.get(mechanism, mechanism)

    def rows(self) -> list[dict]:
        """The long form: one dict per (mechanism, ε, repetition, metric) with its value."""
        out = []
        for m, name in enumerate(self.mechanisms):
            for e, eps in enumerate(self.epsilons):
                for r in range(self.repeats):
                    for k, metric in enumerate(self.metrics):
                        out.append({"mechanism": name, self.axis: float(eps), "repeat": r, "metric": metric,
                                    "value": _finite_or_none(self.values[m, e, r, k])})
        return out

    def summary(self) -> list[dict]:
        """One dict per (mechanism, ε, metric): mean, sd, standard error and count."""
        out = []
        for name in self.mechanisms:
            for metric in self.metrics:
                mean, sd = self.mean(name, metric), self.sd(name, metric)
                se, count = self.standard_error(name, metric), self.count(name, metric)
                for e, eps in enumerate(self.epsilons):
                    out.append({"mechanism": name, self.axis: float(eps), "metric": metric,
                                "mean": _finite_or_none(mean[e]), "sd": _finite_or_none(sd[e]),
                                "standard_error": _finite_or_none(se[e]), "count": int(count[e])})
        return out

    def to_dict(self) -> dict:
        """JSON-ready (no NaN or infinity: undefined values are None)."""
        return {
            "axis": self.axis,
            "epsilons" if self.axis == "epsilon" else self.axis: [float(e) for e in self.epsilons],
            "mechanisms": list(self.mechanisms),
            "labels": {name: self.label(name) for name in self.mechanisms},
            "metrics": list(self.metrics),
            "repeats": self.repeats,
            "seed": self.seed,
            "summary": self.summary(),
            "reference": {key: _finite_or_none(value) for key, value in self.reference.items()},
            "settings": self.settings,
            "guarantees": self.guarantees,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_csv(self) -> str:
        """The long form as CSV: mechanism, ε (or the axis), repeat, metric, value (empty = undefined)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["mechanism", self.axis, "repeat", "metric", "value"])
        for row in self.rows():
            value = row["value"]
            writer.writerow([row["mechanism"], repr(row[self.axis]), row["repeat"], row["metric"],
                             "" if value is None else repr(value)])
        return buffer.getvalue()


def empty_values(mechanisms: int, epsilons: int, repeats: int, metrics: int) -> np.ndarray:
    """A NaN-filled (mechanisms, epsilons, repeats, metrics) array for a sweep to fill in."""
    shape = tuple(check_positive_int(v, name) for v, name in
                  ((mechanisms, "mechanisms"), (epsilons, "epsilons"), (repeats, "repeats"), (metrics, "metrics")))
    return np.full(shape, np.nan)
