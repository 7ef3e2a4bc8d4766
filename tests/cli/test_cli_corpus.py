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
