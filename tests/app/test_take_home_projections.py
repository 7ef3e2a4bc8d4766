"""Take the Random projections page home (issue 24): a shared link sets the view and the page writes it
back unchanged; the exported script (run in a fresh process) and notebook (run by nbclient) print exactly
the page's numbers of its sweep at ε for the same settings and seed; the command line `rp-sweep` takes the
settings file and computes the same sweep."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from apptest_take_home import open_page, opened_by_link, page_numbers, run_cli, run_notebook, run_script

from privlib.analyses import notebook, script
from privlib.analyses.code import read_numbers
from privlib.analyses.random_projections import SETTINGS, cells, linkage_command

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/random_projections.py"
#: A view far from the defaults, on the digits (small: quick sweeps): an ε off the sweep's grid (swept alone and
#: merged in), another δ, k, t, β, R (recall@20 of the top 50), seed and projection, DP-SignRP-RR beside two
#: defaults and the iDP mechanisms shown, the variance check on, another mechanism attacked and other targets; p
#: is not the synthetic data's default (kept, though the digits fix their own).
LINK = {"epsilon": "1.5", "delta": "1e-05", "dataset": "digits", "p": "1024", "k": "16", "t": "2", "seed": "7",
        "projection": "gaussian", "s": "3.0", "m": "0.0", "beta": "0.5", "R": "20", "true": "50",
        "mechanisms": "dp-oporp,dp-signoporp-rr,dp-signrp-rr", "show_idp": "true", "variance_check": "true",
        "attack_mechanism": "dp-signoporp-rr", "attack_target": "0.7", "linkage_target": "0.1"}

pytestmark = pytest.mark.slow  # Streamlit script runs, a subprocess and a notebook kernel


@pytest.fixture(scope="module")
def linked():
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes."""
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values = linked
    assert [w.value[:20] for w in at.warning] == ["**Why iDP is not DP."]  # the page's own, not the link's
    assert not at.error, [e.value for e in at.error]
    state = at.session_state
    assert (state["rp_epsilon"], state["rp_delta"], state["rp_dataset"], state["rp_k"], state["rp_t"]) == (
        1.5, 1e-5, "digits", 16, 2)
    assert (state["rp_seed"], state["rp_projection"], state["rp_beta"], state["rp_R"]) == (7, "gaussian", 0.5, 20)
    assert state["rp_mechanisms"] == ["dp-oporp", "dp-signoporp-rr", "dp-signrp-rr"] and state["rp_show_idp"] is True
    assert (state["rp_variance_check"], state["rp_attack_mechanism"], state["rp_attack_target"]) == (
        True, "dp-signoporp-rr", 0.7)
    assert at.selectbox(key="rp_attack_mechanism").value == "dp-signoporp-rr"
    precision = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "precision@20 on" in json.dumps(precision["layout"]["title"], ensure_ascii=False)
    assert "chosen ε = 1.5" in [trace.get("name") for trace in precision["data"]]
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert dict(at.query_params) == LINK


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "dataset": "digits", "k": "7", "mechanisms": "dp-oporp,bogus",
                          "attack_mechanism": "dp-rp-l", "colour": "red"})
    warnings = " ".join(w.value for w in at.warning)
    assert "x" * 100 not in warnings  # named, never repeated in full
    for name in ("epsilon", "k", "mechanisms"):
        assert f"The link's {name} = " in warnings
    assert "'colour' is not a setting" in warnings
    assert not at.error, [e.value for e in at.error]
    defaults = SETTINGS.defaults()
    state = at.session_state
    assert (state["rp_epsilon"], state["rp_k"], state["rp_mechanisms"]) == (
        defaults["epsilon"], defaults["k"], list(defaults["mechanisms"]))
    # a valid mechanism that is not shown: the attacker's view takes the first shown, and the link says so
    assert state["rp_attack_mechanism"] == "dp-oporp" and dict(at.query_params)["attack_mechanism"] == "dp-oporp"
    assert len(at.get("plotly_chart")) >= 13
    assert SETTINGS.from_query(dict(at.query_params)) == (SETTINGS.check({"dataset": "digits"}), [])


def test_a_setting_whose_widget_is_hidden_stays_in_the_link():
    at = open_page(PAGE, {"dataset": "synthetic", "p": "512", "k": "16", "mechanisms": "dp-oporp"})
    assert at.select_slider(key="rp_p").value == 512
    at.selectbox(key="rp_dataset").set_value("digits").run()  # p is fixed by the digits: its widget is not drawn
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    assert dict(at.query_params)["dataset"] == "digits" and dict(at.query_params)["p"] == "512"
    at.selectbox(key="rp_dataset").set_value("synthetic").run()  # back: the same p as before
    assert at.select_slider(key="rp_p").value == 512


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    stdout = run_script(script("random_projections", values), tmp_path, "random_projections.py", timeout=600)
    printed = read_numbers(stdout)
    expected = page_numbers(at)
    assert printed == expected  # equal, not close: the same calls with the same seed
    # the references, then per mechanism (3 DP, 2 iDP) at ε = 1.5 its precision and SD, its public numbers, and its
    # recall@20 of the top 50
    assert expected["chance, precision@20"] == 50 / 1597
    assert expected["DP-SignOPORP-RR at ε = 1.5, ε per bit"] == 0.75  # ε/t, t = 2
    assert sum(name.endswith("precision@20 mean") for name in expected) == 5
    assert sum("recall@20 of the top 50" in name for name in expected) == 5
    assert "guessing without the release gets 50 %" in stdout  # the attacker's view ran
    charts = (tmp_path / "random-projections-charts.html").read_text(encoding="utf-8")
    assert charts.count('class="plotly-graph-div"') == 14  # every chart of the page's view


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    nb = nbformat.reads(notebook("random_projections", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 14  # each chart is shown where it is drawn
    first = charts[0]["data"]["application/vnd.plotly.v1+json"]
    assert "chosen ε = 1.5" in [trace.get("name") for trace in first["data"]]


def test_the_command_line_takes_the_pages_settings_file(linked, tmp_path, capsys):
    at, values = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "rp-sweep", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["dataset"], result["k"], result["t"], result["seed"], result["R"], result["true"]) == (
        "digits", 16, 2, 7, 20, 50)
    assert (result["delta"], result["beta"], result["projection"]) == (1e-5, 0.5, "gaussian")
    assert [m["name"] for m in result["mechanisms"]] == ["dp-oporp", "dp-signoporp-rr", "dp-signrp-rr"]
    numbers = page_numbers(at)  # the same data, projections and truth: the same non-private levels and chance
    assert (result["nonprivate"]["rp"], result["nonprivate"]["signrp"], result["chance"]) == (
        numbers["non-private RP, precision@20"], numbers["non-private SignRP, precision@20"],
        numbers["chance, precision@20"])
    assert "not options of rp-sweep" in err and "show_idp" in err and "epsilon" in err
    code, out, err = run_cli(capsys, "rp-sweep", "--settings", str(path), "--k", "32", "--json")
    assert code == 0, err
    assert json.loads(out)["k"] == 32  # an option typed on the command line wins


def test_the_command_line_refuses_a_broken_file(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text(SETTINGS.to_json({}).replace('"k": 32', '"k": 33'), encoding="utf-8")
    code, _, err = run_cli(capsys, "rp-sweep", "--settings", str(broken))
    assert code == 2 and "k = 33" in err and len(err.splitlines()) == 1


def test_the_on_request_linkage_is_left_out_and_its_command_runs(capsys):
    values = {"dataset": "digits", "mechanisms": ("dp-signoporp-rr",), "t": 4, "epsilon": 2.0, "seed": 3,
              "attack_mechanism": "dp-signoporp-rr", "linkage_target": 0.2}
    text = script("random_projections", values)
    assert "record_linkage" not in text and "On request on the page: not run here" in text
    command = linkage_command(values)
    assert command in text and "--param t=4" in command and "--target 0.2" in command
    args = command.split()[3:]  # after "python -m privlib"
    code, out, err = run_cli(capsys, *args, "--targets", "50", "--json")  # fewer released rows: quick
    assert code == 0, err
    result = json.loads(out)
    assert (result["mechanism"], result["epsilon"], result["seed"], result["attribute"]) == (
        "dp-signoporp-rr", 2.0, 3, None)
    assert result["linkage"] is not None and result["targets"]["target"] == 0.2
    with pytest.raises(ValueError, match="not among the mechanisms shown"):
        cells({**values, "attack_mechanism": "dp-oporp"})
    with pytest.raises(ValueError, match="at least one mechanism"):
        cells({**values, "mechanisms": ()})


def test_the_notebook_and_report_are_made_on_request_only(linked):
    at, _ = linked
    labels = lambda: [b.proto.label for b in at.get("download_button")]
    assert "Notebook (.ipynb)" not in labels() and "Settings file (JSON)" in labels()
    at.button(key="take_home.random_projections.prepare").click().run()
    assert not at.exception
    assert {"Notebook (.ipynb)", "Report (HTML)", "Python script (.py)"} <= set(labels())
