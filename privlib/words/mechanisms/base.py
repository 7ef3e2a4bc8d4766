"""Word-level privatisation mechanisms: the words topic's base class on `privlib.core.mechanism`.

A word mechanism exists in two forms, as a scipy distribution is frozen or not:

- a **mechanism**, ``MultivariateLaplace(epsilon=10, nearest="exact")``: keyword-only, ε required
  (never defaulted), every parameter validated once; ``release(space, word, size, rng)`` returns
  ``size`` output rows for one word; ``guarantee`` is a `Guarantee` with its ε;
- its **family**, ``MultivariateLaplace.family(nearest="exact")``: the same parameters without ε,
  for the studies that run many ε in one search pass (the Fig. 2 sweep, the ε study, Table 2's
  frequencies, a corpus with per-document budgets). Its batch kernels take the ε of every row
  explicitly — ``sample_many(space, rows, epsilons, rng)``, ``sample_groups(...)``,
  ``output_probabilities(space, word, epsilon)`` — validated once at their entry, so nobody
  passes a stand-in ε. ``family.with_epsilon(e)`` is the mechanism at ε = e (a cheap copy: the
  parameters are not checked again), and ``cls.description()`` lists a class (name, label,
  parameters, guarantee in words) without any ε.

Subclasses set ``name``, ``label`` and ``PARAMETERS``, check their parameters in
``_set_parameters`` (keyword-only), and write ``_guarantee()``, ``_release(space, row, size, rng)``
(the rows already checked, ε = ``self.epsilon``) and, when it can batch different words,
``_sample_many(space, rows, eps, rng)`` (one output per row, ``eps`` one float per row, both
checked; the default releases one row after another).
"""
from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np

from privlib.core.mechanism import Guarantee, Parameter
from privlib.core.mechanism import Mechanism as CoreMechanism
from privlib.core.validation import as_generator, check_epsilon, check_positive_int

#: The largest batch of noisy points searched at once (bounded memory for huge sample counts).
SAMPLE_BATCH = 20_000

#: The neighbouring relation of every ε·d_X-private word mechanism, in words.
D_X_NEIGHBOURS = "any two words; the guarantee scales with their embedding distance"


class Mechanism(CoreMechanism):
    """Base class of the word mechanisms (see the module docstring): a mechanism with its ε, or
    (``family``) the same parameters with ε given per row to the batch kernels."""

    #: True when `output_probabilities` gives the exact output law (the rank experiment then
    #: shows exact proportions instead of sampling them).
    has_exact_probabilities: ClassVar[bool] = False

    def __init__(self, *, epsilon, **parameters):
        self._check_names(parameters)
        self._set_parameters(**parameters)
        super().__init__(epsilon=epsilon)

    @classmethod
    def _check_names(cls, parameters: dict) -> None:
        unknown = set(parameters) - set(cls.PARAMETERS)
        if unknown:
            raise TypeError(f"{cls.__name__} has no parameter(s) {', '.join(sorted(unknown))}; its parameters "
                            f"are: {', '.join(cls.PARAMETERS) or 'none'} (and epsilon).")

    def _set_parameters(self) -> None:
        """Check and set the parameters of ``PARAMETERS`` (subclasses with parameters override
        this with keyword-only arguments and their defaults)."""

    @classmethod
    def family(cls, **parameters) -> "Mechanism":
        """The mechanisms of these parameters for every ε: ε is given per row to the batch kernels
        (`sample_many`, `sample_groups`, `output_probabilities`); ``with_epsilon(e)`` fixes it."""
        cls._check_names(parameters)
        family = cls.__new__(cls)
        family._set_parameters(**parameters)
        family._epsilon = None
        family._delta = None
        return family

    @classmethod
    def description(cls) -> dict:
        """`describe` of the class with its default parameters: what lists and pickers show, no ε."""
        return cls.family().describe()

    @property
    def is_family(self) -> bool:
        """True for a `family` (no ε of its own)."""
        return self._epsilon is None

    def with_epsilon(self, epsilon: float) -> "Mechanism":
        """This mechanism (or family) at ε = ``epsilon``: a copy sharing the checked parameters."""
        out = copy.copy(self)
        out._epsilon = check_epsilon(epsilon, allow_zero=self.EPSILON_ZERO_ALLOWED)
        return out

    def _own_epsilon(self) -> float:
        if self._epsilon is None:
            raise ValueError(f"{self.label} has no ε here (a family): use .with_epsilon(epsilon) first, "
                             "or give the epsilon of each row to sample_many.")
        return self._epsilon

    def _epsilon_or_own(self, epsilon) -> float:
        """An explicit ε (checked), or this mechanism's own when ``epsilon`` is None."""
        return self._own_epsilon() if epsilon is None else check_epsilon(epsilon)

    # -- the release of one word at this mechanism's ε
    def release(self, space, word, size: int = 1, rng=None) -> np.ndarray:
        """``size`` independent outputs for ``word`` (a word or a row index of ``space``), as
        int64 row indices, at this mechanism's ε."""
        self._own_epsilon()
        row = space.row(word)
        size = check_positive_int(size, "size", minimum=0)
        return self._release(space, row, size, as_generator(rng))

    def sample(self, space, word, epsilon: float, size: int = 1, rng=None) -> np.ndarray:
        """``release`` at an explicit ε: ``with_epsilon(epsilon).release(space, word, size, rng)``
        (the one-word kernel of a family; the same draws)."""
        return self.with_epsilon(epsilon).release(space, word, size, rng)

    def output_probabilities(self, space, word, epsilon: float | None = None) -> np.ndarray:
        """P(output = x | input = word) for every row x, float64 summing to 1, at ``epsilon``
        (None: this mechanism's own) — only for mechanisms with ``has_exact_probabilities``."""
        raise ValueError(f"{self.label} has no closed-form output probabilities; sample it instead.")

    # -- the batch kernels of the studies: one ε per row, checked once here
    def sample_many(self, space, rows, epsilons, rng=None) -> np.ndarray:
        """One output for each input row in ``rows`` (a batch of different words); ``epsilons`` is
        one value or one per row."""
        rows, eps = rows_and_epsilons(rows, epsilons, space)
        return self._sample_many(space, rows, eps, as_generator(rng))

    def _sample_many(self, space, rows: np.ndarray, eps: np.ndarray, rng) -> np.ndarray:
        """One `_release` per row at that row's ε: right for every mechanism; mechanisms that can
        search many words' points at once override it."""
        return np.array([self.with_epsilon(float(e))._release(space, int(r), 1, rng)[0] for r, e in zip(rows, eps)],
                        dtype=np.int64)

    def sample_groups(self, space, rows, epsilons, generators, counts) -> np.ndarray:
        """One output for each input row in ``rows``, where the rows come in consecutive groups
        (``counts[g]`` rows for group g, e.g. the words of one document) and group g draws only
        from its own generator ``generators[g]``; ``epsilons`` is one value or one per row.

        The outputs equal ``concatenate([sample_many(space, rows_g, eps_g, generators[g]) for
        each group g])``: that is what the default `_sample_groups` does, one call per group
        (empty groups draw nothing), correct for every mechanism. A group's outputs therefore
        depend only on its rows, its epsilons and its generator, never on which other groups
        share the call. Mechanisms whose cost is one search pass per call override
        `_sample_groups` to search all the groups' points at once, with exactly these outputs.
        """
        rows, eps, bounds = grouped_rows(rows, epsilons, generators, counts, space)
        return self._sample_groups(space, rows, eps, generators, bounds)

    def _sample_groups(self, space, rows, eps, generators, bounds) -> np.ndarray:
        out = np.empty(rows.size, dtype=np.int64)
        for generator, start, stop in zip(generators, bounds[:-1], bounds[1:]):
            if stop > start:
                out[start:stop] = self._sample_many(space, rows[start:stop], eps[start:stop], generator)
        return out

    def __repr__(self) -> str:
        if self.is_family:
            params = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
            return f"{type(self).__name__}.family({params})"
        return super().__repr__()

    def _d_x_guarantee(self, text: str) -> Guarantee:
        """An ε·d_X-privacy guarantee (`D_X_NEIGHBOURS`) with this mechanism's ε and ``text``."""
        return Guarantee("metric-dp", text, neighbours=D_X_NEIGHBOURS, epsilon=self.epsilon)

    def describe(self) -> dict:
        """Name, label, the guarantee in words and the parameters with defaults and ranges (the
        CLI's ``mechanisms`` and the pages)."""
        return {
            "name": self.name,
            "label": self.label,
            "guarantee": str(self.guarantee),
            "parameters": {key: p.to_dict() for key, p in self.PARAMETERS.items()},
        }


def rows_and_epsilons(rows, epsilons, space=None) -> tuple[np.ndarray, np.ndarray]:
    """Rows as int64 (within ``space``'s vocabulary when given) and the epsilons broadcast to one
    per row, each checked (strings and booleans are refused, not converted): the argument checks
    of every batch kernel."""
    rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
    if space is not None and rows.size and (rows.min() < 0 or rows.max() >= len(space)):
        raise ValueError(f"Word rows must be between 0 and {len(space) - 1}.")
    if np.asarray(epsilons).dtype.kind not in "iuf":  # "1", True: not silently converted
        for value in np.atleast_1d(np.asarray(epsilons, dtype=object)):
            check_epsilon(value)
    eps = np.broadcast_to(np.asarray(epsilons, dtype=np.float64), rows.shape)
    for value in np.unique(eps):
        check_epsilon(float(value))
    return rows, eps


def grouped_rows(rows, epsilons, generators, counts, space=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of `Mechanism.sample_groups` checked: rows and epsilons as in
    `rows_and_epsilons`, and the groups' boundaries (``bounds[g]:bounds[g + 1]`` are group g's
    rows, the cumulative sums of ``counts``). ValueError unless there is one generator (a numpy
    Generator) per count and the counts are whole numbers >= 0 adding up to the number of rows."""
    rows, eps = rows_and_epsilons(rows, epsilons, space)
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


__all__ = ["D_X_NEIGHBOURS", "SAMPLE_BATCH", "Guarantee", "Mechanism", "Parameter", "grouped_rows",
           "rows_and_epsilons"]
