"""The corpus command: ``sanitize-corpus IN OUT``, sanitising a JSON Lines, CSV or Parquet file
of documents in partitions, in this process or on a Dask cluster (`privlib.words.corpus`).

Dask is imported only with ``--scheduler`` or ``--workers`` (`privlib.words.cluster.open_client`),
pyarrow only for Parquet files.
"""
from __future__ import annotations

import os
import sys

from privlib.cli.common import (
    Command,
    add_allow_long_flag,
    add_cluster_arguments,
    add_epsilon_argument,
    add_seed_argument,
    duration,
    long_work,
    terminal_progress,
    whole_number_at_least,
)
from privlib.cli.words import (
    StudyCluster,
    add_policy_arguments,
    add_space_arguments,
    check_output_path,
    mechanism_of,
    policy_of,
)
from privlib.words.cluster import SpaceSpec, open_client
from privlib.words.corpus import PARTITION_SIZE, sanitize_corpus
from privlib.words.cost import corpus_words, sanitize_seconds
from privlib.words.mechanisms import MECHANISMS


def add_sanitize_corpus_arguments(parser) -> None:
    parser.add_argument("input", metavar="IN", help="the corpus: .jsonl/.ndjson/.json (JSON Lines), .csv (with a "
                                                    "header row) or .parquet")
    parser.add_argument("output", metavar="OUT",
                        help="where to write it, in the same format: every input column, the text column "
                             "sanitised, then per-document budget and policy columns (written under a temporary "
                             "name and renamed at the end: no partial file on failure)")
    parser.add_argument("--text-column", default="text", metavar="NAME", help="the column of the text (default: text)")
    parser.add_argument("--id-column", default=None, metavar="NAME",
                        help="the column of each document's id (text or whole numbers, unique): with the seed it "
                             "determines the document's randomness (default: the row number, from 0)")
    parser.add_argument("--keep-original", default=None, metavar="NAME",
                        help="also write the original text in this column (the output is then as sensitive as "
                             "the input)")
    add_epsilon_argument(parser, help="privacy parameter per token (smaller = more privacy); a document of m "
                                      "sanitised tokens spends m·epsilon")
    parser.add_argument("--mechanism", default="multivariate-laplace", choices=sorted(MECHANISMS))
    parser.add_argument("--param", action="append", metavar="KEY=VALUE", help="mechanism parameter (repeatable)")
    add_policy_arguments(parser)
    add_space_arguments(parser)
    add_seed_argument(parser, help="secret seed: with a document's id it determines its noise, so a re-run gives "
                                   "the same file. Keep it secret (whoever knows it can undo most of the "
                                   "protection); default: a fresh 128-bit one, not shown")
    add_cluster_arguments(parser)
    parser.add_argument("--partition-size", type=whole_number_at_least(1), default=PARTITION_SIZE, metavar="N",
                        help=f"documents per task (default {PARTITION_SIZE:,})")
    parser.add_argument("--progress", action="store_true",
                        help="show the progress on stderr even when it is not a terminal")
    add_allow_long_flag(parser)


def document_progress(show: bool, bar=None):
    """``progress(done, total)`` for `sanitize_corpus`, drawn by the CLI's progress bar (`Progress`:
    the percentage, documents done of the total and the time left; ``bar``: one already shown,
    e.g. by `long_work`), or None."""
    bar = bar if bar is not None else terminal_progress(show or None)
    if bar is None:
        return None

    def progress(done: int, total: int) -> None:
        bar(done / total if total else 1.0, f"{done:,} of {total:,} documents")

    return progress


def run_sanitize_corpus(args) -> dict:
    """Sanitise the corpus ``IN`` into ``OUT``; the summary (documents, tokens, seconds, output)."""
    if args.keep_original is not None and not args.keep_original.strip():
        raise ValueError("--keep-original needs a column name (it writes the original text there); "
                         "leave it out to write no original.")
    check_output_path("OUT", args.output, [args.input])
    mechanism = mechanism_of(args)
    space_spec = SpaceSpec(args.embeddings, args.vocab_size)
    try:
        size = os.stat(args.input).st_size
    except OSError:
        size = 0  # sanitize_corpus says what is wrong with the input
    # the estimate: the input's words (from its size) × the cost of one output on this space,
    # divided by the threads of a local cluster (its processes share this machine's cores)
    words = corpus_words(size) if size else 0
    threads = StudyCluster(args).threads if args.scheduler is None else 1
    seconds = sanitize_seconds(space_spec.load(), words, args.epsilon, mechanism) / threads if words else 0.0
    bar = long_work(args, "sanitize-corpus", seconds, "the input (split it into smaller files)")
    with open_client(args.scheduler, args.workers) as client:
        summary = sanitize_corpus(
            args.input, args.output, text_column=args.text_column, id_column=args.id_column,
            mechanism=mechanism, epsilon=args.epsilon, seed=args.seed, policy=policy_of(args),
            space_spec=space_spec, client=client, partition_size=args.partition_size,
            progress=document_progress(args.progress, bar), original_column=args.keep_original,
        )
        workers = 0 if client is None else len(client.scheduler_info().get("workers", {}))
    return {**summary.to_dict(), "workers": workers}


def print_sanitize_corpus(args, result: dict) -> None:
    where = "in this process" if not result["workers"] else f"on {result['workers']} Dask workers"
    print(f"Sanitised {result['documents']:,} documents ({result['tokens_sanitised']:,} of {result['tokens']:,} "
          f"tokens) {where} in {duration(result['seconds'])}; the largest budget of one document: "
          f"{result['largest_epsilon_spent']:g}. Written to {result['output']}.", file=sys.stdout)


#: The corpus commands.
COMMANDS: tuple[Command, ...] = (
    Command("sanitize-corpus", "sanitise a corpus file (JSON Lines, CSV, Parquet) in partitions, "
                               "in this process or on a Dask cluster",
            add_sanitize_corpus_arguments, run_sanitize_corpus, print_sanitize_corpus,
            description="Sanitise every document of a JSON Lines, CSV or Parquet file word by word, in partitions "
                        "of --partition-size documents, in this process or on a Dask cluster (--scheduler, "
                        "--workers). Each document's randomness comes from the seed and its id, so the output is "
                        "the same whatever the partitions or the workers."),
)
