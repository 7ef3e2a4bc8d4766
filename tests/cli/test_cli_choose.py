"""`python -m privlib choose` as a user runs it (in this process, `run_cli`)."""
from html.parser import HTMLParser

import numpy as np
import pytest
from cli_run import run_cli

SMALL = ["--vocab-size", "20000", "--samples", "30", "--epsilons", "1,5,10,20"]


@pytest.fixture(scope="module")
def words_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("choose") / "words.txt"
    path.write_text("king\nqueen\nqwzxqwzx\nParis is the capital of France.\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def from_file(words_file, tmp_path_factory):
    report = tmp_path_factory.mktemp("report") / "out.html"
    r = run_cli("choose", "--words-file", words_file, *SMALL, "--seed", "3", "--target-close", "0.6",
                "--max-keep", "0.5", "--report", report, "--json")
    assert r.code == 0, r.err
    return r.json(), r.err, report


def test_json_has_the_metric_table_and_the_recommended_range(from_file):
    out, stderr, _ = from_file
    assert out["words"]["words"] == ["king", "queen", "paris", "is", "the", "capital", "of", "france"]
    assert out["epsilons"] == [1.0, 5.0, 10.0, 20.0] and out["samples"] == 30 and out["seed"] == 3
    assert out["budget"] == [20.0, 100.0, 200.0, 400.0]  # default sentence length 20
    (m,) = out["mechanisms"]
    assert m["mechanism"] == "multivariate-laplace"
    for name in ("unchanged", "unchanged_max", "close", "within_k", "median_rank", "cosine", "distinct", "effective"):
        assert len(m["values"][name]) == 4 and len(m["standard_errors"][name]) == 4
    answer = m["answer"]
    assert {"feasible", "recommended_range", "utility", "privacy", "message"} <= set(answer)
    assert answer["utility"]["status"] in ("crossed", "everywhere", "nowhere")
    # the unknown word is counted on stderr, not fatal, and never quoted (the file's words may be private)
    assert "1 distinct word(s) of the file not in the vocabulary" in stderr and "qwzxqwzx" not in stderr


def test_same_numbers_as_the_library(from_file, glove_small):
    from privlib.words.choice import Targets, WordSet, choose_epsilon

    out, _, _ = from_file
    space = glove_small  # the --vocab-size 20000 of SMALL
    words = WordSet.from_words(out["words"]["words"], space)
    choice = choose_epsilon(space, words, [1, 5, 10, 20], ["multivariate-laplace"], samples=30,
                            targets=Targets(utility=0.6, max_keep=0.5), seed=3)
    np.testing.assert_array_equal(out["mechanisms"][0]["values"]["within_k"], choice.results[0].values["within_k"])
    assert out["mechanisms"][0]["answer"]["message"] == choice.answers[0].message


def test_report_file_is_html_with_the_parameters(from_file):
    out, _, report = from_file
    assert out["report"] == str(report)
    page = report.read_text(encoding="utf-8")
    HTMLParser().feed(page)
    for needed in ("GloVe 6B 50d", "1, 5, 10, 20", "multivariate-laplace", "king queen paris", "qwzxqwzx"):
        assert needed in page, needed
    assert '<script src="http' not in page


def test_random_words_same_seed_same_output_and_text_output():
    a = run_cli("choose", "--words", "6", *SMALL, "--seed", "5", "--json")
    b = run_cli("choose", "--words", "6", *SMALL, "--seed", "5", "--json")
    assert a.code == 0, a.err
    assert a.out == b.out
    out = a.json()
    assert out["words"]["scope"] == "vocabulary" and out["words"]["count"] == 6
    text = run_cli("choose", "--words", "6", *SMALL, "--seed", "5", "--mechanism", "santext")
    assert text.code == 0, text.err
    assert "SanText" in text.out and "epsilon" in text.out and "sentence spends" in text.out


def test_words_from_standard_input():
    r = run_cli("choose", "--words-file", "-", *SMALL, "--seed", "1", "--json", stdin="river bank money")
    assert r.code == 0, r.err
    assert r.json()["words"]["words"] == ["river", "bank", "money"]


@pytest.mark.parametrize("args, message", [
    (["--words-file", "NO_SUCH_FILE.txt"], "Cannot read 'NO_SUCH_FILE.txt'"),
    (["--epsilons", "5:1"], "error:"),
    (["--epsilons", "0,1"], "epsilon"),
    (["--target-close", "1.5"], "between 0 and 1"),
    (["--samples", "1"], "samples must be at least 2"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    r = run_cli("choose", "--words", "5", "--vocab-size", "5000", *args)
    assert r.code == 2
    assert message in r.err and r.err.count("\n") == 1 and r.out == ""


def test_no_vocabulary_word_is_an_error(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("qwzxqwzx zzqqxxw", encoding="utf-8")
    r = run_cli("choose", "--words-file", str(path), "--vocab-size", "5000")
    assert r.code == 2
    assert "None of the 2 distinct words is in the vocabulary" in r.err


# ----------------------------------------------------------------------------- issue 22


@pytest.mark.parametrize("how", ["same path", "other spelling", "hard link"])
def test_a_report_that_is_the_words_file_is_refused_before_any_work(tmp_path, how):
    words = tmp_path / "words.txt"
    words.write_text("king\nqueen\n", encoding="utf-8")
    report = {"same path": words, "other spelling": tmp_path / "sub" / ".." / "words.txt",
              "hard link": tmp_path / "link.html"}[how]
    (tmp_path / "sub").mkdir()
    if how == "hard link":
        report.hardlink_to(words)
    r = run_cli("choose", "--words-file", words, "--report", report, *SMALL, "--seed", "1")
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert "--report" in line and "replace the input" in line
    assert words.read_text(encoding="utf-8") == "king\nqueen\n"


@pytest.mark.parametrize("name, said", [("folder", "it is a folder"), ("x" * 300 + ".html", "longer than 255 bytes"),
                                        ("missing/out.html", "folder does not exist")])
def test_a_report_path_that_cannot_be_written_is_refused_before_any_work(tmp_path, name, said, monkeypatch):
    import privlib.cli.words as word_commands

    monkeypatch.setattr(word_commands, "choose_epsilon", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    (tmp_path / "folder").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    r = run_cli("choose", "--words", "5", "--report", tmp_path / name, *SMALL, "--seed", "1")
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert said in line and len(line) <= 300
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_the_words_file_is_never_quoted_in_notes(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("king\nsecretname\nqwzxqwzx\n", encoding="utf-8")
    r = run_cli("choose", "--words-file", words, *SMALL, "--seed", "1", "--json")
    assert r.code == 0, r.err
    assert "2 distinct word(s)" in r.err and "secretname" not in r.err and "qwzxqwzx" not in r.err


def test_ctrl_c_is_one_line_exit_130_and_no_report(tmp_path, monkeypatch):
    import privlib.cli.words as word_commands

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(word_commands, "choose_epsilon", interrupted)
    r = run_cli("choose", "--words", "5", "--report", tmp_path / "out.html", *SMALL, "--seed", "1")
    assert r.code == 130 and r.out == "" and "Traceback" not in r.err
    (line,) = r.err.splitlines()
    assert "stopped by Ctrl-C" in line
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- the attack target (issue 23)
ATTACK = ["--attack-target", "0.2", "--attack-candidates", "100", "--attack-samples", "5"]


@pytest.fixture(scope="module")
def attacked(words_file, tmp_path_factory):
    report = tmp_path_factory.mktemp("attack") / "out.html"
    r = run_cli("choose", "--words-file", words_file, *SMALL, "--seed", "3", *ATTACK, "--report", report, "--json")
    assert r.code == 0, r.err
    return r.json(), report


def test_attack_json_has_the_target_the_attack_and_its_answer(attacked, glove_small):
    from privlib.words.choice import AttackSettings, attack_metrics

    out, _ = attacked
    assert out["targets"]["attack"] == 0.2 and out["targets"]["attack_measure"] == "success"
    assert out["attack"] == {"candidates": 100, "prior": "uniform", "samples_per_word": 5, "runs": None}
    (m,) = out["mechanisms"]
    library = attack_metrics(glove_small, "multivariate-laplace", [1, 5, 10, 20], AttackSettings(100, "uniform", 5),
                             seed=3)
    assert m["attack"]["success"] == list(library.success) and not m["attack"]["exact"]
    assert m["attack"]["bands"]["high"] == list(library.bands[1])
    met = [e for e, s in zip(out["epsilons"], library.success) if s <= 0.2]
    assert m["answer"]["attack"]["epsilon"] == (max(met) if met else None)
    assert "The attack target (the attacker names the original word at most 20.0% of the time" in m["answer"]["message"]
    assert "lower bound on the best attacker" in m["answer"]["message"]


def test_attack_report_records_the_target_its_answer_and_range(attacked):
    out, report = attacked
    page = report.read_text(encoding="utf-8")
    threshold = out["mechanisms"][0]["answer"]["attack"]
    assert "Attack target: the attacker names the original word at most 20.0% of the time" in page
    assert "Attack target: largest ε that meets it" in page or "Attack target: met at no ε" in page
    if threshold["epsilon"] is not None:
        assert f"largest ε that meets it = {threshold['epsilon']:g}" in page
    assert "--attack-target 0.2" in page


def test_attack_text_output():
    r = run_cli("choose", "--words", "3", *SMALL, "--seed", "5", "--mechanism", "santext", *ATTACK)
    assert r.code == 0, r.err
    assert "attack (the Bayes attacker (exact: the best attacker)): epsilon 1:" in r.out
    assert "The attack target" in r.out and "somebody who sees the sanitised word" in r.out


@pytest.mark.parametrize("args, message", [
    (["--attack-target", "0"], "above 0 and at most 1"),
    (["--attack-target", "1.5"], "above 0 and at most 1"),
    (["--attack-target", "nan"], "above 0 and at most 1"),
    (["--attack-target", "x"], "--attack-target"),
    (["--attack-target", "0.2", "--attack-measure", "ratio"], "--attack-measure"),
    (["--attack-target", "0.2", "--attack-candidates", "1"], "at least 2"),
    (["--attack-target", "0.2", "--attack-candidates", "5001"], "only 5,000"),
    (["--attack-target", "0.2", "--attack-prior", "pareto"], "--attack-prior"),
    (["--attack-target", "0.2", "--attack-samples", "0"], "at least 1"),
    (["--attack-target", "0.2", "--attack-runs", "-1"], "at least 1"),
    (["--attack-target", "0.0004"], "cannot be met at any ε"),  # 2,000 uniform candidates: the prior gives 0.05 %
    (["--attack-target", "1"], "met at every ε"),
    (["--attack-target", "0.9996", "--attack-measure", "above-prior"], "met at every ε"),
])
def test_bad_attack_values_exit_2_with_one_line(args, message, monkeypatch):
    import privlib.cli.words as word_commands

    monkeypatch.setattr(word_commands, "choose_epsilon", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    r = run_cli("choose", "--words", "5", "--vocab-size", "5000", "--mechanism", "santext", *args)
    assert r.code == 2, r.err
    assert message in r.err and r.err.count("\n") == 1 and r.out == ""


def test_a_long_attack_is_refused_naming_the_attack_options():
    r = run_cli("choose", "--words", "3", *SMALL, "--seed", "1", "--mechanism", "santext", *ATTACK,
                env={"PRIVLIB_LONG_WORK_SECONDS": "0"})
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert "--allow-long" in line and "--attack-candidates" in line
