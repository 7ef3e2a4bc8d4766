"""Word-level privatisation mechanisms, one class each, and the registry of all of them.

To add a mechanism: write its class (a `Mechanism` subclass with ``name``, ``label``,
``PARAMETERS``, ``_set_parameters``, ``_guarantee``, ``_release`` and ``_sample_many``) in a
module of this package, then add it to `ALL_MECHANISMS` below. Nothing registers itself by being
imported.
"""
from __future__ import annotations

from privlib.core.registry import make_from_registry, registry_by_name
from privlib.words.mechanisms.base import (
    D_X_NEIGHBOURS,
    SAMPLE_BATCH,
    Guarantee,
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


class _FamilyMaker:
    """What `make_from_registry` builds for a name: the class's family (ε comes separately)."""

    def __init__(self, cls: type[Mechanism]):
        self.cls = cls
        self.PARAMETERS = cls.PARAMETERS

    def __call__(self, **params) -> Mechanism:
        return self.cls.family(**params)


_FAMILY_MAKERS = {name: _FamilyMaker(cls) for name, cls in MECHANISMS.items()}


def make_mechanism(name: str, *, epsilon: float | None = None, **params) -> Mechanism:
    """The mechanism ``name`` with ``params`` at ``epsilon``, or its family (ε per row, for the
    studies) without one; ValueError for unknown names or parameters."""
    family = make_from_registry(_FAMILY_MAKERS, name, params)
    return family if epsilon is None else family.with_epsilon(epsilon)


def resolve_mechanism(spec) -> Mechanism:
    """A `Mechanism` from an instance (a mechanism or a family, returned as it is), a name, or a
    (name, params) pair where params is a dict or a tuple of (key, value) pairs — the one place
    that turns what a caller, the CLI or a page holds into a mechanism (a family for a name)."""
    if isinstance(spec, Mechanism):
        return spec
    if isinstance(spec, str):
        return make_mechanism(spec)
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str):
        return make_mechanism(spec[0], **dict(spec[1] or {}))
    raise ValueError(f"A mechanism must be a Mechanism, a mechanism name or (name, parameters), got {spec!r}.")


def describe_mechanisms() -> list[dict]:
    """Every mechanism's class-level `Mechanism.description` (default parameters, no ε), in order."""
    return [cls.description() for cls in ALL_MECHANISMS]


__all__ = [
    "ALL_MECHANISMS", "D_X_NEIGHBOURS", "MECHANISMS", "SAMPLE_BATCH", "CusText", "Guarantee", "Mahalanobis",
    "Mechanism", "MultivariateLaplace", "Parameter", "PostProcessingFix", "SanText", "SanTextPlus", "TEM", "Vickrey",
    "describe_mechanisms", "grouped_rows", "make_mechanism", "resolve_mechanism", "rows_and_epsilons",
]
