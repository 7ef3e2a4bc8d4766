"""Take the Sanitise text page home (issue 24): the typed text never goes into a link, and into the
downloads only when the user ticks the box (checked with a marker string); the settings round-trip
through the link; the exported script prints the page's numbers when the text is included, and
`sanitize --settings FILE` the same numbers (the file's text, or a text given on the command line)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_take_home import open_page, page_numbers, record_downloads, run_cli, run_script

from privlib.analyses.code import read_numbers
from privlib.analyses.sanitise_text import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/sanitise_text.py"
MARKER = "Zorblax-4711"
TYPED = f"Dr {MARKER} met the patient in Paris on Monday. The bank was closed."
LINK = {"epsilon": "5.0", "mechanisms": "santext,tem", "seed": "3", "tem.beta": "0.01", "draw": "2",
        "oov": "keep", "close": "50"}
BOX = "take_home.sanitise_text.include_private"


@pytest.fixture(scope="module")
def typed(monkeypatch_module):
    """The page opened by a link, with a typed text holding `MARKER`, and every download it offered."""
    files = record_downloads(monkeypatch_module)
    at = open_page(PAGE, LINK)
    at.text_area(key="san_text").input(TYPED).run()
    assert not at.exception
    at.button(key="take_home.sanitise_text.prepare").click().run()
    return at, dict(files), files


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_link_carries_every_setting_but_the_text(typed):
    at, _, _ = typed
    query = dict(at.query_params)
    assert {name: query[name] for name in LINK} == LINK  # link → page → link unchanged
    assert "text" not in query and MARKER not in json.dumps(query)
    assert at.session_state["san_mechanisms"] == ["santext", "tem"] and at.session_state["san.tem.beta"] == 0.01


def test_a_link_never_sets_the_text():
    at = open_page(PAGE, {"text": f"{MARKER} from a link"})
    assert "A link never carries text: ignored." in [w.value for w in at.warning]
    assert MARKER not in at.session_state["san_text"]


def test_with_the_box_unticked_no_download_holds_the_typed_text(typed):
    _, offered, _ = typed
    names = {"sanitise_text-settings.json", "sanitise_text.py", "sanitise_text.ipynb", "sanitise_text-report.html"}
    assert names <= set(offered)
    for name in names:
        assert MARKER.encode() not in offered[name], name
    assert "text" not in json.loads(offered["sanitise_text-settings.json"])["settings"]
    assert b"Your text was not included" in offered["sanitise_text.py"]


def test_with_the_box_ticked_the_script_prints_the_pages_numbers(typed, tmp_path):
    at, _, files = typed
    at.checkbox(key=BOX).check().run()
    assert not at.exception
    assert MARKER.encode() in files["sanitise_text.py"] and MARKER.encode() in files["sanitise_text-settings.json"]
    stdout = run_script(files["sanitise_text.py"], tmp_path, "sanitise_text.py", timeout=600)
    assert read_numbers(stdout) == page_numbers(at)  # equal: the same calls, seeds and text
    assert len(page_numbers(at)) == 10  # two mechanisms × (three fractions, tokens, budget)
    settings, problems = SETTINGS.from_json(files["sanitise_text-settings.json"])
    assert problems == [] and settings["text"] == TYPED


def test_the_command_line_takes_the_pages_settings_file_and_prints_its_numbers(typed, tmp_path, capsys):
    at, offered, files = typed
    at.checkbox(key=BOX).check().run()  # the settings file with the typed text
    assert not at.exception
    with_text, without = tmp_path / "with-text.json", tmp_path / "without.json"
    with_text.write_bytes(files["sanitise_text-settings.json"])
    without.write_bytes(offered["sanitise_text-settings.json"])  # downloaded with the box unticked: no text
    expected = page_numbers(at)
    code, out, err = run_cli(capsys, "sanitize", "--settings", str(with_text), "--json")
    assert code == 0, err
    assert json.loads(out)["numbers"] == expected  # equal: the page's mechanisms, parameters, seed and resamples
    assert len(expected) == 10 and err == ""  # every setting of the page is an option of sanitize: no note
    code, out, err = run_cli(capsys, "sanitize", "--settings", str(without), "--json", TYPED)
    assert code == 0, err
    assert json.loads(out)["numbers"] == expected  # the text given on the command line, the file's settings
    code, out, err = run_cli(capsys, "sanitize", "--settings", str(without))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "holds no text" in err
