"""The attacker's view, drawn the same way on every topic's page: a guarantee's trade-off curve
with measured attacks on the same axes, attack success against ε with its bound and the prior
baseline, and the frontier of attack success against utility.

Axes follow the spec's convention (`privlib.core.risk`): a test says "x" or "x′"; FPR = P(says x |
input x′), TPR = P(says x | input x). A guarantee with trade-off curve f allows no test above
TPR = 1 − f(FPR) (Dong, Roth & Su 2022, Def. 2.1); a measured ROC must lie under it.
Pure functions: result objects in, `go.Figure` out, over `presentation.style`.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from privlib.core.risk import TradeoffCurve
from privlib.presentation.style import (
    GREY,
    epsilon_x_axis,
    layout,
    palette_colour,
    rgba,
    titled,
)

#: Axis titles of the trade-off chart (ROC form), in words.
FPR_AXIS = "false-positive rate (says “x” when the input was x′)"
TPR_AXIS = "true-positive rate (says “x” when it was x)"
#: The text drawn where a mechanism has no guarantee at all (iDP, SanText+'s kept words, CusText across groups).
NO_GUARANTEE = "No guarantee: no curve bounds an attacker here (privacy loss unbounded)."


def roc_points(attack) -> tuple[np.ndarray, np.ndarray]:
    """(fpr, tpr) of a measured attack: an object with ``fpr`` and ``tpr`` arrays, or a pair of arrays."""
    if hasattr(attack, "fpr") and hasattr(attack, "tpr"):
        fpr, tpr = attack.fpr, attack.tpr
    else:
        fpr, tpr = attack
    return np.asarray(fpr, dtype=np.float64), np.asarray(tpr, dtype=np.float64)


def tradeoff_chart(bound: TradeoffCurve | None, *, attacks: Mapping[str, object] | None = None,
                   exact: TradeoffCurve | None = None, title: str | None = None, log_fpr: bool = False,
                   bound_name: str | None = None, exact_name: str | None = None) -> go.Figure:
    """The region a guarantee allows, as an ROC chart: the bound TPR ≤ 1 − f(FPR) of ``bound``
    (shaded above: no test gets there), the pair's ``exact`` curve where the output law is finite,
    each measured attack's ROC (``attacks``: label → an object with ``fpr``/``tpr`` or a pair of
    arrays) and the diagonal of guessing. ``bound`` None: the mechanism has no guarantee
    (`NO_GUARANTEE` is written on the chart, no curve). ``log_fpr``: a log FPR axis from 10⁻⁴, where
    the attacks that matter live (TPR at 1 % and 0.1 % FPR). ``bound_name`` / ``exact_name``: legend
    names in place of the curves' own labels."""
    fig = go.Figure()
    low = 1e-4 if log_fpr else 0.0
    grid = np.geomspace(low, 1.0, 200) if log_fpr else np.linspace(0.0, 1.0, 201)
    fig.add_trace(go.Scatter(x=grid, y=grid, mode="lines", name="guessing (TPR = FPR)",
                             line=dict(color=GREY, dash="dot", width=1.5), hoverinfo="skip"))
    if bound is not None:
        fpr, fnr = bound.points()
        keep = fpr >= low
        fpr, tpr = fpr[keep], 1.0 - fnr[keep]
        name = bound_name or f"the guarantee's limit ({bound.label})"
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", name=name, line=dict(color="#222222", width=2.5),
                                 hovertemplate="FPR %{x:.4g}: TPR at most %{y:.4f}<extra></extra>"))
        # the forbidden region above the limit, up to TPR = 1
        fig.add_trace(go.Scatter(x=np.concatenate([fpr, fpr[::-1]]), y=np.concatenate([tpr, np.ones_like(tpr)]),
                                 fill="toself", fillcolor=rgba("#222222", 0.08), line=dict(width=0),
                                 name="no attack can reach", hoverinfo="skip"))
    else:
        fig.add_annotation(x=0.5, y=0.5, xref="paper", yref="paper", text=NO_GUARANTEE, showarrow=False,
                           font=dict(size=13, color="#b00020"), bgcolor="rgba(255,255,255,0.85)")
    if exact is not None:
        fpr, fnr = exact.points()
        keep = fpr >= low
        fig.add_trace(go.Scatter(x=fpr[keep], y=1.0 - fnr[keep], mode="lines", name=exact_name or f"exact curve ({exact.label})",
                                 line=dict(color="#222222", dash="dash", width=1.8),
                                 hovertemplate="FPR %{x:.4g}: best TPR %{y:.4f}<extra></extra>"))
    for index, (label, attack) in enumerate((attacks or {}).items()):
        fpr, tpr = roc_points(attack)
        keep = fpr >= low
        fig.add_trace(go.Scatter(x=fpr[keep], y=tpr[keep], mode="lines+markers" if fpr.size <= 30 else "lines",
                                 name=label, line=dict(color=palette_colour(index), width=2),
                                 hovertemplate=f"{label}: FPR %{{x:.4g}}, TPR %{{y:.4f}}<extra></extra>"))
    if log_fpr:
        fig.update_xaxes(type="log", range=[np.log10(low), 0], title=FPR_AXIS)
    else:
        fig.update_xaxes(range=[0, 1], title=FPR_AXIS)
    fig.update_yaxes(range=[0, 1.02], title=TPR_AXIS)
    layout(fig, None)
    return titled(fig, title)


def attack_vs_epsilon_chart(epsilons, measured: Mapping[str, tuple], *, bound=None, baseline: float | None = None,
                            chosen_epsilon: float | None = None, y_title: str = "attack success",
                            title: str | None = None, bound_name: str = "the guarantee's bound",
                            baseline_name: str = "guessing from the prior") -> go.Figure:
    """Attack success against ε: each measured attack (``measured``: label → (values,) or (values,
    standard errors), one per ε; bands ± 2 SE), the guarantee's ``bound`` (one value per ε; None:
    not drawn), the ``baseline`` of an attacker who sees nothing (a horizontal line), and a marker
    at ``chosen_epsilon``."""
    epsilons = np.asarray(epsilons, dtype=np.float64)
    fig = go.Figure()
    if bound is not None:
        fig.add_trace(go.Scatter(x=epsilons, y=np.asarray(bound, dtype=np.float64), mode="lines", name=bound_name,
                                 line=dict(color="#222222", width=2.5),
                                 hovertemplate="ε = %{x:g}: at most %{y:.4f}<extra></extra>"))
    if baseline is not None:
        fig.add_trace(go.Scatter(x=[epsilons.min(), epsilons.max()], y=[baseline, baseline], mode="lines",
                                 name=baseline_name, line=dict(color=GREY, dash="dash", width=1.8),
                                 hovertemplate=f"{baseline_name}: %{{y:.4f}}<extra></extra>"))
    for index, (label, series) in enumerate(measured.items()):
        values = np.asarray(series[0], dtype=np.float64)
        colour = palette_colour(index)
        if len(series) > 1 and series[1] is not None:
            se = np.asarray(series[1], dtype=np.float64)
            fig.add_trace(go.Scatter(x=np.concatenate([epsilons, epsilons[::-1]]),
                                     y=np.concatenate([values + 2 * se, (values - 2 * se)[::-1]]),
                                     fill="toself", fillcolor=rgba(colour, 0.15), line=dict(width=0),
                                     showlegend=False, hoverinfo="skip", legendgroup=label))
        fig.add_trace(go.Scatter(x=epsilons, y=values, mode="lines+markers", name=label, legendgroup=label,
                                 line=dict(color=colour, width=2),
                                 hovertemplate=f"{label}, ε = %{{x:g}}: %{{y:.4f}}<extra></extra>"))
    epsilon_x_axis(fig, epsilons, chosen_epsilon=chosen_epsilon)
    fig.update_yaxes(title=y_title, rangemode="tozero")
    layout(fig, None)
    return titled(fig, title)


def frontier_chart(points: Mapping[str, tuple], *, x_title: str, y_title: str = "attack success",
                   title: str | None = None, baseline: float | None = None,
                   baseline_name: str = "guessing from the prior") -> go.Figure:
    """The frontier: attack success (y) against utility (x), one line per mechanism through its ε
    values (``points``: label → (utilities, successes, epsilons)); each point is labelled with its
    ε. Better mechanisms sit right (more utility) and low (less success) — ε values are comparable
    only within one mechanism family, the frontier across families."""
    fig = go.Figure()
    for index, (label, (utility, success, epsilons)) in enumerate(points.items()):
        fig.add_trace(go.Scatter(x=np.asarray(utility, dtype=np.float64), y=np.asarray(success, dtype=np.float64),
                                 mode="lines+markers", name=label, line=dict(color=palette_colour(index), width=2),
                                 customdata=np.asarray(epsilons, dtype=np.float64),
                                 hovertemplate=f"{label}, ε = %{{customdata:g}}: utility %{{x:.4f}}, "
                                               "attack %{y:.4f}<extra></extra>"))
    if baseline is not None:
        fig.add_hline(y=baseline, line=dict(color=GREY, dash="dash", width=1.5))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=baseline_name,
                                 line=dict(color=GREY, dash="dash", width=1.5)))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title=y_title, rangemode="tozero")
    layout(fig, None)
    return titled(fig, title)
