"""Basic sequential composition: the budget's totals, and the theorem itself checked on randomised
response (the composed mechanism's exact worst-case ratio is e^(sum of epsilons))."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from privlib.core.composition import PrivacyBudget
from privlib.core.randomised_response import RandomisedResponse


def test_spend_accumulates_and_chains():
    budget = PrivacyBudget()
    assert budget.epsilon == 0.0 and budget.delta == 0.0 and budget.items == ()
    returned = budget.spend(0.5, label="mean").spend(1.25, 1e-6, label="histogram")
    assert returned is budget
    assert budget.epsilon == 1.75 and budget.delta == 1e-6
    assert [item.label for item in budget.items] == ["mean", "histogram"]
    assert budget.items[1].epsilon == 1.25 and budget.items[1].delta == 1e-6
    assert len(budget) == 2


def test_totals_are_exactly_rounded_sums():
    budget = PrivacyBudget()
    for _ in range(10):
        budget.spend(0.1, 1e-7)
    assert sum([0.1] * 10) != 1.0  # naive float summation drifts ...
    assert budget.epsilon == 1.0  # ... math.fsum does not
    assert budget.delta == pytest.approx(1e-6, rel=1e-15)


def test_remaining():
    budget = PrivacyBudget().spend(2.0, 1e-6)
    eps_left, delta_left = budget.remaining(3.0, 1e-5)
    assert eps_left == pytest.approx(1.0) and delta_left == pytest.approx(9e-6)
    eps_left, delta_left = budget.remaining(1.5)
    assert eps_left == pytest.approx(-0.5) and delta_left == pytest.approx(-1e-6)  # overspent


def test_add_and_times():
    a = PrivacyBudget().spend(1.0, 1e-6, "a")
    b = PrivacyBudget().spend(0.5, label="b")
    total = a + b
    assert total.epsilon == 1.5 and total.delta == 1e-6
    assert [i.label for i in total.items] == ["a", "b"]
    assert a.epsilon == 1.0 and len(a) == 1  # operands unchanged
    repeated = total.times(1000)
    assert repeated.epsilon == pytest.approx(1500.0, rel=1e-15)
    assert repeated.delta == pytest.approx(1e-3, rel=1e-15)
    assert len(repeated) == 2 and total.epsilon == 1.5
    assert total.times(1) == total
    with pytest.raises(TypeError):
        a + 1.0


def test_to_dict_is_json_ready_and_cites_the_theorem():
    d = PrivacyBudget().spend(1.0, 1e-6, "x").spend(0.25, label="y", count=4).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["epsilon"] == 2.0 and d["delta"] == 1e-6
    assert "Theorem 3.16" in d["composition"]
    assert d["items"][1] == {"label": "y", "epsilon": 0.25, "delta": 0.0, "count": 4}


@pytest.mark.parametrize("call, message", [
    (lambda b: b.spend(-1.0), "epsilon"),
    (lambda b: b.spend(float("inf")), "epsilon"),
    (lambda b: b.spend(1.0, 1.0), "delta"),
    (lambda b: b.spend(1.0, -1e-9), "delta"),
    (lambda b: b.spend(1.0, count=0), "count"),
    (lambda b: b.times(0), "m"),
    (lambda b: b.times(1.5), "m"),
    (lambda b: b.remaining(-1.0), "epsilon"),
    (lambda b: b.remaining(1.0, 2.0), "delta"),
])
def test_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call(PrivacyBudget())


@pytest.mark.parametrize("epsilons, classes", [((0.5, 1.0), 2), ((0.3, 0.7, 1.1), 3), ((2.0, 2.0), 4)])
def test_composition_theorem_holds_and_is_tight_for_randomised_response(epsilons, classes):
    """Releasing independent RR answers for the same value: the joint output law's worst ratio over
    two inputs is exactly exp(the budget's epsilon) — the budget is valid and cannot be lowered."""
    budget = PrivacyBudget()
    matrices = []
    for e in epsilons:
        budget.spend(e, label="rr")
        matrices.append(RandomisedResponse(classes, e).transition_matrix())
    worst = 0.0
    for y, y2 in itertools.permutations(range(classes), 2):
        for outputs in itertools.product(range(classes), repeat=len(epsilons)):
            p = np.prod([m[y, z] for m, z in zip(matrices, outputs)])
            q = np.prod([m[y2, z] for m, z in zip(matrices, outputs)])
            worst = max(worst, p / q)
    assert worst <= math.exp(budget.epsilon) * (1 + 1e-12)
    assert worst == pytest.approx(math.exp(budget.epsilon), rel=1e-12)
