""""Private learning" under AppTest (issue 22): which computations a control change really runs. The
sweep over n covers the whole n grid (moving n reruns none); a change of ε, δ, R or m reruns the
sweep — it changes every noisy model — but none of its data: the synthetic draws depend on n, d, the
seed and the repetition only, and are kept (`privlib.erm.datasets.synthetic_sums`).

The library's `n_sweep` and `synthetic_moments` (one draw of n synthetic records) are counted
(`counting_calls`: a cache hit never calls them); no test asserts seconds."""
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.erm import datasets as erm_datasets
from privlib.erm import sweep as erm_sweep

PAGE = "pages/private_learning.py"

pytestmark = pytest.mark.slow  # a Streamlit script run per step


@pytest.fixture(scope="module")
def counted():
    """(the sweeps over n, the synthetic draws as (n, d, seed))."""
    if hasattr(erm_datasets, "synthetic_moments_cached"):  # (absent before issue 22)
        erm_datasets.synthetic_moments_cached.cache_clear()  # every draw of the first view is counted
    with counting_calls(erm_sweep, "n_sweep", record=lambda args, kwargs: kwargs["epsilon"]) as sweeps, \
            counting_calls(erm_datasets, "synthetic_moments", record=lambda args, kwargs: args[:3]) as draws:
        yield sweeps, draws


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "private learning (control speed)")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _changed(at, counted, change):
    sweeps, draws = counted
    before = len(sweeps), len(draws)
    change(at)
    _ok(at)
    return sweeps[before[0]:], draws[before[1]:]


def test_the_first_view_draws_every_repetition_once(page, counted):
    _ok(page)
    sweeps, draws = counted
    assert sweeps == [1.0]
    assert len(draws) == len(set(draws)) == 7 * 10  # 7 sizes n × 10 repetitions, each drawn once


def test_moving_n_reruns_nothing(page, counted):
    assert _changed(page, counted, lambda at: at.select_slider(key="erm_n").set_value(1_000).run()) == ([], [])


@pytest.mark.parametrize("key, value", [("erm_epsilon", 2.0), ("erm_R", 2.0), ("erm_m", 3.0)])
def test_a_privacy_or_model_setting_reruns_the_sweep_but_draws_no_data(page, counted, key, value):
    sweeps, draws = _changed(page, counted, lambda at: at.select_slider(key=key).set_value(value).run())
    assert len(sweeps) == 1 and draws == []


def test_a_new_dimension_draws_new_data(page, counted):
    sweeps, draws = _changed(page, counted, lambda at: at.select_slider(key="erm_d").set_value(5).run())
    assert len(sweeps) == 1 and len(draws) == 7 * 10 and {d for _, d, _ in draws} == {5}
