"""``--settings FILE`` against options typed on the command line (issue 24, privlib.cli.settings): a typed option
wins over the file's value of its mutually exclusive rival (bounds' --epsilon | --mu, retrain's --epsilon |
--epsilons, choose's --mechanism | --mechanisms), a file setting that goes with an overridden one is dropped with it
(bounds' δ with its ε), and the note on the file's settings that are no options names only settings with a value, in
one short line."""
from __future__ import annotations

import pytest
from cli_run import run_cli, run_json

from privlib.analyses import analysis
from privlib.cli import build_parser
from privlib.cli.common import MAX_MESSAGE_CHARS
from privlib.cli.settings import apply_settings_file, summarised, typed_actions, unused_note

BOUNDS = analysis("what_epsilon_means").SETTINGS
RETRAIN = analysis("label_dp").SETTINGS
CHOOSE = analysis("choose_epsilon").SETTINGS


def settings_file(folder, settings, values, name="settings.json") -> str:
    path = folder / name
    path.write_text(settings.to_json(values), encoding="utf-8")
    return str(path)


@pytest.fixture()
def mu_file(tmp_path):
    """The What ε means page's settings file of a μ-GDP guarantee (μ = 0.8; its ε and δ empty)."""
    return settings_file(tmp_path, BOUNDS, {"kind": "gdp", "mu": 0.8, "epsilon": None, "delta": None}, "mu.json")


@pytest.fixture()
def dp_file(tmp_path):
    """The page's settings file of (2, 10⁻⁶)-DP (its μ empty)."""
    return settings_file(tmp_path, BOUNDS, {"epsilon": 2.0, "delta": 1e-6}, "dp.json")


def test_the_files_guarantee_is_used_when_nothing_is_typed(mu_file, dp_file):
    assert run_json("bounds", "--settings", mu_file)["guarantee"] | {"text": None} == {
        "kind": "gdp", "text": None, "neighbours": "", "epsilon": None, "delta": None, "mu": 0.8}
    assert run_json("bounds", "--settings", dp_file)["guarantee"]["text"] == "(ε, δ)-DP with ε = 2, δ = 1e-06"


@pytest.mark.parametrize("typed", [("--epsilon", "1"), ("--epsilon=1",), ("--eps", "1")])  # argparse's spellings
def test_a_typed_epsilon_wins_over_the_files_mu(mu_file, typed):
    guarantee = run_json("bounds", "--settings", mu_file, *typed)["guarantee"]  # was: the file's μ, silently
    assert (guarantee["kind"], guarantee["epsilon"], guarantee["mu"]) == ("pure-dp", 1.0, None)


def test_a_typed_mu_wins_over_the_files_epsilon_and_its_delta_goes_with_it(dp_file):
    r = run_cli("bounds", "--settings", dp_file, "--mu", "1", "--json")  # was: "--delta goes with --epsilon"
    assert r.code == 0, r.err
    guarantee = r.json()["guarantee"]
    assert (guarantee["kind"], guarantee["mu"], guarantee["epsilon"], guarantee["delta"]) == ("gdp", 1.0, None, None)


def test_a_typed_epsilon_keeps_the_files_delta_and_a_typed_delta_beside_mu_is_refused(dp_file):
    guarantee = run_json("bounds", "--settings", dp_file, "--epsilon", "3")["guarantee"]
    assert (guarantee["epsilon"], guarantee["delta"]) == (3.0, 1e-6)  # δ is not of --epsilon's group: kept
    r = run_cli("bounds", "--settings", dp_file, "--mu", "1", "--delta", "1e-5")  # both typed: the user's mistake
    assert r.code == 2 and "--delta goes with --epsilon" in r.err and len(r.err.splitlines()) == 2  # note + error


def parsed(command: str, path: str, *typed: str):
    """The options ``command`` parses from the file at ``path`` and the ``typed`` ones (no run)."""
    parser = build_parser()
    apply_settings_file(path, command, parser.command_parsers[command], ["--settings", path, *typed])
    return parser.parse_args([command, "--settings", path, *typed])


def test_a_typed_grid_wins_over_the_files_epsilon_in_retrain(tmp_path):
    path = settings_file(tmp_path, RETRAIN, {"epsilon": 2.0})
    args = parsed("retrain", path, "--epsilons", "1,2")  # was: the file's ε beside the typed grid
    assert args.epsilon is None and args.epsilons is not None
    args = parsed("retrain", path)
    assert args.epsilon == 2.0 and args.epsilons is None
    assert parsed("retrain", path, "--epsilon", "3").epsilon == 3.0


def test_a_typed_mechanism_wins_over_the_files_comparison_in_choose(tmp_path):
    path = settings_file(tmp_path, CHOOSE, {"mechanisms": ("santext", "tem"), "tem.beta": 0.01})
    assert parsed("choose", path).mechanisms == ("santext", "tem")
    args = parsed("choose", path, "--mechanism", "custext")
    assert (args.mechanism, args.mechanisms) == ("custext", None)
    assert parsed("choose", path, "--mechanisms", "tem").mechanisms == ("tem",)


def test_typed_options_are_found_as_argparse_reads_them():
    parser = build_parser().command_parsers["sanitize"]
    names = {action.dest for action in typed_actions(
        parser, ["--eps", "1", "--mechanisms=santext", "-ifile.txt", "the", "--", "--seed"])}
    assert names == {"epsilon", "mechanisms", "input"}  # an abbreviation, "=", a short option's attached value
    assert typed_actions(parser, ["--m", "tem"]) == set()  # ambiguous (--mechanism, --mechanisms): argparse refuses


def test_the_note_names_only_settings_with_a_value_and_the_audits_settings_as_one(mu_file, dp_file):
    for path, empty in ((mu_file, ("epsilon", "delta")), (dp_file, ("mu",))):
        r = run_cli("bounds", "--settings", path, "--json")
        (line,) = r.err.splitlines()
        assert line == ("note: the settings file's kind, group, log_fpr, the audit's settings are not options of "
                        "bounds (used by its page only).")
        assert all(f" {name}," not in line for name in empty)


def test_the_note_leaves_out_an_empty_attack_target(tmp_path):
    parser = build_parser()
    path = settings_file(tmp_path, CHOOSE, {"attack_target": None, "privacy_metric": "distinct"})
    unused = apply_settings_file(path, "choose", parser.command_parsers["choose"])
    assert "attack_target" not in unused and "privacy_metric" in unused
    path = settings_file(tmp_path, CHOOSE, {"attack_target": 0.2})
    args = parsed("choose", path)
    assert args.attack_target == 0.2  # a value: an option


def test_the_note_is_one_short_line_however_many_settings():
    names = [f"setting_{i}" for i in range(100)]
    line = unused_note("bounds", names)
    assert len(line) <= MAX_MESSAGE_CHARS and "\n" not in line
    assert line.startswith("note: the settings file's setting_0, setting_1, ")
    shown_count = line.count("setting_")
    assert f"… and {100 - shown_count} more are not options of bounds" in line
    assert unused_note("bounds", []) is None
    assert unused_note("dot", ["samples"]) == "note: the settings file's samples are not options of dot (used by its page only)."


def test_groups_of_settings_are_summarised_and_other_mechanisms_parameters_come_last_changed_first():
    names = ["tem.beta", "audit.topic", "kind", "audit.seed", "audit.tem.beta", "group", "custext.k"]
    assert summarised(names, mechanisms={"tem", "custext"}) == [
        "kind", "group", "the audit's settings", "tem.beta", "custext.k"]
    assert summarised(names, mechanisms={"tem", "custext"}, changed={"custext.k"})[-2:] == ["custext.k", "tem.beta"]


def test_a_parameter_the_user_changed_is_named_before_the_note_is_cut(tmp_path):
    settings = analysis("neighbour_ranks").SETTINGS
    # mahalanobis.lam is the 8th of the other mechanisms' parameters: cut from the note unless named first
    path = settings_file(tmp_path, settings, {"mechanism": "vickrey", "mahalanobis.lam": 0.5})
    r = run_cli("ranks", "--settings", path, "--word", "king", "--epsilon", "10", "--samples", "10",
                "--vocab-size", "2000", "--json")
    assert r.code == 0, r.err
    (line,) = r.err.splitlines()
    assert "mahalanobis.lam" in line and "more are not options of ranks" in line and len(line) <= MAX_MESSAGE_CHARS
