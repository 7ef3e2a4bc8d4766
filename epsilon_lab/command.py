"""The ``epsilon-lab`` command (installed with the package; ``python -m epsilon_lab`` is the same).

``epsilon-lab app [STREAMLIT OPTIONS]`` runs the app: ``streamlit run`` on the installed
epsilon_lab/app.py, listening on this computer only (127.0.0.1) and sending no usage statistics,
with the app's own settings (epsilon_lab/.streamlit/config.toml, which Streamlit reads beside the
script, whatever the current folder). Every other command is privlib's command line:
``epsilon-lab ranks --word king …`` is ``python -m privlib ranks --word king …``.
"""
from __future__ import annotations

import sys
from pathlib import Path

#: The command's name, in its help and error messages.
PROG = "epsilon-lab"
#: The script that ``streamlit run`` runs: the router, installed beside its pages.
APP = Path(__file__).resolve().with_name("app.py")
#: The options ``epsilon-lab app`` gives ``streamlit run`` before the user's own, which may change them
#: (the last value of an option wins): listen on this computer only, send no usage statistics.
PRIVATE_SERVER = ("--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false")
#: The help's last paragraph: the one command that is not privlib's.
APP_HELP = (f"{PROG} app [STREAMLIT OPTIONS] runs the app on http://localhost:8501, for this computer only "
            "(options of `streamlit run`, e.g. --server.port 8502).")


def streamlit_argv(options) -> list[str]:
    """The arguments of ``streamlit`` that run the app with the user's ``options``."""
    return ["run", str(APP), *PRIVATE_SERVER, *options]


def run_app(options) -> int:
    """Run the app (`streamlit_argv`) until the server stops; the exit code."""
    from streamlit.web import cli as streamlit_cli

    return streamlit_cli.main(streamlit_argv(options), prog_name="streamlit")


def main(argv=None) -> int:
    """Run ``epsilon-lab`` with ``argv`` (default: ``sys.argv[1:]``); the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["app"]:
        return run_app(args[1:])
    from privlib.cli import main as cli_main

    return cli_main(args, prog=PROG, epilog=APP_HELP)
