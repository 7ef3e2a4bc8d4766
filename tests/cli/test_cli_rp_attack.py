"""The ``rp-attack`` command (python -m privlib rp-attack), in process (`run_cli`): the same numbers as the
library (and so the page) for the same seed, text output, --target, the long-work refusal, one-line errors
with exit code 2 on bad input, and strict JSON or one short line for any option value (issue 22)."""
import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, command_line, edge_cases, option_cases, option_values
from cli_run import run_cli
from hypothesis import HealthCheck, given, settings

from privlib.cli import EXIT_USAGE, commands, common
from privlib.projections import attacks

SMALL = ("--dataset", "digits", "--k", "16", "--releases", "2000", "--targets", "300", "--seed", "3")


def run_json(*argv):
    result = run_cli(*argv, "--json")
    assert result.code == 0, result.err
    return result.json()


def test_rp_attack_is_in_the_table():
    assert "rp-attack" in [command.name for command in commands()]


def test_numbers_equal_the_library_for_the_same_seed():
    r = run_json("rp-attack", "--mechanism", "dp-oporp", "--epsilon", "5", "--delta", "1e-6", *SMALL)
    parameters = {"k": 16, "beta": 1.0, "seed": 3}
    attribute = attacks.attribute_inference("dp-oporp", epsilon=5.0, delta=1e-6, p=64, releases=2000, seed=3,
                                            parameters=parameters)
    linkage = attacks.record_linkage("dp-oporp", epsilon=5.0, delta=1e-6, dataset="digits", targets=300, seed=3,
                                     parameters=parameters)
    assert r["attribute"] == attribute.to_dict() and r["linkage"] == linkage.to_dict()
    assert r["sentences"] == [attribute.sentence, linkage.sentence]
    assert r["attribute"]["guarantee"]["kind"] == "gdp" and r["linkage"]["covered"] is False


def test_sign_mechanism_with_a_parameter_and_one_attack():
    r = run_json("rp-attack", "--mechanism", "dp-signoporp-rr", "--epsilon", "2", "--param", "t=2", "--attack",
                 "attribute", *SMALL)
    expected = attacks.attribute_inference("dp-signoporp-rr", epsilon=2.0, delta=1e-6, p=64, releases=2000, seed=3,
                                           parameters={"k": 16, "beta": 1.0, "seed": 3, "t": 2})
    assert r["linkage"] is None and r["attribute"] == expected.to_dict()
    assert r["attribute"]["informative_bits"] == 2  # one bit in each of the t = 2 OPORPs


def test_target_gives_the_largest_epsilon_by_bound_and_by_measure():
    r = run_json("rp-attack", "--epsilon", "1", "--target", "0.7", "--epsilons", "0.5,1,2,5,10", *SMALL)
    answers = {answer["attack"]: answer for answer in r["targets"]["answers"]}
    assert answers["attribute"]["by_bound"] == 5.0 and answers["linkage"]["by_bound"] is None  # Φ(μ/2): 0.695, 0.82
    curves = attacks.attack_curves("dp-oporp", epsilons=(0.5, 1, 2, 5, 10), delta=1e-6, dataset="digits",
                                   targets=300, seed=3, parameters={"k": 16, "beta": 1.0, "seed": 3})
    assert answers["linkage"] == attacks.largest_epsilon_under(0.7, curves, "linkage").to_dict()
    assert r["sentences"][-2:] == [answers["attribute"]["sentence"], answers["linkage"]["sentence"]]


def test_text_output_has_the_sentences():
    result = run_cli("rp-attack", "--epsilon", "5", *SMALL)
    assert result.code == 0, result.err
    assert "attribute inference: AUC" in result.out and "record linkage:" in result.out
    assert "somebody who sees one DP-OPORP release" in result.out and "does not cover" in result.out


def test_long_work_is_refused_naming_allow_long():
    result = run_cli("rp-attack", "--epsilon", "1", *SMALL, env={common.LONG_WORK_VARIABLE: "0"})
    assert result.code == EXIT_USAGE and "--allow-long" in result.err and len(result.err.strip().splitlines()) == 1
    allowed = run_cli("rp-attack", "--epsilon", "1", *SMALL, "--allow-long", "--json",
                      env={common.LONG_WORK_VARIABLE: "0"})
    assert allowed.code == 0, allowed.err


@pytest.mark.parametrize("argv, fragment", [
    (("rp-attack",), "--epsilon"),
    (("rp-attack", "--epsilon", "1", "--mechanism", "dp-nope"), "invalid choice"),
    (("rp-attack", "--epsilon", "0"), "epsilon"),
    (("rp-attack", "--epsilon", "1", "--k", "0"), "--k"),
    (("rp-attack", "--epsilon", "1", "--releases", "5"), "--releases"),
    (("rp-attack", "--epsilon", "1", "--targets", "0"), "--targets"),
    (("rp-attack", "--epsilon", "1", "--beta", "3"), "beta"),
    (("rp-attack", "--epsilon", "1", "--param", "k=8"), "--k"),
    (("rp-attack", "--epsilon", "1", "--param", "nope=1"), "no parameter"),
    (("rp-attack", "--epsilon", "1", "--param", "t"), "key=value"),
    (("rp-attack", "--epsilon", "1", "--target", "2"), "target"),
    (("rp-attack", "--epsilon", "1", "--dataset", "cifar"), "invalid choice"),
    (("rp-attack", "--epsilon", "1", "--k", str(10**12), "--allow-long"), "memory"),
])
def test_bad_input_exits_2_with_one_line(argv, fragment):
    result = run_cli(*argv, env={common.MEMORY_VARIABLE: str(2**33)})
    assert result.code == EXIT_USAGE, result.err
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.err


# ---------------------------------------------------------------------------------------------
# Property-based: any value of any option keeps the promise (issue 22)

#: Valid, small options (a run takes a fraction of a second); a fuzzed value replaces one at a time.
FUZZ_COMMANDS = {
    "rp-attack": (("--mechanism", "dp-oporp", "--epsilon", "2", "--delta", "1e-6", "--dataset", "digits", "--k", "8",
                   "--beta", "1", "--seed", "0", "--attack", "both", "--releases", "200", "--targets", "50",
                   "--target", "0.6", "--epsilons", "1,5"), ()),
    "rp-attack sign": (("--mechanism", "dp-signoporp-rr-smooth", "--epsilon", "2", "--k", "8", "--releases", "200",
                        "--targets", "50", "--param", "t=2"), ("--epsilon", "--k", "--param")),
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


@pytest.mark.parametrize("name, option, value", list(edge_cases({"rp-attack": FUZZ_COMMANDS["rp-attack"]})))
def test_edge_values_keep_the_promise(name, option, value):
    assert_kept_promise(run_cli(*command_line(FUZZ_COMMANDS, name, option, value), "--json", env=QUICK))


@pytest.mark.parametrize("beta", ["6.171110215823023e-188", "1e-160"])
def test_a_tiny_beta_gives_the_same_mu_not_a_warning(beta):
    """‖c − c′‖² underflows to 0 for β below about 1e-154 (a value hypothesis found printed a NumPy warning):
    the pair's distance is taken scaled, and since the noise is calibrated to β, μ = ‖c − c′‖/σ is the same
    as at β = 1."""
    result = run_cli(*command_line(FUZZ_COMMANDS, "rp-attack", "--beta", beta), "--json", env=QUICK)
    assert_kept_promise(result)
    reference = run_cli(*command_line(FUZZ_COMMANDS, "rp-attack", "--beta", "1"), "--json", env=QUICK).json()
    assert result.json()["attribute"]["mu"] == pytest.approx(reference["attribute"]["mu"], rel=1e-9)
