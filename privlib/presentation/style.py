"""The one style of every figure of every topic: the ε axis title, the palette, the grey of
reference lines, margins, the legend below the chart, colours with transparency and reference
lines. Topic figure packages (`privlib.presentation.<topic>`) import from here and never from each
other (import-linter: ``presentation.style`` is the layer below them)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

#: Axis title of every ε axis: the direction of more privacy is always labelled.
EPSILON_AXIS = "ε  (← smaller ε = more privacy · larger ε = less privacy →)"
#: The colours of series in order (Plotly's D3 palette), e.g. mechanisms without a colour of their own.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
#: Reference lines and bands that are not a mechanism (bounds, chance, non-private levels).
GREY = "#b0b0b0"
#: Margins of every chart (room for the title on top, the axis titles left and below).
MARGIN = dict(t=60, b=40, l=60, r=20)


def palette_colour(index: int) -> str:
    """Entry ``index`` of `PALETTE`, cycling."""
    return PALETTE[index % len(PALETTE)]


def rgba(colour: str, alpha: float) -> str:
    """``#rrggbb`` as a CSS ``rgba(r,g,b,alpha)`` (bands and shaded regions)."""
    colour = colour.lstrip("#")
    r, g, b = (int(colour[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def layout(fig: go.Figure, title: str | None, legend_y: float = -0.3, anchor_top: bool = True) -> go.Figure:
    """Title, `MARGIN` and a horizontal legend below the x-axis title (its top at ``legend_y``
    when ``anchor_top``, else Plotly's default anchor)."""
    legend = dict(orientation="h", y=legend_y, yanchor="top") if anchor_top else dict(orientation="h", y=legend_y)
    fig.update_layout(title=title, margin=MARGIN, legend=legend)
    return fig


def reference_line(fig: go.Figure, x, y: float, name: str, colour: str = GREY, dash: str = "dash",
                   group: str | None = None, row=None, col=None) -> None:
    """A horizontal reference line over the x range, as a trace (so it has a legend entry)."""
    trace = go.Scatter(x=[min(x), max(x)], y=[y, y], mode="lines", name=name,
                       line=dict(color=colour, dash=dash, width=1.8), legendgroup=group,
                       hovertemplate=f"{name}: %{{y:.3f}}<extra></extra>")
    if row is None:
        fig.add_trace(trace)
    else:
        fig.add_trace(trace, row=row, col=col)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def tick_text(value: float) -> str:
    """A tick label people read: plain digits from 0.001 to 100,000 ("0.02", "50", "20,000"), else
    a power of ten ("10⁻⁶", "2×10⁸") — never Plotly's SI suffixes ("100μ", "10n"), which read as
    units on a proportion."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e5:
        return f"{value:,.6g}"
    exponent = int(np.floor(np.log10(abs(value))))
    mantissa = value / 10.0 ** exponent
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if np.isclose(mantissa, 1.0) else f"{mantissa:.3g}×{power}"


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values of a log axis from ``low`` to ``high`` (> 0): 1-2-5 per decade over at most three
    decades, otherwise each decade (every second or third one over a very wide range)."""
    if not (np.isfinite(low) and np.isfinite(high)) or low <= 0 or high < low:
        raise ValueError(f"A log axis needs 0 < low <= high, got {low!r} and {high!r}.")
    first, last = int(np.floor(np.log10(low))), int(np.ceil(np.log10(high)))
    decades = range(first, last + 1)
    if last - first <= 3:
        ticks = [m * 10.0 ** k for k in decades for m in (1, 2, 5)]
    else:
        step = 1 if last - first <= 8 else (2 if last - first <= 16 else 3)
        ticks = [10.0 ** k for k in decades if (k - first) % step == 0]
    inside = [t for t in ticks if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
    return inside or [10.0 ** round(np.log10(low))]


def log_axis(fig: go.Figure, low: float, high: float, axis: str = "x", **layout) -> go.Figure:
    """Make the ``axis`` ("x" or "y") of ``fig`` a log axis from ``low`` to ``high`` labelled with
    `log_ticks` and `tick_text` (full numbers: 20, 30, 50 — not Plotly's "2, 3, 5" minor digits);
    ``layout``: other axis properties (title, range, row, col, …)."""
    ticks = log_ticks(low, high)
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(type="log", tickmode="array", tickvals=ticks, ticktext=[tick_text(t) for t in ticks], **layout)
    return fig


# ---------------------------------------------------------------- added for issue 22 (charts and tables at 1024×768)
#: The ε axis title of a chart drawn in half the page's width (the long `EPSILON_AXIS` is cut there).
EPSILON_AXIS_SHORT = "ε  (← more privacy · less privacy →)"
#: At most this many lines on a chart by default; pages let the user pick the others (issue 22 saw 13).
MAX_LINES = 8
#: What a table cell shows where a value does not exist (never "None").
MISSING = "—"


def wrap_text(text: str | None, width: int = 60) -> str | None:
    """``text`` broken at spaces into lines of at most ``width`` characters joined by ``<br>`` (Plotly's
    line break), so a title or an axis title is wrapped instead of cut off; a word longer than
    ``width`` stays whole. Text that already holds ``<br>`` is left as it is."""
    if text is None or len(text) <= width or "<br>" in text:
        return text
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "<br>".join(lines)


def titled(fig: go.Figure, title: str | None, width: int = 60) -> go.Figure:
    """Set ``title`` wrapped at ``width`` characters (`wrap_text`) and make the top margin tall enough
    for its lines (`MARGIN`'s 60 px hold one line)."""
    wrapped = wrap_text(title, width)
    lines = 1 + (wrapped or "").count("<br>")
    fig.update_layout(title=wrapped, margin=dict(t=MARGIN["t"] + 22 * (lines - 1)))
    return fig


def vertical_line(fig: go.Figure, x: float, text: str, log_x: bool = False, colour: str = "#444444",
                  row=None, col=None) -> None:
    """A dotted vertical line at ``x`` (e.g. the page's chosen ε) with ``text`` above the plot area.
    plotly places shapes on a log axis by data value but annotations by log10 value, so the label is
    placed by hand (plotly's own vline annotation lands at x itself, off the chart)."""
    fig.add_vline(x=x, line={"color": colour, "width": 1, "dash": "dot"}, row=row, col=col)
    fig.add_annotation(x=float(np.log10(x)) if log_x else x, y=1.0, yref="paper", text=text, showarrow=False,
                       yanchor="bottom", font=dict(size=11, color=colour))



def epsilon_x_axis(fig: go.Figure, epsilons, *, chosen_epsilon: float | None = None, title: str = EPSILON_AXIS,
                   log_x: bool = True, text: str | None = None) -> go.Figure:
    """The x axis of a chart against ε: a log axis labelled in full (`log_axis`) over ``epsilons`` and the
    chosen ε, or a linear one; a dotted `vertical_line` at ``chosen_epsilon`` (labelled ``text``, by
    default "chosen ε = …")."""
    span = np.asarray(epsilons, dtype=float).ravel()
    if chosen_epsilon is not None:
        vertical_line(fig, float(chosen_epsilon), text or f"chosen ε = {chosen_epsilon:g}", log_x=log_x)
        span = np.append(span, float(chosen_epsilon))
    if log_x and span.size:
        log_axis(fig, float(span.min()), float(span.max()), "x", title=title)
    else:
        fig.update_xaxes(title=title, type="log" if log_x else "linear")
    return fig


def first_groups(groups, lines_each: int, max_lines: int = MAX_LINES) -> list:
    """The first of ``groups`` (e.g. curve sets of ``lines_each`` lines each) that fit in ``max_lines``
    lines — at least one: a chart's default selection."""
    groups = list(groups)
    keep = max(1, max_lines // max(1, lines_each))
    return groups[:keep]


def table_column(values, fmt: str = "{}", missing: str = MISSING) -> list[str]:
    """A table column as text: each value formatted with ``fmt`` and a value that does not exist
    (None or NaN) shown as ``missing`` — Streamlit's table draws it as "None" otherwise."""
    out = []
    for v in values:
        absent = v is None or (isinstance(v, float) and not np.isfinite(v) and np.isnan(v))
        out.append(missing if absent else fmt.format(v))
    return out
