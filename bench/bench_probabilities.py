"""Exact output probabilities of the exponential-mechanism family on the full GloVe 6B 50d
vocabulary (400,000 words).

Task: P(y | word) for every y, for one word (compute only: the embedding is already loaded),
for SanText and TEM; median of --repeats runs, target <= 0.2 s. Compared in the same run with
  * the naive approach: a float64 scipy.spatial.distance.cdist row + softmax (scipy.special), on a
    float64 copy of the vectors prepared beforehand, and straight from the float32 vectors;
  * the shape of the official SanText code: float32 dot-product distances (||a||² + ||b||² − 2<a,b>,
    as sklearn's euclidean_distances) and a float32 softmax — reporting its exact zeros at eps = 15.
Outputs are compared (largest relative difference where the probability is above 1e-300).
Also timed: CusText's whole-vocabulary output-set mapping (K = 20, built once per space), then
CusText probabilities, and sampling (2,000 draws of one word; one draw for each of 200 words).

    python bench/bench_probabilities.py [--word king] [--epsilon 3] [--repeats 7] [--skip-mapping]
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import softmax

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import timed  # noqa: E402  (bench/timing.py, beside this script)
from privlib.words import EmbeddingSpace  # noqa: E402
from privlib.words.mechanisms.exponential import TEM, CusText, SanText, build_groups  # noqa: E402

TARGET = 0.2



def fmt(times):
    return ", ".join(f"{t:.3f}" for t in times)


def max_relative_difference(a, b):
    keep = (a > 1e-300) | (b > 1e-300)
    return float(np.max(np.abs(a[keep] - b[keep]) / np.maximum(a[keep], b[keep])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--word", default="king")
    parser.add_argument("--epsilon", type=float, default=3.0, help="SanText README: eps = 3 for GloVe")
    parser.add_argument("--beta", type=float, default=0.001)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--skip-mapping", action="store_true", help="skip CusText's ~10 s mapping build")
    args = parser.parse_args()

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.python_version()}, numpy {np.__version__}")
    space = EmbeddingSpace.glove_6b_50d()
    n_words = len(space)
    row = space.index(args.word)
    eps = args.epsilon
    print(f"vocabulary: {n_words:,} words; word {args.word!r}; eps = {eps:g}; median of {args.repeats} runs")

    santext, tem = SanText(), TEM(beta=args.beta)
    santext.output_probabilities(space, row, eps)  # warm-up (first touch of buffers)
    t_san, runs_san, p_san = timed(lambda: santext.output_probabilities(space, row, eps), args.repeats)
    t_tem, runs_tem, p_tem = timed(lambda: tem.output_probabilities(space, row, eps), args.repeats)

    vectors64 = space.vectors.astype(np.float64)  # prepared outside the timing, as ours is

    def naive_santext():
        d = cdist(vectors64[row:row + 1], vectors64)[0]
        return softmax(-eps * d / 2)

    def naive_tem():
        d = cdist(vectors64[row:row + 1], vectors64)[0]
        return softmax(-eps * np.minimum(d, tem.threshold(n_words, eps)) / 2)

    t_naive, runs_naive, p_naive = timed(naive_santext, args.repeats)
    # the same, straight from the stored float32 vectors (cdist converts them to float64 per call)
    t_naive32, _, _ = timed(lambda: softmax(-eps * cdist(space.vectors[row:row + 1], space.vectors)[0] / 2),
                            args.repeats)
    t_naive_tem, _, p_naive_tem = timed(naive_tem, args.repeats)

    sq32 = np.einsum("ij,ij->i", space.vectors, space.vectors)

    def official_shape(e):
        w = space.vectors[row:row + 1]
        d = np.sqrt(np.maximum(sq32[row] + sq32[None, :] - 2 * (w @ space.vectors.T), 0)).astype(np.float32)[0]
        scores = (-e * d / 2).astype(np.float32)
        p = np.exp(scores - scores.max())
        return p / p.sum()

    t_official, _, _ = timed(lambda: official_shape(eps), args.repeats)

    print(f"SanText, ours: median {t_san:.3f} s (runs {fmt(runs_san)}) -> "
          f"{'meets' if t_san <= TARGET else 'MISSES'} the {TARGET} s target")
    print(f"TEM,     ours: median {t_tem:.3f} s (runs {fmt(runs_tem)}) -> "
          f"{'meets' if t_tem <= TARGET else 'MISSES'} the {TARGET} s target")
    print(f"baseline float64 cdist row + softmax: SanText {t_naive:.3f} s (runs {fmt(runs_naive)}), "
          f"TEM {t_naive_tem:.3f} s")
    print(f"ratio baseline / ours: SanText {t_naive / t_san:.2f}x, TEM {t_naive_tem / t_tem:.2f}x "
          f"(the baseline keeps a 160 MB float64 copy of the vectors; ours reads the float32 ones)")
    print(f"baseline cdist + softmax from the float32 vectors (no copy kept): {t_naive32:.3f} s "
          f"-> ratio {t_naive32 / t_san:.2f}x")
    print(f"official code shape (float32 dot-product distances + float32 softmax): {t_official:.3f} s")
    print(f"agreement with the cdist baseline: max relative difference SanText "
          f"{max_relative_difference(p_san, p_naive):.1e}, TEM {max_relative_difference(p_tem, p_naive_tem):.1e}; "
          f"sums {p_san.sum():.15f}, {p_tem.sum():.15f}")
    for e in (eps, 15.0):
        zeros_official = int(np.count_nonzero(official_shape(e) == 0))
        zeros_naive = int(np.count_nonzero(softmax(-e * cdist(vectors64[row:row + 1], vectors64)[0] / 2) == 0))
        zeros_ours = int(np.count_nonzero(santext.output_probabilities(space, row, e) == 0))
        print(f"exact zeros at eps = {e:g}: official float32 shape {zeros_official:,}, float64 softmax "
              f"{zeros_naive:,}, ours {zeros_ours:,} (smallest ours "
              f"{santext.output_probabilities(space, row, e).min():.2e})")

    rng = np.random.default_rng(1)
    t_sample, _, _ = timed(lambda: santext.sample(space, row, eps, 2000, rng), args.repeats)
    words = rng.choice(n_words, 200, replace=False)
    santext.sample_many(space, words[:2], eps, rng)  # builds the library's cached float64 copy
    t_many, _, _ = timed(lambda: santext.sample_many(space, words, eps, rng), 3)
    print(f"SanText sampling: 2,000 draws of one word {t_sample:.3f} s; one draw for each of 200 words "
          f"{t_many:.2f} s ({t_many / 200 * 1e3:.1f} ms per word)")

    if not args.skip_mapping:
        custext = CusText(k=20)
        t = time.perf_counter()
        groups = custext.groups(space)  # built on first use, then cached on the space
        print(f"CusText mapping, whole vocabulary ({n_words:,} words, K = 20, {groups.offsets.size - 1:,} groups): "
              f"{time.perf_counter() - t:.1f} s (once per space and K)")
        t_cus, runs_cus, p_cus = timed(lambda: custext.output_probabilities(space, row, eps), args.repeats)
        print(f"CusText probabilities after the mapping: median {t_cus:.3f} s (runs {fmt(runs_cus)}); "
              f"{np.count_nonzero(p_cus)} outputs")
        for limit in (50_000, 100_000):
            g = build_groups(space.vectors[:limit], space.sq_norms[:limit], 20)
            print(f"CusText mapping, first {limit:,} words: {g.seconds:.2f} s")


if __name__ == "__main__":
    main()
