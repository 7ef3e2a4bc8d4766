"""The "Sanitise text" page in-process (AppTest)."""
import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from privlib.words.text import PAPER_EXAMPLE

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture()
def page():
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/sanitise_text.py").run()
    return at


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _sanitised_html(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith('<div class="sanitised"')]


def _metrics(at) -> dict:
    out = {}
    for m in at.metric:
        out.setdefault(m.label, []).append(m.value)
    return out


def test_default_view_compares_mechanisms_on_the_paper_example(page):
    _ok(page)
    assert page.title[0].value == "Sanitise text"
    assert page.text_area(key="san_text").value == PAPER_EXAMPLE
    chosen = page.multiselect(key="san_mechanisms").value
    assert chosen[:2] == ["multivariate-laplace", "postprocessing-fix"] and len(chosen) <= 3
    assert len(_sanitised_html(page)) == len(chosen)
    metrics = _metrics(page)
    assert len(metrics["Unchanged"]) == len(metrics["Close neighbour"]) == len(metrics["Distant word"]) == len(chosen)
    budget = page.info[0].value
    # 32 words and the numbers 5, 2023 and 789, all GloVe words, at ε = 10
    assert "Privacy budget for this text: 350" in budget and "35 sanitised tokens" in budget
    labels = [b.label for b in page.get("download_button")]
    assert labels[:2] == ["Tokens (CSV)", "Results (JSON)"] and "Python script (.py)" in labels  # then take-home


def test_huge_epsilon_keeps_the_text_and_resample_changes_a_small_one(page):
    page.select_slider(key="san_epsilon").set_value(1000.0).run()
    _ok(page)
    laplace = _sanitised_html(page)[0]
    assert "<span" not in laplace  # nothing changed, so nothing highlighted
    assert _metrics(page)["Unchanged"][0] == "100%"

    page.select_slider(key="san_epsilon").set_value(1.0).run()
    before = _sanitised_html(page)
    assert 'class="distant"' in before[0] and "rank" in before[0]  # hover text: original, rank, distance
    page.button[0].click().run()  # Resample
    _ok(page)
    assert _sanitised_html(page) != before


def test_policies_and_bad_input(page):
    page.text_area(key="san_text").input("Zyxwv met <b>Maria</b>'s doctor.").run()
    _ok(page)
    html = _sanitised_html(page)[0]
    assert "[UNK]" in html and "<b>" not in html  # user text is escaped, unknown word redacted
    page.radio(key="san_oov").set_value("keep").run()
    assert "Zyxwv" in _sanitised_html(page)[0]
    assert "not protected" in page.info[0].value.lower()

    page.multiselect(key="san_mechanisms").set_value([]).run()
    _ok(page)
    assert "Choose at least one mechanism" in page.info[0].value
    page.multiselect(key="san_mechanisms").set_value(["santext"]).run()
    page.text_area(key="san_text").input("   ").run()
    _ok(page)
    assert "Type or paste a text" in page.info[0].value


def test_stop_words_left_untouched_cost_nothing(page):
    page.text_area(key="san_text").input("the cat and the dog").run()
    page.checkbox(key="san_stop").check().run()
    _ok(page)
    assert "Privacy budget for this text: 20" in page.info[0].value  # cat, dog at ε = 10
    assert "Not protected, left as typed: 3 stop words" in page.info[0].value  # the, and, the


def test_token_table_holds_every_token_of_every_mechanism(page):
    # (the download payloads are built by privlib.words.text.records_csv / to_dict, tested in test_text.py)
    page.multiselect(key="san_mechanisms").set_value(["multivariate-laplace", "santext"]).run()
    _ok(page)
    rows = page.dataframe[0].value
    assert set(rows["mechanism"]) == {"multivariate-laplace", "santext"}
    assert len(rows) == 2 * 42  # 42 non-space tokens in the paper example
    assert [b.label for b in page.get("download_button")][:2] == ["Tokens (CSV)", "Results (JSON)"]


def test_numbers_are_sanitised_by_default_and_kept_only_on_request(page):
    assert page.radio(key="san_numbers").value == "sanitise"
    page.radio(key="san_numbers").set_value("keep").run()
    _ok(page)
    budget = page.info[0].value
    assert "Privacy budget for this text: 320" in budget and "32 sanitised tokens" in budget
    assert "3 numbers" in budget and "not protected" in budget.lower()
    assert "789 Oak" in _sanitised_html(page)[0]


def test_contractions_and_possessives_come_back_at_a_huge_epsilon(page):
    text = "I'm sure we can't say they'll won't; the patient isn't John’s"
    page.text_area(key="san_text").input(text).run()
    page.select_slider(key="san_epsilon").set_value(1000.0).run()
    _ok(page)
    shown = _sanitised_html(page)[0]
    assert "[UNK]" not in shown and "<span" not in shown
    assert html.unescape(re.sub(r"<[^>]+>", "", shown)) == text
