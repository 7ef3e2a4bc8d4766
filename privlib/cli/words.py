"""The word-level commands (privlib.words): ranks, sweep, dot, sanitize, table2, choose, mechanisms,
word-attack.

Each command is a `Command` in `COMMANDS`, with its own ``add_…_arguments``, ``run_…`` and
``print_…`` functions; ``privlib.cli`` puts the table together and runs them. Errors in the
arguments (unknown word, epsilon <= 0 or not finite, a bad path) are ValueErrors, which the CLI
reports as one line on stderr with exit code 2.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import secrets
import sys
from pathlib import Path

import numpy as np

from privlib.analyses import choose_epsilon as choose_page
from privlib.analyses import sanitise_text as sanitise_page
from privlib.cli.common import (
    EPSILONS_HELP,
    Command,
    add_allow_long_flag,
    add_cluster_arguments,
    add_epsilon_argument,
    add_epsilons_argument,
    add_repeats_argument,
    add_seed_argument,
    checked_number,
    fresh_seed,
    long_work,
    parse_params,
    path_text,
    read_text,
    terminal_progress,
    whole_number,
    whole_number_at_least,
    write_json,
)
from privlib.cli.settings import SETTINGS_FILE_VALUES, goes_with, read_by_command
from privlib.core.validation import as_generator, shown
from privlib.presentation.words.report import choice_report
from privlib.words.attacks import DEFAULT_RUNS, DEFAULT_SAMPLES_PER_WORD, PRIORS
from privlib.words.choice import (
    ATTACK_MEASURES,
    DEFAULT_SENTENCE_LENGTH,
    KEEP_STATISTICS,
    AttackSettings,
    Targets,
    WordSet,
    attack_metrics_seconds,
    choose_epsilon,
    epsilon_grid,
)
from privlib.words.cluster import LOCAL_THREADS_PER_WORKER, open_client
from privlib.words.cost import (
    choose_epsilon_seconds,
    epsilon_sweep_seconds,
    neighbour_distances_seconds,
    rank_experiment_seconds,
    sanitize_seconds,
)
from privlib.words.embeddings import EmbeddingSpace
from privlib.words.experiments import epsilon_sweep, rank_experiment
from privlib.words.mechanisms import MECHANISMS, describe_mechanisms, resolve_mechanism
from privlib.words.neighbours import DEFAULT_CLOSE
from privlib.words.text import CASE_POLICIES, NUMBER_POLICIES, OOV_POLICIES, SanitisePolicy, sanitize_many
from privlib.words.theory.neighbour_distances import neighbour_distances, published_table2
from privlib.words.theory.noisy_dot import (
    NoisyDotProduct,
    chebyshev_tail_bound,
    chernoff_tail_bound,
    thm8_half_width,
    thm8_tail_bound,
)

# ---------------------------------------------------------------------------------------------
# Options several word-level commands share


def add_space_arguments(parser) -> None:
    """``--vocab-size`` and ``--embeddings``: which embedding space the command uses."""
    parser.add_argument("--vocab-size", type=whole_number, default=None, help="keep the N most frequent words")
    parser.add_argument("--embeddings", default=None,
                        help="word2vec/GloVe/fastText file (default: the built-in GloVe 6B 50d)")


#: The mechanism of the word commands when none is named.
DEFAULT_MECHANISM = "multivariate-laplace"


def add_word_arguments(parser, seed: int | None = 0, compare: int = 0) -> None:
    """The options of every command that privatises words: the space, the mechanism and its
    parameters, the close-neighbour cut-off and the seed (default ``seed``; None: fresh OS
    entropy, for sanitising a user's text). ``compare`` > 0: ``--mechanisms A,B,…`` (at most
    ``compare`` of them, parameters as ``--param A.KEY=VALUE``) beside ``--mechanism``, one or the
    other; ``--mechanism``'s default is then None (read as `DEFAULT_MECHANISM`), so that a command
    can tell a typed ``--mechanism`` from none."""
    add_space_arguments(parser)
    if compare:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--mechanism", default=None, choices=sorted(MECHANISMS),
                           help=f"the mechanism (default {DEFAULT_MECHANISM})")
        group.add_argument("--mechanisms", type=mechanism_list(compare), metavar="A,B,C",
                           help=f"compare up to {compare} mechanisms side by side, as the Sanitise text page does: "
                                "a comma-separated list; each one's parameters as --param NAME.KEY=VALUE")
    else:
        parser.add_argument("--mechanism", default=DEFAULT_MECHANISM, choices=sorted(MECHANISMS))
    parser.add_argument("--param", action="append", metavar="KEY=VALUE", help="mechanism parameter (repeatable)")
    parser.add_argument("--close", type=whole_number, default=DEFAULT_CLOSE, help="close-neighbour cut-off K (default 100)")
    if seed is None:  # a release of the user's own text: fresh randomness unless asked otherwise
        add_seed_argument(parser)
    else:  # a study: reproducible by default, as every topic's sweeps
        add_seed_argument(parser, default=seed, help=f"random seed (default {seed})")


def space_of(args) -> EmbeddingSpace:
    """The embedding space of ``--embeddings`` / ``--vocab-size`` (default: GloVe 6B 50d)."""
    if args.embeddings:
        return EmbeddingSpace.from_file(args.embeddings, vocab_size=args.vocab_size)
    return EmbeddingSpace.glove_6b_50d(vocab_size=args.vocab_size)


def mechanism_of(args):
    """The mechanism of ``--mechanism`` (default `DEFAULT_MECHANISM`) with the parameters of ``--param key=value``."""
    return checked_mechanism(args.mechanism or DEFAULT_MECHANISM, param_items(args.param))


def param_items(items) -> dict:
    """``--param`` items (``key=value``) as a dict; ValueError (the item cut by `shown`) without an ``=``."""
    for item in items or []:  # checked here so that a long value is cut (`shown`) in the message
        if "=" not in item:
            raise ValueError(f"--param takes key=value, got {shown(item)}.")
    return parse_params(items)


def checked_mechanism(name: str, params: dict):
    """`resolve_mechanism` of (``name``, ``params``), its ValueError cut to one short line."""
    try:
        return resolve_mechanism((name, params))
    except (TypeError, ValueError) as exc:
        text = str(exc)
        raise ValueError(text if len(text) <= 250 else text[:249] + "…") from None


def mechanism_list(most: int):
    """argparse ``type`` of ``--mechanisms``: a comma-separated list of 1 to ``most`` distinct mechanism names."""

    def parse(text: str) -> tuple:
        names = tuple(name.strip() for name in text.split(","))
        unknown = [name for name in names if name not in MECHANISMS]
        if unknown:
            raise argparse.ArgumentTypeError(f"{shown(unknown[0])} is not a mechanism: choose from "
                                             f"{', '.join(sorted(MECHANISMS))}")
        if len(set(names)) != len(names) or len(names) > most:
            raise argparse.ArgumentTypeError(f"give 1 to {most} different mechanisms, comma-separated, "
                                             f"got {shown(text)}")
        return names

    parse.__name__ = "mechanisms"  # what argparse names the type in its messages
    return parse


def add_study_cluster_arguments(parser) -> None:
    """``--scheduler`` / ``--workers`` (`add_cluster_arguments`) for the ε studies (sweep, table2,
    choose), in a group whose help says what a cluster changes: where the blocks of words run and
    the long-work estimate, not the numbers."""
    group = parser.add_argument_group(
        "Dask cluster",
        "Run the blocks of words on a Dask cluster: the same seed gives the same numbers as in this "
        "process. With a cluster, the long-work estimate (see --allow-long) is divided by the cluster's "
        "total worker threads — for a local cluster (--workers), at most this machine's cores — (except for work that stays in this process: the exact output laws of choose).")
    add_cluster_arguments(group)


def cluster_threads(client) -> int:
    """Worker threads of the cluster of ``client`` (all workers), 1 without one: the long-work
    estimate of an ε study is divided by it (its blocks of words run in parallel, one per thread)."""
    if client is None:
        return 1
    return max(1, sum(client.nthreads().values()))


def machine_cores() -> int:
    """The cores this process may run on (`privlib.core.threads.available_cores`; a name of its own
    here so that tests can pretend to another machine)."""
    from privlib.core.threads import available_cores

    return available_cores()


class StudyCluster(contextlib.AbstractContextManager):
    """The cluster of an ε study's ``--scheduler`` / ``--workers``, for a ``with`` block whose
    ``threads`` (what the long-work estimate is divided by, `cluster_threads`) is known before any
    work: a scheduler is connected to on entering (an unreachable one fails before the embedding
    loads), while the local cluster of ``--workers N`` (N processes of `LOCAL_THREADS_PER_WORKER`
    threads, `open_client`) starts at the first `client` call only, after the estimate was
    accepted, so that a refused run starts no process. Without either: in this process."""

    def __init__(self, args: argparse.Namespace):
        self.workers = args.workers
        self.scheduler = args.scheduler
        self.stack = contextlib.ExitStack()
        self.started = None
        # a local cluster's processes share this machine's cores: more workers than cores run no faster
        self.threads = 1 if self.workers is None else min(self.workers * LOCAL_THREADS_PER_WORKER, machine_cores())

    def __enter__(self) -> StudyCluster:
        if self.scheduler is not None:
            self.started = self.stack.enter_context(open_client(self.scheduler, self.workers))
            self.threads = cluster_threads(self.started)
        return self

    def client(self):
        """The ``dask.distributed.Client`` (starting the local cluster on the first call), or None."""
        if self.started is None and self.workers is not None:
            self.started = self.stack.enter_context(open_client(None, self.workers))
        return self.started

    def __exit__(self, *exc_info):
        return self.stack.__exit__(*exc_info)


# ---------------------------------------------------------------------------------------------
# the files a command writes


def same_file(a, b) -> bool:
    """True when the paths ``a`` and ``b`` name one file (the same path after links and ``..``,
    or the same file through a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def check_output_path(option: str, path: str, inputs=()) -> Path:
    """The path of a file a command will write (``option`` names it in messages), checked before
    any work: not one of ``inputs`` (it would replace an input), not a folder, a name the file
    system takes, in an existing folder. ValueError otherwise."""
    label = shown(path)
    for source in inputs:
        if source is not None and source != "-" and same_file(path, source):
            raise ValueError(f"{option} {label} is an input of this command: writing it would replace the input; "
                             "give another file name.")
    target = Path(path)
    try:
        if len(target.name.encode()) > 255:
            raise ValueError(f"Cannot write {option} {label}: the file name is longer than 255 bytes.")
        if target.is_dir() or not target.name:
            raise ValueError(f"Cannot write {option} {label}: it is a folder; give a file name.")
        if not target.resolve().parent.is_dir():
            raise ValueError(f"Cannot write {option} {label}: its folder does not exist.")
    except OSError as exc:
        raise ValueError(f"Cannot write {option} {label}: {exc.strerror or type(exc).__name__}.") from None
    return target


def write_file(option: str, target: Path, text: str) -> None:
    """``text`` into ``target``, through a hidden temporary file beside it renamed at the end: an
    interrupted or failed write leaves neither a partial file nor a damaged former one."""
    temporary = target.with_name(f".{target.name[:200]}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    try:
        try:
            with open(temporary, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(temporary, target)
        except OSError as exc:
            raise ValueError(f"Cannot write {option} {shown(str(target))}: {exc.strerror or type(exc).__name__}.") from None
    finally:
        temporary.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# ranks


def add_ranks_arguments(parser) -> None:
    parser.add_argument("--word", required=True)
    add_epsilon_argument(parser)
    parser.add_argument("--samples", type=whole_number, default=2000)
    parser.add_argument("--top", type=whole_number_at_least(1), default=10,
                        help="how many of the most frequent outputs to list (at least 1)")
    add_word_arguments(parser)
    add_allow_long_flag(parser)


def run_ranks(args) -> dict:
    """Where one word's outputs land among its neighbours (`rank_experiment`)."""
    mechanism = mechanism_of(args)
    space = space_of(args)
    seconds = rank_experiment_seconds(space, args.word, args.epsilon, args.samples, mechanism)
    result = rank_experiment(space, args.word, args.epsilon, args.samples, mechanism, args.close,
                             rng=args.seed, top=args.top, progress=long_work(args, "ranks", seconds, "--samples"))
    return result.to_dict()


def print_ranks(args, result: dict) -> None:
    p = result["proportions"]
    print(f"{result['word']!r} at epsilon {result['epsilon']:g} ({result['mechanism']}, "
          f"{'exact output probabilities' if result.get('exact') else str(result['samples']) + ' samples'})")
    print(f"  original {p['original']:.3f}   close (1..{result['close']}) {p['close']:.3f}   distant {p['distant']:.3f}")
    for row in result["top"]:
        amount = f"count {row['count']:>6}" if "count" in row else f"prob {row['probability']:.4f}"
        print(f"  {row['word']:<20} rank {row['rank']:>7}  {amount}  cos {row['cosine']:.3f}")


# ---------------------------------------------------------------------------------------------
# sweep


def add_sweep_arguments(parser) -> None:
    # the repetitions of the sweep are its words: each word drawn is one repetition
    add_repeats_argument(parser, default=200, help="words drawn uniformly from the vocabulary, one repetition each",
                         aliases=("--words",))
    add_epsilons_argument(parser, default="1:30")
    add_word_arguments(parser)
    add_allow_long_flag(parser)
    add_study_cluster_arguments(parser)


def run_sweep(args) -> dict:
    """Proportions original / close / distant against epsilon (`epsilon_sweep`, paper Fig. 2), in
    this process or on the cluster of ``--scheduler`` / ``--workers`` (same numbers)."""
    mechanism = mechanism_of(args)
    epsilons = args.epsilons
    with StudyCluster(args) as cluster:  # an unreachable scheduler: before loading
        space = space_of(args)
        seconds = epsilon_sweep_seconds(space, epsilons, args.repeats, mechanism) / cluster.threads
        progress = long_work(args, "sweep", seconds, "--words (--repeats) or --epsilons")
        return epsilon_sweep(space, epsilons, args.repeats, mechanism, args.close, rng=args.seed,
                             progress=progress, client=cluster.client()).to_dict()


def print_sweep(args, result: dict) -> None:
    print(f"{'epsilon':>8} {'original':>9} {'close':>9} {'distant':>9}   ({result['words']} words)")
    p = result["proportions"]
    for i, eps in enumerate(result["epsilons"]):
        print(f"{eps:>8g} {p['original'][i]:>9.3f} {p['close'][i]:>9.3f} {p['distant'][i]:>9.3f}")


# ---------------------------------------------------------------------------------------------
# dot


def add_dot_arguments(parser) -> None:
    parser.add_argument("--n", type=whole_number, required=True, help="dimension of the embedding")
    add_epsilon_argument(parser)
    parser.add_argument("--at", default="0,0.5,1,2", help="comma-separated points z (default 0,0.5,1,2)")


def run_dot(args) -> dict:
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
        "two_sided_tail": np.atleast_1d(np.minimum(1.0, 2 * law.sf(t))).tolist(),
        "interval_99_half_width": float(law.isf(0.005)),
        "bounds": {
            "thm8": np.atleast_1d(thm8_tail_bound(args.n, args.epsilon, t)).tolist(),
            "chebyshev": np.atleast_1d(chebyshev_tail_bound(args.n, args.epsilon, t)).tolist(),
            "chernoff": np.atleast_1d(chernoff_tail_bound(args.n, args.epsilon, t)).tolist(),
            "thm8_99_half_width": {"half_width": half.half_width, "c1": half.c1, "c2": half.c2},
        },
    }


def print_dot(args, result: dict) -> None:
    print(f"Z = <eta, e>, n = {result['n']}, epsilon = {result['epsilon']:g}: Var Z = {result['var']:.6g}, "
          f"99% of Z within ±{result['interval_99_half_width']:.4g} (Thm 8 guarantees "
          f"±{result['bounds']['thm8_99_half_width']['half_width']:.4g})")
    print(f"{'z':>10} {'pdf':>12} {'cdf':>12} {'sf':>12} {'P(|Z|>|z|)':>12} {'Chernoff':>10} {'Thm 8':>10}")
    for i, z in enumerate(result["at"]):
        print(f"{z:>10g} {result['pdf'][i]:>12.6g} {result['cdf'][i]:>12.6g} {result['sf'][i]:>12.6g} "
              f"{result['two_sided_tail'][i]:>12.6g} {result['bounds']['chernoff'][i]:>10.4g} "
              f"{result['bounds']['thm8'][i]:>10.4g}")


# ---------------------------------------------------------------------------------------------
# sanitize


def policy_help(policies: dict, default: str) -> str:
    """The help of a policy option, read from the library's policy table (argparse-escaped)."""
    text = "; ".join(f"{name}{' (default)' if name == default else ''}: {meaning}"
                     for name, meaning in policies.items())
    return text.replace("%", "%%")


def add_policy_arguments(parser) -> None:
    """``--oov``, ``--case``, ``--numbers``, ``--keep-stop-words``: the `SanitisePolicy`, with the
    help read from the library's policy tables (the options of ``sanitize``)."""
    defaults = SanitisePolicy()
    parser.add_argument("--oov", choices=tuple(OOV_POLICIES), default=defaults.oov,
                        help="tokens not in the vocabulary (words, numbers, e-mail addresses, URLs): "
                             + policy_help(OOV_POLICIES, defaults.oov))
    parser.add_argument("--case", choices=tuple(CASE_POLICIES), default=defaults.case,
                        help=policy_help(CASE_POLICIES, defaults.case))
    parser.add_argument("--numbers", choices=tuple(NUMBER_POLICIES), default=defaults.numbers,
                        help=policy_help(NUMBER_POLICIES, defaults.numbers))
    parser.add_argument("--keep-stop-words", action="store_true",
                        help="leave stop words (privlib/words/data/stopwords_en.txt, and clitics such as n't "
                             "and 's) untouched: no budget, no protection")


def policy_of(args) -> SanitisePolicy:
    """The `SanitisePolicy` of the options of `add_policy_arguments`."""
    return SanitisePolicy(case=args.case, oov=args.oov, keep_stop_words=args.keep_stop_words, numbers=args.numbers)


def add_sanitize_arguments(parser) -> None:
    parser.add_argument("text", nargs="?", help="the text to sanitise (or use -i FILE)")
    parser.add_argument("-i", "--input", metavar="FILE",
                        help="read documents from FILE, one per line ('-' = standard input); output keeps their order")
    add_epsilon_argument(parser, help="privacy parameter per token (smaller = more privacy); a text of m sanitised "
                                      "tokens spends m·epsilon")
    add_policy_arguments(parser)
    parser.add_argument("--sanitise-numbers", dest="numbers", action="store_const", const="sanitise",
                        help=argparse.SUPPRESS)  # the former switch: now the default, same as --numbers sanitise
    parser.add_argument("--progress", action="store_true",
                        help="show a progress bar on stderr even when not a terminal")
    add_word_arguments(parser, seed=None, compare=sanitise_page.MAX_MECHANISMS)
    parser.add_argument("--draw", type=whole_number_at_least(0), default=0, metavar="N",
                        help="with --mechanisms: the page's Resample count (each draw is a fresh random stream from "
                             "--seed; default 0)")
    add_allow_long_flag(parser)
    goes_with(parser, "draw", "mechanisms")  # a settings file's resample count is of its comparison


def settings_file_values(args) -> dict:
    """The settings read from ``--settings FILE`` (`privlib.cli.settings`), or {} without one."""
    return getattr(args, SETTINGS_FILE_VALUES, None) or {}


def read_documents(args) -> list[str]:
    """The text argument as one document, or the lines of ``--input`` ('-' = standard input). A settings
    file's text is the text argument's default: a text or ``-i`` given on the command line wins."""
    text = args.text
    file_text = settings_file_values(args).get("text")
    if args.input is not None and file_text is not None and text == file_text:
        text = None
    if (text is None) == (args.input is None):
        if text is None and getattr(args, "settings", None):
            raise ValueError("Give a text to sanitise, or -i FILE (one document per line): the settings file holds no "
                             "text (the page includes it only when you tick its box).")
        raise ValueError("Give exactly one of: a text to sanitise, or -i FILE (one document per line).")
    if args.input is None:
        return [text]
    if args.input != "-":
        try:
            found = os.path.exists(args.input)  # a pipe (-i <(command)) or device is read as a file
        except (OSError, ValueError):
            found = False
        if not found or os.path.isdir(args.input):
            problem = "it is a folder" if found else "no such file"
            raise ValueError(f"Cannot read {path_text(args.input)}: {problem}. Give UTF-8 text, one document per line.")
    return document_lines(read_text(args.input, "Give UTF-8 text, one document per line."))


def document_lines(text: str) -> list[str]:
    """The documents of ``text``, one per line: split at \\n only (a \\r before it dropped), never at
    the other characters ``str.splitlines`` breaks at (\\x0b, \\x0c, \\x1c-\\x1e, \\x85, \\u2028,
    \\u2029, a lone \\r), so that output line k is input document k; a last line without \\n counts."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def compared_mechanisms(args) -> list:
    """The mechanisms of ``--mechanisms`` in order, each with its parameters: ``--param NAME.KEY=VALUE`` given
    here, else the settings file's "NAME.KEY", else the parameter's default."""
    names = args.mechanisms
    typed = param_items(args.param)
    for key in typed:
        name = key.split(".", 1)[0]
        if "." not in key or name not in names:
            raise ValueError(f"With --mechanisms, name each parameter's mechanism, one of {', '.join(names)}: "
                             f"--param NAME.KEY=VALUE (e.g. {names[0]}.KEY=VALUE), got {shown(key)}.")
    found = settings_file_values(args)
    chosen = []
    for name in names:
        params = {key.split(".", 1)[1]: value for key, value in found.items() if key.startswith(f"{name}.")}
        params.update({key.split(".", 1)[1]: value for key, value in typed.items() if key.startswith(f"{name}.")})
        chosen.append(checked_mechanism(name, params))
    return chosen


def run_sanitize(args) -> dict:
    """Sanitise the text argument or the documents of ``--input``; returns the results (the
    text output is the sanitised text, one document per line). With ``--mechanisms``, each mechanism
    sanitises the documents as the Sanitise text page does (`run_compared`)."""
    if args.mechanisms is not None:
        return run_compared(args)
    if args.draw:
        raise ValueError("--draw counts the page's resamples of --mechanisms: with --mechanism, change --seed instead.")
    mechanism = mechanism_of(args)
    documents = read_documents(args)
    policy = policy_of(args)
    space = space_of(args)
    words = sum(len(document.split()) for document in documents)
    seconds = sanitize_seconds(space, words, args.epsilon, mechanism)
    progress = long_work(args, "sanitize", seconds, "the input (fewer or shorter documents)")
    if progress is None and (args.progress or (args.input is not None and sys.stderr.isatty())):
        progress = terminal_progress(True)
    results = sanitize_many(documents, mechanism, args.epsilon, space, args.seed, policy,
                            progress=progress, batch_words=5_000)
    check_budgets(results, args.epsilon)
    return {"documents": [r.to_dict(args.close) for r in results], "inline": args.input is None}


def run_compared(args) -> dict:
    """``sanitize --mechanisms A,B,…``: mechanism k sanitises the documents with the random stream of
    `privlib.analyses.sanitise_text.column_rng` (seed, draw, k), as column k of the Sanitise text page, so a
    text with the page's settings (``--settings FILE``) gives the page's numbers
    (`privlib.analyses.sanitise_text.numbers`). Without a seed, a fresh one (reported)."""
    mechanisms = compared_mechanisms(args)
    documents = read_documents(args)
    policy = policy_of(args)
    space = space_of(args)
    seed = fresh_seed(args.seed)
    words = sum(len(document.split()) for document in documents)
    seconds = sum(sanitize_seconds(space, words, args.epsilon, mechanism) for mechanism in mechanisms)
    progress = long_work(args, "sanitize", seconds, "the input (fewer or shorter documents) or --mechanisms")
    if progress is None and (args.progress or (args.input is not None and sys.stderr.isatty())):
        progress = terminal_progress(True)
    columns = []
    for slot, mechanism in enumerate(mechanisms):
        share = None if progress is None else (
            lambda fraction, message, slot=slot: progress((slot + fraction) / len(mechanisms), message))
        results = sanitize_many(documents, mechanism, args.epsilon, space, sanitise_page.column_rng(seed, args.draw, slot),
                                policy, progress=share, batch_words=5_000)
        check_budgets(results, args.epsilon)
        columns.append(results)
    rows = [[column[d] for column in columns] for d in range(len(documents))]  # per document, one per mechanism
    return {"compared": [{"seed": seed, "draw": args.draw, "close": args.close,
                          "results": [r.to_dict(args.close) for r in row],
                          "numbers": sanitise_page.numbers(row, args.close)} for row in rows],
            "inline": args.input is None}


def check_budgets(results, epsilon: float) -> None:
    """ValueError when a document's budget m·epsilon is not a finite number (epsilon so large that
    m tokens overflow a float): never an Infinity in the output."""
    for number, result in enumerate(results, start=1):
        if not np.isfinite(result.budget):
            raise ValueError(f"Document {number:,}: {result.sanitised_tokens:,} sanitised tokens at epsilon {epsilon:g} "
                             "per token spend more than the largest number a float holds: use a smaller epsilon.")


def print_sanitised_text(args, result: dict) -> None:
    """The sanitised documents, one per line. With ``--mechanisms``, per document: one line per mechanism
    (``name → sanitised text``), then the page's numbers (``name: value``), a blank line between documents."""
    if "compared" not in result:
        for doc in result["documents"]:
            sys.stdout.write(doc["sanitised"] + "\n")
        return
    for number, doc in enumerate(result["compared"]):
        lines = [f"{r['mechanism']} → {r['sanitised']}" for r in doc["results"]]
        lines += [f"{name}: {value!r}" for name, value in doc["numbers"].items()]  # as privlib.analyses.code.print_numbers
        sys.stdout.write("\n" * (number > 0) + "\n".join(lines) + "\n")


def print_sanitised_json(args, result: dict) -> None:
    """One object for a text argument, JSON Lines (one object per document, in input order) for
    ``-i FILE``."""
    documents = result.get("compared", result.get("documents"))
    for doc in documents[:1] if result["inline"] else documents:
        write_json(doc, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# table2


def add_table2_arguments(parser) -> None:
    parser.add_argument("--words", type=whole_number, default=5000,
                        help="words drawn uniformly from the vocabulary (default 5000)")
    parser.add_argument("--far", type=whole_number, default=101, help="rank of the far neighbour (default 101, as the paper)")
    parser.add_argument("--per-word", action="store_true", help="add each word's neighbours and values (JSON)")
    add_space_arguments(parser)
    add_seed_argument(parser, default=0, help="random seed of the word sample (default 0)")
    add_allow_long_flag(parser)
    add_study_cluster_arguments(parser)


def run_table2(args) -> dict:
    """Table 2 (paper §6): means of z_w_x1, z_x1_x2, z_x1_x<far> over random words, their standard
    errors, the published row when the embedding is one of the paper's, and the per-word values
    with --per-word."""
    rng = as_generator(args.seed)  # validates the seed before the embedding is loaded
    with StudyCluster(args) as cluster:
        space = space_of(args)
        seconds = neighbour_distances_seconds(space, args.words, far=args.far) / cluster.threads
        progress = long_work(args, "table2", seconds, "--words")
        table = neighbour_distances(space, args.words, far=args.far, rng=rng, progress=progress,
                                    client=cluster.client())
    result = table.to_dict(per_word=args.per_word)
    result["seed"] = args.seed
    published = published_table2(space) if args.far == 101 else None
    if published is not None:
        result["published"] = {source: dict(zip(table.names, published[source])) for source in ("paper", "artifact")}
    return result


def print_table2(args, result: dict) -> None:
    names = list(result["standard_errors"])
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


# ---------------------------------------------------------------------------------------------
# choose


def add_choose_arguments(parser) -> None:
    parser.add_argument("--words-file", metavar="FILE", default=None,
                        help="your words: one per line, or any text ('-' = standard input)")
    parser.add_argument("--words", type=whole_number, default=50,
                        help="without --words-file: N words drawn uniformly from the vocabulary (default 50)")
    parser.add_argument("--epsilons", default="1:30", help="start:stop[:step] or a comma list (default 1:30)")
    parser.add_argument("--samples", type=whole_number, default=100, help="runs per word and epsilon (default 100)")
    parser.add_argument("--target-close", type=float, default=0.6,
                        help="utility target: fraction of outputs unchanged or within the K nearest (default 0.6)")
    parser.add_argument("--max-keep", type=float, default=0.5,
                        help="privacy floor: no word kept unchanged more than this fraction of the time "
                             "(default 0.5)")
    parser.add_argument("--keep-statistic", choices=tuple(KEEP_STATISTICS), default=Targets.keep_statistic,
                        help="the floor applies to every word (max, default) or to the average (mean)")
    parser.add_argument("--sentence-length", type=whole_number, default=DEFAULT_SENTENCE_LENGTH,
                        help="words per sentence for the composed budget L·epsilon "
                             f"(default {DEFAULT_SENTENCE_LENGTH})")
    parser.add_argument("--report", metavar="OUT.html", default=None, help="also write a self-contained HTML report")
    attack = parser.add_argument_group(
        "attack target", "Also attack each mechanism over the grid (exact Bayes re-identification for SanText, SanText+, "
        "TEM and CusText; a sampled attack, a lower bound on the best attacker, for the others) and answer the largest "
        "epsilon that keeps it under the target. Runs only with --attack-target.")
    attack.add_argument("--attack-target", type=float, default=None, metavar="FRACTION",
                        help="the attacker names the original word at most this share of the time (e.g. 0.2), or "
                             "with --attack-measure above-prior at most this many points above the prior (0.05 = 5)")
    attack.add_argument("--attack-measure", choices=tuple(m.replace("_", "-") for m in ATTACK_MEASURES),
                        default="success", help="success (default) or above-prior")
    attack.add_argument("--attack-candidates", type=whole_number, default=AttackSettings.candidates, metavar="N",
                        help=f"the N most frequent words the secret is drawn from (default {AttackSettings.candidates:,})")
    attack.add_argument("--attack-prior", choices=PRIORS, default=AttackSettings.prior,
                        help="the secret's prior over the candidates: uniform (default) or zipf (a frequency proxy)")
    attack.add_argument("--attack-samples", type=whole_number, default=AttackSettings.samples_per_word, metavar="M",
                        help="sampled attack: fitting outputs per candidate "
                             f"(default {AttackSettings.samples_per_word})")
    attack.add_argument("--attack-runs", type=whole_number, default=None, metavar="RUNS",
                        help="sampled attack: fresh scoring runs per epsilon (default: candidates x samples, at least "
                             f"{DEFAULT_RUNS:,})")
    add_word_arguments(parser, compare=choose_page.MAX_MECHANISMS)
    add_allow_long_flag(parser)
    add_study_cluster_arguments(parser)
    read_by_command(parser, "source", "text")  # a settings file's words: its pasted text (`run_choose`)


def read_words_text(args) -> str | None:
    """The text of ``--words-file`` ('-' = standard input), or None without it."""
    if args.words_file is None:
        return None
    if args.words_file != "-":
        try:
            found = os.path.exists(args.words_file)
        except (OSError, ValueError):
            found = False
        if not found or os.path.isdir(args.words_file):
            raise ValueError(f"Cannot read {path_text(args.words_file)}: {'it is a folder' if found else 'no such file'}. "
                             "Give UTF-8 text (one word per line, or any text).")
    return read_text(args.words_file, "Give UTF-8 text (one word per line, or any text).")


def run_choose(args) -> dict:
    """Choose epsilon (privlib.words.choice): metrics over the grid, the inverse answers and,
    with --report, a self-contained HTML report. Unknown words are reported on stderr."""
    mechanisms = compared_mechanisms(args) if args.mechanisms else [mechanism_of(args)]
    epsilons = epsilon_grid(args.epsilons)  # argument errors before the embedding is loaded
    targets = Targets(utility=args.target_close, max_keep=args.max_keep, keep_statistic=args.keep_statistic,
                      attack=args.attack_target, attack_measure=args.attack_measure.replace("-", "_"))
    attack = None if args.attack_target is None else AttackSettings(
        args.attack_candidates, args.attack_prior, args.attack_samples, args.attack_runs)
    report = None if args.report is None else check_output_path("--report", args.report, [args.words_file])
    text = read_words_text(args)
    page = settings_file_values(args)  # a settings file of the page's: its words' source and (when included) text
    if text is None and page.get("source") in (choose_page.TEXT, choose_page.FILE) and args.words_file is None:
        text = page.get("text")
        if text is None:
            raise ValueError("The settings file's words are a text it does not hold (the page includes it only when "
                             "you tick its box): give --words-file FILE.")
    seed = fresh_seed(args.seed)
    with StudyCluster(args) as cluster:
        space = space_of(args)
        if text is not None:
            source = "pasted text" if args.words_file is None else f"words of {os.path.basename(args.words_file)}"
            words = WordSet.from_text(text, space, source=source)
            if words.unknown:  # counted, never quoted: the file's words may be private
                print(f"note: {len(words.unknown):,} distinct word(s) of the "
                      f"{'text' if args.words_file is None else 'file'} not in the vocabulary, left out.",
                      file=sys.stderr)
        else:
            words = WordSet.random(space, args.words, seed)
        seconds = sum(choose_epsilon_seconds(space, words, epsilons, [m], args.samples, args.close)
                      # exact output laws are computed in this process
                      / (1 if m.has_exact_probabilities else cluster.threads) for m in mechanisms)
        if attack is not None:  # the attack runs in this process; an impossible target is refused before
            targets.check_attack(attack.candidates_of(space).prior_baseline)
            seconds += sum(attack_metrics_seconds(space, m, epsilons, attack, min(args.close, len(space) - 1))
                           for m in mechanisms)
        progress = long_work(args, "choose", seconds, "--words (or the words file), --epsilons or --samples"
                             + ("" if attack is None else ", --attack-candidates or --attack-samples"))
        choice = choose_epsilon(space, words, epsilons, mechanisms, args.samples, args.close, targets,
                                args.sentence_length, seed, progress, client=cluster.client(), attack=attack,
                                allow_long=True)  # the estimate above was refused or allowed
    result = choice.to_dict()
    if report is not None:
        page = choice_report(choice, created=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
        write_file("--report", report, page)
        result["report"] = args.report
    return result


def print_choose(args, result: dict) -> None:
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
        if m["attack"] is not None:
            a = m["attack"]
            print(f"attack ({a['attacker']}): " + ", ".join(
                f"epsilon {e:g}: {s:.1%}" + ("" if a["exact"] else f" ±{2 * se:.1%}")
                for e, s, se in zip(result["epsilons"], a["success"], a["standard_errors"]))
                + f"; prior alone {a['prior_baseline']:.2%}")
        print(m["answer"]["message"])
        print(m["summary"])
    if "report" in result:
        print(f"\nreport: {result['report']}")


# ---------------------------------------------------------------------------------------------
# mechanisms


def add_mechanisms_arguments(parser) -> None:
    """No options but ``--json``."""


def run_mechanisms(args) -> dict:
    return {"mechanisms": describe_mechanisms()}


def print_mechanisms(args, result: dict) -> None:
    for m in result["mechanisms"]:
        params = ", ".join(f"{k}={v['default']!r}" for k, v in m["parameters"].items())
        print(f"{m['name']}: {m['label']} [{params}]\n  {m['guarantee']}")


# ---------------------------------------------------------------------------------------------
# word-attack


def parse_target(text: str) -> float:
    """argparse ``type`` of ``--target``: an attack success in [0, 1]."""
    from privlib.core.validation import check_probability

    return checked_number("target", lambda value: check_probability(value, "target (the attack success you accept)"))(text)


def add_word_attack_arguments(parser) -> None:
    add_epsilon_argument(parser)
    parser.add_argument("--candidates", type=whole_number, default=None,
                        help="the N most frequent words the secret is drawn from (default 2000, or the whole "
                             "vocabulary when smaller)")
    parser.add_argument("--prior", choices=PRIORS, default="uniform",
                        help="the prior over the candidates: uniform, or zipf (1/rank, a proxy for word "
                             "frequencies); default uniform")
    parser.add_argument("--samples-per-word", type=whole_number, default=DEFAULT_SAMPLES_PER_WORD,
                        help="outputs per candidate that fit the sampled attack (mechanisms without an exact "
                             f"output law; default {DEFAULT_SAMPLES_PER_WORD})")
    parser.add_argument("--runs", type=whole_number, default=None,
                        help="fresh runs that score the sampled attack (default: candidates x samples per word, "
                             f"at least {DEFAULT_RUNS:,})")
    add_epsilons_argument(parser, help=EPSILONS_HELP + "; also success against each epsilon with its bound "
                                                      "(default with --target: 0.5,1,2,3,5,7,10,15,20,30)")
    parser.add_argument("--target", type=parse_target, default=None,
                        help="the attack success you accept, in [0, 1]: the largest epsilon of the grid that "
                             "keeps the attack under it (by the bound and by the attack)")
    add_word_arguments(parser)
    add_allow_long_flag(parser)


def run_word_attack(args) -> dict:
    """What an attacker learns from a sanitised word (privlib.words.attacks): the Bayes (exact) or
    sampled re-identification at --epsilon with guess-the-output, the prior baseline and the bound
    (`attacker_view`, the Neighbour ranks page's call); with --epsilons or --target, success against
    epsilon (`attack_curve`) and the largest epsilon under --target (`largest_epsilon_under`)."""
    from privlib.words.attacks import (
        VIEW_EPSILONS,
        attack_curve,
        attack_seconds,
        attacker_view,
        largest_epsilon_under,
    )

    mechanism = mechanism_of(args)
    grid = args.epsilons if args.epsilons is not None else (np.array(VIEW_EPSILONS) if args.target is not None else None)
    space = space_of(args)
    options = {"candidates": args.candidates, "prior": args.prior, "samples_per_word": args.samples_per_word,
               "runs": args.runs, "close": args.close}
    seconds = attack_seconds(space, mechanism, [args.epsilon], **options)
    if grid is not None:
        seconds += attack_seconds(space, mechanism, grid, **options)
    progress = long_work(args, "word-attack", seconds, "--candidates, --samples-per-word, --runs or --epsilons")
    share = 1.0 if grid is None else 1.0 / (1.0 + len(grid))

    def part(start: float, width: float):
        if progress is None:
            return None
        return lambda fraction, message: progress(start + width * fraction, message)

    view = attacker_view(space, mechanism, args.epsilon, seed=args.seed, progress=part(0.0, share), **options)
    result = {"view": view.to_dict(), "sentence": view.sentence, "seed": args.seed, "curve": None, "target": None}
    if grid is not None:
        curve = attack_curve(space, mechanism, grid, seed=args.seed, progress=part(share, 1.0 - share), **options)
        result["curve"] = curve.to_dict()
        if args.target is not None:
            result["target"] = largest_epsilon_under(curve, args.target).to_dict()
    return result


def print_word_attack(args, result: dict) -> None:
    view = result["view"]
    print(result["sentence"])
    curve = result["curve"]
    if curve is not None:
        sampled = not curve["exact"][0]
        print(f"\n{'epsilon':>8} {'attack':>9} {'± 2 SE' if sampled else '':>8} {'bound':>8} {'close':>7}"
              f"   (prior baseline {curve['prior_baseline']:.4f})")
        for j, eps in enumerate(curve["epsilons"]):
            bound = curve["bound"][j]
            se = f"{2 * curve['success_se'][0][j]:>8.4f}" if sampled else f"{'':>8}"
            print(f"{eps:>8g} {curve['success'][0][j]:>9.4f} {se} "
                  f"{'none' if bound is None else f'{bound:.4f}':>8} {curve['close'][0][j]:>7.3f}")
    if result["target"] is not None:
        print("\n" + result["target"]["sentence"])
    print(f"\n({view['label']}, seed {result['seed']}; 'close': share of outputs that are a close neighbour, "
          "the utility)")


# ---------------------------------------------------------------------------------------------

#: The word-level commands, in the order ``--help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("ranks", "where one word's outputs land among its neighbours",
            add_ranks_arguments, run_ranks, print_ranks),
    Command("sweep", "proportions original/close/distant against epsilon (paper Fig. 2)",
            add_sweep_arguments, run_sweep, print_sweep),
    Command("dot", "exact law of the noisy dot product Z = <eta, e> and its tail bounds",
            add_dot_arguments, run_dot, print_dot),
    Command("sanitize", "sanitise text word by word (one document per line with -i)",
            add_sanitize_arguments, run_sanitize, print_sanitised_text, print_json=print_sanitised_json,
            description="Sanitise text word by word. The input is only read: results go to stdout, "
                        "progress to stderr, and nothing is written anywhere else."),
    Command("table2", "neighbour distances of random words (paper Table 2): z_w_x1, z_x1_x2, z_x1_x101",
            add_table2_arguments, run_table2, print_table2),
    Command("choose", "choose epsilon: privacy and utility on your words over an epsilon grid, "
                      "and the range that meets your targets",
            add_choose_arguments, run_choose, print_choose),
    Command("mechanisms", "list the mechanisms, their parameters and guarantees",
            add_mechanisms_arguments, run_mechanisms, print_mechanisms),
    Command("word-attack", "what an attacker learns from a sanitised word: re-identification among the most "
                           "frequent words (exact Bayes or sampled), guessing the output, the prior and the bound",
            add_word_attack_arguments, run_word_attack, print_word_attack),
)
