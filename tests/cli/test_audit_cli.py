"""The ``audit`` command (python -m privlib audit), in process (`run_cli`): the audit of any topic's
mechanism against its claim through the command line — the same numbers as the library for the
same seed, strict JSON, the text output, the refusal of long work naming --allow-long — and one-line
errors with exit code 2 on bad input, fuzzed as every command is (issue 22)."""
import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli, run_json, run_text
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE, commands
from privlib.label_dp.audit import audit_mechanism as audit_labels
from privlib.projections.audit import audit_mechanism as audit_projections

#: Small audits: label DP's RR is exact and draws fast; 2,000 releases per label.
SMALL = ("--releases", "2000", "--seed", "3")


def test_audit_is_in_the_table():
    assert "audit" in [command.name for command in commands()]


def test_json_is_the_library_result_for_the_same_seed():
    r = run_json("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1.5", *SMALL)
    expected = audit_labels("rr", epsilon=1.5, releases=2000, seed=3).to_dict()
    for key in ("epsilon", "ceiling", "claimed_epsilon", "exact_loss", "exceeds_claim", "counted", "epsilon_test"):
        assert r[key] == expected[key], key
    assert r["topic"] == "label-dp" and r["mechanism"] == "rr" and r["parameters"] == {}
    assert r["claim"]["kind"] == "label-dp" and r["exceeds_claim"] is False
    assert r["exact_loss"] == pytest.approx(1.5, rel=1e-12)  # k-ary RR's pair loss is ε


def test_gaussian_projection_reports_mu_and_its_claim():
    argv = ("audit", "--topic", "projections", "--mechanism", "dp-rp-g-opt", "--epsilon", "1", "--delta", "1e-5",
            "--param", "k=16", *SMALL)
    r = run_json(*argv)
    expected = audit_projections("dp-rp-g-opt", epsilon=1, delta=1e-5, releases=2000, seed=3, parameters={"k": 16})
    assert r["mu"] == expected.mu and r["claimed_mu"] == expected.claimed_mu and r["epsilon"] == expected.epsilon
    assert r["parameters"] == {"k": 16} and r["delta"] == 1e-5 and r["mu_test"]["statistic"] == "mu"


def test_text_output():
    out = run_text("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", *SMALL)
    assert out.startswith("Audit of rr (label-dp)")
    assert "claimed for this pair: 1;" in out and "exact privacy loss of the pair: 1" in out
    assert "verdict: within the claim" in out


def test_long_audit_is_refused_naming_allow_long():
    result = run_cli("audit", "--topic", "erm", "--mechanism", "output", "--epsilon", "1", "--seed", "0",
                     env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert result.code == EXIT_USAGE and result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "--allow-long" in lines[0] and "allow_long" not in lines[0], result.err


def test_allow_long_runs_it():
    r = run_json("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", "--releases", "200",
                 "--seed", "0", "--allow-long", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert r["releases"] == 200


@pytest.mark.parametrize("argv, fragment", [
    (("audit", "--mechanism", "rr", "--epsilon", "1"), "--topic"),
    (("audit", "--topic", "text", "--mechanism", "rr", "--epsilon", "1"), "invalid choice"),
    (("audit", "--topic", "label-dp", "--mechanism", "x" * 5000, "--epsilon", "1"), "Unknown label-dp mechanism"),
    (("audit", "--topic", "erm", "--mechanism", "non_private", "--epsilon", "1"), "no privacy guarantee"),
    (("audit", "--topic", "erm", "--mechanism", "input_asymptotic", "--epsilon", "1", "--delta", "1e-6"),
     "no privacy guarantee"),
    (("audit", "--topic", "projections", "--mechanism", "idp-signrp-rr", "--epsilon", "1"), "no privacy guarantee"),
    (("audit", "--topic", "projections", "--mechanism", "dp-oporp", "--epsilon", "1"), "delta"),
    (("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "-1"), "epsilon"),
    (("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", "--confidence", "1"), "confidence"),
    (("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", "--releases", "1"), ">= 2"),
    (("audit", "--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", "--param", "k=3"), "no parameter"),
    (("audit", "--topic", "erm", "--mechanism", "output", "--epsilon", "1", "--param", "inflate=2"), "no parameter"),
    (("audit", "--topic", "words", "--mechanism", "santext", "--epsilon", "1", "--param", "nope"), "key=value"),
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
    "audit": (("--topic", "label-dp", "--mechanism", "rr", "--epsilon", "1", "--releases", "200",
               "--confidence", "0.9", "--seed", "0"), ()),
    "audit param": (("--topic", "projections", "--mechanism", "dp-signoporp-rr", "--epsilon", "1", "--param", "k=8",
                     "--releases", "100", "--seed", "0"), ("--param", "--delta")),
    "audit delta": (("--topic", "projections", "--mechanism", "dp-rp-g-opt", "--epsilon", "1", "--delta", "1e-5",
                     "--param", "k=8", "--releases", "100", "--seed", "0"), ("--delta",)),
}
#: A fuzzed size is refused rather than run for minutes (work above 2 s: `cli_fuzz.SMALL_WORK`).
QUICK = SMALL_WORK


@pytest.mark.parametrize("name, option", list(option_cases(FUZZ_COMMANDS)))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(value=option_values())
def test_any_option_value_keeps_the_promise(name, option, value):
    """exit 0 with strict JSON, or exit 2 with one short line: never a traceback, a warning, a
    NaN/Infinity or a message repeating a long value."""
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=QUICK))


@pytest.mark.parametrize("name, option, value", list(edge_cases({"audit": FUZZ_COMMANDS["audit"]})))
def test_edge_values_keep_the_promise(name, option, value):
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=QUICK))
