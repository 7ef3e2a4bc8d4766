"""Work that would take minutes: the commands estimate it first, refuse it above about a minute
unless ``--allow-long`` is given (exit code 2, one line with the estimate and the flag), and show
progress on stderr while stdout stays the result."""
import argparse
import io
import re

import pytest
from cli_run import run_cli

from privlib.cli import words as word_commands
from privlib.cli.common import LONG_WORK_VARIABLE, Progress, duration, long_work
from privlib.words import cost

SMALL = ["--vocab-size", "20000", "--seed", "1"]
#: The library calls that do the work of the word-level commands (the estimate comes before them).
WORKLOADS = ("rank_experiment", "epsilon_sweep", "neighbour_distances", "choose_epsilon")


@pytest.fixture(autouse=True)
def default_limit(monkeypatch):
    """The default limit (`LONG_WORK_SECONDS`): no limit set in the environment."""
    monkeypatch.delenv(LONG_WORK_VARIABLE, raising=False)


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
def test_minutes_of_work_are_refused_at_once_with_the_estimate_and_the_flag(args, reduce, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the work started: a refusal must come before it")

    for name in WORKLOADS:
        monkeypatch.setattr(word_commands, name, no_work)
    r = run_cli(*args, "--json")
    assert r.code == 2
    assert r.out == ""
    (line,) = r.err.splitlines()  # one line
    assert line.startswith("error: ") and "pass --allow-long to run it anyway" in line and reduce in line
    assert minutes(line) >= 2  # each of these takes minutes to hours even on a fast machine


def test_a_bad_limit_is_one_line_and_exit_code_2():
    r = run_cli("table2", "--words", "10", *SMALL, env={LONG_WORK_VARIABLE: "soon"})
    assert r.code == 2 and r.out == ""
    assert r.err.count("\n") == 1 and LONG_WORK_VARIABLE in r.err


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
    refused = run_cli(*args, "--json", env=zero)
    assert refused.code == 2 and refused.out == ""
    assert refused.err.count("\n") == 1 and "--allow-long" in refused.err

    forced = run_cli(*args, "--json", "--allow-long", env=zero)
    assert forced.code == 0, forced.err
    lines = forced.err.splitlines()
    assert lines and all(line.startswith("progress ") for line in lines), forced.err
    assert "100.0%" in lines[-1] and "took" in lines[-1]
    # stdout is the result alone, the same as without a limit (quick: no progress off a terminal)
    plain = run_cli(*args, "--json")
    assert plain.code == 0 and plain.err == ""
    assert forced.json() == plain.json()


def test_allow_long_is_accepted_under_the_limit_too():
    r = run_cli("table2", "--words", "20", "--allow-long", "--json", *SMALL)
    assert r.code == 0 and r.json()["words"] == 20 and r.err == ""


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


# ----------------------------------------------------------------------------- fixed kernel costs (no timing)


def test_fixed_kernel_costs_give_exact_estimates_and_time_nothing(glove_small, monkeypatch):
    from privlib.words.mechanisms import MultivariateLaplace

    def no_timing(*args, **kwargs):
        raise AssertionError("a kernel was timed")

    monkeypatch.setattr(cost, "per_unit_seconds", no_timing)
    monkeypatch.setenv(cost.KERNEL_NANOSECONDS_VARIABLE, "3")
    n = len(glove_small)  # 20,000 words: c * 1e-9 s per unit per word
    laplace = MultivariateLaplace.family()
    assert cost.rank_experiment_seconds(glove_small, "king", 10.0, 500, laplace) == pytest.approx(500 * 3e-9 * n)
    assert cost.neighbour_distances_seconds(glove_small, 40) == pytest.approx(40 * 3e-9 * n)
    # a sweep: words x epsilons outputs, then each word's outputs ranked (a partition: also N)
    assert cost.epsilon_sweep_seconds(glove_small, [1.0, 5.0, 10.0], 7, laplace) == pytest.approx(
        7 * 3 * 3e-9 * n + 7 * 3e-9 * n)
    monkeypatch.setenv(cost.KERNEL_NANOSECONDS_VARIABLE, "0")
    assert cost.neighbour_distances_seconds(glove_small, 40) == 0.0
    for bad in ("fast", "-1", "nan", "inf"):
        monkeypatch.setenv(cost.KERNEL_NANOSECONDS_VARIABLE, bad)
        with pytest.raises(ValueError, match=cost.KERNEL_NANOSECONDS_VARIABLE):
            cost.neighbour_distances_seconds(glove_small, 40)


def test_the_tests_fix_the_kernel_costs():
    # tests/conftest.py spells the variable out: it must be the cost model's, and set for this run
    import os

    from conftest import KERNEL_NANOSECONDS_VARIABLE, TEST_KERNEL_NANOSECONDS

    assert KERNEL_NANOSECONDS_VARIABLE == cost.KERNEL_NANOSECONDS_VARIABLE
    assert os.environ[cost.KERNEL_NANOSECONDS_VARIABLE] == TEST_KERNEL_NANOSECONDS


def test_a_bad_kernel_cost_is_one_line_and_exit_code_2():
    r = run_cli("table2", "--words", "10", *SMALL, env={cost.KERNEL_NANOSECONDS_VARIABLE: "fast"})
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1
    assert cost.KERNEL_NANOSECONDS_VARIABLE in r.err
