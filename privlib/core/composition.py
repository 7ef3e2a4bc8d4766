"""A privacy budget under basic sequential composition.

Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Theorem 3.16: running
mechanisms that are (eps_i, delta_i)-DP on the same data is (sum eps_i, sum delta_i)-DP. This is the
simple, always-valid bound (advanced composition and accountants can be tighter for many releases).
"""
from __future__ import annotations

import math
from typing import NamedTuple

from privlib.core.validation import check_delta, check_epsilon, check_positive_int

_SOURCE = "basic sequential composition (Dwork & Roth 2014, Theorem 3.16)"


class Spend(NamedTuple):
    """One entry of a budget: ``count`` identical (epsilon, delta)-DP releases."""

    label: str
    epsilon: float
    delta: float
    count: int = 1


class PrivacyBudget:
    """Total (epsilon, delta) spent by a sequence of releases on the same data (Dwork & Roth Thm 3.16).

    >>> PrivacyBudget().spend(0.5, label="mean").spend(1.0, 1e-6, label="histogram").epsilon
    1.5
    """

    __slots__ = ("_items",)

    def __init__(self, items=()):
        self._items: list[Spend] = []
        for item in items:
            item = Spend(*item)
            self.spend(item.epsilon, item.delta, item.label, count=item.count)

    def spend(self, epsilon: float, delta: float = 0.0, label: str = "", count: int = 1) -> PrivacyBudget:
        """Record ``count`` releases that are each (epsilon, delta)-DP; returns self (for chaining)."""
        epsilon = check_epsilon(epsilon, allow_zero=True)
        delta = check_delta(delta, allow_zero=True)
        count = check_positive_int(count, "count")
        self._items.append(Spend(str(label), epsilon, delta, count))
        return self

    @property
    def items(self) -> tuple[Spend, ...]:
        return tuple(self._items)

    @property
    def epsilon(self) -> float:
        """Total epsilon: the sum of the epsilons spent."""
        return math.fsum(item.count * item.epsilon for item in self._items)

    @property
    def delta(self) -> float:
        """Total delta: the sum of the deltas spent (can exceed 1, when the guarantee is vacuous)."""
        return math.fsum(item.count * item.delta for item in self._items)

    def remaining(self, limit_epsilon: float, limit_delta: float = 0.0) -> tuple[float, float]:
        """(epsilon, delta) left under a total limit; a negative value means the limit is exceeded."""
        limit_epsilon = check_epsilon(limit_epsilon, allow_zero=True)
        limit_delta = check_delta(limit_delta, allow_zero=True)
        return limit_epsilon - self.epsilon, limit_delta - self.delta

    def times(self, m: int) -> PrivacyBudget:
        """The budget of m independent repetitions of everything spent so far: (m eps, m delta)."""
        m = check_positive_int(m, "m (the number of repetitions)")
        return PrivacyBudget(item._replace(count=item.count * m) for item in self._items)

    def __add__(self, other: PrivacyBudget) -> PrivacyBudget:
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return PrivacyBudget(self._items + other._items)

    def __eq__(self, other) -> bool:
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return self._items == other._items

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"PrivacyBudget(epsilon={self.epsilon:g}, delta={self.delta:g}, items={len(self._items)})"

    def to_dict(self) -> dict:
        """A JSON-ready summary: totals, composition rule, and the items."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "composition": _SOURCE,
            "items": [item._asdict() for item in self._items],
        }
