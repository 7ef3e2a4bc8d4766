"""`python -m privlib sanitize` as a user runs it (in this process, `run_cli`)."""
import json
import re

import pytest
from cli_run import run_cli

from privlib.words.text import PAPER_EXAMPLE, tokenize

SMALL = ("--vocab-size", "20000")


def test_inline_text_json_has_one_record_per_token():
    r = run_cli("sanitize", "--epsilon", "10", "--seed", "3", "--json", *SMALL, PAPER_EXAMPLE)
    assert r.code == 0, r.err
    out = r.json()
    assert out["text"] == PAPER_EXAMPLE and out["epsilon"] == 10 and out["mechanism"] == "multivariate-laplace"
    tokens = [t for t in tokenize(PAPER_EXAMPLE) if not t.text.isspace()]
    assert [t["original"] for t in out["tokens"]] == [t.text for t in tokens]
    sanitised = [t for t in out["tokens"] if t["action"] == "sanitised"]
    assert out["budget"] == pytest.approx(10 * len(sanitised))
    assert all({"rank", "distance", "cosine", "in_vocabulary", "replacement"} <= set(t) for t in out["tokens"])
    assert all(t["rank"] >= 0 and t["distance"] >= 0 for t in sanitised)


def test_same_seed_same_output_and_text_mode_prints_only_the_text():
    a = run_cli("sanitize", "--epsilon", "5", "--seed", "9", *SMALL, "The quick brown fox, 42 times!")
    b = run_cli("sanitize", "--epsilon", "5", "--seed", "9", *SMALL, "The quick brown fox, 42 times!")
    assert a.code == 0, a.err
    assert a.out == b.out and a.out.count("\n") == 1
    assert re.fullmatch(r"\S+ \S+ \S+ \S+, \S+ \S+!\n", a.out), a.out  # punctuation and spacing kept
    kept = run_cli("sanitize", "--epsilon", "5", "--seed", "9", "--numbers", "keep", *SMALL,
                   "The quick brown fox, 42 times!")
    assert re.fullmatch(r"\S+ \S+ \S+ \S+, 42 \S+!\n", kept.out), kept.out  # numbers kept on request


ISSUE = "I'm sure we can't say they'll won't; the patient isn't John's"


def test_contractions_and_possessives_come_back_at_a_huge_epsilon():
    text = ISSUE + " — and I’m sure it isn’t Maria’s."
    r = run_cli("sanitize", "--epsilon", "1e6", "--seed", "2", *SMALL, text)
    assert r.code == 0, r.err
    assert r.out == text + "\n"


def test_numbers_are_sanitised_by_default_and_kept_only_when_asked():
    text = "Call 42 or 1,000 on March 5, 2023 or write to maria@example.com"
    r = run_cli("sanitize", "--epsilon", "10", "--seed", "4", "--json", *SMALL, text)
    assert r.code == 0, r.err
    out = r.json()
    assert out["policy"]["numbers"] == "sanitise"
    numbers = {t["original"]: (t["action"], t["reason"]) for t in out["tokens"] if t["kind"] == "number"}
    # 42, 1,000 and 5 are among the 20,000 most frequent GloVe words; 2023 is not: redacted like any unknown word
    assert numbers == {"42": ("sanitised", ""), "1,000": ("sanitised", ""), "5": ("sanitised", ""),
                       "2023": ("redacted", "not in vocabulary")}
    assert [t["original"] for t in out["tokens"] if t["kind"] == "email"] == ["maria@example.com"]
    assert out["sanitised"].endswith("[UNK]")  # the address as one unit, redacted
    assert out["budget"] == 10 * sum(t["action"] == "sanitised" for t in out["tokens"])

    kept = run_cli("sanitize", "--epsilon", "10", "--seed", "4", "--json", "--numbers", "keep", *SMALL, text).json()
    assert kept["policy"]["numbers"] == "keep"
    assert {t["original"]: t["action"] for t in kept["tokens"] if t["kind"] == "number"} == {
        "42": "kept", "1,000": "kept", "5": "kept", "2023": "kept"}
    assert kept["budget"] == out["budget"] - 30
    assert "5, 2023" in kept["sanitised"]


def test_file_keeps_document_order_and_gives_json_lines(tmp_path):
    docs = ["the cat sat on the mat", "", "Maria lives in Paris.", "zzqxv qqq", "kings and queens"] * 40
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(docs) + "\n", encoding="utf-8")
    r = run_cli("sanitize", "-i", str(path), "--epsilon", "1000", "--seed", "1", "--json", *SMALL)
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    assert [d["text"] for d in lines] == docs
    # at epsilon 1000 every in-vocabulary word is kept (the noise is far smaller than any gap)
    assert [d["sanitised"] for d in lines[:5]] == ["the cat sat on the mat", "", "Maria lives in Paris.",
                                                    "[UNK] [UNK]", "kings and queens"]
    text = run_cli("sanitize", "-i", str(path), "--epsilon", "1000", "--seed", "1", "--oov", "keep", *SMALL)
    assert text.out.splitlines() == docs


def test_progress_goes_to_stderr_only(tmp_path):
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(["one two three"] * 50), encoding="utf-8")
    r = run_cli("sanitize", "-i", str(path), "--epsilon", "10", "--seed", "1", "--progress", *SMALL)
    assert r.code == 0, r.err
    assert "100.0%" in r.err and "documents" in r.err
    assert len(r.out.splitlines()) == 50 and "%" not in r.out


def test_standard_input_and_policies():
    r = run_cli("sanitize", "-i", "-", "--epsilon", "1000", "--seed", "1", "--keep-stop-words", "--json", *SMALL,
                stdin="The cat\n")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["policy"]["keep_stop_words"] is True and doc["budget"] == 1000  # only "cat"
    assert [t["reason"] for t in doc["tokens"]] == ["stop word", ""]
    former = run_cli("sanitize", "--epsilon", "1000", "--seed", "1", "--sanitise-numbers", "--json", *SMALL, "in 2023")
    assert former.json()["policy"]["numbers"] == "sanitise"  # the former flag is still accepted


def test_other_mechanism_and_parameters():
    r = run_cli("sanitize", "--epsilon", "1", "--seed", "1", "--mechanism", "postprocessing-fix", "--param", "c=0.01",
                "--json", *SMALL, "hello world")
    assert r.code == 0, r.err
    assert r.json()["mechanism"] == "postprocessing-fix"


def test_writes_nothing_but_stdout(tmp_path, monkeypatch):
    """The input is only read: no file appears in the working directory or the home directory."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir(), home.mkdir()
    (work / "secret.txt").write_text("my secret diagnosis\n", encoding="utf-8")
    monkeypatch.chdir(work)
    r = run_cli("sanitize", "-i", "secret.txt", "--epsilon", "10", "--seed", "1", *SMALL, env={"HOME": str(home)})
    assert r.code == 0, r.err
    assert sorted(p.name for p in work.rglob("*")) == ["secret.txt"]
    # the home directory may hold only the cache of GloVe's public word list (~/.cache/privlib), never the input
    files = [p for p in home.rglob("*") if p.is_file()]
    assert [p.relative_to(home).parts[:2] for p in files] in ([], [(".cache", "privlib")])
    assert all(b"secret diagnosis" not in p.read_bytes() for p in files)
    assert "secret" not in r.err


@pytest.mark.parametrize("args, message", [
    (("--epsilon", "0", "text"), "greater than 0"),
    (("--epsilon", "nan", "text"), "epsilon"),
    (("--epsilon", "1"), "exactly one of"),
    (("--epsilon", "1", "-i", "/no/such/file.txt"), "Cannot read '/no/such/file.txt'"),
    (("--epsilon", "1", "-i", "x.txt", "text"), "exactly one of"),
    (("--epsilon", "1", "--oov", "drop", "text"), "invalid choice"),
    (("--epsilon", "1", "--numbers", "drop", "text"), "choose from 'sanitise', 'keep'"),
    (("--epsilon", "1", "--mechanism", "postprocessing-fix", "--param", "c=-1", "text"), "c"),
])
def test_errors_are_one_line_with_exit_code_2(args, message):
    r = run_cli("sanitize", *args, *SMALL)
    assert r.code == 2
    assert message in r.err and r.err.count("\n") == 1 and "Traceback" not in r.err
    assert r.out == ""


def test_too_long_document_is_a_clear_error(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("word " * 30_000, encoding="utf-8")
    r = run_cli("sanitize", "-i", str(path), "--epsilon", "1", *SMALL)
    assert r.code == 2 and "limit is 100,000" in r.err and "Split it" in r.err


# ----------------------------------------------------------------------------- issue 22


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "\r"])
def test_input_lines_are_split_at_newline_only_so_output_line_k_is_document_k(tmp_path, separator):
    path = tmp_path / "in.txt"
    path.write_bytes(f"the cat{separator}sat on the mat\r\nsecond document\nthird".encode())
    r = run_cli("sanitize", "-i", path, "--epsilon", "1000", "--seed", "1", "--json", *SMALL)
    assert r.code == 0, r.err
    documents = [json.loads(line) for line in r.out.split("\n") if line]  # JSON Lines: \n ends a record
    assert [d["text"] for d in documents] == [f"the cat{separator}sat on the mat", "second document", "third"]


def test_a_budget_beyond_a_float_is_one_line_not_infinity():
    r = run_cli("sanitize", "the cat sat on the mat", "--epsilon", "1e308", "--json", *SMALL)
    assert r.code == 2 and r.out == "" and "Traceback" not in r.err
    (line,) = r.err.splitlines()
    assert "epsilon" in line and len(line) <= 300


def test_check_budgets_refuses_an_overflowing_budget():
    """The CLI's own net (the core may also refuse such ε while parsing): m tokens × ε = inf."""
    from types import SimpleNamespace

    from privlib.cli.words import check_budgets

    check_budgets([SimpleNamespace(budget=3e300, sanitised_tokens=3)], 1e300)
    with pytest.raises(ValueError, match="Document 2: 3 sanitised tokens .* smaller epsilon"):
        check_budgets([SimpleNamespace(budget=1.0, sanitised_tokens=1),
                       SimpleNamespace(budget=float("inf"), sanitised_tokens=3)], 1e308)


def test_a_long_input_is_refused_with_its_estimate_and_runs_with_allow_long(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    zero = {"PRIVLIB_LONG_WORK_SECONDS": "0"}
    r = run_cli("sanitize", "-i", path, "--epsilon", "10", "--seed", "1", *SMALL, env=zero)
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert "sanitize would take about" in line and "--allow-long" in line
    r = run_cli("sanitize", "-i", path, "--epsilon", "10", "--seed", "1", "--allow-long", *SMALL, env=zero)
    assert r.code == 0 and r.out.count("\n") == 20


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch):
    import privlib.cli.words as word_commands

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(word_commands, "sanitize_many", interrupted)
    r = run_cli("sanitize", "the cat", "--epsilon", "10", *SMALL)
    assert r.code == 130 and r.out == "" and "Traceback" not in r.err
    (line,) = r.err.splitlines()
    assert "stopped by Ctrl-C" in line


@pytest.mark.parametrize("name", ["\x1e", "a\u2028b", "x" * 10_000])
def test_a_missing_input_is_named_on_one_line_escaped_and_cut(name):
    r = run_cli("sanitize", "-i", name, "--epsilon", "10", *SMALL)
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()  # a line separator in the name is escaped, a long name cut
    assert "no such file" in line and len(line) <= 300
