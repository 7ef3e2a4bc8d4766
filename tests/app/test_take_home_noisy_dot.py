"""Take the Noisy dot product page home (issue 24): a shared link sets the view and the page writes
it back unchanged; the exported script (run in a fresh process) and notebook (run by nbclient) print
exactly the page's numbers for the same settings and seed; the command line takes the settings file."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from apptest_take_home import open_page, opened_by_link, page_numbers, run_cli, run_notebook, run_script

from privlib.analyses import notebook, script
from privlib.analyses.code import read_numbers
from privlib.analyses.noisy_dot_product import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/noisy_dot_product.py"
#: A view far from the defaults: another ε, sample size, seed, a word and its unnormalised vector.
LINK = {"epsilon": "5.0", "samples": "10000", "seed": "7", "word": "king", "normalise": "false", "integral": "true"}


@pytest.fixture(scope="module")
def linked():
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes."""
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values = linked
    assert not at.warning, [w.value for w in at.warning]
    assert at.session_state["dot_word"] == "king" and at.session_state["dot_epsilon"] == 5.0
    assert at.session_state["seed"] == 7 and at.session_state["dot_normalise"] is False
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert {name: dict(at.query_params)[name] for name in LINK} == LINK


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "word": "notaword123", "colour": "red"})
    warnings = " ".join(w.value for w in at.warning)
    assert "epsilon" in warnings and "x" * 100 not in warnings  # named, never repeated in full
    assert "'colour' is not a setting" in warnings
    assert "'notaword123' is not in the embedding's vocabulary" in warnings
    assert at.session_state["dot_epsilon"] == SETTINGS.defaults()["epsilon"]
    assert len(at.get("plotly_chart")) == 5


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    stdout = run_script(script("noisy_dot_product", values), tmp_path, "noisy_dot_product.py", timeout=600)
    printed = read_numbers(stdout)
    expected = page_numbers(at)
    assert printed == expected  # equal, not close: the same calls with the same seed
    assert len(expected) == 11
    assert (tmp_path / "noisy-dot-product-charts.html").stat().st_size > 1_000_000  # five charts and plotly.js


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    nb = nbformat.reads(notebook("noisy_dot_product", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 5  # each chart is shown where it is drawn


def test_the_command_line_takes_the_pages_settings_file(linked, tmp_path, capsys):
    _, values = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "dot", "--settings", str(path), "--json")
    assert code == 0, err
    assert (json.loads(out)["n"], json.loads(out)["epsilon"]) == (50, 5.0)
    assert "not options of dot" in err and "samples" in err
    code, out, err = run_cli(capsys, "dot", "--settings", str(path), "--epsilon", "2", "--json")
    assert json.loads(out)["epsilon"] == 2.0  # an option typed on the command line wins


def test_the_command_line_refuses_another_pages_file_and_a_broken_one(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"epsilon_lab_settings": 1, "page": "label_dp", "settings": {}}))
    broken = tmp_path / "broken.json"
    broken.write_text(SETTINGS.to_json({}).replace('"n": 50', '"n": -3'))
    for path, message in ((other, "the page 'label_dp'"), (broken, "n = -3")):
        code, _, err = run_cli(capsys, "dot", "--settings", str(path))
        assert code == 2 and message in err and len(err.splitlines()) == 1
    assert "takes no --settings" in run_cli(capsys, "rp-sigma", "--settings", str(broken))[2]


def test_the_notebook_and_report_are_made_on_request_only(linked):
    at, _ = linked
    labels = lambda: [b.proto.label for b in at.get("download_button")]
    assert "Notebook (.ipynb)" not in labels() and "Settings file (JSON)" in labels()
    at.button(key="take_home.noisy_dot_product.prepare").click().run()
    assert not at.exception
    assert {"Notebook (.ipynb)", "Report (HTML)", "Python script (.py)"} <= set(labels())
