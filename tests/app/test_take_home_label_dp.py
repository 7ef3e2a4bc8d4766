"""Take the Label DP page home (issue 24): a shared link sets the view and the page writes it back
unchanged; the exported script (run in a fresh process) and notebook (run by nbclient) print exactly
the page's numbers of its run at ε for the same settings and seed; the command line `retrain` takes
the settings file."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from apptest_take_home import open_page, opened_by_link, page_numbers, run_cli, run_notebook, run_script

from privlib.analyses import notebook, script
from privlib.analyses.code import read_numbers
from privlib.analyses.label_dp import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/label_dp.py"
#: A view far from the defaults: the two-point law (it takes no Δ and no C: empty in the link), another ε, size,
#: dimension, randomiser, retraining mode, seed and number of runs, retrained on a fresh unlabelled set; no heat
#: map, another attack target and another view of the Theory tab.
LINK = {"epsilon": "1.0", "dataset": "twopoint", "delta_sep": "", "n": "200", "d": "2", "model": "centroid",
        "randomiser": "rr-prior", "mode": "full", "fresh_unlabelled": "true", "repeats": "3", "seed": "7",
        "classes": "", "heat_map": "false", "attack_target": "0.55", "law": "compliant", "p": "0.2",
        "theory_n": "100000", "theory_d": "20"}

pytestmark = pytest.mark.slow  # Streamlit script runs, a subprocess and a notebook kernel


@pytest.fixture(scope="module")
def linked():
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes."""
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values = linked
    assert not [w.value for w in at.warning if "link" in w.value]  # (the page has warnings of its own)
    assert not at.error, [e.value for e in at.error]
    state = at.session_state
    assert (state["ldp_dataset"], state["ldp_epsilon"], state["ldp_n"], state["ldp_d"]) == ("twopoint", 1.0, 200, 2)
    assert (state["ldp_randomiser"], state["ldp_variant"], state["ldp_fresh"]) == ("rr-prior", "full", True)
    assert (state["ldp_repeats"], state["ldp_seed"]) == (3, 7)
    assert state["ldp_delta"] == 0.5  # a parameter the dataset does not take: the widget shows its default
    assert (state["ldp_heatmap"], state["ldp_attack_target"], state["ldp_law"]) == (False, 0.55, "compliant")
    assert (state["ldp_p"], state["ldp_theory_n"], state["ldp_theory_d"]) == (0.2, 100_000, 20)
    assert not any(chart.proto.spec and "minus the baseline" in chart.proto.spec for chart in at.get("plotly_chart"))
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert dict(at.query_params) == LINK
    assert any("seed 7, first repetition" in chart.proto.spec for chart in at.get("plotly_chart"))


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "epsilon_": "1", "dataset": "cifar", "n": "250", "seed": "-1"})
    warnings = " ".join(w.value for w in at.warning)
    assert "x" * 100 not in warnings  # named, never repeated in full
    for name in ("epsilon", "dataset", "n", "seed"):
        assert f"The link's {name} = " in warnings
    assert "'epsilon_' is not a setting" in warnings
    defaults = SETTINGS.defaults()
    state = at.session_state
    assert (state["ldp_epsilon"], state["ldp_dataset"], state["ldp_n"], state["ldp_seed"]) == (
        defaults["epsilon"], defaults["dataset"], defaults["n"], defaults["seed"])
    assert not at.error, [e.value for e in at.error]
    assert SETTINGS.from_query(dict(at.query_params)) == (SETTINGS.check({}), [])  # the defaults, written back


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    stdout = run_script(script("label_dp", values), tmp_path, "label_dp.py", timeout=600)
    printed = read_numbers(stdout)
    expected = page_numbers(at)
    assert printed == expected  # equal, not close: the same calls with the same seed
    # both modes' accuracy, the label diagnostics and RR's keep / flip probabilities (consensus: no X_U labels)
    assert len(expected) == 10 and "test accuracy, full" in expected and expected["P(keep)"] < 1
    charts = (tmp_path / "label-dp-charts.html").read_text(encoding="utf-8")
    assert charts.count('class="plotly-graph-div"') == 4  # the sweep's cell ran: accuracy, scatter, label charts


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    nb = nbformat.reads(notebook("label_dp", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 2  # the scatter of the run and the accuracy against ε, each where it is drawn


def test_the_command_line_takes_the_pages_settings_file(linked, tmp_path, capsys):
    _, values = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    # the file's epsilon fills retrain's required choice of --epsilon or --epsilons
    code, out, err = run_cli(capsys, "retrain", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["dataset"], result["seed"], result["repeats"], result["baseline_method"]) == (
        "twopoint", 7, 3, "rr-prior")
    assert result["fresh_unlabelled"] is True and result["epsilon"] == values["epsilon"]
    assert "n = 200, d = 2" in result["dataset_description"]
    assert "not options of retrain" in err and "mode" in err
    broken = tmp_path / "broken.json"
    broken.write_text(SETTINGS.to_json(values).replace('"repeats": 3', '"repeats": 0'), encoding="utf-8")
    code, _, err = run_cli(capsys, "retrain", "--settings", str(broken), "--epsilon", "2")
    assert code == 2 and "repeats = 0" in err and len(err.splitlines()) == 1
