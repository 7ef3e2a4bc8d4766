"""Word-level privatisation mechanisms, one class each, and the registry of all of them.

To add a mechanism: write its class (a `Mechanism` subclass with ``name``, ``label``,
``PARAMETERS``, ``guarantee`` and ``sample``) in a module of this package, then add it to
`ALL_MECHANISMS` below. Nothing registers itself by being imported.
"""
from __future__ import annotations

from privlib.core.registry import make_from_registry, registry_by_name
from privlib.words.mechanisms.base import (
    SAMPLE_BATCH,
    Mechanism,
    Parameter,
    grouped_rows,
    rows_and_epsilons,
)
from privlib.words.mechanisms.exponential import TEM, CusText, SanText, SanTextPlus
from privlib.words.mechanisms.laplace import MultivariateLaplace
from privlib.words.mechanisms.mahalanobis import Mahalanobis, Vickrey
from privlib.words.mechanisms.postprocessing import PostProcessingFix

#: Every mechanism, in the order the CLI and the pages list them.
ALL_MECHANISMS: tuple[type[Mechanism], ...] = (
    MultivariateLaplace, SanText, SanTextPlus, TEM, CusText, PostProcessingFix, Mahalanobis, Vickrey,
)

#: Every mechanism by its ``name`` (the CLI's ``--mechanism`` and the pages' pickers).
MECHANISMS: dict[str, type[Mechanism]] = registry_by_name(ALL_MECHANISMS)


def make_mechanism(name: str, **params) -> Mechanism:
    """A mechanism from its name and parameters (ValueError for unknown names or parameters)."""
    return make_from_registry(MECHANISMS, name, params)


def resolve_mechanism(spec) -> Mechanism:
    """A `Mechanism` from an instance (returned as it is), a name, or a (name, params) pair where
    params is a dict or a tuple of (key, value) pairs — the one place that turns what a caller,
    the CLI or a page holds into a mechanism."""
    if isinstance(spec, Mechanism):
        return spec
    if isinstance(spec, str):
        return make_mechanism(spec)
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str):
        return make_mechanism(spec[0], **dict(spec[1] or {}))
    raise ValueError(f"A mechanism must be a Mechanism, a mechanism name or (name, parameters), got {spec!r}.")


__all__ = [
    "ALL_MECHANISMS", "MECHANISMS", "SAMPLE_BATCH", "CusText", "Mahalanobis", "Mechanism", "MultivariateLaplace",
    "Parameter", "PostProcessingFix", "SanText", "SanTextPlus", "TEM", "Vickrey", "grouped_rows", "make_mechanism",
    "resolve_mechanism", "rows_and_epsilons",
]
