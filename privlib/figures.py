"""Plotly figure builders: pure functions from privlib results to ``go.Figure``.

Pages only render what these return, so every chart is testable without a browser.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

#: One colour per outcome, used by every chart so the legend means the same everywhere.
COLOURS = {"original": "#1f77b4", "close": "#2ca02c", "distant": "#d62728"}
LABELS = {"original": "original (rank 0)", "close": "close neighbour", "distant": "distant word"}
#: Axis title for every epsilon axis: the direction of more privacy is always labelled.
EPSILON_AXIS = "ε  (← smaller ε = more privacy · larger ε = less privacy →)"


def log_rank_bins(vocab_size: int, close: int, per_decade: int = 12) -> np.ndarray:
    """Integer bin edges on the axis rank + 1 (so rank 0 sits at 1 on a log axis):
    [1, 2) holds rank 0 alone, then log-spaced edges up to vocab_size + 1, with an edge at
    close + 2 so that no bin mixes close (ranks 1..close) and distant words."""
    top = np.log10(vocab_size + 1)
    edges = np.unique(np.round(np.logspace(0, top, max(2, int(np.ceil(top * per_decade)) + 1))).astype(np.int64))
    edges = np.unique(np.concatenate([[1, 2, close + 2], edges[edges >= 2], [vocab_size + 1]]))
    edges = edges[edges <= vocab_size + 1]
    return edges


def rank_histogram(ranks, weights, vocab_size: int, close: int, title: str | None = None,
                   exact: bool = False) -> go.Figure:
    """Histogram of output ranks on a log rank axis, regions original / close / distant shaded.

    ``ranks`` with ``weights`` = the fraction of outputs at each rank (sampled frequencies, or
    exact probabilities with ``exact=True``). x is rank + 1 (log scale; rank 0 = the original
    word at x = 1); y is the fraction per bin divided by the bin's width in ranks ("fraction per
    rank"), so bins of different widths compare fairly, on a log axis.
    """
    ranks = np.asarray(ranks)
    edges = log_rank_bins(vocab_size, close)
    mass, _ = np.histogram(ranks + 1, bins=edges, weights=np.asarray(weights, dtype=float))
    widths = np.diff(edges)
    density = mass / widths
    counts = mass
    fig = go.Figure()
    regions = [("original", 1, 2), ("close", 2, close + 2), ("distant", close + 2, vocab_size + 1)]
    for name, lo, hi in regions:
        # plotly.js places shapes on a log axis by data value, but annotations by log10 value
        fig.add_vrect(x0=lo, x1=hi, fillcolor=COLOURS[name], opacity=0.1, line_width=0, layer="below")
        # labels centred in their region (original: left-aligned, its region is one rank wide)
        x = np.log10(lo) if name == "original" else 0.5 * (np.log10(lo) + np.log10(hi))
        fig.add_annotation(x=x, y=1, yref="paper", text=name, showarrow=False,
                           xanchor="right" if name == "original" else "center", yanchor="bottom",
                           font=dict(color=COLOURS[name]))
    shown = counts > 0
    fig.add_trace(go.Bar(
        x=np.sqrt(edges[:-1] * edges[1:])[shown], y=density[shown],
        width=widths[shown] * 0.9,
        marker_color=[COLOURS[_region(e, close)] for e in edges[:-1][shown]],
        customdata=np.stack([edges[:-1][shown] - 1, edges[1:][shown] - 2, counts[shown]], axis=1),
        hovertemplate="ranks %{customdata[0]}–%{customdata[1]}<br>%{customdata[2]:.3%} of outputs"
                      + (" (exact)" if exact else "") + "<br>%{y:.3g} per rank<extra></extra>",
        name="outputs",
    ))
    fig.update_xaxes(type="log", range=[0, np.log10(vocab_size + 1)],
                     title="rank of the output among the input's neighbours + 1 (log scale)")
    fig.update_yaxes(type="log", title="fraction of outputs per rank" + (" (exact)" if exact else ""))
    fig.update_layout(title=title, showlegend=False, bargap=0, margin=dict(t=60, b=40, l=60, r=20))
    return fig


def _region(edge_left: int, close: int) -> str:
    rank = edge_left - 1
    return "original" if rank == 0 else ("close" if rank <= close else "distant")


def proportions_bar(proportions: dict, standard_errors: dict | None = None, title: str | None = None) -> go.Figure:
    """The three proportions as one stacked horizontal bar (sums to 1)."""
    fig = go.Figure()
    for name in ("original", "close", "distant"):
        p = proportions[name]
        se = (standard_errors or {}).get(name)
        text = f"{p:.1%}" + (f" ± {se:.1%}" if se is not None else "")
        fig.add_trace(go.Bar(x=[p], y=[""], orientation="h", name=LABELS[name], marker_color=COLOURS[name],
                             text=[text], textposition="inside", hovertemplate=f"{LABELS[name]}: {text}<extra></extra>"))
    fig.update_layout(barmode="stack", height=160, title=title, margin=dict(t=40, b=30, l=20, r=20),
                      legend=dict(orientation="h", y=-0.4))
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    return fig


def proportions_vs_epsilon(sweeps: list, title: str | None = None) -> go.Figure:
    """Proportions original / close / distant against epsilon, one line each with a ±2 SE band.

    ``sweeps``: list of (label, EpsilonSweep); several sweeps (e.g. one word and the average over
    random words, or several mechanisms) share the chart, told apart by dash style.
    """
    fig = go.Figure()
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (label, sweep) in enumerate(sweeps):
        se = sweep.standard_errors()
        for name in ("original", "close", "distant"):
            p = np.asarray(sweep.proportions[name])
            x = np.asarray(sweep.epsilons, dtype=float)
            lo, hi = np.clip(p - 2 * se[name], 0, 1), np.clip(p + 2 * se[name], 0, 1)
            fig.add_trace(go.Scatter(
                x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
                fillcolor=COLOURS[name], opacity=0.15, line=dict(width=0), hoverinfo="skip", showlegend=False,
                legendgroup=f"{label}-{name}",
            ))
            fig.add_trace(go.Scatter(
                x=x, y=p, mode="lines+markers", name=f"{LABELS[name]} — {label}" if len(sweeps) > 1 else LABELS[name],
                line=dict(color=COLOURS[name], dash=dashes[i % len(dashes)]), legendgroup=f"{label}-{name}",
                hovertemplate=f"{label}<br>ε = %{{x:g}}<br>{name}: %{{y:.1%}}<extra></extra>",
            ))
    log_x = all(np.ptp(np.log10(np.asarray(s.epsilons, float))) > 1.2 for _, s in sweeps)
    fig.update_xaxes(title=EPSILON_AXIS, type="log" if log_x else "linear")
    fig.update_yaxes(title="proportion of outputs", range=[0, 1], tickformat=".0%")
    fig.update_layout(title=title, margin=dict(t=60, b=40, l=60, r=20), legend=dict(orientation="h", y=-0.25))
    return fig


# ---------------------------------------------------------------- the noisy dot product (spec §4)
def _histogram_density(samples, bins: int = 80):
    samples = np.asarray(samples, dtype=float)
    counts, edges = np.histogram(samples, bins=bins)
    widths = np.diff(edges)
    return (edges[:-1] + edges[1:]) / 2, counts / max(samples.size, 1) / widths, widths


def density_with_samples(grid, exact_pdf, samples=None, integral_pdf=None, x_title: str = "z",
                         title: str | None = None, exact_name: str = "exact density (closed form)") -> go.Figure:
    """Histogram of samples (as a density) with the exact density overlaid, and optionally the
    density from direct numerical integration of the paper's Eq. 13 (to show they coincide)."""
    fig = go.Figure()
    if samples is not None and len(samples):
        centres, density, widths = _histogram_density(samples)
        fig.add_trace(go.Bar(x=centres, y=density, width=widths, name=f"{len(samples):,} samples",
                             marker_color="#9ecae1", hovertemplate="%{x:.3g}: %{y:.3g}<extra>samples</extra>"))
    fig.add_trace(go.Scatter(x=grid, y=exact_pdf, mode="lines", name=exact_name, line=dict(color="#08306b", width=2.5)))
    if integral_pdf is not None:
        fig.add_trace(go.Scatter(x=grid, y=integral_pdf, mode="lines", name="paper's Eq. 13, numerical integral",
                                 line=dict(color="#ff7f0e", width=2, dash="dash")))
    fig.update_layout(title=title, bargap=0, margin=dict(t=60, b=40, l=60, r=20), legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title="density")
    return fig


def cdf_with_samples(grid, exact_cdf, samples=None, x_title: str = "z", title: str | None = None) -> go.Figure:
    """Exact CDF with the empirical CDF of the samples."""
    fig = go.Figure()
    if samples is not None and len(samples):
        xs = np.sort(np.asarray(samples, dtype=float))
        keep = np.unique(np.linspace(0, xs.size - 1, min(xs.size, 2000)).astype(int))  # enough points to draw
        fig.add_trace(go.Scatter(x=xs[keep], y=(keep + 1) / xs.size, mode="lines", line_shape="hv",
                                 name=f"empirical CDF ({xs.size:,} samples)", line=dict(color="#6baed6", width=4)))
    fig.add_trace(go.Scatter(x=grid, y=exact_cdf, mode="lines", name="exact CDF", line=dict(color="#08306b", width=2)))
    fig.update_layout(title=title, margin=dict(t=60, b=40, l=60, r=20), legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title="P(Z ≤ z)", range=[0, 1])
    return fig


def tail_bounds(thresholds, exact_tail, bounds: dict, empirical_tail=None, title: str | None = None,
                x_title: str = "threshold t", y_title: str = "P(|Z| > t)") -> go.Figure:
    """Two-sided tail probability on a log axis: exact, against each bound (capped at 1)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=thresholds, y=exact_tail, mode="lines", name="exact",
                             line=dict(color="#08306b", width=3)))
    if empirical_tail is not None:
        t, p = empirical_tail
        fig.add_trace(go.Scatter(x=t, y=p, mode="markers", name="samples", marker=dict(color="#6baed6", size=5)))
    dashes = ["dash", "dot", "dashdot", "longdash", "longdashdot"]
    for i, (name, values) in enumerate(bounds.items()):
        values = np.minimum(np.asarray(values, dtype=float), 1.0)
        fig.add_trace(go.Scatter(x=thresholds, y=values, mode="lines", name=name, line=dict(dash=dashes[i % len(dashes)])))
    fig.update_yaxes(type="log", title=y_title, exponentformat="power")
    fig.update_xaxes(title=x_title)
    fig.update_layout(title=title, margin=dict(t=60, b=40, l=60, r=20), legend=dict(orientation="h", y=-0.2))
    return fig
