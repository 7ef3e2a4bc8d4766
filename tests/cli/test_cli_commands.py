"""The command table: every topic's commands are in it with a help line, and `main` runs whatever
the table holds (no dispatch on names). Also the only tests of the command line that start a real
process (`run_process`): the entry point ``python -m privlib``, exit codes and a closed pipe through a
real process, and what only a fresh interpreter shows (which modules a run imports). Every other CLI
test runs in this process (tests/cli/cli_run.py)."""
import contextlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run_cli

import privlib.cli
from privlib.cli import EXIT_USAGE, Command, build_parser, commands, main
from privlib.cli import words as word_commands
from privlib.words.text import CASE_POLICIES, OOV_POLICIES

ROOT = Path(__file__).resolve().parents[2]


def run_process(*argv, code: str | None = None, env: dict | None = None, timeout: float = 300):
    """``python -m privlib ARGV`` (or ``python -c CODE ARGV``) in a real process started from the
    checkout, text output captured; ``env`` is added to this process's environment (which holds the
    tests' fixed kernel costs, tests/conftest.py)."""
    command = [sys.executable, *(("-c", code) if code is not None else ("-m", "privlib")), *map(str, argv)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, check=False)


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
    r = run_process("--help")  # the entry point itself: python -m privlib
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


# ----------------------------------------------------------------------------- through a real process


def test_a_usage_error_is_exit_code_2_and_one_line_through_a_real_process():
    r = run_process("ranks", "--word", "qwzxqwzxq", "--epsilon", "10", "--vocab-size", "5000")  # the library's error
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and "not in the vocabulary" in r.stderr
    missing = run_process("ranks", "--word", "king")  # argparse's own exit, through the interpreter
    assert missing.returncode == 2 and "required: --epsilon" in missing.stderr


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    # `privlib sanitize ... | head -1`: the pipe closes while ~1 MB of JSON Lines is still to come
    path = tmp_path / "docs.txt"
    path.write_text("Maria lives in Paris and likes the cat\n" * 400, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "privlib", "sanitize", "-i", str(path), "--epsilon", "1000",
                             "--seed", "1", "--json", "--vocab-size", "5000"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(proc.stdout.readline())
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=300)
    finally:
        proc.kill()
    assert first["text"] == "Maria lives in Paris and likes the cat"
    assert code == 0 and err == ""  # no BrokenPipeError traceback, no "Exception ignored" line


def test_an_in_process_run_imports_no_dask(tmp_path):
    # a fresh interpreter: this test process may have imported Dask for other tests
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "Maria lives in Paris."}\n' * 4, encoding="utf-8")
    code = ("import sys; from privlib.cli import main; code = main(sys.argv[1:]); "
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    r = run_process("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "5", "--seed", "1",
                    "--vocab-size", "20000", code=code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "0 []"
    assert (tmp_path / "out.jsonl").exists()


#: A refused study with --workers: which modules of Dask were imported (none: no cluster started).
REFUSED_ON_WORKERS = r'''
import json, sys
from privlib.cli import main
code = main([*sys.argv[1:], "--json"])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))]))
'''


@pytest.mark.parametrize("args", [
    ["sweep", "--words", "400000"],
    ["table2", "--words", "400000"],
    ["choose", "--words", "1000", "--samples", "100"],
])
def test_work_refused_on_local_workers_starts_no_cluster(args):
    # Before, --workers started the local cluster (N worker processes) and then refused the work.
    # A fresh interpreter, to see every module the refused run imported; the default limit.
    from privlib.cli.common import LONG_WORK_VARIABLE

    r = run_process(*args, "--workers", "2", code=REFUSED_ON_WORKERS, env={LONG_WORK_VARIABLE: ""})
    code, dask_modules = json.loads(r.stdout.strip().splitlines()[-1])
    assert code == 2 and "pass --allow-long to run it anyway" in r.stderr
    assert dask_modules == []
    # the estimate divided by the 2 workers' threads: still minutes
    assert "would take about" in r.stderr and (" min " in r.stderr or " h " in r.stderr)


#: The ε studies in this process, in the library and on the command line: which modules of Dask
#: they imported (none: Dask is imported only when a cluster is asked for).
NO_DASK = r'''
import contextlib, io, json, sys
from privlib.cli import main
from privlib.words import EmbeddingSpace
from privlib.words.choice import WordSet, choose_epsilon
from privlib.words.experiments import compare_sweeps
from privlib.words.theory.neighbour_distances import neighbour_distances

space = EmbeddingSpace.glove_6b_50d(vocab_size=2000)
compare_sweeps(space, (1, 10), 20, ("multivariate-laplace", "postprocessing-fix"), rng=0)
neighbour_distances(space, 20, rng=0)
choose_epsilon(space, WordSet.random(space, 5, 0), (1, 10), samples=10, seed=0)
with contextlib.redirect_stdout(io.StringIO()):
    for command in ("sweep", "table2", "choose"):
        assert main([command, "--vocab-size", "2000", "--words", "5", "--json"]) == 0, command
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))))
'''


def test_the_in_process_studies_do_not_import_dask():
    ran = run_process(code=NO_DASK, timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert json.loads(ran.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("command", [
    ("sweep", "--words", "300", "--epsilons", "1:30", "--mechanism", "postprocessing-fix"),  # 256 + 44 words
    ("choose", "--words", "8", "--epsilons", "1,10", "--samples", "500"),  # 2 blocks of 4 words
])
def test_cli_on_local_workers_prints_the_in_process_json(command):
    # a real process for the run on workers: Dask writes its warnings to the process's stderr
    # through logging handlers made at its import, which `run_cli` does not capture
    common = (*command, "--vocab-size", "2000", "--seed", "3", "--json")  # the blocks do not depend on it
    here = run_cli(*common)
    with socket.socket() as dashboard:  # as if another cluster ran here: Dask's default port taken
        with contextlib.suppress(OSError):  # taken already: the same situation
            dashboard.bind(("", 8787))
            dashboard.listen()
        there = run_process(*common, "--workers", "2", timeout=600)
    assert here.code == 0, here.err
    assert there.returncode == 0, there.stderr
    assert json.loads(there.stdout) == here.json()
    # nothing from Dask on stderr (e.g. no warning that its dashboard's port is taken), and no
    # progress either: the tests' fixed kernel costs estimate these runs at seconds
    assert there.stderr == ""
