"""``--settings FILE``: a settings file downloaded from a page of the app (its *Take this analysis
home* section) gives the defaults of that page's command; options typed on the command line win.

The file's settings whose names are options of the command are used (each passes through the
option's own type check, as if typed); the others — the page's view-only controls, e.g. its sample
count for the charts — are listed in one note on stderr. A file of another page's is refused with
the command it belongs to.
"""
from __future__ import annotations

import argparse
import sys

from privlib.analyses import PAGES, analysis
from privlib.analyses.settings import MAX_FILE_BYTES, read_settings_file
from privlib.cli.common import path_text

SETTINGS_OPTION = "--settings"
SETTINGS_HELP = ("a settings file downloaded from the app's page for this command (Take this analysis home): its "
                 "settings are this command's defaults; options given here win")


def page_commands() -> dict[str, str]:
    """The commands that take a page's settings file: command name → the page's name."""
    found = {}
    for page in PAGES:
        command = analysis(page).SETTINGS.command
        if command:
            found[command] = page
    return found


def add_settings_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(SETTINGS_OPTION, metavar="FILE", help=SETTINGS_HELP)


def settings_path(argv) -> str | None:
    """The ``--settings`` file named in ``argv`` (before parsing: the file fills required options)."""
    for i, token in enumerate(argv):
        if token == SETTINGS_OPTION and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith(SETTINGS_OPTION + "="):
            return token.split("=", 1)[1]
    return None


def read_file(path: str) -> bytes:
    """The file's bytes; ValueError (one line) when it cannot be read or is too large to be a settings file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"Cannot read {SETTINGS_OPTION} {path_text(path)}: {exc.strerror or type(exc).__name__}.") \
            from None
    return data


def apply_settings_file(path: str, command: str, parser: argparse.ArgumentParser) -> list[str]:
    """Make the settings of the file at ``path`` the defaults of ``command``'s ``parser`` (a required option
    that the file gives is no longer required). Returns the names of the file's settings the command does
    not take. ValueError for a file that cannot be used, naming what to do."""
    data = read_file(path)
    try:
        page, values = read_settings_file(data)
    except ValueError as exc:
        raise ValueError(f"{SETTINGS_OPTION} {path_text(path)}: {exc}") from None
    pages = page_commands()
    if pages.get(command) != page:
        owner = analysis(page).SETTINGS.command if page in PAGES else None
        where = f"use it with `{owner}`" if owner else "load it on its page in the app"
        raise ValueError(f"{SETTINGS_OPTION} {path_text(path)} holds the settings of the page {page!r}: {where}.")
    checked, problems = analysis(page).SETTINGS.read(values, "settings file")
    if problems:
        raise ValueError(f"{SETTINGS_OPTION} {path_text(path)}: {problems[0]}")
    settings = analysis(page).SETTINGS
    actions = {action.dest: action for action in parser._actions}  # argparse has no public list of its actions
    unused = []
    for name, value in checked.items():
        action = actions.get(name)
        if action is None or value is None:
            unused.append(name)
            continue
        if action.nargs == 0:  # a flag: store_true / store_false
            action.default = bool(value)
        elif action.nargs in ("+", "*"):  # a list option (--n 300 1000): argparse converts no list default
            items = value if isinstance(value, (list, tuple)) else [value]
            convert = action.type or str
            try:
                action.default = [convert(settings.by_name[name].to_text(item) if not isinstance(item, str) else item)
                                  for item in items]
            except (argparse.ArgumentTypeError, ValueError) as exc:
                raise ValueError(f"{SETTINGS_OPTION} {path_text(path)}: {name}: {exc}") from None
        else:
            action.default = settings.by_name[name].to_text(value)  # parsed by the option's own type
        action.required = False
        for group in parser._mutually_exclusive_groups:  # e.g. retrain's --epsilon | --epsilons: the file gives one
            if action in group._group_actions:
                group.required = False
    mechanism, param = checked.get("mechanism"), actions.get("param")
    if param is not None and mechanism is not None:  # the settings "<mechanism>.<p>" → --param p=value
        chosen = [name for name in checked if name.startswith(f"{mechanism}.")]
        param.default = [f"{name.split('.', 1)[1]}={settings.by_name[name].to_text(checked[name])}" for name in chosen]
        unused = [name for name in unused if name not in chosen]
    return unused


def note_unused(command: str, unused) -> None:
    if unused:
        print(f"note: the settings file's {', '.join(unused)} are not options of {command} (used by its page only).",
              file=sys.stderr)
