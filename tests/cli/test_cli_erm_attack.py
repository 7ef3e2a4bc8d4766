"""``python -m privlib erm-attack`` (privlib.erm.attacks), run in-process: the JSON is the library's study for
the same seed (what the page shows), the text names every method, the sentences and the submission bound, a
grid answers the target, long work is refused without --allow-long, and bad input — including every option
fed arbitrary values — is strict JSON or one line with exit code 2."""
import json

import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli, run_json, run_text
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE, commands
from privlib.cli import erm as erm_commands
from privlib.erm import attacks


def roundtrip(value):
    return json.loads(json.dumps(value))


def test_the_command_is_in_the_table_and_its_choices_are_the_librarys():
    assert "erm-attack" in [c.name for c in commands()]
    assert erm_commands.ATTACK_METHOD_CHOICES == attacks.ATTACK_METHODS


def test_the_json_is_the_librarys_study_for_the_same_seed():
    result = run_json("erm-attack", "--epsilon", "2", "--n", "500", "--d", "4", "--games", "300", "--seed", "3")
    study = attacks.membership_attack(2.0, 1e-6, n=500, d=4, games=300, seed=3)
    assert result["study"] == roundtrip(study.to_dict())
    assert result["sentences"] == attacks.plain_sentences(study, 2.0)
    assert result["submission"] == roundtrip(attacks.submission_risk(2.0, 1e-6, n=500, d=4).to_dict())
    assert result["largest_epsilon"] is None
    obj = result["study"]["results"]["obj_gauss"][0]
    assert obj["bound"]["kind"] == "dp" and obj["attacks"]["loss_threshold"]["tpr_at_fpr"] is None  # 300 < 10⁴


def test_a_grid_answers_the_target_by_the_bound_and_by_the_measured_attacks():
    result = run_json("erm-attack", "--epsilon", "1", "--epsilons", "0.3,3", "--n", "500", "--d", "3", "--games",
                      "200", "--methods", "output", "--target", "0.6")
    assert result["study"]["epsilons"] == [0.3, 1.0, 3.0]
    answers = {a["basis"]: a for a in result["largest_epsilon"]}
    assert answers["bound"]["epsilon"] == 0.3  # (1 + tanh(ε/2))/2 ≤ 0.6 ⟺ ε ≤ 0.405
    study = attacks.membership_study((0.3, 1.0, 3.0), 1e-6, n=500, d=3, methods=("output",), games=200, seed=0)
    expected = attacks.largest_epsilon_under(0.6, None, "output", basis="measured", study=study)
    assert answers["measured"] == roundtrip(expected.to_dict())


def test_the_text_output():
    out = run_text("erm-attack", "--n", "409", "--d", "10", "--games", "100")
    assert "add/remove membership is not bounded" in out
    assert "Non-private: no guarantee" in out and "no model:" in out  # input perturbation needs n ≥ 410 at ε = 1
    assert "not measured (fewer than 10^4 non-member scores)" in out
    assert "No contributor submits anything at n = 409" in out


def test_long_work_is_refused_without_allow_long():
    argv = ["erm-attack", "--n", "300", "--d", "3", "--games", "200", "--methods", "output"]
    refused = run_cli(*argv, env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert refused.code == EXIT_USAGE and "--allow-long" in refused.err and len(refused.err.strip().splitlines()) == 1
    allowed = run_cli(*argv, "--allow-long", "--json", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert allowed.code == 0 and allowed.json()["study"]["games"] == 200


@pytest.mark.parametrize("argv, fragment", [
    (["--games", "5"], ">= 10"), (["--n", "1"], "n (records"), (["--methods", "input_asymptotic"], "invalid choice"),
    (["--target", "2"], "target"), (["--epsilon", "nan"], "epsilon"), (["--d", "51"], "d (the number"),
    (["--delta", "0"], "delta"), (["--task", "ranking"], "invalid choice"), (["--epsilon", "1e7"], "1e-6 to 1e6")])
def test_bad_input_is_one_line_with_exit_code_2(argv, fragment):
    result = run_cli("erm-attack", "--games", "20", "--n", "100", *argv)
    assert result.code == EXIT_USAGE and result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.err


#: Small valid options; a fuzzed value replaces one at a time (all of them).
FUZZ_COMMANDS = {
    "erm-attack": (("--epsilon", "1", "--delta", "1e-6", "--n", "300", "--d", "3", "--R", "1", "--task", "regression",
                    "--methods", "output", "--games", "20", "--target", "0.6", "--seed", "0"), ()),
    "erm-attack grid": (("--epsilons", "0.5,2", "--n", "300", "--d", "2", "--methods", "obj_gauss", "--games", "20"),
                        ("--epsilons",)),
}


@pytest.mark.parametrize("name, option", list(option_cases(FUZZ_COMMANDS)))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(value=option_values())
def test_any_option_value_keeps_the_promise(name, option, value):
    # a fuzzed size is refused rather than run for minutes (work above 2 s: cli_fuzz.SMALL_WORK)
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=SMALL_WORK))


@pytest.mark.parametrize("name, option, value", list(edge_cases(FUZZ_COMMANDS)))
def test_edge_values_keep_the_promise(name, option, value):
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=SMALL_WORK))
