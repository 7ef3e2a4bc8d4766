"""The import rules of pyproject.toml (import-linter contracts) hold, and they catch a planted
wrong-direction import: each case copies privlib to a temporary folder, adds one import that breaks
one rule, and runs lint-imports there."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


PLANTED = [
    # (file to edit, import to add, the contract that must break)
    ("privlib/core/validation.py", "import privlib.words.embeddings", "privlib layers"),
    ("privlib/words/embeddings.py", "import privlib.presentation.words.figures", "privlib layers"),
    ("privlib/presentation/words/figures.py", "import privlib.cli", "privlib layers"),
    ("privlib/words/neighbours.py", "import privlib.words.mechanisms", "word-level topic"),
    ("privlib/words/text.py", "import privlib.words.experiments", "word-level topic"),
    ("privlib/words/search.py", "import privlib.words.embeddings", "word-level topic"),
    ("privlib/words/mechanisms/base.py", "import privlib.words.mechanisms.laplace", "word-level mechanisms"),
    ("privlib/words/theory/noisy_dot.py", "import privlib.words.theory.analogies", "word-level theory"),
    ("privlib/words/text.py", "import streamlit", "never imports the UI"),
    ("privlib/words/experiments.py", "from epsilon_lab import ui", "never imports the UI"),
    # a second topic that imports the first: topics are independent
    ("privlib/projections/__init__.py", "import privlib.words", "privlib layers"),
    ("privlib/presentation/projections/__init__.py", "import privlib.presentation.words", "presentation"),
    # the shared figure style sits below every topic's figures
    ("privlib/presentation/style.py", "import privlib.presentation.erm.figures", "presentation"),
    # the attacker's-view figures every topic shares sit below the topics' figures
    ("privlib/presentation/risk.py", "import privlib.presentation.label_dp.figures", "presentation"),
    # a page's analysis sits above the figures and below the command line; its settings below the page modules
    ("privlib/presentation/style.py", "import privlib.analyses.settings", "privlib layers"),
    ("privlib/analyses/code.py", "import privlib.cli.common", "privlib layers"),
    ("privlib/analyses/settings.py", "import privlib.analyses.noisy_dot_product", "analyses"),
]


@pytest.mark.parametrize("path, line, contract", PLANTED)
def test_a_planted_wrong_import_breaks_its_contract(tmp_path, path, line, contract):
    shutil.copytree(ROOT / "privlib", tmp_path / "privlib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text((target.read_text() if target.exists() else "") + f"\n{line}  # planted by the test\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    broken = [row for row in result.stdout.splitlines() if row.endswith("BROKEN")]
    assert any(contract in row for row in broken), result.stdout
