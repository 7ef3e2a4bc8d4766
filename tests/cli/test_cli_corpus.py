"""`python -m privlib sanitize-corpus` as a user runs it (in this process, `run_cli`): the
summary, the progress bar, a local cluster giving the in-process bytes, and bad input (one line,
exit 2, no file left behind). That an in-process run imports no Dask needs a fresh process:
tests/cli/test_cli_commands.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run_cli

import privlib.words.cluster as cluster_module
from privlib.cli import EXIT_USAGE
from privlib.words.text import PAPER_EXAMPLE

SMALL = ("--vocab-size", "20000")
DOCUMENTS = [PAPER_EXAMPLE, "The quick brown fox, 42 times!", "", "I'm sure John's cat isn't Zqxvbl's."] * 10


def write_jsonl(path, documents=DOCUMENTS):
    path.write_text("".join(json.dumps({"id": f"doc-{i}", "text": t}) + "\n" for i, t in enumerate(documents)),
                    encoding="utf-8")
    return path


def test_json_summary_progress_and_output(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl")
    target = tmp_path / "out.jsonl"
    r = run_cli("sanitize-corpus", source, target, "--id-column", "id", "--epsilon", "5", "--seed", "3",
                "--partition-size", "7", "--progress", "--json", *SMALL)
    assert r.code == 0, r.err
    summary = r.json()
    assert summary["documents"] == 40 and summary["output"] == str(target) and summary["workers"] == 0
    assert summary["tokens"] > summary["tokens_sanitised"] > 300 and summary["seconds"] > 0
    assert summary["partitions"] == 6 and summary["largest_epsilon_spent"] == 5 * 33
    assert "40 of 40 documents" in r.err and "took" in r.err  # the progress bar, on stderr
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == [f"doc-{i}" for i in range(40)]
    assert sum(row["text"] != doc for row, doc in zip(rows, DOCUMENTS)) >= 25
    assert all(row["epsilon_spent"] == 5 * row["tokens_sanitised"] for row in rows)
    # text mode: one line saying what was done
    r = run_cli("sanitize-corpus", source, tmp_path / "out2.jsonl", "--id-column", "id", "--epsilon", "5",
                "--seed", "3", *SMALL)
    assert r.code == 0, r.err
    assert r.out.startswith("Sanitised 40 documents") and r.out.count("\n") == 1
    assert (tmp_path / "out2.jsonl").read_bytes() == target.read_bytes()  # another partition size, same bytes


def test_a_local_cluster_gives_the_in_process_bytes(tmp_path):
    """--workers 2: the same Parquet file as in this process (Dask imported, the space loaded on
    each worker)."""
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": list(range(len(DOCUMENTS))), "text": DOCUMENTS}), source)
    common = ("--id-column", "id", "--epsilon", "5", "--seed", "11", "--partition-size", "3", "--json", *SMALL)
    here = run_cli("sanitize-corpus", source, tmp_path / "here.parquet", *common)
    there = run_cli("sanitize-corpus", source, tmp_path / "there.parquet", "--workers", "2", *common)
    assert here.code == 0, here.err
    assert there.code == 0, there.err
    assert there.json()["workers"] == 2
    assert (tmp_path / "there.parquet").read_bytes() == (tmp_path / "here.parquet").read_bytes()


def bad_inputs():
    """(file name, how to write it, extra options, what the one-line error must say)."""
    return [
        ("in.jsonl", lambda p: write_jsonl(p), ("--text-column", "body"),
         r"in\.jsonl, line 1 has no field 'body'; its fields: 'id', 'text'\."),
        ("in.csv", lambda p: p.write_text("id,content\n1,hello\n"), (),
         r"in\.csv has no column 'text'; its columns: 'id', 'content'\."),
        ("in.parquet", lambda p: pq.write_table(pa.table({"text": ["a", None]}), p), (),
         r"in\.parquet, row 1 \(the 2nd document\): its 'text' value is missing \(null\), not text\."),
        ("in.jsonl", lambda p: p.write_text('{"id": "x1", "text": "fine"}\n{"id": "x2", "text": [1, 2]}\n'),
         ("--id-column", "id"),
         r"in\.jsonl, row 1 \(the 2nd document; id 'x2'\): its 'text' value is a list, not text\."),
        ("in.parquet", lambda p: pq.write_table(pa.table({"text": [1, 2]}), p), (),
         r"in\.parquet: the column 'text' holds int64 values, not text\."),
        ("in.parquet", lambda p: p.write_bytes(b"this is not parquet"), (),
         r"Cannot read in\.parquet: it is not a Parquet file"),
        ("in.jsonl", lambda p: None, (), r"Cannot read .*in\.jsonl: no such file\."),
        ("in.txt", lambda p: p.write_text("hello\n"), (), r"Cannot tell the format of in\.txt from its extension"),
    ]


@pytest.mark.parametrize("name, write, options, message", bad_inputs(),
                         ids=["missing-column-jsonl", "missing-column-csv", "null-text", "list-text",
                              "number-column", "not-parquet", "no-file", "unknown-format"])
def test_bad_input_is_one_line_exit_2_and_no_file(tmp_path, name, write, options, message):
    source = tmp_path / name
    write(source)
    before = {p.name for p in tmp_path.iterdir()}
    target = tmp_path / f"out{Path(name).suffix}"
    r = run_cli("sanitize-corpus", source, target, "--epsilon", "5", "--seed", "1", *SMALL, *options)
    err = r.err
    assert r.code == EXIT_USAGE and r.out == ""
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert re.search(message, err), err
    assert {p.name for p in tmp_path.iterdir()} == before  # no output, no temporary file


def test_an_unreachable_scheduler_is_one_line_exit_2_and_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1)  # refused at once; the default waits 10 s
    source = write_jsonl(tmp_path / "in.jsonl")
    r = run_cli("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "5",
                "--scheduler", "tcp://127.0.0.1:9", *SMALL)
    err = r.err
    assert r.code == EXIT_USAGE and err.count("\n") == 1
    assert "Cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert {p.name for p in tmp_path.iterdir()} == {"in.jsonl"}


def test_argument_errors_exit_2(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", DOCUMENTS[:2])
    r = run_cli("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "5", "--workers", "2",
                "--scheduler", "tcp://x:1")
    assert r.code == EXIT_USAGE and "not allowed with argument" in r.err
    r = run_cli("sanitize-corpus", source, tmp_path / "out.csv", "--epsilon", "5", *SMALL)
    assert r.code == EXIT_USAGE and r.err.count("\n") == 1
    assert "must be in the format of the input (JSON Lines" in r.err
    assert {p.name for p in tmp_path.iterdir()} == {"in.jsonl"}


# ----------------------------------------------------------------------------- issue 22: bad input, nothing left


def run_corpus(source, target, *extra):
    return run_cli("sanitize-corpus", source, target, "--epsilon", "5", "--seed", "1", *extra, *SMALL)


def assert_one_line_and_nothing_written(r, folder, before):
    assert r.code == EXIT_USAGE and r.out == "", r.err
    (line,) = r.err.splitlines()
    assert "error: " in line and len(line) <= 300 and "Traceback" not in r.err
    assert sorted(p.name for p in folder.iterdir()) == before
    return line


@pytest.mark.parametrize("content, said", [
    ('{"text": "the cat", "score": NaN}\n', "holds NaN, which is not JSON"),
    ('{"text": "the cat", "score": -Infinity}\n', "holds -Infinity, which is not JSON"),
    ("[" * 100_000 + "\n", "nested too deeply"),
])
def test_json_that_is_not_standard_or_too_deep_is_refused_with_its_line(tmp_path, content, said):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "fine"}\n' + content, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(run_corpus(source, tmp_path / "out.jsonl"), tmp_path, before)
    assert said in line and "line 2" in line


def test_duplicate_ids_are_refused_naming_the_first_duplicate_row(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", ["a", "b", "c", "d"])
    rows = source.read_text(encoding="utf-8").replace('"doc-3"', '"doc-1"')  # row 3 repeats row 1's id
    source.write_text(rows, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(
        run_corpus(source, tmp_path / "out.jsonl", "--id-column", "id", "--partition-size", "2"), tmp_path, before)
    assert "row 3" in line and "row 1" in line and "unique" in line


def test_an_unterminated_csv_quote_is_refused_not_read_to_the_end(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text('id,text\n1,"never closed\n2,hello\n3,world\n', encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(run_corpus(source, tmp_path / "out.csv"), tmp_path, before)
    assert "not valid CSV" in line and "quote" in line


def test_a_csv_that_is_not_utf8_names_the_file_and_line(tmp_path):
    source = tmp_path / "in.csv"
    source.write_bytes(b"id,text\n1,fine\n2,caf\xe9\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(run_corpus(source, tmp_path / "out.csv"), tmp_path, before)
    assert "in.csv" in line and "line 3" in line


@pytest.mark.parametrize("target, said", [
    ("folder.jsonl", "it is a folder"),
    ("x" * 300 + ".jsonl", "longer than 255 bytes"),
    ("in.jsonl", "replace the input"),
    ("link.jsonl", "replace the input"),  # a hard link to the input: the same file by another name
])
def test_an_output_that_is_a_folder_too_long_or_the_input_is_refused(tmp_path, target, said):
    source = write_jsonl(tmp_path / "in.jsonl", ["the cat"])
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "link.jsonl").hardlink_to(source)
    original = source.read_bytes()
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(run_corpus(source, tmp_path / target), tmp_path, before)
    assert said in line
    assert source.read_bytes() == original


def test_keep_original_with_an_empty_name_is_refused(tmp_path):
    """--keep-original '' was ignored (no original column, no word said): it needs a name."""
    source = write_jsonl(tmp_path / "in.jsonl", ["the cat"])
    before = sorted(p.name for p in tmp_path.iterdir())
    line = assert_one_line_and_nothing_written(run_corpus(source, tmp_path / "out.jsonl", "--keep-original", ""),
                                               tmp_path, before)
    assert "--keep-original needs a column name" in line


def test_a_budget_too_large_for_a_float_is_refused_not_written_as_infinity(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", ["the cat sat on the mat with the dog"])
    before = sorted(p.name for p in tmp_path.iterdir())
    r = run_cli("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "1e308", "--seed", "1", "--json", *SMALL)
    line = assert_one_line_and_nothing_written(r, tmp_path, before)
    assert "epsilon" in line  # refused while parsing (core's range) or after (the budget overflows)


def test_a_long_corpus_is_refused_with_its_estimate_and_runs_with_allow_long(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", ["the cat sat on the mat"] * 50)
    before = sorted(p.name for p in tmp_path.iterdir())
    zero = {"PRIVLIB_LONG_WORK_SECONDS": "0"}
    r = run_cli("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "5", "--seed", "1", *SMALL, env=zero)
    line = assert_one_line_and_nothing_written(r, tmp_path, before)
    assert "sanitize-corpus would take about" in line and "--allow-long" in line
    r = run_cli("sanitize-corpus", source, tmp_path / "out.jsonl", "--epsilon", "5", "--seed", "1", "--allow-long",
                *SMALL, env=zero)
    assert r.code == 0, r.err
    assert (tmp_path / "out.jsonl").is_file()


def test_ctrl_c_is_one_line_exit_130_and_no_partial_file(tmp_path, monkeypatch):
    import privlib.words.corpus as corpus_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(corpus_module, "sanitise_partition", interrupted)
    source = write_jsonl(tmp_path / "in.jsonl", ["the cat"] * 5)
    before = sorted(p.name for p in tmp_path.iterdir())
    r = run_corpus(source, tmp_path / "out.jsonl", "--keep-original", "original")
    assert r.code == 130 and r.out == "" and "Traceback" not in r.err
    (line,) = r.err.splitlines()
    assert "stopped by Ctrl-C" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_mid_run_leaves_no_partial_file_holding_the_originals(tmp_path, signame):
    """A real process, stopped while it writes: no hidden .partial file (which held the original
    texts with --keep-original) is left beside OUT, and the exit is one line with 128 + the signal."""
    import os
    import signal
    import subprocess
    import sys
    import time

    source = write_jsonl(tmp_path / "in.jsonl", [PAPER_EXAMPLE] * 60_000)
    before = sorted(p.name for p in tmp_path.iterdir())
    root = Path(__file__).resolve().parents[2]
    def as_from_a_terminal():
        # a shell starts a background job with SIGINT ignored (and nohup, SIGHUP): the command then
        # keeps ignoring it, as it should; here it gets them as a command started from a terminal
        for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "-m", "privlib", "sanitize-corpus", str(source), str(tmp_path / "out.jsonl"), "--epsilon",
         "5", "--seed", "1", "--keep-original", "original", "--partition-size", "200", "--allow-long", *SMALL],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal)
    try:
        deadline = time.monotonic() + 120
        while not any(p.name.endswith(".partial") and p.stat().st_size > 0 for p in tmp_path.iterdir()):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no partial file appeared"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    number = getattr(signal, signame)
    assert proc.returncode == 128 + number, (proc.returncode, err[-2000:])
    lines = [line for line in err.strip().splitlines() if not line.startswith("progress ")]  # long work: progress
    assert len(lines) == 1 and "stopped by" in lines[0] and "Traceback" not in err, err[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == before, os.listdir(tmp_path)
