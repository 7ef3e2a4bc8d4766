"""Issue 22 on the word-level pages, in-process (AppTest): the chosen ε marked on the chart against ε, at
most 8 lines by default with the hidden ones counted, tables that say what is missing instead of "None",
and GloVe's junk tokens explained where neighbours are listed."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

TIMEOUT = 180
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _page(path: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(path)
    at.run()
    return at


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _spec(at, key: str) -> dict:
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
    return json.loads(chart.proto.spec)


def _lines(spec: dict) -> list[dict]:
    """The lines with a legend entry (not the ±2 SE bands)."""
    return [t for t in spec["data"] if t.get("mode") == "lines+markers"]


def _vertical_lines(spec: dict) -> list[float]:
    return [float(s["x0"]) for s in spec["layout"].get("shapes", []) if s.get("type") == "line" and s["x0"] == s["x1"]]


def _draw_curve(at) -> None:
    """Ask for the word's curve across ε when the page waits for its button (a long estimate on a busy machine)."""
    button = [b for b in at.button if b.key == "nr_curve_run"]
    if button:
        button[0].click().run()


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


@pytest.fixture(scope="module")
def ranks():
    at = _page("pages/neighbour_ranks.py", word="paris", epsilon="5")
    _ok(at)
    _draw_curve(at)
    _ok(at)
    return at


def test_neighbour_ranks_marks_the_chosen_epsilon_on_the_chart_against_epsilon(ranks):
    spec = _spec(ranks, "proportions_vs_epsilon")
    assert _vertical_lines(spec) == [5.0]
    assert any(a["text"] == "chosen ε = 5" for a in spec["layout"]["annotations"])
    ranks.select_slider(key="epsilon").set_value(20.0).run()
    _ok(ranks)
    assert _vertical_lines(_spec(ranks, "proportions_vs_epsilon")) == [20.0]


def test_the_junk_glove_token_next_to_paris_is_explained_in_one_sentence(ranks):
    notes = [c.value for c in ranks.caption if "junk tokens" in c.value]
    assert len(notes) == 1
    assert "“prohertrib”, the nearest neighbour of “paris”" in notes[0] and "web" in notes[0]
    assert ranks.dataframe[0].value["word"][0] == "paris"  # the table lists the outputs (nothing is filtered)


def test_neighbour_ranks_metric_labels_are_short_enough_for_1024_pixels(ranks):
    labels = [m.label for m in ranks.metric]
    assert labels == ["Original word (rank 0)", "Close neighbour (1–100)", "Distant word (> 100)"]
    assert max(len(label) for label in labels) <= 23


def test_four_mechanisms_and_a_word_show_at_most_eight_lines_and_count_the_hidden(tmp_path):
    rng = np.random.default_rng(0)
    words = ["king"] + [f"w{i}" for i in range(299)]
    path = tmp_path / "small.txt"
    path.write_text("\n".join(w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(8)) for w in words) + "\n")
    at = _page("pages/neighbour_ranks.py")
    at.radio(key="embedding_source").set_value("A file on this computer").run()
    at.text_input(key="embedding_path").input(str(path)).run()
    _ok(at)
    _draw_curve(at)
    mechanisms = ["multivariate-laplace", "postprocessing-fix", "santext", "tem"]
    at.multiselect(key="fig2_mechanisms").set_value(mechanisms).run()
    at.select_slider(key="fig2_words").set_value(50).run()
    next(b for b in at.button if b.label == "Compute the average").click().run()
    _ok(at)
    spec = _spec(at, "proportions_vs_epsilon")
    assert 0 < len(_lines(spec)) <= 8  # 5 curve sets would draw 15
    assert "3 of 5 curve sets hidden" in _captions(at)
    picker = next(m for m in at.multiselect if m.label == "Curves on the chart")
    picker.set_value(picker.options).run()
    _ok(at)
    assert len(_lines(_spec(at, "proportions_vs_epsilon"))) == 15 and "hidden" not in _captions(at)
    assert "junk tokens" not in _captions(at)  # not GloVe: nothing to explain


def _display_values(element) -> list[list[str]]:
    """The texts a Styler puts in the cells (what the browser draws), row by row."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    shown = convert_arrow_bytes_to_pandas_df(element.proto.arrow_data.styler.display_values)
    return shown.astype(str).values.tolist()


def test_noisy_dot_product_table_says_no_bound_instead_of_none():
    at = _page("pages/noisy_dot_product.py")
    _ok(at)
    table = at.dataframe[0].value
    assert math.isinf(table["bound"][0]) and math.isfinite(table["bound"][2])  # the numbers stay numbers
    cells = _display_values(at.dataframe[0])
    assert all("None" not in str(cell) for row in cells for cell in row), cells
    assert sum(str(cell) == "—" for row in cells for cell in row) == 4  # mean and variance, two bounds
    assert any("—: no bound" in c.value for c in at.caption)


def test_sanitise_token_table_says_not_sanitised_instead_of_none():
    at = _page("pages/sanitise_text.py")
    _ok(at)
    rows = at.dataframe[0].value
    assert not rows.isna().any().any(), rows[rows.isna().any(axis=1)]
    kept = rows[rows["action"] != "sanitised"]
    assert len(kept) and set(kept["rank"]) == {"—"} and set(kept["cosine"]) == {"—"}
    assert any(c.value.startswith("— : the token was not sanitised") for c in at.caption)
    done = rows[rows["action"] == "sanitised"]
    assert all(r.replace(",", "").isdigit() for r in done["rank"])
    assert "None" not in set(rows.astype(str).values.ravel())
