"""Sanitising a corpus: a JSON Lines, CSV or Parquet file of documents, in partitions, in this
process or on a Dask cluster, with the same output either way.

Each document is sanitised token by token as `privlib.words.text.sanitize` does (word-level
d_X-privacy, Feyisetan et al. 2020; Asghar et al. 2026, §3.2): a document in which m tokens were
sanitised at epsilon each is m·epsilon-private (m·epsilon·d_X for the metric mechanisms), and
its output rows say so (`ADDED_COLUMNS`).

Randomness per document. Document d draws everything (the mechanism's noise, then the "random"
out-of-vocabulary words) from its own generator,
``default_rng(SeedSequence([seed, *w]))`` with w = the 8 little-endian uint32 words of
``sha256(id as UTF-8)`` (`document_generator`); its id is the ``id_column`` value as text, else
its 0-based row number. So its output depends only on (seed, id, text, mechanism, epsilon,
policy, embedding): not on the partition it fell in, the worker that ran it, the order tasks
finished in, or whether a task was run again after its worker died. A re-run gives the same
file, byte for byte, and a retried partition the same rows: nothing lost, nothing duplicated.
Within a partition the search still runs once for all its documents' words
(`privlib.words.mechanisms.Mechanism.sample_groups`).

The seed is a secret key. Whoever knows it and the ids can regenerate each document's noise and
test which input word would have produced each output word, which undoes most of the
protection; with no seed given, a fresh 128-bit one is drawn and never shown.

How the work is spread: this process reads the input in partitions of ``partition_size``
documents, sends each partition's texts and ids to a task (`sanitise_partition`, a pure function
of its arguments), and writes the results in input order as the oldest task finishes, with a
bounded number of partitions in flight (`privlib.words.cluster.stream_tasks`): memory is
bounded whatever the corpus size, and the workers need no access to the input file. The
embedding is not sent with the tasks: each worker loads it once (`SpaceSpec.load`). The output
is written to a temporary name beside the target and renamed at the end, so a failed run leaves
no partial file.
"""
from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from privlib.core.validation import check_epsilon, check_positive_int, shown
from privlib.words.cluster import SpaceSpec, stream_tasks
from privlib.words.mechanisms import Mechanism, MultivariateLaplace, resolve_mechanism
from privlib.words.text import (
    KEPT,
    MAX_CHARACTERS,
    PUNCTUATION,
    RANDOM,
    REDACTED_ACTION,
    SANITISED,
    SanitisePolicy,
    sanitize_per_document,
)

#: Documents per partition (one task each) when not told: large enough that a task's fixed costs
#: (scheduling, one search call) are small against its ~30,000 words, small enough to keep a
#: few partitions per worker in flight in little memory.
PARTITION_SIZE = 1000
#: Rows per Parquet row group of the output: fixed, so the output file does not depend on the
#: partition size (Parquet writes at least one row group per write).
PARQUET_ROW_GROUP = 65_536

#: The columns added to every output row, in this order, with what they hold. The text column
#: itself holds the sanitised text (the original is not written unless asked for).
ADDED_COLUMNS = {
    "tokens_sanitised": "m: tokens replaced by the mechanism's output, each spending epsilon",
    "epsilon_spent": "m·epsilon: the document's privacy budget (composition over its sanitised tokens)",
    "tokens_redacted": "tokens not in the vocabulary replaced without spending budget ([UNK], or a random "
                       "word under --oov random)",
    "tokens_unprotected": "tokens left as typed that are not punctuation (numbers or stop words the policy "
                          "keeps, tokens not in the vocabulary under --oov keep): NOT protected",
    "mechanism": "the mechanism and its parameters",
    "epsilon_per_token": "epsilon, the budget of one sanitised token",
    "policy": "the sanitising policy (case, out-of-vocabulary tokens, numbers, stop words)",
}
#: The per-document columns a task computes (the others are the same for every row).
DOCUMENT_COLUMNS = ("tokens_sanitised", "epsilon_spent", "tokens_redacted", "tokens_unprotected")


def document_generator(seed: int, document_id: str) -> np.random.Generator:
    """The generator of document ``document_id`` (its id as text) under ``seed``:
    ``default_rng(SeedSequence([seed, *w]))``, w = the 8 little-endian uint32 words of the
    SHA-256 of the id's UTF-8 bytes. Any id, however long, gives 256 bits of key; distinct ids
    give independent streams (SeedSequence mixes all its entropy words)."""
    words = np.frombuffer(hashlib.sha256(str(document_id).encode("utf-8")).digest(), dtype="<u4")
    return np.random.default_rng(np.random.SeedSequence([int(seed), *words.tolist()]))


@dataclass(frozen=True)
class CorpusJob:
    """What every partition's task needs besides its documents. Small and picklable: the
    embedding travels as a `SpaceSpec`, and each worker loads it once."""

    mechanism: Mechanism
    epsilon: float
    seed: int
    policy: SanitisePolicy
    space_spec: SpaceSpec


@dataclass(frozen=True)
class PartitionResult:
    """What a task returns for one partition: the sanitised texts, the `DOCUMENT_COLUMNS` (one
    value per document), and how many non-space tokens the partition had."""

    sanitised: list
    columns: dict
    tokens: int


def sanitise_partition(texts: list, ids: list, job: CorpusJob) -> PartitionResult:
    """The task: sanitise one partition's documents, document ``ids[d]`` drawing from
    `document_generator` (job.seed, ids[d]). A pure function of its arguments (on a worker, the
    embedding is the one `job.space_spec` names, loaded once per process), so running it again
    gives the same result."""
    space = job.space_spec.load()
    generators = [document_generator(job.seed, document_id) for document_id in ids]
    results = sanitize_per_document(texts, generators, job.mechanism, job.epsilon, space, job.policy, measure=False)
    columns = {name: [] for name in DOCUMENT_COLUMNS}
    tokens = 0
    for result in results:
        actions = [(r.action, r.reason) for r in result.records]
        m = sum(action == SANITISED for action, _ in actions)
        columns["tokens_sanitised"].append(m)
        spent = m * job.epsilon
        if not np.isfinite(spent):
            raise ValueError(f"A document of {m:,} sanitised tokens at epsilon {job.epsilon:g} per token spends more "
                             "than the largest number a float holds: use a smaller epsilon.")
        columns["epsilon_spent"].append(spent)
        columns["tokens_redacted"].append(sum(action in (REDACTED_ACTION, RANDOM) for action, _ in actions))
        unprotected = sum(action == KEPT and reason != PUNCTUATION for action, reason in actions)
        columns["tokens_unprotected"].append(unprotected)
        tokens += len(actions)
    return PartitionResult([r.sanitised for r in results], columns, tokens)


def mechanism_label(mechanism: Mechanism) -> str:
    """The mechanism's name and parameters, e.g. ``multivariate-laplace(nearest=exact)``."""
    params = ", ".join(f"{key}={value}" for key, value in mechanism.parameters.items())
    return f"{mechanism.name}({params})" if params else mechanism.name


def policy_label(policy: SanitisePolicy) -> str:
    """The policy in one line, e.g. ``case=match; oov=redact; numbers=sanitise; stop_words=sanitise``."""
    stop_words = "keep" if policy.keep_stop_words else "sanitise"
    return f"case={policy.case}; oov={policy.oov}; numbers={policy.numbers}; stop_words={stop_words}"


# ---------------------------------------------------------------------------------------------
# reading and writing the three formats


@dataclass
class Partition:
    """Consecutive documents of the input: the row number of the first (from 0), their texts and
    ids (as text), and the format's own rows, written back with the results."""

    first_row: int
    texts: list
    ids: list
    rows: object


def short_name(path) -> str:
    """A file's name for a message, cut to 60 characters (`shown` without the quotes)."""
    name = Path(path).name
    name = name if name.isprintable() else repr(name)  # a line separator would break a one-line message
    return name if len(name) <= 60 else name[:59] + "…"


def describe_value(value) -> str:
    """What kind of value a cell holds, for error messages (never the value itself: it may be private)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "missing (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def where(name: str, row: int, document_id: str | None) -> str:
    """``data.jsonl, row 12 (the 13th document; id 'a7')``: where a document is, in messages."""
    label = f" (the {ordinal(row + 1)} document{'' if document_id is None else f'; id {shown(document_id)}'})"
    return f"{name}, row {row:,}{label}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def checked_document(name: str, row: int, text, raw_id, text_column: str, id_column: str | None) -> tuple[str, str]:
    """(text, id as text) of one document, or ValueError saying where and what is wrong: the id
    must be text or a whole number (id column), the text a string of at most MAX_CHARACTERS."""
    if id_column is None:
        document_id = str(row)
    elif isinstance(raw_id, str) or (isinstance(raw_id, int) and not isinstance(raw_id, bool)):
        document_id = str(raw_id)
    else:
        raise ValueError(f"{where(name, row, None)}: its id ({shown(id_column)}) is {describe_value(raw_id)}; "
                         "ids must be text or whole numbers.")
    if not isinstance(text, str):
        raise ValueError(f"{where(name, row, document_id if id_column else None)}: its {shown(text_column)} value is "
                         f"{describe_value(text)}, not text.")
    if len(text) > MAX_CHARACTERS:
        raise ValueError(f"{where(name, row, document_id if id_column else None)} has {len(text):,} characters; "
                         f"the limit is {MAX_CHARACTERS:,}. Split it into shorter documents.")
    return text, document_id


def check_no_clash(name: str, columns, added) -> None:
    """ValueError when the input already has a column the output adds (e.g. a file sanitised before)."""
    clash = [column for column in added if column in columns]
    if clash:
        raise ValueError(f"{name} already has the column{'s' * (len(clash) > 1)} {', '.join(map(repr, clash))} "
                         "that the output adds: rename or drop it first.")


def missing_column(name: str, what: str, column: str, columns, kind: str = "columns") -> ValueError:
    """The error of a missing text or id column: which one, and the ``kind`` (columns, fields) there are."""
    names = list(columns)
    listed = ", ".join(shown(c, 30) for c in names[:8]) + (f" and {len(names) - 8:,} more" if len(names) > 8 else "")
    return ValueError(f"{name} has no {what} {shown(column)}; its {kind}: {listed or 'none'}.")


class NonStandardNumber(ValueError):
    """A NaN, Infinity or -Infinity literal in JSON input (Python's json reads them; the standard does not)."""


def refuse_constant(name: str):
    """``json.loads``' ``parse_constant``: NaN / Infinity / -Infinity are not JSON, so refused."""
    raise NonStandardNumber(name)


class JsonLines:
    """One JSON object per line (.jsonl, .ndjson, .json); blank lines are skipped. Every field of
    a row is written back as it was read (json round-trip), in its order, the added ones after."""

    label = "JSON Lines"

    @staticmethod
    def count(path: Path) -> int:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())

    @staticmethod
    def partitions(path: Path, text_column: str, id_column: str | None, size: int, added) -> Iterator[Partition]:
        name, rows, row = short_name(path), [], 0
        with open(path, "rb") as fh:
            for line_number, line in enumerate(fh, start=1):
                if line_number == 1:
                    line = line.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark
                if not line.strip():
                    continue
                try:
                    record = json.loads(line.decode("utf-8"), parse_constant=refuse_constant)
                except NonStandardNumber as exc:
                    raise ValueError(f"Cannot read {name}: line {line_number:,} holds {exc}, which is not JSON "
                                     "(RFC 8259 has no NaN or Infinity); write null or a number.") from None
                except RecursionError:
                    raise ValueError(f"Cannot read {name}: line {line_number:,} is nested too deeply to read "
                                     "(arrays or objects inside one another); give one flat JSON object per line.") from None
                except UnicodeDecodeError:
                    raise ValueError(f"Cannot read {name}: line {line_number:,} is not UTF-8 text.") from None
                except json.JSONDecodeError as exc:
                    raise ValueError(f"Cannot read {name}: line {line_number:,} is not JSON ({exc.msg}); "
                                     "give one JSON object per line.") from None
                if not isinstance(record, dict):
                    raise ValueError(f"{name}, line {line_number:,} is {describe_value(record)}, not a JSON object; "
                                     "give one JSON object per line.")
                if text_column not in record:
                    raise missing_column(f"{name}, line {line_number:,}", "field", text_column, record, "fields")
                if id_column is not None and id_column not in record:
                    raise missing_column(f"{name}, line {line_number:,}", "id field", id_column, record, "fields")
                check_no_clash(f"{name}, line {line_number:,}", record, added)
                rows.append(record)
                row += 1
                if len(rows) == size:
                    yield JsonLines.partition(name, row - len(rows), rows, text_column, id_column)
                    rows = []
        if rows or row == 0:
            yield JsonLines.partition(name, row - len(rows), rows, text_column, id_column)

    @staticmethod
    def partition(name, first_row, rows, text_column, id_column) -> Partition:
        checked = [checked_document(name, first_row + k, r[text_column], r.get(id_column), text_column, id_column)
                   for k, r in enumerate(rows)]
        return Partition(first_row, [t for t, _ in checked], [i for _, i in checked], rows)

    class Writer:
        def __init__(self, path: Path):
            self.fh = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 (closed by close)

        def write(self, partition: Partition, columns: dict) -> None:
            lines = []
            for k, record in enumerate(partition.rows):
                record = dict(record)  # an existing key (the text column) keeps its place
                for column, values in columns.items():
                    record[column] = values[k]
                lines.append(json.dumps(record, ensure_ascii=False) + "\n")
            self.fh.write("".join(lines))

        def close(self) -> None:
            self.fh.close()


class Csv:
    """Comma-separated values with a header row (.csv), UTF-8. Every cell is read and written back
    as text (no type guessing: an id "007" stays "007"); the added columns come after the others."""

    label = "CSV"

    @staticmethod
    def count(path: Path) -> int:
        reader = None
        try:
            with open(path, encoding="utf-8-sig", newline="") as fh:
                reader = csv.reader(fh, strict=True)  # a quote never closed: an error, not one huge field
                return max(0, sum(1 for row in reader if row) - 1)
        except UnicodeDecodeError as exc:
            line = path.read_bytes().count(b"\n", 0, exc.start) + 1  # only on this error: where it is
            raise ValueError(f"Cannot read {short_name(path)}: it is not UTF-8 text (invalid byte at line {line:,}).") from None
        except csv.Error as exc:
            at = f"line {reader.line_num:,}: " if reader is not None else ""
            hint = " (a quote opened and never closed?)" if "unexpected end of data" in str(exc) else ""
            raise ValueError(f"Cannot read {short_name(path)}: it is not valid CSV ({at}{exc}{hint}).") from None

    @staticmethod
    def partitions(path: Path, text_column: str, id_column: str | None, size: int, added) -> Iterator[Partition]:
        name = short_name(path)
        with open(path, encoding="utf-8-sig", newline="") as fh:
            # strict: a quote never closed is an error, not a field running to the end of the file
            reader = csv.reader(fh, strict=True)
            header = next(reader, None)
            if header is None:
                raise ValueError(f"{name} is empty: a CSV file needs a header row naming its columns.")
            for what, column in (("column", text_column), ("id column", id_column)):
                if column is not None and column not in header:
                    raise missing_column(name, what, column, header)
                if column is not None and header.count(column) > 1:
                    raise ValueError(f"{name} has {header.count(column)} columns named {shown(column)}; rename all but one.")
            check_no_clash(name, header, added)
            text_at = header.index(text_column)
            id_at = None if id_column is None else header.index(id_column)
            rows, row = [], 0
            for fields in reader:
                if not fields:
                    continue  # a blank line
                if len(fields) != len(header):
                    raise ValueError(f"{where(name, row, None)} has {len(fields)} fields, the header {len(header)}.")
                rows.append(fields)
                row += 1
                if len(rows) == size:
                    yield Csv.partition(name, header, row - len(rows), rows, text_at, id_at, text_column, id_column)
                    rows = []
            if rows or row == 0:
                yield Csv.partition(name, header, row - len(rows), rows, text_at, id_at, text_column, id_column)

    @staticmethod
    def partition(name, header, first_row, rows, text_at, id_at, text_column, id_column) -> Partition:
        checked = [checked_document(name, first_row + k, fields[text_at], None if id_at is None else fields[id_at],
                                    text_column, id_column) for k, fields in enumerate(rows)]
        return Partition(first_row, [t for t, _ in checked], [i for _, i in checked], (header, rows))

    class Writer:
        def __init__(self, path: Path):
            self.fh = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close)
            self.csv = csv.writer(self.fh, lineterminator="\n")
            self.layout = None  # (output header, position of each output column)

        def write(self, partition: Partition, columns: dict) -> None:
            header, rows = partition.rows
            if self.layout is None:
                out = list(header) + [c for c in columns if c not in header]
                self.layout = out, [out.index(c) for c in columns]
                self.csv.writerow(out)
            out, positions = self.layout
            extra = len(out) - len(header)
            for k, fields in enumerate(rows):
                fields = fields + [""] * extra
                for at, values in zip(positions, columns.values()):
                    fields[at] = values[k]
                self.csv.writerow(fields)

        def close(self) -> None:
            self.fh.close()


class Parquet:
    """Apache Parquet (.parquet), read in record batches. Every input column is kept with its
    type; the text column keeps its string type; the added columns are int64, float64 or string.
    The output has row groups of `PARQUET_ROW_GROUP` rows whatever the partition size."""

    label = "Parquet"

    @staticmethod
    def open(path: Path):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path)
        except (pa.ArrowException, OSError) as exc:
            reason = str(exc).splitlines()[0]
            raise ValueError(f"Cannot read {short_name(path)}: it is not a Parquet file ({reason}).") from None

    @staticmethod
    def count(path: Path) -> int:
        return Parquet.open(path).metadata.num_rows

    @staticmethod
    def partitions(path: Path, text_column: str, id_column: str | None, size: int, added) -> Iterator[Partition]:
        import pyarrow as pa

        name, file = short_name(path), Parquet.open(path)
        schema = file.schema_arrow
        for what, column in (("column", text_column), ("id column", id_column)):
            if column is not None and column not in schema.names:
                raise missing_column(name, what, column, schema.names)
        check_no_clash(name, schema.names, added)
        text_type = schema.field(text_column).type
        if not (pa.types.is_string(text_type) or pa.types.is_large_string(text_type)
                or (pa.types.is_dictionary(text_type) and pa.types.is_string(text_type.value_type))):
            raise ValueError(f"{name}: the column {shown(text_column)} holds {text_type} values, not text.")
        row = 0
        try:
            batches = file.iter_batches(batch_size=size)
            for batch in batches:
                table = pa.Table.from_batches([batch])
                yield Parquet.partition(name, row, table, text_column, id_column)
                row += table.num_rows
        except pa.ArrowException as exc:
            raise ValueError(f"Cannot read {name}: {str(exc).splitlines()[0]}.") from None
        if row == 0:
            yield Parquet.partition(name, 0, schema.empty_table(), text_column, id_column)

    @staticmethod
    def partition(name, first_row, table, text_column, id_column) -> Partition:
        texts = table.column(text_column).to_pylist()
        ids = table.column(id_column).to_pylist() if id_column is not None else [None] * len(texts)
        checked = [checked_document(name, first_row + k, text, raw_id, text_column, id_column)
                   for k, (text, raw_id) in enumerate(zip(texts, ids))]
        return Partition(first_row, [t for t, _ in checked], [i for _, i in checked], table)

    class Writer:
        def __init__(self, path: Path):
            self.path = path
            self.writer = None
            self.pending, self.pending_rows = [], 0

        def write(self, partition: Partition, columns: dict) -> None:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = partition.rows
            for column, values in columns.items():
                if column in table.column_names:  # the text column: same name, place and string type
                    at = table.column_names.index(column)
                    kind = table.schema.field(at).type
                    kind = kind if pa.types.is_string(kind) or pa.types.is_large_string(kind) else pa.string()
                    table = table.set_column(at, pa.field(column, kind), pa.array(values, type=kind))
                else:
                    table = table.append_column(column, pa.array(values, type=Parquet.column_type(column)))
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.path, table.schema)
            self.pending.append(table)
            self.pending_rows += table.num_rows
            while self.pending_rows >= PARQUET_ROW_GROUP:
                self.flush(PARQUET_ROW_GROUP)

        def flush(self, rows: int) -> None:
            import pyarrow as pa

            whole = pa.concat_tables(self.pending)
            self.writer.write_table(whole.slice(0, rows), row_group_size=rows)
            rest = whole.slice(rows)
            self.pending, self.pending_rows = [rest], rest.num_rows

        def close(self) -> None:
            if self.writer is None:
                return
            if self.pending_rows:
                self.flush(self.pending_rows)
            self.writer.close()

    @staticmethod
    def column_type(column: str):
        import pyarrow as pa

        if column in ("tokens_sanitised", "tokens_redacted", "tokens_unprotected"):
            return pa.int64()
        if column in ("epsilon_spent", "epsilon_per_token"):
            return pa.float64()
        return pa.string()


#: The formats by file extension (lower case).
FORMATS = {".jsonl": JsonLines, ".ndjson": JsonLines, ".json": JsonLines, ".csv": Csv, ".parquet": Parquet}


def format_of(path: Path):
    """The format of a file from its extension, or ValueError listing the known ones."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"Cannot tell the format of {short_name(path)} from its extension: use .jsonl, .ndjson or .json "
                         "(JSON Lines), .csv or .parquet.")
    return found


# ---------------------------------------------------------------------------------------------
# the corpus


def path_label(path) -> str:
    """A path for a message, cut to 80 characters (a path is never repeated in full when long)."""
    text = str(path)
    text = text if text.isprintable() else repr(text)  # a line separator would break a one-line message
    return text if len(text) <= 80 else text[:40] + "…" + text[-39:]


#: The longest file name most file systems take (bytes of the name, not the whole path).
NAME_MAX = 255


def partial_name(target: Path) -> Path:
    """The hidden temporary file beside ``target`` that the output is written to, then renamed:
    ``.NAME.PID.RANDOM.partial``, with NAME cut so the whole name stays within `NAME_MAX` bytes."""
    suffix = f".{os.getpid()}.{secrets.token_hex(4)}.partial"
    name = target.name
    while len(f".{name}{suffix}".encode()) > NAME_MAX:
        name = name[:-1]
    return target.with_name(f".{name}{suffix}")


def check_paths(source: Path, target: Path) -> None:
    """ValueError unless ``source`` is a readable file and ``target`` a file name that can be
    written in an existing folder and is not the input (same file by any path: a link, ``..``)."""
    try:
        if not source.is_file():
            problem = "it is a folder" if source.is_dir() else (
                "no such file" if not source.exists() else "not a regular file (a pipe or device)")
            raise ValueError(f"Cannot read {path_label(source)}: {problem}.")
        if not os.access(source, os.R_OK):
            raise ValueError(f"Cannot read {path_label(source)}: permission denied.")
        if len(target.name.encode()) > NAME_MAX:
            raise ValueError(f"Cannot write {path_label(target)}: the file name is longer than {NAME_MAX} bytes.")
        if target.is_dir():
            raise ValueError(f"Cannot write {path_label(target)}: it is a folder; give a file name.")
        if os.path.realpath(target) == os.path.realpath(source) or (target.exists() and os.path.samefile(target, source)):
            raise ValueError("The output must be another file than the input (it would replace it).")
        if not target.parent.is_dir():
            raise ValueError(f"Cannot write {path_label(target)}: the folder {path_label(target.parent)} does not exist.")
    except OSError as exc:  # e.g. a path too long for the system
        raise ValueError(f"Cannot use the path {path_label(exc.filename or target)}: "
                         f"{exc.strerror or type(exc).__name__}.") from None


def unique_ids(partitions, name: str, id_column: str | None):
    """The partitions, after checking that no id repeats an earlier one (documents sharing an id
    would get identical noise): ValueError naming the row of the repeat and of the first. Row
    numbers are unique, so nothing to check without an id column. Memory: one entry per document."""
    if id_column is None:
        yield from partitions
        return
    first_rows = {}
    for partition in partitions:
        for k, document_id in enumerate(partition.ids):
            row = partition.first_row + k
            first = first_rows.setdefault(document_id, row)
            if first != row:
                raise ValueError(f"{name}, row {row:,}: its id ({shown(id_column)}) repeats the id of row {first:,}; "
                                 "ids must be unique (documents sharing an id would get the same noise).")
        yield partition


@dataclass(frozen=True)
class CorpusSummary:
    """What `sanitize_corpus` did: documents and tokens (non-space tokens, punctuation included)
    read, tokens sanitised, the largest budget one document spent, the wall-clock seconds, and
    the output file."""

    input: str
    output: str
    format: str
    documents: int
    tokens: int
    tokens_sanitised: int
    largest_epsilon_spent: float
    mechanism: str
    epsilon: float
    partitions: int
    seconds: float

    def to_dict(self) -> dict:
        return asdict(self)


def sanitize_corpus(source, target, text_column: str = "text", id_column: str | None = None, mechanism=None,
                    epsilon: float = 10.0, seed: int | None = None, policy: SanitisePolicy | None = None,
                    space_spec: SpaceSpec = SpaceSpec(), client=None, partition_size: int = PARTITION_SIZE,
                    progress=None, original_column: str | None = None, in_flight: int | None = None) -> CorpusSummary:
    """Sanitise every document of the file ``source`` (column ``text_column``) into the file
    ``target``, of the same format (by extension: .jsonl/.ndjson/.json JSON Lines, .csv, .parquet).

    Output rows are in input order with every input column; the text column holds the sanitised
    text, ``original_column`` (when given) the original — which makes the output as sensitive as
    the input — and `ADDED_COLUMNS` the document's budget and policy. ``mechanism``: a `Mechanism`,
    a name or (name, parameters) (default: the multivariate Laplace mechanism), at ``epsilon`` per
    token; ``policy``: a `SanitisePolicy`; ``space_spec``: the embedding (`SpaceSpec`).

    ``seed`` (a whole number >= 0; None: a fresh secret 128-bit one) and each document's id (the
    ``id_column`` value, text or a whole number, else the row number from 0) determine the
    document's randomness (`document_generator`): keep the seed secret (see the module docstring)
    and the ids unique (documents sharing an id share their noise).

    ``client``: a ``dask.distributed.Client`` (None: in this process); the file is the same, byte
    for byte. ``partition_size`` documents go to each task, ``in_flight`` tasks at most at once
    (default: two per worker thread). ``progress(done, total)`` is called with the documents
    written so far and the total. ValueError (one line: what and where) for a missing file or
    column, an unknown format, a value that is not text, an id that is neither text nor a whole
    number; the target is then left as it was.
    """
    started = time.perf_counter()
    source, target = Path(source), Path(target)
    file_format = format_of(source)
    if format_of(target) is not file_format:
        raise ValueError(f"The output must be in the format of the input ({file_format.label}, {short_name(source)}); "
                         f"{short_name(target)} is {format_of(target).label}.")
    check_paths(source, target)
    mechanism = resolve_mechanism(mechanism if mechanism is not None else MultivariateLaplace.family())
    epsilon = check_epsilon(epsilon)
    policy = policy or SanitisePolicy()
    if not isinstance(policy, SanitisePolicy):
        raise ValueError("policy must be a SanitisePolicy.")
    if not isinstance(space_spec, SpaceSpec):
        raise ValueError("space_spec must be a SpaceSpec (which embedding, which vocabulary size).")
    seed = secrets.randbits(128) if seed is None else check_positive_int(seed, "seed", minimum=0)
    partition_size = check_positive_int(partition_size, "partition_size", minimum=1)
    if in_flight is not None:
        in_flight = check_positive_int(in_flight, "in_flight", minimum=1)
    if original_column is not None and not (isinstance(original_column, str) and original_column.strip()):
        raise ValueError("original_column must be a column name (non-empty text); None: the original is not written.")
    if original_column is not None and (original_column == text_column or original_column in ADDED_COLUMNS):
        raise ValueError(f"original_column must differ from the text column and from {', '.join(ADDED_COLUMNS)}.")
    added = [*([original_column] if original_column else []), *ADDED_COLUMNS]
    job = CorpusJob(mechanism, epsilon, seed, policy, space_spec)
    constants = {"mechanism": mechanism_label(mechanism), "epsilon_per_token": epsilon, "policy": policy_label(policy)}

    try:
        total = file_format.count(source)
    except OSError as exc:
        raise ValueError(f"Cannot read {path_label(source)}: {exc.strerror or type(exc).__name__}.") from None
    partitions = unique_ids(file_format.partitions(source, text_column, id_column, partition_size, added),
                            short_name(source), id_column)
    temporary = partial_name(target)
    try:
        writer = file_format.Writer(temporary)
    except OSError as exc:
        raise ValueError(f"Cannot write {path_label(target)}: {exc.strerror or type(exc).__name__}.") from None
    documents = tokens = sanitised = count = 0
    largest = 0.0
    try:
        try:
            # closing: a failure here (e.g. in writing) cancels the tasks still running at once
            tasks = stream_tasks(client, sanitise_partition, partitions, lambda p: (p.texts, p.ids, job), in_flight)
            with contextlib.closing(tasks) as results:
                for partition, result in results:
                    n = len(partition.texts)
                    columns = {text_column: result.sanitised}
                    if original_column:
                        columns[original_column] = partition.texts
                    columns.update(result.columns)
                    columns.update({name: [value] * n for name, value in constants.items()})
                    writer.write(partition, {name: columns[name] for name in (text_column, *added)})
                    documents += n
                    tokens += result.tokens
                    sanitised += sum(result.columns["tokens_sanitised"])
                    largest = max([largest, *result.columns["epsilon_spent"]])
                    count += 1
                    if progress is not None:
                        progress(documents, total)
        finally:
            writer.close()
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return CorpusSummary(str(source), str(target), file_format.label, documents, tokens, sanitised, largest,
                         constants["mechanism"], epsilon, count, time.perf_counter() - started)
