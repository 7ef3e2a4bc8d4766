"""Property-based checks of the command line's promise on bad input (issue 22), shared by every
topic's CLI tests: whatever numbers and strings an option gets, the command either succeeds with
strict JSON on stdout (no NaN or Infinity) or exits 2 with one line of at most 300 characters on
stderr — never a traceback or a warning — and leaves no file behind.

Use: ``@given(value=option_values())`` and ``assert_kept_promise(run_cli(..., value, "--json", env=SMALL_WORK))``.
"""
from __future__ import annotations

import pytest
from hypothesis import strategies as st

#: The longest error line the CLI may print.
MAX_ERROR_CHARS = 300

#: The environment of every fuzzed run: work estimated above 2 s is refused (exit 2, one line), and
#: label DP's estimate counts 10 ms a fit and a run (about this machine's pace on the fuzz tables' small
#: data; tests/conftest.py's 1 µs, for the pages, would let a fuzzed ``--repeats 10000`` run for a
#: minute). So a value the command accepts runs about 2 s at most and a larger one is the refusal
#: (still the promise), while the small valid command lines themselves run (test_cli_label_dp.py
#: and test_cli_projections.py check that theirs are accepted).
SMALL_WORK = {"PRIVLIB_LONG_WORK_SECONDS": "2", "PRIVLIB_LABEL_DP_SECONDS": "0.01"}

#: Values that broke commands before (extremes, special floats, huge integers, empty, signs).
EDGE_VALUES = ("nan", "NaN", "inf", "-inf", "Infinity", "1e308", "1e309", "-1e308", "1e-308", "5e-324", "-0", "0",
               "-1", "1", "0.5", "2", "", " ", "1,2", "1:2", "1e400", "9" * 401, "-" + "9" * 401, "0x10", "1_000",
               "true", "None", "１", "1e", "--", "x" * 10_000)


def number_texts():
    """Numbers as a user could type them: any float (special values included) or integer, in
    plain, repr and exponent form."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.3e}"),
        st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    )


def option_values():
    """What a fuzzed option gets: an edge value, a number, or arbitrary text (control characters,
    other scripts, long strings)."""
    return st.one_of(st.sampled_from(EDGE_VALUES), number_texts(),
                     st.text(min_size=0, max_size=60).filter(lambda s: not s.startswith("-")))


def assert_kept_promise(result, folder=None, files_before=None) -> None:
    """The outcome ``result`` (a `cli_run.CliResult`) keeps the promise; with ``folder`` and
    ``files_before`` (its file names before the run), no new file was left there on failure."""
    assert "Traceback" not in result.err, result.err[-2000:]
    assert not result.warnings, result.warnings  # a real process would print them before the line
    if result.code == 0:
        result.json()  # strict JSON: raises on NaN / Infinity / garbage
        return
    assert result.code == 2, (result.code, result.err[-500:])
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err[-2000:]
    assert 0 < len(lines[0]) <= MAX_ERROR_CHARS, lines[0][:500]
    if folder is not None:
        assert sorted(p.name for p in folder.iterdir()) == sorted(files_before or []), "a file was left behind"


# ---------------------------------------------------------------------------------------------
# one option at a time: a topic's table of small valid command lines
# (``{name: (options as flag, value, flag, value, …; the flags to fuzz, or () for all)}``)

def option_cases(commands: dict):
    """pytest parameters (name, option) for every fuzzed option of every command of ``commands``."""
    for name, (base, only) in commands.items():
        for option in only or tuple(base[0::2]):
            yield pytest.param(name, option, id=f"{name}{option}")


def command_line(commands: dict, name: str, option: str, value: str) -> list[str]:
    """Command ``name``'s small valid options with ``option`` set to ``value`` (as --option=value, so
    a value starting with '-' is a value, not an option). A name may carry a label after a space
    ("retrain digits"): the command is its first word."""
    base = commands[name][0]
    return [name.split()[0]] + [f"{flag}={value if flag == option else given}"
                                for flag, given in zip(base[0::2], base[1::2])]


def edge_cases(commands: dict):
    """pytest parameters (name, option, value): every fuzzed option with every `EDGE_VALUES` value,
    deterministically (random draws may miss the one 10,000-character or 401-digit value)."""
    for case in option_cases(commands):
        name, option = case.values
        for value in EDGE_VALUES:
            yield pytest.param(name, option, value, id=f"{name}{option}={value[:12]}")
