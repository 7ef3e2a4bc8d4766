"""``word-attack`` (privlib.cli.words): what an attacker learns from a sanitised word — the same
numbers and sentence as the library's `attacker_view` (the Neighbour ranks page's call) for the same
seed, success against ε with its bound, the largest ε under a target, the long-work refusal, and bad
input as one line with exit code 2."""
import pytest
from cli_run import run_cli

from privlib.cli import EXIT_USAGE
from privlib.words import EmbeddingSpace
from privlib.words.attacks import VIEW_EPSILONS, attack_curve, attacker_view, largest_epsilon_under, word_candidates
from privlib.words.mechanisms import MultivariateLaplace, SanText

SMALL = ("--vocab-size", "2000")


@pytest.fixture(scope="module")
def space():
    return EmbeddingSpace.glove_6b_50d(vocab_size=2000)


def test_an_exact_attack_is_the_librarys_view(space):
    r = run_cli("word-attack", "--epsilon", "2", "--mechanism", "santext", "--candidates", "300", "--prior", "zipf",
                "--close", "50", *SMALL, "--json")
    assert r.code == 0, r.err
    out = r.json()
    expected = attacker_view(space, SanText.family(), 2.0, candidates=word_candidates(space, 300, "zipf"), close=50)
    assert out["view"]["success"] == expected.success and out["view"]["bound"] == expected.bound
    assert out["sentence"] == expected.sentence == out["view"]["sentence"]
    assert out["curve"] is None and out["target"] is None and out["seed"] == 0


def test_a_sampled_attack_is_the_librarys_for_the_same_seed(space):
    r = run_cli("word-attack", "--epsilon", "6", "--candidates", "200", "--samples-per-word", "3", "--seed", "5",
                "--close", "20", *SMALL, "--json")
    assert r.code == 0, r.err
    expected = attacker_view(space, MultivariateLaplace.family(), 6.0, candidates=200, samples_per_word=3, seed=5,
                             close=20)
    out = r.json()["view"]
    assert out["attack"] == expected.attack.to_dict()
    assert out["interval"] == list(expected.interval())
    other = run_cli("word-attack", "--epsilon", "6", "--candidates", "200", "--samples-per-word", "3", "--seed", "6",
                    "--close", "20", *SMALL, "--json").json()["view"]
    assert other["attack"]["in_sample"] != out["attack"]["in_sample"] or other["success"] != out["success"]


def test_the_sampled_attacks_defaults_are_the_librarys(space):
    # the page calls attacker_view with the library's defaults (samples per word, runs): so does the command line
    r = run_cli("word-attack", "--epsilon", "10", "--candidates", "200", "--seed", "2", "--close", "20", *SMALL, "--json")
    assert r.code == 0, r.err
    expected = attacker_view(space, MultivariateLaplace.family(), 10.0, candidates=200, seed=2, close=20)
    assert r.json()["view"]["attack"] == expected.attack.to_dict()


def test_success_against_epsilon_and_the_target(space):
    r = run_cli("word-attack", "--epsilon", "2", "--mechanism", "santext", "--candidates", "150", "--target", "0.3",
                "--close", "20", *SMALL, "--json")
    assert r.code == 0, r.err
    out = r.json()
    curve = attack_curve(space, SanText.family(), VIEW_EPSILONS, candidates=150, close=20)
    assert out["curve"]["epsilons"] == list(VIEW_EPSILONS)  # the page's grid when only --target is given
    assert out["curve"]["success"][0] == pytest.approx(list(curve.success[0]), rel=1e-13)
    assert out["curve"]["bound"] == pytest.approx(list(curve.bound), rel=1e-13)
    assert out["target"] == largest_epsilon_under(curve, 0.3).to_dict()
    grid = run_cli("word-attack", "--epsilon", "2", "--mechanism", "santext", "--candidates", "150", "--epsilons",
                   "1,4", "--close", "20", *SMALL, "--json").json()
    assert grid["curve"]["epsilons"] == [1.0, 4.0] and grid["target"] is None


def test_the_text_output_says_the_sentence_the_table_and_the_answer():
    r = run_cli("word-attack", "--epsilon", "2", "--mechanism", "santext-plus", "--candidates", "100",
                "--epsilons", "1,2", "--target", "0.5", "--close", "20", *SMALL)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("At ε = 2, somebody who sees the sanitised word names the original")
    assert "gives no guarantee" in lines[0]
    assert any(line.split()[:1] == ["1"] and "none" in line.split() for line in lines)  # no bound without a guarantee
    assert any(line.startswith("The largest ε that keeps re-identification under 50 %") for line in lines)


def test_long_work_is_refused_unless_allowed():
    argv = ("word-attack", "--epsilon", "2", "--mechanism", "santext", "--candidates", "100", "--close", "20", *SMALL)
    refused = run_cli(*argv, "--json", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert refused.code == EXIT_USAGE and refused.out == ""
    assert len(refused.err.strip().splitlines()) == 1 and "--allow-long" in refused.err
    allowed = run_cli(*argv, "--json", "--allow-long", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert allowed.code == 0, allowed.err
    allowed.json()


@pytest.mark.parametrize("argv, fragment", [
    (("--epsilon", "-1"), "epsilon"),
    (("--epsilon", "nan"), "epsilon"),
    (("--epsilon", "2", "--candidates", "1"), "count"),
    (("--epsilon", "2", "--candidates", "5000"), "at most 2,000"),
    (("--epsilon", "2", "--prior", "frequency"), "invalid choice"),
    (("--epsilon", "2", "--target", "2"), "target"),
    (("--epsilon", "2", "--samples-per-word", "0"), "samples_per_word"),
    (("--epsilon", "2", "--runs", "0"), "runs"),
    (("--epsilon", "2", "--epsilons", "0,1"), "epsilons"),
    (("--epsilon", "2", "--close", "5000"), "close"),
    (("--epsilon", "2", "--mechanism", "custext", "--param", "vocab_limit=50"), "vocab_limit"),
    (("--epsilon", "2", "--param", "lam"), "key=value"),
    (("--candidates", "10"), "--epsilon"),
])
def test_bad_input_is_one_line_with_exit_code_2(argv, fragment):
    result = run_cli("word-attack", *argv, *SMALL, "--json")
    assert result.code == EXIT_USAGE, (result.code, result.err)
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.err
