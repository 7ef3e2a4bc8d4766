"""Sanitising a corpus: in this process vs a 2-worker Dask LocalCluster, against today's `sanitize -i`.

Corpus: ``--documents`` documents (default 20,000) of 20-40 words (``--words`` ± 10, default
30), each word drawn independently from the vocabulary with probability ∝ 1/(rank + 1) — GloVe
6B lists its words by decreasing corpus frequency and has no counts, so this is Zipf's law on
its ranks (seeded, frequency-weighted; not real text). The embedding: the full GloVe 6B 50d
vocabulary (400,000 words) unless ``--vocab-size``. Multivariate Laplace, epsilon 10, the default
policy. Measured in the same run, on the same JSON Lines file and the same loaded embedding:

1. baseline: `sanitize_many` with ``batch_words=5000``, what ``python -m privlib sanitize -i
   FILE`` does (one random stream, every token's rank and cosine measured, everything held in
   memory), on the first ``--baseline-documents`` documents (default 2,000: on the full
   vocabulary it is several times slower than the rest, and its rate per document does not
   depend on how many there are);
2. `sanitize_corpus` in this process (per-document seeds, partitions of ``--partition-size``,
   reading and writing the file);
3. `sanitize_corpus` on a LocalCluster of ``--workers`` single-threaded worker processes (the
   start of the cluster and the embedding's load on each worker timed apart: paid once per run).
   The two `sanitize_corpus` files are compared byte for byte;
4. the driver alone: reading, checking and writing the file with no sanitising — the most any
   cluster can do through one driver.

The projected time for 10^7 documents on N workers is 10^7 / min(N × per-worker rate, driver
rate), with the per-worker rate = the cluster's measured rate / its workers: a projection
(linear scaling, workers like the ones here, the driver on its own core), not a measurement.

    python bench/bench_corpus.py [--documents 20000] [--words 30] [--vocab-size N] [--workers 2]
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

from timing import machine_info, timed  # noqa: E402  (bench/timing.py, beside this script)
from privlib.words import MultivariateLaplace  # noqa: E402
from privlib.words.cluster import SpaceSpec, open_client  # noqa: E402
from privlib.words.corpus import FORMATS, sanitize_corpus  # noqa: E402
from privlib.words.text import SanitisePolicy, sanitize_many  # noqa: E402

PROJECTED_DOCUMENTS = 10**7
PROJECTED_WORKERS = (1, 2, 8, 32, 100)


def zipf_corpus(space, documents: int, words: int, seed: int) -> list[str]:
    """``documents`` texts of words ± 10 words drawn with probability ∝ 1/(rank + 1)."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(space) + 1)
    lengths = rng.integers(max(1, words - 10), words + 11, size=documents)
    drawn = rng.choice(len(space), size=int(lengths.sum()), p=weights / weights.sum())
    vocabulary = space.words
    texts, start = [], 0
    for n in lengths:
        texts.append(" ".join(vocabulary[i] for i in drawn[start:start + n]))
        start += n
    return texts


def warm(spec):
    """Load the embedding and build its search on a worker (once per process); its size."""
    space = spec.load()
    space.exact_search
    return len(space)


def driver_only(source: Path, target: Path, partition_size: int) -> int:
    """Read, check and write the corpus with no sanitising: the driver's own cost per document."""
    file_format = FORMATS[source.suffix]
    writer = file_format.Writer(target)
    documents = 0
    for partition in file_format.partitions(source, "text", "id", partition_size, ()):
        writer.write(partition, {"text": partition.texts})
        documents += len(partition.texts)
    writer.close()
    return documents


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=20_000)
    parser.add_argument("--words", type=int, default=30, help="words per document on average (± 10)")
    parser.add_argument("--vocab-size", type=int, default=None, help="the N most frequent words (default: all)")
    parser.add_argument("--epsilon", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partition-size", type=int, default=1000)
    parser.add_argument("--baseline-documents", type=int, default=2000,
                        help="documents timed for the sanitize_many baseline (default 2,000; 0: all)")
    args = parser.parse_args()

    print(f"machine: {machine_info()}", flush=True)
    spec = SpaceSpec(vocab_size=args.vocab_size)
    t = time.perf_counter()
    space = spec.load()
    space.exact_search
    print(f"embedding: {space.name}, loaded in {time.perf_counter() - t:.1f} s")
    texts = zipf_corpus(space, args.documents, args.words, seed=0)
    n_words = sum(len(text.split()) for text in texts)
    print(f"corpus: {len(texts):,} documents, {n_words:,} words ({n_words / len(texts):.1f} per document), "
          f"drawn with P(word) ∝ 1/(rank + 1) from the vocabulary (seed 0); epsilon {args.epsilon:g}, "
          f"multivariate Laplace, default policy")
    mechanism, policy = MultivariateLaplace(), SanitisePolicy()
    sanitize_many(texts[:50], mechanism, args.epsilon, space, 0, policy)  # warm-up (threads, first touch)

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        source = folder / "corpus.jsonl"
        with open(source, "w", encoding="utf-8") as fh:
            for i, text in enumerate(texts):
                fh.write(json.dumps({"id": f"doc-{i}", "text": text}) + "\n")

        subset = texts[:args.baseline_documents or len(texts)]
        seconds, _, results = timed(lambda: sanitize_many(subset, mechanism, args.epsilon, space, 1, policy,
                                                          batch_words=5_000), 1)
        tokens = sum(r.sanitised_tokens for r in results)
        del results
        rows.append((f"sanitize_many (sanitize -i), first {len(subset):,} docs", seconds, len(subset)))
        print(f"sanitised tokens in the first {len(subset):,} documents: {tokens:,} of "
              f"{sum(len(t.split()) for t in subset):,} words (the rest: punctuation, words not in the vocabulary)",
              flush=True)

        def corpus(target, client=None):
            return sanitize_corpus(source, target, id_column="id", mechanism=mechanism, epsilon=args.epsilon,
                                   seed=1, policy=policy, space_spec=spec, client=client,
                                   partition_size=args.partition_size)

        seconds, _, _ = timed(lambda: corpus(folder / "in-process.jsonl"), 1)
        rows.append(("sanitize_corpus, in-process", seconds, len(texts)))
        print(f"in-process: {seconds:.1f} s", flush=True)

        t = time.perf_counter()
        with open_client(workers=args.workers) as client:
            client.wait_for_workers(args.workers)
            started = time.perf_counter() - t
            t = time.perf_counter()
            client.run(warm, spec)
            loaded = time.perf_counter() - t
            seconds, _, _ = timed(lambda: corpus(folder / "cluster.jsonl", client), 1)
        rows.append((f"sanitize_corpus, LocalCluster of {args.workers} workers", seconds, len(texts)))
        same = (folder / "in-process.jsonl").read_bytes() == (folder / "cluster.jsonl").read_bytes()
        print(f"cluster: started in {started:.1f} s, embedding loaded on the workers in {loaded:.1f} s "
              f"(once per run, not counted below); output identical to in-process, byte for byte: {same}", flush=True)

        driver, _, _ = timed(lambda: driver_only(source, folder / "driver.jsonl", args.partition_size), 1)
        driver_rate = len(texts) / driver

    print()
    print(f"{'run':<50} {'seconds':>8} {'documents/s':>12} {'words/s':>10}")
    for name, seconds, documents in rows:
        words = sum(len(t.split()) for t in texts[:documents])
        print(f"{name:<50} {seconds:8.1f} {documents / seconds:12,.1f} {words / seconds:10,.0f}")
    print(f"{'driver alone (read, check, write; no sanitising)':<50} {driver:8.2f} {driver_rate:12,.0f} "
          f"{n_words / driver:10,.0f}")
    baseline_rate, in_process_rate = rows[0][2] / rows[0][1], rows[1][2] / rows[1][1]
    print(f"in-process sanitize_corpus vs sanitize_many: {in_process_rate / baseline_rate:.2f}x the documents/s")

    per_worker = len(texts) / rows[2][1] / args.workers
    print()
    print(f"Projection (not a measurement): 10^7 documents of ~{args.words} words on N workers at the measured "
          f"{per_worker:,.1f} documents/s per worker ({space.name}), capped by the driver's {driver_rate:,.0f} "
          f"documents/s:")
    for n in PROJECTED_WORKERS:
        rate = min(n * per_worker, driver_rate)
        hours = PROJECTED_DOCUMENTS / rate / 3600
        print(f"  N = {n:>3}: {hours:8.1f} h ({rate:,.0f} documents/s)")


if __name__ == "__main__":
    main()
