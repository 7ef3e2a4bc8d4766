"""The `epsilon-lab` command in-process: `app` runs the package's app.py with Streamlit, listening on
this computer only and sending no usage statistics; every other command is privlib's command line.
(tests/test_packaging.py runs the installed command.)"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from epsilon_lab import command

ROOT = Path(__file__).resolve().parents[2]


def test_app_runs_the_packages_router_bound_to_localhost_without_usage_statistics(monkeypatch):
    calls = []
    monkeypatch.setattr("streamlit.web.cli.main", lambda args, prog_name: calls.append((args, prog_name)) or 0)
    assert command.main(["app", "--server.port", "8600"]) == 0
    assert calls == [(["run", str(ROOT / "epsilon_lab" / "app.py"), "--server.address", "127.0.0.1",
                       "--browser.gatherUsageStats", "false", "--server.port", "8600"], "streamlit")]
    # the user's own options come last, so they may change the defaults (Streamlit keeps the last value)
    assert command.streamlit_argv(["--server.address", "0.0.0.0"])[-2:] == ["--server.address", "0.0.0.0"]


def test_every_other_command_is_privlibs(capsys):
    assert command.main(["mechanisms", "--json"]) == 0
    names = [m["name"] for m in json.loads(capsys.readouterr().out)["mechanisms"]]
    assert "multivariate-laplace" in names


def test_help_names_the_command_and_the_app(capsys):
    with pytest.raises(SystemExit) as exit_:
        command.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: epsilon-lab ") and "ranks" in out and "epsilon-lab app" in out


def test_errors_name_the_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        command.main(["ranks", "--word", "king"])  # no --epsilon
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("epsilon-lab ranks: error:")


def test_importing_the_command_loads_no_streamlit():
    code = "import sys, epsilon_lab.command; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
