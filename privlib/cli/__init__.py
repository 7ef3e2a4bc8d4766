"""The command line: ``python -m privlib COMMAND … [--json]``.

Each topic module (``privlib.cli.words``, …) declares its commands in a ``COMMANDS`` tuple of
`Command` records; `TOPIC_COMMANDS` puts them together in one table, and `main` runs the command
the parser selected (the parser stores the `Command` itself, so nothing dispatches on its name).
Adding a topic is one line in `TOPIC_COMMANDS`.

Every command gets ``--json``; bad input exits with code 2 and one line on stderr; Ctrl-C, SIGTERM
and SIGHUP end a command with one line and exit code 128 + the signal's number, after its cleanup
(no partial file); progress goes to stderr so stdout stays parseable.
"""
from __future__ import annotations

import argparse
import sys

from privlib.cli import audit, corpus, erm, label_dp, projections, risk, words
from privlib.cli.common import (
    EXIT_USAGE,
    Command,
    Parser,
    add_json_flag,
    quiet_broken_pipe,
    refuse_empty_values,
    stop_on_signals,
    stopped,
    usage_error,
)
from privlib.cli.settings import add_settings_option, apply_settings_file, note_unused, page_commands, settings_path

#: Each topic's commands, in the order ``--help`` lists them. A new topic adds its module here.
TOPIC_COMMANDS: tuple[tuple[Command, ...], ...] = (
    words.COMMANDS,
    corpus.COMMANDS,
    projections.COMMANDS,
    label_dp.COMMANDS,
    erm.COMMANDS,
    risk.COMMANDS,
    audit.COMMANDS,
)


def commands() -> tuple[Command, ...]:
    """The table of every command, from `TOPIC_COMMANDS` (names must be distinct)."""
    table = tuple(command for topic in TOPIC_COMMANDS for command in topic)
    names = [command.name for command in table]
    if len(set(names)) != len(names):
        raise RuntimeError(f"Two commands share a name: {names}.")
    return table


#: The command's name in help and error messages (the ``epsilon-lab`` command passes its own).
PROG = "python -m privlib"


def build_parser(prog: str = PROG, epilog: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command in the table; ``args.command`` is the selected `Command`.
    ``prog`` names the command in help and errors; ``epilog`` ends the top-level help."""
    parser = Parser(prog=prog, description="Epsilon Lab: differential privacy experiments (word-level text, random projections, label DP, private learning).", epilog=epilog)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    with_settings = page_commands()
    parser.command_parsers = {}
    for command in commands():
        p = sub.add_parser(command.name, help=command.help, description=command.description)
        command.add_arguments(p)
        add_json_flag(p)
        if command.name in with_settings:
            add_settings_option(p)
        p.set_defaults(command=command)  # replaces the name the subparsers action stores
        parser.command_parsers[command.name] = p
    return parser


def main(argv=None, prog: str = PROG, epilog: str | None = None) -> int:
    """Run ``python -m privlib`` with ``argv`` (default: ``sys.argv[1:]``); the exit code.
    ``prog`` and ``epilog``: as in `build_parser`."""
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(prog, epilog)
        unused = []
        if argv and argv[0] in parser.command_parsers and settings_path(argv[1:]) is not None:
            if argv[0] not in page_commands():
                raise ValueError(f"{argv[0]} takes no --settings file (the commands that do: "
                                 f"{', '.join(sorted(page_commands()))}).")
            unused = apply_settings_file(settings_path(argv[1:]), argv[0], parser.command_parsers[argv[0]], argv[1:])
        args = parser.parse_args(argv)
        note_unused(argv[0], unused)
        command: Command = args.command
        refuse_empty_values(args)
        with stop_on_signals():  # SIGTERM and SIGHUP end the command as Ctrl-C does: cleanup runs
            result = command.run(args)
            with quiet_broken_pipe():
                command.print_result(args, result)  # strict JSON: a non-finite number is a ValueError
    except ValueError as exc:
        return usage_error(exc)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: one line, exit 128 + the signal
        return stopped(exc)
    return 0


__all__ = ["EXIT_USAGE", "PROG", "TOPIC_COMMANDS", "Command", "build_parser", "commands", "main"]
