"""The command line: ``python -m privlib COMMAND … [--json]``."""
from privlib.cli.words import main  # noqa: F401
