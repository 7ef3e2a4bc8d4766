"""Every `python -m privlib` command line of README.md runs as written (issue 22): exit 0, and
strict JSON where it asks for --json. The README's input files (notes.txt, words.txt,
notes.jsonl, notes.parquet, a page's settings file) are made in a temporary folder that is the working directory; a
``> FILE`` redirection writes stdout there; ``$SECRET_SEED`` is a number. Only the command that
names a placeholder host (``tcp://HOST:8786``) cannot run anywhere, and is checked to be that one."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from cli_run import run_cli

README = Path(__file__).resolve().parents[2] / "README.md"
NOTES = "Maria lives at 789 Oak Drive.\nThe patient was seen in Paris on Monday.\n"
WORDS = "king\nqueen\nriver\nbank\nmoney\n"
#: The README's commands that talk to a cluster at a placeholder address.
PLACEHOLDER = "tcp://HOST:8786"


def readme_commands() -> list[str]:
    """The `python -m privlib` lines of the README's bash blocks, continuation lines joined and
    comments dropped."""
    commands, in_bash, pending = [], False, ""
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_bash = line.strip() == "```bash"
            continue
        if not in_bash:
            continue
        text = pending + line.split(" # ")[0].rstrip() if pending else line.split(" # ")[0].rstrip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        if text.startswith("python -m privlib "):
            commands.append(" ".join(text.split()))
    return commands


COMMANDS = readme_commands()
RUNNABLE = [c for c in COMMANDS if PLACEHOLDER not in c]


def test_the_readme_has_commands_of_every_topic_and_one_placeholder_only():
    names = {shlex.split(c)[3] for c in COMMANDS}
    assert {"ranks", "sweep", "sanitize", "choose", "rp-sweep", "retrain", "erm-sweep", "sanitize-corpus"} <= names
    assert [c for c in COMMANDS if c not in RUNNABLE] == [c for c in COMMANDS if "--scheduler" in c]
    assert len(RUNNABLE) >= 20


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    import pyarrow
    import pyarrow.parquet as pq

    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    (tmp_path / "words.txt").write_text(WORDS, encoding="utf-8")
    rows = [{"id": i, "text": t} for i, t in enumerate(NOTES.splitlines())]
    (tmp_path / "notes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pq.write_table(pyarrow.Table.from_pylist(rows), tmp_path / "notes.parquet")
    from privlib.analyses import PAGES, analysis

    for page in PAGES:  # the files the pages download, named as they name them (what was typed included)
        settings = analysis(page).SETTINGS
        (tmp_path / f"{page}-settings.json").write_text(settings.to_json({"epsilon": 5.0} if page == "noisy_dot_product"
                                                                         else {}, include_private=True),
                                                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("command", RUNNABLE, ids=lambda c: " ".join(shlex.split(c)[3:6]))
def test_a_readme_command_runs_as_written(inputs, command):
    command = command.replace('"$SECRET_SEED"', "12345")
    words = shlex.split(command)[3:]
    target = None
    if ">" in words:
        at = words.index(">")
        words, target = words[:at], words[at + 1]
    result = run_cli(*words, env={"PRIVLIB_LONG_WORK_SECONDS": "inf"})
    assert result.code == 0, result.err[-1000:]
    assert not result.warnings, result.warnings
    if target is not None:
        (inputs / target).write_text(result.out, encoding="utf-8")
    if "--json" in words:
        lines = [line for line in result.out.splitlines() if line.strip()]
        if "-i" in words:  # JSON Lines, one object per document
            assert len(lines) == len(NOTES.splitlines())
            for line in lines:
                json.loads(line, parse_constant=_no_constant)
        else:
            json.loads(result.out, parse_constant=_no_constant)


def _no_constant(name):
    raise ValueError(f"{name} in strict JSON")


def test_the_readme_sanitize_example_shows_what_sanitising_does():
    """The README's first sanitize line must change the text (at ε = 10 every word of the example
    came back unchanged, which looked like a no-op)."""
    line = next(c for c in RUNNABLE if re.search(r"sanitize --epsilon \S+ --seed 1 \"Maria", c))
    words = shlex.split(line)[3:]
    result = run_cli(*words)
    assert result.code == 0, result.err
    assert result.out.strip() != "Maria lives at 789 Oak Drive."
