"""Take the "What ε means" page home (issue 24): a shared link sets the view (the typed guarantee and the
audit's controls) and the page writes it back unchanged; the exported script (run in a fresh process) and
notebook (run by nbclient) print exactly the page's numbers, and the script's last cell — the audit, on
request on the page — finds what the page's audit finds; the `bounds` command takes the settings file."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from apptest_take_home import (
    open_page,
    opened_by_link,
    page_numbers,
    record_downloads,
    run_cli,
    run_notebook,
    run_script,
)

from privlib.analyses import notebook, script
from privlib.analyses.code import read_numbers
from privlib.analyses.what_epsilon_means import GDP_DELTA_EPSILONS, SETTINGS, cells
from privlib.core.risk import GDPCurve, attack_terms, stated_guarantee

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/what_epsilon_means.py"
#: A view far from the defaults: an (ε, δ) guarantee with another prior, people, candidates and group, the linear
#: FPR axis, and an audit of another topic's (ε, δ) mechanism with a parameter changed, its δ, releases and seed.
LINK = {"kind": "dp", "epsilon": "2.5", "delta": "1e-06", "prior": "0.3", "people": "5000", "candidates": "20",
        "group": "3", "log_fpr": "false", "audit.topic": "projections", "audit.mechanism": "dp-oporp",
        "audit.epsilon": "2.0", "audit.delta": "1e-06", "audit.releases": "2000", "audit.seed": "7",
        "audit.dp-oporp.k": "32", "audit.vickrey.t": "0.5"}
#: A μ-GDP view: the page writes ε and δ as none.
GDP_LINK = {"kind": "gdp", "mu": "0.8", "epsilon": "", "delta": "", "group": "4"}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def linked(monkeypatch_module):
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes; the files it
    offered (name → bytes)."""
    files = record_downloads(monkeypatch_module)
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values, dict(files)


@pytest.fixture(scope="module")
def gdp_linked():
    at = open_page(PAGE, GDP_LINK)
    values, problems = SETTINGS.from_query(dict(at.query_params))
    assert problems == []
    return at, values


def printed_text(values, folder) -> str:
    """What the exported script at ``values`` prints, run with ``python`` in a fresh process in ``folder``."""
    return run_script(script("what_epsilon_means", values), folder, "what_epsilon_means.py", timeout=600)


@pytest.fixture(scope="module")
def script_output(linked, tmp_path_factory):
    folder = tmp_path_factory.mktemp("script")
    return printed_text(linked[1], folder), folder


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values, _ = linked
    assert not at.warning, [w.value for w in at.warning]
    assert not at.error, [e.value for e in at.error]
    assert at.number_input(key="wem_epsilon").value == 2.5 and at.number_input(key="wem_delta").value == 1e-6
    assert at.number_input(key="wem_prior").value == 0.3 and at.number_input(key="wem_group").value == 3
    assert at.toggle(key="wem_log_fpr").value is False
    assert at.selectbox(key="wem_audit_topic").value == "projections"
    assert at.selectbox(key="wem_audit_mechanism.projections").value == "dp-oporp"
    assert at.number_input(key="wem_audit.projections.dp-oporp.k").value == 32  # the chosen mechanism's parameter
    assert at.select_slider(key="wem_audit_releases").value == 2000 and at.number_input(key="wem_audit_seed").value == 7
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert {name: dict(at.query_params)[name] for name in LINK} == LINK
    assert values["audit.vickrey.t"] == 0.5  # a parameter of a mechanism not shown is kept too
    assert values["mu"] is None  # an (ε, δ) view has no μ: the settings file gives `bounds` one guarantee


def test_the_pages_numbers_are_the_typed_guarantees(linked):
    at, _, _ = linked
    shown = page_numbers(at)
    terms = attack_terms(stated_guarantee(epsilon=2.5, delta=1e-6), prior=0.3, candidates=20, people=5000)
    assert shown["maximal advantage"] == terms["advantage"] and shown["naming 1 of 20"] == terms["reidentification"]["bound"]
    # the spec's closed forms (§1, §2), written here independently: (e^ε − 1 + 2δ)/(e^ε + 1) and, at FPR α,
    # max TPR = min(1, e^ε·α + δ, 1 − (1 − δ − α)/e^ε)
    e = np.exp(2.5)
    assert shown["maximal advantage"] == pytest.approx((e - 1 + 2e-6) / (e + 1), rel=1e-12)
    assert shown["TPR at FPR 0.01"] == pytest.approx(min(1, e * 0.01 + 1e-6, 1 - (1 - 1e-6 - 0.01) / e), rel=1e-12)
    assert shown["δ for people, people expected"] == pytest.approx(5000 * 1e-6)
    assert shown["group, guarantee"].startswith("for a group of 3 units: epsilon = 7.5")
    assert shown["privacy loss of one output"] == "unbounded"  # δ > 0
    assert shown["guarantee"] == "(ε, δ)-DP with ε = 2.5, δ = 1e-06"


def test_the_pages_settings_file_holds_the_links_settings(linked):
    _, values, files = linked
    offered = files["what_epsilon_means-settings.json"].decode("utf-8")
    assert offered == SETTINGS.to_json(SETTINGS.check(SETTINGS.from_query(LINK)[0]))  # page → file
    assert SETTINGS.from_json(offered) == (values, [])  # file → the same settings as the link


def test_a_gdp_link_sets_the_view_and_the_page_writes_it_back_unchanged(gdp_linked):
    at, values = gdp_linked
    assert not at.warning and not at.error
    assert at.radio(key="wem_kind").value == "gdp" and at.number_input(key="wem_mu").value == 0.8
    assert {name: dict(at.query_params)[name] for name in GDP_LINK} == GDP_LINK  # ε and δ: none (empty)
    assert values == SETTINGS.check(SETTINGS.from_query(GDP_LINK)[0])
    shown = page_numbers(at)
    deltas = GDPCurve(0.8).delta(np.array(GDP_DELTA_EPSILONS))
    assert [shown[f"δ(ε = {e:g}) of μ-GDP"] for e in GDP_DELTA_EPSILONS] == [float(d) for d in deltas]
    assert shown["group, guarantee"].startswith("for a group of 4 units: mu = 3.2")


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "audit.mechanism": "bogus", "audit.releases": "7", "people": "0",
                          "colour": "red"})
    warnings = " ".join(w.value for w in at.warning)
    assert "epsilon" in warnings and "x" * 100 not in warnings  # named, never repeated in full
    assert "audit.mechanism = 'bogus'" in warnings and "audit.releases = '7'" in warnings and "people = '0'" in warnings
    assert "'colour' is not a setting" in warnings
    assert at.number_input(key="wem_epsilon").value == 1.0 and at.number_input(key="wem_people").value == 10_000
    assert at.selectbox(key="wem_audit_mechanism.label-dp").value == "rr"
    assert not at.error and len(at.get("plotly_chart")) == 1
    assert at.query_params["epsilon"] == "1.0"  # the page writes the view it shows


def test_a_links_mechanism_of_another_topic_brings_its_topic():
    at = open_page(PAGE, {"audit.topic": "words", "audit.mechanism": "lp2st"})
    assert any("lp2st is one of Label DP" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.selectbox(key="wem_audit_topic").value == "label-dp"
    assert at.selectbox(key="wem_audit_mechanism.label-dp").value == "lp2st"
    assert at.query_params["audit.topic"] == "label-dp" and at.query_params["audit.mechanism"] == "lp2st"


def test_the_exported_script_prints_the_pages_numbers(linked, script_output):
    at, _, _ = linked
    printed, folder = script_output
    expected = page_numbers(at)
    assert read_numbers(printed) == expected  # equal, not close: the same calls with the same settings
    assert len(expected) == 14
    assert (folder / "what-epsilon-means-charts.html").stat().st_size > 1_000_000  # the chart and plotly.js
    assert (folder / "what-epsilon-means-audit.html").exists()  # the last cell's (the audit's) chart


def test_the_scripts_audit_finds_what_the_pages_audit_finds(linked, script_output):
    """The page audits on request (its button); the script's last cell runs the same audit."""
    at, _, _ = linked
    at.button(key="wem_audit_run").click().run()
    assert not at.exception and not at.error
    summaries = [c.value for c in at.caption if c.value.startswith("At 95 % confidence the releases show")]
    assert len(summaries) == 1 and "μ ≥" in summaries[0]  # the projections' exactly Gaussian test
    summary = summaries[0].split(" Test: ")[0]
    assert summary in script_output[0].splitlines()
    assert "wem_audit_chart" in [chart.key for chart in at.get("plotly_chart")]


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values, _ = linked
    nb = nbformat.reads(notebook("what_epsilon_means", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 2  # the guarantee's curve, and the audit's test against its claim (the last cell)


def test_the_gdp_script_prints_the_pages_numbers(gdp_linked, tmp_path):
    at, values = gdp_linked
    assert read_numbers(printed_text(values, tmp_path)) == page_numbers(at)


def test_the_script_holds_the_typed_guarantee_and_the_chosen_audit_only():
    source = "\n".join(cell.source for cell in cells({"kind": "gdp", "epsilon": None, "delta": None, "mu": 0.5,
                                                      "audit.topic": "erm", "audit.mechanism": "input_safe",
                                                      "audit.delta": 1e-6, "audit.vickrey.t": 0.1}))
    assert "mu = 0.5" in source and "stated_guarantee(mu=mu)" in source and "epsilon = " not in source
    assert "from privlib.erm.audit import audit_mechanism" in source
    assert "audit_mechanism('input_safe', epsilon=1.0, delta=1e-06" in source and "{'inflate': 1.0}" in source
    assert "vickrey" not in source  # only the audited mechanism's parameters
    default = script("what_epsilon_means", {})
    assert "stated_guarantee(epsilon=epsilon, delta=delta)" in default and "audit_mechanism('rr', " in default


def test_the_command_line_takes_the_pages_settings_file(linked, gdp_linked, tmp_path, capsys):
    at, values, _ = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "bounds", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["advantage"] == page_numbers(at)["maximal advantage"]  # the page's guarantee, prior, k and n
    assert result["guarantee"]["delta"] == 1e-6 and result["prior"] == 0.3
    assert result["reidentification"]["candidates"] == 20 and result["delta_for_people"]["people"] == 5000
    assert "not options of bounds" in err and "the audit's settings" in err and "group" in err
    assert "audit.topic" not in err and len(err.splitlines()) == 1  # ~60 audit settings said as one, one line
    code, out, err = run_cli(capsys, "bounds", "--settings", str(path), "--delta", "0", "--json")
    assert json.loads(out)["guarantee"]["kind"] == "pure-dp"  # an option typed on the command line wins

    _, gdp_values = gdp_linked
    path.write_text(SETTINGS.to_json(gdp_values), encoding="utf-8")
    code, out, err = run_cli(capsys, "bounds", "--settings", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["guarantee"]["mu"] == 0.8 and json.loads(out)["guarantee"]["kind"] == "gdp"
    code, out, err = run_cli(capsys, "bounds", "--settings", str(path), "--epsilon", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["guarantee"]["kind"] == "pure-dp"  # a typed ε wins over the file's μ (its rival)


def test_the_notebook_and_report_are_made_on_request_only(linked):
    at, _, _ = linked
    labels = lambda: [b.proto.label for b in at.get("download_button")]
    assert "Notebook (.ipynb)" not in labels() and "Settings file (JSON)" in labels()
    at.button(key="take_home.what_epsilon_means.prepare").click().run()
    assert not at.exception
    assert {"Notebook (.ipynb)", "Report (HTML)", "Python script (.py)"} <= set(labels())
