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


@pytest.mark.parametrize("workers, cores, threads", [(8, 2, 2), (2, 2, 2), (1, 16, 1), (8, 16, 8)])
def test_a_local_cluster_shares_the_estimate_among_the_cores_not_the_workers(workers, cores, threads, monkeypatch):
    """sweep --workers 8 on 2 cores was estimated at 16 s and took 3 min 25 s: the local workers
    run on this machine's cores, so the estimate is divided by min(workers, cores)."""
    from types import SimpleNamespace

    import privlib.cli.words as word_commands

    monkeypatch.setattr(word_commands, "machine_cores", lambda: cores)
    assert word_commands.StudyCluster(SimpleNamespace(workers=workers, scheduler=None)).threads == threads


def test_a_local_sweep_on_more_workers_than_cores_is_refused_with_the_cores_estimate(monkeypatch):
    import privlib.cli.words as word_commands

    monkeypatch.setattr(word_commands, "machine_cores", lambda: 2)
    zero = {"PRIVLIB_LONG_WORK_SECONDS": "0"}
    lines = {}
    for workers in ("2", "8"):
        r = run_cli("sweep", "--words", "2000", "--workers", workers, "--json", env=zero)
        assert r.code == 2, r.err
        (lines[workers],) = r.err.splitlines()
    assert lines["2"] == lines["8"]  # 8 processes on 2 cores: no faster than 2
