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
    # the unknown word is reported on stderr, not fatal
    assert "1 distinct word(s) not in the vocabulary" in stderr and "qwzxqwzx" in stderr


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
    (["--words-file", "NO_SUCH_FILE.txt"], "Cannot read NO_SUCH_FILE.txt"),
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
