"""EmbeddingSpace.from_file on the files people actually have: compressed text and binaries, fastText
model files, byte-order marks, headers that disagree with the file; and messages that name the file,
the line and the word at fault without quoting the file or repeating a huge word."""
from __future__ import annotations

import bz2
import gzip

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace

WORDS = ["alpha", "beta", "gamma", "delta", "épsilon"]


@pytest.fixture()
def vectors():
    rng = np.random.default_rng(5)
    return np.round(rng.standard_normal((len(WORDS), 4)), 4).astype(np.float32)


def text_bytes(vectors, header: bool, words=WORDS) -> bytes:
    lines = [f"{len(words)} {vectors.shape[1]}"] if header else []
    # fastText .vec files end every row with a space
    lines += [w + " " + " ".join(f"{x:.4f}" for x in row) + " " for w, row in zip(words, vectors, strict=True)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def binary_bytes(tmp_path, vectors) -> bytes:
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=vectors.shape[1])
    kv.add_vectors(WORDS, vectors)
    path = tmp_path / "w2v.bin"
    kv.save_word2vec_format(str(path), binary=True)
    return path.read_bytes()


def load_error(path, **kwargs) -> str:
    with pytest.raises(ValueError) as info:
        EmbeddingSpace.from_file(path, **kwargs)
    return str(info.value)


# ----------------------------------------------------------------------------- compressed files
@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("compress, suffix", [(gzip.compress, ".gz"), (bz2.compress, ".bz2")])
def test_compressed_text_is_read_after_decompressing(tmp_path, vectors, header, compress, suffix):
    path = tmp_path / f"cc.en.vec{suffix}"
    path.write_bytes(compress(text_bytes(vectors, header)))
    space = EmbeddingSpace.from_file(path)
    assert space.words == tuple(WORDS)
    np.testing.assert_array_equal(space.vectors, vectors)
    assert EmbeddingSpace.from_file(path, vocab_size=2).words == tuple(WORDS[:2])


def test_gzipped_word2vec_binary(tmp_path, vectors):
    path = tmp_path / "GoogleNews-vectors.bin.gz"
    path.write_bytes(gzip.compress(binary_bytes(tmp_path, vectors)))
    space = EmbeddingSpace.from_file(path)
    assert space.words == tuple(WORDS)
    np.testing.assert_array_equal(space.vectors, vectors)


def test_compression_is_detected_from_the_content_not_the_name(tmp_path, vectors):
    path = tmp_path / "upload.vec"  # e.g. an upload whose name lost its .gz
    path.write_bytes(gzip.compress(text_bytes(vectors, header=True)))
    assert EmbeddingSpace.from_file(path).words == tuple(WORDS)


# ----------------------------------------------------------------------------- fastText model files
@pytest.fixture(scope="module")
def fasttext_bin(tmp_path_factory):
    from gensim.models.fasttext import FastText, save_facebook_model

    sentences = [["the", "king", "rules", "the", "land"], ["the", "queen", "rules", "the", "sea"],
                 ["a", "cat", "sat", "on", "the", "mat"], ["the", "dog", "ate", "the", "bone"]] * 5
    model = FastText(vector_size=6, window=2, min_count=1, bucket=50, epochs=2, seed=1, workers=1)
    model.build_vocab(corpus_iterable=sentences)
    model.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=2)
    path = tmp_path_factory.mktemp("ft") / "model.bin"
    save_facebook_model(model, str(path))
    return path


def test_fasttext_model_file_loads_its_word_vectors(fasttext_bin):
    from gensim.models.fasttext import load_facebook_vectors

    kv = load_facebook_vectors(str(fasttext_bin))
    space = EmbeddingSpace.from_file(fasttext_bin)
    assert space.words == tuple(kv.index_to_key)
    np.testing.assert_allclose(space.vectors, kv.vectors[: len(space)])
    assert "fastText" in space.name
    limited = EmbeddingSpace.from_file(fasttext_bin, vocab_size=3)
    assert limited.words == tuple(kv.index_to_key[:3])


def test_damaged_fasttext_model_file_is_called_a_fasttext_model(tmp_path, fasttext_bin):
    cut = tmp_path / "cut.bin"
    cut.write_bytes(fasttext_bin.read_bytes()[:200])
    message = load_error(cut)
    assert "fastText" in message and "cut.bin" in message
    assert "no_header" not in message


# ----------------------------------------------------------------------------- byte-order mark, header counts
@pytest.mark.parametrize("header", [True, False])
def test_utf8_byte_order_mark_is_not_part_of_the_first_word(tmp_path, vectors, header):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + text_bytes(vectors, header))
    space = EmbeddingSpace.from_file(path)
    assert space.words == tuple(WORDS)
    np.testing.assert_array_equal(space.vectors, vectors)


def test_utf16_file_is_explained(tmp_path, vectors):
    path = tmp_path / "wide.txt"
    path.write_bytes(text_bytes(vectors, header=False).decode("utf-8").encode("utf-16"))
    assert "UTF-16" in load_error(path)


def test_header_counting_fewer_rows_than_the_file_is_reported(tmp_path, vectors):
    data = text_bytes(vectors, header=True).replace(b"5 4\n", b"3 4\n", 1)
    path = tmp_path / "short_header.vec"
    path.write_bytes(data)
    message = load_error(path)
    assert "short_header.vec" in message and "3" in message
    assert "delta" in message  # the first row beyond the count
    # asking for fewer rows than the header counts reads only those: nothing to report
    assert EmbeddingSpace.from_file(path, vocab_size=2).words == tuple(WORDS[:2])


def test_binary_header_counting_fewer_rows_than_the_file_is_reported(tmp_path, vectors):
    data = binary_bytes(tmp_path, vectors).replace(b"5 4\n", b"3 4\n", 1)
    path = tmp_path / "short_header.bin"
    path.write_bytes(data)
    assert "delta" in load_error(path)


def test_header_counting_more_rows_than_the_file_says_how_many(tmp_path, vectors):
    path = tmp_path / "long_header.vec"
    path.write_bytes(text_bytes(vectors, header=True).replace(b"5 4\n", b"9 4\n", 1))
    message = load_error(path)
    assert "9" in message and "5" in message and "long_header.vec" in message


# ----------------------------------------------------------------------------- messages
def test_ragged_row_names_the_word_and_line(tmp_path):
    path = tmp_path / "ragged.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 1 2\ncherry 1 2 3\n")
    message = load_error(path)
    assert "banana" in message and "line 2" in message and "ragged.txt" in message


def test_ragged_row_with_a_header_names_the_word_and_line(tmp_path):
    path = tmp_path / "ragged.vec"
    path.write_bytes(b"3 3\napple 1 2 3\nbanana 1 2 3 4\ncherry 1 2 3\n")
    message = load_error(path)
    assert "banana" in message and "line 3" in message


def test_duplicate_word_names_the_word_and_both_lines(tmp_path):
    path = tmp_path / "dup.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 4 5 6\napple 7 8 9\n")
    message = load_error(path)
    assert "apple" in message and "line 1" in message and "line 3" in message


def test_non_number_names_word_and_line_but_not_the_value(tmp_path):
    path = tmp_path / "words.vec"
    path.write_bytes(b"2 3\napple 1 2 3\nbanana 1 zqxsecret 3\n")
    message = load_error(path)
    assert "banana" in message and "line 3" in message
    assert "zqxsecret" not in message


def test_non_finite_value_names_the_word_and_line(tmp_path):
    path = tmp_path / "nan.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 1 nan 3\n")
    message = load_error(path)
    assert "banana" in message and "line 2" in message


def test_huge_word_is_truncated_in_messages(tmp_path):
    huge = "x" * 10_000
    path = tmp_path / "huge.txt"
    path.write_bytes(f"apple 1 2 3\n{huge} 1 2\n".encode())
    message = load_error(path)
    assert "x" * 40 in message and "x" * 41 not in message
    assert len(message) < 600


def test_messages_never_quote_other_lines(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_bytes(b"apple 1 2 3\nbanana 1 2\nmy-secret-diagnosis 1 2 3\n")
    assert "my-secret-diagnosis" not in load_error(path)


def test_messages_name_the_given_file_name_not_the_temporary_copy(tmp_path):
    path = tmp_path / "tmpq8w2z9ab.vec"
    path.write_bytes(b"2 3\napple 1 2 3\nbanana 1 2\n")
    message = load_error(path, name="my_vectors.vec")
    assert "my_vectors.vec" in message and "tmpq8w2z9ab" not in message


def test_garbage_binary_names_the_file(tmp_path):
    path = tmp_path / "tmpgarbage.bin"
    path.write_bytes(b"3 4\n" + bytes(np.random.default_rng(2).integers(0, 256, 50, dtype=np.uint8)))
    message = load_error(path, name="upload.bin")
    assert "upload.bin" in message and "tmpgarbage" not in message
