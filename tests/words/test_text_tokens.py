"""The sanitiser's tokens as GloVe saw them: contractions and possessives split into host and
clitic, numbers sanitised by default, e-mail addresses and URLs as one unit, and the budget line.

New names of `privlib.words.text` are read from the module inside each test, so that each test
fails on its own (rather than the whole file failing to import) on a sanitiser without them.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privlib.words.text as text_module
from privlib.words.embeddings import EmbeddingSpace
from privlib.core.mechanism import Guarantee
from privlib.words.mechanisms import Mechanism, MultivariateLaplace, Parameter
from privlib.words.neighbours import neighbour_ranks
from privlib.words.text import (
    OOV_POLICIES,
    PAPER_EXAMPLE,
    PUNCTUATION,
    REDACTED,
    SanitisePolicy,
    sanitize,
    stop_words,
    tokenize,
    vocabulary_words,
)

ISSUE = "I'm sure we can't say they'll won't; the patient isn't John's"
ISSUE_PIECES = ["I", "'m", "sure", "we", "ca", "n't", "say", "they", "'ll", "wo", "n't", ";", "the", "patient",
                "is", "n't", "John", "'s"]


class Identity(Mechanism):
    """Test double: every word is output as itself."""

    name = "identity"

    def _guarantee(self):
        return Guarantee("none", "none (test double)")

    def _sample_many(self, space, rows, eps, rng):
        return np.asarray(rows, dtype=np.int64)


class MapTo(Identity):
    """Test double: outputs ``mapping[word]`` (a vocabulary word), else the word itself."""

    name = "map-to"
    PARAMETERS = {"mapping": Parameter(None, help="word -> output word")}

    def _set_parameters(self, *, mapping=None):
        self.mapping = mapping

    def _sample_many(self, space, rows, eps, rng):
        return np.array([space.index(self.mapping.get(space.words[r], space.words[r])) for r in rows], dtype=np.int64)


PIECES = ["do", "did", "n't", "'ll", "'s", "'re", "john", "mary", "i", "we", "'m", "5", "8", "2023", "2028", "1,000",
          "sure"]
SWAP = {"do": "did", "n't": "'ll", "john": "mary", "'s": "'re", "i": "we", "'m": "'re", "5": "8", "2023": "2028"}


@pytest.fixture(scope="module")
def pieces():
    rng = np.random.default_rng(4)
    return EmbeddingSpace.from_arrays(PIECES, rng.standard_normal((len(PIECES), 6)), name="pieces")


def texts(tokens):
    return [t.text for t in tokens if not t.text.isspace()]


# --- what the embedding holds ---------------------------------------------------------------

def test_glove_holds_the_pieces_not_the_whole_forms(glove):
    """The splitting rules come from GloVe 6B's vocabulary: its tokeniser (Stanford, Penn Treebank
    style) cut clitics off, so the pieces are there and the whole forms are not."""
    for piece in ["n't", "'s", "'m", "'re", "'ve", "'ll", "'d", "'", "ca", "wo", "sha", "ai", "do", "i", "john",
                  "n’t", "’s", "’m", "’ll", "5", "2023", "789", "1,000", "3.14", "12:30", "1990s", "10am",
                  "www.google.com"]:
        assert piece in glove, piece
    for whole in ["don't", "can't", "won't", "i'm", "isn't", "john's", "they'll", "boys'", "foo@bar.com",
                  "http://www.google.com", "12,345"]:
        assert whole not in glove, whole


# --- tokeniser ------------------------------------------------------------------------------

def test_contractions_and_possessives_split_like_the_embeddings_tokeniser():
    assert texts(tokenize(ISSUE)) == ISSUE_PIECES
    curly = ISSUE.replace("'", "’")
    assert texts(tokenize(curly)) == [p.replace("'", "’") for p in ISSUE_PIECES]
    assert texts(tokenize("we've she'd the boys' car, DON'T I’M shouldn't've")) == [
        "we", "'ve", "she", "'d", "the", "boys", "'", "car", ",", "DO", "N'T", "I", "’M", "should", "n't", "'ve"]
    kinds = {t.text: t.kind for t in tokenize("I'm isn't John's boys' 1990's")}
    clitic = text_module.CLITIC
    assert kinds["'m"] == kinds["n't"] == kinds["'s"] == kinds["'"] == clitic
    assert kinds["I"] == kinds["is"] == kinds["John"] == kinds["boys"] == text_module.WORD
    assert kinds["1990"] == text_module.NUMBER


def test_quotation_marks_and_inner_apostrophes_are_not_clitics():
    tokens = tokenize("'Yes' and 'cats' said O'Neill — rock'n'roll")
    assert texts(tokens) == ["'", "Yes", "'", "and", "'", "cats", "'", "said", "O'Neill", "—", "rock'n'roll"]
    assert [t.kind for t in tokens if t.text == "'"] == [PUNCTUATION] * 4


def test_numbers_keep_their_unit_suffix_as_one_token():
    assert texts(tokenize("the 1990s at 10am, 1st of 1,000 (3.14) 12:30")) == [
        "the", "1990s", "at", "10am", ",", "1st", "of", "1,000", "(", "3.14", ")", "12:30"]


def test_whole_form_is_preferred_when_the_embedding_has_it():
    space = EmbeddingSpace.from_arrays(["don't", "do", "n't", "maria", "'s"], np.eye(5), name="whole forms")
    assert texts(tokenize("Don't Maria's", space)) == ["Don't", "Maria", "'s"]
    assert texts(tokenize("Don’t", space)) == ["Don’t"]  # looked up with a straight apostrophe
    assert texts(tokenize("Don't")) == ["Do", "n't"]  # without an embedding: the GloVe pieces
    assert sanitize("Don't", Identity.family(), 1.0, space).budget == 1.0  # one token, one epsilon


def test_structured_tokens_are_one_token_each():
    text = "Write to maria.gonzalez@example.com or https://clinic.example.org/p?id=42, see www.google.com."
    tokens = {t.text: t.kind for t in tokenize(text)}
    assert tokens["maria.gonzalez@example.com"] == text_module.EMAIL
    assert tokens["https://clinic.example.org/p?id=42"] == text_module.URL
    assert tokens["www.google.com"] == text_module.URL
    assert "," in tokens and "." in tokens  # trailing punctuation is not part of the address
    assert texts(tokenize("acme-health.org/x and google.community, bbc.co.uk or google.com.au.")) == [
        "acme-health.org/x", "and", "google", ".", "community", ",", "bbc.co.uk", "or", "google.com.au", "."]


@pytest.mark.parametrize("unit", ["a.", "a+", "1.a", "a@", "a.com.", "x's", "www."])
def test_tokenising_a_long_run_without_spaces_takes_linear_time(unit):
    """Addresses are only tried where a run of address characters starts, and at most three clitics
    are cut from a word: the work grows in proportion to the run's length, not with its square.

    Checked by the order of growth, not by seconds: the CPU time of this thread (not the wall clock,
    which waits on other processes) of a run 16 times longer, each the fastest of three tries
    taken in turn, is at most 64 times longer — 16 for linear work, 256 for quadratic work (the
    whole run rescanned from each position: minutes for the longest text). A ratio of two timings
    of the same code taken back to back does not move with the machine's load."""
    import time

    def cpu_seconds(text):
        start = time.thread_time()
        tokens = tokenize(text)
        return time.thread_time() - start, tokens

    longest = unit * (text_module.MAX_CHARACTERS // len(unit))
    shorter = unit * (len(longest) // len(unit) // 16)
    small, large = [], []
    for _ in range(3):  # interleaved: a pause of the machine hits both sizes alike
        small.append(cpu_seconds(shorter)[0])
        seconds, tokens = cpu_seconds(longest)
        large.append(seconds)
    assert "".join(tok.text for tok in tokens) == longest
    assert min(large) <= 64 * max(min(small), 1e-6), (min(small), min(large))


# --- sanitising the pieces ------------------------------------------------------------------

def test_each_piece_is_sanitised_and_joined_back_with_its_case_and_apostrophe(pieces):
    swap = MapTo.family(mapping=SWAP)
    assert sanitize("Don't", swap, 1.0, pieces).sanitised == "Did'll"
    assert sanitize("DON’T", swap, 1.0, pieces).sanitised == "DID’LL"
    assert sanitize("john’s", swap, 1.0, pieces).sanitised == "mary’re"
    result = sanitize("I'm sure", swap, 2.0, pieces)
    assert result.sanitised == "We're sure"
    assert [(r.original, r.replacement, r.action) for r in result.records] == [
        ("I", "We", "sanitised"), ("'m", "'re", "sanitised"), ("sure", "sure", "sanitised")]
    assert result.budget == 6.0  # three tokens at epsilon 2


def test_issue_sentence_comes_back_at_huge_epsilon(glove):
    for text in (ISSUE, ISSUE.replace("'", "’"), "I’m sure they'll say it isn't John’s, and won't."):
        result = sanitize(text, MultivariateLaplace.family(), 1e6, glove, rng=3)
        assert result.sanitised == text
        assert REDACTED not in result.sanitised
        assert result.budget == 1e6 * len([t for t in tokenize(text) if t.kind != "space" and t.text not in ";,."])


def test_numbers_are_sanitised_by_default_and_follow_the_oov_policy(pieces):
    assert SanitisePolicy().numbers == "sanitise"
    assert list(text_module.NUMBER_POLICIES) == ["sanitise", "keep"]
    assert "not protected" in text_module.NUMBER_POLICIES["keep"]
    swap = MapTo.family(mapping=SWAP)
    result = sanitize("5, 2023 1,000 12,345", swap, 1.0, pieces)
    assert result.sanitised == f"8, 2028 1,000 {REDACTED}"
    assert result.budget == 3.0
    unknown = result.records[-1]
    assert (unknown.kind, unknown.action, unknown.reason) == ("number", "redacted", "not in vocabulary")
    kept = sanitize("5, 2023 1,000 12,345", swap, 1.0, pieces, policy=SanitisePolicy(numbers="keep"))
    assert kept.sanitised == "5, 2023 1,000 12,345" and kept.budget == 0
    assert {r.reason for r in kept.records if r.kind == "number"} == {"number"}
    # the former switch still works
    assert SanitisePolicy(sanitise_numbers=False).numbers == "keep"
    assert SanitisePolicy(sanitise_numbers=True) == SanitisePolicy()
    with pytest.raises(ValueError, match="numbers"):
        SanitisePolicy(numbers="drop")


def test_paper_example_numbers_are_sanitised(glove):
    """The worked example turns "March 5, 2023" into "8 4, 2028": 5, 2023 and 789 are GloVe words."""
    result = sanitize(PAPER_EXAMPLE, MapTo.family(mapping={"5": "8", "2023": "2028"}), 10.0, glove)
    assert "March 8, 2028" in result.sanitised and "789 Oak" in result.sanitised
    numbers = [r for r in result.records if r.kind == "number"]
    assert [(r.original, r.action) for r in numbers] == [("5", "sanitised"), ("2023", "sanitised"),
                                                          ("789", "sanitised")]
    assert result.budget == 10.0 * 35  # 32 words and 3 numbers


def test_structured_tokens_follow_the_oov_policy_as_a_whole(glove):
    text = "Write to maria.gonzalez@example.com or https://clinic.example.org/p?id=42, see www.google.com."
    redacted = sanitize(text, Identity.family(), 1.0, glove)
    assert redacted.sanitised == f"Write to {REDACTED} or {REDACTED}, see www.google.com."
    assert [r.action for r in redacted.records if r.kind in ("email", "url")] == ["redacted", "redacted", "sanitised"]
    kept = sanitize(text, Identity.family(), 1.0, glove, policy=SanitisePolicy(oov="keep"))
    assert kept.sanitised == text and "not protected" in kept.budget_message().lower()
    randomised = sanitize(text, Identity.family(), 1.0, glove, rng=1, policy=SanitisePolicy(oov="random"))
    words = randomised.sanitised.split(" ")
    assert "@" not in randomised.sanitised and "://" not in randomised.sanitised and len(words) == len(text.split(" "))


def test_clitics_of_stop_words_are_stop_words():
    assert {"n't", "'s", "'m", "'re", "'ve", "'ll", "'d", "'"} <= stop_words()
    assert {"not", "am", "is"} <= stop_words() and "ca" not in stop_words()


def test_vocabulary_words_are_the_pieces(glove):
    assert vocabulary_words("I can't, John's 2023", glove) == ["i", "ca", "n't", "john", "'s", "2023"]


# --- budget line ----------------------------------------------------------------------------

def test_budget_counts_the_sanitised_tokens_and_names_what_is_not_protected(glove):
    text = "I can't call 555 1234 or Zyxwvu, the doctor said."
    policy = SanitisePolicy(numbers="keep", keep_stop_words=True)
    result = sanitize(text, Identity.family(), 2.0, glove, policy=policy)
    sanitised = [r.original for r in result.records if r.action == "sanitised"]
    assert sanitised == ["ca", "call", "doctor", "said"]
    assert result.budget == 8.0
    message = result.budget_message()
    assert "Privacy budget for this text: 8**" in message and "4 sanitised tokens × ε = 2 each" in message
    assert "Not protected" in message
    for part in ("2 numbers", "4 stop words", "2 punctuation marks"):
        assert part in message, (part, message)
    assert f"1 token not in the vocabulary: {OOV_POLICIES['redact']}" in message

    default = sanitize(text, Identity.family(), 2.0, glove)
    assert default.budget == 2.0 * 10  # I ca n't call 555 1234 or the doctor said
    assert "number" not in default.budget_message() and "stop word" not in default.budget_message()


# --- property: at a huge epsilon the text comes back character for character ----------------

POOL = ["patient", "doctor", "said", "clinic", "maria", "paris", "house", "the", "of", "and", "medication", "weekly"]
CONTRACTIONS = [("do", "n't"), ("ca", "n't"), ("wo", "n't"), ("is", "n't"), ("i", "'m"), ("they", "'ll"),
                ("we", "'ve"), ("she", "'d"), ("john", "'s"), ("boys", "'"), ("you", "'re")]
NUMBERS = ["5", "2023", "789", "1,000", "3.14", "12:30", "1990s", "10am", "42"]
SEPARATORS = [" ", ", ", ". ", "; ", " — ", " (", ") ", "! ", " “", "” ", "\n", " - "]
CASES = [str.lower, str.title, str.upper]


@st.composite
def sentences(draw):
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        case = draw(st.sampled_from(CASES))
        kind = draw(st.sampled_from(["word", "contraction", "number"]))
        if kind == "word":
            parts.append(case(draw(st.sampled_from(POOL))))
        elif kind == "contraction":
            host, clitic = draw(st.sampled_from(CONTRACTIONS))
            host = case(host)
            clitic = clitic.upper() if case is str.upper else clitic
            parts.append(host + clitic.replace("'", draw(st.sampled_from(["'", "’"]))))
        else:
            parts.append(draw(st.sampled_from(NUMBERS)))
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


def test_pool_words_have_no_twin(glove):
    """At eps = 1e6 the noise is ~5e-5 long: a word is kept unless another word is that close."""
    pieces = set(POOL) | {p for pair in CONTRACTIONS for p in pair} | set(NUMBERS)
    assert all(neighbour_ranks(glove, w).distances[1] > 0.05 for w in pieces)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(sentences())
def test_huge_epsilon_returns_the_text_character_for_character(glove, text):
    result = sanitize(text, MultivariateLaplace.family(), 1e6, glove, rng=0)
    assert result.sanitised == text
    assert all(r.action in ("sanitised", "kept") for r in result.records)
    assert all(r.rank == 0 for r in result.records if r.action == "sanitised")
