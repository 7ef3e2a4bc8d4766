"""Text sanitisation: tokeniser round trip, policies, records, budget, limits, statistics."""
import html
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlib.words.embeddings import EmbeddingSpace
from privlib.core.mechanism import Guarantee
from privlib.words.mechanisms import Mechanism, MultivariateLaplace
from privlib.words.neighbours import neighbour_ranks
from privlib.words.text import (
    CLITIC,
    MAX_CHARACTERS,
    NUMBER,
    PAPER_EXAMPLE,
    PUNCTUATION,
    REDACTED,
    SPACE,
    WORD,
    SanitisePolicy,
    records_csv,
    sanitize,
    sanitize_many,
    stop_words,
    tokenize,
    vocabulary_words,
)

TRICKY = [
    "",
    "   ",
    "Hello, world!",
    "Don't stop—it's O'Neill's well-known café… naïve Zoë, résumé.",
    "Prices: 3.14, 1,000,000 and 12:30 on 2023/03/05 — 42%!",
    "emoji 😀👍🏽 👨‍👩‍👧 and flags 🇫🇷 mid😀word",
    "multiple   spaces\tand\ttabs\n\nnew lines\r\nwindows\n",
    "日本語のテキスト と Ελληνικά και русский текст",
    "snake_case __dunder__ a-b-c -dash- 'quoted' \"double\" ‘curly’",
    "Combining: cafe\u0301 e\u0301",
    "\u200b zero\u200bwidth \ufeffbom",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tokens_concatenate_back_to_the_text(text):
    tokens = tokenize(text)
    assert "".join(t.text for t in tokens) == text
    assert all(text[t.start:t.start + len(t.text)] == t.text for t in tokens)
    assert all(t.text for t in tokens)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_round_trips(text):
    assert "".join(t.text for t in tokenize(text)) == text


def test_token_kinds():
    kinds = {t.text: t.kind for t in tokenize("Don't stop—Maria's well-known 3.14 café 😀 a_b\n")}
    assert kinds["Do"] == WORD and kinds["well-known"] == WORD and kinds["café"] == WORD
    assert kinds["n't"] == CLITIC  # contraction split as GloVe's tokeniser did
    assert kinds["Maria"] == WORD and kinds["'s"] == CLITIC  # possessive split off
    assert kinds["3.14"] == NUMBER
    assert kinds["—"] == PUNCTUATION and kinds["😀"] == PUNCTUATION and kinds["_"] == PUNCTUATION
    assert kinds["\n"] == SPACE


def test_tokenize_rejects_non_strings():
    with pytest.raises(ValueError, match="string"):
        tokenize(None)


# --- a small space and a deterministic mechanism, to check the bookkeeping exactly ----------

WORDS = ["the", "cat", "sat", "on", "mat", "maria", "nasa", "2023", "dog", "Paris"]


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    return EmbeddingSpace.from_arrays(WORDS, rng.standard_normal((len(WORDS), 4)), name="small")


class NextWord(Mechanism):
    """Test double: always outputs the next row (wrapping), so every output is known."""

    name = "next-word"

    def _guarantee(self):
        return Guarantee("none", "none (test double)")

    def _sample_many(self, space, rows, eps, rng):
        return (np.asarray(rows) + 1) % len(space)


class Identity(NextWord):
    def _sample_many(self, space, rows, eps, rng):
        return np.asarray(rows)


def test_records_ranks_distances_and_budget(small):
    result = sanitize("The cat sat.", NextWord.family(), 2.5, small, rng=0)
    assert result.sanitised == "Cat sat on."  # the→cat (capital restored), cat→sat, sat→on
    words = [r for r in result.records if r.kind == WORD]
    assert [r.output_word for r in words] == ["cat", "sat", "on"]
    x = small.vectors.astype(np.float64)
    for r in words:
        w, y = small.index(r.input_word), small.index(r.output_word)
        assert r.rank == neighbour_ranks(small, w).rank[y]
        assert r.distance == pytest.approx(np.linalg.norm(x[w] - x[y]), rel=1e-12)
        assert r.cosine == pytest.approx(x[w] @ x[y] / np.linalg.norm(x[w]) / np.linalg.norm(x[y]), rel=1e-12)
        assert r.epsilon == 2.5 and r.action == "sanitised" and r.in_vocabulary
    dot = result.records[-1]
    assert (dot.original, dot.replacement, dot.action, dot.reason, dot.epsilon) == (".", ".", "kept", "punctuation", 0)
    assert result.sanitised_words == 3 and result.budget == pytest.approx(7.5)
    summary = result.summary(close=100)
    assert summary["counts"] == {"unchanged": 0, "close": 3, "distant": 0}
    assert summary["budget"] == pytest.approx(7.5)
    assert result.summary(close=1)["counts"]["distant"] == sum(r.rank > 1 for r in words)


def test_unchanged_word_keeps_its_exact_spelling_and_rank_zero(small):
    result = sanitize("MARIA and NASA in Paris", Identity.family(), 1.0, small)
    assert result.sanitised == "MARIA [UNK] NASA [UNK] Paris"
    assert [r.rank for r in result.records if r.action == "sanitised"] == [0, 0, 0]
    assert result.summary()["fractions"]["unchanged"] == 1.0


def test_case_policies(small):
    match = sanitize("Paris paris PARIS The THE", NextWord.family(), 1.0, small)
    # "Paris" is in the vocabulary as typed; "paris" and "PARIS" are not (only "Paris" is)
    assert match.sanitised == "the [UNK] [UNK] Cat CAT"
    exact = sanitize("Paris The the", NextWord.family(), 1.0, small, policy=SanitisePolicy(case="exact"))
    assert exact.sanitised == "the [UNK] cat"


def test_oov_policies_and_their_budget(small):
    text = "Zyx cat Qwerty"
    redacted = sanitize(text, NextWord.family(), 3.0, small)
    assert redacted.sanitised == f"{REDACTED} sat {REDACTED}"
    kept = sanitize(text, NextWord.family(), 3.0, small, policy=SanitisePolicy(oov="keep"))
    assert kept.sanitised == "Zyx sat Qwerty"
    randomised = sanitize(text, NextWord.family(), 3.0, small, rng=5, policy=SanitisePolicy(oov="random"))
    first, _, last = randomised.sanitised.split(" ")
    assert first.lower() in WORDS and last.lower() in WORDS and first[0].isupper() and last[0].isupper()
    for result in (redacted, kept, randomised):
        assert result.budget == pytest.approx(3.0)  # only "cat" was sanitised
        oov = [r for r in result.records if r.reason == "not in vocabulary"]
        assert len(oov) == 2 and all(r.in_vocabulary is False and r.epsilon == 0 for r in oov)
    with pytest.raises(ValueError, match="oov"):
        SanitisePolicy(oov="drop")
    with pytest.raises(ValueError, match="case"):
        SanitisePolicy(case="upper")


def test_stop_words_and_numbers(small):
    assert {"the", "on", "and", "a"} <= stop_words() and "cat" not in stop_words()
    policy = SanitisePolicy(keep_stop_words=True)
    result = sanitize("The cat sat on the mat in 2023", NextWord.family(), 1.0, small, policy=policy)
    assert result.sanitised == "The sat on on the maria in dog"
    assert result.budget == 4.0  # cat, sat, mat and the number 2023
    stops = [r for r in result.records if r.reason == "stop word"]
    assert [r.original for r in stops] == ["The", "on", "the", "in"]
    assert [r.in_vocabulary for r in stops] == [True, True, True, False]
    numbers = sanitize("in 2023", NextWord.family(), 1.0, small, policy=SanitisePolicy(sanitise_numbers=True))
    assert numbers.sanitised == "[UNK] dog" and numbers.budget == 1.0
    kept = sanitize("in 2023", NextWord.family(), 1.0, small, policy=SanitisePolicy(numbers="keep"))
    assert kept.sanitised == "[UNK] 2023" and kept.budget == 0.0


def test_vocabulary_words_follow_the_policy(small):
    assert vocabulary_words("The cat, the CAT and Zyx in 2023", small) == ["the", "cat", "2023"]
    assert vocabulary_words("The cat", small, SanitisePolicy(keep_stop_words=True)) == ["cat"]
    assert vocabulary_words("2023 cat", small, SanitisePolicy(sanitise_numbers=True)) == ["2023", "cat"]
    assert vocabulary_words("2023 cat", small, SanitisePolicy(numbers="keep")) == ["cat"]


def test_empty_text_and_the_length_limit(small):
    empty = sanitize("", NextWord.family(), 1.0, small)
    assert (empty.sanitised, empty.records, empty.budget) == ("", (), 0)
    assert empty.summary()["fractions"] == {"unchanged": 0.0, "close": 0.0, "distant": 0.0}
    assert sanitize(" \n ", NextWord.family(), 1.0, small).sanitised == " \n "
    assert len(sanitize("cat " * (MAX_CHARACTERS // 4), NextWord.family(), 1.0, small).records) == MAX_CHARACTERS // 4
    with pytest.raises(ValueError, match=f"limit is {MAX_CHARACTERS:,}"):
        sanitize("x" * (MAX_CHARACTERS + 1), NextWord.family(), 1.0, small)


def test_bad_arguments_say_what_to_do(small):
    with pytest.raises(ValueError, match="embedding space"):
        sanitize("cat", None, 1.0, None)
    with pytest.raises(ValueError, match="greater than 0"):
        sanitize("cat", NextWord.family(), 0.0, small)
    with pytest.raises(ValueError, match="Unknown mechanism"):
        sanitize("cat", "no-such-mechanism", 1.0, small)
    with pytest.raises(ValueError, match="SanitisePolicy"):
        sanitize("cat", NextWord.family(), 1.0, small, policy={"oov": "keep"})


def test_whitespace_and_punctuation_survive_sanitising(small):
    text = "  cat,\tsat!!\n\nmat 😀 — (dog)  "
    result = sanitize(text, NextWord.family(), 1.0, small)
    assert result.sanitised == "  sat,\ton!!\n\nmaria 😀 — (Paris)  "
    assert re.sub(r"\w+", "", result.sanitised) == re.sub(r"\w+", "", text)
    # a clitic this vocabulary lacks ("'s") is a token not in the vocabulary: redacted by default
    assert sanitize("dog's", NextWord.family(), 1.0, small).sanitised == "Paris[UNK]"


def test_sanitize_many_keeps_order_and_reports_progress(small):
    texts = ["cat", "", "sat mat", "Zyx"] * 30
    calls = []
    results = sanitize_many(texts, NextWord.family(), 1.0, small, progress=lambda f, m: calls.append(f), batch_words=10)
    assert [r.text for r in results] == texts
    assert [r.sanitised for r in results[:4]] == ["sat", "", "on maria", REDACTED]
    assert len(calls) > 1 and calls[-1] == 1.0 and calls == sorted(calls)


def test_html_escapes_and_shows_original_rank_distance(small):
    result = sanitize("<script>cat</script> & Zyx", NextWord.family(), 1.0, small)
    page = result.to_html()
    assert "<script" not in page and "&lt;" in page and "&gt;" in page and "&amp;" in page
    kept = sanitize("<script>", NextWord.family(), 1.0, small, policy=SanitisePolicy(oov="keep"))
    assert "&lt;script&gt;" in kept.to_html()
    cat = next(r for r in result.records if r.original == "cat")
    assert html.escape(f"cat → sat · rank {cat.rank} · distance {cat.distance:.3f}") in page
    assert 'class="redacted"' in page and 'class="close"' in page
    assert 'class="distant"' in result.to_html(close=1) or cat.rank <= 1


def test_records_csv_has_one_row_per_token_and_mechanism(small):
    a = sanitize("cat, sat", NextWord.family(), 1.0, small)
    b = sanitize("cat, sat", Identity.family(), 1.0, small)
    lines = records_csv([a, b]).splitlines()
    assert lines[0].startswith("mechanism,mechanism_epsilon,position,start,kind,original,replacement")
    header = lines[0].split(",")
    assert len(header) == len(set(header))  # one column per name (there were two named epsilon)
    assert len(lines) == 1 + len(a.records) + len(b.records)


def test_to_dict_is_json_ready(small):
    import json

    d = json.loads(json.dumps(sanitize("The cat!", NextWord.family(), 1.0, small).to_dict()))
    assert d["sanitised"] == "Cat sat!" and d["budget"] == 2.0 and len(d["tokens"]) == 3
    assert d["policy"] == {"case": "match", "oov": "redact", "keep_stop_words": False, "numbers": "sanitise"}


# --- statistics with the real mechanism ------------------------------------------------------

def test_output_law_on_a_line_matches_the_exact_probabilities(line_space, line_law):
    """Sanitising a text of 4,000 copies of "b" with the multivariate Laplace mechanism (n = 1):
    the replacement frequencies match the exact law of mechanisms.md §1(d) within 4 SE."""
    eps, m = 0.8, 4000
    result = sanitize(" ".join(["b"] * m), MultivariateLaplace.family(), eps, line_space, rng=11)
    outputs = [r.output_word for r in result.records if r.kind == WORD]
    freq = np.array([outputs.count(w) for w in line_space.words]) / m
    p = line_law(1, eps)
    se = np.sqrt(p * (1 - p) / m)
    assert np.all(np.abs(freq - p) <= 4 * se + 1e-12), (freq, p)
    assert result.budget == pytest.approx(m * eps)


def test_huge_epsilon_keeps_every_word_and_tiny_epsilon_almost_none(glove):
    # the full vocabulary: the example's numbers 5, 2023 and 789 are GloVe words, sanitised by default
    words = [r.input_word for r in sanitize(PAPER_EXAMPLE, Identity.family(), 1.0, glove).records if r.in_vocabulary]
    assert {"5", "2023", "789"} <= set(words)
    # words whose vector is shared with another word could be replaced by their twin: none here
    assert all(neighbour_ranks(glove, w).distances[1] > 0.5 for w in set(words))
    huge = sanitize(PAPER_EXAMPLE, MultivariateLaplace.family(), 1e6, glove, rng=1)
    assert huge.sanitised == PAPER_EXAMPLE and huge.summary()["fractions"]["unchanged"] == 1.0
    # eps = 0.5: the noise (mean length n/eps = 100) swamps every gap between words, so keeping a
    # word has probability ~0 (Fig. 2 shows 0% already at eps = 1). 350 tokens: even a true keep
    # rate of 1% would give more than 15 kept words with probability < 1e-4.
    tiny = sanitize(" ".join(words * 10), MultivariateLaplace.family(), 0.5, glove, rng=2)
    summary = tiny.summary()
    assert summary["sanitised_words"] == len(words) * 10
    assert summary["counts"]["unchanged"] <= 15, summary
