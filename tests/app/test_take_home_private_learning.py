"""Take the Private learning page home (issue 24): a shared link sets the view and the page writes it
back unchanged; the exported script (run in a fresh process) and notebook (run by nbclient) print
exactly the page's numbers for the same settings and seed; the command line's erm-sweep takes the
settings file."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from apptest_take_home import open_page, opened_by_link, page_numbers, run_cli, run_notebook, run_script

from privlib.analyses import notebook, script
from privlib.analyses.code import read_numbers
from privlib.analyses.private_learning import SETTINGS, cells

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/private_learning.py"
#: A view far from the defaults: every setting moved (δ, n, d, R, m, repeats, seed, three methods, the target).
LINK = {"epsilon": "2.0", "delta": "1e-07", "n": "1000", "task": "classification", "d": "5", "R": "2.0",
        "inflate": "3.0", "repeats": "5", "seed": "7", "methods": "non_private,obj_gauss,input_safe",
        "target": "0.7"}

#: The page's charts that the export draws, in order (the attacker's view's, run on request, are left out).
MAIN_CHARTS = ("erm_metric", "erm_excess", "erm_meters", "erm_tradeoff", "erm_inside", "erm_explainer")

pytestmark = pytest.mark.slow  # each page run sweeps the n grid


@pytest.fixture(scope="module")
def linked():
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes."""
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values = linked
    assert not at.warning, [w.value for w in at.warning]
    state = at.session_state
    assert (state["erm_epsilon"], state["erm_delta"], state["erm_n"], state["erm_d"], state["erm_m"]) == \
           (2.0, 1e-7, 1000, 5, 3.0)
    assert state["erm_seed"] == 7 and state["erm_task"] == "classification" and state["erm_attack_target"] == 0.7
    assert state["erm_methods"] == ["non_private", "obj_gauss", "input_safe"]
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert {name: dict(at.query_params)[name] for name in LINK} == LINK
    assert dict(at.query_params)["dataset"] == "synthetic"  # the unset ones are written too: every setting


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "methods": "obj_gauss,magic", "dataset": "census2000", "n": "100000",
                    "colour": "red", "repeats": "6"})
    warnings = " ".join(w.value for w in at.warning)
    assert "epsilon" in warnings and "x" * 100 not in warnings  # named, never repeated in full
    assert "methods = 'obj_gauss,magic' was ignored" in warnings
    assert "'colour' is not a setting" in warnings
    assert "n = 100,000 is not on the census2000 grid" in warnings
    state = at.session_state
    assert state["erm_epsilon"] == SETTINGS.defaults()["epsilon"] and state["erm_n"] == 10_000
    assert state["erm_methods"] == list(SETTINGS.defaults()["methods"]) and state["erm_repeats"] == 6
    assert state["erm_dataset"] == "census2000"
    assert not at.error, [e.value for e in at.error]
    assert [chart.key for chart in at.get("plotly_chart")][:6] == list(MAIN_CHARTS)
    assert dict(at.query_params)["n"] == "10000"  # the link now says the n shown


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    printed = printed_numbers(values, tmp_path)
    expected = page_numbers(at)
    assert printed == expected  # equal, not close: the same calls with the same seed
    # three methods × (accuracy mean, SD, excess risk) at n = 1,000 and the five calibration numbers
    assert len(expected) == 3 * 3 + 5 and "obj_gauss at n = 1000, accuracy mean" in expected
    shown = {m.label: m.value for m in at.metric}  # the table says what the page's meters say
    assert f"{int(expected['smallest valid n']):,}" == shown["smallest valid n"]
    assert f"{expected['model ε (accountant)']:.3f}" == shown["model ε (accountant)"]
    assert (tmp_path / "private-learning-charts.html").stat().st_size > 1_000_000  # six charts and plotly.js


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    nb = nbformat.reads(notebook("private_learning", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == len(MAIN_CHARTS)  # each chart is shown where it is drawn (not the attacker's view's)
    assert [chart.key for chart in at.get("plotly_chart")][:6] == list(MAIN_CHARTS)


def printed_numbers(values, folder: Path) -> dict:
    """The numbers the exported script prints, run in a fresh process in ``folder``."""
    stdout = run_script(script("private_learning", values), folder, "private_learning.py", timeout=600)
    return read_numbers(stdout)


def test_the_diabetes_export_sweeps_over_epsilon_and_prints_the_pages_numbers(tmp_path):
    at = open_page(PAGE, {"dataset": "diabetes", "epsilon": "4.0", "repeats": "5", "seed": "3", "inflate": "10.0",
                    "methods": "output,obj_gauss,input_safe"})
    values, problems = SETTINGS.from_query(dict(at.query_params))
    assert problems == [] and values["dataset"] == "diabetes"
    text = script("private_learning", values)
    assert "result = sweep(dataset=dataset, mechanisms=methods, epsilons=SWEEP_EPSILONS" in text
    assert "n_sweep(dataset" not in text
    expected = page_numbers(at)
    assert printed_numbers(values, tmp_path) == expected
    assert "input_safe at ε = 100.0, rmse mean" in expected and "obj_gauss at ε = 0.5, rmse SD" in expected


def test_an_export_off_the_datasets_n_grid_is_refused():
    with pytest.raises(ValueError, match="n = 100,000 is not on the census2000 grid"):
        cells({"dataset": "census2000", "n": 100_000})


def test_the_command_line_takes_the_pages_settings_file(tmp_path, capsys):
    values = {"epsilon": 2.0, "n": 300, "d": 3, "repeats": 5, "seed": 7, "methods": ("obj_gauss", "output"),
              "task": "classification", "inflate": 3.0, "delta": 1e-7}
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "erm-sweep", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["epsilon"], result["delta"], result["d"], result["trials"], result["seed"]) == (2.0, 1e-7, 3, 5, 7)
    assert (result["task"], result["inflate"], result["dataset"]) == ("classification", 3.0, "synthetic")
    assert [point["n"] for point in result["points"]] == [300]  # a list option (--n) from the file
    assert sorted(result["methods"]) == ["obj_gauss", "output"]  # and --methods
    assert "not options of erm-sweep" in err and "target" in err
    code, out, err = run_cli(capsys, "erm-sweep", "--settings", str(path), "--n", "1000", "--methods", "output",
                             "--epsilon", "4", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["epsilon"], result["d"]) == (4.0, 3)  # an option typed on the command line wins
