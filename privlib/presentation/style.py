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
