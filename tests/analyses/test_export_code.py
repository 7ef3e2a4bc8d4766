"""A page's code to take home (privlib.analyses.code, .report): the percent script, the notebook,
the printed numbers, the chart file and the report."""
from __future__ import annotations

import json

import nbformat
import plotly.graph_objects as go
import pytest

from privlib.analyses.code import (
    code,
    markdown,
    notebook,
    percent_script,
    print_numbers,
    read_numbers,
    save_charts,
    write_text_atomically,
)
from privlib.analyses.report import page_report
from privlib.analyses.settings import PageSettings, Setting

CELLS = [markdown("# Title\nA line.\n\nAnother paragraph."), code("x = 1\nprint(x)"), markdown("## Part"),
         code("x")]


def test_the_percent_script_marks_every_cell_and_comments_the_text():
    assert percent_script(CELLS) == (
        "# %% [markdown]\n# # Title\n# A line.\n#\n# Another paragraph.\n\n"
        "# %%\nx = 1\nprint(x)\n\n"
        "# %% [markdown]\n# ## Part\n\n"
        "# %%\nx\n")


def test_the_notebook_is_valid_nbformat_4_with_the_same_cells_and_no_outputs():
    nb = nbformat.reads(notebook(CELLS, title="Demo"), as_version=4)
    nbformat.validate(nb)
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "code"]
    assert [c.source for c in nb.cells] == [c.source for c in CELLS]
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_printed_numbers_read_back_exactly(capsys):
    numbers = {"a, exact": 0.1 + 0.2, "tiny": 5e-324, "negative": -1.2345678901234567e-300, "count": 12,
               "name": "santext"}
    print_numbers(numbers)
    out = capsys.readouterr().out
    assert read_numbers("standard deviation: not a literal\n" + out) == numbers


def test_a_write_that_fails_leaves_the_former_file_and_no_partial_file(tmp_path):
    target = tmp_path / "charts.html"
    target.write_text("former")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomically(target, "half \ud800 written")  # a lone surrogate cannot be encoded
    assert target.read_text() == "former"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["charts.html"]


def test_the_charts_file_holds_every_chart_and_plotly_once(tmp_path):
    figures = [go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name=f"series-{k}")) for k in range(3)]
    path = save_charts(tmp_path / "charts.html", figures, title="Three")
    html = path.read_text()
    assert all(f"series-{k}" in html for k in range(3))
    assert html.count("plotly.js v") == 1  # the script is included once, so the file works offline


def test_the_report_holds_what_epsilon_protects_settings_numbers_charts_and_code():
    settings = PageSettings("demo", "Demo <page>", (Setting("epsilon", 1.0, "float", low=0.0),), command="dot")
    figure = go.Figure(go.Scatter(x=[1], y=[2], name="the-series"))
    html = page_report(settings, {"epsilon": 0.5}, {"variance, exact": 2.04}, [figure],
                       "print('<script>alert(1)</script>')", "A word.", created="2026-11-28")
    assert html.startswith("<!DOCTYPE html>")
    assert "Demo &lt;page&gt;" in html and "<page>" not in html
    assert "A word." in html and "2.04" in html and "the-series" in html and "2026-11-28" in html
    assert "&lt;script&gt;alert(1)" in html and "<script>alert(1)" not in html  # the code is shown, never run
    assert "python -m privlib dot --settings FILE" in html
    settings_json = html.split("Settings file</h2>")[1].split("<pre>")[1].split("</pre>")[0]
    assert json.loads(settings_json.replace("&quot;", '"'))["settings"] == {"epsilon": 0.5}
