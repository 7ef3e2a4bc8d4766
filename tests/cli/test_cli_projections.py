"""The random-projection commands (python -m privlib rp-…), run in-process (`run_cli`): JSON keys,
the paper's reference values through the command line, text output, the shared flags of rp-sweep
(--epsilons, --repeats/--reps, --seed, --delta), its long-work refusal, and one-line errors with
exit code 2 on bad input."""
import argparse

import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE
from privlib.cli import common
from privlib.cli import projections as rp_commands
from privlib.cli.common import LONG_WORK_VARIABLE
from privlib.projections.projection import make_projection

SMALL_SWEEP = ("rp-sweep", "--dataset", "digits", "--mechanisms", "dp-oporp,idp-signrp-rr", "--k", "16",
               "--queries", "40")


def run_json(capsys, *argv):
    """The command's JSON (``capsys``: kept so the reference-value tests read as before)."""
    result = run_cli(*argv, "--json")
    assert result.code == 0, result.err
    return result.json()


def test_every_command_is_in_the_table():
    from privlib.cli import commands

    names = [c.name for c in commands()]
    for command in rp_commands.COMMANDS:
        assert command.name in names and command.help.strip()
    assert [c.name for c in rp_commands.COMMANDS] == ["rp-sigma", "rp-pplus", "rp-nplus", "rp-variance",
                                                        "rp-sensitivity", "rp-sweep", "rp-attack"]


@pytest.mark.parametrize("eps, optimal, kenthapadi, classical", [
    (0.1, 36.30469043, 52.7551, 52.988), (0.5, 8.057618481, 10.7016, 10.5976), (1, 4.224678889, 5.44344, 5.2988),
    (2, 2.230476271, 2.81207, 2.6494), (5, 0.9800490003, 1.22688, 1.05976), (10, 0.5410868318, 0.690152, 0.52988),
    (20, 0.3090846812, 0.41119, 0.26494), (50, 0.1565928704, 0.225948, 0.105976),
    (100, 0.09783722397, 0.150874, 0.052988)])
def test_rp_sigma_reference_table(capsys, eps, optimal, kenthapadi, classical):
    r = run_json(capsys, "rp-sigma", "--epsilon", str(eps), "--delta", "1e-6")
    assert set(r) >= {"epsilon", "delta", "sensitivity", "method", "sigma", "delta_achieved", "valid"}
    assert r["sigma"] == pytest.approx(optimal, rel=1e-9) and r["valid"] is True
    assert r["delta_achieved"] == pytest.approx(1e-6, rel=1e-6)  # sigma* is exactly calibrated (eq. 14)
    r = run_json(capsys, "rp-sigma", "--epsilon", str(eps), "--delta", "1e-6", "--method", "kenthapadi")
    assert r["sigma"] == pytest.approx(kenthapadi, rel=1e-5) and r["delta_achieved"] < 1e-6
    r = run_json(capsys, "rp-sigma", "--epsilon", str(eps), "--delta", "1e-6", "--method", "classical")
    assert r["sigma"] == pytest.approx(classical, rel=1e-4) and r["valid"] is (eps < 1)


def test_rp_sigma_more_reference_values(capsys):
    assert run_json(capsys, "rp-sigma", "--epsilon", "1", "--delta", "1e-5")["sigma"] == pytest.approx(3.730631635,
                                                                                                       rel=1e-9)
    assert run_json(capsys, "rp-sigma", "--epsilon", "1000", "--delta", "1e-6")["sigma"] == pytest.approx(
        0.02485036669, rel=1e-9)
    r = run_json(capsys, "rp-sigma", "--epsilon", "3", "--delta", "1e-6", "--sensitivity", "2.5")
    assert r["sigma"] == pytest.approx(3.859653544, rel=1e-9) and r["sensitivity"] == 2.5
    # the classical sigma's true delta: 1.90e-6 at epsilon 10, 1.6e-4 at epsilon 20 (not DP at delta = 1e-6)
    for eps, achieved in (("10", 1.90e-6), ("20", 1.6e-4)):
        r = run_json(capsys, "rp-sigma", "--epsilon", eps, "--delta", "1e-6", "--method", "classical")
        assert r["delta_achieved"] == pytest.approx(achieved, rel=0.02) and r["valid"] is False
    for eps, sigma in (("1", 7.347686), ("10", 0.9236837)):
        r = run_json(capsys, "rp-sigma", "--epsilon", eps, "--delta", "1e-6", "--method", "analytic", "--p", "784",
                     "--k", "256")
        assert r["sigma"] == pytest.approx(sigma, rel=1e-6) and r["delta_achieved"] <= 1e-6
        assert (r["p"], r["k"]) == (784, 256)


@pytest.mark.parametrize("p, expected", [(1, 0.0634510349), (10, 0.1489766737), (100, 0.2162759830),
                                         (1000, 0.2686604157), (1024, 0.2691464912), (10_000, 0.3120979772),
                                         (1_000_000, 0.3827194650)])
def test_rp_pplus_reference_table(capsys, p, expected):
    r = run_json(capsys, "rp-pplus", "--r", "0.1", "--p", str(p))
    assert set(r) == {"r", "p", "p_plus", "p_plus_check"}
    assert r["p_plus"] == pytest.approx(expected, abs=1e-9)
    assert r["p_plus_check"] == pytest.approx(expected, abs=1e-9)


def test_rp_nplus_figure_5_values(capsys):
    r = run_json(capsys, "rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", "10", "--epsilon", "400")
    assert set(r) >= {"r", "F", "n_plus", "eps_per_bit", "keep_probability"}
    assert r["r"] == pytest.approx(0.1) and r["F"] == pytest.approx(0.2691464912, abs=1e-9)
    assert r["n_plus"] == pytest.approx(206.8022620, rel=1e-9)
    assert r["eps_per_bit"] == pytest.approx(400 / 206.8022620, rel=1e-9)
    assert 1 - r["keep_probability"] == pytest.approx(0.1262848, abs=5e-8)  # the paper's "11.9%" used N+ = 200
    for m, n in (("5", 351.942661), ("20", 121.357631), ("2", 512.0)):
        assert run_json(capsys, "rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", m)["n_plus"] == \
            pytest.approx(n, rel=1e-8)
    r = run_json(capsys, "rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", "0")
    assert r["n_plus"] == 512 and r["r"] is None and r["eps_per_bit"] is None


def test_rp_variance_reference_values(capsys):
    r = run_json(capsys, "rp-variance", "--sigma", "0.1", "--p", "1000", "--k", "100")
    assert set(r) >= {"var_raw", "var_rp", "var_oporp", "R"}
    assert r["R"] == pytest.approx(3.0, rel=1e-12)
    assert r["var_raw"] == pytest.approx(2 * 0.01 + 1000 * 1e-4) and r["var_rp"] == pytest.approx(0.02 + 0.01 + 0.01)
    assert r["var_oporp"] == pytest.approx(0.02 + 0.01 + 0.01 * 900 / 999)
    assert r["var_raw"] / r["var_rp"] == pytest.approx(r["R"])
    assert run_json(capsys, "rp-variance", "--sigma", "0.1", "--p", "1000", "--k", "10")["R"] == pytest.approx(
        0.991736, rel=1e-6)
    assert run_json(capsys, "rp-variance", "--sigma", "1", "--p", "10000", "--k", "100")["R"] == pytest.approx(
        98.049211, rel=1e-8)


def test_rp_sensitivity_realised_and_bounds(capsys):
    r = run_json(capsys, "rp-sensitivity", "--projection", "rademacher", "--p", "784", "--k", "256", "--seed", "0")
    assert set(r) >= {"delta1", "delta2", "lemma33_bound", "lemma37_bound"}
    assert r["delta2"] == 1.0 and r["delta1"] == pytest.approx(16.0)  # 256/sqrt(256)
    assert r["lemma37_bound"] == pytest.approx(19.9, abs=0.01)
    r = run_json(capsys, "rp-sensitivity", "--projection", "gaussian", "--p", "784", "--k", "256", "--seed", "3")
    projection = make_projection("gaussian", 784, 256, 3)
    assert r["delta2"] == projection.delta2(1.0) and r["delta1"] == projection.delta1(1.0)
    assert 1.0 < r["delta2"] < r["lemma33_bound"] and r["delta1"] < r["lemma37_bound"]
    r = run_json(capsys, "rp-sensitivity", "--projection", "oporp", "--p", "100", "--k", "7", "--seed", "1",
                 "--beta", "0.5")
    assert r["delta2"] == 0.5 and r["delta1"] == 0.5


def test_rp_sweep_json(capsys):
    r = run_json(capsys, "rp-sweep", "--dataset", "digits", "--mechanisms", "dp-oporp,idp-signrp-rr",
                 "--epsilons", "1,10", "--k", "16", "--reps", "2", "--seed", "1")
    assert set(r) >= {"p", "k", "n_db", "n_queries", "chance", "nonprivate", "results"}
    assert (r["p"], r["k"], r["n_db"], r["n_queries"]) == (64, 16, 1597, 200)
    assert len(r["results"]) == 4
    assert all(set(row) == {"mechanism", "guarantee", "epsilon", "precision_at_50", "sd"} for row in r["results"])
    assert r["results"][0]["precision_at_50"] < r["results"][1]["precision_at_50"]  # epsilon 1 < 10


def test_rp_sweep_p_sets_the_synthetic_datas_dimension(capsys):
    # the Random projections page's settings file carries p (issue 24): the same data as the library's at that p
    from privlib.projections.datasets import load_dataset_at

    r = run_json(capsys, "rp-sweep", "--dataset", "synthetic", "--p", "96", "--mechanisms", "dp-oporp",
                 "--epsilons", "1", "--k", "8", "--reps", "1", "--queries", "10")
    data = load_dataset_at("synthetic", 96)
    assert (r["p"], r["n_db"]) == (96, data.n_db) and data.X.shape[1] == 96
    assert run_json(capsys, "rp-sweep", "--dataset", "digits", "--p", "96", "--mechanisms", "dp-oporp",
                    "--epsilons", "1", "--k", "8", "--reps", "1", "--queries", "10")["p"] == 64  # fixed: p ignored


def test_rp_sweep_shared_flags_old_and_new_spellings_agree():
    new = run_cli(*SMALL_SWEEP, "--epsilons", "1:3", "--repeats", "2", "--seed", "4", "--json")
    old = run_cli(*SMALL_SWEEP, "--epsilons", "1,2,3", "--reps", "2", "--seed", "4", "--json")
    words = run_cli(*SMALL_SWEEP, "--epsilons", "1", "2", "3", "--repeats", "2", "--seed", "4", "--json")
    assert new.code == old.code == words.code == 0, (new.err, old.err, words.err)
    assert new.out == old.out == words.out
    r = new.json()
    assert r["epsilons"] == [1.0, 2.0, 3.0] and r["reps"] == 2 and r["seed"] == 4 and r["delta"] == 1e-6
    other = run_cli(*SMALL_SWEEP, "--epsilons", "1:3", "--repeats", "2", "--seed", "5", "--json")
    assert other.json()["results"] != r["results"]  # the seed is used
    delta = run_cli(*SMALL_SWEEP, "--epsilons", "1", "--repeats", "1", "--delta", "1e-3", "--json").json()
    assert delta["delta"] == 1e-3 and "δ = 0.001" in delta["results"][0]["guarantee"]


def test_rp_sweep_default_grid_is_the_12_values():
    parser = argparse.ArgumentParser()
    rp_commands.add_sweep_arguments(parser)
    args = parser.parse_args([])
    assert args.epsilons.tolist() == [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 50.0, 100.0]
    assert (args.repeats, args.seed, args.delta) == (3, 0, 1e-6)


def test_rp_sweep_refuses_long_work_unless_allowed():
    refused = run_cli(*SMALL_SWEEP, "--epsilons", "1", "--repeats", "1", "--json", env={LONG_WORK_VARIABLE: "0"})
    assert refused.code == EXIT_USAGE and refused.out == ""
    line = refused.err.strip()
    assert len(line.splitlines()) == 1 and "rp-sweep would take about" in line and "--allow-long" in line
    assert "--epsilons, --repeats, --k or --queries" in line
    allowed = run_cli(*SMALL_SWEEP, "--epsilons", "1", "--repeats", "1", "--json", "--allow-long",
                      env={LONG_WORK_VARIABLE: "0"})
    assert allowed.code == 0 and allowed.json()["reps"] == 1
    assert "progress" in allowed.err and "100.0%" in allowed.err  # progress on stderr, stdout stays JSON
    quiet = run_cli(*SMALL_SWEEP, "--epsilons", "1", "--repeats", "1", "--json", env={LONG_WORK_VARIABLE: "inf"})
    assert quiet.code == 0 and quiet.err == ""  # a short sweep under the limit writes nothing to stderr


def test_text_output():
    r = run_cli("rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", "10", "--epsilon", "400")
    assert r.code == 0 and "N+ = 206.80226" in r.out and "flip 0.1262848" in r.out
    r = run_cli("rp-sigma", "--epsilon", "10", "--delta", "1e-6", "--method", "classical")
    assert r.code == 0 and "NOT VALID" in r.out
    r = run_cli("rp-sweep", "--dataset", "digits", "--mechanisms", "dp-oporp,idp-signrp-rr", "--epsilons", "1",
                "--k", "16", "--reps", "1")
    assert r.code == 0
    assert "DP-OPORP" in r.out and "iDP-SignRP-RR (iDP, not DP)" in r.out and "chance 0.0313" in r.out


@pytest.mark.parametrize("argv", [
    ["rp-sigma", "--epsilon", "0", "--delta", "1e-6"],
    ["rp-sigma", "--epsilon", "1", "--delta", "1.5"],
    ["rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--sensitivity", "-1"],
    ["rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--method", "analytic"],
    ["rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--method", "magic"],
    ["rp-pplus", "--r", "-0.1", "--p", "10"],
    ["rp-pplus", "--r", "0.1", "--p", "0"],
    ["rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", "0.5"],
    ["rp-variance", "--sigma", "0.1", "--p", "1", "--k", "1"],
    ["rp-variance", "--sigma", "-1", "--p", "10", "--k", "2"],
    ["rp-sensitivity", "--projection", "fourier", "--p", "10", "--k", "2", "--seed", "0"],
    ["rp-sensitivity", "--projection", "gaussian", "--p", "10", "--k", "0", "--seed", "0"],
    ["rp-sweep", "--dataset", "digits", "--mechanisms", "nope", "--reps", "1"],
    ["rp-sweep", "--dataset", "digits", "--epsilons", "a,b", "--reps", "1"],
    ["rp-sweep", "--dataset", "digits", "--mechanisms", "dp-signoporp-rr", "--k", "16", "--t", "3", "--reps", "1"],
    ["rp-sweep", "--dataset", "cifar"],
    ["rp-sweep", "--dataset", "digits", "--repeats", "0"],
    ["rp-sweep", "--dataset", "digits", "--delta", "0"],
    ["rp-sweep", "--dataset", "digits", "--epsilons", "0,1", "--reps", "1"],
    ["rp-nplus", "--p", "1024", "--k", "512", "--m", "10"],  # --delta is required here
])
def test_bad_input_exits_2_with_one_line(argv):
    r = run_cli(*argv, "--json")
    assert r.code == EXIT_USAGE, (argv, r.err)
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], r.err


# ---------------------------------------------------------------------------------------------
# Property-based: any value of any option keeps the promise (issue 22)


#: Each command's valid, small options (a run takes milliseconds; rp-sweep well under a second), and
#: the numeric and text options a fuzzed value replaces, one at a time.
FUZZ_COMMANDS = {
    "rp-sigma": (("--epsilon", "1", "--delta", "1e-6", "--sensitivity", "1", "--method", "optimal"), ()),
    "rp-sigma analytic": (("--epsilon", "1", "--delta", "1e-6", "--method", "analytic", "--p", "16", "--k", "4"),
                          ("--p", "--k")),
    "rp-pplus": (("--r", "0.1", "--p", "16"), ()),
    "rp-nplus": (("--p", "16", "--k", "4", "--delta", "1e-6", "--m", "10", "--beta", "1", "--epsilon", "1"), ()),
    "rp-variance": (("--sigma", "1", "--p", "16", "--k", "4"), ()),
    "rp-sensitivity": (("--projection", "sparse", "--p", "16", "--k", "4", "--s", "3", "--seed", "0", "--beta", "1",
                        "--delta", "1e-6"), ()),
    "rp-sweep": (("--dataset", "digits", "--mechanisms", "dp-oporp", "--epsilons", "1", "--k", "8", "--t", "1",
                  "--repeats", "1", "--seed", "0", "--delta", "1e-6", "--beta", "1", "--m", "0",
                  "--projection", "rademacher", "--queries", "10", "--R", "10", "--true", "10"), ()),
    "rp-sweep synthetic": (("--dataset", "synthetic", "--p", "64", "--mechanisms", "dp-oporp", "--epsilons", "1",
                            "--k", "8", "--repeats", "1", "--queries", "10", "--R", "10"), ("--p",)),
}


@pytest.mark.parametrize("name, option", list(option_cases(FUZZ_COMMANDS)))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=option_values())
def test_any_option_value_keeps_the_promise(name, option, value):
    """exit 0 with strict JSON, or exit 2 with one short line: never a traceback, a warning, a
    NaN/Infinity or a message repeating a long value. Work above 2 s is refused (`cli_fuzz.SMALL_WORK`)."""
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


# ---------------------------------------------------------------------------------------------
# Extremes that gave silent wrong numbers, warnings or MemoryError before (issue 22)

def test_rp_sigma_refuses_an_epsilon_eq14_cannot_resolve():
    # at epsilon = 1e20 eq. 14 read 1.0 at sigma*: "delta_achieved": 1.0 was reported as valid
    for eps in ("1e20", "1e308"):
        for method in rp_commands.SIGMA_METHODS[:3]:
            r = run_cli("rp-sigma", "--epsilon", eps, "--delta", "1e-6", "--method", method, "--json")
            assert r.code == EXIT_USAGE and len(r.err.splitlines()) == 1 and not r.warnings, r.err
            assert "epsilon" in r.err and "delta_achieved" not in r.out
    r = run_json(None, "rp-sigma", "--epsilon", "1e6", "--delta", "1e-6")
    assert r["delta_achieved"] == pytest.approx(1e-6, rel=1e-6)


def test_rp_sigma_refuses_a_sigma_float64_cannot_hold():
    r = run_cli("rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--sensitivity", "5e-324", "--json")
    assert r.code == EXIT_USAGE and "full precision" in r.err


def test_rp_variance_refuses_an_overflowing_sigma():
    r = run_cli("rp-variance", "--sigma", "1e308", "--p", "100", "--k", "32", "--json")
    assert r.code == EXIT_USAGE and "overflow" in r.err and not r.warnings and len(r.err.splitlines()) == 1
    assert run_json(None, "rp-variance", "--sigma", "1e30", "--p", "100", "--k", "32")["R"] == pytest.approx(100 / 32)


def test_rp_pplus_at_a_tiny_r_is_linear_in_r_by_both_routes():
    # r = 1e-308 fed subnormal numbers to the integrator (IntegrationWarning); P+ = r*sqrt(2/pi)*E[M]
    tiny = run_json(None, "rp-pplus", "--r", "1e-300", "--p", "16")
    small = run_json(None, "rp-pplus", "--r", "1e-9", "--p", "16")
    assert tiny["p_plus"] == pytest.approx(small["p_plus"] * 1e-291, rel=1e-12)
    assert tiny["p_plus_check"] == pytest.approx(tiny["p_plus"], rel=1e-9)
    assert not run_cli("rp-pplus", "--r", "1e-308", "--p", "16", "--json").warnings


@pytest.mark.parametrize("argv, reduce", [
    (("rp-variance", "--sigma", "1", "--p", str(10**9), "--k", "4"), "--p"),
    (("rp-sensitivity", "--projection", "gaussian", "--p", str(10**5), "--k", str(10**5), "--seed", "0"), "--p or --k"),
    (("rp-sweep", "--dataset", "digits", "--mechanisms", "dp-oporp", "--epsilons", "1", "--k", str(10**9),
      "--repeats", "1", "--allow-long"), "--k or --queries"),
])
def test_work_that_does_not_fit_in_memory_is_refused_before_it_starts(argv, reduce):
    # 1 GiB available: each needs more (rp-variance 16 GB, rp-sensitivity 160 GB, rp-sweep ~100 TB);
    # --allow-long lifts the time limit only
    r = run_cli(*argv, "--json", env={common.MEMORY_VARIABLE: str(2**30)})
    assert r.code == EXIT_USAGE and "GiB of memory" in r.err and reduce in r.err, r.err


def test_the_memory_available_is_read_from_the_machine():
    assert 0 < common.available_memory() < float("inf")


@pytest.mark.parametrize("command", ["rp-sigma", "rp-nplus"])
def test_required_delta_has_no_default_in_help(command):
    text = run_cli(command, "--help").out
    delta_help = text[text.index("  --delta DELTA"):].split("\n  --")[0]  # the option's help, to the next option
    assert "delta of (epsilon, delta)-DP" in delta_help and "default" not in delta_help
    assert run_cli(command, "--epsilon", "1", "--p", "16", "--k", "4", "--m", "10").code == EXIT_USAGE  # required


def test_rp_sweep_true_sets_the_true_neighbours_and_adds_recall():
    """--true T: each query's top T count as true, the paper's recall@R out of the top 50 (§5.1)."""
    base = ("rp-sweep", "--dataset", "digits", "--mechanisms", "dp-oporp", "--epsilons", "5,50", "--k", "16",
            "--queries", "40", "--repeats", "1", "--R", "10")
    default = run_json(None, *base)
    same = run_json(None, *base, "--true", "10")
    assert [r["precision_at_10"] for r in same["results"]] == [r["precision_at_10"] for r in default["results"]]
    assert "true" not in default and "recall_at_10" not in default["results"][0]  # today's output unchanged
    # every database row true: all 10 retrieved are true, recall = 10 of 1,597
    everything = run_json(None, *base, "--true", "1597")
    for row in everything["results"]:
        assert row["precision_at_10"] == 1.0 and row["recall_at_10"] == pytest.approx(10 / 1597)
    assert everything["chance"] == 1.0 and everything["chance_recall"] == pytest.approx(10 / 1597)
    top50 = run_json(None, *base, "--true", "50")
    for wide, narrow in zip(top50["results"], default["results"]):
        assert wide["recall_at_10"] == pytest.approx(wide["precision_at_10"] * 10 / 50)
        assert wide["precision_at_10"] >= narrow["precision_at_10"]  # the top 10 lie inside the top 50
    assert "recall@10 out of each query's top 50" in run_cli(*base, "--true", "50").out
