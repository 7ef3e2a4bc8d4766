"""Word-vector files: the readers behind `EmbeddingSpace.from_file`.

Formats, detected from the (decompressed) content, never from the file name: word2vec/fastText
text (a ``count dim`` first line, then one word and its numbers per line), GloVe text (the same
without the first line), word2vec binary, fastText model files (.bin, through gensim), and text or
word2vec binaries compressed with gzip, bzip2 or xz. A file that cannot be used raises ValueError
naming the line (or row) and the word at fault — never other contents of the file, and long words
shortened (`shorten`, `quote_word`, which the space's own messages use too).
"""
from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import mmap
import os
import re
import struct
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from privlib.core.validation import check_positive_int

#: Characters of a word shown in a message; a longer word is cut there and ends in "…".
SHOWN_WORD_CHARS = 40
#: The first four bytes of a fastText model file (.bin): fastText's magic number, little-endian.
FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")
#: What `EmbeddingSpace.from_file` calls a fastText model file in names and messages.
FASTTEXT_MODEL = "fastText model"
UTF8_BOM = b"\xef\xbb\xbf"
#: Compressed files, recognised by their first bytes: (pattern, opener); bzip2 is "BZh", the block
#: size (1-9) and the magic of a block (or of the end of an empty stream).
COMPRESSIONS = ((re.compile(rb"\x1f\x8b"), gzip.open), (re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"), bz2.open),
                (re.compile(rb"\xfd7zXZ\x00"), lzma.open))
#: Bytes of the (decompressed) start of a file that format detection looks at.
SNIFF_BYTES = 1 << 16
#: Rows parsed at once from a text file (one float parse per chunk).
TEXT_CHUNK_ROWS = 8192
#: A word2vec binary word longer than this many bytes means the file is not a word2vec binary.
MAX_WORD_BYTES = 1 << 16


def shorten(text: str, limit: int = SHOWN_WORD_CHARS) -> str:
    """``text`` cut to ``limit`` characters followed by "…" when longer (for messages)."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"


def quote_word(word) -> str:
    """A word as a message shows it: quoted, and shortened to `SHOWN_WORD_CHARS` characters."""
    return repr(shorten(word))


class Places:
    """Where each row of a file is: its line (text files) or its row number (binaries), 1-based."""

    def __init__(self, unit: str):
        self.unit = unit
        self.numbers: list[int] = []

    def describe(self, row: int) -> str:
        return f"{self.unit} {self.numbers[row]:,}"


class VectorFile(NamedTuple):
    """What `read_embedding_file` read: the words, their float32 vectors (one row each, all finite),
    the name of the space (the label and what the file holds) and the file's path."""

    words: list[str]
    vectors: np.ndarray
    name: str
    path: Path


def read_embedding_file(path, vocab_size: int | None = None, name: str | None = None) -> VectorFile:
    """Read a word-vector file (any format of this module) for `EmbeddingSpace.from_file`.

    A UTF-8 byte-order mark is skipped. ``vocab_size=N`` keeps the first N rows. ``name`` labels
    the space and the messages (default: the file's name). ValueError when the file is missing,
    empty, unreadable, has fewer than two words or a value that is not a finite float32.
    """
    path = Path(os.fspath(path)).expanduser()
    label = shorten(name or path.name, 60)
    shown_path = shorten(str(path), 80)
    try:
        if not path.is_file():
            if path.is_dir():
                raise ValueError(f"The embedding path {shown_path!r} is a folder: give the word-vector file.")
            if path.exists():
                raise ValueError(f"The embedding path {shown_path!r} is not a regular file (a pipe or device): "
                                 "give the word-vector file itself.")
            raise ValueError(f"No embedding file at {shown_path!r}: check the path.")
        if not os.access(path, os.R_OK):
            raise ValueError(f"Cannot read the embedding file {label!r}: permission denied.")
        empty = path.stat().st_size == 0
    except OSError as exc:  # e.g. a name too long for the file system
        raise ValueError(f"Cannot use the embedding path {shown_path!r}: {exc.strerror or type(exc).__name__}.") from None
    if empty:
        raise ValueError(f"The embedding file {label!r} is empty.")
    limit = None if vocab_size is None else check_positive_int(vocab_size, "vocab_size", minimum=2)
    try:
        words, vectors, places, kind = _read_vector_file(path, label, limit)
    except PermissionError:
        raise ValueError(f"Cannot read the embedding file {label!r}: permission denied.") from None
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise ValueError(
            f"Could not read {label!r} ({reason}): the file may be damaged or cut short; "
            "download or export it again."
        ) from None
    if len(words) < 2:
        raise ValueError(
            f"The embedding file {label!r} has {len(words)} word(s) with vectors; it needs at least two."
        )
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"Could not read {label!r}: {places.describe(i)} ({quote_word(words[i])}) has a value that is NaN, "
            f"infinite or too large for 32-bit floats ({int((~finite).sum()):,} such row(s)); "
            "fix or remove those rows."
        )
    described = f"{kind}, {len(words):,} words" if kind == FASTTEXT_MODEL else f"{len(words):,} words"
    return VectorFile(words, vectors, f"{label} ({described})", path)


def _read_vector_file(path: Path, label: str, limit: int | None):
    """(words, float32 vectors, `Places`, kind) of a word-vector file; ValueError if unusable."""
    with open(path, "rb") as raw:
        magic = raw.read(10)
    opener = next((op for pattern, op in COMPRESSIONS if pattern.match(magic)), open)
    with opener(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if head.startswith(FASTTEXT_MAGIC):
        if opener is not open:
            raise ValueError(f"{label!r} is a compressed {FASTTEXT_MODEL} file (.bin): decompress it first.")
        return _read_fasttext_model(path, label, limit)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError(f"{label!r} is UTF-16 (or UTF-32) text: save it as UTF-8 and load it again.")
    body = head.removeprefix(UTF8_BOM)
    first_line = body.split(b"\n", 1)[0]
    header = first_line.split()
    has_header = len(header) == 2 and all(p.isdigit() for p in header)
    sample = body[len(first_line) + 1:] if has_header else body
    if has_header and not looks_like_text(sample):
        with opener(path, "rb") as fh:
            return _read_word2vec_binary(fh, label, limit)
    if not looks_like_text(sample):
        at = invalid_line(sample)
        where = f" (invalid byte at line {at + int(has_header):,})" if at is not None else ""
        raise ValueError(
            f"{label!r} is not a word-vector file Epsilon Lab reads: it is not UTF-8 text{where} (word2vec/fastText "
            ".vec or GloVe .txt), a word2vec binary (whose first line is 'count dimension') or a fastText model (.bin)."
        )
    with opener(path, "rb") as fh:
        return _read_text_vectors(fh, label, limit)


def looks_like_text(sample: bytes) -> bool:
    """True when the first KB of ``sample`` is UTF-8 text without NUL bytes (a word2vec binary's
    raw float bytes almost never are)."""
    sample = sample[:1024]
    if b"\x00" in sample:
        return False
    try:  # an incremental decoder tolerates a character cut at the end of the sample
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def invalid_line(sample: bytes) -> int | None:
    """The line (from 1) of the first byte of the first KB of ``sample`` that is not UTF-8, or None."""
    sample = sample[:1024]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError as exc:
        return sample.count(b"\n", 0, exc.start) + 1
    return None


def _decode_word(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _header_numbers(line: bytes, label: str) -> tuple[int, int]:
    count, dim = (int(p) for p in line.split())
    if count < 1 or dim < 1:
        raise ValueError(
            f"The first line of {label!r} announces {count:,} words of dimension {dim:,}: both must be at least 1."
        )
    return count, dim


def _duplicate(label: str, word: str, first: str, second: str) -> ValueError:
    return ValueError(
        f"Could not read {label!r}: the word {quote_word(word)} appears twice ({first} and {second}); "
        "each word must be unique."
    )


def _read_text_vectors(fh, label: str, limit: int | None):
    """word2vec/fastText text (first line ``count dim``) or GloVe text (no first line)."""
    places = Places("line")
    words: list[str] = []
    seen: dict[str, int] = {}
    chunks: list[np.ndarray] = []
    pending: list[bytes] = []  # the number fields of the rows not yet parsed
    pending_from = 0  # row of the first pending field
    count = dim = None
    target = limit

    def parse_pending():
        rows = len(words) - pending_from
        try:
            values = np.fromstring(b" ".join(pending), dtype=np.float32, sep=" ")
        except ValueError:
            values = None
        if values is None or values.size != rows * dim:
            for r in range(rows):  # find the row and the number at fault, to name them
                for j, field in enumerate(pending[r * dim:(r + 1) * dim]):
                    try:
                        ok = np.fromstring(field, dtype=np.float32, sep=" ").size == 1
                    except ValueError:
                        ok = False
                    if not ok:
                        row = pending_from + r
                        raise ValueError(
                            f"Could not read {label!r}: {places.describe(row)} ({quote_word(words[row])}): "
                            f"number {j + 1} of {dim} is not a number. Each line must be a word followed by "
                            f"{dim} numbers."
                        )
            values = np.array([float(f) for f in pending], dtype=np.float32)  # pragma: no cover
        chunks.append(values.reshape(rows, dim))

    line_no = 0
    for line_no, line in enumerate(fh, start=1):
        if line_no == 1:
            line = line.removeprefix(UTF8_BOM)
            fields = line.split()
            if len(fields) == 2 and all(p.isdigit() for p in fields):
                count, dim = _header_numbers(line, label)
                target = count if limit is None else min(count, limit)
                continue
        parts = line.split(None, 1)
        if not parts:
            continue  # a blank line
        if target is not None and len(words) == target:
            if count is not None and (limit is None or limit > count):
                raise ValueError(
                    f"The first line of {label!r} announces {count:,} words, but the file has more: "
                    f"line {line_no:,} ({quote_word(_decode_word(parts[0]))}) is row {count + 1:,}. "
                    "Correct the count on the first line (or remove that line) and load the file again."
                )
            break
        word = _decode_word(parts[0])
        numbers = parts[1].split() if len(parts) > 1 else []
        if dim is None:
            dim = len(numbers)
            if dim == 0:
                raise ValueError(
                    f"Could not read {label!r}: line {line_no:,} ({quote_word(word)}) has a word but no numbers. "
                    "Each line must be a word followed by its vector's numbers, separated by spaces."
                )
        if len(numbers) != dim:
            where = "the first line announces" if count is not None else "the first row has"
            raise ValueError(
                f"Could not read {label!r}: line {line_no:,} ({quote_word(word)}) has {len(numbers):,} "
                f"number{'' if len(numbers) == 1 else 's'}, but {where} "
                f"{dim:,}. Every line must have the same number of values; fix or remove that line."
            )
        if word in seen:
            raise _duplicate(label, word, places.describe(seen[word]), f"line {line_no:,}")
        seen[word] = len(words)
        words.append(word)
        places.numbers.append(line_no)
        pending.extend(numbers)
        if len(words) - pending_from == TEXT_CHUNK_ROWS:
            parse_pending()
            pending, pending_from = [], len(words)
    if count is not None and len(words) < target:
        raise ValueError(
            f"The first line of {label!r} announces {count:,} words, but the file ends after {len(words):,}: "
            "it may be cut short. Correct the count on the first line or download it again."
        )
    if dim is None:
        raise ValueError(f"{label!r} has no word vectors: each line must be a word followed by its numbers.")
    if len(words) > pending_from:
        parse_pending()
    vectors = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
    return words, vectors, places, "text"


def _read_word2vec_binary(fh, label: str, limit: int | None):
    """word2vec binary: a text line ``count dim``, then per word its bytes, a space and ``dim``
    little-endian float32 values (a newline may follow each vector)."""
    first = fh.readline()
    first = first.removeprefix(UTF8_BOM)
    count, dim = _header_numbers(first, label)
    target = count if limit is None else min(count, limit)
    record = 4 * dim
    places = Places("row")
    words: list[str] = []
    seen: dict[str, int] = {}
    chunks: list[np.ndarray] = []
    block = np.empty((min(target, TEXT_CHUNK_ROWS), dim), dtype=np.float32)
    buf, pos = b"", 0

    def cut_short(row: int) -> ValueError:
        return ValueError(
            f"The word2vec binary {label!r} ends inside row {row + 1:,} of the {count:,} its first line announces: "
            "the file is cut short or damaged; download or export it again."
        )

    for i in range(target):
        while True:
            space = buf.find(b" ", pos, pos + MAX_WORD_BYTES)
            if space >= 0 and len(buf) - space - 1 >= record:
                break
            if space < 0 and len(buf) - pos >= MAX_WORD_BYTES:
                raise ValueError(
                    f"{label!r} is not a word2vec binary file: row {i + 1:,} has no word (no space within "
                    f"{MAX_WORD_BYTES:,} bytes)."
                )
            more = fh.read(1 << 20)
            if not more:
                raise cut_short(i)
            buf, pos = buf[pos:] + more, 0
        word = _decode_word(buf[pos:space].lstrip(b"\n"))
        if not word:
            raise ValueError(f"{label!r} is not a word2vec binary file: row {i + 1:,} has an empty word.")
        if word in seen:
            raise _duplicate(label, word, places.describe(seen[word]), f"row {i + 1:,}")
        seen[word] = i
        words.append(word)
        places.numbers.append(i + 1)
        block[i % block.shape[0]] = np.frombuffer(buf, dtype="<f4", count=dim, offset=space + 1)
        pos = space + 1 + record
        if (i + 1) % block.shape[0] == 0:
            chunks.append(block.copy())
    filled = len(words) % block.shape[0]
    if filled:
        chunks.append(block[:filled].copy())
    if limit is None or limit > count:  # anything but whitespace after the last row: more words
        rest = buf[pos:].lstrip()
        while not rest:
            more = fh.read(1 << 16)
            if not more:
                break
            rest = more.lstrip()
        if rest:
            nxt = _decode_word(rest[:SHOWN_WORD_CHARS * 4].split(b" ", 1)[0])
            raise ValueError(
                f"The first line of {label!r} announces {count:,} words, but the file has more: row "
                f"{count + 1:,} ({quote_word(nxt)}) follows. Correct the count on the first line and load it again."
            )
    vectors = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
    return words, vectors, places, "word2vec binary"


def _read_fasttext_model(path: Path, label: str, limit: int | None):
    """The word vectors of a fastText model file (.bin), with gensim's fastText loader (rows in the
    model's order: most frequent first)."""
    from gensim.models.fasttext import load_facebook_vectors

    damaged = ValueError(
        f"{label!r} is a {FASTTEXT_MODEL} file (.bin), but its vectors could not be read: it may be cut "
        "short, damaged or from an unsupported fastText version. Download it again, or use the model's "
        "text vectors (.vec) instead."
    )
    check_fasttext_layout(path, label, damaged)
    try:
        kv = load_facebook_vectors(str(path))
        n = len(kv.index_to_key) if limit is None else min(limit, len(kv.index_to_key))
        words = [str(w) for w in kv.index_to_key[:n]]
        vectors = np.asarray(kv.vectors[:n], dtype=np.float32)
    except Exception:  # noqa: BLE001  (gensim raises many types for damaged files; its messages may quote them)
        raise damaged from None
    if len(set(words)) != len(words):
        raise ValueError(f"The {FASTTEXT_MODEL} {label!r} lists a word more than once; each word must be unique.")
    places = Places("row")
    places.numbers = list(range(1, n + 1))
    return words, vectors, places, FASTTEXT_MODEL


def check_fasttext_layout(path: Path, label: str, damaged: ValueError) -> None:
    """Walk a fastText model file's layout (header, dictionary, input matrix size) without reading
    the vectors, and raise ``damaged`` unless it is complete: gensim's loader never returns on a
    file cut inside the dictionary. Layout: fastText's FastText::saveModel (native byte order)."""
    size = path.stat().st_size
    header = 8 + 12 * 4 + 8  # magic, version; 12 int32 arguments and one double
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        pos = header
        if pos + 28 > size:
            raise damaged
        vocab_size, _, labels = struct.unpack_from("@3i", data, pos)
        _, pruned = struct.unpack_from("@2q", data, pos + 12)
        pos += 28
        if labels > 0:
            raise ValueError(
                f"{label!r} is a supervised {FASTTEXT_MODEL} (a text classifier): it has no word vectors to "
                "load. Use an unsupervised model (e.g. the cc.*.bin or wiki.*.bin files)."
            )
        if vocab_size < 1:
            raise damaged
        for _ in range(vocab_size):
            end = data.find(b"\x00", pos)
            if end < 0:
                raise damaged
            pos = end + 1 + struct.calcsize("@qb")
        pos += 8 * max(pruned, 0) + 1  # the pruned-index pairs (-1: none), then the quantisation flag
        if pos + 16 > size:
            raise damaged
        rows, cols = struct.unpack_from("@2q", data, pos)
        if rows < 1 or cols < 1 or pos + 16 + 4 * rows * cols > size:
            raise damaged

