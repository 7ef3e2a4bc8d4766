"""What every topic's commands share: the `Command` record, one-line errors (exit code 2), the
``--json`` output, progress on stderr, refusing work estimated above about a minute
(``--allow-long``), ``--epsilon`` / ``--seed`` / ``key=value`` parsing and quiet broken pipes.

Nothing here knows a topic: a topic's module (``privlib.cli.words``, …) builds its commands from
these pieces, and ``privlib.cli`` runs them.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privlib.core.validation import (
    LONG_WORK_SECONDS,
    LONG_WORK_VARIABLE,
    check_delta,
    check_epsilon,
    duration,
    environment_number,
    long_work_limit,
    parse_epsilon_grid,
    refuse_long_work,
    shown,
)

#: Exit code of bad input (an argument argparse rejects, or a ValueError of a command's run).
EXIT_USAGE = 2

EPSILON_HELP = "privacy parameter (smaller = more privacy)"
EPSILONS_HELP = "epsilon grid: start:stop[:step] (stop included) or a comma list, e.g. 1:30 or 0.5,1,2"
DELTA_HELP = "delta of (epsilon, delta)-DP: the probability the epsilon guarantee fails; use much less than 1/n"
JSON_HELP = "print JSON on stdout"


#: The longest error message argparse's own errors may print (they quote a wrong value in full).
MAX_MESSAGE_CHARS = 240


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2), as the rest of the CLI: line breaks in a quoted
    value are escaped and a message is cut at `MAX_MESSAGE_CHARS` characters."""

    def error(self, message):
        line = message.replace("\r", "\\r").replace("\n", "\\n")
        if len(line) > MAX_MESSAGE_CHARS:
            line = line[:MAX_MESSAGE_CHARS] + "…"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {line}\n")


@dataclass(frozen=True)
class Command:
    """One subcommand: its name and help line, how it adds its arguments to its parser, how it
    runs (``run(args) -> dict``, the JSON result; ValueError = bad input) and how it prints the
    result as text (``print_text(args, result)``).

    ``print_json(args, result)`` replaces the default JSON output (the result as one JSON value)
    and ``description`` the help line at the top of ``COMMAND --help``.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], dict]
    print_text: Callable[[argparse.Namespace, dict], None]
    print_json: Callable[[argparse.Namespace, dict], None] | None = None
    description: str | None = None

    def print_result(self, args: argparse.Namespace, result: dict) -> None:
        """The result on stdout: JSON with ``--json``, else text."""
        if not args.json:
            self.print_text(args, result)
        elif self.print_json is not None:
            self.print_json(args, result)
        else:
            write_json(result)


def usage_error(exc: Exception) -> int:
    """Report bad input as one line on stderr; the exit code to return (``EXIT_USAGE``)."""
    print(f"error: {exc}", file=sys.stderr)
    return EXIT_USAGE


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the command's result as JSON on stdout."""
    parser.add_argument("--json", action="store_true", help=JSON_HELP)


def json_default(value):
    """``json.dump``'s ``default``: numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def strict_json(result, ensure_ascii: bool = True) -> str:
    """``result`` as strict JSON text (RFC 8259: no NaN or Infinity); ValueError, said in one line,
    when it holds a number that is not finite — a bug or an input beyond what can be represented,
    never something to print as ``NaN``/``Infinity`` that other programs cannot read."""
    try:
        return json.dumps(result, default=json_default, ensure_ascii=ensure_ascii, allow_nan=False)
    except ValueError:
        raise ValueError("The result holds a number too large or undefined to write as JSON (NaN or infinity): "
                         "use smaller or less extreme values.") from None


def write_json(result, ensure_ascii: bool = True) -> None:
    """One strict JSON value (`strict_json`) and a newline on stdout."""
    text = strict_json(result, ensure_ascii)
    sys.stdout.write(text + "\n")


@contextlib.contextmanager
def quiet_broken_pipe():
    """Write stdout inside this block; if the reader goes away (e.g. piped into ``head``), stop
    quietly, as Unix tools do."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stays open: the interpreter flushes it at exit)


def clock(seconds: float) -> str:
    """m:ss, or h:mm:ss from an hour on."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """``progress(fraction, message)`` for the library's long computations, on stderr (stdout stays
    parseable): on a terminal a bar redrawn in place at most `REDRAWS_PER_SECOND` times a second,
    elsewhere (a log, a pipe) a plain line every `LINE_SECONDS`; both with the percentage and the
    time left, from the pace so far (before any progress: from ``estimate``, in seconds), and
    once done the time taken. The first call, and the first at 100 %, are always shown."""

    REDRAWS_PER_SECOND = 4
    LINE_SECONDS = 10.0
    WIDTH = 30

    def __init__(self, estimate: float | None = None, terminal: bool | None = None, stream=None, timer=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.estimate = estimate
        self.timer = timer
        self.start = timer()
        self.shown = None  # when the last update was written (None: never)
        self.done = False

    def left(self, fraction: float, elapsed: float) -> str:
        if fraction >= 1:
            return f"took {clock(elapsed)}"
        if fraction > 0 and elapsed >= 1:
            return f"{clock(elapsed * (1 - fraction) / fraction)} left"
        if self.estimate is not None:
            return f"~{clock(max(self.estimate - elapsed, 0))} left"
        return "time left ?"

    def __call__(self, fraction: float, message: str) -> None:
        if self.done:
            return
        fraction = min(max(float(fraction), 0.0), 1.0)
        now = self.timer()
        gap = 1 / self.REDRAWS_PER_SECOND if self.terminal else self.LINE_SECONDS
        if fraction < 1 and self.shown is not None and now - self.shown < gap:
            return
        self.shown, self.done = now, fraction >= 1
        status = f"{fraction:6.1%} {self.left(fraction, now - self.start):>15}  {message[:50]}"
        if self.terminal:
            filled = round(self.WIDTH * fraction)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {status:<75}" + ("\n" if self.done else ""))
        else:
            self.stream.write(f"progress {status}\n")
        self.stream.flush()


def terminal_progress(show: bool | None = None, estimate: float | None = None):
    """A `Progress` when ``show`` is true, or (``show`` = None) when stderr is a terminal; else
    None. ``estimate``: the work's estimated seconds, for the time left before any progress."""
    if show is None:
        show = sys.stderr.isatty()
    return Progress(estimate) if show else None


# ---------------------------------------------------------------------------------------------
# work that takes long: estimate, refuse or show progress

# The limit (LONG_WORK_SECONDS, LONG_WORK_VARIABLE, long_work_limit) lives in core.validation: the library refuses too.
#: Off a terminal, progress lines are written for work estimated to take at least this long
#: (or longer than the limit, when the limit is lower), so quick commands keep stderr empty.
QUIET_SECONDS = 10.0


def add_allow_long_flag(parser: argparse.ArgumentParser) -> None:
    """``--allow-long``: run work estimated to take longer than about a minute."""
    parser.add_argument("--allow-long", action="store_true",
                        help=f"run even when the estimate is above {LONG_WORK_SECONDS:g} s (the limit: "
                             f"{LONG_WORK_VARIABLE}); progress goes to stderr")


def long_work(args: argparse.Namespace, name: str, seconds: float, reduce: str):
    """Before work estimated at ``seconds``: refuse it (ValueError, so one line and exit code 2)
    when that is above the limit (`long_work_limit`) and ``--allow-long`` was not given; else the
    `Progress` to hand to the library, which has shown the estimate — on a terminal always,
    elsewhere for work of at least `QUIET_SECONDS` (or above the limit) — or None. ``reduce``: the
    options that make the work smaller."""
    refuse_long_work(seconds, args.allow_long, name, f"reduce {reduce}", allow="--allow-long")
    limit = long_work_limit()
    progress = terminal_progress(sys.stderr.isatty() or seconds >= min(QUIET_SECONDS, limit), estimate=seconds)
    if progress is not None:
        progress(0.0, f"{name}: about {duration(seconds)} (estimate)")
    return progress


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """``--scheduler`` / ``--workers``: run on a Dask cluster (`privlib.words.cluster.open_client`);
    neither: in this process, as without Dask."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                       help="run the work on the Dask cluster whose scheduler listens there")
    group.add_argument("--workers", type=positive_int, metavar="N", default=None,
                       help="run the work on a local Dask cluster of N worker processes")


def checked_number(name: str, check: Callable[[float], float]):
    """argparse ``type`` of a number that the core validator ``check`` accepts (its message when it
    does not; a short one, naming at most 40 characters of the text, when it is no number)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {shown(text)}") from None
        try:
            return check(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name  # what argparse names the type in its messages
    return parse


#: argparse ``type`` of ``--epsilon``: a finite number > 0 (`check_epsilon`).
parse_epsilon = checked_number("epsilon", check_epsilon)


def positive_int(text: str) -> int:
    """argparse ``type`` of a count that must be a whole number >= 1 (e.g. ``--top``)."""
    return whole_number_at_least(1)(text)


def path_text(path) -> str:
    """A file's name for a message: quoted with its control characters escaped (one line), cut to
    80 characters (`shown`)."""
    return shown(str(path), limit=80)


def read_text(source: str, hint: str) -> str:
    """The text of the file ``source``, or of standard input for '-', decoded the same way for
    both: strict UTF-8, a leading byte-order mark dropped. ValueError naming the file (or
    standard input) and where the first invalid byte is — never quoting the text — then ``hint``."""
    name = "standard input" if source == "-" else source
    try:
        if source == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # already text (a replaced sys.stdin)
                return sys.stdin.read().removeprefix("\ufeff")
            data = stream.read()
        else:
            with open(source, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise ValueError(f"Cannot read {name}: {exc.strerror or type(exc).__name__}. {hint}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"Cannot read {name}: it is not UTF-8 text (invalid byte at line {line:,}, byte {exc.start + 1:,}). {hint}"
        ) from None
    return text.removeprefix("\ufeff")


def add_epsilon_argument(parser: argparse.ArgumentParser, help: str = EPSILON_HELP) -> None:
    """The required ``--epsilon``, checked while parsing."""
    parser.add_argument("--epsilon", type=parse_epsilon, required=True, help=help)


def add_seed_argument(parser: argparse.ArgumentParser, default: int | None = None,
                      help: str = "random seed (default: fresh OS entropy)") -> None:
    """``--seed N`` (a whole number >= 0); with the default None every run draws fresh OS entropy."""
    parser.add_argument("--seed", type=whole_number_at_least(0), default=default, help=help)


def fresh_seed(seed: int | None) -> int:
    """The seed itself, or (None) one drawn from fresh OS entropy, for results that report the
    seed they used so that a run can be repeated."""
    return seed if seed is not None else int(np.random.default_rng().integers(2**31))


def parse_value(text: str):
    """A parameter value: an int, else a float, else the text itself."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_params(items) -> dict:
    """``key=value`` strings (e.g. repeated ``--param``) as a dict; ValueError without an ``=``."""
    params = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--param takes key=value, got {shown(item)}.")
        params[key.strip()] = parse_value(value.strip())
    return params


# ---------------------------------------------------------------------------------------------
# the flags every topic's sweeps share: --epsilons, --delta, --repeats, --seed

#: argparse ``type`` of ``--delta``: a number with 0 < δ < 1 (`check_delta`).
parse_delta = checked_number("delta", check_delta)


def add_delta_argument(parser: argparse.ArgumentParser, default: float | None = 1e-6, help: str = DELTA_HELP) -> None:
    """``--delta``, checked while parsing; required when ``default`` is None."""
    parser.add_argument("--delta", type=parse_delta, required=default is None, default=default,
                        help=help + (f" (default {default:g})" if default is not None else ""))


class EpsilonGrid(argparse.Action):
    """``--epsilons``: one grid syntax for every topic (`privlib.core.validation.parse_epsilon_grid`:
    ``1:30``, ``0.5:10:0.5`` or ``0.5,1,2``); several words (``--epsilons 1 10``, the private-learning
    commands' older form) are read as one comma list. Stores a float64 array."""

    def __call__(self, parser, namespace, values, option_string=None):
        words = [values] if isinstance(values, str) else list(values)
        text = words[0] if len(words) == 1 else ",".join(words)
        try:
            grid = parse_epsilon_grid(text)
        except ValueError as exc:
            parser.error(f"argument {option_string}: {str(exc)[:200]}")
        setattr(namespace, self.dest, grid)


def add_epsilons_argument(parser: argparse.ArgumentParser, default: str | None = None, help: str = EPSILONS_HELP) -> None:
    """``--epsilons GRID`` (`EpsilonGrid`); ``default``: a grid in the same syntax, or None (absent)."""
    parser.add_argument("--epsilons", action=EpsilonGrid, nargs="+", metavar="GRID",
                        default=None if default is None else parse_epsilon_grid(default),
                        help=help + (f" (default {default})" if default is not None else ""))


def add_repeats_argument(parser: argparse.ArgumentParser, default: int, help: str = "repetitions of every cell",
                         aliases: tuple[str, ...] = ()) -> None:
    """``--repeats N`` (a whole number >= 1); ``aliases``: a topic's older names of the same flag
    (``--reps``, ``--trials``, ``--seeds``), kept so that recorded commands still run."""
    parser.add_argument("--repeats", *aliases, dest="repeats", type=positive_int, default=default,
                        help=f"{help} (default {default})")


# ---------------------------------------------------------------------------------------------
# option types: numbers and choices read with a short message (at most 40 characters of the text
# are repeated); the library checks the ranges

#: The largest whole number an option takes: 2^53, the largest count float64 holds exactly (the
#: closed forms compute in float64; a 401-digit count would overflow them).
LARGEST_WHOLE = 2**53


def whole_number(text: str) -> int:
    """argparse ``type`` of a whole-number option: an int of at most `LARGEST_WHOLE` in size."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
    if abs(value) > LARGEST_WHOLE:
        raise argparse.ArgumentTypeError(f"{shown(text)} is too large: at most {LARGEST_WHOLE:,} (2^53)")
    return value


def whole_number_at_least(minimum: int):
    """argparse ``type`` of a whole-number option of at least ``minimum`` (and at most
    `LARGEST_WHOLE`), with `whole_number`'s short messages."""

    def parse(text: str) -> int:
        value = whole_number(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}, got {shown(text)}")
        return value

    parse.__name__ = "whole number"  # what argparse names the type in its messages
    return parse


def real_number(text: str) -> float:
    """argparse ``type`` of a real-number option: a finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {shown(text)}")
    return value


def one_of(names):
    """argparse ``type`` of an option with ``choices=names``: the text when it is one of them, else
    a short message (argparse's own repeats the whole text)."""
    names = tuple(names)

    def parse(text: str) -> str:
        if text not in names:
            raise argparse.ArgumentTypeError(f"invalid choice {shown(text)} (choose from {', '.join(names)})")
        return text

    return parse


# ---------------------------------------------------------------------------------------------
# Memory: a command refuses work whose arrays would not fit, before building them.

#: The environment variable that replaces the memory available (bytes), e.g. for tests.
MEMORY_VARIABLE = "PRIVLIB_AVAILABLE_MEMORY_BYTES"
#: The share of the available memory a command may plan to use (the rest: the interpreter,
#: temporaries the estimate leaves out, other programs).
MEMORY_SHARE = 0.5


def available_memory() -> float:
    """Bytes of memory available now: `MEMORY_VARIABLE` when set, else MemAvailable of
    /proc/meminfo, else the physical memory (os.sysconf); inf when none can be read."""
    value = environment_number(MEMORY_VARIABLE, "bytes", allow_infinity=True)
    if value is not None:
        return value
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:,.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:,.0f} MiB"


def check_memory(name: str, nbytes: float, reduce: str) -> None:
    """Refuse (ValueError, so one line and exit 2) work whose arrays need more than `MEMORY_SHARE`
    of the available memory (`available_memory`); ``--allow-long`` does not lift this."""
    limit = MEMORY_SHARE * available_memory()
    if nbytes > limit:
        raise ValueError(f"{name} would need about {gib(nbytes)} of memory (estimate; {gib(limit)} can be used "
                         f"here): reduce {reduce}.")


# ---------------------------------------------------------------------------------------------
# interruption (Ctrl-C, SIGTERM, SIGHUP): every command ends with one line and no partial file

#: Exit code of a command stopped by a signal: 128 + the signal's number (130 for Ctrl-C), as shells report it.
SIGNAL_EXIT_BASE = 128


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by the handler of SIGTERM / SIGHUP (`stop_on_signals`): a
    KeyboardInterrupt, so every ``finally`` and ``except BaseException`` cleanup runs (the
    corpus's temporary file is removed) and the command ends as on Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def stop_on_signals():
    """Within the block, SIGTERM and SIGHUP raise `Stopped` (as Ctrl-C raises KeyboardInterrupt)
    instead of ending the process at once, which would skip the cleanup of files being written.
    A signal the process was started to ignore stays ignored (``nohup`` keeps a command running
    after a hang-up). The former handlers are put back after. Only in the main thread (the only one
    Python lets set handlers); elsewhere the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Stopped(signum)

    saved = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
            saved[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, former in saved.items():
            signal.signal(number, former)


def stopped(exc: KeyboardInterrupt) -> int:
    """Say on stderr, in one line, that the command was stopped (Ctrl-C, SIGTERM, SIGHUP) — its own
    cleanup (``finally`` blocks: temporary files removed) has run by then — and return the exit
    code 128 + the signal's number (Ctrl-C: 130), as shells report it."""
    signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
    name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    print(f"error: stopped by {name}; nothing was written.", file=sys.stderr)
    return SIGNAL_EXIT_BASE + signum


def refuse_empty_values(args: argparse.Namespace) -> None:
    """Refuse an option given as ``--option=--``: argparse (3.11) then stores an empty list and skips
    the option's type, so the value would reach the command unchecked."""
    for key, value in vars(args).items():
        if isinstance(value, list) and not value:
            raise ValueError(f"--{key.replace('_', '-')} needs a value.")
