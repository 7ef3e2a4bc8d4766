"""The ``label-attack`` command (python -m privlib label-attack), in process (`run_cli`): strict JSON
with the library's numbers for the same seed (`privlib.label_dp.attacks`: the page shows the same),
the sentences and the target's answers in text, the refusal of long work, and one-line errors with
exit code 2 on bad input. Its fuzzing rows are in tests/cli/test_cli_label_dp.py (FUZZ_COMMANDS)."""
import math

import pytest
from cli_run import run_cli, run_json, run_text

from privlib.cli import EXIT_USAGE, commands
from privlib.core.risk import largest_epsilon_under
from privlib.label_dp import attacks
from privlib.label_dp.datasets import load_dataset

SMALL = ("--dataset", "fig1", "--n", "60", "--d", "5", "--model", "centroid", "--repeats", "3", "--seed", "7")


def test_the_command_is_in_the_table():
    assert "label-attack" in [command.name for command in commands()]


def test_json_holds_the_library_s_numbers_for_the_same_seed():
    r = run_json("label-attack", *SMALL, "--epsilons", "0.5,2", "--mode", "full", "--target", "0.8")
    data = load_dataset("fig1", n=60, d=5)
    noisy = attacks.noisy_label_attacks(data, "rr", [0.5, 2.0], seed=7, model="centroid")
    measured = attacks.model_attack(data, "rr", [0.5, 2.0], repeats=3, seed=7, model="centroid",
                                    modes=("baseline", "full"))
    assert r["noisy_label"] == [a.to_dict() for a in noisy]
    assert r["model_attack"] == measured.to_dict()
    assert r["epsilons"] == [0.5, 2.0] and r["seed"] == 7 and r["repeats"] == 3 and r["model"] == "centroid"
    assert r["sentences"][1]["full"] == attacks.model_attack_sentence(measured, 2.0, "full")
    assert r["sentences"][0]["noisy_label"] == attacks.noisy_label_sentence(noisy[0])
    assert r["target"] == {
        "target": 0.8, "mode": "full",
        "noisy_label_bound": largest_epsilon_under(0.8, [0.5, 2.0], [a.bound for a in noisy]),
        "model_bound": largest_epsilon_under(0.8, [0.5, 2.0], measured.bound("full")),
        "model_measured": largest_epsilon_under(0.8, [0.5, 2.0], measured.success("full"),
                                                measured.standard_error("full"))}
    # binary RR at a near-uniform class prior: e^ε/(e^ε + 1) ≤ 0.8 up to ε = ln 4 = 1.39, so 0.5 of the grid
    assert r["target"]["noisy_label_bound"] == 0.5
    for cell in r["noisy_label"]:
        assert cell["success"] <= cell["bound"] + 1e-12


def test_a_fresh_unlabelled_set_leaves_consensus_undefined_as_null():
    r = run_json("label-attack", *SMALL, "--epsilon", "1", "--fresh-unlabelled", "--target", "0.9")
    consensus = r["model_attack"]["attacks"]["consensus"]
    assert consensus["defined"] is False and consensus["success"] == [None] and consensus["bound"] == [None]
    assert r["target"]["mode"] == "baseline"


def test_text_says_each_attack_and_the_target_answers():
    out = run_text("label-attack", *SMALL, "--epsilon", "1", "--randomiser", "lp2st", "--target", "0.7")
    assert "Label inference on fig1 (centroid, lp2st labels), 3 runs from seed 7" in out
    assert "randomised label (LP-2ST" in out and "the baseline model's prediction" in out
    assert "the consensus-retrained model's prediction" in out and "s_ref" in out
    assert out.count("of the grid") == 3 and "(measured, + 2 SE)" in out


def test_long_work_is_refused_in_one_line_unless_allowed():
    argv = ("label-attack", *SMALL, "--epsilon", "1")
    refused = run_cli(*argv, env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert refused.code == EXIT_USAGE and refused.out == ""
    lines = refused.err.strip().splitlines()
    assert len(lines) == 1 and "label-attack would take about" in lines[0] and "--allow-long" in lines[0]
    allowed = run_cli(*argv, "--allow-long", "--json", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert allowed.code == 0, allowed.err
    assert allowed.json()["model_attack"]["repeats"] == 3


@pytest.mark.parametrize("argv, fragment", [
    (("label-attack", "--epsilon", "1", "--target", "2"), "target"),
    (("label-attack", "--epsilon", "1", "--target", "nan"), "target"),
    (("label-attack", "--epsilon", "1", "--reference-fraction", "0"), "reference-fraction"),
    (("label-attack", "--epsilon", "1", "--reference-fraction", "1"), "reference-fraction"),
    (("label-attack", "--epsilon", "1", "--mode", "sideways"), "--mode"),
    (("label-attack", "--epsilons", "a,b"), "epsilon grid"),
    (("label-attack", "--epsilon", "-1"), "epsilon"),
    (("label-attack",), "--epsilon"),
    (("label-attack", "--epsilon", "1", "--repeats", "0"), "repeats"),
    (("label-attack", "--epsilon", "1", "--seed", "-3"), "seed"),
    (("label-attack", "--epsilon", "1", "--dataset", "digits", "--n", "50"), "--n"),
    (("label-attack", "--epsilon", "1", "--randomiser", "nope"), "--randomiser"),
    (("label-attack", "--epsilon", "1", "--n", "1"), "n"),
])
def test_bad_input_exits_2_with_one_line(argv, fragment):
    result = run_cli(*argv)
    assert result.code == EXIT_USAGE, (result.code, result.err)
    assert result.out == "" and "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and len(lines[0]) <= 300, result.err


def test_the_numbers_are_finite_or_null_and_probabilities():
    r = run_json("label-attack", *SMALL, "--epsilons", "0.05,8")
    for mode, attack in r["model_attack"]["attacks"].items():
        for key in ("success", "reference", "reference_upper", "bound"):
            for value in attack[key]:
                assert value is None or 0.0 <= value <= 1.0, (mode, key, value)
    zero = run_json("label-attack", *SMALL, "--epsilon", "0")["noisy_label"][0]  # uniform output: the prior alone
    assert zero["success"] == pytest.approx(max(zero["class_prior"]), rel=1e-12)
    assert r["noisy_label"][1]["success"] == pytest.approx(math.exp(8) / (math.exp(8) + 1), abs=1e-3)


def test_one_epsilon_gives_the_page_s_numbers_at_that_epsilon():
    """The page attacks its whole ε grid; each (ε, run) draws from streams that do not depend on the
    grid, so the command at one ε of it says what the page says there."""
    page_grid = (0.05, 0.1, 0.25, math.log(1.5), 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)  # pages/label_dp.py
    data = load_dataset("fig1", n=60, d=5)
    page = attacks.model_attack(data, "rr", page_grid, repeats=3, seed=7, model="centroid",
                                modes=("baseline", "consensus"))
    r = run_json("label-attack", *SMALL, "--epsilon", repr(math.log(1.5)))
    for mode in ("baseline", "consensus"):
        assert r["sentences"][0][mode] == attacks.model_attack_sentence(page, math.log(1.5), mode)
