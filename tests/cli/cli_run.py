"""Run the command line in this process (fast: no interpreter start, no re-import of numpy and
scipy per call), as ``python -m privlib ARGS`` would: `run_cli` returns the exit code, stdout and
stderr. A few tests in tests/cli/test_cli_commands.py still start the real subprocess, to check
the entry point itself."""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import warnings
from dataclasses import dataclass

from privlib.cli import main


@dataclass(frozen=True)
class CliResult:
    """Exit code, stdout, stderr (with the warnings the command raised, one line each, as a real
    process would print them) and those warnings' messages."""

    code: int
    out: str
    err: str
    warnings: tuple[str, ...] = ()

    def json(self):
        """stdout as one strict JSON value (NaN or Infinity would fail)."""
        return json.loads(self.out, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


def run_cli(*argv, stdin: str | bytes | None = None, env: dict | None = None) -> CliResult:
    """``main(argv)`` with stdout and stderr captured, standard input ``stdin`` (text or bytes;
    empty when None) and the environment variables ``env`` set for the call; an argparse exit
    (``--help``, a bad flag) gives its exit code like the real command. Warnings the command
    raises are recorded (``warnings``) and put first on stderr, where a real process prints them."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    out, err = io.StringIO(), io.StringIO()
    saved_env = {key: os.environ.get(key) for key in (env or {})}
    saved_stdin = sys.stdin
    try:
        os.environ.update(env or {})
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # every warning, as a fresh process shows each once
            try:
                code = main([str(a) for a in argv])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.stdin = saved_stdin
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    said = tuple(f"{w.category.__name__}: {w.message}" for w in caught)
    printed = "".join(f"{w.filename}:{w.lineno}: {line}\n" for w, line in zip(caught, said))
    return CliResult(code, out.getvalue(), printed + err.getvalue(), said)


def run_json(*argv, env: dict | None = None):
    """The JSON of ``python -m privlib ARGV --json`` (strict), asserting that the command succeeded."""
    result = run_cli(*argv, "--json", env=env)
    assert result.code == 0, result.err
    return result.json()


def run_text(*argv, env: dict | None = None) -> str:
    """The text output of ``python -m privlib ARGV``, asserting that the command succeeded."""
    result = run_cli(*argv, env=env)
    assert result.code == 0, result.err
    return result.out
