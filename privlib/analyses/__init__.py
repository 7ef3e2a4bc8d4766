"""Every page's analysis, taken home: its settings (a link, a settings file, the command line's
``--settings``), its numbers, and its code as a script, a notebook and a one-file report.

Each page of the app has one module here, named like the page's file, exposing the same things (the
model: OpenDP's DP Wizard, where every analysis exposes the same functions):

- ``SETTINGS``: a `PageSettings`, one `Setting` per control of the page;
- ``PROTECTS``: what ε protects on that page, in one sentence;
- ``numbers(result) -> dict``: the numbers the page shows, by name (the script prints the same);
- ``cells(values) -> list[Cell]``: the page's analysis at those settings as code and text, calling
  privlib's public API (the topics, `privlib.presentation`'s figures).

`script`, `notebook` and `report` turn any of them into a file. This layer sits above the topics and
the figures and below the command line (import rules: pyproject.toml).
"""
from __future__ import annotations

import importlib

from privlib.analyses.code import notebook as cells_notebook
from privlib.analyses.code import percent_script
from privlib.analyses.settings import PageSettings, Setting, read_settings_file

#: The pages whose analysis can be taken home (their modules in this package).
PAGES = ("noisy_dot_product", "label_dp", "private_learning", "neighbour_ranks", "sanitise_text",
         "why_it_happens", "random_projections", "choose_epsilon", "what_epsilon_means")


def analysis(page: str):
    """The analysis module of ``page`` (a page's file name, e.g. "noisy_dot_product")."""
    if page not in PAGES:
        raise ValueError(f"No page {page!r} can be exported; the pages are {', '.join(PAGES)}.")
    return importlib.import_module(f"privlib.analyses.{page}")


def script(page: str, values) -> str:
    """The page's analysis at ``values`` as a Python script in the percent format."""
    return percent_script(analysis(page).cells(values))


def notebook(page: str, values) -> str:
    """The page's analysis at ``values`` as a Jupyter notebook (JSON text, no outputs)."""
    module = analysis(page)
    return cells_notebook(module.cells(values), title=module.SETTINGS.title)


__all__ = ["PAGES", "PageSettings", "Setting", "analysis", "notebook", "read_settings_file", "script"]
