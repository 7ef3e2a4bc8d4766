"""The word-level library under bad input (issue 22): a ValueError that says what to do, never a
silently wrong result or another exception."""
import json
import os

import numpy as np
import pytest

from privlib.words.corpus import partial_name, sanitize_corpus
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.text import SanitisePolicy, sanitize_many, sanitize_per_document, tokenize


@pytest.mark.parametrize("case", ["bogus", "MATCH", "", None, ["match"]])
def test_tokenize_refuses_an_unknown_case_policy(gaussian_space, case):
    with pytest.raises(ValueError, match="case must be one of"):
        tokenize("The cat", gaussian_space, case=case)
    with pytest.raises(ValueError, match="case"):
        SanitisePolicy(case=case)


def test_one_string_is_not_a_list_of_texts_or_words(gaussian_space):
    """A string would be read letter by letter: one document per character, one word per letter."""
    with pytest.raises(ValueError, match="not one string"):
        sanitize_many("w1 w2", epsilon=1.0, space=gaussian_space, rng=0)
    with pytest.raises(ValueError, match="not one string"):
        sanitize_per_document("w1 w2", [np.random.default_rng(0)] * 5, epsilon=1.0, space=gaussian_space)
    with pytest.raises(ValueError, match="not one string"):
        gaussian_space.indices("w1")
    assert gaussian_space.indices(["w1", "w2"]).tolist() == [1, 2]


def test_an_unknown_word_names_the_vocabulary_size_once(glove_small):
    with pytest.raises(ValueError) as info:
        glove_small.index("qwzxqwzx")
    assert str(info.value).count("20,000") == 1, str(info.value)
    space = EmbeddingSpace.from_arrays(["a", "b"], np.eye(2), name="tiny")
    with pytest.raises(ValueError, match=r"vocabulary of tiny \(2 words\)"):
        space.index("c")


def test_points_that_are_not_finite_say_epsilon_is_too_small(gaussian_space):
    with pytest.raises(ValueError, match="NaN or infinite values: for noisy points.*epsilon is far too small"):
        gaussian_space.exact_search.nearest(np.full((1, gaussian_space.dim), np.inf))


def test_an_embedding_path_that_is_a_pipe_or_folder_is_named_as_such(tmp_path):
    fifo = tmp_path / "vectors.txt"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        EmbeddingSpace.from_file(fifo)
    with pytest.raises(ValueError, match="is a folder"):
        EmbeddingSpace.from_file(tmp_path)


@pytest.mark.parametrize("where", ["access check", "while reading"])
def test_an_unreadable_embedding_file_says_permission_denied_not_damaged(tmp_path, monkeypatch, where):
    """Permission denied, as the access check sees it or as the read meets it (simulated: the
    tests run as root, who reads any file), is said as such — not "the file may be damaged"."""
    from privlib.words import embedding_files

    path = tmp_path / "vectors.txt"
    path.write_text("a 1 0\nb 0 1\n", encoding="utf-8")
    if where == "access check":
        monkeypatch.setattr(embedding_files.os, "access", lambda *args, **kwargs: False)
    else:
        def denied(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(embedding_files, "open", denied, raising=False)  # shadows the builtin there
    with pytest.raises(ValueError, match="permission denied"):
        EmbeddingSpace.from_file(path)


def test_an_embedding_file_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_bytes(b"cat 0.1 0.2\ndog 0.3 0.4\ncaf\xe9 0.5 0.6\n")
    with pytest.raises(ValueError, match="invalid byte at line 3"):
        EmbeddingSpace.from_file(path)


def test_the_partial_file_name_stays_within_the_file_system_limit(tmp_path):
    target = tmp_path / ("x" * 250 + ".jsonl")
    name = partial_name(target).name
    assert name.startswith(".x") and name.endswith(".partial") and len(name.encode()) <= 255


def corpus(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_library_refuses_duplicate_ids_an_empty_original_column_and_the_input_as_output(tmp_path, gaussian_space):
    source = corpus(tmp_path / "in.jsonl", [{"id": "a", "text": "w1"}, {"id": "b", "text": "w2"},
                                           {"id": "a", "text": "w3"}])
    with pytest.raises(ValueError, match="row 2: its id .* repeats the id of row 0"):
        sanitize_corpus(source, tmp_path / "out.jsonl", id_column="id", epsilon=1.0, seed=1)
    with pytest.raises(ValueError, match="original_column must be a column name"):
        sanitize_corpus(source, tmp_path / "out.jsonl", epsilon=1.0, seed=1, original_column=" ")
    with pytest.raises(ValueError, match="another file than the input"):
        sanitize_corpus(source, tmp_path / "." / "in.jsonl", epsilon=1.0, seed=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
