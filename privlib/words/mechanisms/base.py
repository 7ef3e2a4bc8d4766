"""Word-level privatisation mechanisms, one class each, sharing one API.

Every mechanism:
- has a ``name`` (used by the CLI and the pages), a ``label`` and a one-line ``guarantee``;
- validates its own parameters in the constructor (``ValueError`` saying what to do);
- lists its parameters in ``PARAMETERS`` (name -> default, range, help) so pages and the CLI can
  build controls without mechanism-specific code;
- implements ``sample(space, word, epsilon, size, rng)`` returning ``size`` output word indices.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privlib.core.validation import as_generator, check_epsilon

#: The largest batch of noisy points searched at once (bounded memory for huge sample counts).
SAMPLE_BATCH = 20_000


@dataclass(frozen=True)
class Parameter:
    """A mechanism parameter as a page or the CLI shows it."""

    default: Any
    low: Any = None
    high: Any = None
    choices: tuple = ()
    help: str = ""


class Mechanism:
    """Base class: parameter bookkeeping and argument checks shared by every mechanism."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    PARAMETERS: ClassVar[dict[str, Parameter]] = {}

    @property
    def parameters(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.PARAMETERS}

    @property
    def guarantee(self) -> str:
        raise NotImplementedError

    #: True when `output_probabilities` gives the exact output law (the rank experiment then
    #: shows exact proportions instead of sampling them).
    has_exact_probabilities: ClassVar[bool] = False

    def sample(self, space, word, epsilon: float, size: int = 1, rng=None) -> np.ndarray:
        raise NotImplementedError

    def output_probabilities(self, space, word, epsilon: float) -> np.ndarray:
        """P(output = x | input = word) for every row x, float64 summing to 1 — only for
        mechanisms with ``has_exact_probabilities``."""
        raise ValueError(f"{self.label} has no closed-form output probabilities; sample it instead.")

    def sample_many(self, space, rows, epsilon, rng=None) -> np.ndarray:
        """One output for each input row in ``rows`` (a batch of different words); ``epsilon``
        is one value or one per row.

        Mechanisms that can batch different words override this; the default asks `sample`.
        """
        rng = as_generator(rng)
        rows, eps = rows_and_epsilons(rows, epsilon, space)
        return np.array([self.sample(space, int(r), e, 1, rng)[0] for r, e in zip(rows, eps)], dtype=np.int64)

    def sample_groups(self, space, rows, epsilon, generators, counts) -> np.ndarray:
        """One output for each input row in ``rows``, where the rows come in consecutive groups
        (``counts[g]`` rows for group g, e.g. the words of one document) and group g draws only
        from its own generator ``generators[g]``; ``epsilon`` is one value or one per row.

        The outputs equal ``concatenate([sample_many(space, rows_g, eps_g, generators[g]) for
        each group g])``: that is what this default does, one call per group (empty groups
        draw nothing), correct for every mechanism. A group's outputs therefore depend only on
        its rows, its epsilons and its generator, never on which other groups share the call.
        Mechanisms whose cost is one search pass per call override this to search all the
        groups' points at once, with exactly these outputs.
        """
        rows, eps, bounds = grouped_rows(rows, epsilon, generators, counts, space)
        out = np.empty(rows.size, dtype=np.int64)
        for generator, start, stop in zip(generators, bounds[:-1], bounds[1:]):
            if stop > start:
                out[start:stop] = self.sample_many(space, rows[start:stop], eps[start:stop], generator)
        return out

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"{type(self).__name__}({params})"

    @staticmethod
    def _word_index(space, word) -> int:
        return space.row(word)

    def describe(self) -> dict:
        """Name, parameters with defaults and ranges, and the guarantee (for the CLI and pages)."""
        return {
            "name": self.name,
            "label": self.label,
            "guarantee": self.guarantee,
            "parameters": {
                key: {"default": p.default, "low": p.low, "high": p.high, "choices": list(p.choices), "help": p.help}
                for key, p in self.PARAMETERS.items()
            },
        }


def rows_and_epsilons(rows, epsilon, space=None) -> tuple[np.ndarray, np.ndarray]:
    """Rows as int64 (within ``space``'s vocabulary when given) and epsilon broadcast to one per
    row, each checked: the shared argument handling of every `sample_many`."""
    rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
    if space is not None and rows.size and (rows.min() < 0 or rows.max() >= len(space)):
        raise ValueError(f"Word rows must be between 0 and {len(space) - 1}.")
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), rows.shape)
    for value in np.unique(eps):
        check_epsilon(float(value))
    return rows, eps


def grouped_rows(rows, epsilon, generators, counts, space=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of `Mechanism.sample_groups` checked: rows and epsilons as in
    `rows_and_epsilons`, and the groups' boundaries (``bounds[g]:bounds[g + 1]`` are group g's
    rows, the cumulative sums of ``counts``). ValueError unless there is one generator (a numpy
    Generator) per count and the counts are whole numbers >= 0 adding up to the number of rows."""
    rows, eps = rows_and_epsilons(rows, epsilon, space)
    counts = np.asarray(counts)
    if counts.ndim != 1 or (counts.size and (not np.issubdtype(counts.dtype, np.integer) or counts.min() < 0)):
        raise ValueError("counts must be whole numbers >= 0, one per group.")
    if len(generators) != counts.size:
        raise ValueError(f"Give one generator per group: {len(generators)} generators for {counts.size} groups.")
    if not all(isinstance(g, np.random.Generator) for g in generators):
        raise ValueError("generators must be numpy Generators (np.random.default_rng(...)), one per group.")
    bounds = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    if bounds[-1] != rows.size:
        raise ValueError(f"The group counts add up to {int(bounds[-1])}, but there are {rows.size} rows.")
    return rows, eps, bounds
