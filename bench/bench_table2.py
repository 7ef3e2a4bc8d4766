"""Table 2 (neighbour distances of 5,000 random words) on the full GloVe 6B 50d vocabulary.

Task: for 5,000 words drawn uniformly (seed 0), the rows of their 1st, 2nd and 101st neighbours
and z_w_x1, z_x1_x2, z_x1_x101 (compute only: the embedding is already loaded). Compared in the
same run with the paper artifact's method (glove/NeighborDistances.ipynb, on CPU): distances of a
chunk of words to the whole vocabulary with scipy.spatial.distance.cdist (float64), then the
neighbour order of each word — by np.argpartition of the first 103 ranks and a stable sort of
them (faster than the artifact's full argsort; --full-sort uses a full stable argsort of every
row, as the artifact does, at a large extra cost) — and Eq. 19 from those distances. Both must
find the same neighbours and the same means.

    python bench/bench_table2.py [--words 5000] [--seed 0] [--repeats 1] [--cdist-chunk 100] [--full-sort]
"""
import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np
from scipy.spatial.distance import cdist

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import timed  # noqa: E402  (bench/timing.py, beside this script)
from privlib.words import EmbeddingSpace  # noqa: E402
from privlib.words.theory.neighbour_distances import FAR_RANK, eq19, neighbour_distances  # noqa: E402


def artifact_method(vectors64, rows, far, chunk, full_sort):
    """(neighbours (m, 3), z_w_x1, z_x1_x2, z_x1_far) by chunked cdist + partition/sort."""
    m = rows.size
    neighbours = np.empty((m, 3), dtype=np.int64)
    d_w = np.empty((m, 3))
    for a in range(0, m, chunk):
        r = rows[a:a + chunk]
        d = cdist(vectors64[r], vectors64)  # (chunk, N) float64 Euclidean distances
        d[np.arange(r.size), r] = -1.0  # the word itself first, as neighbour_ranks
        for i in range(r.size):
            if full_sort:
                order = np.argsort(d[i], kind="stable")[: far + 1]
            else:
                top = np.argpartition(d[i], far + 1)[: far + 2]
                order = top[np.lexsort((top, d[i, top]))][: far + 1]
            neighbours[a + i] = order[[1, 2, far]]
            d_w[a + i] = d[i, order[[1, 2, far]]]
    x1, x2, xf = (vectors64[neighbours[:, j]] for j in range(3))
    d12 = np.linalg.norm(x1 - x2, axis=1)
    d1f = np.linalg.norm(x1 - xf, axis=1)
    return neighbours, d_w[:, 0] / 2, eq19(d_w[:, 0], d_w[:, 1], d12), eq19(d_w[:, 0], d_w[:, 2], d1f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--cdist-chunk", type=int, default=100, help="words per cdist call (100 -> 320 MB)")
    parser.add_argument("--full-sort", action="store_true", help="baseline sorts every row in full, as the artifact")
    args = parser.parse_args()

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.python_version()}, numpy {np.__version__}")
    space = EmbeddingSpace.glove_6b_50d()
    space.exact_search  # built once with the space, as in the app
    print(f"{space.name}: {args.words:,} words, seed {args.seed}")

    neighbour_distances(space, 64, rng=123)  # warm-up (first-touch of buffers)
    t_ours, runs, table = timed(lambda: neighbour_distances(space, args.words, rng=args.seed), args.repeats)
    print(f"ours (privlib.words.theory.neighbour_distances): median {t_ours:.2f} s (runs {', '.join(f'{t:.2f}' for t in runs)})")

    vectors64 = space.vectors.astype(np.float64)
    method = "cdist + full stable argsort" if args.full_sort else "cdist + argpartition + sort of the top 103"
    t_base, _, (neighbours, *base) = timed(
        lambda: artifact_method(vectors64, table.rows, FAR_RANK, args.cdist_chunk, args.full_sort), 1)
    print(f"baseline, the artifact's chunked {method} (chunks of {args.cdist_chunk}): {t_base:.2f} s")
    print(f"speed-up: {t_base / t_ours:.1f}x")

    same = np.all(neighbours == table.neighbours, axis=1)
    print(f"same x1, x2, x101 for {np.count_nonzero(same):,} of {same.size:,} words")
    for name, ours, theirs in zip(table.names, table.values().values(), base):
        diff = float(np.nanmax(np.abs(ours - theirs)))
        print(f"  {name:<10} mean ours {np.nanmean(ours):.6f}  baseline {np.nanmean(theirs):.6f}  "
              f"(largest per-word difference {diff:.1e})")
    se = table.standard_errors()
    print("Table 2 (mean ± SE): " + ", ".join(f"{k} {v:.4f} ± {se[k]:.4f}" for k, v in table.means().items()))


if __name__ == "__main__":
    main()
