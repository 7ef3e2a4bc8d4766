"""The private-learning commands (python -m privlib erm-calibrate, agm, erm-sweep), run in-process
(`run_cli`): the JSON is the library's result (checked against the reference values), the shared flags
(--epsilons grid, --repeats/--trials, --delta), the long-work refusal, the text output, and one-line
errors with exit code 2 on bad input."""
import json
import math

import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, option_values
from cli_run import run_cli, run_json, run_text
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE
from privlib.cli import erm as erm_commands
from privlib.core.calibration import analytic_gaussian_epsilon
from privlib.erm import datasets, mechanisms
from privlib.erm import sweep as erm_sweep_module
from privlib.erm.calibration import calibrate
from privlib.erm.sweep import SweepTiming, n_sweep, sweep, sweep_to_dict


def roundtrip(value):
    """What the library's dictionary looks like after JSON (tuples become lists, etc.)."""
    return json.loads(json.dumps(value))


def test_every_command_is_in_the_table_and_the_choices_match_the_library():
    from privlib.cli import commands

    names = [c.name for c in commands()]
    assert [c.name for c in erm_commands.COMMANDS] == ["erm-calibrate", "agm", "erm-sweep", "erm-attack"]
    for command in erm_commands.COMMANDS:
        assert command.name in names and command.help.strip()
    assert erm_commands.DATASET_CHOICES == datasets.DATASETS
    assert erm_commands.METHOD_CHOICES == mechanisms.METHODS


@pytest.mark.parametrize("n, epsilon, delta, sigma_a, sigma_b, r, s, G, eps_model, mu, eps_L", [
    (1000, "1", "1e-5", 0.11292974, 5.0332578, 7.59495, 23.2638, 14.8616, 0.9055, 17.73, 231.85),
    (10_000, "1", "1e-5", 0.01745521, 0.9703763, 7.59495, 91.7604, 9.06057, 0.9055, 114.65, 7060.7),
    (100_000, "0.5", "1e-6", 0.0068597695, 0.61493158, 8.01579, 307.587, 8.43989, 0.4731, 291.6, 43908.5)])
def test_erm_calibrate_is_the_library_calibration_and_matches_the_reference_table(
        n, epsilon, delta, sigma_a, sigma_b, r, s, G, eps_model, mu, eps_L):
    result = run_json("erm-calibrate", "--epsilon", epsilon, "--delta", delta, "--n", str(n),
                      "--d", "10", "--R", "1", "--A", "1", "--B", "2")
    assert result == roundtrip(calibrate(float(epsilon), float(delta), n, 10, R=1.0, A=1.0, B=2.0).to_dict())
    assert set(result) == {"obj_gauss", "input", "local", "output"}
    assert set(result["obj_gauss"]) >= {"Delta", "beta", "zeta_s"}
    assert set(result["input"]) >= {"valid", "sigma_a", "sigma_b", "r", "s", "G", "epsilon_model",
                                    "epsilon_jacobian", "epsilon_noise"}
    assert set(result["local"]) >= {"mu", "epsilon_L", "epsilon_L_classic"}
    assert set(result["output"]) >= {"Lambda", "mean_radius"}
    inp, local = result["input"], result["local"]
    assert inp["valid"] and inp["sigma_a"] == pytest.approx(sigma_a, rel=1e-7)
    assert inp["sigma_b"] == pytest.approx(sigma_b, rel=1e-7)
    assert (inp["r"], inp["s"], inp["G"]) == (pytest.approx(r, abs=5e-5), pytest.approx(s, abs=5e-4),
                                              pytest.approx(G, abs=5e-5))
    assert inp["epsilon_model"] == pytest.approx(eps_model, abs=5e-5)
    assert local["mu"] == pytest.approx(mu, abs=0.05) and local["epsilon_L"] == pytest.approx(eps_L, abs=0.1)
    assert local["epsilon_L_classic"] < local["epsilon_L"] and not local["classic_valid"]


def test_erm_calibrate_kst12_output_inflation_and_the_invalid_case():
    r = run_json("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000")
    assert r["obj_gauss"]["Delta"] == pytest.approx(4.0) and r["obj_gauss"]["zeta_s"] == pytest.approx(8.0)
    assert r["obj_gauss"]["beta"] ** 2 == pytest.approx(4 * 1626.377299, rel=1e-9)  # replace-one: ×4
    assert r["input"]["epsilon_jacobian"] == pytest.approx(math.log(1.5), abs=1e-9)
    assert r["input"]["epsilon_noise"] == pytest.approx(0.5, abs=1e-9)
    r = run_json("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1e4", "--inflate", "100")
    assert r["input"]["epsilon_model"] == pytest.approx(0.1228, abs=5e-5)
    assert r["local"]["epsilon_L"] == pytest.approx(113.78, abs=0.01)
    r = run_json("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "353")
    assert not r["input"]["valid"] and r["input"]["sigma_a"] is None and r["local"] is None
    assert "1.0856" in r["input"]["reason"]
    r = run_json("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "353", "--route", "asymptotic")
    assert r == roundtrip(calibrate(1.0, 1e-5, 353, 10, route="asymptotic").to_dict())
    assert r["input"]["valid"] and not r["input"]["guaranteed"]
    out = run_text("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000")
    assert "sigma_a = 0.11292974" in out and "231.852" in out and "invalid for epsilon >= 1" in out
    assert "(ε, δ)-DP, replace-one — the project's proof sketch (beyond the paper)" in out
    out = run_text("erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "353")
    assert "invalid: The safe input calibration is invalid at n = 353" in out and "ε > 1.0856" in out


@pytest.mark.parametrize("mu, delta, epsilon", [
    ("0.5", "1e-5", 1.9930914044), ("1", "1e-5", 4.3771780957), ("2", "1e-5", 9.9972561464),
    ("10", "1e-6", 96.7172719639), ("50", "1e-5", 1462.2850159648)])
def test_agm_reference_values(mu, delta, epsilon):
    result = run_json("agm", "--mu", mu, "--delta", delta)
    assert result["epsilon"] == pytest.approx(epsilon, abs=5e-10)
    assert result["epsilon"] == analytic_gaussian_epsilon(float(mu), float(delta))
    assert f"epsilon = {result['epsilon']:.10g}" in run_text("agm", "--mu", mu, "--delta", delta)


def test_erm_sweep_over_n_is_the_library_sweep():
    argv = ["erm-sweep", "--dataset", "synthetic", "--epsilon", "1", "--delta", "1e-6", "--n", "300", "2000",
            "--trials", "3", "--seed", "5", "--methods", "non_private", "obj_gauss", "input_safe"]
    result = run_json(*argv)
    expected = sweep_to_dict(n_sweep("synthetic", ("non_private", "obj_gauss", "input_safe"), (300, 2000), epsilon=1.0,
                                     delta=1e-6, repeats=3, seed=5))
    assert result == roundtrip(expected)
    first, second = result["points"]
    assert (first["n"], second["n"]) == (300, 2000)
    assert set(second["methods"]["obj_gauss"]) >= {"rmse_mean", "rmse_sd", "excess_risk_mean"}
    assert not first["methods"]["input_safe"]["valid"] and first["methods"]["input_safe"]["rmse_mean"] is None
    assert 0.09 < second["methods"]["non_private"]["rmse_mean"] < 0.11
    assert run_json(*[a if a != "--trials" else "--repeats" for a in argv]) == result  # the new name, same run
    out = run_text(*argv)
    assert "n = 300" in out and "input_safe         invalid" in out and "excess risk" in out


def test_erm_sweep_over_epsilon_for_diabetes_and_classification_on_census():
    result = run_json("erm-sweep", "--dataset", "diabetes", "--epsilons", "1", "30", "--delta", "1e-5",
                      "--trials", "2", "--methods", "obj_gauss", "input_safe")
    expected = sweep_to_dict(sweep("diabetes", ("obj_gauss", "input_safe"), (1.0, 30.0), delta=1e-5, repeats=2,
                                   seed=0))
    assert result == roundtrip(expected)
    # one grid syntax: the comma list and the old space-separated words are the same sweep
    assert run_json("erm-sweep", "--dataset", "diabetes", "--epsilons", "1,30", "--delta", "1e-5", "--repeats", "2",
                    "--methods", "obj_gauss", "input_safe") == result
    assert result["axis"] == "epsilon" and result["n"] == 354
    assert [p["epsilon"] for p in result["points"]] == [1.0, 30.0]
    assert not result["points"][0]["methods"]["input_safe"]["valid"]  # needs ε > 1.16 at n = 354
    result = run_json("erm-sweep", "--dataset", "census2000", "--task", "classification", "--epsilon", "2",
                      "--n", "5000", "--trials", "2", "--methods", "non_private", "output")
    assert result["metric"] == "accuracy" and result["d"] == 4
    assert set(result["points"][0]["methods"]["output"]) >= {"accuracy_mean", "accuracy_sd", "excess_risk_mean"}


def one_line_error(argv) -> str:
    result = run_cli(*argv)
    assert result.code == EXIT_USAGE and result.out == ""
    return result.err


@pytest.mark.parametrize("argv", [
    ["erm-calibrate", "--epsilon", "-1", "--delta", "1e-5", "--n", "1000"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "2", "--n", "1000"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "0"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "12.5"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--R", "0"],
    ["agm", "--mu", "0", "--delta", "1e-5"],
    ["erm-sweep", "--dataset", "mnist", "--epsilon", "1", "--n", "1000"],
    ["erm-sweep", "--epsilon", "1", "--n", "1000", "--methods", "laplace"],
    ["erm-sweep", "--epsilon", "nan", "--n", "1000"],
    ["erm-sweep", "--epsilon", "1", "--n", "1000", "--trials", "0"],
    ["erm-sweep", "--dataset", "diabetes", "--epsilons", "5:1"],
])
def test_argparse_rejects_bad_input_with_one_line(argv):
    err = one_line_error(argv)
    assert err.count("\n") == 1 and "error" in err


@pytest.mark.parametrize("argv, message", [
    (["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--d", "0"], "d (the dimension"),
    (["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--inflate", "0.5"], "inflate"),
    (["erm-sweep", "--dataset", "diabetes", "--epsilon", "1", "--n", "300"], "use --epsilons"),
    (["erm-sweep", "--epsilon", "1", "--epsilons", "1", "2", "--n", "1000"], "not both"),
    (["erm-sweep", "--n", "1000"], "--epsilon is required"),
    (["erm-sweep", "--epsilon", "1"], "--n is required"),
    (["erm-sweep", "--dataset", "census2000", "--epsilon", "1", "--n", "100000"], "24,000"),
])
def test_library_errors_are_one_line_with_exit_code_2(argv, message):
    result = run_cli(*argv)
    assert result.code == EXIT_USAGE and result.out == ""
    err = result.err
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_errors_with_json_print_nothing_on_stdout():
    for argv in (["erm-calibrate", "--epsilon", "-1", "--delta", "1e-5", "--n", "10"],
                 ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--d", "0", "--json"]):
        result = run_cli(*argv)
        assert result.code == 2 and result.out == ""
        assert result.err.count("\n") == 1, result.err


@pytest.fixture
def pace(monkeypatch):
    """A fixed pace (100 ns a record, 10 ms a data set-up, 1 ms a fit), so that the estimate does not depend on
    the machine's load."""
    timing = SweepTiming(per_record=1e-7, per_repeat=0.01, per_fit=1e-3)
    monkeypatch.setattr(erm_sweep_module, "measured_timing", lambda dataset="synthetic", d=10: timing)
    return timing


def test_long_sweeps_are_refused_without_allow_long(pace, monkeypatch):
    monkeypatch.delenv("PRIVLIB_LONG_WORK_SECONDS", raising=False)
    argv = ["erm-sweep", "--epsilon", "1", "--n", "4000000", "--trials", "1000"]
    result = run_cli(*argv)
    seconds = erm_sweep_module.estimate_seconds("synthetic", (4_000_000,), 1, 5, 1000, timing=pace)
    assert seconds > 60
    assert result.code == EXIT_USAGE and result.out == "" and result.err.count("\n") == 1
    assert "erm-sweep would take about" in result.err and "--allow-long" in result.err and "--repeats" in result.err
    # a limit above the estimate lets the same command through to the library (which is not run here: a
    # smaller sweep shows that the estimate is the only gate, and that progress goes to stderr)
    small = ["erm-sweep", "--epsilon", "1", "--n", "1000", "--trials", "2", "--methods", "non_private"]
    refused = run_cli(*small, env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert refused.code == EXIT_USAGE and "would take about" in refused.err
    allowed = run_cli(*small, "--allow-long", "--json", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert allowed.code == 0 and allowed.json()["trials"] == 2
    assert "erm-sweep: about" in allowed.err  # the estimate, then the progress, on stderr


# ---------------------------------------------------------------------------------------------
# bad input (issue 22): every option fed arbitrary numbers and text keeps the CLI's promise


#: Each command with SMALL valid options (a run takes well under a second); the fuzzed option replaces one.
FUZZ_BASE = {
    "erm-calibrate": {"--epsilon": "1", "--delta": "1e-5", "--n": "1000", "--d": "3", "--R": "1", "--A": "1",
                      "--B": "2", "--inflate": "1", "--route": "safe"},
    "agm": {"--mu": "1", "--delta": "1e-5"},
    "erm-sweep": {"--epsilon": "1", "--delta": "1e-6", "--n": "300", "--repeats": "1", "--seed": "0", "--d": "3",
                  "--R": "1", "--inflate": "1", "--dataset": "synthetic", "--task": "regression",
                  "--methods": "non_private"},
}
#: The options whose parsing lives in privlib/cli/common.py (shared by every topic): fuzzed in the same way.
FUZZ_CASES = [(command, option) for command, options in FUZZ_BASE.items() for option in options] + [
    ("erm-sweep", "--epsilons")]


def fuzzed_argv(command: str, option: str, value: str) -> list[str]:
    options = dict(FUZZ_BASE[command])
    if option == "--epsilons":  # a sweep over ε replaces --epsilon and takes at most one --n
        del options["--epsilon"]
    options[option] = value
    # "--opt=value": a value starting with "-" is still the option's value, as a user would quote it
    return [command, *(f"{key}={val}" for key, val in options.items()), "--json"]


@pytest.mark.parametrize("command, option", FUZZ_CASES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(value=option_values())
def test_every_option_keeps_the_promise_on_arbitrary_values(command, option, value):
    # a fuzzed size is refused rather than run for minutes (work above 2 s: cli_fuzz.SMALL_WORK)
    assert_kept_promise(run_cli(*fuzzed_argv(command, option, value), env=SMALL_WORK))


@pytest.mark.parametrize("epsilon", ["1e-300", "1e-200", "1e-100", "1e100", "1e200", "1e300"])
@pytest.mark.parametrize("route", ["safe", "asymptotic"])
def test_erm_calibrate_at_extreme_epsilon_is_a_result_or_one_clear_line(epsilon, route):
    """ε at the ends of the accepted range: an OverflowError, ZeroDivisionError or SciPy's solver text
    before (issue 22); now strict JSON or one line that names what to change."""
    result = run_cli("erm-calibrate", "--epsilon", epsilon, "--delta", "1e-5", "--n", "1000", "--route", route,
                     "--json")
    assert_kept_promise(result)
    if result.code:
        assert "solver" not in result.err and "math domain" not in result.err and "epsilon" in result.err.lower() \
            or "ε" in result.err


@pytest.mark.parametrize("argv", [
    # each broke the promise before (a traceback, a RuntimeWarning, a solver's text or a 300-digit number)
    ["erm-sweep", "--epsilon", "1e-300", "--n", "300", "--repeats", "1", "--d", "3", "--methods", "obj_gauss"],
    ["erm-sweep", "--epsilons", "1e-300", "--repeats", "1", "--d", "3", "--methods", "obj_gauss"],
    ["erm-sweep", "--epsilon", "1", "--n", "300", "--repeats", "1", "--d", "3", "--R", "1e-300"],
    ["erm-sweep", "--epsilon", "1", "--n", "300", "--repeats", "1", "--d", "3", "--inflate", "1e308"],
    ["erm-sweep", "--epsilon", "1", "--n", "1e308", "--repeats", "1", "--d", "3"],
    ["erm-sweep", "--epsilon", "1", "--n", "300", "--repeats", "35267", "--d", "3"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-308", "--n", "1000"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1e100"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--inflate", "1e308"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--R", "3.35e153"],
    ["agm", "--mu", "5e-324", "--delta", "1e-5"],
    ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--d", "9" * 401],
    ["erm-sweep", "--epsilon", "1", "--n", "300", "--repeats", "1", "--d", "9" * 401],
])
def test_extremes_found_by_fuzzing_keep_the_promise(argv):
    result = run_cli(*argv, "--json")
    assert_kept_promise(result)
    assert "solver" not in result.err and len(result.err) < 300


def test_tiny_epsilon_says_how_many_records_the_safe_route_needs():
    result = run_cli("erm-calibrate", "--epsilon", "1e-300", "--delta", "1e-5", "--n", "1000", "--json")
    assert result.code == EXIT_USAGE and "more than 1e300 records" in result.err
    assert calibrate(1e-12, 1e-5, 1000, 3).input.min_n > 10**12  # large, exact as far as float64 goes


def test_long_values_are_cut_in_messages():
    for argv in (["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "x" * 10_000],
                 ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "10", "--d", "y" * 10_000],
                 ["erm-sweep", "--epsilon", "1", "--n", "300", "--dataset", "z" * 10_000],
                 ["erm-sweep", "--epsilon", "1", "--n", "300", "--methods", "w" * 10_000]):
        result = run_cli(*argv)
        assert result.code == EXIT_USAGE and result.err.count("\n") == 1 and len(result.err) < 300, result.err[:400]


def test_sweeps_that_need_more_memory_than_there_is_are_refused_even_with_allow_long():
    argv = ["erm-sweep", "--epsilon", "1", "--n", "300", "--repeats", "1", "--d", "1000", "--methods", "non_private",
            "--allow-long"]
    needed = erm_sweep_module.memory_bytes("synthetic", (300,), 1, 1, 1, 1000)
    assert needed > 2**28  # the test set and the chunks of 1,001 columns: over 256 MiB
    result = run_cli(*argv, env={"PRIVLIB_AVAILABLE_MEMORY_BYTES": str(2**28)})
    assert result.code == EXIT_USAGE and "MiB of memory" in result.err and "--d" in result.err
    # with the same memory a smaller d fits, and runs
    small = run_cli(*argv[:8], "3", *argv[9:], "--json", env={"PRIVLIB_AVAILABLE_MEMORY_BYTES": str(2**28)})
    assert small.code == 0, small.err


def test_text_output_carries_the_asymptotic_caveat_only_when_that_route_is_shown():
    out = run_text("erm-sweep", "--epsilon", "2", "--n", "1000", "--trials", "1", "--d", "3",
                   "--methods", "non_private", "input_asymptotic")
    assert erm_commands.ASYMPTOTIC_NOTE in out and "NO guarantee" in out
    out = run_text("erm-sweep", "--epsilon", "2", "--n", "1000", "--trials", "1", "--d", "3", "--methods", "obj_gauss")
    assert "NO guarantee" not in out
