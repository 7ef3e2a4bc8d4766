"""Sanitising text token by token: tokenise, privatise each token, put the text back together.

Word-level d_X-privacy on text (Feyisetan et al. 2020; Asghar et al. 2026, §3.2): every token the
embedding knows (a word, a piece of a contraction, a number) is replaced by the output of a word
mechanism at epsilon; punctuation, whitespace and emojis are kept verbatim, and
``"".join(t.text for t in tokenize(s)) == s`` for every string s.

Tokens are cut the way the embedding's own tokeniser cut its training text. GloVe 6B
(Pennington et al. 2014) was trained on lower-cased text split by the Stanford tokeniser, which
follows the Penn Treebank conventions: a contraction or possessive is a host plus a clitic
("don't" -> "do" + "n't", "can't" -> "ca" + "n't", "won't" -> "wo" + "n't", "I'm" -> "i" + "'m",
"John's" -> "john" + "'s", "boys'" -> "boys" + "'"), numbers keep their separators and unit
suffix ("1,000", "3.14", "12:30", "1990s", "10am"), and hyphenated words stay whole. GloVe's
vocabulary holds those pieces and not the whole forms, so the sanitiser looks up and privatises
each piece and joins the outputs back without spaces, with the original capitals and apostrophe
(straight ' or curly ’). An embedding that has a whole form ("don't") gets the whole form.

Composition: a text in which m tokens were sanitised at epsilon each is m·eps-private
(m·eps·d_X-private for the metric mechanisms); tokens passed through unchanged (punctuation, stop
words or numbers when the policy keeps them, out-of-vocabulary tokens kept as they are) are not
protected at all.
"""
from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from privlib.core.validation import as_generator, check_epsilon, check_positive_int, shown
from privlib.words.mechanisms import Mechanism, MultivariateLaplace, make_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE, output_ranks

#: The longest text `sanitize` accepts, in characters (about 15,000 words of English; one
#: document of the CLI's input file is one line and has the same limit). Longer texts raise
#: ValueError: split them into documents (e.g. one paragraph per line for the CLI).
MAX_CHARACTERS = 100_000
#: What a redacted out-of-vocabulary word becomes.
REDACTED = "[UNK]"
#: The paper's worked example (Asghar et al. 2026, §2: GloVe 100d, eps = 10), the page's default text.
PAPER_EXAMPLE = (
    "Maria Gonzalez, a patient at Riverside Clinic, was diagnosed with depression on March 5, 2023. "
    "She currently lives at 789 Oak Drive, San Francisco. Maria has been prescribed medication and "
    "is undergoing weekly therapy sessions."
)
STOP_WORDS_FILE = Path(__file__).resolve().parent / "data" / "stopwords_en.txt"

#: Token kinds. A clitic is the tail of a contraction or possessive (n't, 's, 'm, 're, 've, 'll, 'd,
#: and the bare ' of "boys'"); an e-mail address or a URL (with a scheme, www., or a domain under a
#: generic top-level domain such as .com or .org, or .co.uk-style) is one token.
WORD, CLITIC, NUMBER, EMAIL, URL = "word", "clitic", "number", "email", "url"
PUNCTUATION, SPACE = "punctuation", "space"
#: The clitics of the Penn Treebank tokenisation (Marcus et al. 1993) that GloVe 6B's vocabulary
#: holds as words, with the word each stands for.
CLITICS = {"n't": "not", "'s": "is, has, or the possessive", "'m": "am", "'re": "are", "'ve": "have",
           "'ll": "will", "'d": "would or had", "'": "the plural possessive (boys')"}
#: Apostrophes: the straight one and the typographic one (U+2019). Both are looked up, and a
#: replacement is written with the apostrophe of the text.
APOSTROPHE, CURLY_APOSTROPHE = "'", "\u2019"

_INSIDE = r"""[^\s<>"'`‘’“”]"""  # a character of an address
_LAST = r"""[^\s<>"'`‘’“”.,;:!?)\]}]"""  # its last character: trailing punctuation belongs to the text
_RUN_START = r"(?<![\w.+-])"  # an address starts a run of such characters (keeps tokenising linear in time)
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    rf"|(?P<email>{_RUN_START}[^\W_][\w.+-]*@[^\W_][\w-]*(?:\.[^\W_][\w-]*)+)"
    rf"|(?P<url>{_RUN_START}(?:[a-zA-Z][a-zA-Z0-9+.-]*://|www\.){_INSIDE}*{_LAST}"
    rf"|{_RUN_START}(?:[^\W_][\w-]*\.)+"
    r"(?:(?i:com|org|net|edu|gov|mil|int|info|biz|io)(?:\.[a-z]{2})?|(?i:co|ac)\.[a-z]{2})"
    rf"(?![\w-])(?:/(?:{_INSIDE}*{_LAST})?)?)"
    # digits with inner separators and a unit suffix: 5, 1,000, 3.14, 12:30, 1990s, 10am
    r"|(?P<number>\d+(?:[.,:/]\d+)*[^\W_]*)"
    # a letter, then letters or digits joined by inner apostrophes or hyphens (don't, O'Neill,
    # well-known, covid-19), and the plural possessive apostrophe after an s (boys')
    r"|(?P<word>[^\W\d_][^\W_]*(?:[-'’][^\W_]+)*(?:(?<=[sS])['’](?![^\W_]))?)"
    # a clitic after a number or an address: the 1990's, the 1990s' music
    r"|(?P<clitic>(?<=[^\W_])(?:['’](?i:s|d|m|re|ve|ll)|(?<=[sS])['’])(?![^\W_]))"
    r"|(?P<punctuation>_+|[^\w\s]+|.)",
    re.DOTALL,
)
#: Where the clitic at the end of a word starts (its host is what precedes it), searched in the
#: word's last `_CLITIC_TAIL` characters; at most `_MAX_CLITICS` are cut (shouldn't've has two).
_CLITIC_END = re.compile(r"(?:n['’]t|['’](?:s|d|m|re|ve|ll)|(?<=s)['’])$", re.IGNORECASE)
_CLITIC_TAIL, _MAX_CLITICS = 4, 3
_OPENING_QUOTES = "'‘’"


@dataclass(frozen=True)
class Token:
    """A piece of text: ``kind`` is word, clitic, number, email, url, punctuation or space;
    ``start`` its offset in the text."""

    text: str
    kind: str
    start: int


def tokenize(text: str, space=None, case: str = "match") -> list[Token]:
    """Split ``text`` into tokens that concatenate back to ``text`` exactly, the way the Penn
    Treebank tokenisation used for GloVe 6B (Pennington et al. 2014) cut its training text:
    contractions and possessives into a host word and a clitic (don't -> do + n't, can't -> ca +
    n't, won't -> wo + n't, I'm -> I + 'm, John's -> John + 's, boys' -> boys + ', with straight
    or curly apostrophes), numbers whole with their separators and unit suffix (1,000, 1990s),
    e-mail addresses and URLs whole.

    With an embedding ``space``, a whole form it holds is kept whole (a vocabulary with "don't"
    gets "don't"), looked up under the ``case`` policy (`CASE_POLICIES`); without one, clitics
    are always split, as GloVe's vocabulary needs. A closing quotation mark after a word in
    quotes ('cats') is punctuation, not a possessive."""
    if not isinstance(text, str):
        raise ValueError(f"Text must be a string, got {type(text).__name__}.")
    if not isinstance(case, str) or case not in CASE_POLICIES:
        raise ValueError(f"case must be one of {', '.join(CASE_POLICIES)}, got {shown(case)}.")
    tokens = []
    for m in _TOKEN.finditer(text):
        kind, piece, start = m.lastgroup, m.group(), m.start()
        if kind != WORD or (APOSTROPHE not in piece and CURLY_APOSTROPHE not in piece):
            tokens.append(Token(piece, kind, start))
        elif piece[-1] in _OPENING_QUOTES and start and text[start - 1] in _OPENING_QUOTES:
            tokens.extend(_word_pieces(piece[:-1], start, space, case))  # 'cats': a quotation, not boys'
            tokens.append(Token(piece[-1], PUNCTUATION, start + len(piece) - 1))
        else:
            tokens.extend(_word_pieces(piece, start, space, case))
    return tokens


def _word_pieces(word: str, start: int, space, case: str) -> list[Token]:
    """``word`` as a host and its clitics (shouldn't've -> should + n't + 've), cutting clitics
    off the end until the rest is a vocabulary word of ``space`` or has no clitic left."""
    clitics = []
    while len(clitics) < _MAX_CLITICS and not (space is not None and _vocabulary_form(word, space, case)):
        offset = max(len(word) - _CLITIC_TAIL, 0)
        m = _CLITIC_END.search(word[offset:])
        if m is None or offset + m.start() == 0:
            break
        cut = offset + m.start()
        clitics.append(Token(word[cut:], CLITIC, start + cut))
        word = word[:cut]
    return [Token(word, WORD, start), *reversed(clitics)]


def _plain(token: str) -> str:
    """``token`` with straight apostrophes."""
    return token.replace(CURLY_APOSTROPHE, APOSTROPHE) if CURLY_APOSTROPHE in token else token


@functools.lru_cache(maxsize=1)
def stop_words() -> frozenset:
    """The English stop-word list shipped in ``privlib/words/data/stopwords_en.txt`` (lower case),
    and the clitics of `CLITICS` (n't, 's, 'm, …): they stand for function words of that list
    (not, is, am, …), so leaving stop words untouched leaves them untouched too."""
    lines = STOP_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.startswith("#")) | frozenset(CLITICS)


#: What happens to an out-of-vocabulary word, and what that means for privacy.
OOV_POLICIES = {
    "redact": f"replaced by {REDACTED}: reveals only that some word the embedding does not know stood there",
    "keep": "left as it is: NOT protected (rare names are often out of vocabulary, so this can leak them)",
    "random": "replaced by a word drawn uniformly from the vocabulary, independently of the word: "
              "reveals nothing about it, but the text reads as if a real word were there",
}
CASE_POLICIES = {
    "match": "look the word up as typed, else in lower case and with a straight apostrophe (GloVe is all "
             "lower case); the replacement gets the original's capitals and apostrophe (Maria -> Elena, "
             "NASA -> ESA, n’t -> ’s)",
    "exact": "look the word up exactly as typed; replacements are written as the vocabulary spells them",
}
#: What happens to a number (5, 2023, 1,000, 3.14, 1990s), and what that means for privacy.
NUMBER_POLICIES = {
    "sanitise": "sanitised like words: a number the embedding knows (GloVe has 5, 789, 2023, 1,000) is replaced "
                "by the mechanism's output and costs ε; any other is handled like a word not in the vocabulary",
    "keep": "left as typed: not protected (dates, phone numbers and ID numbers pass through unchanged)",
}


@dataclass(frozen=True, init=False)
class SanitisePolicy:
    """Which tokens are sanitised and how (defaults in brackets).

    - ``case`` ["match"]: see `CASE_POLICIES`.
    - ``oov`` ["redact"]: tokens not in the vocabulary, see `OOV_POLICIES`. None of the three costs
      privacy budget: the output does not depend on which unknown token it was.
    - ``keep_stop_words`` [False]: leave the words of `stop_words` untouched. They then cost no
      budget and get no protection.
    - ``numbers`` ["sanitise"]: see `NUMBER_POLICIES`. Numbers are words of the embedding's
      vocabulary (the paper's worked example turns "March 5, 2023" into "8 4, 2028"); "keep"
      leaves them unprotected. The former switch ``sanitise_numbers=True/False`` is accepted as
      ``numbers="sanitise"/"keep"`` and read back as a property.
    Punctuation and whitespace are never changed; e-mail addresses and URLs are one token each.
    """

    case: str = "match"
    oov: str = "redact"
    keep_stop_words: bool = False
    numbers: str = "sanitise"

    def __init__(self, case: str = "match", oov: str = "redact", keep_stop_words: bool = False,
                 numbers: str | None = None, *, sanitise_numbers: bool | None = None):
        if sanitise_numbers is not None:
            former = "sanitise" if sanitise_numbers else "keep"
            if numbers is not None and numbers != former:
                raise ValueError(f"numbers={numbers!r} contradicts sanitise_numbers={sanitise_numbers!r}.")
            numbers = former
        for name, value, choices in (("case", case, CASE_POLICIES), ("oov", oov, OOV_POLICIES),
                                     ("numbers", numbers or "sanitise", NUMBER_POLICIES)):
            if not isinstance(value, str) or value not in choices:  # a list is refused, not a TypeError
                raise ValueError(f"{name} must be one of {', '.join(choices)}, got {shown(value)}.")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "keep_stop_words", bool(keep_stop_words))

    @property
    def sanitise_numbers(self) -> bool:
        """True when numbers are sanitised (``numbers == "sanitise"``)."""
        return self.numbers == "sanitise"


#: Token actions in the records.
SANITISED, KEPT, REDACTED_ACTION, RANDOM = "sanitised", "kept", "redacted", "random"


@dataclass(frozen=True)
class TokenRecord:
    """What happened to one (non-space) token.

    ``in_vocabulary`` is None for punctuation (and numbers kept by the policy); ``rank`` (position
    of the output among the input token's neighbours, 0 = unchanged), ``distance`` (Euclidean) and
    ``cosine`` are set for sanitised tokens; ``epsilon`` is the budget this token spent.
    """

    position: int  # index of the token in `tokenize(text, space, policy.case)`
    start: int
    kind: str
    original: str
    replacement: str
    action: str  # sanitised / kept / redacted / random
    reason: str  # why a token was not sanitised (punctuation, number, stop word, not in vocabulary)
    in_vocabulary: bool | None
    input_word: str | None = None  # the vocabulary entry looked up
    output_word: str | None = None  # the vocabulary entry output
    rank: int | None = None
    distance: float | None = None
    cosine: float | None = None
    epsilon: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SanitisedText:
    """The result of `sanitize`: the original and sanitised text and one record per non-space
    token. ``budget`` = (number of sanitised tokens) x epsilon (composition)."""

    text: str
    sanitised: str
    mechanism: str
    epsilon: float
    policy: SanitisePolicy
    records: tuple = field(repr=False)

    @property
    def sanitised_tokens(self) -> int:
        """How many tokens were sanitised (words, clitics, numbers, addresses): each spent epsilon."""
        return sum(r.action == SANITISED for r in self.records)

    @property
    def sanitised_words(self) -> int:
        """The former name of `sanitised_tokens`."""
        return self.sanitised_tokens

    @property
    def budget(self) -> float:
        """Total privacy budget spent: m·eps for m sanitised tokens (Asghar et al. 2026, §3.2)."""
        return self.sanitised_tokens * self.epsilon

    def summary(self, close: int = DEFAULT_CLOSE) -> dict:
        """Counts and fractions of the sanitised tokens that were output unchanged (rank 0), as
        a close neighbour (rank 1..close) or as a distant word; and the budget. ``sanitised_words``
        is the former name of ``sanitised_tokens`` (the same number)."""
        close = check_positive_int(close, "close (K)", minimum=1)
        ranks = np.array([r.rank for r in self.records if r.action == SANITISED], dtype=np.int64)
        m = ranks.size
        counts = {"unchanged": int(np.sum(ranks == 0)), "close": int(np.sum((ranks >= 1) & (ranks <= close))),
                  "distant": int(np.sum(ranks > close))}
        return {
            "mechanism": self.mechanism, "epsilon": self.epsilon, "close": close,
            "tokens": len(self.records),
            "words": sum(r.kind == WORD for r in self.records),
            "sanitised_tokens": m,
            "sanitised_words": m,
            "not_in_vocabulary": sum(r.in_vocabulary is False for r in self.records),
            "counts": counts,
            "fractions": {k: (v / m if m else 0.0) for k, v in counts.items()},
            "budget": self.budget,
        }

    def to_dict(self, close: int = DEFAULT_CLOSE) -> dict:
        return {"text": self.text, "sanitised": self.sanitised, "mechanism": self.mechanism,
                "epsilon": self.epsilon, "policy": dict(self.policy.__dict__),
                "budget": self.budget, "summary": self.summary(close),
                "tokens": [r.to_dict() for r in self.records]}

    def to_html(self, close: int = DEFAULT_CLOSE) -> str:
        """The sanitised text as HTML: changed words highlighted by class (close neighbour,
        distant word, redacted or random), with the original, rank and distance on hover.
        All text is escaped."""
        parts, end = [], 0
        for r in self.records:
            parts.append(html.escape(self.text[end:r.start]))  # the whitespace between tokens
            end = r.start + len(r.original)
            if r.action == KEPT or (r.action == SANITISED and r.rank == 0):
                parts.append(html.escape(r.replacement))
                continue
            if r.action == SANITISED:
                cls = "close" if r.rank <= close else "distant"
                title = f"{r.original} → {r.replacement} · rank {r.rank:,} · distance {r.distance:.3f}"
            else:
                cls = r.action
                title = f"{r.original} → {r.replacement} ({r.action}: {r.reason})"
            parts.append(f'<span class="{cls}" style="{HIGHLIGHT_STYLES[cls]}" title="{html.escape(title)}">'
                         f"{html.escape(r.replacement)}</span>")
        parts.append(html.escape(self.text[end:]))
        body = "".join(parts).replace("\n", "<br>")
        return f'<div class="sanitised" style="line-height:1.9">{body}</div>'

    def budget_message(self) -> str:
        """What the text costs and what is not protected, in one paragraph (Markdown, the total in
        bold): the budget m·ε for the m sanitised tokens (composition), then the tokens left as
        typed — numbers and stop words when the policy keeps them, tokens not in the vocabulary
        when it keeps those, punctuation — with their counts, and what the policy did with the
        other tokens not in the vocabulary. The same for every mechanism run on the text with the
        same policy."""
        m = self.sanitised_tokens
        kept = {reason: 0 for reason in (NUMBER, "stop word", "not in vocabulary", PUNCTUATION)}
        hidden = 0
        for r in self.records:
            if r.action == KEPT:
                kept[r.reason] += 1
            elif r.action != SANITISED:
                hidden += 1
        names = {NUMBER: ("number", "numbers"), "stop word": ("stop word", "stop words"),
                 "not in vocabulary": ("token not in the vocabulary", "tokens not in the vocabulary"),
                 PUNCTUATION: ("punctuation mark", "punctuation marks")}
        unprotected = [f"{n} {names[reason][n != 1]}" for reason, n in kept.items() if n]
        message = (f"**Privacy budget for this text: {self.budget:g}** — {m} sanitised token{'s' * (m != 1)} × "
                   f"ε = {self.epsilon:g} each (composition: the text as a whole is m·ε-private).")
        if unprotected:
            message += f" Not protected, left as typed: {', '.join(unprotected)}."
        if hidden:
            message += (f" {hidden} token{'s' * (hidden != 1)} not in the vocabulary: "
                        f"{OOV_POLICIES[self.policy.oov]}.")
        return message


#: Inline styles of highlighted words (kept inline so the HTML works anywhere, e.g. in a report).
HIGHLIGHT_STYLES = {
    "close": "background:#d4f4d4;border-bottom:2px solid #2ca02c;padding:0 2px;border-radius:3px",
    "distant": "background:#fbd9d9;border-bottom:2px solid #d62728;padding:0 2px;border-radius:3px",
    "redacted": "background:#e6e6e6;border-bottom:2px solid #7f7f7f;padding:0 2px;border-radius:3px",
    "random": "background:#ece0f7;border-bottom:2px solid #9467bd;padding:0 2px;border-radius:3px",
}


def _check_texts(texts) -> list:
    """A list of texts, each checked (`_check_text`); one string is refused, not read as a list of
    one-letter texts."""
    if isinstance(texts, (str, bytes)):
        raise ValueError("texts must be a list of texts, not one string: use sanitize for one text, or [text].")
    return [_check_text(t) for t in texts]


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise ValueError(f"Text must be a string, got {type(text).__name__}.")
    if len(text) > MAX_CHARACTERS:
        raise ValueError(f"The text has {len(text):,} characters; the limit is {MAX_CHARACTERS:,}. "
                         "Split it into shorter documents (e.g. one paragraph per line for the CLI).")
    return text


def _vocabulary_form(token: str, space, case: str) -> str | None:
    """The vocabulary entry for ``token`` under the case policy, or None when out of vocabulary:
    as typed; under "match" then in lower case, then both with a straight apostrophe."""
    if token in space:
        return token
    if case != "match":
        return None
    lower = token.lower()
    if lower in space:
        return lower
    plain = _plain(token)
    if plain is not token:
        if plain in space:
            return plain
        if plain.lower() in space:
            return plain.lower()
    return None


def _restore_case(original: str, replacement: str, looked_up: str) -> str:
    """Give ``replacement`` the capitalisation of ``original`` when the look-up lower-cased it,
    and the apostrophe (straight or curly) of ``original`` when it has one."""
    if looked_up != original:
        if len(original) > 1 and original.isupper():
            replacement = replacement.upper()
        elif original[:1].isupper():
            replacement = replacement[:1].upper() + replacement[1:]
    if CURLY_APOSTROPHE in original:
        return replacement.replace(APOSTROPHE, CURLY_APOSTROPHE)
    if APOSTROPHE in original:
        return replacement.replace(CURLY_APOSTROPHE, APOSTROPHE)
    return replacement


def vocabulary_words(text: str, space, policy: SanitisePolicy | None = None) -> list[str]:
    """The distinct vocabulary entries of the tokens `sanitize` would sanitise in ``text`` under
    ``policy`` (words, pieces of contractions, numbers), in order of first appearance (e.g. "your
    own words" for choosing epsilon)."""
    policy = policy or SanitisePolicy()
    stops = stop_words() if policy.keep_stop_words else frozenset()
    seen = {}
    for tok in tokenize(_check_text(text), space, policy.case):
        step = _token_plan(tok, space, policy, stops)
        if step is not None and step[0] == SANITISED:
            seen.setdefault(step[2], None)
    return list(seen)


def _token_plan(tok: Token, space, policy: SanitisePolicy, stops) -> tuple | None:
    """What `sanitize` does with one token under ``policy``: None for whitespace, else
    (action, reason, vocabulary entry or None); ``stops`` = the stop words left untouched.
    Words, clitics, numbers (unless kept) and addresses are looked up whole; a token the
    vocabulary does not hold follows the out-of-vocabulary policy."""
    kind = tok.kind
    if kind == SPACE:
        return None
    if kind == PUNCTUATION or (kind == NUMBER and policy.numbers == "keep"):
        return KEPT, kind, None
    looked_up = _vocabulary_form(tok.text, space, policy.case)
    if stops and (kind == WORD or kind == CLITIC) and _plain(tok.text).lower() in stops:
        return KEPT, "stop word", looked_up
    if looked_up is None:
        return {"keep": KEPT, "redact": REDACTED_ACTION, "random": RANDOM}[policy.oov], "not in vocabulary", None
    return SANITISED, "", looked_up


def sanitize(text: str, mechanism=None, epsilon: float = 10.0, space=None, rng=None,
             policy: SanitisePolicy | None = None) -> SanitisedText:
    """Sanitise ``text`` word by word with ``mechanism`` (a `Mechanism` or its name; default
    the multivariate Laplace mechanism) at ``epsilon`` per word, over the vocabulary of
    ``space``. Returns the sanitised text and one record per non-space token (see `TokenRecord`).

    The text is cut by `tokenize` (contractions and possessives into host and clitic, as GloVe's
    tokeniser did). Each token in the vocabulary gets one independent run of the mechanism; its
    budget is epsilon, and the text's budget is m·epsilon for m sanitised tokens. The outputs are
    joined back with the text's own whitespace and punctuation (a contraction's pieces without a
    space), so a mechanism that keeps every token returns the text character for character.
    Empty text returns empty. Raises ValueError beyond `MAX_CHARACTERS`.
    """
    return sanitize_many([text], mechanism, epsilon, space, rng, policy)[0]


def sanitize_many(texts, mechanism=None, epsilon: float = 10.0, space=None, rng=None,
                  policy: SanitisePolicy | None = None, progress=None, batch_words: int = 20_000) -> list:
    """`sanitize` for several documents, results in input order, drawing from one random stream
    (deterministic for a seed). Mechanism runs are batched across documents (about
    ``batch_words`` words per call); ``progress(fraction, message)`` is called after each batch.
    A document's outputs depend on the documents before it (they share the stream); for outputs
    that depend only on the document, see `sanitize_per_document`."""
    mechanism, epsilon, policy = _checked_arguments(mechanism, epsilon, space, policy)
    rng = as_generator(rng)
    report = progress or (lambda fraction, message: None)
    texts = _check_texts(texts)
    results = []
    start = 0
    while start < len(texts):
        # documents in batches of about `batch_words` words: one mechanism call per batch
        stop, words = start, 0
        while stop < len(texts) and (stop == start or words < batch_words):
            words += len(texts[stop]) // 4 + 1
            stop += 1
        results.extend(_sanitise_batch(texts[start:stop], mechanism, epsilon, space, policy, rng=rng))
        start = stop
        report(start / len(texts), f"Sanitised {start:,} of {len(texts):,} documents")
    return results


def sanitize_per_document(texts, generators, mechanism=None, epsilon: float = 10.0, space=None,
                          policy: SanitisePolicy | None = None, measure: bool = True) -> list:
    """`sanitize` for several documents where document d draws all its randomness — the
    mechanism's noise and the out-of-vocabulary "random" words, in that order — from its own
    generator ``generators[d]`` (a numpy Generator). A document's result then depends only on its
    text and its generator, not on the other documents of the call or their order: a corpus
    seeded per document gives the same output however it is split into calls
    (`privlib.words.corpus`). The mechanism still runs once for the whole call
    (`Mechanism.sample_groups`: one search pass for all the documents' words).

    ``measure`` = False leaves each sanitised token's rank, distance and cosine unset (None):
    ranking an output needs one distance row per distinct input word, about as costly as the
    search itself, and a corpus needs only the text and its budget.
    """
    mechanism, epsilon, policy = _checked_arguments(mechanism, epsilon, space, policy)
    texts = _check_texts(texts)
    generators = list(generators)
    if len(generators) != len(texts):
        raise ValueError(f"Give one generator per document: {len(generators)} generators for {len(texts)} documents.")
    return _sanitise_batch(texts, mechanism, epsilon, space, policy, generators=generators, measure=measure)


def _checked_arguments(mechanism, epsilon, space, policy) -> tuple:
    """(mechanism, epsilon, policy) of the sanitising functions, checked: a `Mechanism` (a family
    or a mechanism: its parameters are used, the ε per token is ``epsilon``, since a corpus may
    give each document its own) or a name (default: the multivariate Laplace mechanism), a valid
    epsilon, a `SanitisePolicy` (default: the defaults); ValueError without a space."""
    if space is None:
        raise ValueError("sanitize needs an embedding space (e.g. EmbeddingSpace.glove_6b_50d()).")
    if mechanism is None:
        mechanism = MultivariateLaplace.family()
    elif isinstance(mechanism, str):
        mechanism = make_mechanism(mechanism)
    elif not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism must be a Mechanism or a mechanism name, got {type(mechanism).__name__}.")
    epsilon = check_epsilon(epsilon)
    policy = policy or SanitisePolicy()
    if not isinstance(policy, SanitisePolicy):
        raise ValueError("policy must be a SanitisePolicy.")
    return mechanism, epsilon, policy


def _sanitise_batch(texts, mechanism, epsilon, space, policy, rng=None, generators=None, measure=True) -> list:
    """The documents ``texts`` (checked) sanitised with one mechanism call for all their tokens.
    Randomness: either one stream ``rng`` that the documents share in order (`sanitize_many`), or
    one generator per document, ``generators[d]`` (`sanitize_per_document`), for the mechanism
    (`Mechanism.sample_groups`) and for the out-of-vocabulary "random" words alike."""
    stops = stop_words() if policy.keep_stop_words else frozenset()
    plans = []  # per document: tokens and, per token, (action, reason, looked-up word)
    inputs = []  # (document, token position, row) of every word to sanitise, in text order
    counts = np.zeros(len(texts), dtype=np.int64)  # words to sanitise per document
    for d, text in enumerate(texts):
        tokens = tokenize(text, space, policy.case)
        plan = [_token_plan(tok, space, policy, stops) for tok in tokens]
        before = len(inputs)
        inputs.extend((d, i, space.index(step[2])) for i, step in enumerate(plan)
                      if step is not None and step[0] == SANITISED)
        counts[d] = len(inputs) - before
        plans.append((tokens, plan))
    rows = np.array([row for _, _, row in inputs], dtype=np.int64)
    if generators is not None:
        outputs = mechanism.sample_groups(space, rows, epsilon, generators, counts)
    else:
        outputs = mechanism.sample_many(space, rows, epsilon, rng) if rows.size else rows
    if measure:
        ranks = output_ranks(space, rows, outputs)
        x, y = space.vectors[rows].astype(np.float64), space.vectors[outputs].astype(np.float64)
        distances = np.linalg.norm(x - y, axis=1)
        cosines = np.empty(rows.size)
        for row in np.unique(rows):
            same = rows == row
            cosines[same] = space.cosine_similarities(row, outputs[same])
    drawn = {(d, i): k for k, (d, i, _) in enumerate(inputs)}

    results = []
    for d, (tokens, plan) in enumerate(plans):
        records, pieces = [], []
        for i, (tok, step) in enumerate(zip(tokens, plan)):
            if step is None:
                pieces.append(tok.text)
                continue
            action, reason, looked_up = step
            if action == SANITISED:
                k = drawn[(d, i)]
                out_word = space.words[outputs[k]]
                replacement = tok.text if outputs[k] == rows[k] else _restore_case(tok.text, out_word, looked_up)
                measured = (int(ranks[k]), float(distances[k]), float(cosines[k])) if measure else (None, None, None)
                record = TokenRecord(i, tok.start, tok.kind, tok.text, replacement, action, reason, True, looked_up,
                                     out_word, *measured, epsilon)
            else:
                in_vocab = {"not in vocabulary": False, "stop word": looked_up is not None}.get(reason)
                if action == REDACTED_ACTION:
                    replacement = REDACTED
                elif action == RANDOM:
                    draw = rng if generators is None else generators[d]
                    replacement = _restore_case(tok.text, space.words[int(draw.integers(len(space)))], "")
                else:
                    replacement = tok.text
                record = TokenRecord(i, tok.start, tok.kind, tok.text, replacement, action, reason, in_vocab)
            records.append(record)
            pieces.append(record.replacement)
        results.append(SanitisedText(texts[d], "".join(pieces), mechanism.name, epsilon, policy, tuple(records)))
    return results


def records_csv(results) -> str:
    """All token records of several `SanitisedText` (e.g. one per mechanism) as CSV text, one
    row per token, with the mechanism and its ε per token (``mechanism_epsilon``) in each row; the
    record's own ``epsilon`` column is what that token spent (0 for a token left as typed)."""
    import csv
    import io

    columns = ["mechanism", "mechanism_epsilon", *TokenRecord.__dataclass_fields__]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for result in results:
        for r in result.records:
            writer.writerow({"mechanism": result.mechanism, "mechanism_epsilon": result.epsilon, **r.to_dict()})
    return out.getvalue()


def records_table(results) -> list[dict]:
    """All token records of several `SanitisedText` (e.g. one per mechanism) as table rows: the
    mechanism, then `TokenRecord.to_dict`; the rows of `records_csv` without the mechanism_epsilon column."""
    return [{"mechanism": result.mechanism, **r.to_dict()} for result in results for r in result.records]


def results_json(results, close: int = DEFAULT_CLOSE, indent: int | None = 2) -> str:
    """Several `SanitisedText` as a JSON list of their `to_dict(close)` (non-ASCII kept as is)."""
    import json

    return json.dumps([r.to_dict(close) for r in results], indent=indent, ensure_ascii=False)
