"""The one rule for "the largest ε that keeps an attack under a target" (privlib.core.risk.largest_epsilon_under):
exact small cases, the prefix rule (a later dip under the target does not count), the standard errors, no
answer, closed forms, and the checks of its arguments."""
import math

import numpy as np
import pytest

from privlib.core.risk import TARGET_STANDARD_ERRORS, DPCurve, largest_epsilon_under

GRID = [0.5, 1.0, 2.0, 4.0]


def test_exact_values_give_the_largest_epsilon_of_the_prefix_under_the_target():
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.58, 0.9]) == 2.0
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.6, 0.9]) == 2.0  # equality meets the target
    assert largest_epsilon_under(0.95, GRID, [0.5, 0.55, 0.58, 0.9]) == 4.0  # the whole grid
    assert largest_epsilon_under(0.52, GRID, [0.5, 0.55, 0.58, 0.9]) == 0.5
    assert largest_epsilon_under(0.6, [7.0], [0.3]) == 7.0 and largest_epsilon_under(0.6, 7.0, 0.3) == 7.0
    assert largest_epsilon_under(0.5, [0.0, 1.0], [0.5, 0.73]) == 0.0  # ε = 0 is a grid point like any other


def test_a_later_dip_under_the_target_does_not_count():
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.7, 0.55, 0.9]) == 0.5
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.7, 0.1]) == 1.0
    assert largest_epsilon_under(0.6, GRID, [0.7, 0.1, 0.1, 0.1]) is None  # the smallest ε misses it: no answer
    # the grid in any order: the prefix is over increasing ε
    assert largest_epsilon_under(0.6, [4.0, 0.5, 2.0, 1.0], [0.1, 0.5, 0.55, 0.7]) == 0.5


def test_measured_successes_count_with_two_standard_errors_added():
    assert TARGET_STANDARD_ERRORS == 2.0
    # 0.55 + 2·0.01 = 0.57 ≤ 0.6, 0.58 + 2·0.02 = 0.62 > 0.6
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.58, 0.9], [0.01, 0.01, 0.02, 0.0]) == 1.0
    # an SE of 0 is an exact value
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.58, 0.9], [0.0] * 4) == 2.0
    # the SE itself may push the smallest ε over: no answer, even though every estimate is under the target
    assert largest_epsilon_under(0.6, GRID, [0.58, 0.5, 0.5, 0.5], [0.02, 0.0, 0.0, 0.0]) is None
    # z = −2: the optimistic end of the ±2 SE range (0.58 − 0.04 ≤ 0.55 < 0.58)
    assert largest_epsilon_under(0.55, GRID, [0.5, 0.55, 0.58, 0.9], [0.01, 0.01, 0.02, 0.0], z=-2) == 2.0
    assert largest_epsilon_under(0.55, GRID, [0.5, 0.55, 0.58, 0.9], [0.01, 0.01, 0.02, 0.0]) == 0.5
    # a one-sided 97.7 % limit: with z = 1 the same numbers pass one more ε
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.55, 0.58, 0.9], [0.01, 0.01, 0.02, 0.0], z=1) == 2.0


def test_undefined_successes_and_standard_errors_never_meet_the_target():
    nan = float("nan")
    assert largest_epsilon_under(0.6, GRID, [nan, 0.5, 0.5, 0.5]) is None
    assert largest_epsilon_under(0.6, GRID, [None, 0.5, 0.5, 0.5]) is None  # no model at that ε
    assert largest_epsilon_under(0.6, GRID, [0.5, 0.5, None, 0.5]) == 1.0
    assert largest_epsilon_under(0.6, GRID, [0.5] * 4, [0.0, nan, 0.0, 0.0]) == 0.5
    assert largest_epsilon_under(0.6, GRID, np.array([0.5, 0.5, 0.5, math.inf])) == 2.0


@pytest.mark.parametrize("target", [0.55, 0.6, 0.75, 0.9, 0.99])
def test_the_answer_of_the_pure_epsilon_bound_is_its_closed_form(target):
    """The guessing chance at prior ½ under ε-DP is e^ε/(1 + e^ε) ≤ T exactly when ε ≤ logit T: the answer
    is the largest grid ε at most logit T (a fine grid, exact bound values)."""
    grid = np.round(np.arange(0.01, 6.0, 0.01), 10)
    bounds = [DPCurve(e).guessing_chance(0.5) for e in grid]
    answer = largest_epsilon_under(target, grid, bounds)
    limit = math.log(target / (1 - target))
    assert answer == grid[grid <= limit + 1e-12].max()


@pytest.mark.parametrize("arguments, message", [
    ((1.5, GRID, [0.5] * 4), "target"),
    ((-0.1, GRID, [0.5] * 4), "target"),
    ((0.5, GRID, [0.5] * 3), "one number per epsilon"),
    ((0.5, GRID, [[0.5] * 4]), "one number per epsilon"),
    ((0.5, GRID, "0.5"), "one number per epsilon"),
    ((0.5, GRID, [0.5] * 4, [0.01] * 3), "standard_errors must hold one number per epsilon"),
    ((0.5, GRID, [0.5] * 4, [0.01, -0.01, 0.0, 0.0]), "at least 0"),
    ((0.5, [], []), "non-empty"),
    ((0.5, [1.0, 1.0], [0.5, 0.5]), "distinct"),
    ((0.5, [1.0, -1.0], [0.5, 0.5]), "at least 0"),
    ((0.5, [1.0, math.inf], [0.5, 0.5]), "finite"),
    ((0.5, "1, 2", [0.5, 0.5]), "non-empty flat list"),
])
def test_bad_arguments_say_what_to_give(arguments, message):
    with pytest.raises(ValueError, match=message):
        largest_epsilon_under(*arguments)
