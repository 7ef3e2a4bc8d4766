"""Plotly figure builders for the random-projections topic: pure functions from plain numbers and
arrays (or a sweep's `privlib.core.sweep.SweepResult`) to ``go.Figure``, and the per-mechanism
table as a list of dicts. Axis, palette, margins and reference lines: `privlib.presentation.style`.

Charts follow Li & Li, "Differential Privacy with Random Projections and Sign Random Projections":
precision@R against ε (Figs. 10–13, 15), σ against ε (Fig. 1), the realised Δ₂ against p (Fig. 2),
the variance ratio R against σ (Fig. 3, eq. 23), estimator variances against ε (eqs. 19–22, Thm
4.6), P₊ against r (Fig. 4, eq. 26), N₊ against ‖u‖ (Fig. 5, eq. 27), the smooth flipping
probability (Fig. 6, Alg 7), the at-risk rate against p (Figs. 7–8, eqs. 31–32) and the histogram
of the smooth levels L_j (Fig. 9). Every log axis is labelled in full (`style.log_axis`); every
chart against ε can mark the chosen ε (`mark_epsilon`). Nothing here
computes a privacy quantity: the numbers come from ``privlib.projections``; pages only render.
"""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from privlib.core.sweep import SweepResult
from privlib.presentation.style import EPSILON_AXIS, GREY, layout, log_axis, palette_colour, reference_line
from privlib.projections.sweep import CHANCE, NONPRIVATE_RP, NONPRIVATE_SIGNRP, mechanism_facts, precision_label

#: How the charts name individual DP (Alg 9–11): it is NOT differential privacy.
IDP_NOTE = "individual DP — not DP"
#: Colours of the mechanisms by CLI name; an unknown name gets the next colour of the palette.
MECHANISM_COLOURS = {
    "raw-data-g-opt": "#7f7f7f",
    "dp-rp-g": "#bcbd22",
    "analytic-dp-rp-g": "#dbdb8d",
    "dp-rp-g-opt": "#ff7f0e",
    "dp-rp-l": "#c49c94",
    "dp-rp-g-opt-b": "#1f77b4",
    "dp-oporp": "#2ca02c",
    "dp-signrp-rr": "#e377c2",
    "dp-signrp-rr-smooth": "#9467bd",
    "dp-signoporp-rr": "#d62728",
    "dp-signoporp-rr-smooth": "#8c564b",
    "idp-signrp-g": "#17becf",
    "idp-signrp-rr": "#9edae5",
}
NONPRIVATE_COLOURS = {"rp": "#000000", "signrp": "#555555"}
#: The ε axis title of the half-width charts (the full one, `style.EPSILON_AXIS`, does not fit at 1024 px).
SHORT_EPSILON_AXIS = "ε  (← more privacy · less privacy →)"


def mechanism_colour(name: str, index: int = 0) -> str:
    """The colour of mechanism ``name`` (the same in every chart), or palette entry ``index``."""
    return MECHANISM_COLOURS.get(name, palette_colour(index))


def positive_range(*arrays) -> tuple[float, float]:
    """The smallest and largest finite positive value of ``arrays`` (for `style.log_axis`)."""
    values = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        raise ValueError("A log axis needs at least one finite positive value.")
    return float(values.min()), float(values.max())


def mark_x(fig: go.Figure, x: float, text: str) -> go.Figure:
    """A dotted vertical line at ``x`` on the log x axis of ``fig``, labelled ``text`` at the top,
    in place (a cached chart gets the page's value without being recomputed)."""
    x = float(x)
    fig.add_vline(x=x, line={"color": "#444444", "width": 1, "dash": "dot"})
    # plotly.js places shapes on a log axis by data value, but annotations by log10 value
    fig.add_annotation(x=math.log10(x), y=1, yref="paper", yanchor="bottom", showarrow=False, text=text,
                       font={"size": 11})
    return fig


def mark_epsilon(fig: go.Figure, epsilon: float) -> go.Figure:
    """The chosen ε on the (log) ε axis of ``fig``: `mark_x` labelled "ε = …"."""
    return mark_x(fig, epsilon, f"ε = {float(epsilon):g}")


# ---------------------------------------------------------------- 1. precision@R against epsilon
def sweep_curves(result: SweepResult) -> list[dict]:
    """The sweep's curves, one per mechanism in the sweep's order: [{name, label, guarantee, is_dp,
    output, epsilon, mean, sd}] with the mean precision@R and its SD over the repetitions per ε
    (the guarantee is the one at the smallest ε)."""
    facts = mechanism_facts(result)
    order = np.argsort(result.epsilons, kind="stable")
    curves = []
    for name in result.mechanisms:
        info = facts[name]
        curves.append({
            "name": name,
            "label": result.label(name),
            "guarantee": result.guarantees[name][int(order[0])],
            "is_dp": bool(info["is_dp"]),
            "output": info["output"],
            "epsilon": np.asarray(result.epsilons, dtype=float)[order],
            "mean": result.mean(name, "precision")[order],
            "sd": result.sd(name, "precision")[order],
        })
    return curves


def precision_vs_epsilon(result: SweepResult, chosen_epsilon: float | None = None, title: str | None = None,
                         metric: str | None = None) -> go.Figure:
    """precision@R against ε on a log axis, one line per mechanism (Figs. 10–13, 15).

    ``result``: a sweep (`privlib.projections.sweep.sweep`); ``metric`` the y-axis title (default
    "precision@R" with the sweep's R). Error bars are ± one SD over the repetitions. The
    non-private RP and SignRP levels are dashed, chance (R/n_db) dotted grey; individual-DP
    mechanisms are dotted and their legend says "individual DP — not DP". ``chosen_epsilon``
    draws a vertical line and a marker on every curve at that ε (where the sweep has it)."""
    metric = metric or precision_label(result)
    curves = sweep_curves(result)
    fig = go.Figure()
    all_eps = np.concatenate([c["epsilon"] for c in curves]) if curves else np.array([0.1, 100.0])
    repeats = result.repeats
    for i, c in enumerate(curves):
        colour = mechanism_colour(c["name"], i)
        label = c["label"] if c["is_dp"] else f"{c['label']} ({IDP_NOTE})"
        fig.add_trace(go.Scatter(
            x=c["epsilon"], y=c["mean"], mode="lines+markers", name=label, legendgroup=c["name"],
            line=dict(color=colour, width=2.2, dash="solid" if c["is_dp"] else "dot"),
            marker=dict(size=5, symbol="circle" if c["is_dp"] else "diamond-open"),
            error_y=dict(type="data", array=c["sd"], visible=True, thickness=1, width=3, color=colour),
            customdata=np.stack([c["sd"]], axis=1),
            hovertemplate=f"{label}<br>{c['guarantee']}<br>ε = %{{x:g}}<br>{metric} %{{y:.3f}} "
                          f"± %{{customdata[0]:.3f}} (SD over {repeats} repetitions)<extra></extra>",
        ))
    rp, signrp, chance = (result.reference.get(key) for key in (NONPRIVATE_RP, NONPRIVATE_SIGNRP, CHANCE))
    if rp is not None:
        reference_line(fig, all_eps, rp, f"non-private RP ({rp:.3f})", NONPRIVATE_COLOURS["rp"], "dash")
    if signrp is not None:
        reference_line(fig, all_eps, signrp, f"non-private SignRP ({signrp:.3f})", NONPRIVATE_COLOURS["signrp"],
                       "longdash")
    if chance is not None:
        reference_line(fig, all_eps, chance, f"chance ({chance:.3f})", GREY, "dot")
    if chosen_epsilon is not None:
        mark_epsilon(fig, chosen_epsilon)
        xs, ys, names = [], [], []
        for c in curves:
            hit = np.flatnonzero(np.isclose(c["epsilon"], chosen_epsilon, rtol=1e-9))
            if hit.size:
                xs.append(chosen_epsilon)
                ys.append(c["mean"][hit[0]])
                names.append(c["label"])
        if xs:
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=f"chosen ε = {chosen_epsilon:g}",
                                     marker=dict(size=13, symbol="circle-open", color="#000000", line=dict(width=2)),
                                     text=names, hovertemplate="%{text}: %{y:.3f}<extra>chosen ε</extra>"))
    lo, hi = math.log10(float(all_eps.min())), math.log10(float(all_eps.max()))
    if chosen_epsilon is not None:
        lo, hi = min(lo, math.log10(chosen_epsilon)), max(hi, math.log10(chosen_epsilon))
    log_axis(fig, 10 ** lo, 10 ** hi, "x", title=EPSILON_AXIS, range=[lo - 0.08, hi + 0.08])
    fig.update_yaxes(title=metric, range=[0, 1.02])
    return layout(fig, title, legend_y=-0.3)


# ---------------------------------------------------------------- 2. sigma against epsilon (Fig. 1)
def sigma_vs_epsilon(epsilons, series: list[dict], title: str | None = None) -> go.Figure:
    """The Gaussian noise σ against ε, log–log (Fig. 1; Thms 2.2, 3.1, 3.5).

    ``series``: [{label, sigma, valid (optional bool array), dash (optional), colour (optional)}].
    Where ``valid`` is False (the classical σ at ε ≥ 1, whose theorem does not apply) the curve is
    drawn grey and thin, with "(not valid: ε ≥ 1)" in its legend entry."""
    eps = np.asarray(epsilons, dtype=float)
    fig = go.Figure()
    for i, s in enumerate(series):
        sigma = np.asarray(s["sigma"], dtype=float)
        valid = np.ones(eps.shape, bool) if s.get("valid") is None else np.asarray(s["valid"], bool)
        colour = s.get("colour", palette_colour(i))
        dash = s.get("dash", "solid")
        if valid.any():
            fig.add_trace(go.Scatter(x=eps[valid], y=sigma[valid], mode="lines", name=s["label"],
                                     line=dict(color=colour, dash=dash, width=2.2), legendgroup=s["label"],
                                     hovertemplate=f"{s['label']}<br>ε = %{{x:g}}<br>σ = %{{y:.4g}}<extra></extra>"))
        if (~valid).any():
            # include the last valid point so the grey part joins the coloured one
            start = max(0, int(np.argmax(~valid)) - 1)
            part = np.arange(start, eps.size)
            fig.add_trace(go.Scatter(x=eps[part], y=sigma[part], mode="lines", name=f"{s['label']} (not valid: ε ≥ 1)",
                                     line=dict(color=GREY, dash=dash, width=1.4), legendgroup=s["label"],
                                     hovertemplate=f"{s['label']} — its theorem does not hold here<br>ε = %{{x:g}}"
                                                   f"<br>σ = %{{y:.4g}}<extra></extra>"))
    log_axis(fig, *positive_range(eps), "x", title=SHORT_EPSILON_AXIS)
    log_axis(fig, *positive_range(*(s["sigma"] for s in series)), "y", title="noise SD σ")
    return layout(fig, title)


# ---------------------------------------------------------------- 3. realised Delta_2 against p (Fig. 2)
def delta2_vs_p(ps, series: dict, k: int | None = None, title: str | None = None) -> go.Figure:
    """The realised L2 sensitivity Δ₂ (eq. 13) against the data dimension p, one line per
    projection kind (Fig. 2). ``series``: label -> Δ₂ values at ``ps``, or label -> (median, low,
    high) to draw a band (e.g. the 10–90 % range over draws of W)."""
    ps = np.asarray(ps, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        colour = palette_colour(i)
        if isinstance(values, (tuple, list)) and len(values) == 3 and np.ndim(values[0]) == 1:
            mid, lo, hi = (np.asarray(v, dtype=float) for v in values)
            fig.add_trace(go.Scatter(x=np.concatenate([ps, ps[::-1]]), y=np.concatenate([hi, lo[::-1]]),
                                     fill="toself", fillcolor=colour, opacity=0.15, line=dict(width=0),
                                     hoverinfo="skip", showlegend=False, legendgroup=label))
        else:
            mid = np.asarray(values, dtype=float)
        fig.add_trace(go.Scatter(x=ps, y=mid, mode="lines+markers", name=label, legendgroup=label,
                                 line=dict(color=colour, width=2), marker=dict(size=5),
                                 hovertemplate=f"{label}<br>p = %{{x:,}}<br>Δ₂ = %{{y:.4f}}<extra></extra>"))
    log_axis(fig, *positive_range(ps), "x", title="data dimension p")
    fig.update_yaxes(title=f"realised Δ₂ (β = 1{f', k = {k}' if k else ''})")
    return layout(fig, title)


# ---------------------------------------------------------------- 4. variance ratio R against sigma (Fig. 3)
def variance_ratio_vs_sigma(sigmas, series: dict, title: str | None = None) -> go.Figure:
    """R = Var(raw)/Var(RP) of eq. (23) against σ, log–log (Fig. 3); ``series``: label -> R values.
    R > 1 means projecting first gives the smaller variance; R tends to p/k as σ grows."""
    sigmas = np.asarray(sigmas, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=sigmas, y=np.asarray(values, dtype=float), mode="lines", name=label,
                                 line=dict(color=palette_colour(i), width=2,
                                           dash="solid" if i % 2 == 0 else "dash"),
                                 hovertemplate=f"{label}<br>σ = %{{x:.3g}}<br>R = %{{y:.3g}}<extra></extra>"))
    reference_line(fig, sigmas, 1.0, "R = 1: equal variance", GREY, "dot")
    log_axis(fig, *positive_range(sigmas), "x", title="noise SD σ")
    log_axis(fig, *positive_range(*series.values()), "y", title="R = Var(raw) / Var(projected)")
    return layout(fig, title)


# ---------------------------------------------------------------- 5. estimator variances against epsilon
def variance_vs_epsilon(epsilons, closed_form: dict, monte_carlo: dict | None = None,
                        y_title: str = "variance of the inner-product estimate", title: str | None = None,
                        log_y: bool = True) -> go.Figure:
    """Closed-form variances against ε as lines (e.g. eqs. 19, 20, 22, or √(V_RR/k) of Thm 4.6),
    with Monte Carlo estimates as markers with ±2 SE error bars.

    ``closed_form``: label -> values at ``epsilons``; ``monte_carlo``: label -> (epsilons, values,
    standard errors), drawn in the colour of the closed-form line of the same label."""
    eps = np.asarray(epsilons, dtype=float)
    fig = go.Figure()
    colours = {}
    for i, (label, values) in enumerate(closed_form.items()):
        colours[label] = palette_colour(i)
        fig.add_trace(go.Scatter(x=eps, y=np.asarray(values, dtype=float), mode="lines", name=label,
                                 line=dict(color=colours[label], width=2), legendgroup=label,
                                 hovertemplate=f"{label}<br>ε = %{{x:g}}<br>%{{y:.4g}}<extra>closed form</extra>"))
    for j, (label, (mc_eps, values, se)) in enumerate((monte_carlo or {}).items()):
        colour = colours.get(label, palette_colour(len(colours) + j))
        fig.add_trace(go.Scatter(x=np.asarray(mc_eps, dtype=float), y=np.asarray(values, dtype=float), mode="markers",
                                 name=f"{label}, simulated", legendgroup=label,
                                 marker=dict(color=colour, size=8, symbol="x"),
                                 error_y=dict(type="data", array=2 * np.asarray(se, dtype=float), visible=True),
                                 hovertemplate=f"{label}<br>ε = %{{x:g}}<br>%{{y:.4g}}<extra>Monte Carlo</extra>"))
    log_axis(fig, *positive_range(eps), "x", title=SHORT_EPSILON_AXIS)
    if log_y:
        simulated = [values for _, values, _ in (monte_carlo or {}).values()]
        log_axis(fig, *positive_range(*closed_form.values(), *simulated), "y", title=y_title)
    else:
        fig.update_yaxes(title=y_title)
    return layout(fig, title)


# ---------------------------------------------------------------- 6. P+ against r (Fig. 4), N+ against ||u|| (Fig. 5)
def p_plus_vs_r(r, series: dict, title: str | None = None) -> go.Figure:
    """P₊(r, p) of eq. (26) against r = β/m, one line per p (Fig. 4): the probability that one
    bit of a Gaussian sign random projection can flip between β-adjacent vectors."""
    r = np.asarray(r, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=r, y=np.asarray(values, dtype=float), mode="lines", name=label,
                                 line=dict(color=palette_colour(i), width=2),
                                 hovertemplate=f"{label}<br>r = %{{x:.3g}}<br>P₊ = %{{y:.4f}}<extra></extra>"))
    fig.update_xaxes(title="r = β / m  (m: the norm bound)")
    fig.update_yaxes(title="P₊(r, p): share of bits at risk", range=[0, 1])
    return layout(fig, title)


def n_plus_vs_norm(norms, series: dict, k: int, title: str | None = None) -> go.Figure:
    """N₊ of eq. (27) against the norm bound m = ‖u‖, one line per β (Fig. 5), with the cap k
    dashed: the number of bits DP-SignRP-RR must protect, so each bit gets ε/N₊."""
    norms = np.asarray(norms, dtype=float)
    fig = go.Figure()
    for i, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=norms, y=np.asarray(values, dtype=float), mode="lines", name=label,
                                 line=dict(color=palette_colour(i), width=2),
                                 hovertemplate=f"{label}<br>‖u‖ = %{{x:.3g}}<br>N₊ = %{{y:.1f}}<extra></extra>"))
    reference_line(fig, norms, float(k), f"k = {k} (every bit at risk)", GREY, "dash")
    fig.update_xaxes(title="norm bound m = ‖u‖")
    fig.update_yaxes(title="N₊: bits at risk (eq. 27)", rangemode="tozero")
    return layout(fig, title)


# ---------------------------------------------------------------- 7. flip probability against |projection| (Figs. 6, 9)
def flip_probability_vs_projection(z, smooth, rr_level: float, local=None, D: float = 1.0,
                                   epsilon: float | None = None, title: str | None = None) -> go.Figure:
    """Flip probability against |projected value| (Fig. 6, Alg 7): the smooth step curve
    1/(e^{⌈|z|/D⌉ε/k} + 1), the flat randomised-response level 1/(e^{ε/k} + 1) and, optionally,
    the "local" level (the RR level for |z| < D, where a neighbour can change the sign, 0 beyond).
    ``z``, ``smooth`` and ``local`` are arrays on the same grid of |z| ≥ 0."""
    z = np.asarray(z, dtype=float)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=z, y=np.asarray(smooth, dtype=float), mode="lines", line_shape="hv",
                             name="smooth flipping (Alg 7/8)", line=dict(color=MECHANISM_COLOURS["dp-signrp-rr-smooth"],
                                                                          width=2.5),
                             hovertemplate="|z| = %{x:.3g}<br>flip %{y:.4f}<extra>smooth</extra>"))
    reference_line(fig, z, rr_level, f"randomised response ({rr_level:.4f})", MECHANISM_COLOURS["dp-signrp-rr"], "dash")
    if local is not None:
        fig.add_trace(go.Scatter(x=z, y=np.asarray(local, dtype=float), mode="lines", line_shape="hv",
                                 name="local (only where a neighbour can flip)",
                                 line=dict(color=GREY, dash="dot", width=2),
                                 hovertemplate="|z| = %{x:.3g}<br>flip %{y:.4f}<extra>local</extra>"))
    fig.update_xaxes(title=f"|projected value| (step every D = {D:g})")
    fig.update_yaxes(title="probability the released bit is flipped", range=[0, 0.55])
    return layout(fig, title or (f"Flip probability, ε = {epsilon:g}" if epsilon else None))


def smooth_level_histogram(levels: dict, title: str | None = None, max_level: int = 30) -> go.Figure:
    """Normalised histograms of the smooth levels L_j = ⌈|z_j|/D_j⌉ (Fig. 9): ``levels``: label ->
    integer array of L_j values (levels above ``max_level`` are pooled in the last bar). A bit at
    level L is flipped with probability 1/(e^{Lε/k} + 1): the larger L, the safer the bit."""
    fig = go.Figure()
    for i, (label, values) in enumerate(levels.items()):
        values = np.minimum(np.asarray(values, dtype=np.int64).ravel(), max_level)
        counts = np.bincount(values, minlength=max_level + 1)
        fig.add_trace(go.Bar(x=np.arange(counts.size), y=counts / max(values.size, 1), name=label,
                             marker_color=palette_colour(i), opacity=0.7,
                             hovertemplate=f"{label}<br>L = %{{x}}<br>%{{y:.1%}} of bits<extra></extra>"))
    fig.update_layout(barmode="overlay", bargap=0.05)
    fig.update_xaxes(title=f"smooth level L_j  (≥ {max_level} pooled)")
    fig.update_yaxes(title="fraction of bits", tickformat=".0%")
    return layout(fig, title)


# ---------------------------------------------------------------- 8. the per-mechanism table
TABLE_COLUMNS = ("mechanism", "guarantee", "σ or ε per bit", "Δ₂", "expected flipped bits", "bits per vector")


def _format_number(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    value = float(value)
    if not math.isfinite(value):
        return "∞" if value > 0 else "—"
    return f"{value:.{digits}g}"


def mechanism_table(rows: list[dict], precision_label: str = "precision@50") -> list[dict]:
    """The per-mechanism table at the chosen ε, for ``st.dataframe``: one dict per mechanism with
    the columns `TABLE_COLUMNS`, numbers formatted as text (so a column may mix σ and ε per bit).

    Each input row: {label, guarantee, is_dp, sigma, eps_per_bit, laplace_scale (each or None), delta2 (or
    None), expected_flips (or None), bits (int)} and optionally precision (a column
    ``precision_label`` is then added), e.g. ``privlib.projections.sweep.table_rows(result, ε)``."""
    table = []
    for r in rows:
        if r.get("sigma") is not None:
            noise = f"σ = {_format_number(r['sigma'])}"
        elif r.get("eps_per_bit") is not None:
            noise = f"ε′ = {_format_number(r['eps_per_bit'])}"
        elif r.get("laplace_scale") is not None:
            noise = f"Laplace b = {_format_number(r['laplace_scale'])}"
        elif not r.get("is_dp", True):
            noise = "per vector, from u itself"
        else:
            noise = "—"
        guarantee = r["guarantee"]
        if not r.get("is_dp", True) and "not DP" not in guarantee:
            guarantee = f"{guarantee} ({IDP_NOTE})"
        table.append({
            "mechanism": r["label"],
            "guarantee": guarantee,
            "σ or ε per bit": noise,
            "Δ₂": _format_number(r.get("delta2")),
            "expected flipped bits": _format_number(r.get("expected_flips"), 3),
            "bits per vector": f"{int(r['bits']):,}" if r.get("bits") is not None else "—",
        })
        if "precision" in r:
            table[-1][precision_label] = _format_number(r["precision"], 3)
    return table


#: The characters that Markdown (and Streamlit's, with $ for formulas) reads as marks in a table cell.
MARKDOWN_MARKS = frozenset("\\|*_`$~")


def markdown_table(rows: list[dict]) -> str:
    """``rows`` (one dict per row, the columns of the first; e.g. `mechanism_table`) as a Markdown table:
    a static table whose cells wrap, drawn without pandas (``st.table`` imports it: about half a second
    on a page's first view). Markdown's marks in a cell (| * _ ` $ ~ \\) are escaped, so a cell reads as
    written, and a line break becomes a space."""
    if not rows:
        return ""

    def cell(value) -> str:
        return "".join("\\" + c if c in MARKDOWN_MARKS else c for c in " ".join(str(value).split()))

    columns = list(rows[0])
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


# ================================================================ the page's charts, computed
# Each function below computes its closed forms with privlib.projections and returns the figure of
# one builder above: deterministic, no side effects (pages cache and render them).

#: ε grid of the closed-form charts (log-spaced).
CURVE_EPSILONS = tuple(float(e) for e in np.geomspace(0.05, 100.0, 61))


def sigma_chart(delta: float, beta: float, realised_delta2: float, epsilons=CURVE_EPSILONS,
                title: str | None = None) -> go.Figure:
    """Fig. 1: σ against ε for the classical (Thm 2.2; grey where ε ≥ 1), Kenthapadi (Thm 3.1)
    and optimal σ* (eq. 14, Thm 3.5) calibrations, at Δ₂ = β (Rademacher, OPORP: solid) and at the
    realised Δ₂ of a Gaussian projection (dashed)."""
    from privlib.projections.quantities import sigma_against_epsilon

    series = []
    for method, label, colour in (("classical", "classical", "#7f7f7f"),
                                  ("kenthapadi", "Kenthapadi", "#bcbd22"),
                                  ("optimal", "optimal σ*", "#1f77b4")):
        for sens, dash, name in ((beta, "solid", "Δ₂ = β"), (realised_delta2, "dash", f"Δ₂ = {realised_delta2:.3f}")):
            curve = sigma_against_epsilon(epsilons, delta, sens, method)
            series.append({"label": f"{label}, {name}", "sigma": curve.sigma, "valid": curve.valid,
                           "dash": dash, "colour": colour})
    fig = sigma_vs_epsilon(epsilons, series, title=title)
    fig.update_layout(height=520)
    return fig


def delta2_chart(k: int, beta: float = 1.0, seed: int = 0, s_values=(3, 10),
                 ps=(64, 128, 256, 512, 784, 1024, 2048, 4096, 8192), title: str | None = None) -> go.Figure:
    """Fig. 2: the realised Δ₂ (eq. 13) against p for each projection kind: the exact median and
    10–90 % range over draws of W where a closed form exists (``quantities.delta2_quantile``:
    Gaussian, very sparse, Rademacher, OPORP), one draw per p for √3·U[−1,1]."""
    from privlib.projections.projection import Projection
    from privlib.projections.quantities import delta2_quantile

    def band(kind, s=3):
        return tuple(np.array([delta2_quantile(kind, q, p, k, beta, s) for p in ps]) for q in (0.5, 0.1, 0.9))

    series = {"Gaussian": band("gaussian")}
    for s in s_values:
        series[f"very sparse, s = {s:g}"] = band("sparse", s)
    series["√3·U[−1, 1] (one draw per p)"] = np.array(
        [Projection("uniform", p, k, seed + i).delta2(beta) for i, p in enumerate(ps)])
    series["Rademacher (s = 1) and OPORP: exactly β"] = np.full(len(ps), float(beta))
    return delta2_vs_p(ps, series, k=k, title=title)


#: σ grid of Fig. 3, r grid of Fig. 4 and norm grid of Fig. 5.
RATIO_SIGMAS = tuple(float(x) for x in np.geomspace(1e-3, 10.0, 81))
P_PLUS_RATIOS = tuple(float(x) for x in np.linspace(0.0, 1.0, 21))  # smooth curves: 21 points suffice
NORMS = tuple(float(x) for x in np.linspace(2.0, 40.0, 20))


def variance_ratio_chart(sigmas=RATIO_SIGMAS, title: str | None = None, ratios=(0.01, 0.1, 0.5)) -> go.Figure:
    """Fig. 3: R of eq. (23) against σ for p ∈ {10³, 10⁴} and k/p ∈ ``ratios`` (the paper also
    draws k/p = .05; three ratios keep the chart at six lines)."""
    from privlib.projections.quantities import variance_ratio_R

    series = {}
    for p in (1000, 10000):
        for ratio in ratios:
            k = round(ratio * p)
            series[f"p = {p:,}, k = {k:,} (p/k = {p // k})"] = variance_ratio_R(np.asarray(sigmas), p, k)
    return variance_ratio_vs_sigma(sigmas, series, title=title)


def p_plus_chart(ps=(1, 10, 100, 1000, 10_000, 1_000_000), r=P_PLUS_RATIOS,
                 title: str | None = None) -> go.Figure:
    """Fig. 4: P₊(r, p) of eq. (26) against r for several p."""
    from privlib.projections.quantities import p_plus

    return p_plus_vs_r(r, {f"p = {p:,}": p_plus(np.asarray(r), p) for p in ps}, title=title)


def n_plus_chart(p: int, k: int, delta: float, betas=(0.5, 1.0, 2.0), norms=NORMS,
                 title: str | None = None) -> go.Figure:
    """Fig. 5: N₊ of eq. (27) against the norm bound m = ‖u‖, one line per β (m ≥ β)."""
    from privlib.projections.quantities import n_plus

    norms = np.asarray(norms, dtype=float)
    series = {f"β = {b:g}": np.array([n_plus(p, k, delta, m, b) if m >= b else np.nan for m in norms])
              for b in betas}
    return n_plus_vs_norm(norms, series, k=k, title=title)


def flip_chart(epsilon: float, per_level_budget: float, D: float = 1.0, levels: int = 6,
               title: str | None = None) -> go.Figure:
    """Fig. 6: the smooth flipping probability 1/(e^{⌈|z|/D⌉·b} + 1) against |z|, with b the
    budget per level (DP-SignOPORP-RR-smooth: ε/t with D = β; DP-SignRP-RR-smooth: ε/k), against
    the randomised-response level 1/(e^b + 1) and the local level (RR where |z| < D, 0 beyond)."""
    from privlib.core.randomised_response import binary_flip_probability
    from privlib.projections.quantities import smooth_flip_probability

    z = np.linspace(0.0, levels * D, 601)[1:]
    smooth = smooth_flip_probability(z, D, per_level_budget, 1)
    rr = binary_flip_probability(per_level_budget)
    local = np.where(z <= D, rr, 0.0)
    return flip_probability_vs_projection(z, smooth, rr, local, D=D, epsilon=epsilon, title=title)


def angle_sd_chart(k: int, n_plus_count: float, t: int, theta: float = np.pi / 3, epsilons=CURVE_EPSILONS,
                   title: str | None = None, monte_carlo=None) -> go.Figure:
    """√(V_RR/k), the standard deviation of the angle estimate θ̂_RR (Thm 4.6, eq. 29), against ε
    for DP-SignRP-RR (ε′ = ε/N₊) and DP-SignOPORP-RR (ε′ = ε/t), with the non-private SignRP
    level √(θ(π − θ)/k) (eq. 10). ``monte_carlo`` (a ``sweep.AngleCheck`` of the same θ and k)
    adds the simulated SDs ± 2 SE on the DP-SignOPORP-RR line, at ε = t·ε′."""
    from privlib.projections.quantities import v_rr

    eps = np.asarray(epsilons, dtype=float)
    oporp = f"DP-SignOPORP-RR (ε′ = ε/t, t = {t})"
    series = {f"DP-SignRP-RR (ε′ = ε/N₊, N₊ = {n_plus_count:.1f})": np.sqrt(v_rr(theta, eps / n_plus_count) / k),
              oporp: np.sqrt(v_rr(theta, eps / t) / k),
              "non-private SignRP": np.full(eps.size, np.sqrt(theta * (np.pi - theta) / k))}
    mc = None
    if monte_carlo is not None:
        if not np.isclose(monte_carlo.theta, theta) or monte_carlo.k != k:
            raise ValueError(f"The Monte Carlo check is for θ = {monte_carlo.theta:.4g}, k = {monte_carlo.k}; "
                             f"the chart for θ = {theta:.4g}, k = {k}.")
        mc = {oporp: (t * np.asarray(monte_carlo.eps_per_bit, dtype=float), monte_carlo.sd,
                      monte_carlo.standard_error)}
    return variance_vs_epsilon(eps, series, mc, y_title=f"SD of θ̂ (θ = {theta:.3g} rad, k = {k})", title=title)


def variance_chart(u, v, k: int, delta: float, beta: float, monte_carlo=None, epsilons=CURVE_EPSILONS,
                   title: str | None = None) -> go.Figure:
    """The closed-form variances of the released inner product of u and v against ε, each with
    σ = σ*(ε, δ, β): raw data (eq. 19), Rademacher RP (eq. 20) and OPORP (eq. 22); ``monte_carlo``
    (a ``sweep.VarianceCheck``) adds the simulated variances ± 2 SE."""
    from privlib.projections.quantities import (
        sigma_against_epsilon,
        variance_oporp,
        variance_raw,
        variance_rp_rademacher,
    )

    eps = np.asarray(epsilons, dtype=float)
    sigma = sigma_against_epsilon(eps, delta, beta, "optimal").sigma
    labels = {"raw-data-g-opt": "Raw-data-G-OPT (eq. 19)", "dp-rp-g-opt-b": "DP-RP-G-OPT-B (eq. 20)",
              "dp-oporp": "DP-OPORP (eq. 22)"}
    closed = {labels["raw-data-g-opt"]: variance_raw(u, v, sigma),
              labels["dp-rp-g-opt-b"]: variance_rp_rademacher(u, v, sigma, k),
              labels["dp-oporp"]: variance_oporp(u, v, sigma, k)}
    mc = None
    if monte_carlo is not None:
        mc = {labels[name]: (monte_carlo.epsilons, monte_carlo.variance[name], monte_carlo.standard_error[name])
              for name in monte_carlo.variance if name in labels}
    return variance_vs_epsilon(eps, closed, mc, title=title)


#: p grid of the at-risk chart (Figs. 7–8 go from 10 to 1,000; extended to the synthetic data's p).
AT_RISK_PS = tuple(round(float(x)) for x in np.geomspace(10, 10_000, 19))


def at_risk_vs_p(ps, series: dict, title: str | None = None) -> go.Figure:
    """The at-risk rate Pr(β·maxᵢ|wᵢ| ≥ |wᵀu|) of one sign projection (eq. 30) against p on a log
    axis (Figs. 7–8). ``series``: label -> (values at ``ps``, colour, dash)."""
    ps = np.asarray(ps, dtype=float)
    fig = go.Figure()
    for label, (values, colour, dash) in series.items():
        fig.add_trace(go.Scatter(x=ps, y=np.asarray(values, dtype=float), mode="lines", name=label,
                                 line={"color": colour, "dash": dash, "width": 2},
                                 hovertemplate=f"{label}<br>p = %{{x:,}}<br>at-risk rate %{{y:.4f}}<extra></extra>"))
    log_axis(fig, *positive_range(ps), "x", title="data dimension p")
    fig.update_yaxes(title="share of bits at risk", rangemode="tozero")
    return layout(fig, title)


def at_risk_chart(betas=(1.0, 0.1), ps=AT_RISK_PS, title: str | None = None) -> go.Figure:
    """Figs. 7–8 in closed form, for the paper's data u ~ U[−1, 1]^p taken at its root-mean-square
    norm ‖u‖ = √(p/3): the Rademacher rate 2Φ(β/‖u‖) − 1 (eq. 31, a central-limit approximation,
    `quantities.at_risk_rate_clt`) against the Gaussian bound P₊(β/‖u‖, p) (eq. 32 = eq. 26,
    `quantities.p_plus`), one colour per β."""
    from privlib.projections.quantities import at_risk_rate_clt, p_plus

    ps = np.asarray(ps, dtype=float)
    norms = np.sqrt(ps / 3.0)
    series = {}
    for i, beta in enumerate(betas):
        colour = palette_colour(i)
        series[f"Rademacher, β = {beta:g} (eq. 31)"] = (at_risk_rate_clt(beta, norms), colour, "solid")
        series[f"Gaussian, β = {beta:g} (eq. 32)"] = (
            np.array([float(p_plus(beta / norm, int(p))) for norm, p in zip(norms, ps)]), colour, "dash")
    return at_risk_vs_p(ps, series, title=title)
