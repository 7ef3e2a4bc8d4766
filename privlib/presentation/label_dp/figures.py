"""Plotly figure builders for the label-DP topic: pure functions from plain numbers and arrays to
``go.Figure``.

Charts follow Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy":
1. the training data with its randomised (given) labels, flipped labels marked ×, the predicted
   labels, the consensus set S_cons = {j : ỹ_j = ŷ_j} (§1 (ii)) and the decision boundary before and
   after retraining (App. A, Fig. 1);
2. test accuracy against ε for the baseline and the retraining variants (mean ± SD over repetitions),
   the non-private model and the given-label accuracy e^ε/(e^ε + C − 1) of k-ary randomised response
   (§3);
3. label accuracy of the given, predicted and consensus-set labels and the consensus fraction
   (Tables 3/4), against ε and as bars at one ε;
4. a heat map of the retraining gain over (ε, class separation) (our addition, not in the paper);
5. the theory: Thm 1's per-point bounds α(x), α̂(x) and Thm 4's α₁(x) against cos β, and the
   accuracy bounds of eqs. 59, 65 and 141 against n (our evaluation of the paper's formulas).

Nothing here computes a privacy quantity beyond the closed form e^ε/(e^ε + C − 1) (taken from
``privlib.core.randomised_response``): the numbers come from ``privlib.label_dp``; pages only render.
Every ε axis says which direction is more privacy.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privlib.core.randomised_response import RandomisedResponse
from privlib.core.threads import single_threaded_blas
from privlib.label_dp.retraining import MODE_LABELS
from privlib.presentation.style import (
    EPSILON_AXIS,
    EPSILON_AXIS_SHORT,
    GREY,
    PALETTE,
    layout,
    log_axis,
    palette_colour,
    reference_line,
    rgba,
    titled,
    vertical_line,
    wrap_text,
)

#: Colours of the modes (the same in every chart); their labels are the library's `MODE_LABELS`.
MODE_COLOURS = {"baseline": "#7f7f7f", "full": "#ff7f0e", "consensus": "#2ca02c", "confidence": "#9467bd"}
NONPRIVATE_COLOUR = "#000000"
GIVEN_COLOUR = "#d62728"
#: The label-accuracy series (Tables 3/4 of the paper): labels and colours, keyed by the sweep's diagnostics.
LABEL_SERIES = {
    "given_label_accuracy": ("given labels ŷ", GIVEN_COLOUR),
    "predicted_label_accuracy": ("predicted labels ỹ", "#1f77b4"),
    "consensus_label_accuracy": ("ỹ on the consensus set", MODE_COLOURS["consensus"]),
    "consensus_fraction": ("consensus fraction", "#8c564b"),
}
#: Class colours of the scatter chart (binary data: blue = label 0 / −1, orange = label 1 / +1).
CLASS_COLOURS = PALETTE
DIAGNOSTIC_NOTE = "uses clean labels: a teaching diagnostic, not private"


def _vline(fig: go.Figure, x: float, text: str, log_x: bool, position: str = "top", anchor: str = "left") -> None:
    """A dotted vertical line at ``x`` with a label above (``position="top"``) or at the bottom right.
    plotly places shapes on a log axis by data value but annotations by log10 value, so the label is
    added by hand (plotly's own vline annotation lands at x itself, off the chart)."""
    if position == "top":
        vertical_line(fig, x, text, log_x=log_x)
        return
    fig.add_vline(x=x, line={"color": "#444444", "width": 1, "dash": "dot"})
    fig.add_annotation(x=math.log10(x) if log_x else x, y=0.0, yref="paper", text=text,
                       showarrow=False, xanchor=anchor, yanchor="bottom", xshift=4 if anchor == "left" else -4)


def _at(epsilons: np.ndarray, chosen: float | None) -> int | None:
    """The index of ``chosen`` in the grid ``epsilons`` (relative tolerance 1e-9), else None."""
    if chosen is None:
        return None
    hit = np.flatnonzero(np.isclose(epsilons, float(chosen), rtol=1e-9, atol=0.0))
    return int(hit[0]) if hit.size else None


def _mean_sd(values) -> tuple[np.ndarray, np.ndarray | None]:
    """(mean, sd) from a dict {mean, sd}, a (mean, sd) pair or a plain array of means."""
    if isinstance(values, dict):
        sd = values.get("sd")
        return np.asarray(values["mean"], dtype=float), None if sd is None else np.asarray(sd, dtype=float)
    if isinstance(values, tuple) and len(values) == 2:
        return np.asarray(values[0], dtype=float), None if values[1] is None else np.asarray(values[1], dtype=float)
    return np.asarray(values, dtype=float), None


def given_label_accuracy(epsilons, classes: int) -> np.ndarray:
    """P(ŷ = y) = e^ε/(e^ε + C − 1) of k-ary randomised response at each ε (§3 of the retraining
    paper; ``RandomisedResponse.keep_probability``)."""
    return np.array([RandomisedResponse(classes, float(e)).keep_probability for e in np.atleast_1d(epsilons)])


def _given_line(fig: go.Figure, lo: float, hi: float, classes: int, row=None, col=None, show: bool = True) -> None:
    grid = np.geomspace(lo, hi, 80) if lo > 0 else np.linspace(lo, hi, 80)
    fig.add_trace(go.Scatter(
        x=grid, y=given_label_accuracy(grid, classes), mode="lines", showlegend=show,
        name=f"given-label accuracy e^ε/(e^ε + C − 1), C = {classes}",
        line=dict(color=GIVEN_COLOUR, dash="dot", width=1.6),
        hovertemplate="ε = %{x:.3g}<br>P(given label = true label) = %{y:.3f}<extra>randomised response</extra>"),
        row=row, col=col)


def _chosen_marker(fig: go.Figure, epsilons: np.ndarray, chosen: float | None, series: list) -> None:
    """A dotted vertical line at ``chosen`` (a log ε axis) and one open circle per series (label, values)
    at it."""
    if chosen is None:
        return
    _vline(fig, chosen, f"ε = {chosen:.3g}", log_x=True)
    i = _at(epsilons, chosen)
    if i is None:
        return
    points = [(label, float(values[i])) for label, values in series if np.isfinite(values[i])]
    if points:
        fig.add_trace(go.Scatter(x=[chosen] * len(points), y=[v for _, v in points], mode="markers",
                                 name=f"chosen ε = {chosen:.3g}", text=[label for label, _ in points],
                                 marker=dict(size=13, symbol="circle-open", color="#000000", line=dict(width=2)),
                                 hovertemplate="%{text}: %{y:.3f}<extra>chosen ε</extra>"))


# ---------------------------------------------------------------- 2. test accuracy against epsilon
def accuracy_vs_epsilon(epsilons, curves: dict, classes: int, nonprivate: float | None = None,
                        chosen_epsilon: float | None = None, repeats: int | None = None,
                        title: str | None = None, y_title: str = "test accuracy") -> go.Figure:
    """Test accuracy against ε (log axis), one line per variant with a ± 1 SD band over the
    repetitions, the non-private model dashed and the given-label accuracy e^ε/(e^ε + C − 1) dotted.

    ``curves``: mode ("baseline", "full", "consensus", "confidence" or any name) -> {mean, sd} (or a
    (mean, sd) pair, or an array of means), each an array over ``epsilons``. ``nonprivate``: the
    accuracy of the same model trained on clean labels (a diagnostic). ``chosen_epsilon`` draws a
    dotted vertical line and a marker on every curve where the grid has that ε."""
    eps = np.asarray(epsilons, dtype=float)
    fig = go.Figure()
    series = []
    for i, (mode, values) in enumerate(curves.items()):
        mean, sd = _mean_sd(values)
        label = MODE_LABELS.get(mode, mode)
        colour = MODE_COLOURS.get(mode, palette_colour(i))
        if sd is not None:
            lo, hi = np.clip(mean - sd, 0, 1), np.clip(mean + sd, 0, 1)
            fig.add_trace(go.Scatter(x=np.concatenate([eps, eps[::-1]]), y=np.concatenate([hi, lo[::-1]]),
                                     fill="toself", fillcolor=rgba(colour, 0.15), line=dict(width=0),
                                     hoverinfo="skip", showlegend=False, legendgroup=mode, name=f"{label} ± SD"))
        sd_text = sd if sd is not None else np.full(mean.shape, np.nan)
        over = f" over {repeats} runs" if repeats else ""
        fig.add_trace(go.Scatter(
            x=eps, y=mean, mode="lines+markers", name=label, legendgroup=mode,
            line=dict(color=colour, width=2.4 if mode == "consensus" else 2), marker=dict(size=6),
            customdata=np.stack([sd_text], axis=1),
            hovertemplate=f"{label}<br>ε = %{{x:g}}<br>accuracy %{{y:.3f}} ± %{{customdata[0]:.3f}} (SD{over})"
                          "<extra></extra>"))
        series.append((label, mean))
    lo, hi = (float(eps.min()), float(eps.max())) if eps.size else (0.05, 8.0)
    if nonprivate is not None:
        reference_line(fig, [lo, hi], float(nonprivate), f"non-private (clean labels, {nonprivate:.3f})",
                       NONPRIVATE_COLOUR, "dash")
    _given_line(fig, lo, hi, classes)
    _chosen_marker(fig, eps, chosen_epsilon, series)
    if chosen_epsilon is not None:
        lo, hi = min(lo, float(chosen_epsilon)), max(hi, float(chosen_epsilon))
    log_axis(fig, lo, hi, "x", title=EPSILON_AXIS)
    fig.update_yaxes(title=y_title, range=[0, 1.02])
    return titled(layout(fig, title, anchor_top=False), title)


# ---------------------------------------------------------------- 3. label accuracy (Tables 3/4)
def label_accuracy_vs_epsilon(epsilons, series: dict, classes: int | None = None,
                              chosen_epsilon: float | None = None, title: str | None = None,
                              narrow: bool = False) -> go.Figure:
    """Label accuracy against ε (log axis): the given (randomised) labels, the predicted labels on
    all training points, the predicted labels on the consensus set, and the consensus fraction
    (dashed), as in Tables 3/4 of the paper. ``series``: key of `LABEL_SERIES` -> {mean, sd} or
    array of means over ``epsilons``. With ``classes`` the closed form e^ε/(e^ε + C − 1) is drawn
    dotted (the given-label accuracy the sampled one estimates). ``narrow``: drawn in half the page's
    width (the short ε axis title, a title wrapped sooner)."""
    eps = np.asarray(epsilons, dtype=float)
    fig = go.Figure()
    drawn = []
    for i, (key, values) in enumerate(series.items()):
        mean, sd = _mean_sd(values)
        label, colour = LABEL_SERIES.get(key, (key, palette_colour(i)))
        fraction = key == "consensus_fraction"
        fig.add_trace(go.Scatter(
            x=eps, y=mean, mode="lines+markers", name=label,
            line=dict(color=colour, width=2, dash="dash" if fraction else "solid"),
            marker=dict(size=6, symbol="square" if fraction else "circle"),
            error_y=None if sd is None else dict(type="data", array=sd, visible=True, thickness=1, width=3),
            hovertemplate=f"{label}<br>ε = %{{x:g}}<br>%{{y:.3f}}<extra></extra>"))
        drawn.append((label, mean))
    if classes is not None and eps.size:
        _given_line(fig, float(eps.min()), float(eps.max()), classes)
    _chosen_marker(fig, eps, chosen_epsilon, drawn)
    axis_title = EPSILON_AXIS_SHORT if narrow else EPSILON_AXIS
    span = np.append(eps, chosen_epsilon) if chosen_epsilon is not None else eps
    if span.size:
        log_axis(fig, float(span.min()), float(span.max()), "x", title=axis_title)
    else:
        fig.update_xaxes(type="log", title=axis_title)
    fig.update_yaxes(title="labels right (diagnostic)" if narrow else "fraction of labels right (diagnostic)",
                     range=[0, 1.02], tickformat=".0%")
    return titled(layout(fig, title, anchor_top=False), title, width=36 if narrow else 60)


def label_accuracy_bars(values: dict, sds: dict | None = None, epsilon: float | None = None,
                        title: str | None = None) -> go.Figure:
    """Tables-3/4-style bars at one ε: accuracy of the given, predicted and consensus-set labels,
    and the consensus fraction (hatched, a size, not an accuracy). ``values``: key of
    `LABEL_SERIES` -> number; ``sds``: the same keys -> SD over repetitions (error bars)."""
    keys = [k for k in LABEL_SERIES if k in values] + [k for k in values if k not in LABEL_SERIES]
    labels = [LABEL_SERIES.get(k, (k, None))[0] for k in keys]
    colours = [LABEL_SERIES.get(k, (None, palette_colour(i)))[1] for i, k in enumerate(keys)]
    y = [float(values[k]) for k in keys]
    err = [float((sds or {}).get(k, np.nan)) for k in keys]
    # Each value is written under its bar, in the category label: a number drawn above a bar sat on its
    # error bar (issue 22: "an annotation over a bar").
    names = [f"{wrap_text(label, 12)}<br><b>{v:.1%}</b>" for label, v in zip(labels, y)]
    fig = go.Figure(go.Bar(
        x=names, y=y, marker=dict(color=colours, pattern=dict(shape=["/" if k == "consensus_fraction" else ""
                                                                     for k in keys])),
        error_y=dict(type="data", array=err, visible=bool(sds)), name="label accuracy",
        customdata=labels, hovertemplate="%{customdata}: %{y:.3f}<extra></extra>"))
    fig.update_yaxes(title="labels right (diagnostic)", range=[0, 1.1], tickformat=".0%")
    fig.update_xaxes(tickangle=0)
    fig.update_layout(showlegend=False)
    title = title or (f"Label accuracy at ε = {epsilon:.3g}" if epsilon is not None else None)
    return titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title, width=36)


# ---------------------------------------------------------------- 4. retraining gain heat map
def gain_heatmap(epsilons, separations, gain, mode: str = "consensus", chosen_epsilon: float | None = None,
                 chosen_separation: float | None = None, separation_title: str = "class separation Δ",
                 title: str | None = None) -> go.Figure:
    """The retraining gain (accuracy after retraining minus the baseline's, mean over repetitions)
    over ε (columns) and class separation (rows): blue where retraining helps, red where it hurts,
    white at 0. ``gain`` has shape (len(separations), len(epsilons)); NaN cells stay empty. The
    chosen cell, when on the grid, is outlined. Our addition, not in the paper."""
    eps = np.asarray(epsilons, dtype=float)
    seps = np.asarray(separations, dtype=float)
    z = np.asarray(gain, dtype=float)
    if z.shape != (seps.size, eps.size):
        raise ValueError(f"gain must have shape (separations, epsilons) = {(seps.size, eps.size)}, got {z.shape}.")
    x = [f"{e:.3g}" for e in eps]
    y = [f"{s:.3g}" for s in seps]
    finite = np.abs(z[np.isfinite(z)])
    span = max(float(finite.max()) if finite.size else 0.0, 0.01)
    label = MODE_LABELS.get(mode, mode)
    text = np.where(np.isfinite(z), np.char.mod("%+.3f", np.nan_to_num(z)), "")
    fig = go.Figure(go.Heatmap(
        x=x, y=y, z=z, zmin=-span, zmax=span, zmid=0.0, colorscale="RdBu", text=text, texttemplate="%{text}",
        colorbar=dict(title="gain"), name="gain",
        hovertemplate=f"ε = %{{x}}<br>{separation_title} = %{{y}}<br>{label} − baseline: %{{z:+.3f}}<extra></extra>"))
    i, j = _at(seps, chosen_separation), _at(eps, chosen_epsilon)
    if i is not None and j is not None:
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, xref="x", yref="y",
                      line=dict(color="#000000", width=3))
    fig.update_xaxes(title=EPSILON_AXIS, type="category")
    fig.update_yaxes(title=separation_title, type="category")
    title = title or f"Accuracy gain of {label} over the baseline"
    return titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title)


# ---------------------------------------------------------------- 1. the data, its labels and the boundaries
def plane_coordinates(X, first_two: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """2-D coordinates of the public features for the scatter chart: (points (n × 2), centre (d,),
    basis (d × 2)) with points = (X − centre) @ basis.

    ``first_two=True``: the first two coordinates x⁽¹⁾, x⁽²⁾ (the Fig. 1 view; centre 0). Otherwise
    the top two principal components of X (numpy SVD; features only, which label DP leaves public),
    each oriented so that its largest loading is positive (a deterministic sign)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] < 2:
        raise ValueError(f"need features of shape (n, d) with d >= 2, got {X.shape}.")
    if first_two:
        basis = np.zeros((X.shape[1], 2))
        basis[0, 0] = basis[1, 1] = 1.0
        centre = np.zeros(X.shape[1])
    else:
        centre = X.mean(axis=0)
        _, _, vt = np.linalg.svd(X - centre, full_matrices=False)
        basis = vt[:2].T.copy()
        for k in range(2):
            if basis[np.argmax(np.abs(basis[:, k])), k] < 0:
                basis[:, k] = -basis[:, k]
    return (X - centre) @ basis, centre, basis


def boundary_in_plane(theta, intercept: float, centre, basis) -> tuple[np.ndarray, float]:
    """The binary linear rule ⟨θ, x⟩ + b = 0 restricted to the plane x = centre + basis·z: it is the
    line ⟨basisᵀθ, z⟩ + (⟨θ, centre⟩ + b) = 0. Returns (w (2,), c) of ⟨w, z⟩ + c = 0."""
    theta = np.asarray(theta, dtype=float).ravel()
    return np.asarray(basis, dtype=float).T @ theta, float(theta @ np.asarray(centre, dtype=float) + intercept)


def _line_points(w, c, x_range, y_range):
    """Two end points of {z : w·z + c = 0} across the box, or None (no line or outside the box)."""
    w1, w2 = float(w[0]), float(w[1])
    if abs(w1) < 1e-300 and abs(w2) < 1e-300:
        return None
    if abs(w2) >= abs(w1):
        xs = np.array(x_range, dtype=float)
        ys = -(c + w1 * xs) / w2
    else:
        ys = np.array(y_range, dtype=float)
        xs = -(c + w2 * ys) / w1
    return xs, ys


def data_scatter(points, given, predicted, consensus, classes: int, clean=None, boundaries=(),
                 regions=None, axis_titles=("x⁽¹⁾", "x⁽²⁾"), class_names=None, max_points: int = 1500,
                 title: str | None = None) -> go.Figure:
    """The training data in a plane, two panels side by side.

    Left, "given labels": each point coloured by its randomised label ŷ; with ``clean`` (the clean
    labels, a diagnostic) the flipped points (ŷ ≠ y) are drawn as ×. Right, "predicted labels": each
    point coloured by the baseline model's prediction ỹ; filled = in the consensus set (ỹ = ŷ), open =
    left out. ``boundaries``: [{label, w, c, dash (optional), colour (optional)}], lines w·z + c = 0
    in the plane (see `boundary_in_plane`), drawn in both panels (e.g. before and after
    retraining). ``regions``: optional {"left": (gx, gy, labels), "right": (gx, gy, labels)},
    predicted classes on a grid drawn faintly behind the points (for non-linear or multi-class
    models). At most ``max_points`` points are drawn (the first ones; pass a subsample)."""
    z = np.asarray(points, dtype=float)[:max_points]
    m = z.shape[0]
    given = np.asarray(given)[:m]
    predicted = np.asarray(predicted)[:m]
    consensus = np.asarray(consensus, dtype=bool)[:m]
    flipped = None if clean is None else (np.asarray(clean)[:m] != given)
    names = list(class_names) if class_names is not None else [str(c) for c in range(classes)]
    flip_text = f", {int(flipped.sum())} flipped (×)" if flipped is not None else ""
    fig = make_subplots(rows=1, cols=2, shared_xaxes=True, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(wrap_text(f"given (randomised) labels ŷ{flip_text}", 30),
                                        wrap_text(f"predicted labels ỹ: filled = consensus set "
                                                  f"({int(consensus.sum())} of {m})", 30)))
    pad_x = 0.05 * (np.ptp(z[:, 0]) or 1.0)
    pad_y = 0.05 * (np.ptp(z[:, 1]) or 1.0)
    x_range = [float(z[:, 0].min() - pad_x), float(z[:, 0].max() + pad_x)] if m else [-1.0, 1.0]
    y_range = [float(z[:, 1].min() - pad_y), float(z[:, 1].max() + pad_y)] if m else [-1.0, 1.0]
    for side, col in (("left", 1), ("right", 2)):
        if regions and regions.get(side) is not None:
            gx, gy, grid = regions[side]
            scale = [[k / max(classes - 1, 1), CLASS_COLOURS[k % len(CLASS_COLOURS)]] for k in range(classes)]
            fig.add_trace(go.Heatmap(x=np.asarray(gx), y=np.asarray(gy), z=np.asarray(grid, dtype=float), zmin=0,
                                     zmax=max(classes - 1, 1), colorscale=scale, opacity=0.15, showscale=False,
                                     hoverinfo="skip", name=f"predicted regions ({side})"), row=1, col=col)
    for c in range(classes):
        colour = CLASS_COLOURS[c % len(CLASS_COLOURS)]
        mine = given == c
        kept = mine & ~flipped if flipped is not None else mine
        fig.add_trace(go.Scatter(x=z[kept, 0], y=z[kept, 1], mode="markers", name=f"class {names[c]}",
                                 legendgroup=f"class{c}", marker=dict(color=colour, size=6, opacity=0.8),
                                 hovertemplate=f"given label {names[c]}<extra></extra>"), row=1, col=1)
        if flipped is not None:
            flip = mine & flipped
            fig.add_trace(go.Scatter(x=z[flip, 0], y=z[flip, 1], mode="markers", name=f"class {names[c]} (flipped)",
                                     legendgroup=f"class{c}", showlegend=False,
                                     marker=dict(color=colour, size=8, symbol="x", line=dict(width=0)),
                                     hovertemplate=f"given label {names[c]} — flipped ({DIAGNOSTIC_NOTE})"
                                                   "<extra></extra>"), row=1, col=1)
        pred = predicted == c
        for inside, symbol in ((True, "circle"), (False, "circle-open")):
            sel = pred & (consensus == inside)
            fig.add_trace(go.Scatter(x=z[sel, 0], y=z[sel, 1], mode="markers",
                                     name=f"class {names[c]} ({'consensus' if inside else 'not in consensus'})",
                                     legendgroup=f"class{c}", showlegend=False,
                                     marker=dict(color=colour, size=6 if inside else 7, symbol=symbol,
                                                 opacity=0.85 if inside else 0.6),
                                     hovertemplate=f"predicted {names[c]}, "
                                                   f"{'in' if inside else 'not in'} the consensus set<extra></extra>"),
                          row=1, col=2)
    for i, b in enumerate(boundaries):
        ends = _line_points(b["w"], b["c"], x_range, y_range)
        if ends is None:
            continue
        colour = b.get("colour", "#000000")
        for col in (1, 2):
            fig.add_trace(go.Scatter(x=ends[0], y=ends[1], mode="lines", name=b["label"], legendgroup=f"boundary{i}",
                                     showlegend=col == 1, line=dict(color=colour, dash=b.get("dash", "solid"), width=2),
                                     hovertemplate=f"{b['label']}<extra></extra>"), row=1, col=col)
    fig.update_xaxes(range=x_range, title=axis_titles[0])
    fig.update_yaxes(range=y_range)
    fig.update_yaxes(title=axis_titles[1], row=1, col=1)
    titled(layout(fig, title, legend_y=-0.2, anchor_top=False), title)
    fig.update_layout(margin=dict(t=fig.layout.margin.t + 22))  # the panels' titles take two lines
    return fig


# ---------------------------------------------------------------- 5. the theory
def theory_bounds_vs_cos(cos, curves: dict, threshold: float | None = None, title: str | None = None) -> go.Figure:
    """Per-point bounds against cos β(x) = ⟨x, θ*⟩/‖x‖: Thm 1's lower bound α(x) and upper bound
    α̂(x) on P(sign⟨x, θ̂₀⟩ = sign⟨x, θ*⟩), and Thm 4's α₁(x) for θ̂₁ after retraining.

    ``curves``: label -> values at ``cos`` (NaN where a theorem says nothing: nothing is drawn
    there). ``threshold``: Thm 4's condition |cos β| ≥ 16p₂/μ; the region below it is shaded. A grid
    of positive cos β spanning more than a factor 50 gets a log axis (the bounds change near 1/√n)."""
    cos = np.asarray(cos, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(curves.items()):
        y = np.asarray(values, dtype=float)
        fig.add_trace(go.Scatter(x=cos, y=y, mode="lines", name=label, connectgaps=False,
                                 line=dict(color=palette_colour(i), width=2.2,
                                           dash="dash" if "upper" in label else "solid"),
                                 hovertemplate=f"{label}<br>cos β = %{{x:.4f}}<br>%{{y:.6f}}<extra></extra>"))
    log_x = bool(cos.size) and float(cos.min()) > 0 and float(cos.max()) / float(cos.min()) > 50
    if threshold is not None and np.isfinite(threshold) and cos.size:
        left, right = float(cos.min()), min(float(threshold), float(cos.max()))
        if right > left:
            fig.add_vrect(x0=left, x1=right, fillcolor=GREY, opacity=0.25, line_width=0, layer="below")
            # plotly places shapes on a log axis by data value, annotations by log10 value
            middle = 0.5 * (math.log10(left) + math.log10(right)) if log_x else 0.5 * (left + right)
            fig.add_annotation(x=middle, y=1.0, yref="paper", showarrow=False, yanchor="bottom",
                               text=("Thm 4 says nothing here<br>(|cos β| < 16p₂/μ)" if threshold <= cos.max()
                                     else "Thm 4 says nothing anywhere<br>on this range (vacuous)"))
    cos_title = "cos β(x) = ⟨x, θ*⟩ / ‖x‖<br>(x's distance from the boundary)"
    if log_x:
        log_axis(fig, float(cos.min()), float(cos.max()), "x", title=cos_title)
    else:
        fig.update_xaxes(title=cos_title, type="linear")
    fig.update_yaxes(title="bound on P(prediction at x is correct)", range=[0, 1.02])
    return titled(layout(fig, title, legend_y=-0.3, anchor_top=False), title, width=36)


def theory_bounds_vs_n(n, curves: dict, simulated: dict | None = None, vacuous_below: float | None = None,
                       vacuous_what: str = "", title: str | None = None) -> go.Figure:
    """Accuracy bounds against the number of training points n (log axis): e.g. eq. 59
    (E_x[α(x)] ≤ acc(θ̂₀)), eq. 65 and eq. 141 (acc(θ̂₁) after retraining on a fresh X_U).

    ``curves``: label -> values at ``n`` (NaN where a bound is vacuous or not valid: not drawn).
    ``simulated``: label -> (n, mean, sd), measured accuracies drawn as markers with ± SD bars.
    ``vacuous_below``: a dotted vertical line "<vacuous_what> vacuous below n ≈ …"."""
    n = np.asarray(n, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=n, y=np.asarray(values, dtype=float), mode="lines", name=label, connectgaps=False,
                                 line=dict(color=palette_colour(i), width=2.2),
                                 hovertemplate=f"{label}<br>n = %{{x:.3g}}<br>%{{y:.4f}}<extra></extra>"))
    for j, (label, (sim_n, mean, sd)) in enumerate((simulated or {}).items()):
        fig.add_trace(go.Scatter(x=np.asarray(sim_n, dtype=float), y=np.asarray(mean, dtype=float), mode="markers",
                                 name=f"{label} (simulated, mean ± SD)",
                                 marker=dict(size=9, symbol="diamond", color=palette_colour(len(curves) + j)),
                                 error_y=dict(type="data", array=np.asarray(sd, dtype=float), visible=True),
                                 hovertemplate=f"{label}<br>n = %{{x:.3g}}<br>%{{y:.3f}}<extra>simulated</extra>"))
    if vacuous_below is not None and np.isfinite(vacuous_below):
        # the label on the side of the line with more room (two lines: the chart is drawn in half the page)
        middle = 0.5 * (math.log10(float(n.min())) + math.log10(float(n.max()))) if n.size else 0.0
        _vline(fig, float(vacuous_below), f"{vacuous_what} vacuous<br>below n ≈ {vacuous_below:.3g}".strip(),
               log_x=True, position="bottom", anchor="right" if math.log10(vacuous_below) > middle else "left")
    every = [n] + [np.asarray(sim_n, dtype=float) for sim_n, _, _ in (simulated or {}).values()]
    every = np.concatenate(every)
    every = every[np.isfinite(every) & (every > 0)]
    if every.size:
        log_axis(fig, float(every.min()), float(every.max()), "x", title="n, training points (log scale)")
    else:
        fig.update_xaxes(type="log", title="n, training points (log scale)")
    fig.update_yaxes(title="accuracy (bound or simulated)", range=[0, 1.02])
    return titled(layout(fig, title, legend_y=-0.25, anchor_top=False), title, width=36)


# ================================================================ the page's charts from privlib.label_dp results
# Each function below reads a result of privlib.label_dp (a RetrainingSweep, a RetrainingRun and its
# LabelDataset, or a dict of privlib.label_dp.theory) and returns the figure of one builder above.

def sweep_curves(sweep, randomiser: str | None = None) -> dict:
    """{mode: (mean, sd)} per ε from a ``RetrainingSweep`` (default: its first randomiser), in the
    order of the sweep's modes; a mode undefined at every ε (consensus on a fresh X_U) is left out."""
    return {mode: (sweep.mean(mode, randomiser), sweep.sd(mode, randomiser)) for mode in sweep.modes
            if sweep.defined(mode, randomiser)}


def sweep_label_series(sweep, randomiser: str | None = None) -> dict:
    """{diagnostic: mean over repetitions per ε} for the keys of `LABEL_SERIES`."""
    return {key: sweep.mean(key, randomiser) for key in LABEL_SERIES}


#: The accuracy axis's title for each evaluation kind (`privlib.label_dp.retraining.evaluation_kind`).
ACCURACY_AXIS_TITLES = {"population (closed form)": "population accuracy (closed form)",
                        "test set": "test-set accuracy"}


def accuracy_axis_title(evaluation: str) -> str:
    """The y-axis title of accuracy measured as ``evaluation``: "population accuracy (closed form)",
    "test-set accuracy" (not "accuracy (population (closed form))")."""
    return ACCURACY_AXIS_TITLES.get(evaluation, f"accuracy, {evaluation}")


def sweep_accuracy_chart(sweep, chosen_epsilon: float | None = None, title: str | None = None,
                         randomiser: str | None = None) -> go.Figure:
    """`accuracy_vs_epsilon` of a ``RetrainingSweep``: every mode, the non-private model (mean over
    repetitions) and e^ε/(e^ε + C − 1)."""
    nonprivate = float(np.nanmean(sweep.nonprivate)) if np.any(np.isfinite(sweep.nonprivate)) else None
    return accuracy_vs_epsilon(sweep.epsilons, sweep_curves(sweep, randomiser), sweep.classes, nonprivate=nonprivate,
                               chosen_epsilon=chosen_epsilon, repeats=sweep.repeats, title=title,
                               y_title=accuracy_axis_title(sweep.evaluation))


def sweep_label_chart(sweep, chosen_epsilon: float | None = None, title: str | None = None,
                      randomiser: str | None = None, narrow: bool = False) -> go.Figure:
    """`label_accuracy_vs_epsilon` of a ``RetrainingSweep``."""
    return label_accuracy_vs_epsilon(sweep.epsilons, sweep_label_series(sweep, randomiser), classes=sweep.classes,
                                     chosen_epsilon=chosen_epsilon, title=title, narrow=narrow)


def sweep_label_bars(sweep, epsilon: float, title: str | None = None, randomiser: str | None = None) -> go.Figure:
    """`label_accuracy_bars` at the grid ε nearest to ``epsilon``: means and SDs over repetitions."""
    i = int(np.argmin(np.abs(np.log(np.asarray(sweep.epsilons, dtype=float)) - np.log(epsilon))))
    values, sds = {}, {}
    for key in LABEL_SERIES:
        mean = float(sweep.mean(key, randomiser)[i])
        if np.isfinite(mean):  # consensus accuracy is undefined where every consensus set was empty
            values[key], sds[key] = mean, float(sweep.sd(key, randomiser)[i])
    eps = float(sweep.epsilons[i])
    return label_accuracy_bars(values, sds, epsilon=eps,
                               title=title or f"Label accuracy at ε = {eps:.3g}, mean ± SD over {sweep.repeats} runs")


def run_scatter(run, dataset, title: str | None = None, grid: int = 90, max_points: int = 1500) -> go.Figure:
    """`data_scatter` of one ``RetrainingRun`` on its ``LabelDataset``: the Fig. 1 plane (x⁽¹⁾, x⁽²⁾)
    for the synthetic data, else the top two principal components of the training features.

    Binary linear models (centroid, least squares, logistic on two classes) get their decision lines
    ⟨θ, x⟩ + b = 0 in the plane (other coordinates at the plane's centre): before retraining dashed,
    after it (the run's variant) solid, and the true boundary x⁽¹⁾ = 0 of the synthetic data dotted.
    Other models get their predicted classes on a ``grid`` × ``grid`` raster of the plane, mapped back
    to feature space (baseline on the left, retrained model on the right).

    Its linear algebra (the projection's SVD, the raster's predictions) runs with single-threaded BLAS
    (`privlib.core.threads.single_threaded_blas`), as the runs of `privlib.label_dp.sweep`: the arrays
    are small, and BLAS threads only oversubscribe a machine that serves other work (the app's sessions)."""
    with single_threaded_blas():
        synthetic = bool(getattr(dataset, "synthetic", False))
        z, centre, basis = plane_coordinates(dataset.X_train, first_two=synthetic)
        base = run.models.get("baseline")
        after_mode = run.mode if run.mode != "baseline" and run.models.get(run.mode) is not None else None
        after = run.models.get(after_mode) if after_mode else None
        rules = [m.linear_rule() for m in (base, after) if m is not None]
        boundaries, regions = [], None
        if rules and all(r is not None for r in rules):
            theta, b = rules[0]
            w, c = boundary_in_plane(theta, b, centre, basis)
            boundaries.append({"label": "boundary before retraining (baseline)", "w": w, "c": c, "dash": "dash",
                               "colour": "#444444"})
            if after is not None:
                theta, b = rules[1]
                w, c = boundary_in_plane(theta, b, centre, basis)
                boundaries.append({"label": f"boundary after {MODE_LABELS.get(after_mode, after_mode)}", "w": w,
                                   "c": c, "dash": "solid", "colour": MODE_COLOURS.get(after_mode, "#000000")})
            if synthetic:
                boundaries.append({"label": "true boundary x⁽¹⁾ = 0", "w": np.array([1.0, 0.0]), "c": 0.0,
                                   "dash": "dot", "colour": GREY})
        elif base is not None:
            shown = z[:max_points]
            gx = np.linspace(shown[:, 0].min(), shown[:, 0].max(), grid)
            gy = np.linspace(shown[:, 1].min(), shown[:, 1].max(), grid)
            mesh = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
            X = centre + mesh @ basis.T
            regions = {"left": (gx, gy, base.predict(X).reshape(grid, grid)),
                       "right": (gx, gy, (after or base).predict(X).reshape(grid, grid))}
        names = ["−1", "+1"] if synthetic and dataset.classes == 2 else None
        axes = ("x⁽¹⁾ (the signal coordinate)", "x⁽²⁾ (a noise coordinate)") if synthetic else \
            ("principal component 1 of the features", "principal component 2")
        return data_scatter(z, run.given_labels, run.predicted_labels, run.consensus_mask, dataset.classes,
                            clean=dataset.y_train, boundaries=boundaries, regions=regions, axis_titles=axes,
                            class_names=names, max_points=max_points, title=title)


def per_point_chart(bounds: dict, title: str | None = None) -> go.Figure:
    """`theory_bounds_vs_cos` of ``privlib.label_dp.theory.per_point_bounds``: α (Thm 1), α̂ (Thm 1,
    upper) and α₁ (Thm 4; nothing below the threshold 16p₂/μ)."""
    curves = {"α(x): Thm 1 lower bound, θ̂₀": bounds["alpha"],
              "α̂(x): Thm 1 upper bound, θ̂₀": bounds["alpha_hat"],
              "α₁(x): Thm 4 lower bound after retraining, θ̂₁": bounds["alpha1"]}
    return theory_bounds_vs_cos(bounds["cos_beta"], curves, threshold=bounds.get("threshold"), title=title)


def population_chart(bounds: dict, simulated: dict | None = None, title: str | None = None) -> go.Figure:
    """`theory_bounds_vs_n` of ``privlib.label_dp.theory.population_bounds`` (eqs. 59, 65, 141; a
    value ≤ 0 is vacuous and not drawn) with the simulated accuracies of θ̂₀ and θ̂₁ overlaid:
    ``simulated`` = {"θ̂₀": (n, mean, sd), "θ̂₁": (n, mean, sd)}."""
    def shown(values):
        values = np.asarray(values, dtype=float)
        return np.where(values > 0, values, np.nan)

    curves = {"eq. 59: E[α(x)] ≤ acc(θ̂₀)": shown(bounds["eq59"]),
              "eq. 65 ≤ acc(θ̂₀)": shown(bounds["eq65"]),
              "eq. 141 ≤ acc(θ̂₁) (retrained, fresh X_U)": shown(bounds["eq141"])}
    first = bounds.get("eq141_from_n")
    return theory_bounds_vs_n(bounds["n"], curves, simulated=simulated,
                              vacuous_below=first if first is not None and np.isfinite(first) else None,
                              vacuous_what="eq. 141", title=title)
