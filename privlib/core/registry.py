"""Registries of mechanisms by name: one explicit list per topic, one way to build from a name.

Each topic lists its mechanism classes explicitly (nothing registers itself by being imported);
these helpers turn that list into a name → class table and build a mechanism from a name and
parameters (the CLI's ``--mechanism``/``--param`` and the pages' pickers), with one set of messages.
A class takes part by having a ``name`` and a ``PARAMETERS`` mapping of its parameter names
(`privlib.core.mechanism.Mechanism`: the parameters besides ε and δ, which every mechanism takes).
"""
from __future__ import annotations

from privlib.core.validation import shown

#: The privacy parameters of every mechanism's constructor, never listed in its ``PARAMETERS``.
PRIVACY_PARAMETERS = frozenset({"epsilon", "delta"})


def registry_by_name(classes, kind: str = "mechanism") -> dict:
    """{cls.name: cls} for ``classes`` in their order; ValueError for an empty or repeated name."""
    table = {}
    for cls in classes:
        if not cls.name or cls.name in table:  # a programming error: the name is the library's own
            raise ValueError(f"Every {kind} needs a distinct, non-empty name; {cls.__name__} has {cls.name!r}.")
        table[cls.name] = cls
    return table


def _short(text: str) -> str:
    """A user's parameter name as typed, or cut by `shown` when it is longer than 40 characters."""
    return text if len(text) <= 40 else shown(text)


def make_from_registry(registry: dict, name: str, params: dict, kind: str = "mechanism"):
    """``registry[name](**params)``, or a ValueError that lists the valid names or parameters."""
    if name not in registry:
        raise ValueError(f"Unknown {kind} {shown(name)}; choose one of: {', '.join(registry)}.")
    cls = registry[name]
    unknown = set(params) - set(cls.PARAMETERS) - PRIVACY_PARAMETERS
    if unknown:
        raise ValueError(
            f"{name} has no parameter(s) {', '.join(_short(k) for k in sorted(map(str, unknown))[:5])}"
            f"{' …' if len(unknown) > 5 else ''}; its parameters are: "
            f"{', '.join(cls.PARAMETERS) or 'none'}."
        )
    return cls(**params)
