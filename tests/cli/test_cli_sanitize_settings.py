"""`python -m privlib sanitize --mechanisms A,B,C` and ``--settings FILE`` (issue 24): the Sanitise text page's
comparison on the command line. Mechanism k draws from ``default_rng([seed, draw, k])``, the page's column k, so
the page's settings file gives the page's numbers (against the page itself in AppTest:
tests/app/test_take_home_sanitise.py); here, against the library calls the page makes, spelt out."""
from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import run_cli

from privlib.analyses.sanitise_text import SETTINGS, numbers
from privlib.cli import build_parser
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MECHANISMS, make_mechanism
from privlib.words.text import SanitisePolicy, sanitize

VOCAB = 20_000
TEXT = "Dr Smith met the patient in Paris on Monday, 3 times. The bank was closed."
#: A view far from the defaults: two mechanisms, a parameter moved, another ε, seed, resample count and policies.
VALUES = {"vocab_size": VOCAB, "seed": 3, "mechanisms": ("santext", "tem"), "tem.beta": 0.5, "epsilon": 5.0,
          "draw": 2, "oov": "keep", "case": "exact", "keep_stop_words": True, "numbers": "keep", "close": 50}
#: The same view typed as options (what the settings file's names must mean).
TYPED = ("--vocab-size", str(VOCAB), "--seed", "3", "--mechanisms", "santext,tem", "--param", "tem.beta=0.5",
         "--epsilon", "5", "--draw", "2", "--oov", "keep", "--case", "exact", "--keep-stop-words", "--numbers", "keep",
         "--close", "50")


@pytest.fixture(scope="module")
def space():
    return EmbeddingSpace.glove_6b_50d(vocab_size=VOCAB)


def settings_file(folder, values, name="settings.json", text=None):
    path = folder / name
    values = {**values, "text": text} if text is not None else values
    path.write_text(SETTINGS.to_json(values, include_private=text is not None), encoding="utf-8")
    return str(path)


def page_numbers(space, text, values) -> dict:
    """The page's numbers for ``text`` at ``values``: its calls (pages/sanitise_text.py, the exported script)."""
    v = SETTINGS.check(values)
    policy = SanitisePolicy(case=v["case"], oov=v["oov"], keep_stop_words=v["keep_stop_words"], numbers=v["numbers"])
    results = []
    for slot, name in enumerate(v["mechanisms"]):
        params = {p: v[f"{name}.{p}"] for p in MECHANISMS[name].PARAMETERS}
        rng = np.random.default_rng([v["seed"], v["draw"], slot])
        results.append(sanitize(text, make_mechanism(name, **params), v["epsilon"], space, rng, policy))
    return numbers(results, v["close"])


def test_every_setting_of_the_page_is_an_option_of_sanitize():
    """The file's names are the options' dests; a mechanism's parameter "<name>.<p>" is --param <name>.<p>=VALUE,
    the vectors --embeddings."""
    parser = build_parser().command_parsers["sanitize"]
    dests = {action.dest for action in parser._actions}  # argparse has no public list of its actions
    parameters = {f"{name}.{p}" for name, cls in MECHANISMS.items() for p in cls.PARAMETERS}
    assert set(SETTINGS.names) - dests - parameters == {"embedding"}
    assert SETTINGS.command == "sanitize"


def test_the_settings_file_gives_the_pages_numbers_with_its_text(space, tmp_path):
    r = run_cli("sanitize", "--settings", settings_file(tmp_path, VALUES, text=TEXT), "--json")
    assert r.code == 0, r.err
    assert r.err == ""  # every setting of the page is used: no note
    out = r.json()
    assert out["numbers"] == page_numbers(space, TEXT, VALUES)  # equal: the same calls and streams
    assert len(out["numbers"]) == 10 and out["numbers"]["tem, budget"] == 5.0 * out["numbers"]["tem, sanitised tokens"]
    assert [res["mechanism"] for res in out["results"]] == ["santext", "tem"] and (out["seed"], out["draw"]) == (3, 2)
    assert out["results"][0]["policy"] == {"case": "exact", "oov": "keep", "numbers": "keep", "keep_stop_words": True}
    typed = run_cli("sanitize", *TYPED, "--json", TEXT)
    assert typed.code == 0, typed.err
    assert typed.json() == out  # the file's names mean the options of the same names


def test_the_text_mode_prints_each_mechanisms_text_then_the_numbers(space, tmp_path):
    from privlib.analyses.code import read_numbers

    r = run_cli("sanitize", "--settings", settings_file(tmp_path, VALUES, text=TEXT))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("santext → ") and lines[1].startswith("tem → ") and len(lines) == 2 + 10
    assert read_numbers("\n".join(lines[2:])) == page_numbers(space, TEXT, VALUES)


def test_a_text_given_here_wins_over_the_files_and_without_any_text_one_line_says_so(space, tmp_path):
    with_text = settings_file(tmp_path, VALUES, "with.json", text="a different text altogether")
    without = settings_file(tmp_path, VALUES, "without.json")
    argument = run_cli("sanitize", "--settings", with_text, "--json", TEXT)
    assert argument.code == 0, argument.err
    assert argument.json()["numbers"] == page_numbers(space, TEXT, VALUES)
    (tmp_path / "in.txt").write_text(TEXT + "\n", encoding="utf-8")
    for source in (str(tmp_path / "in.txt"), "-"):
        lines = run_cli("sanitize", "--settings", with_text, "-i", source, "--json", stdin=TEXT + "\n")
        assert lines.code == 0, lines.err
        assert lines.json() == argument.json()  # one document: one JSON line, the same streams
    assert run_cli("sanitize", "--settings", without, "--json", TEXT).json() == argument.json()
    r = run_cli("sanitize", "--settings", without)
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert "the settings file holds no text" in line and "tick" in line


def test_an_option_given_here_wins_and_each_document_gets_every_mechanism(space, tmp_path):
    path = settings_file(tmp_path, VALUES)
    r = run_cli("sanitize", "--settings", path, "--epsilon", "2", "--param", "tem.beta=0.05", "--draw", "0", "--json",
                TEXT)
    assert r.code == 0, r.err
    assert r.json()["numbers"] == page_numbers(space, TEXT, {**VALUES, "epsilon": 2.0, "tem.beta": 0.05, "draw": 0})
    one = run_cli("sanitize", "--settings", path, "--mechanisms", "custext", "--json", TEXT)
    assert one.code == 0, one.err
    assert one.json()["numbers"] == page_numbers(space, TEXT, {**VALUES, "mechanisms": ("custext",)})
    documents = ["the cat sat on the mat", "", "Paris in the spring"]
    lines = run_cli("sanitize", "--settings", path, "-i", "-", "--json", stdin="\n".join(documents) + "\n")
    assert lines.code == 0, lines.err
    records = [json.loads(line) for line in lines.out.splitlines()]  # JSON Lines: one per document, in order
    assert [[res["text"] for res in rec["results"]] for rec in records] == [[d, d] for d in documents]
    assert records[1]["numbers"]["santext, sanitised tokens"] == 0


def test_the_draw_is_a_fresh_stream_and_without_a_seed_the_seed_used_is_reported():
    common = ("--mechanisms", "multivariate-laplace,santext", "--epsilon", "1", "--vocab-size", str(VOCAB), "--json",
              "the cat sat on the mat with the dog")
    first = run_cli("sanitize", "--seed", "5", *common).json()
    again = run_cli("sanitize", "--seed", "5", *common).json()
    other = run_cli("sanitize", "--seed", "5", "--draw", "1", *common).json()
    assert first == again and [r["sanitised"] for r in first["results"]] != [r["sanitised"] for r in other["results"]]
    fresh = run_cli("sanitize", *common).json()
    assert run_cli("sanitize", "--seed", str(fresh["seed"]), *common).json() == fresh


def test_the_files_vectors_are_read_by_name(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    words = ["the", "cat", "sat", "on", "mat"] + [f"w{i}" for i in range(195)]
    (tmp_path / "small.txt").write_text(
        "\n".join(w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(8)) for w in words) + "\n")
    monkeypatch.chdir(tmp_path)  # a name, read from the working directory as the exported script does
    path = settings_file(tmp_path, {**VALUES, "embedding": "small.txt", "vocab_size": 1000, "close": 5,
                                    "keep_stop_words": False})
    r = run_cli("sanitize", "--settings", path, "--json", "the cat sat on the mat")
    assert r.code == 0, r.err
    out = r.json()
    replacements = {t["replacement"] for res in out["results"] for t in res["tokens"]}
    assert replacements <= set(words) and out["numbers"]["santext, sanitised tokens"] == 6
    (tmp_path / "small.txt").unlink()
    r = run_cli("sanitize", "--settings", path, "the cat")
    assert r.code == 2 and "small.txt" in r.err and len(r.err.splitlines()) == 1


def test_the_files_numbers_policy_is_not_hidden_by_the_former_switch(tmp_path):
    """--sanitise-numbers shares --numbers' dest: the file's value must reach the option argparse reads."""
    path = settings_file(tmp_path, {**VALUES, "numbers": "keep"})
    r = run_cli("sanitize", "--settings", path, "--json", "in 2023 we met 40 people")
    assert r.code == 0, r.err
    assert {res["policy"]["numbers"] for res in r.json()["results"]} == {"keep"}
    assert all(t["replacement"] == t["original"] for res in r.json()["results"] for t in res["tokens"]
               if t["original"].isdigit())


@pytest.mark.parametrize("args, message", [
    (("--mechanisms", "santext,tem", "--mechanism", "tem"), "not allowed with argument"),
    (("--mechanisms", "santext,tem,custext,vickrey"), "1 to 3 different mechanisms"),
    (("--mechanisms", "santext,santext"), "1 to 3 different mechanisms"),
    (("--mechanisms", "santext,magic"), "'magic' is not a mechanism"),
    (("--mechanisms", ""), "'' is not a mechanism"),
    (("--mechanisms", "santext,tem", "--param", "beta=0.5"), "name each parameter's mechanism"),
    (("--mechanisms", "santext", "--param", "tem.beta=0.5"), "name each parameter's mechanism"),
    (("--mechanisms", "tem", "--param", "tem.beta=-1"), "beta"),
    (("--mechanism", "tem", "--draw", "1"), "--draw counts the page's resamples"),
    (("--draw", "-1",), "--draw"),
])
def test_errors_of_the_comparison_are_one_line_with_exit_code_2(args, message):
    r = run_cli("sanitize", "--epsilon", "1", "--seed", "1", "--vocab-size", "2000", *args, "the cat")
    assert r.code == 2 and r.out == "", r.err
    (line,) = r.err.splitlines()
    assert message in line and len(line) <= 300


def test_a_typed_mechanism_wins_over_the_files_comparison_and_a_bad_file_is_one_line(tmp_path):
    path = settings_file(tmp_path, VALUES, text=TEXT)
    r = run_cli("sanitize", "--settings", path, "--mechanism", "tem", "--json")  # a typed option wins over its rival
    assert r.code == 0, r.err
    result = r.json()  # the file's text, by the typed mechanism alone: no comparison
    assert result["mechanism"] == "tem" and result["text"] == TEXT and "compared" not in result
    broken = json.loads(SETTINGS.to_json(VALUES))
    broken["settings"]["mechanisms"] = "x" * 5000  # a "choices" rule lists every mechanism: the line is cut
    (tmp_path / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    r = run_cli("sanitize", "--settings", str(tmp_path / "broken.json"), "the cat")
    assert r.code == 2 and r.out == ""
    (line,) = r.err.splitlines()
    assert "mechanisms = 'xxx" in line and len(line) <= 300 and "x" * 100 not in line
