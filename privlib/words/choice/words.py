"""The words an ε study runs on: a pasted text, a word list, or a uniform random sample of the
vocabulary, and the scope of their standard errors."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.validation import check_positive_int, check_seed, fresh_seed, shown
from privlib.words.text import MAX_CHARACTERS, NUMBER, WORD, SanitisePolicy, stop_words, tokenize, vocabulary_words

WORDS, VOCABULARY = "words", "vocabulary"
SCOPES = {
    WORDS: "exactly these words (SE = Monte-Carlo sampling error only)",
    VOCABULARY: "a uniform random sample of the vocabulary (SE = between-word SD / sqrt(words))",
}


@dataclass(frozen=True, eq=False)
class WordSet:
    """The words to analyse: distinct vocabulary words and their rows, the scope of the
    standard errors (`SCOPES`), where they came from, and the distinct input words that are
    not in the vocabulary (reported, never used)."""

    words: tuple
    rows: np.ndarray = field(repr=False)
    scope: str = WORDS
    source: str = "word list"
    unknown: tuple = ()
    seed: int | None = None  # the seed of a random sample

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {self.scope!r}.")
        if not self.words:
            raise ValueError("None of the words is in the vocabulary: give at least one vocabulary word.")
        if self.scope == VOCABULARY and len(self.words) < 2:
            raise ValueError("A random sample needs at least 2 words (its standard errors compare words).")

    def __len__(self) -> int:
        return len(self.words)

    @classmethod
    def from_text(cls, text: str, space, policy=None, source: str = "text") -> "WordSet":
        """The distinct words `privlib.words.text.sanitize` would sanitise in ``text`` (any text, or a
        word list one per line), via `privlib.words.text.vocabulary_words`, in order of appearance;
        distinct word tokens not in the vocabulary go to ``unknown``. Texts longer than
        `privlib.words.text.MAX_CHARACTERS` are read in chunks of whole lines."""
        if not isinstance(text, str):
            raise ValueError(f"Text must be a string, got {type(text).__name__}.")
        if not text.strip():
            raise ValueError("The text is empty: paste a text or give a list of words.")
        policy = policy or SanitisePolicy()
        found: dict = {}
        unknown: dict = {}
        checked: set = set()
        stops = stop_words() if policy.keep_stop_words else frozenset()
        for chunk in _line_chunks(text, MAX_CHARACTERS):
            for w in vocabulary_words(chunk, space, policy):
                found.setdefault(w, None)
            for tok in tokenize(chunk):
                if (tok.kind == WORD or (tok.kind == NUMBER and policy.sanitise_numbers)) and tok.text not in checked:
                    checked.add(tok.text)
                    if tok.text.lower() not in stops and not vocabulary_words(tok.text, space, policy):
                        unknown.setdefault(tok.text, None)
        return cls._checked(tuple(found), tuple(unknown), space, source)

    @classmethod
    def _checked(cls, words: tuple, unknown: tuple, space, source: str) -> "WordSet":
        if not words:
            if not unknown:
                raise ValueError("There are no words in this input: paste a text or give a list of words.")
            listed = ", ".join(shown(w, 30) for w in unknown[:5])  # a long "word" is never repeated in full
            raise ValueError(f"None of the {len(unknown):,} distinct words is in the vocabulary of {space.name} "
                             f"({listed}{', …' if len(unknown) > 5 else ''}): check the spelling or the embedding.")
        return cls(words, space.indices(words), WORDS, source, unknown)

    @classmethod
    def from_words(cls, words, space, source: str = "word list") -> "WordSet":
        """Vocabulary words given one by one (exactly as typed, else in lower case), distinct,
        in order; the others go to ``unknown``."""
        if isinstance(words, str):
            words = [words]
        found: dict = {}
        unknown: dict = {}
        for w in words:
            if not isinstance(w, str):
                raise ValueError(f"Words must be strings, got {w!r}.")
            key = w if w in space else (w.lower() if w.lower() in space else None)
            (found if key else unknown).setdefault(key or w, None)
        return cls._checked(tuple(found), tuple(unknown), space, source)

    @classmethod
    def random(cls, space, count: int, seed: int | None = None) -> "WordSet":
        """``count`` distinct words drawn uniformly from the whole vocabulary (scope
        "vocabulary"), in row order. The draw uses its own stream, derived from ``seed``
        ([seed, 1]), so it never shares random numbers with the mechanism runs; seed None draws
        a fresh seed, recorded in ``seed``."""
        count = check_positive_int(count, "number of random words", minimum=2, maximum=len(space))
        seed = fresh_seed() if seed is None else check_seed(seed)
        rng = np.random.default_rng([seed, 1])
        rows = np.sort(rng.choice(len(space), size=count, replace=False))
        return cls(tuple(space.words[r] for r in rows), rows, VOCABULARY,
                   f"random sample of {count:,} of the {len(space):,} vocabulary words (seed {seed})", (), seed)

    def to_dict(self) -> dict:
        return {"words": list(self.words), "count": len(self.words), "scope": self.scope, "source": self.source,
                "unknown": list(self.unknown), "seed": self.seed}


def _line_chunks(text: str, limit: int):
    """``text`` cut at line ends into pieces of at most ``limit`` characters (a longer single
    line is left whole, for `vocabulary_words` to refuse with its own message)."""
    if len(text) <= limit:
        yield text
        return
    piece, size = [], 0
    for line in text.splitlines(keepends=True):
        if size + len(line) > limit and piece:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(line)
        size += len(line)
    if piece:
        yield "".join(piece)


def as_word_set(words, space) -> WordSet:
    if isinstance(words, WordSet):
        return words
    if isinstance(words, (int, np.integer)) and not isinstance(words, bool):
        raise ValueError("For a random sample of the vocabulary use WordSet.random(space, count, seed).")
    ws = WordSet.from_words(list(words) if not isinstance(words, str) else [words], space)
    if ws.unknown:
        space.index(ws.unknown[0])  # raises with the vocabulary's own message and hint
    return ws
