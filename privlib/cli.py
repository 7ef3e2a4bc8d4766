"""Command-line interface: ``python -m privlib <command> ...``, JSON on stdout with ``--json``.

Errors in the arguments (unknown word, epsilon <= 0 or not finite, a bad path) exit with code 2
and a one-line message on stderr; progress goes to stderr so stdout stays parseable.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from privlib.ranks import DEFAULT_CLOSE

EXIT_USAGE = 2


def _space(args):
    from privlib.embeddings import EmbeddingSpace

    if args.embeddings:
        return EmbeddingSpace.from_file(args.embeddings, vocab_size=args.vocab_size)
    return EmbeddingSpace.glove_6b_50d(vocab_size=args.vocab_size)


def _mechanism(args):
    from privlib.mechanisms import make_mechanism

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
    from privlib.validation import check_epsilon

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
    from privlib.mechanisms import MECHANISMS

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
    from privlib.experiments import epsilon_sweep, parse_epsilons, rank_experiment
    from privlib.mechanisms import MECHANISMS

    if args.command == "mechanisms":
        return {"mechanisms": [cls().describe() for cls in MECHANISMS.values()]}
    if args.command == "dot":
        return _dot(args)
    mechanism = _mechanism(args)
    if args.command == "ranks":
        space = _space(args)
        result = rank_experiment(space, args.word, args.epsilon, args.samples, mechanism, args.close,
                                 rng=args.seed, top=args.top)
        return result.to_dict()
    epsilons = parse_epsilons(args.epsilons)
    space = _space(args)
    progress = _progress if sys.stderr.isatty() else None
    return epsilon_sweep(space, epsilons, args.words, mechanism, args.close, rng=args.seed, progress=progress).to_dict()


def _dot(args) -> dict:
    """pdf/cdf/sf of Z at the points, its variance, and two-sided tail bounds P(|Z| > |z|)."""
    from privlib.noisy_dot import (NoisyDotProduct, chebyshev_tail_bound, chernoff_tail_bound, thm8_half_width,
                                   thm8_tail_bound)

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
    if getattr(args, "json", False):
        json.dump(result, sys.stdout, default=_json_default)
        sys.stdout.write("\n")
    else:
        _print_text(args, result)
    return 0


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
