"""``--settings FILE``: a settings file downloaded from a page of the app (its *Take this analysis
home* section) gives the defaults of that page's command; options typed on the command line win.

The file's settings whose names are options of the command are used (each passes through the
option's own type check, as if typed); the others — the page's view-only controls, e.g. its sample
count for the charts — are listed in one note on stderr. A word page's ``embedding`` is ``--embeddings``
(its file's name, read from the working directory; the built-in vectors: no option); the chosen mechanism's
parameters "<mechanism>.<p>" are ``--param p=VALUE``, and the compared mechanisms' (``--mechanisms``) are read by
the command from the file's settings (`SETTINGS_FILE_VALUES`). A file of another page's is refused with the
command it belongs to.

An option typed on the command line wins: over the file's value of the same option (argparse), and over the file's
values of its mutually exclusive rivals (a typed ``--epsilon`` drops a μ file's ``mu``; `overridden`), with the
settings a command declares to go with them (bounds: the file's δ goes with its ε, `goes_with`). The note names only
the settings with a value, a group "<prefix>.…" as one phrase, in one line of at most `MAX_NOTE_CHARS` characters.
"""
from __future__ import annotations

import argparse
import sys

from privlib.analyses import PAGES, analysis
from privlib.analyses.embedding import BUILT_IN
from privlib.analyses.settings import MAX_FILE_BYTES, read_settings_file
from privlib.cli.common import MAX_MESSAGE_CHARS, path_text
from privlib.core.validation import shown

SETTINGS_OPTION = "--settings"
#: Where a command finds every setting read from the file (name → value): ``getattr(args, SETTINGS_FILE_VALUES)``,
#: e.g. the settings that are no option of its own (sanitize: the compared mechanisms' parameters).
SETTINGS_FILE_VALUES = "settings_file_values"
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


#: A command parser's attribute: the settings file's settings that go with one option of a mutually exclusive group
#: (setting → option; `goes_with`).
GOES_WITH = "settings_file_goes_with"
#: A command parser's attribute: the file's settings the command reads itself (`SETTINGS_FILE_VALUES`), not options.
READ_BY_COMMAND = "settings_file_read_by_command"


def goes_with(parser: argparse.ArgumentParser, setting: str, option: str) -> None:
    """Declare that the settings file's ``setting`` goes with its ``option`` (a member of a mutually exclusive
    group): when the user types a rival of ``option``, the file's ``setting`` is not applied either (bounds: the
    file's δ goes with its ε, not with a typed ``--mu``)."""
    setattr(parser, GOES_WITH, {**getattr(parser, GOES_WITH, {}), setting: option})


def read_by_command(parser: argparse.ArgumentParser, *settings: str) -> None:
    """Declare that the command reads the file's ``settings`` itself (from `SETTINGS_FILE_VALUES`): the note on the
    settings it does not take leaves them out (choose: the page's word source)."""
    setattr(parser, READ_BY_COMMAND, (*getattr(parser, READ_BY_COMMAND, ()), *settings))


def typed_actions(parser: argparse.ArgumentParser, tokens) -> set:
    """The actions of ``parser`` that the command line's ``tokens`` name, as argparse reads them: an option string,
    "--option=value", a unique prefix of a long option (argparse's abbreviations) or a short option with its
    value attached ("-ifile"); nothing after "--"."""
    options = parser._option_string_actions  # argparse has no public table of its option strings
    found = set()
    for token in tokens:
        if token == "--":
            break
        if not isinstance(token, str) or not token.startswith("-") or token == "-":
            continue
        name = token.split("=", 1)[0]
        action = options.get(name)
        if action is None and name.startswith("--"):
            matches = {a for option, a in options.items() if option.startswith(name)}
            action = matches.pop() if len(matches) == 1 else None
        if action is None and not name.startswith("--"):
            action = options.get(token[:2])
        if action is not None:
            found.add(action)
    return found


def overridden(parser: argparse.ArgumentParser, typed: set, applied) -> list[str]:
    """The settings of ``applied`` (the file's settings made defaults: name → (action, former default)) that the
    typed options override without naming them: a setting whose option shares a mutually exclusive group with a
    typed option, and a setting that `goes_with` such a one's option (a typed option itself wins by argparse)."""
    actions = {action.dest: action for action, _ in applied.values()}
    for action in parser._actions:
        actions.setdefault(action.dest, action)

    def rival_typed(dest: str) -> bool:
        action = actions.get(dest)
        return any(action in group._group_actions and any(a in typed for a in group._group_actions if a is not action)
                   for group in parser._mutually_exclusive_groups)

    pairs = getattr(parser, GOES_WITH, {})
    return [name for name, (action, _) in applied.items() if action not in typed
            and (rival_typed(name) or (name in pairs and actions.get(pairs[name]) not in typed
                                       and rival_typed(pairs[name])))]


def read_file(path: str) -> bytes:
    """The file's bytes; ValueError (one line) when it cannot be read or is too large to be a settings file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"Cannot read {SETTINGS_OPTION} {path_text(path)}: {exc.strerror or type(exc).__name__}.") \
            from None
    return data


def apply_settings_file(path: str, command: str, parser: argparse.ArgumentParser, typed=()) -> list[str]:
    """Make the settings of the file at ``path`` the defaults of ``command``'s ``parser`` (a required option
    that the file gives is no longer required; an empty setting is none). ``typed``: the command line's tokens
    after the command's name; they win, also over the file's values of their rivals (`overridden`).
    Returns the file's settings with a value that the command does not take, as the note names them
    (`summarised`). ValueError for a file that cannot be used, naming what to do."""
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
    settings = analysis(page).SETTINGS
    checked, problems = settings.read(values, "settings file")
    if problems:
        raise ValueError(first_problem(path, settings, values))
    actions = {}
    for action in parser._actions:  # argparse has no public list of its actions
        # the first of a dest: its default is the one argparse uses (sanitize's hidden --sanitise-numbers shares
        # --numbers' dest)
        actions.setdefault(action.dest, action)
    unused, applied = [], {}
    for name, value in checked.items():
        action = actions.get(name)
        if value is None or value == "" or value == ():  # an empty setting (a μ file's ε): nothing to apply or name
            continue
        if action is None:
            unused.append(name)
            continue
        applied[name] = (action, action.default)
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
    if "mechanisms" in checked and "mechanisms" in actions:
        # a page that compares mechanisms (sanitize): the command reads the chosen ones' parameters "<mechanism>.<p>"
        # from the file's settings; the others' are not the page's view either (not named in the note)
        names = set(settings.by_name["mechanisms"].choices)
        unused = [name for name in unused if name.split(".", 1)[0] not in names or "." not in name]
    embedding = checked.get("embedding")
    if embedding is not None and "embeddings" in actions and "embedding" in unused:
        # a word page's vectors: the built-in ones (no option), or a file's name (read from the working directory, as
        # the exported script does)
        if embedding != BUILT_IN:
            actions["embeddings"].default = embedding
        unused.remove("embedding")
    parser.set_defaults(**{SETTINGS_FILE_VALUES: checked})
    for name in overridden(parser, typed_actions(parser, typed), applied):  # the typed rival wins
        action, default = applied[name]
        action.default = default
    read_by_command = getattr(parser, READ_BY_COMMAND, ())
    mechanisms = {choice for name in ("mechanism", "mechanisms") if name in settings.by_name
                  for choice in settings.by_name[name].choices}
    changed = {name for name in unused if checked[name] != settings.by_name[name].default}
    return summarised([name for name in unused if name not in read_by_command], mechanisms, changed)


def first_problem(path: str, settings, values) -> str:
    """The first setting of the file's ``values`` that ``settings`` (a `PageSettings`) cannot use, said in one
    line of at most `MAX_MESSAGE_CHARS` characters (a page's "choices" rule lists every mechanism; the command
    uses no default instead, it stops)."""
    problem = "a setting cannot be used."
    for name, value in values.items():
        setting = settings.by_name.get(name)
        if setting is None:
            problem = f"{shown(name)} is not a setting of {settings.title}."
            break
        try:
            setting.parse(value)
        except ValueError as exc:
            problem = str(exc)
            break
    line = f"{SETTINGS_OPTION} {path_text(path)}: {problem}"
    return line if len(line) <= MAX_MESSAGE_CHARS else line[:MAX_MESSAGE_CHARS - 1] + "…"


def summarised(names, mechanisms=(), changed=()) -> list[str]:
    """``names`` as the note says them: first the plain names, then one phrase per group of settings
    "<prefix>.<name>" — "the <prefix>'s settings" (What ε means: its ~60 "audit.…" settings are "the audit's
    settings") — and last the parameters of ``mechanisms`` the command does not run, by name, those ``changed`` from
    their defaults first (the ones the user set; `unused_note` cuts the rest)."""
    plain = [name for name in names if "." not in name]
    params = [name for name in names if "." in name and name.split(".", 1)[0] in mechanisms]
    params = [name for name in params if name in changed] + [name for name in params if name not in changed]
    groups = []
    for name in names:
        if "." in name and name not in params and f"the {name.split('.', 1)[0]}'s settings" not in groups:
            groups.append(f"the {name.split('.', 1)[0]}'s settings")
    return plain + groups + params


#: The longest note on the settings the command does not take (one short line).
MAX_NOTE_CHARS = MAX_MESSAGE_CHARS


def unused_note(command: str, unused) -> str | None:
    """One line naming the settings file's settings that ``command`` does not take (``unused``, as `summarised`
    gives them), cut at `MAX_NOTE_CHARS` characters with "… and N more"; None when there are none."""
    if not unused:
        return None
    items = list(unused)
    for shown_count in range(len(items), 0, -1):
        rest = len(items) - shown_count
        listed = ", ".join(items[:shown_count]) + (f" … and {rest} more" if rest else "")
        line = f"note: the settings file's {listed} are not options of {command} (used by its page only)."
        if len(line) <= MAX_NOTE_CHARS:
            return line
    return f"note: {len(items)} of the settings file's settings are not options of {command} (used by its page only)."


def note_unused(command: str, unused) -> None:
    line = unused_note(command, unused)
    if line:
        print(line, file=sys.stderr)
