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
from dataclasses import dataclass

from privlib.cli import main


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str

    def json(self):
        """stdout as one strict JSON value (NaN or Infinity would fail)."""
        return json.loads(self.out, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


def run_cli(*argv, stdin: str | bytes | None = None, env: dict | None = None) -> CliResult:
    """``main(argv)`` with stdout and stderr captured, standard input ``stdin`` (text or bytes;
    empty when None) and the environment variables ``env`` set for the call; an argparse exit
    (``--help``, a bad flag) gives its exit code like the real command."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    out, err = io.StringIO(), io.StringIO()
    saved_env = {key: os.environ.get(key) for key in (env or {})}
    saved_stdin = sys.stdin
    try:
        os.environ.update(env or {})
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
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
    return CliResult(code, out.getvalue(), err.getvalue())
