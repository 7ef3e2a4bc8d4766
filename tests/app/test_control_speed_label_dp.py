"""Label DP under AppTest (issue 22): which computations a control change really runs. A control change
must not recompute what it does not change, and work whose estimate is above `AUTOMATIC_SECONDS` waits
for its button (the page says so) while the cheap part — the run at the chosen ε — is shown at once.

The estimates' timings are replaced by fixed costs (`fixed_costs`), so what starts by itself does not
depend on the machine's load: the centroid's fit and run are instant, every other model's fit takes
0.05 s (a logistic sweep of 12 ε × 20 runs × 4 fits is then about 49 s). The library's `sweep` and
`sweep_run` are counted (`counting_calls`: a cache hit never calls them); no test asserts seconds."""
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.label_dp import sweep as sweep_module
from privlib.label_dp import theory as theory_module

PAGE = "pages/label_dp.py"

pytestmark = pytest.mark.slow  # a Streamlit script run per step


def fixed_fit_seconds(data, model="logistic", runs=2):
    return 1e-6 if model == "centroid" else 0.05


def fixed_run_seconds(data, randomiser="rr", model="logistic", modes=None, runs=2):
    return 1e-6 if model == "centroid" else 0.2


@pytest.fixture(scope="module")
def fixed_costs():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep_module, "fit_seconds", fixed_fit_seconds)
        patch.setattr(sweep_module, "run_seconds", fixed_run_seconds, raising=False)  # (absent before issue 22)
        yield


def _sweep_record(args, kwargs):
    """(model, "heat map" for a sweep of the heat map — it names its modes —, else "sweep")."""
    return kwargs.get("model"), "heat map" if "modes" in kwargs else "sweep"


@pytest.fixture(scope="module")
def counted(fixed_costs):
    """The sweeps and the single runs the page computes (cache misses)."""
    with counting_calls(sweep_module, "sweep", record=_sweep_record) as sweeps, \
            counting_calls(sweep_module, "sweep_run", record=lambda args, kwargs: (args[2], kwargs.get("model"))) \
            as runs:
        yield sweeps, runs


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "label DP (control speed)")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _chart_keys(at) -> set:
    return {chart.key for chart in at.get("plotly_chart")}


def _run_buttons(at) -> dict:
    return {b.key: b.label for b in at.button if b.key in ("ldp_run_sweep", "ldp_run_heat")}


def _changed(at, counted, change):
    """The (sweeps, runs) that ``change`` (a callable on the AppTest) computed."""
    sweeps, runs = counted
    before = len(sweeps), len(runs)
    change(at)
    _ok(at)
    return sweeps[before[0]:], runs[before[1]:]


def test_the_cheap_default_computes_the_sweep_and_the_heat_map_by_itself(page, counted):
    _ok(page)
    sweeps, runs = counted
    assert sweeps.count(("centroid", "sweep")) == 1 and sweeps.count(("centroid", "heat map")) == 6
    assert len(runs) == 1 and not _run_buttons(page)
    assert {"ldp_accuracy", "ldp_labels", "ldp_heat"} <= _chart_keys(page)


def test_an_epsilon_change_recomputes_only_the_run_at_that_epsilon(page, counted):
    sweeps, runs = _changed(page, counted, lambda at: at.select_slider(key="ldp_epsilon").set_value(2.0).run())
    assert sweeps == [] and [eps for eps, _ in runs] == [2.0]


def test_a_heavy_model_shows_the_run_at_once_and_the_sweep_on_request(page, counted):
    sweeps, _ = _changed(page, counted, lambda at: at.slider(key="ldp_repeats").set_value(2).run())
    assert sweeps == [("centroid", "sweep")]  # the number of runs is part of the sweep, not of the heat map
    sweeps, runs = _changed(page, counted, lambda at: at.selectbox(key="ldp_model").set_value("logistic").run())
    assert sweeps == [] and runs == [(2.0, "logistic")]  # only the cheap part
    # the library's count of fits: (12 ε × 2 runs × (baseline + 3 retrainings) + 2 non-private fits) × 0.05 s
    assert _run_buttons(page)["ldp_run_sweep"] == "Run the sweep (about 5 s)"
    assert "ldp_run_heat" in _run_buttons(page)
    assert any("runs only when you ask" in i.value for i in page.info)
    keys = _chart_keys(page)
    assert "ldp_scatter" in keys and not keys & {"ldp_accuracy", "ldp_labels", "ldp_heat"}


def test_a_requested_sweep_is_computed_once_and_kept_through_later_changes(page, counted):
    sweeps, _ = _changed(page, counted, lambda at: at.button(key="ldp_run_sweep").click().run())
    assert sweeps == [("logistic", "sweep")]
    assert "ldp_accuracy" in _chart_keys(page) and "ldp_run_sweep" not in _run_buttons(page)
    for change in (lambda at: at.select_slider(key="ldp_epsilon").set_value(0.5).run(),
                   lambda at: at.selectbox(key="ldp_variant").set_value("full").run()):
        sweeps, _ = _changed(page, counted, change)
        assert sweeps == []  # ε and the variant shown are not part of the sweep
        assert "ldp_accuracy" in _chart_keys(page) and "ldp_run_sweep" not in _run_buttons(page)


def test_the_heat_map_on_request_sweeps_every_separation_once(page, counted):
    sweeps, _ = _changed(page, counted, lambda at: at.button(key="ldp_run_heat").click().run())
    assert sweeps == [("logistic", "heat map")] * 6
    sweeps, _ = _changed(page, counted, lambda at: at.select_slider(key="ldp_epsilon").set_value(2.0).run())
    assert sweeps == [] and "ldp_heat" in _chart_keys(page)


def test_theory_controls_recompute_no_experiment(page, counted):
    for change in (lambda at: at.radio(key="ldp_law").set_value("compliant").run(),
                   lambda at: at.select_slider(key="ldp_p").set_value(0.2).run(),
                   lambda at: at.select_slider(key="ldp_theory_d").set_value(20).run()):
        sweeps, runs = _changed(page, counted, change)
        assert sweeps == [] and runs == []


def test_going_back_to_computed_settings_recomputes_nothing(page, counted):
    page.selectbox(key="ldp_variant").set_value("consensus").run()  # the heat map's variant of the first view
    sweeps, _ = _changed(page, counted, lambda at: at.selectbox(key="ldp_model").set_value("centroid").run())
    assert sweeps == []  # the centroid's sweep and heat map at these settings are cached since the first view
    assert {"ldp_accuracy", "ldp_heat"} <= _chart_keys(page)


def test_a_theory_change_simulates_the_largest_n_only_on_request(page):
    """(Last: `counting_calls` clears the page's caches.)"""
    with counting_calls(theory_module, "simulate_centroid", record=lambda args, kwargs: args[1]) as sizes:
        page.select_slider(key="ldp_p").set_value(0.3).run()
        _ok(page)
        assert sizes == [1_000, 10_000]  # at d = 50, n = 100,000 would draw 2·n·d·5 = 5·10⁷ normal numbers
        assert any("simulated only when you ask" in c.value for c in page.caption)
        page.button(key="ldp_run_simulation").click().run()
        _ok(page)
        assert sizes[2:] == [1_000, 10_000, 100_000]
        page.select_slider(key="ldp_theory_n").set_value(10**6).run()  # the per-point bounds only
        _ok(page)
        assert len(sizes) == 5 and not any(b.key == "ldp_run_simulation" for b in page.button)
