"""Sanitising text word by word: tokenise, privatise each word, put the text back together.

Word-level d_X-privacy on text (Feyisetan et al. 2020; Asghar et al. 2026, §3.2): every word token is
replaced by the output of a word mechanism at epsilon; everything else (numbers, punctuation,
whitespace, emojis) is kept verbatim, and ``"".join(t.text for t in tokenize(s)) == s`` for
every string s. Composition: a text in which m words were sanitised at epsilon each is
m·eps-private (m·eps·d_X-private for the metric mechanisms); tokens passed through unchanged
(stop words, numbers, out-of-vocabulary words kept as they are) are not protected at all.
"""
from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from privlib.core.validation import as_generator, check_epsilon, check_positive_int
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

WORD, NUMBER, PUNCTUATION, SPACE = "word", "number", "punctuation", "space"
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<number>\d+(?:[.,:/]\d+)*)"
    # letters (any script), joined by inner apostrophes or hyphens: don't, well-known, O'Neill
    r"|(?P<word>[^\W\d_]+(?:['’\-][^\W\d_]+)*)"
    r"|(?P<punctuation>_+|[^\w\s]+|.)",
    re.DOTALL,
)
_POSSESSIVE = re.compile(r"(.+)(['’][sS])$")


@dataclass(frozen=True)
class Token:
    """A piece of text: ``kind`` is word, number, punctuation or space; ``start`` its offset."""

    text: str
    kind: str
    start: int


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into word, number, punctuation and space tokens that concatenate back to
    ``text`` exactly. A possessive 's is split from its word (Maria's -> Maria + 's) so the
    name itself can be looked up in the vocabulary, as GloVe's own tokenisation does."""
    if not isinstance(text, str):
        raise ValueError(f"Text must be a string, got {type(text).__name__}.")
    tokens = []
    for m in _TOKEN.finditer(text):
        kind, piece, start = m.lastgroup, m.group(), m.start()
        if kind == WORD and (pm := _POSSESSIVE.match(piece)):
            tokens.append(Token(pm.group(1), WORD, start))
            tokens.append(Token(pm.group(2), PUNCTUATION, start + len(pm.group(1))))
        else:
            tokens.append(Token(piece, kind, start))
    return tokens


@functools.lru_cache(maxsize=1)
def stop_words() -> frozenset:
    """The English stop-word list shipped in ``privlib/words/data/stopwords_en.txt`` (lower case)."""
    lines = STOP_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.startswith("#"))


#: What happens to an out-of-vocabulary word, and what that means for privacy.
OOV_POLICIES = {
    "redact": f"replaced by {REDACTED}: reveals only that some word the embedding does not know stood there",
    "keep": "left as it is: NOT protected (rare names are often out of vocabulary, so this can leak them)",
    "random": "replaced by a word drawn uniformly from the vocabulary, independently of the word: "
              "reveals nothing about it, but the text reads as if a real word were there",
}
CASE_POLICIES = {
    "match": "look the word up as typed, else in lower case (GloVe is all lower case); the "
             "replacement gets the original's capitalisation (Maria -> Elena, NASA -> ESA)",
    "exact": "look the word up exactly as typed; replacements are written as the vocabulary spells them",
}


@dataclass(frozen=True)
class SanitisePolicy:
    """Which tokens are sanitised and how (defaults in brackets).

    - ``case`` ["match"]: see `CASE_POLICIES`.
    - ``oov`` ["redact"]: out-of-vocabulary words, see `OOV_POLICIES`. None of the three costs
      privacy budget: the output does not depend on which unknown word it was.
    - ``keep_stop_words`` [False]: leave the words of `stop_words` untouched. They then cost no
      budget and get no protection.
    - ``sanitise_numbers`` [False]: numbers are kept verbatim by default (they are not words);
      set True to treat numbers found in the vocabulary (GloVe has 2023, 789, …) as words. Keep
      in mind that a kept number (a date, a house number) is not protected.
    Punctuation and whitespace are never changed.
    """

    case: str = "match"
    oov: str = "redact"
    keep_stop_words: bool = False
    sanitise_numbers: bool = False

    def __post_init__(self):
        if self.case not in CASE_POLICIES:
            raise ValueError(f"case must be one of {', '.join(CASE_POLICIES)}, got {self.case!r}.")
        if self.oov not in OOV_POLICIES:
            raise ValueError(f"oov must be one of {', '.join(OOV_POLICIES)}, got {self.oov!r}.")


#: Token actions in the records.
SANITISED, KEPT, REDACTED_ACTION, RANDOM = "sanitised", "kept", "redacted", "random"


@dataclass(frozen=True)
class TokenRecord:
    """What happened to one (non-space) token.

    ``in_vocabulary`` is None for punctuation (and numbers not sanitised); ``rank`` (position of
    the output among the input word's neighbours, 0 = unchanged), ``distance`` (Euclidean) and
    ``cosine`` are set for sanitised words; ``epsilon`` is the budget this token spent.
    """

    position: int  # index of the token in `tokenize(text)`
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
    token. ``budget`` = (number of sanitised words) x epsilon (composition)."""

    text: str
    sanitised: str
    mechanism: str
    epsilon: float
    policy: SanitisePolicy
    records: tuple = field(repr=False)

    @property
    def sanitised_words(self) -> int:
        return sum(r.action == SANITISED for r in self.records)

    @property
    def budget(self) -> float:
        """Total privacy budget spent: m·eps for m sanitised words (Asghar et al. 2026, §3.2)."""
        return self.sanitised_words * self.epsilon

    def summary(self, close: int = DEFAULT_CLOSE) -> dict:
        """Counts and fractions of the sanitised words that were output unchanged (rank 0), as
        a close neighbour (rank 1..close) or as a distant word; and the budget."""
        close = check_positive_int(close, "close (K)", minimum=1)
        ranks = np.array([r.rank for r in self.records if r.action == SANITISED], dtype=np.int64)
        m = ranks.size
        counts = {"unchanged": int(np.sum(ranks == 0)), "close": int(np.sum((ranks >= 1) & (ranks <= close))),
                  "distant": int(np.sum(ranks > close))}
        return {
            "mechanism": self.mechanism, "epsilon": self.epsilon, "close": close,
            "tokens": len(self.records),
            "words": sum(r.kind == WORD for r in self.records),
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
        tokens = tokenize(self.text)
        by_position = {r.position: r for r in self.records}
        parts = []
        for i, tok in enumerate(tokens):
            r = by_position.get(i)
            if r is None or (r.action == KEPT) or (r.action == SANITISED and r.rank == 0):
                parts.append(html.escape(r.replacement if r else tok.text))
                continue
            if r.action == SANITISED:
                cls = "close" if r.rank <= close else "distant"
                title = f"{r.original} → {r.replacement} · rank {r.rank:,} · distance {r.distance:.3f}"
            else:
                cls = r.action
                title = f"{r.original} → {r.replacement} ({r.action}: {r.reason})"
            parts.append(f'<span class="{cls}" style="{HIGHLIGHT_STYLES[cls]}" title="{html.escape(title)}">'
                         f"{html.escape(r.replacement)}</span>")
        body = "".join(parts).replace("\n", "<br>")
        return f'<div class="sanitised" style="line-height:1.9">{body}</div>'

    def budget_message(self) -> str:
        """What the text costs and what is not protected, in one paragraph (Markdown, the total in
        bold): the budget m·ε by composition, then — when they apply — the words not in the
        vocabulary and what the policy did with them, stop words left untouched and numbers kept
        as they are. The same for every mechanism run on the text with the same policy."""
        m = self.sanitised_words
        unknown = self.summary()["not_in_vocabulary"]
        return (
            f"**Privacy budget for this text: {self.budget:g}** — {m} sanitised word{'s' * (m != 1)} × "
            f"ε = {self.epsilon:g} each (composition: the text as a whole is m·ε-private). "
            + (f"{unknown} word(s) not in the vocabulary: {OOV_POLICIES[self.policy.oov]}. " if unknown else "")
            + ("Stop words left untouched cost nothing and are not protected. "
               if self.policy.keep_stop_words else "")
            + ("Numbers are kept as they are and are not protected."
               if not self.policy.sanitise_numbers and any(r.kind == NUMBER for r in self.records) else "")
        )


#: Inline styles of highlighted words (kept inline so the HTML works anywhere, e.g. in a report).
HIGHLIGHT_STYLES = {
    "close": "background:#d4f4d4;border-bottom:2px solid #2ca02c;padding:0 2px;border-radius:3px",
    "distant": "background:#fbd9d9;border-bottom:2px solid #d62728;padding:0 2px;border-radius:3px",
    "redacted": "background:#e6e6e6;border-bottom:2px solid #7f7f7f;padding:0 2px;border-radius:3px",
    "random": "background:#ece0f7;border-bottom:2px solid #9467bd;padding:0 2px;border-radius:3px",
}


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise ValueError(f"Text must be a string, got {type(text).__name__}.")
    if len(text) > MAX_CHARACTERS:
        raise ValueError(f"The text has {len(text):,} characters; the limit is {MAX_CHARACTERS:,}. "
                         "Split it into shorter documents (e.g. one paragraph per line for the CLI).")
    return text


def _vocabulary_form(token: str, space, case: str) -> str | None:
    """The vocabulary entry for ``token`` under the case policy, or None when out of vocabulary."""
    if token in space:
        return token
    if case == "match" and token.lower() in space:
        return token.lower()
    return None


def _restore_case(original: str, replacement: str, looked_up: str) -> str:
    """Give ``replacement`` the capitalisation of ``original`` when the look-up lower-cased it."""
    if looked_up == original:
        return replacement
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def vocabulary_words(text: str, space, policy: SanitisePolicy | None = None) -> list[str]:
    """The distinct vocabulary entries of the words `sanitize` would sanitise in ``text`` under
    ``policy``, in order of first appearance (e.g. "your own words" for choosing epsilon)."""
    policy = policy or SanitisePolicy()
    stops = stop_words() if policy.keep_stop_words else frozenset()
    seen = {}
    for tok in tokenize(_check_text(text)):
        step = _token_plan(tok, space, policy, stops)
        if step is not None and step[0] == SANITISED:
            seen.setdefault(step[2], None)
    return list(seen)


def _token_plan(tok: Token, space, policy: SanitisePolicy, stops) -> tuple | None:
    """What `sanitize` does with one token under ``policy``: None for whitespace, else
    (action, reason, vocabulary entry or None); ``stops`` = the stop words left untouched."""
    if tok.kind == SPACE:
        return None
    if tok.kind == PUNCTUATION or (tok.kind == NUMBER and not policy.sanitise_numbers):
        return KEPT, tok.kind, None
    looked_up = _vocabulary_form(tok.text, space, policy.case)
    if tok.text.lower() in stops:
        return KEPT, "stop word", looked_up
    if looked_up is None:
        return {"keep": KEPT, "redact": REDACTED_ACTION, "random": RANDOM}[policy.oov], "not in vocabulary", None
    return SANITISED, "", looked_up


def sanitize(text: str, mechanism=None, epsilon: float = 10.0, space=None, rng=None,
             policy: SanitisePolicy | None = None) -> SanitisedText:
    """Sanitise ``text`` word by word with ``mechanism`` (a `Mechanism` or its name; default
    the multivariate Laplace mechanism) at ``epsilon`` per word, over the vocabulary of
    ``space``. Returns the sanitised text and one record per non-space token (see `TokenRecord`).

    Each word in the vocabulary gets one independent run of the mechanism; its budget is
    epsilon, and the text's budget is m·epsilon for m sanitised words. Empty text returns empty.
    Raises ValueError beyond `MAX_CHARACTERS`.
    """
    return sanitize_many([text], mechanism, epsilon, space, rng, policy)[0]


def sanitize_many(texts, mechanism=None, epsilon: float = 10.0, space=None, rng=None,
                  policy: SanitisePolicy | None = None, progress=None, batch_words: int = 20_000) -> list:
    """`sanitize` for several documents, results in input order, drawing from one random stream
    (deterministic for a seed). Mechanism runs are batched across documents (about
    ``batch_words`` words per call); ``progress(fraction, message)`` is called after each batch."""
    if space is None:
        raise ValueError("sanitize needs an embedding space (e.g. EmbeddingSpace.glove_6b_50d()).")
    if mechanism is None:
        mechanism = MultivariateLaplace()
    elif isinstance(mechanism, str):
        mechanism = make_mechanism(mechanism)
    elif not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism must be a Mechanism or a mechanism name, got {type(mechanism).__name__}.")
    epsilon = check_epsilon(epsilon)
    policy = policy or SanitisePolicy()
    if not isinstance(policy, SanitisePolicy):
        raise ValueError("policy must be a SanitisePolicy.")
    rng = as_generator(rng)
    report = progress or (lambda fraction, message: None)
    texts = [_check_text(t) for t in texts]
    results = []
    start = 0
    while start < len(texts):
        # documents in batches of about `batch_words` words: one mechanism call per batch
        stop, words = start, 0
        while stop < len(texts) and (stop == start or words < batch_words):
            words += len(texts[stop]) // 4 + 1
            stop += 1
        results.extend(_sanitise_batch(texts[start:stop], mechanism, epsilon, space, rng, policy))
        start = stop
        report(start / len(texts), f"Sanitised {start:,} of {len(texts):,} documents")
    return results


def _sanitise_batch(texts, mechanism, epsilon, space, rng, policy) -> list:
    stops = stop_words() if policy.keep_stop_words else frozenset()
    plans = []  # per document: tokens and, per token, (action, reason, looked-up word)
    inputs = []  # (document, token position, row) of every word to sanitise, in text order
    for d, text in enumerate(texts):
        tokens = tokenize(text)
        plan = [_token_plan(tok, space, policy, stops) for tok in tokens]
        inputs.extend((d, i, space.index(step[2])) for i, step in enumerate(plan)
                      if step is not None and step[0] == SANITISED)
        plans.append((tokens, plan))
    rows = np.array([row for _, _, row in inputs], dtype=np.int64)
    outputs = mechanism.sample_many(space, rows, epsilon, rng) if rows.size else rows
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
                record = TokenRecord(i, tok.start, tok.kind, tok.text, replacement, action, reason, True, looked_up,
                                     out_word, int(ranks[k]), float(distances[k]), float(cosines[k]), epsilon)
            else:
                in_vocab = {"not in vocabulary": False, "stop word": looked_up is not None}.get(reason)
                if action == REDACTED_ACTION:
                    replacement = REDACTED
                elif action == RANDOM:
                    replacement = _restore_case(tok.text, space.words[int(rng.integers(len(space)))], "")
                else:
                    replacement = tok.text
                record = TokenRecord(i, tok.start, tok.kind, tok.text, replacement, action, reason, in_vocab)
            records.append(record)
            pieces.append(record.replacement)
        results.append(SanitisedText(texts[d], "".join(pieces), mechanism.name, epsilon, policy, tuple(records)))
    return results


def records_csv(results) -> str:
    """All token records of several `SanitisedText` (e.g. one per mechanism) as CSV text, one
    row per token, with the mechanism and epsilon in each row."""
    import csv
    import io

    columns = ["mechanism", "epsilon", *TokenRecord.__dataclass_fields__]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for result in results:
        for r in result.records:
            writer.writerow({"mechanism": result.mechanism, "epsilon": result.epsilon, **r.to_dict()})
    return out.getvalue()


def records_table(results) -> list[dict]:
    """All token records of several `SanitisedText` (e.g. one per mechanism) as table rows: the
    mechanism, then `TokenRecord.to_dict`; the rows of `records_csv` without the epsilon column."""
    return [{"mechanism": result.mechanism, **r.to_dict()} for result in results for r in result.records]


def results_json(results, close: int = DEFAULT_CLOSE, indent: int | None = 2) -> str:
    """Several `SanitisedText` as a JSON list of their `to_dict(close)` (non-ASCII kept as is)."""
    import json

    return json.dumps([r.to_dict(close) for r in results], indent=indent, ensure_ascii=False)
