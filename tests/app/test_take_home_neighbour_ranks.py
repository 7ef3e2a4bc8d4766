"""Take the Neighbour ranks page home (issue 24): a shared link sets the view (the mechanism and its
parameters, the on-request sections' controls too) and the page writes it back unchanged; the exported
script (run in a fresh process) and notebook (run by nbclient) print exactly the page's numbers for the
same settings and seed; the command line takes the settings file."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
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
from privlib.analyses.neighbour_ranks import SETTINGS, cells

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "pages/neighbour_ranks.py"
#: A view far from the defaults: another word, ε, sample size, K, seed and vocabulary; a sampled mechanism
#: (Vickrey) with a parameter changed, another mechanism's parameter changed, and the on-request sections'
#: controls changed.
LINK = {"word": "queen", "epsilon": "20.0", "samples": "1000", "close": "50", "seed": "7", "vocab_size": "50000",
        "mechanism": "vickrey", "vickrey.t": "0.5", "tem.beta": "0.01", "average_mechanisms": "santext,tem",
        "average_words": "100", "candidates": "1000", "prior": "zipf", "target": "0.3",
        "frontier_mechanisms": "vickrey"}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def linked(monkeypatch_module):
    """The page opened by a shared link (`LINK`); its settings as read back from the link it writes; the files
    it offered (name → bytes)."""
    files = record_downloads(monkeypatch_module)
    at, values = opened_by_link(PAGE, LINK, SETTINGS)
    return at, values, dict(files)


def test_a_link_sets_the_view_and_the_page_writes_it_back_unchanged(linked):
    at, values, _ = linked
    assert not at.warning, [w.value for w in at.warning]
    assert not at.error, [e.value for e in at.error]
    state = at.session_state
    assert (state["word"], state["epsilon"], state["samples"], state["close"]) == ("queen", 20.0, 1000, 50)
    assert state["seed"] == 7 and state["vocab_size"] == 50_000 and state["mechanism"] == "vickrey"
    assert at.number_input(key="mechanism.vickrey.t").value == 0.5  # the chosen mechanism's parameter widget
    assert at.multiselect(key="fig2_mechanisms").value == ["santext", "tem"]
    assert at.radio(key="nr_attack_prior").value == "zipf" and at.number_input(key="nr_attack_target").value == 0.3
    assert at.select_slider(key="nr_attack_candidates").value == 1000
    assert values == SETTINGS.check(SETTINGS.from_query(LINK)[0])  # link → page → link: the same settings
    assert {name: dict(at.query_params)[name] for name in LINK} == LINK
    assert values["tem.beta"] == 0.01  # a parameter of a mechanism not shown is kept too
    assert any("Vickrey" in m.value for m in at.markdown)  # the chosen mechanism ran (About this mechanism)


def test_the_pages_settings_file_holds_the_links_settings(linked):
    _, values, files = linked
    offered = files["neighbour_ranks-settings.json"].decode("utf-8")
    assert offered == SETTINGS.to_json(SETTINGS.check(SETTINGS.from_query(LINK)[0]))  # page → file
    assert SETTINGS.from_json(offered) == (values, [])  # file → the same settings as the link


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"epsilon": "x" * 5000, "samples": "7", "vickrey.t": "2", "colour": "red"})
    warnings = " ".join(w.value for w in at.warning)
    assert "epsilon" in warnings and "x" * 100 not in warnings  # named, never repeated in full
    assert "samples = '7'" in warnings and "vickrey.t = '2'" in warnings
    assert "'colour' is not a setting" in warnings
    assert at.session_state["epsilon"] == SETTINGS.defaults()["epsilon"]
    assert at.session_state["samples"] == SETTINGS.defaults()["samples"]
    assert not at.error and any(chart.key == "rank_histogram" for chart in at.get("plotly_chart"))


def test_a_word_outside_the_vocabulary_is_named():
    at = open_page(PAGE, {"word": "notaword123", "epsilon": "5.0"})
    assert any("'notaword123' is not in the vocabulary" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["epsilon"] == 5.0  # the link's other settings were taken


def test_a_k_above_the_vocabulary_is_said_and_the_largest_used(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    words = ["king"] + [f"w{i}" for i in range(299)]
    path = tmp_path / "small.txt"
    path.write_text("\n".join(w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(8)) for w in words) + "\n")
    at = open_page(PAGE, {"close": "5000"})
    at.radio(key="embedding_source").set_value("A file on this computer").run()
    at.text_input(key="embedding_path").input(str(path)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("K = 5,000 is more than this vocabulary allows: using 299" in w.value for w in at.warning)
    assert at.number_input(key="close").value == 299 and at.query_params["close"] == "299"
    assert at.query_params["candidates"] == "200"  # the most the small vocabulary offers


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values, _ = linked
    stdout = run_script(script("neighbour_ranks", values), tmp_path, "neighbour_ranks.py", timeout=900)
    printed = read_numbers(stdout)
    expected = page_numbers(at)
    assert printed == expected  # equal, not close: the same calls with the same seed
    assert len(expected) == 6 + 2 * 10 and expected["output 1 (queen), rank"] == 0
    charts = (tmp_path / "neighbour-ranks-charts.html").read_text(encoding="utf-8")
    assert "Proportions of outputs against" in charts and "Ranks of 1,000 outputs" in charts  # the last cell's too


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    at, values, _ = linked
    nb = nbformat.reads(notebook("neighbour_ranks", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=900)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 2  # the rank histogram and the curve across ε, each where it is drawn


def test_the_script_builds_the_chosen_mechanism_with_its_parameters():
    values = {"mechanism": "santext-plus", "santext-plus.p": 0.5, "vickrey.t": 0.1}
    source = "\n".join(cell.source for cell in cells(values))
    assert "mechanism = make_mechanism('santext-plus', p=0.5, w=0.9)" in source
    assert "vickrey" not in source  # only the chosen mechanism's parameters
    assert "mechanism = make_mechanism('multivariate-laplace', nearest='exact')" in script("neighbour_ranks", {})


def test_the_command_line_takes_the_pages_settings_file(linked, tmp_path, capsys):
    _, values, _ = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "ranks", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["word"], result["epsilon"], result["samples"], result["close"]) == ("queen", 20.0, 1000, 50)
    assert result["mechanism"] == "vickrey"
    # the chosen mechanism's parameters go in as --param KEY=VALUE; the other mechanisms' are the page's only (said)
    assert "not options of ranks" in err and "tem.beta" in err and "candidates" in err and "vickrey.t" not in err
    typed = [f"{name.split('.', 1)[1]}={values[name]}" for name in values if name.startswith("vickrey.")]
    code, out_typed, err = run_cli(capsys, "ranks", "--word", "queen", "--epsilon", "20", "--samples", "1000",
                                   "--close", "50", "--mechanism", "vickrey", "--seed", str(values["seed"]),
                                   "--vocab-size", str(values["vocab_size"]), *[a for p in typed for a in ("--param", p)],
                                   "--json")
    assert code == 0, err
    assert json.loads(out_typed) == result and "t=0.5" in typed  # the file's t = 0.5, not the default 0.75
    code, out, err = run_cli(capsys, "ranks", "--settings", str(path), "--word", "king", "--json")
    assert json.loads(out)["word"] == "king"  # an option typed on the command line wins


def test_the_command_line_refuses_a_broken_file(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text(SETTINGS.to_json({}).replace('"close": 100', '"close": 0'))
    code, _, err = run_cli(capsys, "ranks", "--settings", str(broken))
    assert code == 2 and "close = 0" in err and len(err.splitlines()) == 1


def test_the_notebook_and_report_are_made_on_request_only(linked):
    at, _, _ = linked
    labels = lambda: [b.proto.label for b in at.get("download_button")]
    assert "Notebook (.ipynb)" not in labels() and "Settings file (JSON)" in labels()
    at.button(key="take_home.neighbour_ranks.prepare").click().run()
    assert not at.exception
    assert {"Notebook (.ipynb)", "Report (HTML)", "Python script (.py)"} <= set(labels())
