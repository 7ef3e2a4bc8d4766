"""Plotly figure builders: pure functions from privlib results to ``go.Figure``.

Pages only render what these return, so every chart is testable without a browser.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from privlib.core.sweep import SweepResult
from privlib.presentation.style import (
    EPSILON_AXIS,
    EPSILON_AXIS_SHORT,
    MARGIN,
    MAX_LINES,
    PALETTE,
    epsilon_x_axis,
    first_groups,
    layout,
    log_axis,
    palette_colour,
    rgba,
    titled,
    vertical_line,
)

#: A junk token of GloVe 6B, the nearest neighbour of "paris" (issue 22 found it unexplained).
GLOVE_JUNK_EXAMPLE = ("prohertrib", "paris")


def vocabulary_note(space) -> str | None:
    """One plain sentence on the odd tokens of GloVe's vocabulary, for a page that lists a word's
    neighbours or outputs; None for an embedding that is not GloVe. The tokens are explained, not
    filtered: the vocabulary is part of the mechanism, and leaving words out would change what is
    measured (and part from the paper's runs over all 400,000 words)."""
    if not str(getattr(space, "name", "")).startswith("GloVe"):
        return None
    junk, word = GLOVE_JUNK_EXAMPLE
    example = f" (such as “{junk}”, the nearest neighbour of “{word}”)" if junk in space else ""
    return (f"GloVe learnt its 400,000 words from web and news text, so its vocabulary also holds misspellings, "
            f"fragments and junk tokens{example}: they are words of the vocabulary like any other, so the "
            "mechanism can output them, and they are shown rather than filtered out.")


def short_label(label: str) -> str:
    """A mechanism's label without its citation or gloss ("Post-processing fix (Asghar et al. 2026)" →
    "Post-processing fix", "TEM — truncated exponential mechanism (…)" → "TEM"): picker tags and
    table columns that are not cut off at 1024 pixels."""
    return label.split(" (")[0].split(" — ")[0]


#: One colour per outcome, used by every chart so the legend means the same everywhere.
COLOURS = {"original": "#1f77b4", "close": "#2ca02c", "distant": "#d62728"}
LABELS = {"original": "original (rank 0)", "close": "close neighbour", "distant": "distant word"}


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
    log_axis(fig, 1, vocab_size + 1, "x", range=[0, np.log10(vocab_size + 1)],
             title="rank among the word's neighbours + 1 (log)", tickangle=0)
    if shown.any():  # fractions read as numbers (0.001, 10⁻⁵), not as SI units (100μ)
        log_axis(fig, float(density[shown].min()), float(density[shown].max()), "y",
                 title="fraction of outputs per rank" + (" (exact)" if exact else ""))
    else:
        fig.update_yaxes(type="log", title="fraction of outputs per rank" + (" (exact)" if exact else ""))
    fig.update_layout(showlegend=False, bargap=0, margin=MARGIN)
    return titled(fig, title)


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


def sweep_curves(sweeps) -> list[tuple[str, np.ndarray, dict, dict]]:
    """(label, epsilons, {metric: mean}, {metric: standard error}) of each curve set to draw.

    ``sweeps``: a `SweepResult` (one set per mechanism: means and standard errors over its
    repetitions), or a list of (label, result) pairs where a result is a `SweepResult` (one set
    per mechanism, labelled "label — mechanism" when it has several) or any object with
    ``epsilons``, ``proportions`` and ``standard_errors()`` (e.g. `EpsilonSweep`, whose errors
    are binomial over all its outputs, or the closed-form 1-D proportions)."""
    if isinstance(sweeps, SweepResult):
        sweeps = [(None, sweeps)]
    curves = []
    for label, result in sweeps:
        if isinstance(result, SweepResult):
            for m in result.mechanisms:
                name = result.label(m) if label is None else (label if len(result.mechanisms) == 1
                                                              else f"{label} — {result.label(m)}")
                curves.append((name, result.epsilons, {k: result.mean(m, k) for k in result.metrics},
                               {k: result.standard_error(m, k) for k in result.metrics}))
        else:
            errors = result.standard_errors()
            curves.append((label, np.asarray(result.epsilons, dtype=float),
                           {k: np.asarray(v) for k, v in result.proportions.items()},
                           {k: np.asarray(errors[k]) for k in result.proportions}))
    return curves


def curve_set_labels(sweeps) -> list[str]:
    """The labels of the curve sets `proportions_vs_epsilon` can draw from ``sweeps``, in order."""
    return [label for label, _, _, _ in sweep_curves(sweeps)]


def default_curve_sets(sweeps, max_lines: int = MAX_LINES) -> list[str]:
    """The curve sets drawn by default: the first ones whose lines (one per outcome) fit in
    ``max_lines`` (`style.MAX_LINES`, 8) — never all 15 lines of a word and four mechanisms."""
    curves = sweep_curves(sweeps)
    lines_each = max((len(means) for _, _, means, _ in curves), default=1)
    return first_groups([label for label, _, _, _ in curves], lines_each, max_lines)


def proportions_vs_epsilon(sweeps, title: str | None = None, *, chosen_epsilon: float | None = None,
                           shown=None, max_lines: int = MAX_LINES) -> go.Figure:
    """Proportions original / close / distant against epsilon, one line each with a ±2 SE band.

    ``sweeps``: a `SweepResult` or a list of (label, result) (see `sweep_curves`); several curve
    sets (e.g. one word and the average over random words, or several mechanisms) share the
    chart, told apart by dash style. The metrics drawn are those the results hold. ``shown``: the
    labels of the curve sets to draw (`curve_set_labels`); None draws `default_curve_sets`, at most
    ``max_lines`` lines. ``chosen_epsilon``: the page's ε, a dotted vertical line.
    """
    fig = go.Figure()
    dashes = ["solid", "dash", "dot", "dashdot"]
    every_curve = sweep_curves(sweeps)
    keep = set(default_curve_sets(sweeps, max_lines) if shown is None else shown)
    curves = [c for c in every_curve if c[0] in keep] or every_curve[:1]
    for i, (label, epsilons, means, errors) in enumerate(curves):
        x = np.asarray(epsilons, dtype=float)
        for j, name in enumerate(means):
            p = np.asarray(means[name], dtype=float)
            se = np.nan_to_num(np.asarray(errors[name], dtype=float))
            colour, shown = COLOURS.get(name, palette_colour(j)), LABELS.get(name, name)
            lo, hi = np.clip(p - 2 * se, 0, 1), np.clip(p + 2 * se, 0, 1)
            fig.add_trace(go.Scatter(
                x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
                fillcolor=colour, opacity=0.15, line=dict(width=0), hoverinfo="skip", showlegend=False,
                legendgroup=f"{label}-{name}",
            ))
            fig.add_trace(go.Scatter(
                x=x, y=p, mode="lines+markers", name=f"{shown} — {label}" if len(curves) > 1 else shown,
                line=dict(color=colour, dash=dashes[i % len(dashes)]), legendgroup=f"{label}-{name}",
                hovertemplate=f"{label}<br>ε = %{{x:g}}<br>{name}: %{{y:.1%}}<extra></extra>",
            ))
    log_x = all(np.ptp(np.log10(np.asarray(epsilons, float))) > 1.2 for _, epsilons, _, _ in curves)
    every = np.concatenate([np.asarray(epsilons, float) for _, epsilons, _, _ in curves])
    epsilon_x_axis(fig, every, chosen_epsilon=chosen_epsilon, log_x=log_x)
    fig.update_yaxes(title="proportion of outputs", range=[0, 1], tickformat=".0%")
    return titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title)


# ---------------------------------------------------------------- the noisy dot product (Asghar et al. 2026, §4-5)
def histogram_density(samples, bins: int = 80):
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
        centres, density, widths = histogram_density(samples)
        fig.add_trace(go.Bar(x=centres, y=density, width=widths, name=f"{len(samples):,} samples",
                             marker_color="#9ecae1", hovertemplate="%{x:.3g}: %{y:.3g}<extra>samples</extra>"))
    fig.add_trace(go.Scatter(x=grid, y=exact_pdf, mode="lines", name=exact_name, line=dict(color="#08306b", width=2.5)))
    if integral_pdf is not None:
        fig.add_trace(go.Scatter(x=grid, y=integral_pdf, mode="lines", name="paper's Eq. 13, numerical integral",
                                 line=dict(color="#ff7f0e", width=2, dash="dash")))
    fig.update_layout(title=title, bargap=0, margin=MARGIN, legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(title=x_title, exponentformat="power")
    fig.update_yaxes(title="density", exponentformat="power")  # a density of 4×10⁻⁴, never "400μ"
    return titled(fig, title, width=40)


def cdf_with_samples(grid, exact_cdf, samples=None, x_title: str = "z", title: str | None = None) -> go.Figure:
    """Exact CDF with the empirical CDF of the samples."""
    fig = go.Figure()
    if samples is not None and len(samples):
        xs = np.sort(np.asarray(samples, dtype=float))
        keep = np.unique(np.linspace(0, xs.size - 1, min(xs.size, 2000)).astype(int))  # enough points to draw
        fig.add_trace(go.Scatter(x=xs[keep], y=(keep + 1) / xs.size, mode="lines", line_shape="hv",
                                 name=f"empirical CDF ({xs.size:,} samples)", line=dict(color="#6baed6", width=4)))
    fig.add_trace(go.Scatter(x=grid, y=exact_cdf, mode="lines", name="exact CDF", line=dict(color="#08306b", width=2)))
    titled(layout(fig, title, legend_y=-0.2, anchor_top=False), title, width=40)
    fig.update_xaxes(title=x_title, exponentformat="power")
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
    every = np.concatenate([np.asarray(t.y, dtype=float) for t in fig.data])
    every = every[np.isfinite(every) & (every > 0)]
    if every.size:
        log_axis(fig, float(every.min()), float(every.max()), "y", title=y_title)
    else:
        fig.update_yaxes(type="log", title=y_title)
    fig.update_xaxes(title=x_title, exponentformat="power")
    titled(layout(fig, title, legend_y=-0.2, anchor_top=False), title)
    return fig


# ---------------------------------------------------------------- why it happens
# (Asghar et al. 2026, §4, §6; Table 2, Figs. 1, 3, 4, 6)
#: Colours and labels of the three Table 2 quantities (the word against its nearest neighbour is
#: drawn like "original", the nearest against the next like "close").
Z_COLOURS = {"z_w_x1": COLOURS["original"], "z_x1_x2": COLOURS["close"], "far": "#9467bd"}


def z_label(name: str) -> str:
    """Readable label of a Table 2 quantity ("z_w_x1", "z_x1_x2", "z_x1_x101", …)."""
    if name == "z_w_x1":
        return "z(w, x₁) = ‖w − x₁‖/2: the word against its nearest neighbour"
    far = name.rsplit("_x", 1)[-1]
    return f"z(x₁, x{far.translate(str.maketrans('0123456789', '₀₁₂₃₄₅₆₇₈₉'))}) (Eq. 19): " + (
        "the nearest against the next neighbour" if far == "2" else f"the nearest against neighbour {far}")


def _z_colour(name: str) -> str:
    return Z_COLOURS.get(name, Z_COLOURS["far"])


def neighbour_distance_profile(distances, word: str, k: int = 100, title: str | None = None) -> go.Figure:
    """Distance from ``word`` to its neighbours of rank 0..k (``distances``: the sorted distances of
    `neighbour_ranks`, rank 0 = the word itself) as a line, and the gap between consecutive
    neighbours, d(x_{r+1}) − d(x_r), as bars: the jump from the word to its nearest neighbour
    dwarfs every gap that follows."""
    d = np.asarray(distances, dtype=float)[: k + 1]
    ranks = np.arange(d.size)
    gaps = np.diff(d)  # gaps[r] = d(x_{r+1}) - d(x_r), drawn between ranks r and r + 1
    fig = go.Figure()
    fig.add_trace(go.Bar(x=ranks[:-1] + 0.5, y=gaps, name="step to the next rank  d(xᵣ₊₁) − d(xᵣ)",
                         marker_color=[COLOURS["original"]] + [COLOURS["close"]] * (gaps.size - 1), opacity=0.8,
                         hovertemplate="ranks %{customdata}<br>step %{y:.4f}<extra></extra>",
                         customdata=[f"{r}→{r + 1}" for r in ranks[:-1]]))
    fig.add_trace(go.Scatter(x=ranks, y=d, mode="lines+markers", name=f"distance from “{word}”",
                             line=dict(color=COLOURS["original"], width=2.5), marker=dict(size=4),
                             hovertemplate="rank %{x}<br>distance %{y:.4f}<extra></extra>"))
    if d.size > 1:
        # in the empty band under the distance line and above the bars (the steps after the first are
        # small, near 0): the label covers neither
        fig.add_annotation(x=1, y=d[1], text=f"nearest neighbour: {d[1]:.3f} away", showarrow=True, arrowhead=2,
                           ax=40, ay=60, xanchor="left", yanchor="top", font=dict(color=COLOURS["original"]))
    fig.update_xaxes(title="rank of the neighbour (0 = the word itself)")
    fig.update_yaxes(title="Euclidean distance", range=[0, 1.25 * float(np.nanmax(d))] if d.size else None)
    fig.update_layout(bargap=0.1, margin=MARGIN, legend=dict(orientation="h", y=-0.25))
    return titled(fig, title)


def neighbour_gap_distributions(values: dict, means: dict | None = None, published: dict | None = None,
                                title: str | None = None, bins: int = 60) -> go.Figure:
    """Per-word distributions of the Table 2 quantities (``values``: name -> per-word array, NaN
    ignored) as overlaid histograms (fraction of words per bin), with our mean of each as a
    solid line and, when given, the paper's published mean as a dotted one (``published``:
    name -> value)."""
    fig = go.Figure()
    finite = {k: np.asarray(v, dtype=float)[np.isfinite(np.asarray(v, dtype=float))] for k, v in values.items()}
    hi = max((np.quantile(v, 0.995) for v in finite.values() if v.size), default=1.0)
    edges = np.linspace(0.0, hi, bins + 1)
    for name, v in finite.items():
        counts, _ = np.histogram(np.clip(v, 0, hi), bins=edges)
        fig.add_trace(go.Bar(x=(edges[:-1] + edges[1:]) / 2, y=counts / max(v.size, 1), width=np.diff(edges),
                             name=z_label(name), marker_color=_z_colour(name), opacity=0.55,
                             hovertemplate="z %{x:.3f}: %{y:.1%} of words<extra></extra>"))
    # The means are vertical lines with a legend entry each: labels written over the histogram covered
    # its bars (issue 22: "an annotation over a bar").
    top = max((float(t.y.max()) for t in fig.data if len(t.y)), default=1.0) * 1.05
    for name in finite:
        colour = _z_colour(name)
        short = z_label(name).split(" (Eq")[0].split(" = ")[0]  # "z(w, x₁)", "z(x₁, x₂)"
        if means and name in means and np.isfinite(means[name]):
            fig.add_trace(go.Scatter(x=[means[name]] * 2, y=[0, top], mode="lines", name=f"mean {short}: "
                                     f"{means[name]:.3f}", line=dict(color=colour, width=2),
                                     hovertemplate=f"our mean {means[name]:.3f}<extra></extra>"))
        if published and name in published:
            fig.add_trace(go.Scatter(x=[published[name]] * 2, y=[0, top], mode="lines",
                                     name=f"paper's mean {short}: {published[name]:.3f}",
                                     line=dict(color=colour, width=2, dash="dot"),
                                     hovertemplate=f"paper {published[name]:.3f}<extra></extra>"))
    fig.update_layout(barmode="overlay", bargap=0, margin=MARGIN, legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(title="z (same units as the embedding)")
    fig.update_yaxes(title="fraction of words", tickformat=".0%", range=[0, top])
    return titled(fig, title)


def win_probabilities_vs_epsilon(probabilities, frequencies=None, word: tuple | None = None,
                                 title: str | None = None, *, chosen_epsilon: float | None = None) -> go.Figure:
    """Fig. 6: Pr[w beats x₁] = F_Z(z(w, x₁)) and Pr[x₁ beats x₂] = F_Z(z(x₁, x₂)) against ε
    (``probabilities``: a `WinProbabilities`; mean over words as lines, 10–90 % of words as a
    band). ``frequencies`` (a `MechanismFrequencies`) overlays what the mechanism did: the
    proportion of outputs equal to the word (bounded by the first curve, Eq. 18) and to its
    nearest neighbour (bounded by Eq. 20–21, dotted), ±2 SE. ``word`` = (label, WinProbabilities
    of that one word) adds its two curves, dashed."""
    fig = go.Figure()
    eps = np.asarray(probabilities.epsilons, dtype=float)
    mean, bands = probabilities.mean(), probabilities.quantiles((0.1, 0.9))
    names = {"w_beats_x1": ("Pr[w beats x₁] = F_Z(z(w, x₁))  (Eq. 18)", COLOURS["original"]),
             "x1_beats_x2": ("Pr[x₁ beats x₂] = F_Z(z(x₁, x₂))  (Eq. 19)", COLOURS["close"])}
    for key, (label, colour) in names.items():
        lo, hi = bands[key]
        if np.isfinite(lo).all():
            fig.add_trace(go.Scatter(x=np.concatenate([eps, eps[::-1]]), y=np.concatenate([hi, lo[::-1]]),
                                     fill="toself", fillcolor=colour, opacity=0.15, line=dict(width=0),
                                     hoverinfo="skip", name="10–90 % of words", showlegend=key == "w_beats_x1",
                                     legendgroup="band"))
        fig.add_trace(go.Scatter(x=eps, y=mean[key], mode="lines", name=f"{label}, mean over words",
                                 line=dict(color=colour, width=3),
                                 hovertemplate="ε = %{x:g}<br>%{y:.3f}<extra></extra>"))
    if word is not None:
        label, one = word
        for key, (name, colour) in names.items():
            fig.add_trace(go.Scatter(x=np.asarray(one.epsilons, float), y=getattr(one, key)[0], mode="lines",
                                     name=f"{name.split('  ')[0]} for “{label}”",
                                     line=dict(color=colour, width=2, dash="dash")))
    if frequencies is not None:
        f_eps = np.asarray(frequencies.epsilons, dtype=float)
        se = frequencies.standard_errors()
        for key, label, colour in (("original", "mechanism: output = the word", COLOURS["original"]),
                                   ("nearest", "mechanism: output = its nearest neighbour x₁", COLOURS["distant"])):
            fig.add_trace(go.Scatter(
                x=f_eps, y=getattr(frequencies, key), mode="markers", name=f"{label} ({frequencies.trials:,} runs per ε)",
                marker=dict(color=colour, size=8, symbol="diamond"),
                error_y=dict(type="data", array=2 * se[key], visible=True),
                hovertemplate="ε = %{x:g}<br>%{y:.3f}<extra></extra>"))
        fig.add_trace(go.Scatter(x=f_eps, y=frequencies.nearest_bound, mode="lines",
                                 name="bound on Pr[output = x₁]  (Eq. 20–21)",
                                 line=dict(color=COLOURS["distant"], dash="dot", width=2)))
    fig.add_hline(y=0.5, line=dict(color="grey", dash="dot", width=1),
                  annotation=dict(text="½: a coin toss"), annotation_position="bottom right")
    log_x = np.ptp(np.log10(eps)) > 1.2 if eps.size > 1 else False
    epsilon_x_axis(fig, eps, chosen_epsilon=chosen_epsilon, log_x=log_x)
    fig.update_yaxes(title="probability", range=[0, 1.02])
    titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title)
    return fig


def location_map(point_map, rates=None, epsilon: float | None = None, highlight=(), title: str | None = None) -> go.Figure:
    """Places of a `PointMap` (km, equal scales), coloured by the proportion of runs in which each
    keeps itself (``rates``, one per place) at ``epsilon`` per km; the ``highlight`` places are
    labelled by name (every place shows its name on hover)."""
    xy = np.asarray(point_map.xy)
    text = [f"<b>{n}</b>" if n in highlight else "" for n in point_map.names]
    nn = point_map.nearest_neighbour_distances()
    marker = dict(size=10, line=dict(width=1, color="#333"))
    hover = "%{customdata[0]}<br>nearest other place: %{customdata[1]:,.0f} km"
    custom = np.array([[n, d, r] for n, d, r in zip(point_map.names, nn, rates if rates is not None else nn)],
                      dtype=object)
    if rates is not None:
        marker.update(color=np.asarray(rates, float), colorscale="Viridis", cmin=0, cmax=1,
                      colorbar=dict(title="keeps itself", tickformat=".0%"))
        hover += "<br>keeps itself: %{customdata[2]:.1%}"
    fig = go.Figure(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers+text", text=text, textposition="top center",
                               marker=marker, customdata=custom, hovertemplate=hover + "<extra></extra>",
                               showlegend=False))
    fig.update_xaxes(title="km (west – east)", zeroline=False)
    fig.update_yaxes(title="km (south – north)", scaleanchor="x", scaleratio=1, zeroline=False)
    if title is None and epsilon is not None:
        title = f"How often each place keeps itself at ε = {epsilon:g} per km"
    fig.update_layout(margin=MARGIN)
    titled(fig, title, width=36)  # drawn in half the page's width
    return fig


def keep_rate_vs_epsilon(keep, places, title: str | None = None, *, chosen_epsilon: float | None = None) -> go.Figure:
    """Proportion of runs in which each of ``places`` keeps itself against ε (per km), from a
    `KeepRates`, with ±2 standard-error bands; ``chosen_epsilon`` (per km): the page's ε, a dotted
    vertical line. Drawn in half the page's width: the short ε axis title."""
    fig = go.Figure()
    eps = np.asarray(keep.epsilons, dtype=float)
    se = keep.standard_errors()
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    for i, place in enumerate(places):
        j = keep.names.index(place)
        colour = palette[i % len(palette)]
        p = keep.rates[j]
        lo, hi = np.clip(p - 2 * se[j], 0, 1), np.clip(p + 2 * se[j], 0, 1)
        fig.add_trace(go.Scatter(x=np.concatenate([eps, eps[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
                                 fillcolor=colour, opacity=0.15, line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, legendgroup=place))
        fig.add_trace(go.Scatter(x=eps, y=p, mode="lines+markers", name=place, line=dict(color=colour),
                                 legendgroup=place, hovertemplate=f"{place}<br>ε = %{{x:g}} per km<br>"
                                                                  "keeps itself %{y:.1%}<extra></extra>"))
    span = eps if chosen_epsilon is None else np.append(eps, float(chosen_epsilon))
    if chosen_epsilon is not None:
        vertical_line(fig, float(chosen_epsilon), f"ε = {chosen_epsilon:g}", log_x=True)
    log_axis(fig, float(np.min(span)), float(np.max(span)), "x",
             title=EPSILON_AXIS_SHORT.replace("ε  ", "ε per km<br>", 1))
    fig.update_yaxes(title="runs that keep the place", range=[0, 1.02], tickformat=".0%")
    titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title, width=36)
    return fig


def noise_scatter(noise, epsilon: float, max_points: int = 3000, units: str = "", title: str | None = None) -> go.Figure:
    """Scatter of 2-D noise vectors (at most ``max_points`` shown), equal scales, with the circle of
    the mean radius E[R] = 2/ε."""
    noise = np.asarray(noise, dtype=float)[:max_points]
    fig = go.Figure(go.Scatter(x=noise[:, 0], y=noise[:, 1], mode="markers", name=f"{len(noise):,} noise vectors",
                               marker=dict(size=3, color="#6baed6", opacity=0.6)))
    r = 2.0 / epsilon
    t = np.linspace(0, 2 * np.pi, 200)
    fig.add_trace(go.Scatter(x=r * np.cos(t), y=r * np.sin(t), mode="lines", name=f"mean radius 2/ε = {r:.4g}{units}",
                             line=dict(color="#08306b", width=2)))
    fig.update_xaxes(title=f"η₁{units and ' (' + units.strip() + ')'}", zeroline=True)
    fig.update_yaxes(title=f"η₂{units and ' (' + units.strip() + ')'}", scaleanchor="x", scaleratio=1, zeroline=True)
    layout(fig, title, legend_y=-0.25, anchor_top=False)
    return fig


# ---------------------------------------------------------------- choosing epsilon (issue 7)
#: One colour per compared mechanism, in the order given (the same in every chart of a choice).
#: The palette without its grey (kept for reference lines) and its olive (too close to the
#: "close" green of the outcome charts).
SERIES_COLOURS = tuple(c for c in PALETTE if c not in ("#7f7f7f", "#bcbd22"))


def _series_colour(i: int) -> str:
    return SERIES_COLOURS[i % len(SERIES_COLOURS)]


def _log_epsilon_axis(epsilons) -> bool:
    """A log epsilon axis when the grid spans more than 1.2 decades (as `proportions_vs_epsilon`)."""
    e = np.asarray(epsilons, dtype=float)
    return e.size > 1 and float(np.ptp(np.log10(e))) > 1.2


def epsilon_tradeoff(results, answers=None, privacy: str = "unchanged", utility: str = "within_k",
                     privacy_title: str | None = None, utility_title: str | None = None,
                     title: str | None = None) -> go.Figure:
    """The privacy-utility trade-off: privacy metric (y) against utility metric (x), one line
    per mechanism through its grid epsilons (points labelled with ε), error bars = the results'
    bands (±2 SE) on both axes, recommended epsilons ringed.

    ``results``: objects with ``label``, ``epsilons``, ``values`` and ``bands`` (metric -> arrays,
    e.g. `privlib.words.choice.MechanismMetrics`); ``answers``: matching objects with a boolean
    ``recommended`` over the grid, or None.
    """
    fig = go.Figure()
    for i, r in enumerate(results):
        colour = _series_colour(i)
        eps = np.asarray(r.epsilons, dtype=float)
        x, y = np.asarray(r.values[utility], float), np.asarray(r.values[privacy], float)
        (x_lo, x_hi), (y_lo, y_hi) = r.bands[utility], r.bands[privacy]
        step = max(1, int(np.ceil(eps.size / 12)))  # label at most about 12 points
        text = [f"ε={e:g}" if k % step == 0 or k == eps.size - 1 else "" for k, e in enumerate(eps)]
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers+text", text=text, textposition="top center", name=r.label,
            line=dict(color=colour), marker=dict(color=colour, size=7), textfont=dict(color=colour, size=10),
            error_x=dict(type="data", symmetric=False, array=np.asarray(x_hi) - x, arrayminus=x - np.asarray(x_lo),
                         color=rgba(colour, 0.4), thickness=1),
            error_y=dict(type="data", symmetric=False, array=np.asarray(y_hi) - y, arrayminus=y - np.asarray(y_lo),
                         color=rgba(colour, 0.4), thickness=1),
            customdata=eps, legendgroup=r.label,
            hovertemplate=f"{r.label}<br>ε = %{{customdata:g}}<br>utility %{{x:.3g}}<br>privacy %{{y:.3g}}<extra></extra>",
        ))
        if answers is not None and np.any(answers[i].recommended):
            ok = np.asarray(answers[i].recommended, dtype=bool)
            fig.add_trace(go.Scatter(
                x=x[ok], y=y[ok], mode="markers", name=f"recommended ε — {r.label}", legendgroup=r.label,
                marker=dict(symbol="circle-open", size=17, color=colour, line=dict(width=2.5)),
                customdata=eps[ok], hovertemplate=f"recommended: ε = %{{customdata:g}}<extra>{r.label}</extra>",
            ))
    fig.update_xaxes(title=utility_title or f"{utility} (utility)", exponentformat="power")
    fig.update_yaxes(title=privacy_title or f"{privacy} (privacy)", exponentformat="power")
    titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title)
    return fig


def metric_vs_epsilon(results, metric: str, answers=None, target: float | None = None, target_label: str = "target",
                      y_title: str | None = None, fraction: bool = False, log_y: bool = False,
                      offset: float = 0.0, title: str | None = None, *, chosen_epsilon: float | None = None,
                      narrow: bool = False) -> go.Figure:
    """One metric against epsilon: a line per mechanism with its band (the results' ``bands``,
    ±2 SE), ``target`` as a dashed horizontal line, and each mechanism's recommended range of
    epsilons (``answers[i].range``) shaded in its colour. The epsilon axis is `EPSILON_AXIS`.
    ``offset`` is added to every value (e.g. 1 to draw ranks + 1 on a log axis). ``chosen_epsilon``:
    a dotted vertical line there; ``narrow``: drawn in half the page's width (the short ε axis
    title, a title wrapped sooner)."""
    fig = go.Figure()
    all_eps = np.concatenate([np.asarray(r.epsilons, dtype=float) for r in results]) if results else np.ones(1)
    log_x = _log_epsilon_axis(all_eps)
    for i, r in enumerate(results):
        colour = _series_colour(i)
        x = np.asarray(r.epsilons, dtype=float)
        y = np.asarray(r.values[metric], dtype=float) + offset
        lo, hi = (np.asarray(b, dtype=float) + offset for b in r.bands[metric])
        fig.add_trace(go.Scatter(
            x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself", mode="lines",
            fillcolor=rgba(colour, 0.15), line=dict(width=0), hoverinfo="skip", showlegend=False, legendgroup=r.label,
        ))
        fmt = ".1%" if fraction else ".4g"
        name = short_label(r.label) if narrow else r.label  # legends of half-width charts were cut off
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers", name=name, line=dict(color=colour), legendgroup=r.label,
            customdata=np.stack([lo, hi], axis=1),
            hovertemplate=(f"{r.label}<br>ε = %{{x:g}}<br>%{{y:{fmt}}} (band %{{customdata[0]:{fmt}}}–"
                           f"%{{customdata[1]:{fmt}}})<extra></extra>"),
        ))
        span = getattr(answers[i], "range", None) if answers is not None else None
        if span is not None:
            a, b = span
            if a == b:  # a single grid point: a narrow band around it
                a, b = (a / 1.04, b * 1.04) if log_x else (a - 0.01 * np.ptp(all_eps) - 1e-9, b + 0.01 * np.ptp(all_eps) + 1e-9)
            fig.add_vrect(x0=a, x1=b, fillcolor=colour, opacity=0.12, line_width=0, layer="below")
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", legendgroup=r.label,
                                     marker=dict(symbol="square", size=12, color=rgba(colour, 0.3)),
                                     name=f"recommended ε — {name}"))
    if target is not None:
        fig.add_hline(y=target, line=dict(color="#444", dash="dash", width=1.5),
                      annotation_text=target_label, annotation_position="top left")
    axis_title = EPSILON_AXIS_SHORT if narrow else EPSILON_AXIS
    epsilon_x_axis(fig, all_eps, chosen_epsilon=chosen_epsilon, title=axis_title, log_x=log_x,
                   text=None if chosen_epsilon is None else f"ε = {chosen_epsilon:g}")
    y_properties = {"tickformat": ".0%", "range": [-0.02, 1.02]} if fraction else {"exponentformat": "power"}
    values = np.concatenate([np.asarray(t.y, dtype=float) for t in fig.data if t.y is not None
                             and len(t.y) and t.y[0] is not None]) if fig.data else np.empty(0)
    values = values[np.isfinite(values) & (values > 0)]
    if log_y and values.size:
        log_axis(fig, float(values.min()), float(values.max()), "y", title=y_title or metric)
    else:
        fig.update_yaxes(title=y_title or metric, type="log" if log_y else "linear", **y_properties)
    titled(layout(fig, title, legend_y=-0.3, anchor_top=False), title, width=30 if narrow else 60)
    return fig
