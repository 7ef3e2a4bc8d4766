"""The command table: every topic's commands are in it with a help line, and `main` runs whatever
the table holds (no dispatch on names)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import privlib.cli
from privlib.cli import EXIT_USAGE, Command, build_parser, commands, main
from privlib.cli import words as word_commands
from privlib.words.text import CASE_POLICIES, OOV_POLICIES

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_has_a_help_line_and_help_lists_them():
    table = commands()
    names = [c.name for c in table]
    assert names[:7] == ["ranks", "sweep", "dot", "sanitize", "table2", "choose", "mechanisms"]  # word-level first
    assert len(set(names)) == len(names)
    parser = build_parser()
    for command in table:
        assert command.help.strip(), command.name
    for command in table[:7]:
        args = parser.parse_args([command.name, *_required(command.name)])
        assert args.command is command  # the parser hands back the Command itself
        assert args.json is False  # every command has --json
    r = subprocess.run([sys.executable, "-m", "privlib", "--help"], cwd=ROOT, capture_output=True, text=True, check=False,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    listing = "".join(r.stdout.split())  # argparse wraps long help lines (also after a hyphen)
    for command in table:
        assert command.name + "".join(command.help.split()) in listing, command.name


def _required(name):
    """The required arguments of each word-level command, for parsing without running."""
    return {"ranks": ["--word", "king", "--epsilon", "1"], "dot": ["--n", "5", "--epsilon", "1"],
            "sanitize": ["--epsilon", "1", "text"]}.get(name, [])


def test_sanitise_choices_are_the_library_policies(capsys):
    parser = build_parser()
    args = parser.parse_args(["sanitize", "--epsilon", "1", "text"])
    assert (args.oov, args.case) == ("redact", "match")
    for option, policies in (("--oov", OOV_POLICIES), ("--case", CASE_POLICIES)):
        for value in policies:
            assert getattr(parser.parse_args(["sanitize", "--epsilon", "1", option, value, "t"]), option[2:]) == value
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(["sanitize", "--epsilon", "1", option, "drop", "t"])
        assert exit_.value.code == EXIT_USAGE
        assert f"choose from {', '.join(map(repr, policies))}" in capsys.readouterr().err


def _echo_arguments(parser):
    parser.add_argument("text")


def _echo_run(args):
    if args.text == "bad":
        raise ValueError("bad is not allowed")
    return {"said": args.text}


def _echo_text(args, result):
    print(f"said {result['said']}")


def test_main_runs_a_command_added_to_the_table(monkeypatch, capsys):
    echo = Command("echo", "say the text back", _echo_arguments, _echo_run, _echo_text)
    monkeypatch.setattr(privlib.cli, "TOPIC_COMMANDS", (word_commands.COMMANDS, (echo,)))
    assert commands()[-1] is echo

    assert main(["echo", "hello", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"said": "hello"}
    assert main(["echo", "hello"]) == 0
    assert capsys.readouterr().out == "said hello\n"
    assert main(["echo", "bad"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "error: bad is not allowed\n"


def test_two_commands_with_one_name_are_refused(monkeypatch):
    ranks = Command("ranks", "again", _echo_arguments, _echo_run, _echo_text)
    monkeypatch.setattr(privlib.cli, "TOPIC_COMMANDS", (word_commands.COMMANDS, (ranks,)))
    with pytest.raises(RuntimeError, match="share a name"):
        build_parser()
