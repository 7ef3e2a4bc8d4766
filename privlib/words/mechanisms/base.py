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
