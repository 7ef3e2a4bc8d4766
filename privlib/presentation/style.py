"""The one style of every figure of every topic: the ε axis title, the palette, the grey of
reference lines, margins, the legend below the chart, colours with transparency and reference
lines. Topic figure packages (`privlib.presentation.<topic>`) import from here and never from each
other (import-linter: ``presentation.style`` is the layer below them)."""
from __future__ import annotations

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
