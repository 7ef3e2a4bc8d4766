"""Optional Annoy backend on the full GloVe 6B 50d: build time, recall@1 against the exact search
on the mechanism's real noisy queries, and speed against the exact search in the same run.

    python bench/bench_annoy.py [--trees 50] [--epsilons 1,5,10,20,30] [--words 200] [--per-word 5]
"""
import argparse
import sys
from pathlib import Path
import tempfile
import time

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from privlib.core.noise import laplace_noise
from privlib.words import EmbeddingSpace
from privlib.words.search import AnnoySearch, nearest_recall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trees", type=int, default=50)
    parser.add_argument("--search-k", type=int, default=-1)
    parser.add_argument("--epsilons", default="1,5,10,20,30")
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--per-word", type=int, default=5)
    args = parser.parse_args()
    space = EmbeddingSpace.glove_6b_50d()
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        annoy = AnnoySearch(space, n_trees=args.trees, search_k=args.search_k, cache_dir=cache)
        build = time.perf_counter() - t
        t = time.perf_counter()
        AnnoySearch(space, n_trees=args.trees, search_k=args.search_k, cache_dir=cache)
        reload = time.perf_counter() - t
        print(f"Annoy euclidean, {args.trees} trees, search_k={args.search_k}: build {build:.1f} s, "
              f"load from the disk cache {reload:.2f} s")
        for eps in [float(e) for e in args.epsilons.split(",")]:
            r = nearest_recall(space, annoy, eps, n_words=args.words, samples_per_word=args.per_word, rng=0)
            print(f"  eps={eps:g}: recall@1 = {r['recall_at_1']:.3f} ± {r['standard_error']:.3f} "
                  f"({r['queries']} noisy queries)")
        points = space.vectors[space.index("king")].astype(np.float64) + laplace_noise(space.dim, 10, 2000, rng=1)
        t = time.perf_counter()
        annoy.nearest(points)
        t_annoy = time.perf_counter() - t
        t = time.perf_counter()
        space.nearest(points)
        t_exact = time.perf_counter() - t
        print(f"2,000 queries (king, eps=10): Annoy {t_annoy:.3f} s, exact {t_exact:.3f} s")


if __name__ == "__main__":
    main()
