"""Sanitising text on the full GloVe 6B 50d vocabulary (400,000 words).

Documents: the paper's worked example (32 words) repeated ``--documents`` times, as the CLI's
`-i FILE` would see them. Compared in the same run on the same loaded embedding:

- `sanitize_many` (batched mechanism runs across documents, batched exact ranks);
- the per-word baseline: for every word, one `mechanism.sample` call and its rank from
  `neighbour_ranks` (a full sort) — what a straightforward word-by-word sanitiser does.

Both produce the same kind of records (output, rank); the ratio is printed.

    python bench/bench_sanitize.py [--documents 200] [--epsilon 10] [--repeats 3]
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from privlib.words import EmbeddingSpace, MultivariateLaplace, neighbour_ranks  # noqa: E402
from privlib.words.text import PAPER_EXAMPLE, sanitize, sanitize_many  # noqa: E402
from timing import timed  # noqa: E402


def per_word_baseline(space, words, mechanism, epsilon, rng):
    ranks = []
    for word in words:
        out = mechanism.sample(space, word, epsilon, 1, rng)[0]
        ranks.append(neighbour_ranks(space, word).rank[out])
    return ranks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--epsilon", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline-words", type=int, default=300, help="words timed for the per-word baseline")
    args = parser.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    t = time.perf_counter()
    space = EmbeddingSpace.glove_6b_50d()
    space.exact_search
    print(f"GloVe loaded in {time.perf_counter() - t:.2f} s ({len(space):,} words)")
    mechanism = MultivariateLaplace()
    sanitize(PAPER_EXAMPLE, mechanism, args.epsilon, space, 0)  # warm-up (float64 copy for ranks)

    docs = [PAPER_EXAMPLE] * args.documents
    words_per_doc = sanitize(PAPER_EXAMPLE, mechanism, args.epsilon, space, 0).sanitised_words
    total_words = words_per_doc * args.documents

    one, _, _ = timed(lambda: sanitize(PAPER_EXAMPLE, mechanism, args.epsilon, space, 1), args.repeats)
    print(f"one paragraph ({words_per_doc} words): {one * 1000:.0f} ms")

    batched, times, results = timed(lambda: sanitize_many(docs, mechanism, args.epsilon, space, 1), args.repeats)
    print(f"sanitize_many: {args.documents} documents, {total_words:,} words: median {batched:.2f} s "
          f"({min(times):.2f}-{max(times):.2f}) = {total_words / batched:,.0f} words/s")

    words = ([r.input_word for r in results[0].records if r.action == "sanitised"] * args.documents)
    words = words[:args.baseline_words]
    base, _, _ = timed(lambda: per_word_baseline(space, words, mechanism, args.epsilon,
                                                 np.random.default_rng(1)), 1)
    rate = len(words) / base
    print(f"per-word baseline (sample + neighbour_ranks per word), {len(words)} words: {base:.2f} s "
          f"= {rate:,.0f} words/s")
    print(f"ratio (words/s): sanitize_many is {total_words / batched / rate:.0f}x faster")


if __name__ == "__main__":
    main()
