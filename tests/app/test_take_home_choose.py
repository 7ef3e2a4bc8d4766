"""Take the Choose epsilon page home (issue 24): a shared link sets every input and the page writes it back
unchanged; the exported script (in a fresh process) and notebook (nbclient) print exactly the page's numbers;
the command line takes the settings file; the words typed on the page go into no link, and into no download
(settings file, script, notebook, either report) unless the box is ticked — checked with a marker string."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from apptest_take_home import open_page, page_numbers, record_downloads, run_cli, run_notebook, run_script

from privlib.analyses import script
from privlib.analyses.choose_epsilon import SETTINGS, mechanism_specs, report, targets_of
from privlib.analyses.code import read_numbers

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/choose_epsilon.py"
#: Every input away from its default: random vocabulary words, two mechanisms (one with an exact output law, one
#: parameter changed), the grid, runs, K, seed, vocabulary, every target, an attack target and the chart's measure.
LINK = {"vocab_size": "20000", "seed": "3", "source": "random", "words": "12", "mechanisms": "multivariate-laplace,tem",
        "tem.beta": "0.01", "epsilons": "1,5,20", "samples": "10", "close": "50", "target_close": "0.4",
        "max_keep": "0.3", "keep_statistic": "mean", "sentence_length": "10", "attack_target": "0.3",
        "attack_measure": "success", "attack_candidates": "60", "attack_prior": "zipf", "privacy_metric": "distinct"}
MARKER = "Zorblax4711"
TYPED = f"The river bank was flooded; {MARKER} kept the money in the bank."
BOX = "take_home.choose_epsilon.include_private"
PREPARE = "take_home.choose_epsilon.prepare"


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def linked():
    """The page opened by a shared link (`LINK`) and run; its settings as read back from the link it writes."""
    at = open_page(PAGE, LINK)
    assert not at.warning, [w.value for w in at.warning]
    at.button[0].click().run()  # Run
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    values, problems = SETTINGS.from_query(dict(at.query_params))
    assert problems == []
    return at, values


@pytest.fixture(scope="module")
def typed(monkeypatch_module):
    """The page with a typed text holding `MARKER`, run, the notebook and report prepared; every download offered."""
    files = record_downloads(monkeypatch_module)
    at = open_page(PAGE, {"vocab_size": "20000", "epsilons": "1,8", "samples": "10", "mechanisms": "santext,tem"})
    at.text_area(key="choose_text").input(TYPED).run()
    at.button[0].click().run()  # Run
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    at.button(key=PREPARE).click().run()
    assert not at.exception
    return at, dict(files), files


def test_a_link_sets_every_input_and_the_page_writes_it_back_unchanged(linked):
    at, values = linked
    state = at.session_state
    assert state["choose_source"] == "random" and state["choose_n_words"] == 12 and state["seed"] == 3
    assert state["choose_mechanisms"] == ["multivariate-laplace", "tem"] and state["choose.tem.beta"] == 0.01
    assert state["choose_attack"] is True and state["choose_attack_limit_success"] == 30.0  # 0.3 on the page: 30 %
    assert state["choose_keep_statistic"] == "mean" and state["choose_privacy_metric"] == "distinct"
    assert {name: dict(at.query_params)[name] for name in LINK} == LINK  # link → page → link: unchanged
    assert SETTINGS.check(values) == SETTINGS.check(SETTINGS.from_query(LINK)[0])
    assert "12 distinct vocabulary words" in at.caption[0].value


def test_a_bad_link_value_is_named_and_the_page_still_opens():
    at = open_page(PAGE, {"samples": "7", "attack_target": "x" * 5000, "source": "clipboard", "colour": "red",
                          "text": f"{MARKER} from a link", "vocab_size": "20000"})
    warnings = " ".join(w.value for w in at.warning)
    assert "samples = '7' was ignored" in warnings and "source = 'clipboard' was ignored" in warnings
    assert "attack_target" in warnings and "x" * 100 not in warnings  # named, never repeated in full
    assert "'colour' is not a setting" in warnings and "A link never carries text: ignored." in warnings
    assert MARKER not in at.session_state["choose_text"] and at.session_state["choose_attack"] is False
    assert at.session_state["choose_samples"] == 20 and at.title[0].value == "Choose epsilon"
    assert any("press **Run**" in i.value for i in at.info)


def test_the_exported_script_prints_the_pages_numbers(linked, tmp_path):
    at, values = linked
    stdout = run_script(script("choose_epsilon", values), tmp_path, "choose_epsilon.py", timeout=600)
    expected = page_numbers(at)
    assert read_numbers(stdout) == expected  # equal, not close: the same calls with the same seed
    # per mechanism: the range, three answers and 3 ε × (two shares of utility and SE, two of keeping, attack, verdict)
    assert len(expected) == 2 * (2 + 3 + 3 * 6)
    assert isinstance(expected["tem, ε = 5, re-identified"], float)
    assert (tmp_path / "choose-epsilon-charts.html").stat().st_size > 1_000_000  # ten charts and plotly.js


def test_the_exported_notebook_prints_the_pages_numbers(linked, tmp_path):
    from privlib.analyses import notebook

    at, values = linked
    nb = nbformat.reads(notebook("choose_epsilon", values), as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells)  # stored without outputs
    text, charts = run_notebook(nb, tmp_path, timeout=600)
    assert read_numbers(text) == page_numbers(at)
    assert len(charts) == 2  # the trade-off and the utility target's chart are shown where they are drawn


def test_the_command_line_takes_the_pages_settings_file(linked, tmp_path, capsys):
    at, values = linked
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS.to_json(values), encoding="utf-8")
    code, out, err = run_cli(capsys, "choose", "--settings", str(path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["words"]["count"], result["samples"], result["close"], result["seed"]) == (12, 10, 50, 3)
    assert result["targets"]["attack"] == 0.3 and result["attack"]["prior"] == "zipf"
    numbers = page_numbers(at)
    # the page's mechanisms, in its order, with its parameters (tem.beta = 0.01): each one's numbers are the page's
    assert [m["mechanism"] for m in result["mechanisms"]] == ["multivariate-laplace", "tem"]
    assert result["mechanisms"][1]["parameters"]["beta"] == 0.01
    compared = 0
    for m in result["mechanisms"]:
        for j, eps in enumerate(result["epsilons"]):  # the same words, seed and runs: the page's numbers, equal
            at_eps = f"{m['mechanism']}, ε = {eps:g}"
            assert m["values"]["within_k"][j] == numbers[f"{at_eps}, unchanged or among the K nearest"]
            assert m["standard_errors"]["within_k"][j] == numbers[f"{at_eps}, unchanged or among the K nearest, standard error"]
            assert m["values"]["unchanged"][j] == numbers[f"{at_eps}, unchanged (mean)"]
            assert m["values"]["unchanged_max"][j] == numbers[f"{at_eps}, unchanged (most-kept word)"]
            assert m["attack"]["success"][j] == numbers[f"{at_eps}, re-identified"]
            compared += 5
    assert compared == 2 * 3 * 5
    assert "not options of choose" in err and "privacy_metric" in err
    assert "mechanisms" not in err and "tem.beta" not in err and "source" not in err  # the command runs them


def test_with_the_box_unticked_no_download_holds_the_typed_words(typed):
    at, offered, _ = typed
    assert "text" not in dict(at.query_params) and MARKER not in json.dumps(dict(at.query_params))
    names = {"choose_epsilon-settings.json", "choose_epsilon.py", "choose_epsilon.ipynb", "choose_epsilon-report.html"}
    assert names <= set(offered)
    for name in names:
        assert MARKER.encode() not in offered[name], name
    assert "text" not in json.loads(offered["choose_epsilon-settings.json"])["settings"]
    assert b"Your words were not included" in offered["choose_epsilon.py"]


def _choice(values):
    """The page's analysis at ``values``, computed here (the page's own report is made when its button is clicked)."""
    from privlib.words.choice import WordSet, choose_epsilon
    from privlib.words.embeddings import EmbeddingSpace

    v = SETTINGS.check(values)
    space = EmbeddingSpace.glove_6b_50d(vocab_size=v["vocab_size"])
    words = WordSet.from_text(v["text"], space, source="pasted text")
    return choose_epsilon(space, words, v["epsilons"], mechanism_specs(v), v["samples"], v["close"], targets_of(v),
                          v["sentence_length"], v["seed"])


def test_the_pages_own_report_has_the_code_and_settings_and_the_words_only_when_included(typed):
    at, _, _ = typed
    values = SETTINGS.from_query(dict(at.query_params))[0]  # what the page holds, but the text
    choice = _choice({**values, "text": TYPED})
    left_out = report(choice, values, created="2026-01-01 12:00")
    assert MARKER not in left_out and "flooded" not in left_out
    assert f"The words ({len(choice.words)}) are not included in this report." in left_out
    assert "<h2>Reproduce it</h2>" in left_out and "choose_epsilon" in left_out and "--settings FILE" in left_out
    assert "What ε protects here" in left_out and "(not included)" in left_out
    included = report(choice, {**values, "text": TYPED}, created="2026-01-01 12:00")
    assert included.count(MARKER) >= 3  # the words left out (not in the vocabulary), the script, the settings file
    assert "flooded" in included and f"The words ({len(choice.words)}):" in included


def test_with_the_box_ticked_the_script_holds_the_words_and_prints_the_pages_numbers(typed, tmp_path):
    at, _, files = typed
    at.checkbox(key=BOX).check().run()
    assert not at.exception
    assert MARKER.encode() in files["choose_epsilon.py"] and MARKER.encode() in files["choose_epsilon-settings.json"]
    stdout = run_script(files["choose_epsilon.py"], tmp_path, "choose_epsilon.py", timeout=600)
    assert read_numbers(stdout) == page_numbers(at)  # the same words: the same numbers
    settings, problems = SETTINGS.from_json(files["choose_epsilon-settings.json"])
    assert problems == [] and settings["text"] == TYPED


def test_an_uploaded_word_list_is_referenced_by_name_unless_included():
    base = {"source": "file", "words_file": "my words.txt"}
    left_out = script("choose_epsilon", base)
    assert "with open('my words.txt', encoding=\"utf-8\") as fh:" in left_out and MARKER not in left_out
    included = script("choose_epsilon", {**base, "text": TYPED})
    assert repr(TYPED) in included and "source='words of my words.txt'" in included
