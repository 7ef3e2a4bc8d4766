"""A page's settings as data: declared once, read back from a shared link or a settings file.

Each analysis (`privlib.analyses.<page>`) declares its settings as a `PageSettings`: one `Setting`
per control of the page (its name is the URL's query parameter, the settings file's key and, where
the page's command has the same option, the command line's option). The same declaration reads a
link (`from_query`, every value a string), writes one (`to_query`), writes the settings file
(`to_json`) and reads it back (`from_json`). A value that cannot be used is never fatal when it
comes from a link or a file: it is named in a short problem ("the link's epsilon = 'abc' was
ignored: …"), never repeated in full, and the default is used instead — the word pages' rule for
links since issue 16.

The file format (version 1)::

    {"epsilon_lab_settings": 1, "page": "noisy_dot_product", "settings": {"epsilon": 5.0, ...}}
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from privlib.core.validation import shown

#: The settings file's format version (the value of its `FORMAT_KEY`).
FORMAT_VERSION = 1
#: The key that marks a JSON object as an Epsilon Lab settings file.
FORMAT_KEY = "epsilon_lab_settings"
#: The largest settings file read (bytes): a settings file is a few hundred bytes.
MAX_FILE_BYTES = 64 * 1024
#: The kinds of value a setting holds.
KINDS = ("float", "int", "bool", "choice", "text", "floats", "choices")


@dataclass(frozen=True)
class Setting:
    """One control of a page. ``kind``: "float" or "int" (within ``low``..``high``, inclusive),
    "bool", "choice" (one of ``choices``), "text" (at most ``max_chars``; "" allowed), "floats" (a
    comma-separated list of numbers in a link), "choices" (several of ``choices``, in order, at most
    ``high`` of them; comma-separated in a link). ``optional``: None is a valid value (written as an
    empty string in a link, null in a file). ``private``: what the user typed (a text to sanitise):
    never written into a link (links end up in browser histories and server logs) and written into a
    settings file only when the user asks (`PageSettings.to_json`'s ``include_private``). ``label`` and
    ``help``: for people (the page's widget label, the settings table of a report)."""

    name: str
    default: Any
    kind: str
    label: str = ""
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    optional: bool = False
    max_chars: int = 10_000
    private: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Setting {self.name!r}: kind must be one of {', '.join(KINDS)}, got {shown(self.kind)}.")
        if self.kind in ("choice", "choices") and not self.choices:
            raise ValueError(f"Setting {self.name!r}: a choice needs its choices.")
        if not (self.optional and self.default is None):
            object.__setattr__(self, "default", self.parse(self.default))

    def rule(self) -> str:
        """What a valid value is, in words (the end of a problem's sentence)."""
        span = ("" if self.low is None and self.high is None else
                f" from {self.low:g}" if self.high is None else
                f" up to {self.high:g}" if self.low is None else f" from {self.low:g} to {self.high:g}")
        rule = {"float": f"a number{span}", "int": f"a whole number{span}", "bool": "true or false",
                "choice": "one of " + ", ".join(str(c) for c in self.choices),
                "text": f"a text of at most {self.max_chars:,} characters",
                "floats": f"a comma-separated list of numbers{span}",
                "choices": (f"a comma-separated list of at most {self.high:g} of " if self.high else
                            "a comma-separated list of ") + ", ".join(str(c) for c in self.choices)}[self.kind]
        return rule + (" (or empty: none)" if self.optional else "")

    def parse(self, value):
        """``value`` (from a file: its JSON value; from a link: a string) as this setting's value,
        or ValueError saying what a valid value is."""
        if value is None or (self.optional and value == ""):
            if self.optional:
                return None
            raise ValueError(f"{self.name} needs a value: {self.rule()}.")
        try:
            parsed = self._parse(value)
        except (TypeError, ValueError, OverflowError):
            parsed = None
        if parsed is None:
            raise ValueError(f"{self.name} = {shown(value)} is not {self.rule()}.")
        return parsed

    def _parse(self, value):
        kind = self.kind
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            return {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(text)
        if kind == "choice":
            for choice in self.choices:  # a link carries the text of a number choice: match either
                if value == choice or (isinstance(value, str) and value == _text(choice)):
                    return choice
            return None
        if kind == "text":
            return value if isinstance(value, str) and len(value) <= self.max_chars else None
        if kind == "choices":
            items = [item.strip() for item in value.split(",")] if isinstance(value, str) else list(value)
            chosen = tuple(item for item in items if item in self.choices)
            too_many = self.high is not None and len(chosen) > self.high
            return None if len(chosen) != len(items) or len(set(chosen)) != len(chosen) or too_many else chosen
        if kind == "floats":
            items = value.split(",") if isinstance(value, str) else list(value)
            numbers = [self._number(item, float) for item in items if str(item).strip()]
            return tuple(numbers) if numbers and None not in numbers else None
        return self._number(value, float if kind == "float" else int)

    def _number(self, value, cast):
        if isinstance(value, bool) or (isinstance(value, str) and len(value) > 400):
            return None
        if cast is int:
            number = int(value) if not isinstance(value, str) else int(value.strip())
            if isinstance(value, float) and value != number:
                return None
        else:
            number = float(value)
            if not math.isfinite(number):
                return None
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            return None
        return number

    def to_text(self, value) -> str:
        """``value`` as a link's query parameter (`parse` reads it back unchanged)."""
        if value is None:
            return ""
        if self.kind in ("floats", "choices"):
            return ",".join(_text(v) for v in value)
        return _text(value)


def _text(value) -> str:
    """A value as text that reads back to the same value: ``repr`` for a float (shortest round trip)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


@dataclass(frozen=True)
class PageSettings:
    """The settings of one page: ``page`` (its file name, e.g. "noisy_dot_product"), ``title``,
    ``settings`` (one `Setting` per control, in the page's order) and ``command`` (the CLI command that
    takes the same settings file with ``--settings``, or None)."""

    page: str
    title: str
    settings: tuple[Setting, ...]
    command: str | None = None
    by_name: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        names = [s.name for s in self.settings]
        if len(set(names)) != len(names):
            raise ValueError(f"Two settings of {self.page} share a name: {names}.")
        object.__setattr__(self, "by_name", {s.name: s for s in self.settings})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.by_name)

    def defaults(self) -> dict:
        """Every setting's default."""
        return {s.name: s.default for s in self.settings}

    def check(self, values: Mapping) -> dict:
        """``values`` completed with the defaults and checked: ValueError naming the first setting that is
        unknown or invalid (a library caller's mistake, e.g. in `script`)."""
        unknown = [name for name in values if name not in self.by_name]
        if unknown:
            raise ValueError(f"{self.title} has no setting {shown(unknown[0])}; its settings are "
                             f"{', '.join(self.names)}.")
        return {s.name: (s.parse(values[s.name]) if s.name in values else s.default) for s in self.settings}

    def read(self, values: Mapping, source: str = "link") -> tuple[dict, list[str]]:
        """The settings in ``values`` (only those present; from a link or a file, see ``source``) and the
        problems found: an unknown name or an invalid value is left out and named, never fatal."""
        found, problems = {}, []
        for name, value in values.items():
            setting = self.by_name.get(name)
            if setting is None:
                problems.append(f"The {source}'s {shown(name)} is not a setting of {self.title}: ignored.")
                continue
            try:
                found[name] = setting.parse(value)
            except ValueError:
                problems.append(f"The {source}'s {name} = {shown(value)} was ignored: {name} is {setting.rule()}. "
                                f"Using {setting.to_text(setting.default) or 'none'} instead.")
        return found, problems

    def from_query(self, query: Mapping[str, str]) -> tuple[dict, list[str]]:
        """A link's query parameters (name → string) as `read` does; a private setting is never read from a
        link (see `Setting`)."""
        private = [name for name in query if name in self.by_name and self.by_name[name].private]
        found, problems = self.read({k: v for k, v in query.items() if k not in private}, "link")
        return found, problems + [f"A link never carries {name}: ignored." for name in private]

    def to_query(self, values: Mapping) -> dict[str, str]:
        """The settings in ``values`` as a link's query parameters: every setting but the private ones, so that
        the link still means the same view if a default changes."""
        checked = self.check(values)
        return {name: self.by_name[name].to_text(value) for name, value in checked.items()
                if not self.by_name[name].private}

    def to_json(self, values: Mapping, include_private: bool = False) -> str:
        """The settings file (see the module docstring) of ``values`` (completed with the defaults); the
        private settings only with ``include_private``."""
        checked = {name: value for name, value in self.check(values).items()
                   if include_private or not self.by_name[name].private}
        payload = {FORMAT_KEY: FORMAT_VERSION, "page": self.page,
                   "settings": {name: (list(v) if isinstance(v, tuple) else v) for name, v in checked.items()}}
        return json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    def from_json(self, text) -> tuple[dict, list[str]]:
        """A settings file's text (str or bytes) → (settings, problems) as `read` does. ValueError when it
        is not a settings file of this page (not JSON, too large, another page's, another format)."""
        page, settings = read_settings_file(text)
        if page != self.page:
            raise ValueError(f"This settings file is for the page {shown(page)}, not {self.title}: open that page "
                             "and load it there.")
        return self.read(settings, "settings file")


def read_settings_file(text) -> tuple[str, dict]:
    """(page, settings) of a settings file's text. ValueError (one short sentence, never the file's
    contents) for anything else."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_FILE_BYTES:
            raise ValueError(f"A settings file is at most {MAX_FILE_BYTES // 1024} KB: this is not one.")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("This is not a settings file: it is not UTF-8 text.") from None
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"A settings file is at most {MAX_FILE_BYTES // 1024} KB: this is not one.")
    try:
        payload = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        raise ValueError("This is not a settings file: it is not valid JSON.") from None
    if not isinstance(payload, dict) or FORMAT_KEY not in payload:
        raise ValueError(f"This is not an Epsilon Lab settings file (it has no {FORMAT_KEY!r} key): download one "
                         "from a page's 'Take this analysis home' section.")
    if payload[FORMAT_KEY] != FORMAT_VERSION:
        raise ValueError(f"This settings file has format {shown(payload[FORMAT_KEY])}; this version of Epsilon Lab "
                         f"reads format {FORMAT_VERSION}.")
    page, settings = payload.get("page"), payload.get("settings")
    if not isinstance(page, str) or not isinstance(settings, dict):
        raise ValueError("This settings file is damaged: it needs a \"page\" name and a \"settings\" object.")  # noqa: TRY004 (bad input)
    return page, settings


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number in a settings file")


def parameter_settings(mechanisms, prefix: str = "") -> tuple[Setting, ...]:
    """One `Setting` per parameter of each mechanism class in ``mechanisms`` (name → class with
    ``PARAMETERS``, a topic's registry), named ``f"{prefix}{mechanism}.{parameter}"``: a page's mechanism
    controls (`epsilon_lab.ui.parameter_controls`) as settings."""
    found = []
    for name, cls in mechanisms.items():
        for pname, p in cls.PARAMETERS.items():
            kind = ("choice" if p.choices else "bool" if isinstance(p.default, bool) else
                    "int" if isinstance(p.default, int) else "float")
            found.append(Setting(f"{prefix}{name}.{pname}", p.default, kind, label=p.label or pname, help=p.help,
                                 low=p.low, high=p.high, choices=tuple(p.choices)))
    return tuple(found)
