"""The Monte Carlo overlay of chart 5 for the sign route (privlib.projections.sweep.rr_angle_monte_carlo):
the simulated SD of the randomised-response angle estimate θ̂_RR (eq. 29) against the closed form
√(V_RR/k) (Theorem 4.6)."""
import math

import numpy as np
import pytest

from privlib.presentation.projections import figures as F
from privlib.projections import sweep as S
from privlib.projections.quantities import v_rr


@pytest.mark.parametrize("theta", [math.pi / 3, math.pi / 6])
def test_monte_carlo_sd_matches_sqrt_v_rr_over_k_within_4_standard_errors(theta):
    eps = (0.5, 2.0, 5.0, 20.0)
    check = S.rr_angle_monte_carlo(theta, eps, 64, draws=2000, seed=3)
    assert check.eps_per_bit == eps and check.draws == 2000 and check.k == 64
    exact = np.sqrt(v_rr(theta, np.array(eps)) / 64)
    # the SE of a sample SD from m draws is about SD/sqrt(2(m - 1))
    assert np.allclose(check.standard_error, check.sd / np.sqrt(2 * 1999))
    assert np.all(np.abs(check.sd - exact) < 4 * check.standard_error), (check.sd, exact)


def test_monte_carlo_is_seeded_and_each_epsilon_is_independent_of_the_grid():
    a = S.rr_angle_monte_carlo(math.pi / 3, (1.0, 5.0), 32, draws=100, seed=0)
    b = S.rr_angle_monte_carlo(math.pi / 3, (1.0, 5.0), 32, draws=100, seed=0)
    c = S.rr_angle_monte_carlo(math.pi / 3, (5.0,), 32, draws=100, seed=0)
    d = S.rr_angle_monte_carlo(math.pi / 3, (1.0, 5.0), 32, draws=100, seed=1)
    assert np.array_equal(a.sd, b.sd)
    assert a.sd[1] == c.sd[0]
    assert not np.array_equal(a.sd, d.sd)


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match="theta"):
        S.rr_angle_monte_carlo(4.0, (1.0,), 16)
    with pytest.raises(ValueError, match="draws"):
        S.rr_angle_monte_carlo(1.0, (1.0,), 16, draws=2)


def test_angle_chart_draws_the_monte_carlo_on_the_signoporp_line_at_eps_t_times_eps_per_bit():
    check = S.rr_angle_monte_carlo(math.pi / 3, (0.25, 1.0), 16, draws=50, seed=0)
    fig = F.angle_sd_chart(16, n_plus_count=1.0, t=2, theta=math.pi / 3, epsilons=(0.5, 2.0), monte_carlo=check)
    mc = next(t for t in fig.data if t.name.endswith("simulated"))
    line = next(t for t in fig.data if t.name.startswith("DP-SignOPORP-RR") and not t.name.endswith("simulated"))
    assert list(mc.x) == [0.5, 2.0] and list(mc.y) == list(check.sd)
    assert list(mc.error_y.array) == list(2 * check.standard_error)
    assert mc.marker.color == line.line.color
    with pytest.raises(ValueError, match="Monte Carlo check"):
        F.angle_sd_chart(32, n_plus_count=1.0, t=1, theta=math.pi / 3, monte_carlo=check)
