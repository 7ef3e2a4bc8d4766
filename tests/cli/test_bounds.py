"""The ``bounds`` command (python -m privlib bounds), in process (`run_cli`): the attack terms of a
guarantee through the command line — the spec's numbers, the same values as privlib.core.risk, the
curve in strict JSON, the text output — and one-line errors with exit code 2 on bad input, fuzzed as
every command is (issue 22)."""
import math

import pytest
from cli_fuzz import assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli, run_json, run_text
from hypothesis import HealthCheck, given, settings
from scipy import stats

from privlib.cli import EXIT_USAGE, commands
from privlib.core.risk import DPCurve, GDPCurve

KEYS = {"guarantee", "private", "prior", "posterior", "sentence", "curve_label", "advantage", "tpr_at_fpr",
        "guessing_chance", "privacy_loss", "reidentification", "delta_for_people", "curve"}


def test_bounds_is_in_the_table():
    assert "bounds" in [command.name for command in commands()]


def test_pure_epsilon_terms():
    r = run_json("bounds", "--epsilon", "1")
    assert set(r) == KEYS and r["guarantee"]["kind"] == "pure-dp"
    assert r["advantage"] == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-14)  # 0.462
    assert [p["fpr"] for p in r["tpr_at_fpr"]] == [0.01, 0.001]
    assert r["tpr_at_fpr"][0]["tpr"] == pytest.approx(0.01 * math.e, rel=1e-14)
    assert r["guessing_chance"] == pytest.approx(math.e / (math.e + 1), rel=1e-14)
    assert r["privacy_loss"] == 1.0 and r["delta_for_people"] is None
    assert r["reidentification"]["candidates"] == 10
    assert r["reidentification"]["bound"] == pytest.approx(math.e / (math.e + 9), rel=1e-14)
    assert r["sentence"] == "At ε = 1, an attacker who was 50 % sure becomes at most 73 % sure."


def test_epsilon_delta_terms_and_delta_for_people():
    r = run_json("bounds", "--epsilon", "2", "--delta", "1e-6", "--candidates", "4", "--people", "10000000",
                 "--prior", "0.2")
    curve = DPCurve(2.0, 1e-6)
    assert r["advantage"] == pytest.approx(curve.advantage, rel=1e-15)
    assert r["guessing_chance"] == pytest.approx(curve.guessing_chance(0.2), rel=1e-15)
    assert r["reidentification"]["bound"] == pytest.approx((math.exp(2) + 3e-6) / (math.exp(2) + 3), rel=1e-13)
    assert r["privacy_loss"] is None  # unbounded with δ > 0
    people = r["delta_for_people"]
    assert people["one_in"] == "1 in 1,000,000" and people["expected_people"] == pytest.approx(10.0)
    assert people["warning"] is True
    assert "at most" not in r["sentence"].split("probability at most")[0]  # never the pure-ε sentence
    assert "reveal the input outright" in r["sentence"]


def test_gdp_terms():
    r = run_json("bounds", "--mu", "1")
    assert r["guarantee"]["kind"] == "gdp"
    assert r["advantage"] == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)  # 0.383
    assert r["tpr_at_fpr"][0]["tpr"] == pytest.approx(1 - GDPCurve(1.0).fnr(0.01), rel=1e-14)
    loss = math.log(0.9 / 0.1)
    assert r["posterior"]["probability"] == pytest.approx(stats.norm.cdf(0.5 - loss), rel=1e-12)
    assert r["reidentification"]["bound"] > 0.1 and "envelope" in r["reidentification"]["method"]
    assert r["delta_for_people"] is None and r["privacy_loss"] is None


def test_the_curve_is_sampled_in_strict_json():
    curve = run_json("bounds", "--epsilon", "1", "--delta", "0.01")["curve"]
    fpr, fnr = curve["fpr"], curve["fnr"]
    assert len(fpr) == len(fnr) >= 101 and fpr[0] == 0.0 and fpr[-1] == 1.0 and fpr == sorted(fpr)
    assert fnr[0] == pytest.approx(0.99) and fnr[-1] == 0.0
    kink = 0.99 / (1 + math.e)  # the corner on the diagonal is one of the points
    assert min(abs(a - kink) for a in fpr) < 1e-15
    for a, b in zip(fpr, fnr):
        assert b == pytest.approx(float(DPCurve(1.0, 0.01).fnr(a)), abs=1e-15)


@pytest.mark.parametrize("epsilon", ["0", "700", "1e300"])
def test_extreme_epsilons_give_strict_json(epsilon):
    r = run_json("bounds", "--epsilon", epsilon, "--delta", "1e-9", "--candidates", str(2**53))
    assert 0 <= r["advantage"] <= 1 and 0 < r["reidentification"]["bound"] <= 1


def test_text_output():
    out = run_text("bounds", "--epsilon", "2")
    assert "maximal advantage" in out and "TPR at FPR" in out and "naming the right one of 10 candidates" in out
    assert "At ε = 2, an attacker who was 50 % sure becomes at most 88 % sure." in out
    assert "unbounded" in run_text("bounds", "--mu", "0.5", "--people", "100")


@pytest.mark.parametrize("argv, fragment", [
    (("bounds",), "one of the arguments --epsilon --mu is required"),
    (("bounds", "--epsilon", "1", "--mu", "1"), "not allowed with"),
    (("bounds", "--mu", "1", "--delta", "1e-5"), "--delta goes with --epsilon"),
    (("bounds", "--epsilon", "-1"), "epsilon"),
    (("bounds", "--epsilon", "1", "--delta", "1"), "delta"),
    (("bounds", "--epsilon", "1", "--prior", "1"), "prior"),
    (("bounds", "--epsilon", "1", "--candidates", "1"), ">= 2"),
    (("bounds", "--epsilon", "1", "--people", "0"), ">= 1"),
    (("bounds", "--mu", "1e7"), "mu"),
])
def test_bad_input_is_one_line_with_exit_code_2(argv, fragment):
    result = run_cli(*argv)
    assert result.code == EXIT_USAGE, result.err
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.err


# ---------------------------------------------------------------------------------------------
# Property-based: any value of any option keeps the promise (issue 22)

#: Valid, small option sets; a fuzzed value replaces one option at a time (all of them when none are named).
FUZZ_COMMANDS = {
    "bounds": (("--epsilon", "1", "--delta", "1e-6", "--prior", "0.3", "--candidates", "5", "--people", "1000"), ()),
    "bounds mu": (("--mu", "1", "--prior", "0.3", "--candidates", "5"), ("--mu",)),
}


@pytest.mark.parametrize("name, option", list(option_cases(FUZZ_COMMANDS)))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=option_values())
def test_any_option_value_keeps_the_promise(name, option, value):
    """exit 0 with strict JSON, or exit 2 with one short line: never a traceback, a warning, a
    NaN/Infinity or a message repeating a long value."""
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json"))


@pytest.mark.parametrize("name, option, value", list(edge_cases(FUZZ_COMMANDS)))
def test_edge_values_keep_the_promise(name, option, value):
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json"))
