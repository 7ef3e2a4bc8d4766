"""What every topic's commands share: the `Command` record, one-line errors (exit code 2), the
``--json`` output, progress on stderr, ``--epsilon`` / ``--seed`` / ``key=value`` parsing and quiet
broken pipes.

Nothing here knows a topic: a topic's module (``privlib.cli.words``, …) builds its commands from
these pieces, and ``privlib.cli`` runs them.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privlib.core.validation import check_epsilon

#: Exit code of bad input (an argument argparse rejects, or a ValueError of a command's run).
EXIT_USAGE = 2

EPSILON_HELP = "privacy parameter (smaller = more privacy)"
JSON_HELP = "print JSON on stdout"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2), as the rest of the CLI."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


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


def write_json(result, ensure_ascii: bool = True) -> None:
    """One JSON value and a newline on stdout."""
    json.dump(result, sys.stdout, default=json_default, ensure_ascii=ensure_ascii)
    sys.stdout.write("\n")


@contextlib.contextmanager
def quiet_broken_pipe():
    """Write stdout inside this block; if the reader goes away (e.g. piped into ``head``), stop
    quietly, as Unix tools do."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stays open: the interpreter flushes it at exit)


def progress(fraction: float, message: str) -> None:
    """A progress bar on stderr (stdout stays parseable)."""
    width = 30
    filled = round(width * fraction)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {fraction:6.1%} {message[:50]:<50}")
    if fraction >= 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def terminal_progress(show: bool | None = None):
    """`progress` when ``show`` is true, or (``show`` = None) when stderr is a terminal; else None."""
    if show is None:
        show = sys.stderr.isatty()
    return progress if show else None


def parse_epsilon(text: str) -> float:
    """argparse ``type`` of ``--epsilon``: a finite number > 0 (`check_epsilon`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"epsilon must be a number, got {text!r}") from None
    try:
        return check_epsilon(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """argparse ``type`` of a count that must be a whole number >= 1 (e.g. ``--top``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text[:40]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {value}")
    return value


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
    """``--seed N``; with the default None every run draws fresh OS entropy."""
    parser.add_argument("--seed", type=int, default=default, help=help)


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
            raise ValueError(f"--param takes key=value, got {item!r}.")
        params[key.strip()] = parse_value(value.strip())
    return params
