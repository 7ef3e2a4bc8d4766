"""Command-line interface: ``python -m privlib <command> ...``, JSON on stdout with ``--json``.

Errors in the arguments (unknown word, epsilon <= 0 or not finite, a bad path) exit with code 2
and a one-line message on stderr; progress goes to stderr so stdout stays parseable.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from privlib.core.validation import as_generator, check_epsilon
from privlib.presentation.words.report import choice_report
from privlib.words.choice import Targets, WordSet, choose_epsilon, epsilon_grid
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.experiments import epsilon_sweep, parse_epsilons, rank_experiment
from privlib.words.mechanisms import MECHANISMS, make_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE
from privlib.words.text import SanitisePolicy, sanitize_many
from privlib.words.theory.neighbour_distances import (
    neighbour_distances,
    published_table2,
)
from privlib.words.theory.noisy_dot import (
    NoisyDotProduct,
    chebyshev_tail_bound,
    chernoff_tail_bound,
    thm8_half_width,
    thm8_tail_bound,
)

EXIT_USAGE = 2


def _space(args):
    if args.embeddings:
        return EmbeddingSpace.from_file(args.embeddings, vocab_size=args.vocab_size)
    return EmbeddingSpace.glove_6b_50d(vocab_size=args.vocab_size)


def _mechanism(args):
    params = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--param takes key=value, got {item!r}.")
        params[key.strip()] = _parse_value(value.strip())
    return make_mechanism(args.mechanism, **params)


def _parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"epsilon must be a number, got {text!r}") from None
    try:
        return check_epsilon(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2), as the rest of the CLI."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m privlib", description="Word-level d_X-privacy experiments (Epsilon Lab).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p):
        p.add_argument("--vocab-size", type=int, default=None, help="keep the N most frequent words")
        p.add_argument("--embeddings", default=None,
                       help="word2vec/GloVe/fastText file (default: the built-in GloVe 6B 50d)")
        p.add_argument("--mechanism", default="multivariate-laplace", choices=sorted(MECHANISMS))
        p.add_argument("--param", action="append", metavar="KEY=VALUE", help="mechanism parameter (repeatable)")
        p.add_argument("--close", type=int, default=DEFAULT_CLOSE, help="close-neighbour cut-off K (default 100)")
        p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh OS entropy)")
        p.add_argument("--json", action="store_true", help="print JSON on stdout")

    ranks = sub.add_parser("ranks", help="where one word's outputs land among its neighbours")
    ranks.add_argument("--word", required=True)
    ranks.add_argument("--epsilon", type=_epsilon, required=True, help="privacy parameter (smaller = more privacy)")
    ranks.add_argument("--samples", type=int, default=2000)
    ranks.add_argument("--top", type=int, default=10, help="how many of the most frequent outputs to list")
    common(ranks)

    sweep = sub.add_parser("sweep", help="proportions original/close/distant against epsilon (paper Fig. 2)")
    sweep.add_argument("--words", type=int, default=200, help="number of words drawn uniformly from the vocabulary")
    sweep.add_argument("--epsilons", default="1:30", help="start:stop[:step] or a comma list (default 1:30)")
    common(sweep)

    dot = sub.add_parser("dot", help="exact law of the noisy dot product Z = <eta, e> and its tail bounds")
    dot.add_argument("--n", type=int, required=True, help="dimension of the embedding")
    dot.add_argument("--epsilon", type=_epsilon, required=True, help="privacy parameter (smaller = more privacy)")
    dot.add_argument("--at", default="0,0.5,1,2", help="comma-separated points z (default 0,0.5,1,2)")
    dot.add_argument("--json", action="store_true", help="print JSON on stdout")

    san = sub.add_parser("sanitize", help="sanitise text word by word (one document per line with -i)",
                         description="Sanitise text word by word. The input is only read: results go to stdout, "
                                     "progress to stderr, and nothing is written anywhere else.")
    san.add_argument("text", nargs="?", help="the text to sanitise (or use -i FILE)")
    san.add_argument("-i", "--input", metavar="FILE",
                     help="read documents from FILE, one per line ('-' = standard input); output keeps their order")
    san.add_argument("--epsilon", type=_epsilon, required=True,
                     help="privacy parameter per word (smaller = more privacy); a text of m words spends m·epsilon")
    san.add_argument("--oov", choices=("redact", "keep", "random"), default="redact",
                     help="out-of-vocabulary words: redact as [UNK] (default), keep (NOT protected), "
                          "or replace by a random vocabulary word")
    san.add_argument("--case", choices=("match", "exact"), default="match",
                     help="match: look up lower case and restore capitals (default); exact: as typed")
    san.add_argument("--keep-stop-words", action="store_true",
                     help="leave stop words (privlib/words/data/stopwords_en.txt) untouched: no budget, no protection")
    san.add_argument("--sanitise-numbers", action="store_true",
                     help="sanitise numbers found in the vocabulary too (default: numbers are kept)")
    san.add_argument("--progress", action="store_true", help="show a progress bar on stderr even when not a terminal")
    common(san)

    table2 = sub.add_parser("table2", help="neighbour distances of random words (paper Table 2): z_w_x1, z_x1_x2, "
                                           "z_x1_x101")
    table2.add_argument("--words", type=int, default=5000, help="words drawn uniformly from the vocabulary (default 5000)")
    table2.add_argument("--far", type=int, default=101, help="rank of the far neighbour (default 101, as the paper)")
    table2.add_argument("--per-word", action="store_true", help="add each word's neighbours and values (JSON)")
    table2.add_argument("--vocab-size", type=int, default=None, help="keep the N most frequent words")
    table2.add_argument("--embeddings", default=None,
                        help="word2vec/GloVe/fastText file (default: the built-in GloVe 6B 50d)")
    table2.add_argument("--seed", type=int, default=0, help="random seed of the word sample (default 0)")
    table2.add_argument("--json", action="store_true", help="print JSON on stdout")

    choose = sub.add_parser("choose", help="choose epsilon: privacy and utility on your words over an epsilon grid, "
                                           "and the range that meets your targets")
    choose.add_argument("--words-file", metavar="FILE", default=None,
                        help="your words: one per line, or any text ('-' = standard input)")
    choose.add_argument("--words", type=int, default=50,
                        help="without --words-file: N words drawn uniformly from the vocabulary (default 50)")
    choose.add_argument("--epsilons", default="1:30", help="start:stop[:step] or a comma list (default 1:30)")
    choose.add_argument("--samples", type=int, default=100, help="runs per word and epsilon (default 100)")
    choose.add_argument("--target-close", type=float, default=0.6,
                        help="utility target: fraction of outputs unchanged or within the K nearest (default 0.6)")
    choose.add_argument("--max-keep", type=float, default=0.5,
                        help="privacy floor: no word kept unchanged more than this fraction of the time (default 0.5)")
    choose.add_argument("--keep-statistic", choices=("max", "mean"), default="max",
                        help="the floor applies to every word (max, default) or to the average (mean)")
    choose.add_argument("--sentence-length", type=int, default=20,
                        help="words per sentence for the composed budget L·epsilon (default 20)")
    choose.add_argument("--report", metavar="OUT.html", default=None, help="also write a self-contained HTML report")
    common(choose)

    mech = sub.add_parser("mechanisms", help="list the mechanisms, their parameters and guarantees")
    mech.add_argument("--json", action="store_true")
    return parser


def _progress(fraction: float, message: str) -> None:
    width = 30
    filled = int(round(width * fraction))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%} {message[:50]:<50}")
    if fraction >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _run(args) -> dict:
    if args.command == "mechanisms":
        return {"mechanisms": [cls().describe() for cls in MECHANISMS.values()]}
    if args.command == "dot":
        return _dot(args)
    if args.command == "table2":
        return _table2(args)
    mechanism = _mechanism(args)
    if args.command == "choose":
        return _choose(args, mechanism)
    if args.command == "sanitize":
        return _sanitize(args, mechanism)
    if args.command == "ranks":
        space = _space(args)
        result = rank_experiment(space, args.word, args.epsilon, args.samples, mechanism, args.close,
                                 rng=args.seed, top=args.top)
        return result.to_dict()
    epsilons = parse_epsilons(args.epsilons)
    space = _space(args)
    progress = _progress if sys.stderr.isatty() else None
    return epsilon_sweep(space, epsilons, args.words, mechanism, args.close, rng=args.seed, progress=progress).to_dict()


def _sanitize(args, mechanism) -> dict:
    """Sanitise the text argument or the documents of ``--input``; returns the results (the
    text output is the sanitised text, one document per line)."""
    if (args.text is None) == (args.input is None):
        raise ValueError("Give exactly one of: a text to sanitise, or -i FILE (one document per line).")
    if args.input is None:
        documents = [args.text]
    elif args.input == "-":
        documents = sys.stdin.read().splitlines()
    else:
        try:
            with open(args.input, encoding="utf-8") as fh:
                documents = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"Cannot read {args.input}: {exc}. Give a UTF-8 text file, one document per line.") from None
    policy = SanitisePolicy(case=args.case, oov=args.oov, keep_stop_words=args.keep_stop_words,
                            sanitise_numbers=args.sanitise_numbers)
    space = _space(args)
    show = args.progress or (args.input is not None and sys.stderr.isatty())
    results = sanitize_many(documents, mechanism, args.epsilon, space, args.seed, policy,
                            progress=_progress if show else None, batch_words=5_000)
    return {"documents": [r.to_dict(args.close) for r in results], "inline": args.input is None}


def _table2(args) -> dict:
    """Table 2 (paper §6): means of z_w_x1, z_x1_x2, z_x1_x<far> over random words, their standard
    errors, the published row when the embedding is one of the paper's, and the per-word values
    with --per-word."""
    rng = as_generator(args.seed)  # validates the seed before the embedding is loaded
    space = _space(args)
    progress = _progress if sys.stderr.isatty() else None
    table = neighbour_distances(space, args.words, far=args.far, rng=rng, progress=progress)
    result = table.to_dict(per_word=args.per_word)
    result["seed"] = args.seed
    published = published_table2(space) if args.far == 101 else None
    if published is not None:
        result["published"] = {source: dict(zip(table.names, published[source])) for source in ("paper", "artifact")}
    return result


def _dot(args) -> dict:
    """pdf/cdf/sf of Z at the points, its variance, and two-sided tail bounds P(|Z| > |z|)."""
    try:
        points = np.array([float(p) for p in args.at.split(",") if p.strip()])
    except ValueError:
        raise ValueError(f"--at takes comma-separated numbers, got {args.at!r}.") from None
    if points.size == 0 or not np.isfinite(points).all():
        raise ValueError("--at needs at least one finite number.")
    law = NoisyDotProduct(args.n, args.epsilon)
    t = np.abs(points)
    half = thm8_half_width(args.n, args.epsilon, 0.99)
    return {
        "n": law.n, "epsilon": law.epsilon, "at": points.tolist(),
        "pdf": np.atleast_1d(law.pdf(points)).tolist(),
        "cdf": np.atleast_1d(law.cdf(points)).tolist(),
        "sf": np.atleast_1d(law.sf(points)).tolist(),
        "var": law.var(),
        "two_sided_tail": np.atleast_1d(2 * law.sf(t)).tolist(),
        "interval_99_half_width": float(law.isf(0.005)),
        "bounds": {
            "thm8": np.atleast_1d(thm8_tail_bound(args.n, args.epsilon, t)).tolist(),
            "chebyshev": np.atleast_1d(chebyshev_tail_bound(args.n, args.epsilon, t)).tolist(),
            "chernoff": np.atleast_1d(chernoff_tail_bound(args.n, args.epsilon, t)).tolist(),
            "thm8_99_half_width": {"half_width": half.half_width, "c1": half.c1, "c2": half.c2},
        },
    }


def _print_text(args, result: dict) -> None:
    if args.command == "choose":
        _print_choose(result)
        return
    if args.command == "table2":
        _print_table2(result)
        return
    if args.command == "dot":
        print(f"Z = <eta, e>, n = {result['n']}, epsilon = {result['epsilon']:g}: Var Z = {result['var']:.6g}, "
              f"99% of Z within ±{result['interval_99_half_width']:.4g} (Thm 8 guarantees "
              f"±{result['bounds']['thm8_99_half_width']['half_width']:.4g})")
        print(f"{'z':>10} {'pdf':>12} {'cdf':>12} {'sf':>12} {'P(|Z|>|z|)':>12} {'Chernoff':>10} {'Thm 8':>10}")
        for i, z in enumerate(result["at"]):
            print(f"{z:>10g} {result['pdf'][i]:>12.6g} {result['cdf'][i]:>12.6g} {result['sf'][i]:>12.6g} "
                  f"{result['two_sided_tail'][i]:>12.6g} {result['bounds']['chernoff'][i]:>10.4g} "
                  f"{result['bounds']['thm8'][i]:>10.4g}")
        return
    if args.command == "mechanisms":
        for m in result["mechanisms"]:
            params = ", ".join(f"{k}={v['default']!r}" for k, v in m["parameters"].items())
            print(f"{m['name']}: {m['label']} [{params}]\n  {m['guarantee']}")
    elif args.command == "ranks":
        p = result["proportions"]
        print(f"{result['word']!r} at epsilon {result['epsilon']:g} ({result['mechanism']}, "
              f"{'exact output probabilities' if result.get('exact') else str(result['samples']) + ' samples'})")
        print(f"  original {p['original']:.3f}   close (1..{result['close']}) {p['close']:.3f}   distant {p['distant']:.3f}")
        for row in result["top"]:
            amount = f"count {row['count']:>6}" if "count" in row else f"prob {row['probability']:.4f}"
            print(f"  {row['word']:<20} rank {row['rank']:>7}  {amount}  cos {row['cosine']:.3f}")
    else:
        print(f"{'epsilon':>8} {'original':>9} {'close':>9} {'distant':>9}   ({result['words']} words)")
        p = result["proportions"]
        for i, eps in enumerate(result["epsilons"]):
            print(f"{eps:>8g} {p['original'][i]:>9.3f} {p['close'][i]:>9.3f} {p['distant'][i]:>9.3f}")


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = _run(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "sanitize":
            _print_sanitised(args, result)
        elif getattr(args, "json", False):
            json.dump(result, sys.stdout, default=_json_default)
            sys.stdout.write("\n")
        else:
            _print_text(args, result)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as Unix tools do
        sys.stdout = open(os.devnull, "w")
    return 0


def _print_sanitised(args, result: dict) -> None:
    """Text: the sanitised documents, one per line. JSON: one object for a text argument, JSON
    Lines (one object per document, in input order) for -i FILE."""
    documents = result["documents"]
    if not args.json:
        for doc in documents:
            sys.stdout.write(doc["sanitised"] + "\n")
    elif result["inline"]:
        json.dump(documents[0], sys.stdout, default=_json_default, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for doc in documents:
            json.dump(doc, sys.stdout, default=_json_default, ensure_ascii=False)
            sys.stdout.write("\n")


def _print_table2(result: dict) -> None:
    names = [k for k in result["standard_errors"]]
    print(f"{result['embedding']}: {result['words']:,} random words (seed {result['seed']}), n = {result['dim']}")
    published = result.get("published", {})
    header = f"{'quantity':<12} {'mean':>8} {'± SE':>8} {'SD':>8}" + ("   paper  artifact" if published else "")
    print(header)
    for k in names:
        row = f"{k:<12} {result[k]:>8.4f} {result['standard_errors'][k]:>8.4f} {result['standard_deviations'][k]:>8.4f}"
        if published:
            row += f"   {published['paper'][k]:>5.3f}  {published['artifact'][k]:>8.3f}"
        print(row)
    undefined = {k: v for k, v in result["undefined"].items() if v}
    if undefined:
        print(f"undefined (identical neighbour vectors, left out): {undefined}")


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _choose(args, mechanism) -> dict:
    """Choose epsilon (privlib.words.choice): metrics over the grid, the inverse answers and,
    with --report, a self-contained HTML report. Unknown words are reported on stderr."""
    epsilons = epsilon_grid(args.epsilons)  # argument errors before the embedding is loaded
    targets = Targets(utility=args.target_close, max_keep=args.max_keep, keep_statistic=args.keep_statistic)
    text = None
    if args.words_file == "-":
        text = sys.stdin.read()
    elif args.words_file is not None:
        try:
            with open(args.words_file, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"Cannot read {args.words_file}: {exc}. Give a UTF-8 text file "
                             "(one word per line, or any text).") from None
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    space = _space(args)
    if text is not None:
        words = WordSet.from_text(text, space, source=f"words of {os.path.basename(args.words_file)}")
        if words.unknown:
            first = ", ".join(words.unknown[:5])
            print(f"note: {len(words.unknown):,} distinct word(s) not in the vocabulary, left out: {first}"
                  f"{', …' if len(words.unknown) > 5 else ''}", file=sys.stderr)
    else:
        words = WordSet.random(space, args.words, seed)
    progress = _progress if sys.stderr.isatty() else None
    choice = choose_epsilon(space, words, epsilons, [mechanism], args.samples, args.close, targets,
                            args.sentence_length, seed, progress)
    result = choice.to_dict()
    if args.report:
        import datetime

        page = choice_report(choice, created=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
        try:
            with open(args.report, "w", encoding="utf-8") as fh:
                fh.write(page)
        except OSError as exc:
            raise ValueError(f"Cannot write the report to {args.report}: {exc}.") from None
        result["report"] = args.report
    return result


def _print_choose(result: dict) -> None:
    emb, words = result["embedding"], result["words"]
    print(f"{emb['name']}, {words['count']:,} words ({words['source']}), {result['samples']:,} runs per word and "
          f"epsilon, K = {result['close']}, seed {result['seed']}")
    for m in result["mechanisms"]:
        v, se = m["values"], m["standard_errors"]
        print(f"\n{m['label']}{' (exact output law)' if m['exact'] else ''}")
        print(f"{'epsilon':>8} {'budget':>8} {'<=K':>13} {'unchanged':>13} {'max kept':>9} {'median':>8} "
              f"{'cosine':>7} {'S_w':>7} {'exp(H)':>8}")
        for j, eps in enumerate(result["epsilons"]):
            print(f"{eps:>8g} {result['budget'][j]:>8g} {v['within_k'][j]:>6.1%} ±{se['within_k'][j]:>5.1%} "
                  f"{v['unchanged'][j]:>6.1%} ±{se['unchanged'][j]:>5.1%} {v['unchanged_max'][j]:>9.1%} "
                  f"{v['median_rank'][j]:>8,.0f} {v['cosine'][j]:>7.3f} {v['distinct'][j]:>7.1f} {v['effective'][j]:>8.3g}")
        print(m["answer"]["message"])
        print(m["summary"])
    if "report" in result:
        print(f"\nreport: {result['report']}")
