"""A page's view as one self-contained HTML file: what ε protects, the settings, the numbers, the
charts (Plotly's script included once: the file opens without a network) and the code that
reproduces them (the export's script)."""
from __future__ import annotations

import html

from privlib.analyses.settings import PageSettings

_STYLE = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
          "table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}"
          "td.n{text-align:right;font-variant-numeric:tabular-nums}pre{background:#f6f6f6;padding:1em;overflow-x:auto;"
          "font-size:85%}.note{color:#555;font-size:90%}")


def _e(value) -> str:
    return html.escape(str(value))


def page_report(settings: PageSettings, values, numbers, figures, script: str, protects: str,
                created: str | None = None) -> str:
    """The report of ``settings``' page at ``values`` (checked against the page's settings) as one
    HTML string: ``numbers`` (name → value, the page's `numbers`), ``figures`` (Plotly figures, in the
    page's order), ``script`` (the export's percent-format script), ``protects`` (what ε protects).
    Pure: the same arguments give the same text; ``created`` (e.g. a timestamp) is printed when given."""
    settings.check(values)  # a library caller's mistake named before any work
    title = f"{settings.title} — Epsilon Lab report"
    parts = [(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{_e(title)}</h1>"),
             (f"<p class=note>Epsilon Lab report{(' · ' + _e(created)) if created else ''}. "
             "Smaller ε = more noise = more privacy.</p>"),
             f"<h2>What ε protects here</h2><p>{_e(protects)}</p>",
             settings_html(settings, values),
             "<h2>Numbers</h2><table><tr><th>quantity</th><th>value</th></tr>"]
    for name, value in dict(numbers).items():
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        parts.append(f"<tr><td>{_e(name)}</td><td class=n title=\"{_e(repr(value))}\">{_e(shown)}</td></tr>")
    parts.append("</table><h2>Charts</h2>")
    for k, figure in enumerate(figures):
        parts.append(figure.to_html(full_html=False, include_plotlyjs=(k == 0), config={"displaylogo": False},
                                    div_id=f"chart-{k}"))
    parts.append(code_html(settings, values, script) + "</body></html>")
    return "\n".join(parts)


def _left_out(settings: PageSettings, values) -> set:
    """The private settings (what the user typed) not in ``values``: the user did not include them."""
    return {s.name for s in settings.settings if s.private and s.name not in values}


def settings_html(settings: PageSettings, values) -> str:
    """The report's "Settings" section: each setting of ``values`` (checked, completed with the defaults) with
    what it is; a private setting not in ``values`` is shown as "(not included)", never its default."""
    checked, left_out = settings.check(values), _left_out(settings, values)
    rows = ["<h2>Settings</h2><table><tr><th>setting</th><th>value</th><th>what it is</th></tr>"]
    for setting in settings.settings:
        value = checked[setting.name]
        shown = ("(not included)" if setting.name in left_out else "none" if value is None else setting.to_text(value))
        rows.append(f"<tr><td>{_e(setting.name)}</td><td>{_e(shown)}</td><td>{_e(setting.label or setting.help)}"
                    "</td></tr>")
    return "".join(rows) + "</table>"


def code_html(settings: PageSettings, values, script: str) -> str:
    """The report's "Reproduce it" (``script``, the export's percent-format script) and "Settings file" (the
    settings file of ``values``; a private setting only when ``values`` holds it) sections: the part of every
    page's report that reproduces the view, also appended to Choose epsilon's own report."""
    checked, left_out = settings.check(values), _left_out(settings, values)
    settings_json = settings.to_json({k: v for k, v in checked.items() if k not in left_out}, include_private=True)
    return ("<h2>Reproduce it</h2><p>Save this as a <code>.py</code> file and run it with Python where "
            "Epsilon Lab is installed (<code>pip install .</code> in its checkout), or open it as a notebook "
            "in Jupyter or VS Code: it prints the numbers above and draws the same charts.</p>"
            f"<pre>{_e(script)}</pre>"
            "<h2>Settings file</h2><p>Load it on the page (<i>Take this analysis home</i>) or give it to the "
            + (f"command line: <code>python -m privlib {_e(settings.command)} --settings FILE</code>"
               if settings.command else "app")
            + f".</p><pre>{_e(settings_json)}</pre>")
