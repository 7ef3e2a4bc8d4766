"""The attacker's-view figures every topic page shares (privlib.presentation.risk)."""
import numpy as np
import pytest

from privlib.core.risk import DPCurve, GDPCurve
from privlib.presentation.risk import (
    NO_GUARANTEE,
    attack_vs_epsilon_chart,
    frontier_chart,
    roc_points,
    tradeoff_chart,
)


def _trace(fig, name_start):
    return next(t for t in fig.data if (t.name or "").startswith(name_start))


@pytest.mark.parametrize("curve", [DPCurve(1.0, 1e-5), DPCurve(2.0), GDPCurve(1.5)])
def test_the_limit_drawn_is_one_minus_the_trade_off_curve(curve):
    fig = tradeoff_chart(curve, title="t")
    limit = _trace(fig, "the guarantee's limit")
    fpr, tpr = np.asarray(limit.x), np.asarray(limit.y)
    np.testing.assert_allclose(tpr, 1.0 - np.asarray(curve.fnr(fpr)), atol=1e-12)
    # the shaded region runs from the limit up to TPR = 1
    region = _trace(fig, "no attack can reach")
    assert np.max(region.y) == 1.0 and np.min(region.y) == pytest.approx(float(np.min(tpr)))


def test_no_guarantee_draws_no_limit_and_says_so():
    fig = tradeoff_chart(None, attacks={"attack": (np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.9, 1.0]))})
    assert not any((t.name or "").startswith("the guarantee's limit") for t in fig.data)
    assert any(NO_GUARANTEE in a.text for a in fig.layout.annotations)
    assert list(_trace(fig, "attack").y) == [0.0, 0.9, 1.0]


def test_log_fpr_keeps_only_rates_on_the_axis_and_names_replace_the_labels():
    fig = tradeoff_chart(DPCurve(1.0), exact=GDPCurve(1.0), log_fpr=True, bound_name="limit", exact_name="exact")
    assert min(_trace(fig, "limit").x) >= 1e-4 and min(_trace(fig, "exact").x) >= 1e-4
    assert fig.layout.xaxis.type == "log"


def test_roc_points_reads_objects_and_pairs():
    class Attack:
        fpr, tpr = [0.0, 1.0], [0.0, 1.0]

    for attack in (Attack(), ([0.0, 1.0], [0.0, 1.0])):
        fpr, tpr = roc_points(attack)
        assert fpr.dtype == np.float64 and list(tpr) == [0.0, 1.0]


def test_success_against_epsilon_has_two_standard_error_bands_bound_and_baseline():
    values, se = np.array([0.1, 0.2, 0.4]), np.array([0.01, 0.02, 0.03])
    fig = attack_vs_epsilon_chart([0.5, 1, 2], {"attack": (values, se)}, bound=[0.2, 0.3, 0.5], baseline=0.05,
                                  chosen_epsilon=1)
    band = next(t for t in fig.data if t.fill == "toself")
    np.testing.assert_allclose(band.y, np.concatenate([values + 2 * se, (values - 2 * se)[::-1]]))
    assert list(_trace(fig, "the guarantee's bound").y) == [0.2, 0.3, 0.5]
    assert list(_trace(fig, "guessing from the prior").y) == [0.05, 0.05]
    # without standard errors: no band
    assert not any(t.fill == "toself" for t in attack_vs_epsilon_chart([1, 2], {"exact": ([0.1, 0.2],)}).data)


def test_the_frontier_puts_utility_across_and_success_up_with_each_points_epsilon():
    fig = frontier_chart({"m": ([0.1, 0.2], [0.3, 0.4], [1, 2])}, x_title="utility", baseline=0.1)
    line = _trace(fig, "m")
    assert list(line.x) == [0.1, 0.2] and list(line.y) == [0.3, 0.4] and list(line.customdata) == [1, 2]
    assert fig.layout.xaxis.title.text == "utility"
