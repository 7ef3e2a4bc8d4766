"""Sanitising a corpus (privlib.words.corpus): per-document randomness, the grouped Laplace
sampler, the three file formats, and a 2-process Dask LocalCluster giving the in-process bytes —
also when a worker is killed mid-run."""
from __future__ import annotations

import csv
import json
import os
import signal
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import privlib.words.mechanisms.laplace as laplace_module
from privlib.words.cluster import SpaceSpec, stream_tasks
from privlib.words.corpus import (
    ADDED_COLUMNS,
    document_generator,
    sanitize_corpus,
)
from privlib.words.mechanisms import Mechanism, MultivariateLaplace, make_mechanism
from privlib.words.text import PAPER_EXAMPLE, SanitisePolicy, sanitize, sanitize_many, sanitize_per_document

SPEC = SpaceSpec(vocab_size=20000)
SEED = 20240611
FORMATS = ("jsonl", "csv", "parquet")


# ---------------------------------------------------------------------------------------------
# a small corpus in the three formats


def corpus_rows(n: int = 150, seed: int = 0) -> list[dict]:
    """Documents of 3-40 words drawn from the 5,000 most frequent words, with the paper's example,
    out-of-vocabulary words, contractions, numbers, an empty text and non-ASCII among them."""
    words = SPEC.load().words[:5000]
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        text = " ".join(rng.choice(words, int(rng.integers(3, 41))))
        if i % 10 == 0:
            text = PAPER_EXAMPLE
        elif i % 10 == 1:
            text = "Zqxvbl met Blorfington: I'm sure John's 42 cats aren't here — 3.14 % café!"
        elif i % 37 == 5:
            text = ""
        rows.append({"id": f"d{i:04d}", "text": text, "n": i, "score": i / 7})
    return rows


def write_corpus(path, rows) -> None:
    if path.suffix == ".jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({**row, "tags": ["x", row["n"], {"deep": None}]}, ensure_ascii=False) + "\n")
    elif path.suffix == ".csv":
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)


def read_corpus(path) -> list[dict]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if path.suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    return pq.read_table(path).to_pylist()


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """The corpus in each format, and its in-process sanitisation (partitions of 13 documents)."""
    folder = tmp_path_factory.mktemp("corpus")
    rows = corpus_rows()
    out = {}
    for fmt in FORMATS:
        source = folder / f"in.{fmt}"
        write_corpus(source, rows)
        target = folder / f"in-process.{fmt}"
        sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC, partition_size=13)
        out[fmt] = (source, target)
    return rows, out


@pytest.fixture
def cluster(dask_client):
    """The session's LocalCluster of 2 single-threaded worker processes (``dask_client``, in
    tests/words/conftest.py, shared with the other cluster tests), with both workers up."""
    dask_client.wait_for_workers(2, timeout=60)
    return dask_client


def entries(folder) -> set:
    return {p.name for p in folder.iterdir()}


# ---------------------------------------------------------------------------------------------
# per-document randomness and the grouped sampler


def test_document_generator_is_a_function_of_seed_and_id():
    draw = lambda seed, doc: document_generator(seed, doc).integers(2**63, size=4).tolist()  # noqa: E731
    assert draw(1, "a") == draw(1, "a")
    assert draw(1, "a") != draw(1, "b") and draw(1, "a") != draw(2, "a")
    assert draw(1, 7) == draw(1, "7")  # the id counts as text
    assert draw(2**127 + 1, "a") == draw(2**127 + 1, "a") != draw(1, "a")  # 128-bit seeds


@pytest.mark.parametrize("batch", [5, 20_000])
def test_laplace_grouped_sampler_equals_the_base_class_default(glove_small, monkeypatch, batch):
    """MultivariateLaplace.sample_groups (noise per group, one batched search) returns exactly what
    the base class gives (one sample_many per group), and leaves every generator in the same state.
    With a search batch of 5 rows, groups are cut into chunks and chunks of several groups share
    a search."""
    monkeypatch.setattr(laplace_module, "SAMPLE_BATCH", batch)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 14, size=40)
    counts[[0, 7, 39]] = 0  # empty groups, also first and last
    rows = rng.integers(0, len(glove_small), size=int(counts.sum()))
    eps = rng.choice([1.0, 5.0, 20.0], size=rows.size)  # several epsilons within a group
    mechanism = MultivariateLaplace.family()
    mine = [np.random.default_rng([SEED, g]) for g in range(counts.size)]
    default = [np.random.default_rng([SEED, g]) for g in range(counts.size)]
    grouped = mechanism.sample_groups(glove_small, rows, eps, mine, counts)
    expected = Mechanism.sample_groups(mechanism, glove_small, rows, eps, default, counts)
    np.testing.assert_array_equal(grouped, expected)
    assert grouped.dtype == np.int64 and (grouped != rows).any()
    assert [g.bit_generator.state for g in mine] == [g.bit_generator.state for g in default]


def test_grouped_sampler_checks_its_arguments(glove_small):
    mechanism = MultivariateLaplace.family()
    gens = [np.random.default_rng(0)]
    with pytest.raises(ValueError, match="add up to 3, but there are 2 rows"):
        mechanism.sample_groups(glove_small, [1, 2], 5.0, gens, [3])
    with pytest.raises(ValueError, match="one generator per group"):
        mechanism.sample_groups(glove_small, [1, 2], 5.0, gens, [1, 1])


def test_per_document_results_equal_sanitize_with_each_documents_generator(glove_small):
    """Document d of one batched call gives what `sanitize` gives for it alone with its generator:
    its output depends on nothing else in the call. The "random" out-of-vocabulary policy draws from
    the document's generator too."""
    texts = [row["text"] for row in corpus_rows(12)]
    policy = SanitisePolicy(oov="random", keep_stop_words=True)
    for mechanism in (MultivariateLaplace.family(), make_mechanism("santext")):
        batched = sanitize_per_document(texts, [document_generator(SEED, i) for i in range(len(texts))],
                                        mechanism, 5.0, glove_small, policy)
        alone = [sanitize(t, mechanism, 5.0, glove_small, document_generator(SEED, i), policy)
                 for i, t in enumerate(texts)]
        # every field but the cosine, which BLAS sums in another order for another batch (last bit)
        exact = lambda results: [[{**r.to_dict(), "cosine": None} for r in result.records]  # noqa: E731
                                 for result in results]
        assert exact(batched) == exact(alone)
        assert [r.sanitised for r in batched] == [r.sanitised for r in alone]
        cosines = lambda results: [r.cosine or 0.0 for result in results for r in result.records]  # noqa: E731
        assert cosines(batched) == pytest.approx(cosines(alone), abs=1e-12)
        assert any(rec.action == "random" for r in batched for rec in r.records)
        assert sum(r.sanitised != r.text for r in batched) >= 8


def test_sanitize_many_shares_one_stream_but_per_document_results_stand_alone(glove_small):
    """`sanitize_many` keeps drawing from one stream shared in document order (a document's output
    depends on the documents before it); with one generator per document it does not."""
    texts = [PAPER_EXAMPLE, "the quick brown fox jumps over the lazy dog near the river bank"]
    alone = sanitize_many(texts[1:], None, 2.0, glove_small, 4)[0]
    after_another = sanitize_many(texts, None, 2.0, glove_small, 4)[1]
    assert alone.sanitised != after_another.sanitised
    alone = sanitize_per_document(texts[1:], [document_generator(4, 1)], None, 2.0, glove_small)[0]
    after_another = sanitize_per_document(texts, [document_generator(4, 0), document_generator(4, 1)], None, 2.0,
                                          glove_small)[1]
    assert alone.to_dict() == after_another.to_dict()


# ---------------------------------------------------------------------------------------------
# the corpus, in-process


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_rows_keep_the_input_order_and_columns_and_add_the_budget(corpora, glove_small, fmt):
    rows, files = corpora
    source, target = files[fmt]
    out = read_corpus(target)
    assert len(out) == len(rows)
    first_columns = list(out[0])
    input_columns = ["id", "text", "n", "score"] + (["tags"] if fmt == "jsonl" else [])
    assert first_columns == input_columns + list(ADDED_COLUMNS)
    cast = str if fmt == "csv" else (lambda v: v)
    for k, (given, got) in enumerate(zip(rows, out)):
        assert got["id"] == given["id"] and got["n"] == cast(given["n"]) and got["score"] == cast(given["score"])
        if fmt == "jsonl":
            assert got["tags"] == ["x", given["n"], {"deep": None}]
        alone = sanitize(given["text"], None, 5.0, glove_small, document_generator(SEED, given["id"]))
        assert got["text"] == alone.sanitised, k
        m = alone.sanitised_tokens
        assert got["tokens_sanitised"] == cast(m) and got["epsilon_spent"] == cast(5.0 * m)
        redacted = sum(r.action == "redacted" for r in alone.records)
        assert got["tokens_redacted"] == cast(redacted)
        assert got["tokens_unprotected"] == cast(0)  # the default policy keeps only punctuation
        assert got["mechanism"] == "multivariate-laplace(nearest=exact)" and got["epsilon_per_token"] == cast(5.0)
        assert got["policy"] == "case=match; oov=redact; numbers=sanitise; stop_words=sanitise"
    assert sum(r["text"] != g["text"] for r, g in zip(out, rows)) > len(rows) // 2
    assert sum(r["tokens_redacted"] not in (0, "0") for r in out) >= 15  # the out-of-vocabulary rows


def test_output_does_not_depend_on_the_partition_size(corpora, tmp_path):
    """Partitions of 7 and of 1000 documents: the same bytes, in every format (Parquet row groups
    have a fixed size)."""
    _, files = corpora
    for fmt, (source, reference) in files.items():
        for size in (7, 1000):
            target = tmp_path / f"out-{size}.{fmt}"
            sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC,
                            partition_size=size)
            assert target.read_bytes() == reference.read_bytes(), (fmt, size)


def test_rerun_gives_the_same_bytes_and_the_seed_and_id_matter(corpora, tmp_path):
    rows, files = corpora
    source, reference = files["jsonl"]
    again = tmp_path / "again.jsonl"
    sanitize_corpus(source, again, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC, partition_size=13)
    assert again.read_bytes() == reference.read_bytes()
    other_seed = tmp_path / "other.jsonl"
    sanitize_corpus(source, other_seed, id_column="id", epsilon=5.0, seed=SEED + 1, space_spec=SPEC)
    by_row = tmp_path / "by-row.jsonl"  # ids: row numbers instead of the id column
    sanitize_corpus(source, by_row, epsilon=5.0, seed=SEED, space_spec=SPEC)
    texts = [[r["text"] for r in read_corpus(p)] for p in (reference, other_seed, by_row)]
    assert sum(a != b for a, b in zip(texts[0], texts[1])) > len(rows) // 2
    assert sum(a != b for a, b in zip(texts[0], texts[2])) > len(rows) // 2


def test_a_documents_output_depends_only_on_seed_id_and_text(corpora, tmp_path):
    """The same documents reversed, with a few others in between, give each document the same row."""
    rows, files = corpora
    shuffled = list(reversed(rows[:40])) + [{"id": "new", "text": "another document", "n": -1, "score": 0.0}]
    source = tmp_path / "shuffled.jsonl"
    write_corpus(source, shuffled)
    target = tmp_path / "shuffled-out.jsonl"
    sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC, partition_size=3)
    reference = {r["id"]: r for r in read_corpus(files["jsonl"][1])}
    for got in read_corpus(target)[:40]:
        assert got == reference[got["id"]]


def test_the_original_text_is_only_written_when_asked(corpora, tmp_path):
    rows, files = corpora
    target = tmp_path / "with-original.csv"
    sanitize_corpus(files["csv"][0], target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC,
                    original_column="original")
    out = read_corpus(target)
    assert [r["original"] for r in out] == [r["text"] for r in rows]
    assert [r["text"] for r in out] == [r["text"] for r in read_corpus(files["csv"][1])]
    assert "original" not in read_corpus(files["csv"][1])[0]


def test_a_bad_row_late_in_the_file_leaves_no_partial_output_and_the_old_target(tmp_path):
    rows = corpus_rows(60)
    source = tmp_path / "in.jsonl"
    lines = [json.dumps(r) for r in rows]
    lines[47] = json.dumps({"id": "d0047", "text": 12})  # a number, not text
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "out.jsonl"
    target.write_text("the previous output\n")
    done = []
    with pytest.raises(ValueError, match=r"in\.jsonl, row 47 \(the 48th document; id 'd0047'\): its 'text' value "
                                         r"is a number, not text\."):
        sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=1, space_spec=SPEC, partition_size=5,
                        progress=lambda d, t: done.append((d, t)))
    assert done and done[-1][0] >= 40  # the partitions before it had been written to the temporary file
    assert target.read_text() == "the previous output\n"
    assert entries(tmp_path) == {"in.jsonl", "out.jsonl"}


@pytest.mark.parametrize("setup, message", [
    (lambda p: p.write_text('{"body": "x", "id": 1}\n'), r"in\.jsonl, line 1 has no field 'text'; its fields: "
                                                         r"'body', 'id'\."),
    (lambda p: p.write_text('{"text": null}\n'), r"row 0 \(the 1st document\): its 'text' value is missing \(null\)"),
    (lambda p: p.write_text('{"text": "a"}\nnot json\n'), r"Cannot read in\.jsonl: line 2 is not JSON"),
    (lambda p: p.write_bytes(b'{"text": "caf\xe9"}\n'), r"Cannot read in\.jsonl: line 1 is not UTF-8 text"),
    (lambda p: p.write_text('{"text": "a", "epsilon_spent": 3}\n'), r"already has the column 'epsilon_spent'"),
    (lambda p: None, r"Cannot read .*in\.jsonl: no such file"),
])
def test_bad_input_is_one_clear_value_error_and_no_file(tmp_path, setup, message):
    source = tmp_path / "in.jsonl"
    setup(source)
    before = entries(tmp_path)
    with pytest.raises(ValueError, match=message):
        sanitize_corpus(source, tmp_path / "out.jsonl", epsilon=1.0, seed=1, space_spec=SPEC)
    assert entries(tmp_path) == before


def test_stream_tasks_holds_a_bounded_number_of_items():
    """On a cluster, at most `window` items are read ahead of the one yielded, and results come in
    input order even when later tasks finish first (a stand-in client whose futures finish in
    reverse order of submission)."""

    class Future:
        def __init__(self, value):
            self.value, self.cancelled = value, False

        def result(self):
            return self.value

        def cancel(self):
            self.cancelled = True

    class Client:
        def nthreads(self):
            return {"a": 1, "b": 1}

        def submit(self, function, *args, pure=True):
            return Future(function(*args))

    pulled = []

    def items():
        for i in range(50):
            pulled.append(i)
            yield i

    out = []
    for item, result in stream_tasks(Client(), lambda x: x * x, items(), lambda i: (i,)):
        assert len(pulled) - len(out) <= 4  # default window: two per worker thread
        out.append((item, result))
    assert out == [(i, i * i) for i in range(50)]


# ---------------------------------------------------------------------------------------------
# on a cluster


@pytest.mark.parametrize("fmt", FORMATS)
def test_cluster_output_equals_in_process_byte_for_byte(corpora, cluster, tmp_path, fmt):
    _, files = corpora
    source, reference = files[fmt]
    target = tmp_path / f"cluster.{fmt}"
    summary = sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC,
                              partition_size=13, client=cluster)
    assert summary.documents == 150 and summary.partitions == 12
    assert target.read_bytes() == reference.read_bytes()


def test_killing_a_worker_mid_run_still_gives_the_complete_identical_output(corpora, cluster, tmp_path):
    """A worker holding a partition of the run is killed (SIGKILL) once 20 documents are written:
    Dask runs its lost partitions again on the other worker (or its restarted replacement), and
    since a partition's result depends only on its arguments, the file is complete and the same,
    byte for byte."""
    _, files = corpora
    source, reference = files["jsonl"]
    killed = {}

    def kill_a_worker_holding_a_partition(done, total):
        # A handshake, not a race: while this callback runs, the stream is paused with the tasks it
        # submitted and has not yet handed out (`stream_tasks`: its window less one) and collects
        # none of them, so each task is queued, running on a worker, or finished with its result
        # kept on that worker until collected. Waiting for one to be running or finished waits for
        # something that must happen, however busy the machine (before: a 10 s deadline to see a
        # task running, lost when all finished first, and "no worker had a task to lose").
        if killed or done < 20:
            return
        holding = []
        while not holding:
            processing, has_what = cluster.processing(), cluster.has_what()
            holding = [worker for worker in processing if processing[worker] or has_what.get(worker)]
            if not holding:
                time.sleep(0.01)
        pid = cluster.run(os.getpid, workers=holding[:1])[holding[0]]
        os.kill(pid, signal.SIGKILL)
        killed.update(pid=pid, done=done, total=total)

    target = tmp_path / "killed.jsonl"
    sanitize_corpus(source, target, id_column="id", epsilon=5.0, seed=SEED, space_spec=SPEC, partition_size=2,
                    client=cluster, progress=kill_a_worker_holding_a_partition)
    assert killed and killed["done"] < killed["total"]  # killed mid-run, with work left
    assert target.read_bytes() == reference.read_bytes()
    cluster.wait_for_workers(2, timeout=60)  # the nanny restarts it, for the tests after this one
    assert killed["pid"] not in cluster.run(os.getpid).values()
