"""The "Private learning" page in-process (AppTest): it renders every chart without an exception, its
charts plot the library's numbers, moving n reruns no sweep, changing ε changes the output, the
invalid-calibration and δ ≥ 1/n messages appear when they should, and diabetes switches to a curve over ε."""
import base64
import json

import numpy as np
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.erm import sweep as erm_sweep_module
from privlib.erm.calibration import calibrate
from privlib.erm.mechanisms import METHODS
from privlib.presentation.erm import figures as F

PAGE = "pages/private_learning.py"
NS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)

pytestmark = pytest.mark.slow  # a Streamlit script run per step; the first one sweeps


@pytest.fixture(scope="module")
def counted():
    """The n sweeps the page really computes (cache misses): their (dataset, ns, ε) arguments."""
    with counting_calls(erm_sweep_module, "n_sweep", record=lambda args, kwargs: kwargs) as calls:
        yield calls


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "private learning")


def spec(chart) -> dict:
    return json.loads(chart.proto.spec)


def array(value) -> np.ndarray:
    """A plotly JSON array: a list (None for NaN), or a typed array {dtype, bdata (base64)}."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).astype(float)
    return np.array([np.nan if v is None else v for v in value], dtype=float)


def trace(chart, name: str) -> dict:
    found = [t for t in spec(chart)["data"] if t.get("name") == name]
    assert len(found) == 1, [t.get("name") for t in spec(chart)["data"]]
    return found[0]


def chart(at, key: str):
    (found,) = [c for c in at.get("plotly_chart") if key in c.proto.id]
    return found


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_default_view_renders_every_chart_with_the_library_numbers(page, counted):
    ok(page)
    assert page.title[0].value == "Private learning: input vs objective vs output perturbation"
    charts = page.get("plotly_chart")
    assert len(charts) == 6  # metric, excess risk, meters, trade-off, inside view, explainer
    assert len(counted) == 1 and counted[0]["ns"] == NS and counted[0]["repeats"] == 10
    expected = erm_sweep_module.n_sweep("synthetic", METHODS, NS, epsilon=1.0, delta=1e-6, d=10, repeats=10, seed=0)
    for m in METHODS:
        line = trace(chart(page, "erm_metric"), F.method_label(m))
        np.testing.assert_array_equal(array(line["x"]), NS)
        np.testing.assert_allclose(array(line["y"]), expected.mean(m, "rmse"), rtol=1e-12, equal_nan=True)
    # the shape of the paper's Fig. 1: at n = 10⁵ every private method is within 0.01 of the non-private RMSE
    rmse = {m: expected.mean(m, "rmse") for m in METHODS}
    assert all(abs(rmse[m][-1] - rmse["non_private"][-1]) < 0.01 for m in METHODS)
    assert trace(chart(page, "erm_excess"), F.RATE_LABEL)["line"]["dash"] == "dash"
    meters = spec(chart(page, "erm_meters"))
    assert any("invalid for ε ≥ 1" in (t.get("name") or "") for t in meters["data"])
    metrics = {m.label: m.value for m in page.metric}
    cal = calibrate(1.0, 1e-6, 10_000, 10)
    assert metrics["model ε (accountant)"] == f"{cal.input.epsilon_model:.3f}"
    assert metrics["contributor ε_L"] == f"{cal.local.epsilon_L:,.1f}"
    assert metrics["smallest valid n"] == "410"  # ε = 1, δ = 1e-6, d = 10
    # the inside view's table (the take-home section's numbers are JSON)
    assert len(page.dataframe) == 1 and len(page.dataframe[0].value) == 5
    assert [b.label for b in page.get("download_button")][:2] == ["Sweep results (CSV)", "Sweep results (JSON)"]


def test_the_guarantee_tags_and_the_epsilon_direction_are_stated(page):
    box = next(i.value for i in page.info if i.value.startswith("**Privacy of the published model.**"))
    assert "(ε, δ)-DP, replace-one — the project's proof sketch (beyond the paper)" in box
    assert "model DP holds only if at least n honestly perturbed records arrive" in box
    assert "not a guarantee" in box
    captions = " ".join(c.value for c in page.caption)
    for tag in ("[paper]", "[R]", "(beyond the paper)"):
        assert tag in captions
    assert "← more privacy" in captions and "not a bound" in captions


def test_moving_n_reruns_no_sweep_and_small_n_says_the_calibration_is_invalid(page, counted):
    before = len(counted)
    page.select_slider(key="erm_n").set_value(300).run()
    ok(page)
    assert len(counted) == before  # the sweep covers the whole n grid
    warning = next(w.value for w in page.warning if "not available here" in w.value)
    assert "invalid at n = 300" in warning and "n ≥ 410 at this ε" in warning and "ε > 1.8316" in warning
    assert "does not fall back to the asymptotic match" in warning
    assert {m.label: m.value for m in page.metric}["model ε (accountant)"] == "invalid"
    assert len(page.get("plotly_chart")) == 4  # no trade-off and no inside view without a valid calibration
    assert "chosen n = 300" in json.dumps(spec(chart(page, "erm_metric")), ensure_ascii=False)
    page.select_slider(key="erm_n").set_value(1_000).run()
    ok(page)
    assert not [w for w in page.warning if "not available here" in w.value]
    assert len(page.get("plotly_chart")) == 6 and len(counted) == before


def test_changing_epsilon_changes_the_sweep_and_the_meters(page, counted):
    before = len(counted)
    old = {m.label: m.value for m in page.metric}
    page.select_slider(key="erm_epsilon").set_value(0.5).run()
    ok(page)
    assert len(counted) == before + 1 and counted[-1]["epsilon"] == 0.5
    new = {m.label: m.value for m in page.metric}
    assert new["smallest valid n"] != old["smallest valid n"]
    cal = calibrate(0.5, 1e-6, 1000, 10)  # n = 1,000 is still chosen
    assert new["smallest valid n"] == f"{cal.input.min_n:,}" and new["contributor ε_L"] == f"{cal.local.epsilon_L:,.1f}"
    assert trace(chart(page, "erm_meters"), "target ε = 0.5")
    page.select_slider(key="erm_epsilon").set_value(1.0).run()
    ok(page)
    assert len(counted) == before + 1  # ε = 1 is cached


def test_delta_at_least_one_over_n_is_warned(page):
    page.select_slider(key="erm_delta").set_value(1e-3).run()
    ok(page)
    assert any("at least 1/n = 0.001" in w.value for w in page.warning)
    page.select_slider(key="erm_delta").set_value(1e-6).run()
    ok(page)
    assert not any("at least 1/n" in w.value for w in page.warning)


def test_diabetes_is_a_curve_over_epsilon_and_needs_a_larger_epsilon(page, counted):
    before = len(counted)
    page.selectbox(key="erm_dataset").set_value("diabetes").run()
    ok(page)
    assert len(counted) == before  # an ε sweep, not an n sweep
    main = spec(chart(page, "erm_metric"))
    assert "more privacy" in json.dumps(main["layout"]["xaxis"]["title"], ensure_ascii=False)
    assert list(array(trace(chart(page, "erm_metric"), F.method_label("obj_gauss"))["x"])) == \
        [0.5, 1.0, 2.0, 4.0, 10.0, 30.0, 100.0]
    warning = next(w.value for w in page.warning if "not available here" in w.value)
    assert "n = 354" in warning and "d = 11" in warning
    page.select_slider(key="erm_epsilon").set_value(5.0).run()
    ok(page)
    assert not [w for w in page.warning if "not available here" in w.value]
    assert len(page.get("plotly_chart")) == 6
    page.selectbox(key="erm_dataset").set_value("synthetic").run()
    page.select_slider(key="erm_epsilon").set_value(1.0).run()
    ok(page)


def test_census_grid_stops_at_its_training_records_and_back(page, counted):
    page.selectbox(key="erm_dataset").set_value("census2000").run()
    ok(page)
    assert counted[-1]["dataset"] == "census2000" and counted[-1]["ns"][-1] == erm_sweep_module.MAX_N["census2000"]
    page.select_slider(key="erm_n").set_value(24_000).run()
    ok(page)
    assert "d = 4" in " ".join(s.value for s in page.subheader) + json.dumps(spec(chart(page, "erm_metric")),
                                                                            ensure_ascii=False)
    page.selectbox(key="erm_dataset").set_value("synthetic").run()
    ok(page)
    assert page.select_slider(key="erm_n").value == 10_000  # back on the n grid, not silently reset to 100


def test_census_classification_says_it_shows_nothing_and_the_tooltip_blames_the_calibration(page):
    """Issue 22: every curve sits on the constant predictor there; the page says why instead of the paper's
    claim that the private models approach the non-private one."""
    task_help = page.radio(key="erm_task").help
    assert "safe calibration" in task_help and "same surrogate" in task_help
    page.selectbox(key="erm_dataset").set_value("census2000").run()
    page.radio(key="erm_task").set_value("classification").run()
    ok(page)
    assert any("Nothing to see" in w.value and "$576" in w.value for w in page.warning)
    assert not any("approaches the non-private one" in c.value for c in page.caption)
    page.radio(key="erm_task").set_value("regression").run()
    page.selectbox(key="erm_dataset").set_value("synthetic").run()
    ok(page)
    assert any("approaches the non-private one" in c.value for c in page.caption)


def test_no_method_chosen_is_explained(page):
    page.multiselect(key="erm_methods").set_value([]).run()
    ok(page)
    assert any("Choose at least one method" in i.value for i in page.info)
    assert not page.get("plotly_chart")
    page.multiselect(key="erm_methods").set_value(list(METHODS)).run()
    ok(page)
