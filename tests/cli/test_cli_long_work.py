"""Work that would take minutes: the commands estimate it first, refuse it above about a minute
unless ``--allow-long`` is given (exit code 2, one line with the estimate and the flag), and show
progress on stderr while stdout stays the result."""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from privlib.cli.common import LONG_WORK_VARIABLE, Progress, duration, long_work

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--vocab-size", "20000", "--seed", "1"]


def run(*args, env=None, timeout=600):
    """The command's completed process and how long it took (``env``: added to the environment,
    which otherwise has the default limit)."""
    environment = {k: v for k, v in os.environ.items() if k != LONG_WORK_VARIABLE} | (env or {})
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "privlib", *args], check=False, cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout, env=environment)
    return r, time.monotonic() - start


def minutes(message: str) -> float:
    """The estimate of a refusal, in minutes."""
    found = re.search(r"would take about ([\d.]+) (s|min|h) \(estimate", message)
    assert found, message
    value, unit = float(found.group(1)), found.group(2)
    return value * {"s": 1 / 60, "min": 1, "h": 60}[unit]


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("args, reduce", [
    (["ranks", "--word", "king", "--epsilon", "10", "--samples", "1000000"], "--samples"),
    (["table2", "--words", "400000"], "--words"),
    (["sweep", "--words", "400000"], "--words"),
    (["choose", "--words", "1000", "--samples", "100"], "--samples"),
])
def test_minutes_of_work_are_refused_at_once_with_the_estimate_and_the_flag(args, reduce):
    r, elapsed = run(*args, "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()  # one line
    assert line.startswith("error: ") and "pass --allow-long to run it anyway" in line and reduce in line
    assert minutes(line) >= 2  # each of these takes minutes to hours even on a fast machine
    # no work ran: starting Python, loading GloVe and timing a few small blocks take a few seconds
    # (measured 2-3 s; more on a loaded machine), the work itself many minutes
    assert elapsed < 20, elapsed


def test_a_bad_limit_is_one_line_and_exit_code_2():
    r, _ = run("table2", "--words", "10", *SMALL, env={LONG_WORK_VARIABLE: "soon"})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and LONG_WORK_VARIABLE in r.stderr


# ----------------------------------------------------------------------------- forced: a small run over a zero limit
FORCED = [
    ["ranks", "--word", "king", "--epsilon", "10", "--samples", "300", *SMALL],
    ["sweep", "--words", "20", "--epsilons", "1,10", *SMALL],
    ["table2", "--words", "50", *SMALL],
    ["choose", "--words", "4", "--samples", "10", "--epsilons", "1,10", *SMALL],
]


@pytest.mark.parametrize("args", FORCED, ids=lambda a: a[0])
def test_over_the_limit_it_refuses_and_with_the_flag_it_runs_with_progress_on_stderr(args):
    zero = {LONG_WORK_VARIABLE: "0"}
    refused, _ = run(*args, "--json", env=zero)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "--allow-long" in refused.stderr

    forced, _ = run(*args, "--json", "--allow-long", env=zero)
    assert forced.returncode == 0, forced.stderr
    lines = forced.stderr.splitlines()
    assert lines and all(line.startswith("progress ") for line in lines), forced.stderr
    assert "100.0%" in lines[-1] and "took" in lines[-1]
    # stdout is the result alone, the same as without a limit (quick: no progress off a terminal)
    plain, _ = run(*args, "--json")
    assert plain.returncode == 0 and plain.stderr == ""
    assert json.loads(forced.stdout) == json.loads(plain.stdout)


def test_allow_long_is_accepted_under_the_limit_too():
    r, _ = run("table2", "--words", "20", "--allow-long", "--json", *SMALL)
    assert r.returncode == 0 and json.loads(r.stdout)["words"] == 20 and r.stderr == ""


# ----------------------------------------------------------------------------- the helper and the progress display


def test_long_work_refuses_above_the_limit_and_otherwise_hands_out_progress(monkeypatch, capsys):
    monkeypatch.delenv(LONG_WORK_VARIABLE, raising=False)
    quick, slow = argparse.Namespace(allow_long=False), argparse.Namespace(allow_long=True)
    with pytest.raises(ValueError) as refused:
        long_work(quick, "ranks", 1000.0, "--samples")
    assert str(refused.value) == ("ranks would take about 17 min (estimate, limit 60 s); pass --allow-long to run "
                                  "it anyway, or reduce --samples.")
    assert capsys.readouterr().err == ""
    assert long_work(quick, "ranks", 2.0, "--samples") is None  # quick, and stderr is not a terminal
    assert capsys.readouterr().err == ""
    assert isinstance(long_work(quick, "ranks", 30.0, "--samples"), Progress)  # long enough for lines
    assert isinstance(long_work(slow, "ranks", 1000.0, "--samples"), Progress)
    monkeypatch.setenv(LONG_WORK_VARIABLE, "inf")
    assert isinstance(long_work(quick, "ranks", 1e9, "--samples"), Progress)
    shown = capsys.readouterr().err.splitlines()  # each starts with its estimate
    assert [line.split("  ")[-1] for line in shown] == [
        "ranks: about 30 s (estimate)", "ranks: about 17 min (estimate)", "ranks: about 277777.8 h (estimate)"]


def test_durations():
    assert [duration(s) for s in (5, 89, 90, 600, 7199, 7200, 36000)] == [
        "5 s", "89 s", "2 min", "10 min", "120 min", "2.0 h", "10.0 h"]


def test_progress_lines_are_throttled_and_show_the_time_left():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(estimate=100, terminal=False, stream=stream, timer=lambda: now[0])
    progress(0.0, "starting")  # the first report is always shown: time left from the estimate
    now[0] = 5.0
    progress(0.1, "hidden")  # within LINE_SECONDS of the last line
    now[0] = 12.0
    progress(0.2, "shown")  # 12 s for 20 %: 48 s left
    now[0] = 13.0
    progress(1.0, "finished")
    progress(1.0, "once only")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3, lines
    assert "~1:40 left" in lines[0] and "starting" in lines[0]
    assert "20.0%" in lines[1] and "0:48 left" in lines[1]
    assert "100.0%" in lines[2] and "took 0:13" in lines[2] and "finished" in lines[2]


def test_progress_bar_on_a_terminal_redraws_in_place_a_few_times_a_second():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(terminal=True, stream=stream, timer=lambda: now[0])
    for i in range(1, 101):  # 100 reports in 1 s
        now[0] = i / 100
        progress(i / 100, f"step {i}")
    text = stream.getvalue()
    assert text.count("\r") <= 1 + Progress.REDRAWS_PER_SECOND + 1
    assert text.endswith("\n") and text.count("\n") == 1
    assert "[" + "#" * Progress.WIDTH + "]" in text and "100.0%" in text


# ----------------------------------------------------------------------------- accuracy of the estimate


@pytest.mark.slow
@pytest.mark.parametrize("workload", ["ranks", "sweep", "table2", "choose"])
def test_the_estimate_is_within_a_factor_of_3_of_the_time_taken(glove, workload):
    from privlib.words.choice import WordSet, mechanism_metrics
    from privlib.words.cost import (
        epsilon_sweep_seconds,
        mechanism_metrics_seconds,
        neighbour_distances_seconds,
        rank_experiment_seconds,
    )
    from privlib.words.experiments import epsilon_sweep, rank_experiment
    from privlib.words.mechanisms import MultivariateLaplace
    from privlib.words.theory.neighbour_distances import neighbour_distances

    laplace, grid = MultivariateLaplace(), np.arange(1.0, 11.0)
    words = WordSet.random(glove, 10, 0)
    estimate, work = {
        "ranks": (lambda: rank_experiment_seconds(glove, "king", 10.0, 5000, laplace),
                  lambda: rank_experiment(glove, "king", 10.0, 5000, laplace, rng=0)),
        "sweep": (lambda: epsilon_sweep_seconds(glove, grid, 200, laplace),
                  lambda: epsilon_sweep(glove, grid, 200, laplace, rng=0)),
        "table2": (lambda: neighbour_distances_seconds(glove, 1500),
                   lambda: neighbour_distances(glove, 1500, rng=0)),
        "choose": (lambda: mechanism_metrics_seconds(glove, words, grid, laplace, 50),
                   lambda: mechanism_metrics(glove, words, grid, laplace, 50, rng=0)),
    }[workload]
    start = time.perf_counter()
    seconds = estimate()
    calibration = time.perf_counter() - start
    start = time.perf_counter()
    work()
    taken = time.perf_counter() - start
    print(f"{workload}: estimate {seconds:.2f} s, took {taken:.2f} s, calibration {calibration:.2f} s")
    assert taken / 3 <= seconds <= 3 * taken, (seconds, taken)
    assert calibration < 3  # a few small blocks, not the work


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
    environment = {k: v for k, v in os.environ.items() if k != LONG_WORK_VARIABLE}
    r = subprocess.run([sys.executable, "-c", REFUSED_ON_WORKERS, *args, "--workers", "2"], check=False, cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env=environment)
    code, dask_modules = json.loads(r.stdout.strip().splitlines()[-1])
    assert code == 2 and "pass --allow-long to run it anyway" in r.stderr
    assert minutes(r.stderr) >= 1  # the estimate divided by the 2 workers' threads: still minutes
    assert dask_modules == []
