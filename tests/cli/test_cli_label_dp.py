"""The label-DP commands (python -m privlib rr, rr-prior, retrain, retrain-theory), in process
(`run_cli`): JSON keys, the reference values of randomised response, RRWithPrior and the retraining
paper's bounds through the command line, the Fig. 1 and digits experiments within their sampling
error, accuracy against an ε grid, the long-work refusal, text output, and one-line errors with exit
code 2 on bad input."""
import math

import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli, run_json, run_text
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE
from privlib.cli import common
from privlib.cli import label_dp as ldp_commands

LN_1_5 = repr(math.log(1.5))
#: No long-work limit: the refusal depends on a timed fit, so runs checked for their numbers lift it.
NO_LIMIT = {"PRIVLIB_LONG_WORK_SECONDS": "inf"}


def test_every_command_is_in_the_table():
    from privlib.cli import commands

    names = [c.name for c in commands()]
    assert [c.name for c in ldp_commands.COMMANDS] == ["rr", "rr-prior", "retrain", "retrain-theory", "label-attack"]
    for command in ldp_commands.COMMANDS:
        assert command.name in names and command.help.strip()


@pytest.mark.parametrize("classes, epsilon, keep, other", [
    (2, LN_1_5, 0.6, 0.4), (2, "1", 0.7310585786, 0.2689414214),
    (4, "0.3", 0.3103224420, 0.2298925193), (4, "0.5", 0.3546612444, 0.2151129185),
    (4, "0.8", 0.4258967558, 0.1913677481),
    (10, "1", 0.2319693167, 0.0853367426), (10, "2", 0.4508530604, 0.0610163266),
    (10, "3", 0.6905678577, 0.0343813491),
    (100, "3", 0.1686647887, 0.0083973254), (100, "4", 0.3554609871, 0.0065104951),
    (100, "5", 0.5998596018, 0.0040418222)])
def test_rr_reference_table(classes, epsilon, keep, other):
    r = run_json("rr", "--classes", str(classes), "--epsilon", epsilon)
    assert set(r) >= {"classes", "epsilon", "keep_probability", "other_probability", "binary_flip_probability",
                      "epsilon_if_binary_formula_misused"}
    assert r["keep_probability"] == pytest.approx(keep, abs=1e-10)
    assert r["other_probability"] == pytest.approx(other, abs=1e-10)
    eps = float(epsilon)
    assert r["binary_flip_probability"] == pytest.approx(1 / (1 + math.exp(eps)), rel=1e-12)
    assert r["epsilon_if_binary_formula_misused"] == pytest.approx(eps + math.log(classes - 1), rel=1e-12)


def test_rr_pitfalls_and_text():
    r = run_json("rr", "--classes", "10", "--epsilon", "1")
    assert r["epsilon_if_binary_formula_misused"] == pytest.approx(3.197, abs=5e-4)  # spec pitfall 1
    assert run_json("rr", "--classes", "2", "--epsilon", LN_1_5)["binary_flip_probability"] == \
        pytest.approx(0.4, abs=1e-12)
    r = run_json("rr", "--classes", "7", "--epsilon", "0")  # ε = 0: uniform output
    assert r["keep_probability"] == pytest.approx(1 / 7) and r["other_probability"] == pytest.approx(1 / 7)
    out = run_text("rr", "--classes", "10", "--epsilon", "1")
    assert "0.2319693167" in out and "3.19722" in out and "ε-label DP" in out


def test_rr_prior_example():
    r = run_json("rr-prior", "--prior", "0.5,0.2,0.15,0.1,0.05", "--epsilon", "1")
    assert set(r) >= {"k_star", "weights", "keep_probability"}
    assert r["k_star"] == 2
    assert r["weights"] == pytest.approx([0.5, 0.511741, 0.489699, 0.451599, 0.404610], abs=5e-7)
    assert r["keep_probability"] == pytest.approx(0.731059, abs=5e-7)
    assert r["outside_top_probability_each"] == pytest.approx(0.5)
    # a uniform prior gives plain RR over all C classes; an unnormalised prior is normalised
    r = run_json("rr-prior", "--prior", "1,1,1,1", "--epsilon", "1")
    assert r["k_star"] == 4 and r["keep_probability"] == pytest.approx(math.e / (math.e + 3), rel=1e-12)
    assert run_json("rr-prior", "--prior", "50,20,15,10,5", "--epsilon", "1")["k_star"] == 2
    assert "<- k*" in run_text("rr-prior", "--prior", "0.5,0.2,0.15,0.1,0.05", "--epsilon", "1")


@pytest.mark.parametrize("argv, expected", [
    (["--n", "300", "--mu", "0.5", "--p", "0.4", "--cos", "0.5"],
     {"alpha": 0.1709708818, "alpha_hat": 0.9889528709}),
    (["--n", "3000", "--mu", "0.5", "--p", "0.4", "--cos", "0.5"],
     {"alpha": 0.8466450332, "alpha_hat": 0.9999998877}),
    (["--n", "1000", "--mu", "0.4", "--p", "0.3", "--cos", "0.2"],
     {"alpha": 0.2258580312, "alpha_hat": 0.9712040687}),
    (["--n", "2e6", "--d", "50", "--mu", "0.5", "--gamma", "0.3", "--p", "0.3", "--cos", "0.008"],
     {"p2": 2.2433546682e-5, "alpha1": 0.9996644169, "alpha": 0.7219626995}),
    (["--n", "1e4", "--d", "50", "--mu", "0.5", "--gamma", "0.3", "--p", "0.4"], {"eq65": 0.01488806}),
    (["--n", "1e6", "--d", "50", "--mu", "0.5", "--gamma", "0.3", "--p", "0.4"], {"eq65": 0.77686984}),
])
def test_retrain_theory_reference_rows(argv, expected):
    r = run_json("retrain-theory", *argv)
    assert set(r) >= {"alpha", "alpha_hat", "p2", "threshold", "alpha1", "eq65"}
    for key, value in expected.items():
        assert r[key] == pytest.approx(value, rel=1e-8, abs=1e-10), key


def test_retrain_theory_threshold_vacuity_and_epsilon():
    r = run_json("retrain-theory", "--n", "2e6", "--d", "50", "--mu", "0.5", "--gamma", "0.3", "--p", "0.3",
                 "--cos", "0.008")
    assert r["threshold"] == pytest.approx(7.1787e-4, rel=1e-4)
    r = run_json("retrain-theory", "--n", "1e6", "--d", "100", "--mu", "0.5", "--gamma", "0.3", "--p", "0.2",
                 "--cos", "0.012")
    assert r["p2"] == pytest.approx(1.1708798327e-3, rel=1e-9)
    assert r["threshold"] == pytest.approx(0.037468, abs=5e-7) and r["alpha1"] is None  # 16p₂/μ > cos β
    # Thm 4 first applies (|cos β| = 1) at n ≈ 2.31·10⁶ for d = 50, μ = ½, γ = 0.3, p = 0.4
    r = run_json("retrain-theory", "--n", "1e4", "--d", "50", "--mu", "0.5", "--gamma", "0.3", "--p", "0.4")
    assert r["thm4_from_n"] == pytest.approx(2.31e6, rel=5e-3) and r["alpha"] is None
    r = run_json("retrain-theory", "--n", "1e4", "--d", "16", "--mu", "0.5", "--gamma", "0.3", "--p", "0.4",
                 "--cos", "1")
    assert r["thm4_from_n"] is None and r["alpha_hat"] == 1.0  # d ≤ 16 at μ = ½: vacuous for every n
    assert any("every n" in f for f in r["flags"])
    by_eps = run_json("retrain-theory", "--n", "300", "--mu", "0.5", "--epsilon", LN_1_5, "--cos", "0.5")
    assert by_eps["p"] == pytest.approx(0.4, abs=1e-12) and by_eps["alpha"] == pytest.approx(0.1709708818, abs=1e-9)
    assert "Thm 4 says nothing" in run_text("retrain-theory", "--n", "1e6", "--d", "100", "--mu", "0.5", "--gamma",
                                             "0.3", "--p", "0.2", "--cos", "0.012")


def test_retrain_json_keys_repeats_and_reproducibility():
    argv = ["retrain", "--dataset", "fig1", "--epsilon", "1", "--repeats", "4"]
    r = run_json(*argv)
    assert set(r) >= {"epsilon", "baseline", "full", "consensus", "confidence", "consensus_fraction",
                      "given_label_accuracy", "predicted_label_accuracy", "consensus_label_accuracy", "nonprivate"}
    for key in ("baseline", "full", "consensus", "confidence", "consensus_fraction", "given_label_accuracy"):
        assert set(r[key]) == {"mean", "sd", "per_seed"} and len(r[key]["per_seed"]) == 4
        assert r[key]["mean"] == pytest.approx(sum(r[key]["per_seed"]) / 4)
    assert r["epsilon"] == 1.0 and r["model"] == "centroid" and (r["seed"], r["repeats"]) == (0, 4)  # the default seed of every study
    assert r["baseline_method"] == "rr" and "ε-label DP" in r["guarantee"]
    assert run_json(*argv) == r  # same seed, same result
    assert run_json(*argv[:-2], "--seeds", "4") == r  # --seeds: the older name of --repeats
    # one stream per (seed, repetition): adjacent seeds share no repetition (under seed + r they shared three)
    digits = ["retrain", "--dataset", "digits", "--model", "centroid", "--epsilon", "2"]
    three = run_json(*digits, "--repeats", "3")["given_label_accuracy"]["per_seed"]
    shifted = run_json(*digits, "--repeats", "2", "--seed", "1")["given_label_accuracy"]["per_seed"]
    assert shifted != three[1:]
    out = run_text(*argv)
    assert "consensus" in out and "non-private" in out and "never fed back" in out
    assert "4 repetitions from seed 0" in out


def test_retrain_on_an_epsilon_grid():
    """Accuracy against ε through the command line: one object per ε, the same repetitions at each ε
    (common random numbers), accuracy and given-label accuracy rising with ε."""
    grid = run_json("retrain", "--dataset", "digits", "--model", "centroid", "--epsilons", "0.5,2,8",
                    "--repeats", "3", "--baseline", "lp2st")
    assert grid["epsilons"] == [0.5, 2.0, 8.0] and len(grid["results"]) == 3
    assert [c["epsilon"] for c in grid["results"]] == [0.5, 2.0, 8.0]
    assert {c["baseline_method"] for c in grid["results"]} == {"lp2st"}
    means = [c["baseline"]["mean"] for c in grid["results"]]
    assert means[0] < means[1] < means[2]
    single = run_json("retrain", "--dataset", "digits", "--model", "centroid", "--epsilon", "2",
                      "--repeats", "3", "--randomiser", "lp2st")
    assert single["baseline"] == grid["results"][1]["baseline"]  # a cell does not depend on the others
    out = run_text("retrain", "--dataset", "fig1", "--epsilons", "1:3", "--repeats", "2")
    assert "epsilon = 1, 2, 3" in out and out.count("consensus fraction") == 3
    both = run_cli("retrain", "--dataset", "fig1", "--epsilon", "1", "--epsilons", "1,2")
    assert both.code == EXIT_USAGE and "not allowed with" in both.err


def test_retrain_refuses_long_work_and_shows_progress_on_stderr():
    argv = ["retrain", "--dataset", "fig1", "--epsilon", "1", "--repeats", "2", "--json"]
    refused = run_cli(*argv, env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert refused.code == EXIT_USAGE and refused.out == ""
    assert len(refused.err.strip().splitlines()) == 1 and "--allow-long" in refused.err and "--repeats" in refused.err
    allowed = run_cli(*argv, "--allow-long", env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert allowed.code == 0 and allowed.json()["repeats"] == 2
    assert "progress" in allowed.err and "100.0%" in allowed.err  # progress on stderr, stdout stays JSON


@pytest.mark.parametrize("delta, expected", [
    ("0.5", {"baseline": 0.835, "full": 0.954, "consensus": 0.935, "fraction": 0.657}),
    ("0.3", {"baseline": 0.654, "full": 0.637, "consensus": 0.645, "fraction": 0.673}),
])
def test_retrain_reproduces_figure_1_within_sampling_error(delta, expected):
    """Fig. 1 (App. A): p = 0.4 (ε = ln 1.5), n = 300, d = 50, centroid, retraining on the same set;
    the reference means over 2,000 repetitions, here 200: within 4 standard errors."""
    seeds = 200
    r = run_json("retrain", "--dataset", "fig1", "--delta-sep", delta, "--epsilon", LN_1_5,
                 "--repeats", str(seeds), env=NO_LIMIT)
    for key in ("baseline", "full", "consensus"):
        se = r[key]["sd"] / math.sqrt(seeds)
        assert abs(r[key]["mean"] - expected[key]) < 4 * se * math.sqrt(1 + seeds / 2000), key
    fraction = r["consensus_fraction"]
    assert abs(fraction["mean"] - expected["fraction"]) < 4 * fraction["sd"] / math.sqrt(seeds) + 1e-3
    assert r["given_label_accuracy"]["mean"] == pytest.approx(0.6, abs=4 * math.sqrt(0.24 / (300 * seeds)))


def test_retrain_reproduces_the_digits_table_within_sampling_error():
    """Spec §4.2 at ε = 1: logistic regression (C = 0.1) on digits, 20 repetitions: baseline 0.486,
    full 0.574, consensus 0.626 (20-repetition means, each with its own sampling error)."""
    r = run_json("retrain", "--dataset", "digits", "--model", "logreg", "--epsilon", "1", "--repeats", "20",
                 "--seed", "1000", env=NO_LIMIT)
    for key, reference in (("baseline", 0.486), ("full", 0.574), ("consensus", 0.626)):
        tolerance = 4 * r[key]["sd"] * math.sqrt(2 / 20)  # two independent 20-seed means
        assert abs(r[key]["mean"] - reference) < tolerance, (key, r[key]["mean"])
    assert r["consensus"]["mean"] > r["full"]["mean"] > r["baseline"]["mean"]
    assert r["nonprivate"] == pytest.approx(0.971, abs=0.01)


def test_retrain_digits_with_fewer_classes():
    r = run_json("retrain", "--dataset", "digits", "--classes", "3", "--epsilon", "1", "--seeds", "2")
    assert r["model"] == "logistic" and "first C = 3 digit classes" in r["dataset_description"]
    keep = math.e / (math.e + 2)
    assert r["keep_probability"] == pytest.approx(keep, rel=1e-12)
    from privlib.label_dp.datasets import digits

    n = digits(classes=3).n
    given = r["given_label_accuracy"]
    assert len(given["per_seed"]) == 2
    assert abs(given["mean"] - keep) < 4 * math.sqrt(keep * (1 - keep) / (n * 2)), given
    assert r["nonprivate"] > 0.9  # three digit classes are easy


@pytest.mark.parametrize("argv, fragment", [
    (["retrain", "--dataset", "digits", "--classes", "1", "--epsilon", "1"], "--classes"),
    (["retrain", "--dataset", "mnist", "--classes", "11", "--epsilon", "1"], "--classes"),
    (["retrain", "--dataset", "fig1", "--classes", "3", "--epsilon", "1"], "--classes applies to digits, mnist only"),
    (["retrain", "--dataset", "twopoint", "--classes", "2", "--epsilon", "1"], "--classes applies to digits"),
    (["retrain", "--dataset", "digits", "--classes", "x", "--epsilon", "1"], "--classes"),
    (["rr", "--classes", "1", "--epsilon", "1"], "at least 2"),
    (["rr", "--classes", "3", "--epsilon", "-1"], "epsilon"),
    (["rr", "--classes", "3", "--epsilon", "nan"], "epsilon"),
    (["rr", "--classes", "3", "--epsilon", "x"], "epsilon must be a number"),
    (["rr-prior", "--prior", "a,b", "--epsilon", "1"], "comma-separated numbers"),
    (["rr-prior", "--prior", "1", "--epsilon", "1"], "at least 2"),
    (["rr-prior", "--prior", "0.5,-0.1,0.6", "--epsilon", "1"], "prior"),
    (["retrain", "--dataset", "digits", "--n", "100", "--epsilon", "1"], "--n applies to fig1, twopoint only"),
    (["retrain", "--dataset", "twopoint", "--delta-sep", "0.3", "--epsilon", "1"], "--delta-sep applies to fig1 only"),
    (["retrain", "--dataset", "digits", "--fresh-unlabelled", "--epsilon", "1"], "--fresh-unlabelled"),
    (["retrain", "--dataset", "fig1", "--delta-sep", "-1", "--epsilon", "1"], "delta_sep"),
    (["retrain", "--dataset", "fig1", "--seeds", "0", "--epsilon", "1"], "--seeds"),
    (["retrain", "--dataset", "fig1", "--repeats", "0", "--epsilon", "1"], "--repeats"),
    (["retrain", "--dataset", "fig1", "--epsilons", "2:1"], "--epsilons"),
    (["retrain", "--dataset", "fig1"], "--epsilon"),
    (["retrain", "--dataset", "fig1", "--baseline", "pate", "--epsilon", "1"], "invalid choice"),
    (["retrain", "--dataset", "imagenet", "--epsilon", "1"], "invalid choice"),
    (["retrain-theory", "--n", "300", "--mu", "0.5", "--p", "0.7", "--cos", "0.5"], "flip probability"),
    (["retrain-theory", "--n", "300", "--mu", "0.5", "--cos", "0.5"], "--p"),
    (["retrain-theory", "--n", "300", "--mu", "0.5", "--p", "0.4", "--cos", "2"], "cos"),
    (["retrain-theory", "--n", "300", "--d", "50", "--mu", "0.5", "--p", "0.4"], "--d and --gamma"),
])
def test_bad_input_exits_2_with_one_line(argv, fragment):
    result = run_cli(*argv, "--json")
    assert result.code == EXIT_USAGE, result.err
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.err


# ---------------------------------------------------------------------------------------------
# Property-based: any value of any option keeps the promise (issue 22)


#: Each command's valid, small options (a run takes milliseconds), and the numeric and text options
#: a fuzzed value replaces, one at a time (all of them when none are named).
FUZZ_COMMANDS = {
    "rr": (("--classes", "3", "--epsilon", "1"), ()),
    "rr-prior": (("--prior", "0.5,0.3,0.2", "--epsilon", "1"), ()),
    "retrain": (("--dataset", "fig1", "--model", "centroid", "--randomiser", "rr", "--epsilon", "1",
                 "--delta-sep", "0.5", "--n", "40", "--d", "5", "--repeats", "1", "--seed", "0"), ()),
    "retrain grid": (("--dataset", "twopoint", "--epsilons", "1,2", "--n", "40", "--d", "5", "--repeats", "1"),
                     ("--epsilons",)),
    "retrain digits": (("--dataset", "digits", "--model", "centroid", "--classes", "3", "--epsilon", "1",
                        "--repeats", "1"), ("--classes",)),
    "retrain-theory": (("--n", "300", "--d", "50", "--mu", "0.3", "--gamma", "0.1", "--p", "0.1", "--cos", "0.5"), ()),
    "retrain-theory epsilon": (("--n", "300", "--d", "50", "--mu", "0.3", "--gamma", "0.1", "--epsilon", "1",
                                "--cos", "0.5"), ("--epsilon",)),
    "label-attack": (("--dataset", "fig1", "--model", "centroid", "--epsilon", "1", "--n", "40", "--d", "5",
                      "--repeats", "1", "--seed", "0", "--target", "0.7", "--reference-fraction", "0.1"),
                     ("--epsilon", "--n", "--repeats", "--seed", "--target", "--reference-fraction")),
}


@pytest.mark.parametrize("name, option", list(option_cases(FUZZ_COMMANDS)))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=option_values())
def test_any_option_value_keeps_the_promise(name, option, value):
    """exit 0 with strict JSON, or exit 2 with one short line: never a traceback, a warning, a
    NaN/Infinity or a message repeating a long value. A larger --repeats than a couple of seconds' work
    is refused by the estimate (`cli_fuzz.SMALL_WORK`) instead of run."""
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=SMALL_WORK))


@pytest.mark.parametrize("name, option, value", list(edge_cases(FUZZ_COMMANDS)))
def test_edge_values_keep_the_promise(name, option, value):
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=SMALL_WORK))


@pytest.mark.parametrize("name", FUZZ_COMMANDS)
def test_the_fuzzed_command_lines_run_under_the_fuzz_limit(name):
    """Each table's command line itself succeeds under `cli_fuzz.SMALL_WORK`: the fuzz tests also
    check accepted values, not only refusals."""
    base = FUZZ_COMMANDS[name][0]
    result = run_cli(*command_line(FUZZ_COMMANDS, name, base[0], base[1]), "--json", env=SMALL_WORK)
    assert result.code == 0, result.err
    result.json()


@pytest.mark.parametrize("name", ["retrain", "label-attack"])
def test_a_fuzzed_repeats_of_a_minute_is_refused_not_run(name):
    """The fuzz limit refuses the largest accepted --repeats (10,000; formerly a 30-second run)."""
    result = run_cli(*command_line(FUZZ_COMMANDS, name, "--repeats", "10000"), "--json", env=SMALL_WORK)
    assert result.code == EXIT_USAGE and "--allow-long" in result.err, result.err
    assert_kept_promise(result)


# ---------------------------------------------------------------------------------------------
# Extremes that gave silent wrong numbers, tracebacks or MemoryError before (issue 22)

def test_rr_prior_normalises_a_prior_near_the_float64_maximum():
    # the sum overflowed: keep probability 1.0 instead of e/(e + 1) for a uniform prior of 2 classes
    r = run_json("rr-prior", "--prior", "1e308,1e308", "--epsilon", "1")
    assert r["prior"] == [0.5, 0.5] and r["k_star"] == 2
    assert r["keep_probability"] == pytest.approx(math.e / (math.e + 1), rel=1e-12)


def test_a_class_count_beyond_float64_is_refused_in_one_line():
    r = run_cli("rr", "--classes", "9" * 401, "--epsilon", "1")
    assert r.code == EXIT_USAGE and len(r.err.splitlines()) == 1 and len(r.err) < 300 and "Traceback" not in r.err


@pytest.mark.parametrize("argv, words", [
    (("retrain-theory", "--n", "300", "--d", "50", "--mu", "1e300", "--gamma", "0.1", "--p", "0.1"), "--mu"),
    (("retrain-theory", "--n", "300", "--d", "50", "--mu", "0.3", "--gamma", "1e300", "--p", "0.1"), "--gamma"),
    (("retrain", "--dataset", "fig1", "--delta-sep", "1e300", "--epsilon", "1", "--repeats", "1"), "delta_sep"),
])
def test_overflowing_parameters_are_refused(argv, words):
    r = run_cli(*argv)
    assert r.code == EXIT_USAGE and words in r.err and not r.warnings and "Traceback" not in r.err


def test_retrain_refuses_data_that_does_not_fit_in_memory():
    # n = 10^6, d = 10^4: 160 GB of features (MemoryError before); 1 GiB available here
    r = run_cli("retrain", "--dataset", "fig1", "--n", str(10**6), "--d", str(10**4), "--epsilon", "1",
                "--allow-long", env={common.MEMORY_VARIABLE: str(2**30)})
    assert r.code == EXIT_USAGE and "GiB of memory" in r.err and "--n or --d" in r.err
