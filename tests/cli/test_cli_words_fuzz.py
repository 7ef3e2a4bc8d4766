"""Property-based check of the word-level commands' promise on bad input (issue 22): every numeric
and text option of every word command (ranks, sweep, dot, sanitize, table2, choose, sanitize-corpus,
mechanisms) gets arbitrary numbers and strings (`cli_fuzz.option_values`), one option at a time with
the others valid and small (a 2,000-word vocabulary, few samples and words, files in a fresh
folder): the command exits 0 with strict JSON, or 2 with one line of at most 300 characters, no
traceback or warning, and leaves no file behind (`cli_fuzz.assert_kept_promise`).

Not fuzzed: ``--workers`` / ``--scheduler`` (a value would start or reach a Dask cluster; their bad
values are tests/cli/test_cli_cluster.py's) and the choice options (argparse checks them). Work is
capped by a 2-second long-work limit, so a value that asks for minutes is a refusal (exit 2), as a
user would get above the one-minute limit.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest
from cli_fuzz import SMALL_WORK, assert_kept_promise, option_values
from cli_run import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Every fuzzed run: a small vocabulary and a low long-work limit (2 s, `cli_fuzz.SMALL_WORK`).
SMALL = ("--vocab-size", "2000")
ENV = SMALL_WORK
FOLDER_NAMES = (f"run{k}" for k in itertools.count())

#: (command, the valid arguments, the fuzzed options): each option replaces or adds its value.
COMMANDS = {
    "ranks": (["--word", "the", "--epsilon", "10", "--samples", "50", "--top", "3", "--seed", "1", *SMALL],
              ["--word", "--epsilon", "--samples", "--top", "--close", "--seed", "--vocab-size", "--param",
               "--embeddings"]),
    "sweep": (["--words", "5", "--epsilons", "1,10", "--seed", "1", *SMALL],
              ["--words", "--repeats", "--epsilons", "--close", "--seed", "--vocab-size", "--param"]),
    "dot": (["--n", "50", "--epsilon", "10"], ["--n", "--epsilon", "--at"]),
    "sanitize": (["--epsilon", "10", "--seed", "1", *SMALL],
                 ["--epsilon", "--close", "--seed", "--vocab-size", "--param", "-i", "TEXT", "--mechanisms", "--draw",
                  "--settings"]),
    "table2": (["--words", "10", "--seed", "1", *SMALL], ["--words", "--far", "--seed", "--vocab-size"]),
    "choose": (["--words", "5", "--epsilons", "1,10", "--samples", "5", "--seed", "1", *SMALL],
               ["--words", "--epsilons", "--samples", "--target-close", "--max-keep", "--sentence-length",
                "--close", "--seed", "--vocab-size", "--param", "--words-file", "--report"]),
    "sanitize-corpus": (["--epsilon", "10", "--seed", "1", "--id-column", "id", *SMALL],
                        ["--epsilon", "--text-column", "--id-column", "--keep-original", "--partition-size",
                         "--seed", "--vocab-size", "--param", "IN", "OUT"]),
    "word-attack": (["--epsilon", "2", "--candidates", "100", "--samples-per-word", "2", "--close", "20", "--seed", "1",
                     *SMALL],
                    ["--epsilon", "--candidates", "--samples-per-word", "--runs", "--epsilons", "--target", "--close",
                     "--seed", "--vocab-size", "--param", "--embeddings"]),
}
#: File contents fuzzed as well (the text a command reads): sanitize -i and --settings, choose --words-file, a
#: corpus text.
CONTENTS = ["sanitize -i", "sanitize --settings", "choose --words-file", "sanitize-corpus text"]
#: The commands whose runs cost more than a fraction of a second: fewer examples unless slow tests run.
HEAVY = {"sweep", "table2", "choose", "sanitize-corpus"}


def with_option(base: list, option: str, value: str) -> list:
    """``base`` with ``option`` set to ``value`` (replacing a value already there)."""
    args = list(base)
    if option in args:
        at = args.index(option)
        args[at + 1] = value
        return args
    return [*args, option, value]


def corpus_lines(texts) -> str:
    return "".join(json.dumps({"id": f"d{k}", "text": text}) + "\n" for k, text in enumerate(texts))


def arguments(command: str, option: str, value: str, folder) -> list:
    """The command line of one fuzzed run: the valid base with ``option`` = ``value``; input files in ``folder``."""
    base, _ = COMMANDS[command]
    if command == "sanitize":
        if option == "TEXT":
            return [command, *base, "--json", "--", value]
        if option == "-i":
            return [command, *with_option(base, "-i", value), "--json"]
        if option == "--settings":  # a file's name in the run's folder (its contents: CONTENTS, and the values below)
            return [command, *base, "--settings", str(folder / value), "--json", "--", "the cat sat on the mat"]
        if option == "--draw":  # the resample count of --mechanisms
            return [command, *base, "--mechanisms", "santext,tem", "--draw", value, "--json", "--", "the cat sat"]
        return [command, *with_option(base, option, value), "--json", "--", "the cat sat on the mat"]
    if command == "sanitize-corpus":
        source = folder / "in.jsonl"
        source.write_text(corpus_lines(["the cat sat", "on the mat", ""]), encoding="utf-8")
        paths = [str(source), str(folder / "out.jsonl")]
        if option in ("IN", "OUT"):
            paths[0 if option == "IN" else 1] = value if option == "IN" else str(folder / value)
            return [command, *paths, *base, "--json"]
        return [command, *paths, *with_option(base, option, value), "--json"]
    if command == "choose" and option == "--report":
        return [command, *base, "--report", str(folder / value), "--json"]
    if command == "sweep" and option == "--repeats":  # --words is its older name: give only one
        at = base.index("--words")
        base = base[:at] + base[at + 2:]
    return [command, *with_option(base, option, value), "--json"]


def strict_lines(result):
    """A `CliResult` whose stdout holds JSON Lines (sanitize -i) as one strict JSON array."""
    if result.code != 0:
        return result
    lines = [line for line in result.out.split("\n") if line]
    return replace(result, out="[" + ",".join(lines) + "]")


def check(folder, argv, stdin=None):
    before = sorted(p.name for p in folder.iterdir())
    result = strict_lines(run_cli(*argv, stdin=stdin, env=ENV))
    assert_kept_promise(result, folder, before)
    if result.code == 0:  # a success leaves its output and nothing else (no temporary file)
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


def fuzz_settings(command: str, slow: bool = False):
    examples = 60 if slow else (15 if command in HEAVY else 40)
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


CASES = [(command, option) for command, (_, options) in COMMANDS.items() for option in options]


def new_folder(tmp_path):
    folder = tmp_path / next(FOLDER_NAMES)
    folder.mkdir()
    return folder


def fuzz_option(command, option, tmp_path, slow):
    @fuzz_settings(command, slow)
    @given(value=option_values())
    def run(value):
        folder = new_folder(tmp_path)
        check(folder, arguments(command, option, value, folder))

    run()


@pytest.mark.parametrize("command, option", CASES, ids=[f"{c} {o}" for c, o in CASES])
def test_every_option_keeps_the_promise(command, option, tmp_path):
    fuzz_option(command, option, tmp_path, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("command, option", [c for c in CASES if c[0] in HEAVY],
                         ids=[f"{c} {o}" for c, o in CASES if c in HEAVY])
def test_every_option_of_the_heavy_commands_keeps_the_promise_on_more_values(command, option, tmp_path):
    fuzz_option(command, option, tmp_path, slow=True)


def texts():
    """Any text as a file's contents: edge values, arbitrary characters (line and paragraph
    separators, controls) and lines of them."""
    return st.one_of(option_values(), st.lists(st.text(max_size=30), max_size=5).map("\n".join),
                     st.sampled_from(["a\x0bb\nc", "\u2028\u2029\x85", "\r\n\r\n", "\ufeffthe cat", "the\x00cat"]))


@pytest.mark.parametrize("what", CONTENTS)
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=texts())
def test_any_file_contents_keep_the_promise(what, content, tmp_path):
    folder = new_folder(tmp_path)
    if what == "sanitize -i":
        (folder / "in.txt").write_text(content, encoding="utf-8", errors="surrogatepass")
        check(folder, ["sanitize", "-i", str(folder / "in.txt"), "--epsilon", "10", "--seed", "1", *SMALL, "--json"])
        result = run_cli("sanitize", "-i", str(folder / "in.txt"), "--epsilon", "10", "--seed", "1", *SMALL, env=ENV)
        if result.code == 0:  # one output line per input document, documents split at \n only
            expected = content.split("\n")
            expected = expected[:-1] if expected[-1] == "" else expected
            assert result.out.count("\n") == len(expected)
    elif what == "sanitize --settings":
        (folder / "settings.json").write_text(content, encoding="utf-8", errors="surrogatepass")
        check(folder, ["sanitize", "--settings", str(folder / "settings.json"), *SMALL, "--json", "the cat"])
    elif what == "choose --words-file":
        (folder / "words.txt").write_text(content, encoding="utf-8", errors="surrogatepass")
        check(folder, ["choose", "--words-file", str(folder / "words.txt"), "--epsilons", "1,10", "--samples", "5",
                       "--seed", "1", *SMALL, "--json"])
    else:
        (folder / "in.jsonl").write_text(corpus_lines([content, "the cat"]), encoding="utf-8")
        check(folder, ["sanitize-corpus", str(folder / "in.jsonl"), str(folder / "out.jsonl"), "--epsilon", "10",
                       "--seed", "1", "--id-column", "id", *SMALL, "--json"])


def json_values():
    """A settings file's value: any JSON value (numbers, text, lists, null, true/false, nested)."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
                        st.floats(allow_nan=False, allow_infinity=False), option_values())
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                                              max_size=3), max_leaves=8)


#: The Sanitise text page's settings fuzzed in its settings file (`sanitize --settings`): every one but the
#: mechanisms' parameters, and one parameter of a compared mechanism.
SANITISE_SETTINGS = ["embedding", "vocab_size", "seed", "text", "mechanisms", "epsilon", "draw", "oov", "case",
                     "keep_stop_words", "numbers", "close", "tem.beta", "colour"]


@pytest.mark.parametrize("name", SANITISE_SETTINGS)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(value=json_values())
def test_any_value_in_the_pages_settings_file_keeps_the_promise(name, value, tmp_path):
    """A page's settings file with one value replaced (an unknown name too: "colour"): the command runs or says
    which setting it cannot use, in one line."""
    from privlib.analyses.sanitise_text import SETTINGS

    folder = new_folder(tmp_path)
    payload = json.loads(SETTINGS.to_json({"vocab_size": 2000, "mechanisms": ("santext", "tem")}))
    payload["settings"][name] = value
    (folder / "settings.json").write_text(json.dumps(payload), encoding="utf-8")
    check(folder, ["sanitize", "--settings", str(folder / "settings.json"), "--json", "the cat sat"])
