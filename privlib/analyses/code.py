"""A page's analysis as code to take home: a percent-format script and a Jupyter notebook, both
from the same cells.

The script (`percent_script`) runs with ``python file.py`` and opens as a notebook in Jupyter and
VS Code (``# %%`` starts a code cell, ``# %% [markdown]`` a text cell: the "percent" format of
Jupytext and VS Code). The notebook (`notebook`) is written with nbformat (version 4), with no
outputs stored. A chart is a cell's last expression: a notebook shows it, a script ignores it, and
the last cell saves every chart into one HTML file (`save_charts`) so that a script run shows them
too. The numbers are printed by `print_numbers`, one ``name: value`` line each, in a form that reads
back exactly (``repr`` of a float).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: The two kinds of cell.
CODE, MARKDOWN = "code", "markdown"


@dataclass(frozen=True)
class Cell:
    """One cell: ``kind`` is `CODE` or `MARKDOWN`; ``source`` its text (no trailing newline needed)."""

    kind: str
    source: str

    def __post_init__(self):
        if self.kind not in (CODE, MARKDOWN):
            raise ValueError(f"A cell is {CODE!r} or {MARKDOWN!r}, got {self.kind!r}.")


def code(source: str) -> Cell:
    """A code cell."""
    return Cell(CODE, source.strip("\n"))


def markdown(source: str) -> Cell:
    """A text cell (Markdown)."""
    return Cell(MARKDOWN, source.strip("\n"))


def percent_script(cells) -> str:
    """The cells as one Python file in the percent format: a text cell's lines become ``# `` comments
    under ``# %% [markdown]``, a code cell follows ``# %%``."""
    parts = []
    for cell in cells:
        if cell.kind == MARKDOWN:
            lines = [f"# {line}".rstrip() for line in cell.source.splitlines()]
            parts.append("# %% [markdown]\n" + "\n".join(lines))
        else:
            parts.append("# %%\n" + cell.source)
    return "\n\n".join(parts) + "\n"


def notebook(cells, title: str | None = None) -> str:
    """The cells as a Jupyter notebook (nbformat 4, validated, no outputs), as JSON text. ``title``:
    the notebook's metadata title."""
    import nbformat
    from nbformat import v4

    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(c.source) if c.kind == CODE else v4.new_markdown_cell(c.source) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    if title:
        nb.metadata["title"] = title
    nbformat.validate(nb)
    return nbformat.writes(nb)


def print_numbers(numbers) -> None:
    """Print ``numbers`` (name → value), one ``name: value`` line each; a float as its ``repr``, which
    reads back to the same float (how the export's test compares a script's numbers with the page's)."""
    for name, value in dict(numbers).items():
        print(f"{name}: {value!r}")


def read_numbers(text: str) -> dict:
    """The numbers `print_numbers` printed in ``text`` (the lines of the form ``name: value`` whose value
    is a Python literal; other lines are skipped)."""
    import ast

    numbers = {}
    for line in text.splitlines():
        name, sep, value = line.partition(": ")
        if not sep:
            continue
        try:
            numbers[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            continue
    return numbers


def save_charts(path, figures, title: str = "Charts") -> Path:
    """Write ``figures`` (Plotly figures) into one HTML file at ``path`` (Plotly's script included once,
    so the file opens without a network); written to a temporary file first, so an interrupted run
    leaves no partial file. Returns the path."""
    path = Path(path)
    html = [("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_escape(title)}</title></head><body>")]
    for k, figure in enumerate(figures):
        html.append(figure.to_html(full_html=False, include_plotlyjs=(k == 0), config={"displaylogo": False}))
    html.append("</body></html>")
    write_text_atomically(path, "\n".join(html))
    return path


def write_text_atomically(path, text: str) -> None:
    """Write ``text`` to ``path`` through a hidden temporary file beside it, renamed at the end: an
    interrupted write leaves neither a partial file nor a damaged former one."""
    path = Path(path)
    temporary = path.with_name(f".{path.name[:200]}.{os.getpid()}.partial")
    try:
        with open(temporary, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _escape(text: str) -> str:
    import html

    return html.escape(str(text))
