"""Plotly figure builders for the private-learning topic: pure functions from plain numbers and arrays
(or a ``privlib.erm`` result) to ``go.Figure``, and the inside-view table as a list of dicts.

Charts follow Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with
Input Perturbation" (DS 2017, arXiv:1710.07425), against objective perturbation (KST12, Alg. 1) and
output perturbation (CMS11):
1. test RMSE (or accuracy) against n per method, mean ± SD bands over repetitions (the shape of the paper's
   Figs. 1–2); for a small real data set, against ε instead;
2. the excess empirical risk E[J(w_priv)] − J(ŵ) against n on log–log axes with a dashed slope −1 line,
   labelled "rate O(1/n), not a bound" (the paper gives only the rate; its constants are lost);
3. the two privacy meters against n: the model's ε (the accountant of the safe calibration; our addition)
   and a contributor's ε_L (Cor. 1, exact via Balle & Wang 2018; our addition), with the classic Gaussian
   formula dashed and marked "invalid for ε ≥ 1";
4. the trade-off of the local multiplier m (both noise variances × m): ε_L against RMSE, coloured by the
   model's ε;
5. the inside view: raw and submitted (a, b) of a few hundred contributors (paper Alg. 1);
6. the explainer: the noise on a acts as KST12's ridge, the noise on b as KST12's random linear term
   (eq. 5, reconstructed from the paper's prose).

Nothing here computes a privacy quantity: the numbers come from ``privlib.erm``; pages only render.
Every ε axis says which direction is more privacy. Tags: [paper] stated in the paper, [R] reconstructed
from the paper's prose, (beyond the paper) our addition.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privlib.erm.mechanisms import METHOD_LABELS
from privlib.erm.sweep import constant_of, metric_of
from privlib.presentation.style import (
    EPSILON_AXIS,
    GREY,
    layout,
    log_axis,
    palette_colour,
    rgba,
    titled,
    vertical_line,
)

N_AXIS = "n, the number of contributors (log scale)"
#: The tags of where a statement comes from.
TAG_PAPER = "[paper]"
TAG_RECONSTRUCTED = "[R]"
TAG_BEYOND = "(beyond the paper)"
#: How the page and the charts state the model guarantee of input perturbation (safe calibration).
MODEL_GUARANTEE = "(ε, δ)-DP, replace-one — the project's proof sketch (beyond the paper)"
HONEST_RECORDS = "model DP holds only if at least n honestly perturbed records arrive"
#: The label of the slope −1 reference line of the excess-risk chart.
RATE_LABEL = "rate O(1/n), not a bound"
CLASSIC_NOTE = "invalid for ε ≥ 1"
#: Where each method's calibration comes from, as a tag.
#: (The library's labels already name CMS11 and KST12, and say "no guarantee" for the asymptotic match.)
METHOD_TAGS = {
    "non_private": "",
    "output": "",
    "obj_gauss": "",
    "input_safe": TAG_BEYOND,
    "input_asymptotic": TAG_RECONSTRUCTED,
}
METHOD_COLOURS = {
    "non_private": "#000000",
    "output": "#ff7f0e",
    "obj_gauss": "#1f77b4",
    "input_safe": "#2ca02c",
    "input_asymptotic": "#9467bd",
}
METHOD_DASHES = {"non_private": "dash", "input_asymptotic": "dot"}
METRIC_TITLES = {"rmse": "test RMSE  (lower = better)", "accuracy": "test accuracy  (higher = better)"}
METRIC_NAMES = {"rmse": "RMSE", "accuracy": "accuracy"}
INVALID_FILL = "rgba(214,39,40,0.08)"


def method_label(method: str) -> str:
    """The method's label (``privlib.erm.mechanisms.METHOD_LABELS``) with its source tag."""
    label = METHOD_LABELS.get(method, method)
    tag = METHOD_TAGS.get(method, "")
    return f"{label} {tag}" if tag else label


def method_colour(method: str, index: int = 0) -> str:
    return METHOD_COLOURS.get(method, palette_colour(index))


def _floats(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1)


def axis_value(value: float, axis: str) -> str:
    """"n = 10,000" or "ε = 0.5": how a chosen point of the x axis is named."""
    if axis == "epsilon":
        return f"ε = {value:g}"
    return f"n = {value:,.0f}"


def _log_range(fig: go.Figure, values, axis: str = "x", **properties) -> None:
    """Label a log ``axis`` in full with `style.log_axis` over the finite positive ``values`` (Plotly's own
    log ticks read 20, 30, 50 as "2, 3, 5"); nothing to label when there is none."""
    v = _floats(values)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size:
        log_axis(fig, float(v.min()), float(v.max()), axis, **properties)
    else:
        (fig.update_xaxes if axis == "x" else fig.update_yaxes)(type="log", **properties)


def _invalid_region(fig: go.Figure, lo: float, hi: float, text: str, top: bool = False) -> None:
    """Shade [lo, hi] on a log x axis (a region where the safe input calibration is invalid), labelled
    at the bottom (or the ``top``) of the chart."""
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo > 0):
        return
    fig.add_vrect(x0=lo, x1=hi, fillcolor=INVALID_FILL, line_width=0, layer="below")
    fig.add_annotation(x=0.5 * (math.log10(lo) + math.log10(hi)), y=0.97 if top else 0.0, yref="paper",
                       yanchor="top" if top else "bottom", text=text, showarrow=False,
                       font=dict(size=11, color="#d62728"))


# ---------------------------------------------------------------- 1. test metric against n (or epsilon)
#: The constant predictor's legend entry (the best model that ignores the features; non-private).
CONSTANT_LABEL = "Constant predictor (no features, non-private)"


def metric_vs_axis(values, curves: dict, metric: str = "rmse", axis: str = "n", chosen: float | None = None,
                   invalid_below: float | None = None, repeats: int | None = None,
                   title: str | None = None, constant=None, *, chosen_epsilon: float | None = None) -> go.Figure:
    """The test metric (RMSE or accuracy) against n (or ε) on a log x axis: one line per method with a
    ± 1 SD band over the repetitions, as in the paper's Figs. 1–2.

    ``curves``: method -> {"mean": array, "sd": array} over ``values`` (NaN where the method is
    undefined, e.g. the safe input calibration at too small an n: nothing is drawn there). The
    non-private model is dashed black, the asymptotic match (no guarantee) dotted. ``chosen`` draws a
    dotted vertical line and an open marker on every curve where the grid has that value;
    ``invalid_below`` shades the n range where the safe input calibration is invalid. ``constant``: the
    metric of the constant predictor over ``values`` (features ignored), drawn as a grey dotted line: a
    model on the wrong side of it has learnt nothing usable. ``chosen_epsilon``: the page's chosen ε,
    marked like ``chosen`` on an ε axis (ignored on an n axis, where ε is fixed)."""
    x = _floats(values)
    if axis == "epsilon" and chosen is None:
        chosen = chosen_epsilon
    fig = go.Figure()
    if constant is not None:
        fig.add_trace(go.Scatter(x=x, y=_floats(constant), mode="lines", name=CONSTANT_LABEL,
                                 line=dict(color="#9e9e9e", width=1.5, dash="dot"),
                                 hovertemplate=f"{CONSTANT_LABEL}: %{{y:.4f}}<extra></extra>"))
    name = METRIC_NAMES.get(metric, metric)
    over = f" over {repeats} repeats" if repeats else ""
    drawn = []
    for i, (method, stats) in enumerate(curves.items()):
        mean = _floats(stats["mean"])
        sd = None if stats.get("sd") is None else _floats(stats["sd"])
        label = method_label(method)
        colour = method_colour(method, i)
        ok = np.isfinite(mean)
        if sd is not None and method != "non_private":
            band = ok & np.isfinite(sd)
            if band.any():
                lo, hi = mean[band] - sd[band], mean[band] + sd[band]
                fig.add_trace(go.Scatter(x=np.concatenate([x[band], x[band][::-1]]), y=np.concatenate([hi, lo[::-1]]),
                                         mode="lines", fill="toself", fillcolor=rgba(colour, 0.15), line=dict(width=0),
                                         hoverinfo="skip", showlegend=False, legendgroup=method, name=f"{label} ± SD"))
        sd_text = sd if sd is not None else np.full(mean.shape, np.nan)
        x_text = "ε = %{x:g}" if axis == "epsilon" else "n = %{x:,}"
        fig.add_trace(go.Scatter(
            x=x, y=mean, mode="lines+markers", name=label, legendgroup=method, connectgaps=False,
            line=dict(color=colour, width=2.2, dash=METHOD_DASHES.get(method, "solid")), marker=dict(size=6),
            customdata=np.stack([sd_text], axis=1),
            hovertemplate=f"{label}<br>{x_text}<br>{name} %{{y:.4f}} ± %{{customdata[0]:.4f}} (SD{over})"
                          "<extra></extra>"))
        drawn.append((label, mean))
    if invalid_below is not None and x.size and axis == "n":
        _invalid_region(fig, float(x.min()) / 1.3, float(invalid_below), "Input (safe) invalid: n too small")
    if chosen is not None:
        vertical_line(fig, float(chosen), axis_value(chosen, axis), log_x=True)
        hit = np.flatnonzero(np.isclose(x, float(chosen), rtol=1e-9, atol=0.0))
        if hit.size:
            points = [(label, float(m[hit[0]])) for label, m in drawn if np.isfinite(m[hit[0]])]
            if points:
                fig.add_trace(go.Scatter(x=[float(chosen)] * len(points), y=[v for _, v in points], mode="markers",
                                         name=f"chosen {axis_value(chosen, axis)}",
                                         text=[label for label, _ in points],
                                         marker=dict(size=13, symbol="circle-open", color="#000000",
                                                     line=dict(width=2)),
                                         hovertemplate="%{text}: %{y:.4f}<extra>chosen</extra>"))
    _log_range(fig, np.append(x, chosen) if chosen is not None else x, "x",
               title=EPSILON_AXIS if axis == "epsilon" else N_AXIS)
    fig.update_yaxes(title=METRIC_TITLES.get(metric, metric), rangemode="tozero" if metric == "rmse" else "normal")
    return titled(layout(fig, title), title)


# ---------------------------------------------------------------- 2. excess empirical risk, log-log
def excess_risk_vs_axis(values, curves: dict, axis: str = "n", reference: bool = True, chosen: float | None = None,
                        title: str | None = None, *, chosen_epsilon: float | None = None) -> go.Figure:
    """The mean excess empirical risk E[J(w_priv)] − J(ŵ) on the training data against n (or ε),
    log–log, one line per private method (values ≤ 0 or NaN are not drawn on the log axis).

    With ``reference`` (n axis only) a dashed line of slope −1, labelled "rate O(1/n), not a bound",
    is drawn through the geometric mean of the curves at the smallest n where they exist: the paper
    proves the rate O(1/n) for Obj-Gauss and Input [paper, Table 1] but its constants are lost, so the
    line shows a slope only. ``chosen_epsilon``: the page's chosen ε, marked on an ε axis."""
    x = _floats(values)
    if axis == "epsilon" and chosen is None:
        chosen = chosen_epsilon
    fig = go.Figure()
    for i, (method, mean) in enumerate(curves.items()):
        if method == "non_private":
            continue  # J(ŵ) − J(ŵ) = 0: nothing to draw on a log axis
        y = _floats(mean)
        y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
        label = method_label(method)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=label, legendgroup=method, connectgaps=False,
                                 line=dict(color=method_colour(method, i), width=2.2,
                                           dash=METHOD_DASHES.get(method, "solid")), marker=dict(size=6),
                                 hovertemplate=f"{label}<br>{'ε = %{x:g}' if axis == 'epsilon' else 'n = %{x:,}'}"
                                               "<br>excess risk %{y:.3e}<extra></extra>"))
    if reference and axis == "n" and x.size >= 2:
        stacked = np.array([t.y for t in fig.data], dtype=float) if fig.data else np.empty((0, x.size))
        with np.errstate(all="ignore"):
            seen = np.flatnonzero(np.any(np.isfinite(stacked), axis=0)) if stacked.size else np.array([], int)
        if seen.size:
            j = int(seen[0])
            column = stacked[:, j][np.isfinite(stacked[:, j])]
            anchor = float(np.exp(np.mean(np.log(column))))
            line = anchor * x[j] / x[j:]
            fig.add_trace(go.Scatter(x=x[j:], y=line, mode="lines", name=RATE_LABEL,
                                     line=dict(color="#555555", dash="dash", width=1.6),
                                     hovertemplate=f"{RATE_LABEL}<br>n = %{{x:,}}<br>%{{y:.3e}}<extra></extra>"))
    if chosen is not None:
        vertical_line(fig, float(chosen), axis_value(chosen, axis), log_x=True)
    _log_range(fig, np.append(x, chosen) if chosen is not None else x, "x",
               title=EPSILON_AXIS if axis == "epsilon" else N_AXIS)
    _log_range(fig, np.concatenate([np.asarray(t.y, dtype=float) for t in fig.data]) if fig.data else [], "y",
               title="excess risk (log scale)")
    return titled(layout(fig, title), title)


# ---------------------------------------------------------------- 3. the two privacy meters
def privacy_meters_chart(ns, epsilon_model, epsilon_L, epsilon_L_classic, epsilon: float, valid=None,
                         chosen_n: float | None = None, title: str | None = None) -> go.Figure:
    """The two meters against n (log–log): the published model's ε from the accountant of the safe
    input calibration (flat at or below the target ε: the model guarantee does not degrade with n;
    our addition) and one contributor's local ε_L of her submitted record (paper Cor. 1, exact via
    Balle & Wang 2018; our addition), which grows with n because the per-record noise shrinks. The
    classic Gaussian formula √(2 ln(1.25/δ))·μ is dashed and marked invalid for ε ≥ 1 (its theorem
    needs ε < 1). Where ``valid`` is False (n too small for the safe calibration) the meters are empty
    and the range is shaded."""
    n = _floats(ns)
    model = _floats(epsilon_model)
    local = _floats(epsilon_L)
    classic = _floats(epsilon_L_classic)
    ok = np.ones(n.shape, bool) if valid is None else np.asarray(valid, bool).reshape(-1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=n, y=np.where(ok, model, np.nan), mode="lines", name="model ε (accountant) "
                             f"— {MODEL_GUARANTEE}", line=dict(color="#1f77b4", width=2.6), connectgaps=False,
                             hovertemplate="n = %{x:,.0f}<br>model ε = %{y:.4f}<extra>accountant</extra>"))
    fig.add_trace(go.Scatter(x=[n.min(), n.max()] if n.size else [], y=[epsilon, epsilon], mode="lines",
                             name=f"target ε = {epsilon:g}", line=dict(color="#1f77b4", width=1.2, dash="dot"),
                             hovertemplate=f"target ε = {epsilon:g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=n, y=np.where(ok, local, np.nan), mode="lines",
                             name=f"contributor ε_L (exact, BW18) {TAG_BEYOND}", connectgaps=False,
                             line=dict(color="#d62728", width=2.6),
                             hovertemplate="n = %{x:,.0f}<br>ε_L = %{y:,.1f}<extra>exact (analytic Gaussian)</extra>"))
    fig.add_trace(go.Scatter(x=n, y=np.where(ok, classic, np.nan), mode="lines", connectgaps=False,
                             name=f"contributor ε_L, classic formula √(2 ln(1.25/δ))·μ — {CLASSIC_NOTE}",
                             line=dict(color="#d62728", width=1.6, dash="dash"),
                             hovertemplate="n = %{x:,.0f}<br>classic ε_L = %{y:,.1f}"
                                           f"<extra>{CLASSIC_NOTE}</extra>"))
    if (~ok).any() and n.size:
        last_bad = float(n[~ok].max())
        later = n[n > last_bad]
        hi = float(later.min()) if later.size else last_bad
        _invalid_region(fig, float(n.min()), hi, "safe calibration<br>invalid: n too small", top=True)
    if chosen_n is not None:
        vertical_line(fig, float(chosen_n), f"n = {chosen_n:,.0f}", log_x=True)
    _log_range(fig, n, "x", title=N_AXIS)
    _log_range(fig, np.concatenate([np.where(ok, model, np.nan), np.where(ok, local, np.nan),
                                    np.where(ok, classic, np.nan), [epsilon]]), "y",
               title="ε  (log scale; smaller = more privacy)")
    return titled(layout(fig, title, legend_y=-0.3), title)


def meters_chart(meters, epsilon: float, chosen_n: float | None = None, title: str | None = None) -> go.Figure:
    """`privacy_meters_chart` of a ``privlib.erm.calibration.PrivacyMeters``."""
    return privacy_meters_chart(meters.ns, meters.epsilon_model, meters.epsilon_L, meters.epsilon_L_classic, epsilon,
                                valid=meters.valid, chosen_n=chosen_n, title=title)


# ---------------------------------------------------------------- 4. the m trade-off
def inflation_chart(inflations, epsilon_L, rmse_mean, rmse_sd, epsilon_model, chosen_m: float | None = None,
                    metric: str = "rmse", title: str | None = None) -> go.Figure:
    """The local multiplier m (both noise variances × m, §3.5 of the paper; its factor is lost [R]):
    one point per m with the contributor's ε_L on a log x axis against the test metric of Input (safe
    calibration) ± SD, coloured by the model's ε from the accountant. Larger m: more local privacy
    (smaller ε_L) and a smaller model ε — down to a floor — at the price of utility. Each point's m is
    a tick of a second x axis along the top (labels beside the points covered the error bars)."""
    m = _floats(inflations)
    local = _floats(epsilon_L)
    mean = _floats(rmse_mean)
    sd = _floats(rmse_sd)
    model = _floats(epsilon_model)
    ok = np.isfinite(local) & np.isfinite(mean)
    fig = go.Figure()
    name = METRIC_NAMES.get(metric, metric)
    fig.add_trace(go.Scatter(
        x=local[ok], y=mean[ok], mode="lines+markers", name="Input (safe calibration), one point per m",
        line=dict(color=GREY, width=1), error_y=dict(type="data", array=sd[ok], visible=True, thickness=1),
        marker=dict(size=13, color=model[ok], colorscale="Viridis", showscale=True,
                    colorbar=dict(title="model ε<br>(accountant)", thickness=14)),
        customdata=np.stack([m[ok], model[ok], sd[ok]], axis=1) if ok.any() else None,
        hovertemplate=f"m = %{{customdata[0]:g}}<br>ε_L = %{{x:,.2f}}<br>model ε = %{{customdata[1]:.4f}}<br>{name} "
                      "%{y:.4f} ± %{customdata[2]:.4f}<extra></extra>"))
    if chosen_m is not None:
        hit = np.flatnonzero(np.isclose(m, float(chosen_m), rtol=1e-9) & ok)
        if hit.size:
            j = int(hit[0])
            fig.add_trace(go.Scatter(x=[local[j]], y=[mean[j]], mode="markers", name=f"chosen m = {chosen_m:g}",
                                     marker=dict(size=20, symbol="circle-open", color="#000000", line=dict(width=2)),
                                     hovertemplate=f"chosen m = {chosen_m:g}<extra></extra>"))
    _log_range(fig, local[ok], "x", title="contributor's ε_L  (log scale; smaller = more local privacy)")
    if ok.any():
        pad = 0.08 * max(float(np.ptp(np.log10(local[ok]))), 1.0)
        span = [float(np.log10(local[ok].min())) - pad, float(np.log10(local[ok].max())) + pad]
        fig.update_xaxes(range=span)
        fig.update_layout(xaxis2=dict(overlaying="x", side="top", type="log", range=span, tickmode="array",
                                      tickvals=local[ok], ticktext=[f"{v:g}" for v in m[ok]], showgrid=False,
                                      title=dict(text="m (local multiplier)", standoff=2)))
        fig.add_trace(go.Scatter(x=local[ok], y=mean[ok], xaxis="x2", mode="markers", showlegend=False,
                                 marker=dict(opacity=0), hoverinfo="skip", name="m"))
    fig.update_yaxes(title=METRIC_TITLES.get(metric, metric))
    titled(layout(fig, title), title, width=50)
    fig.update_layout(margin=dict(t=fig.layout.margin.t + 45))  # the m axis along the top
    return fig


# ---------------------------------------------------------------- 5. the inside view
def inside_view_chart(a, b, a_submitted, b_submitted, A: float, B: float, highlight: int = 5,
                      title: str | None = None) -> go.Figure:
    """Raw and submitted records of a few hundred contributors (paper Alg. 1: ã = a + η, b̃ = b + ξ),
    in their first two coordinates: left a(z), right b(z). The circles are the public bounds ‖a‖ ≤ A
    and ‖b‖ ≤ B (every raw record lies inside; the submitted ones need not). The first ``highlight``
    contributors are joined to what they sent."""
    a, b = np.atleast_2d(np.asarray(a, dtype=float)), np.atleast_2d(np.asarray(b, dtype=float))
    at, bt = np.atleast_2d(np.asarray(a_submitted, dtype=float)), np.atleast_2d(np.asarray(b_submitted, dtype=float))
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("a(z), the quadratic part:<br>noise σ_a → a ridge",
                                        "b(z), the linear part:<br>noise σ_b → a random linear term"))
    two = a.shape[1] >= 2
    theta = np.linspace(0, 2 * np.pi, 181)
    for col, (raw, sent, bound, sym) in enumerate(((a, at, A, "a"), (b, bt, B, "b")), start=1):
        def xy(values):
            return values[:, 0], (values[:, 1] if two else np.zeros(values.shape[0]))

        sx, sy = xy(sent)
        rx, ry = xy(raw)
        fig.add_trace(go.Scatter(x=sx, y=sy, mode="markers", name="submitted (ã, b̃)", legendgroup="sent",
                                 showlegend=col == 1, marker=dict(size=5, color="#d62728", opacity=0.55),
                                 hovertemplate=f"submitted {sym}̃: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>"),
                      row=1, col=col)
        fig.add_trace(go.Scatter(x=rx, y=ry, mode="markers", name="raw (a, b) — never leaves the contributor",
                                 legendgroup="raw", showlegend=col == 1,
                                 marker=dict(size=5, color="#1f77b4", opacity=0.8),
                                 hovertemplate=f"raw {sym}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>"),
                      row=1, col=col)
        k = min(highlight, raw.shape[0])
        if k:
            lx = np.column_stack([rx[:k], sx[:k], np.full(k, np.nan)]).ravel()
            ly = np.column_stack([ry[:k], sy[:k], np.full(k, np.nan)]).ravel()
            fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", name=f"first {k} contributors: raw → submitted",
                                     legendgroup="pairs", showlegend=col == 1,
                                     line=dict(color="#444444", width=1), hoverinfo="skip"), row=1, col=col)
        fig.add_trace(go.Scatter(x=bound * np.cos(theta), y=bound * np.sin(theta), mode="lines",
                                 name="public bounds ‖a‖ ≤ A, ‖b‖ ≤ B", legendgroup="bound", showlegend=col == 1,
                                 line=dict(color=GREY, dash="dash", width=1.4), hoverinfo="skip"), row=1, col=col)
        fig.update_xaxes(title=f"{sym}₁ (coordinate 1)", row=1, col=col)
        fig.update_yaxes(title=f"{sym}₂ (coordinate 2)" if two else "", row=1, col=col, scaleanchor=f"x{col}"
                         if col > 1 else "x", scaleratio=1)
    titled(layout(fig, title, legend_y=-0.2), title)
    fig.update_layout(margin=dict(t=fig.layout.margin.t + 22))  # the panels' titles take two lines
    return fig


def inside_view_rows(a, b, a_submitted, b_submitted, count: int = 5, coordinates: int = 3,
                     digits: int = 3) -> list[dict]:
    """The first ``count`` contributors as table rows: the first ``coordinates`` entries of a, ã, b and
    b̃, and the norms ‖a‖, ‖ã‖, ‖b‖, ‖b̃‖ (the raw norms are within the public bounds A and B), with
    ``digits`` decimals."""
    a, b = np.atleast_2d(np.asarray(a, dtype=float)), np.atleast_2d(np.asarray(b, dtype=float))
    at, bt = np.atleast_2d(np.asarray(a_submitted, dtype=float)), np.atleast_2d(np.asarray(b_submitted, dtype=float))
    k = min(coordinates, a.shape[1])
    more = ", …" if a.shape[1] > k else ""

    def text(row):
        return "(" + ", ".join(f"{v:+.{digits}f}" for v in row[:k]) + more + ")"

    rows = []
    for i in range(min(count, a.shape[0])):
        rows.append({"contributor": i + 1, "raw a": text(a[i]), "submitted ã": text(at[i]),
                     "raw b": text(b[i]), "submitted b̃": text(bt[i]),
                     "‖a‖ → ‖ã‖": f"{np.linalg.norm(a[i]):.{digits}f} → {np.linalg.norm(at[i]):.{digits}f}",
                     "‖b‖ → ‖b̃‖": f"{np.linalg.norm(b[i]):.{digits}f} → {np.linalg.norm(bt[i]):.{digits}f}"})
    return rows


# ---------------------------------------------------------------- 6. the explainer: ridge and linear term
#: Short names of the bars of the explainer chart.
EXPLAINER_NAMES = {"obj_gauss": "Obj-Gauss<br>[KST12]", "input_safe": "Input, safe<br>(beyond the paper)",
                   "input_asymptotic": "Input, asymptotic<br>[R], no guarantee"}


def explainer_chart(n: int, Delta: float, beta: float, inputs: dict, title: str | None = None) -> go.Figure:
    """Why input perturbation works (eq. 5 [R]): summed over n contributors, the noise on a adds
    ≈ σ_a² I to the per-record Hessian part — KST12's ridge Δ/(2n) — and the noise on b adds Σξ_i ~
    N(0, nσ_b² I) — KST12's random linear term g ~ N(0, β² I) [paper].

    Left: the ridge per record, Δ/(2n) for Obj-Gauss against σ_a² for each input calibration; right:
    the standard deviation of the linear term in the summed objective, β against √n·σ_b.
    ``inputs``: method ("input_safe", "input_asymptotic") -> (σ_a, σ_b), NaN when that calibration is
    invalid (its bars are then empty and labelled "invalid")."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("ridge added per record: Δ/(2n) or σ_a²",
                                        "SD of the random linear term: β or √n·σ_b"))
    names = [EXPLAINER_NAMES["obj_gauss"]]
    ridge = [Delta / (2.0 * n)]
    linear = [beta]
    colours = [METHOD_COLOURS["obj_gauss"]]
    for method, (sigma_a, sigma_b) in inputs.items():
        names.append(EXPLAINER_NAMES.get(method, method))
        ridge.append(float(sigma_a) ** 2)
        linear.append(math.sqrt(n) * float(sigma_b))
        colours.append(method_colour(method, len(colours)))

    def texts(values, first, other):
        return [f"{first} = {values[0]:.3g}"] + [f"{other} = {v:.3g}" if math.isfinite(v) else "invalid"
                                                 for v in values[1:]]

    for col, values, text in ((1, ridge, texts(ridge, "Δ/(2n)", "σ_a²")),
                              (2, linear, texts(linear, "β", "√n·σ_b"))):
        shown = [v if math.isfinite(v) else 0.0 for v in values]
        fig.add_trace(go.Bar(x=names, y=shown, marker_color=colours, text=text, textposition="outside",
                             cliponaxis=False, name="ridge" if col == 1 else "linear term", showlegend=False,
                             hovertemplate="%{x}<br>%{text}<extra></extra>"), row=1, col=col)
        finite = [v for v in values if math.isfinite(v)]
        fig.update_yaxes(range=[0, 1.2 * max(finite) if finite else 1.0], exponentformat="power", row=1, col=col)
    fig.update_xaxes(tickfont=dict(size=11))
    return layout(fig, title or f"What the noise does at n = {n:,}")


def calibration_explainer_chart(calibration, asymptotic=None, title: str | None = None) -> go.Figure:
    """`explainer_chart` of a ``privlib.erm.calibration.ErmCalibration`` (its Obj-Gauss part and the
    safe input calibration) and, optionally, the asymptotic match."""
    inputs = {"input_safe": (calibration.input.sigma_a, calibration.input.sigma_b)}
    if asymptotic is not None:
        inputs["input_asymptotic"] = (asymptotic.input.sigma_a, asymptotic.input.sigma_b)
    return explainer_chart(int(calibration.input.n), calibration.obj_gauss.Delta, calibration.obj_gauss.beta, inputs,
                           title=title)


# ================================================================ the page's charts from privlib.erm results
def sweep_curves(result) -> dict:
    """{method: {"mean", "sd"}} of the test metric of an ERM sweep's `SweepResult`
    (``privlib.erm.sweep.sweep`` or ``n_sweep``), in the result's mechanism order."""
    metric = metric_of(result)
    return {m: {"mean": result.mean(m, metric), "sd": result.sd(m, metric)} for m in result.mechanisms}


def sweep_metric_chart(result, chosen: float | None = None, invalid_below: float | None = None,
                       title: str | None = None, *, chosen_epsilon: float | None = None) -> go.Figure:
    """`metric_vs_axis` of an ERM sweep's `SweepResult` (its axis is n or ε), with its constant predictor;
    ``chosen_epsilon`` marks the page's ε on a sweep over ε."""
    return metric_vs_axis(result.epsilons, sweep_curves(result), metric=metric_of(result), axis=result.axis,
                          chosen=chosen, invalid_below=invalid_below, repeats=result.repeats, title=title,
                          constant=constant_of(result), chosen_epsilon=chosen_epsilon)


def sweep_excess_chart(result, chosen: float | None = None, title: str | None = None, *,
                       chosen_epsilon: float | None = None) -> go.Figure:
    """`excess_risk_vs_axis` of an ERM sweep's `SweepResult`; the slope −1 line only on an n axis;
    ``chosen_epsilon`` marks the page's ε on a sweep over ε."""
    curves = {m: result.mean(m, "excess_risk") for m in result.mechanisms}
    return excess_risk_vs_axis(result.epsilons, curves, axis=result.axis, reference=result.axis == "n",
                               chosen=chosen, title=title, chosen_epsilon=chosen_epsilon)


def tradeoff_chart(tradeoff, chosen_m: float | None = None, title: str | None = None) -> go.Figure:
    """`inflation_chart` of an ``InflationTradeoff`` (input perturbation, safe calibration, per m)."""
    return inflation_chart(tradeoff.inflations, tradeoff.epsilon_L, tradeoff.mean, tradeoff.sd, tradeoff.epsilon_model,
                           chosen_m=chosen_m, metric=tradeoff.metric, title=title)


def view_chart(view, title: str | None = None) -> go.Figure:
    """`inside_view_chart` of an ``InsideView`` with a valid calibration (raw and submitted records)."""
    calibration = view.calibration
    return inside_view_chart(view.a, view.b, view.a_tilde, view.b_tilde, calibration.A, calibration.B, title=title)


def view_rows(view, count: int = 5, coordinates: int = 3, digits: int = 3) -> list[dict]:
    """`inside_view_rows` of an ``InsideView`` with a valid calibration."""
    return inside_view_rows(view.a, view.b, view.a_tilde, view.b_tilde, count=count, coordinates=coordinates,
                            digits=digits)
