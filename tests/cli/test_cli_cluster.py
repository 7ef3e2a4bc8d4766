"""The ε studies' cluster flags on the command line (``--scheduler``, ``--workers``), in this
process (`run_cli`): bad cluster arguments are one line and exit code 2, and the help says how the
estimate is shared. A run on local workers against the in-process JSON, and that an in-process run
imports no Dask, need a real process: tests/cli/test_cli_commands.py."""
import pytest
from cli_run import run_cli

import privlib.words.cluster as cluster_module


@pytest.mark.parametrize("command", ["sweep", "table2", "choose"])
def test_an_unreachable_scheduler_is_one_line_and_exit_code_2(command, monkeypatch):
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1)  # seconds (10 by default): the same refusal, sooner
    r = run_cli(command, "--scheduler", "tcp://127.0.0.1:1", "--words", "5", "--json")
    assert r.code == 2
    assert r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 1, r.err
    assert "Cannot reach the Dask scheduler at tcp://127.0.0.1:1" in lines[0]


def test_scheduler_and_workers_together_are_refused():
    r = run_cli("sweep", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2", "--json")
    assert r.code == 2 and len(r.err.splitlines()) == 1
    assert "not allowed with argument" in r.err  # argparse's mutually exclusive group


@pytest.mark.parametrize("command", ["sweep", "table2", "choose"])
def test_help_says_the_estimate_is_divided_by_the_worker_threads(command):
    r = run_cli(command, "--help")
    assert r.code == 0
    text = " ".join(r.out.split())
    assert "--scheduler" in text and "--workers" in text
    assert "divided by the cluster's total worker threads" in text, command
