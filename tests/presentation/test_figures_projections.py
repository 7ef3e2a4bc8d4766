"""Figures of the random-projections topic: traces, labels and the numbers they plot (checked
against the paper's reference values), and that the builders are pure."""
import json

import numpy as np
import pytest

from privlib.core.sweep import SweepResult
from privlib.presentation import style
from privlib.presentation.projections import figures as F
from privlib.projections.sweep import (
    CHANCE,
    METRICS,
    NONPRIVATE_RP,
    NONPRIVATE_SIGNRP,
    precision_label,
    sweep,
    table_rows,
)


def sweep_result():
    """A hand-made sweep: three mechanisms at three ε, three repetitions with means 0.02… and SD 0.01."""
    eps = [0.1, 1.0, 10.0]
    means = {"dp-oporp": [0.02, 0.1, 0.5], "dp-signoporp-rr-smooth": [0.05, 0.3, 0.45],
             "idp-signrp-rr": [0.6, 0.6, 0.61]}
    values = np.full((3, 3, 3, len(METRICS)), np.nan)
    for i, name in enumerate(means):
        for j, mean in enumerate(means[name]):
            values[i, j, :, 0] = [mean - 0.01, mean, mean + 0.01]  # sample SD 0.01
    facts = [{"name": "dp-oporp", "label": "DP-OPORP", "output": "real", "is_dp": True},
             {"name": "dp-signoporp-rr-smooth", "label": "DP-SignOPORP-RR-smooth", "output": "sign", "is_dp": True},
             {"name": "idp-signrp-rr", "label": "iDP-SignRP-RR", "output": "sign", "is_dp": False}]
    return SweepResult(
        mechanisms=tuple(means), epsilons=np.array(eps), metrics=METRICS, values=values, seed=0,
        labels={f["name"]: f["label"] for f in facts},
        reference={NONPRIVATE_RP: 0.8, NONPRIVATE_SIGNRP: 0.65, CHANCE: 0.05},
        settings={"R": 50, "mechanisms": facts},
        guarantees={"dp-oporp": ["(ε, δ)-DP"] * 3, "dp-signoporp-rr-smooth": ["ε-DP"] * 3,
                    "idp-signrp-rr": ["individual DP — not DP"] * 3})


def trace(fig, start):
    found = [t for t in fig.data if t.name and t.name.startswith(start)]
    assert found, [t.name for t in fig.data]
    return found[0]


def test_precision_chart_lines_reference_levels_idp_and_marker():
    data = sweep_result()
    before = data.to_json()
    fig = F.precision_vs_epsilon(data, chosen_epsilon=1.0)
    assert data.to_json() == before  # the input is not modified
    assert fig.to_json() == F.precision_vs_epsilon(data, chosen_epsilon=1.0).to_json()  # pure
    oporp = trace(fig, "DP-OPORP")
    assert list(oporp.x) == [0.1, 1.0, 10.0] and list(oporp.y) == pytest.approx([0.02, 0.1, 0.5], abs=1e-15)
    assert list(oporp.error_y.array) == pytest.approx([0.01] * 3, rel=1e-9) and oporp.line.dash == "solid"
    idp = trace(fig, "iDP-SignRP-RR")
    assert "individual DP — not DP" in idp.name and idp.line.dash == "dot"
    rp, signrp = trace(fig, "non-private RP"), trace(fig, "non-private SignRP")
    assert set(rp.y) == {0.8} and set(signrp.y) == {0.65} and "dash" in rp.line.dash and "dash" in signrp.line.dash
    assert set(trace(fig, "chance").y) == {0.05}
    marker = trace(fig, "chosen ε = 1")
    assert list(marker.y) == pytest.approx([0.1, 0.3, 0.6], abs=1e-15) and set(marker.x) == {1.0}
    assert fig.layout.xaxis.type == "log" and "more privacy" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.title.text == "precision@50"
    # no chosen epsilon: no marker; an epsilon outside the grid: the line but no markers
    assert not [t for t in F.precision_vs_epsilon(data).data if t.name.startswith("chosen")]
    assert not [t for t in F.precision_vs_epsilon(data, 2.0).data if t.name.startswith("chosen")]


def test_sigma_chart_greys_the_classical_sigma_from_epsilon_one():
    fig = F.sigma_chart(1e-6, 1.0, 1.14, epsilons=(0.1, 0.5, 1.0, 10.0, 100.0))
    valid = trace(fig, "classical, Δ₂ = β")
    assert max(valid.x) < 1
    grey = [t for t in fig.data if "not valid" in t.name]
    assert len(grey) == 2 and all(t.line.color == style.GREY for t in grey)
    assert min(grey[0].x) == 0.5 and max(grey[0].x) == 100.0  # joins the last valid point
    optimal = trace(fig, "optimal σ*, Δ₂ = β")
    assert list(optimal.y) == pytest.approx([36.30469043, 8.057618481, 4.224678889, 0.5410868318, 0.09783722397],
                                            rel=1e-9)
    gaussian = trace(fig, "optimal σ*, Δ₂ = 1.140")
    assert np.allclose(np.asarray(gaussian.y) / np.asarray(optimal.y), 1.14) and gaussian.line.dash == "dash"
    kenthapadi = trace(fig, "Kenthapadi, Δ₂ = β")
    assert list(kenthapadi.y) == pytest.approx([52.7551, 10.7016, 5.44344, 0.690152, 0.150874], rel=1e-5)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_delta2_chart_uses_the_exact_quantiles():
    fig = F.delta2_chart(256, ps=(784, 1024))
    assert trace(fig, "Gaussian").y[0] == pytest.approx(1.1399, abs=5e-5)
    assert trace(fig, "very sparse, s = 3").y[0] == pytest.approx(1.1302, abs=5e-5)
    assert trace(fig, "very sparse, s = 10").y[0] == pytest.approx(1.2809, abs=5e-5)
    assert set(trace(fig, "Rademacher").y) == {1.0}
    assert trace(fig, "√3·U").y[0] == pytest.approx(1.087, abs=0.03)  # one draw; the spec's median ≈ 1.087
    assert fig.layout.xaxis.type == "log"


def test_variance_ratio_chart_tends_to_p_over_k_and_matches_eq_23():
    fig = F.variance_ratio_chart(sigmas=(0.1, 1e3))
    line = trace(fig, "p = 1,000, k = 100")
    assert line.y[0] == pytest.approx(3.0, rel=1e-12) and line.y[1] == pytest.approx(10.0, rel=1e-3)
    assert trace(fig, "p = 1,000, k = 10").y[0] == pytest.approx(0.991736, rel=1e-6)
    assert len(fig.data) == 7 and set(trace(fig, "R = 1").y) == {1.0}  # six lines and R = 1


def test_p_plus_and_n_plus_charts_reference_values():
    fig = F.p_plus_chart(ps=(1, 1000), r=(0.0, 0.1, 1.0))
    assert trace(fig, "p = 1,000").y[1] == pytest.approx(0.2686604157, abs=1e-9)
    assert list(trace(fig, "p = 1").y) == pytest.approx([0.0, 0.0634510349, 0.5], abs=1e-9)  # (2/π)atan(r)
    fig = F.n_plus_chart(1024, 512, 1e-6, betas=(1.0,), norms=(0.5, 2.0, 5.0, 10.0, 20.0))
    line = trace(fig, "β = 1")
    assert np.isnan(line.y[0])  # m < β is not allowed
    assert list(line.y[1:]) == pytest.approx([512, 351.942661, 206.8022620, 121.357631], rel=1e-8)
    assert set(trace(fig, "k = 512").y) == {512.0}


def test_flip_chart_steps_are_the_smooth_flip_probabilities():
    fig = F.flip_chart(1.0, 1.0, D=1.0)
    smooth = trace(fig, "smooth")
    z, y = np.asarray(smooth.x), np.asarray(smooth.y)
    for level, expected in ((1, 0.2689414214), (2, 0.1192029220), (3, 0.0474258732), (5, 0.0066928509)):
        inside = (z > level - 1) & (z <= level)
        assert np.allclose(y[inside], expected, atol=1e-10), level
    assert list(trace(fig, "randomised response").y) == pytest.approx([0.2689414214] * 2, abs=1e-10)
    local = np.asarray(trace(fig, "local").y)
    assert np.all(local[z > 1] == 0) and np.allclose(local[z <= 1], 0.2689414214)
    assert smooth.line.shape == "hv"


def test_angle_sd_chart_is_the_square_root_of_v_rr_over_k():
    fig = F.angle_sd_chart(16, n_plus_count=1.0, t=1, theta=np.pi / 4, epsilons=(1.0,))
    assert trace(fig, "DP-SignOPORP-RR").y[0] == pytest.approx(np.sqrt(53.4874 / 16), rel=1e-5)
    assert trace(fig, "non-private").y[0] == pytest.approx(np.sqrt(np.pi / 4 * 3 * np.pi / 4 / 16))


def test_variance_chart_with_monte_carlo_points():
    from privlib.projections.sweep import VarianceCheck

    u, v = np.array([1, .5, 0, .25]), np.array([.5, 1, .25, 0])
    check = VarianceCheck(epsilons=(1.0,), draws=10, variance={"dp-oporp": np.array([2.0])},
                          standard_error={"dp-oporp": np.array([0.1])})
    fig = F.variance_chart(u, v, 2, 1e-6, 1.0, monte_carlo=check, epsilons=(1.0, 10.0))
    assert len([t for t in fig.data if t.mode == "lines"]) == 3
    mc = trace(fig, "DP-OPORP (eq. 22), simulated")
    assert list(mc.y) == [2.0] and list(mc.error_y.array) == [0.2]
    assert mc.marker.color == next(t for t in fig.data if t.name == "DP-OPORP (eq. 22)").line.color


def test_level_histogram_fractions():
    fig = F.smooth_level_histogram({"a": np.array([[0, 1, 1, 2], [50, 1, 2, 3]])}, max_level=5)
    bar = fig.data[0]
    assert sum(bar.y) == pytest.approx(1.0) and bar.y[1] == pytest.approx(3 / 8) and bar.y[5] == pytest.approx(1 / 8)


def test_mechanism_table_columns_and_formatting():
    rows = [{"label": "DP-OPORP", "guarantee": "(ε, δ)-DP", "is_dp": True, "sigma": 0.98004900, "delta2": 1.0,
             "expected_flips": None, "bits": 1024, "precision": 0.3051},
            {"label": "DP-RP-L", "guarantee": "ε-DP", "is_dp": True, "sigma": None, "eps_per_bit": None,
             "laplace_scale": 2.9, "delta2": 1.13, "expected_flips": None, "bits": 1024, "precision": 0.1},
            {"label": "DP-SignOPORP-RR", "guarantee": "ε-DP", "is_dp": True, "sigma": None, "eps_per_bit": 5.0,
             "delta2": 1.0, "expected_flips": 0.1071, "bits": 16, "precision": 0.4},
            {"label": "iDP-SignRP-RR", "guarantee": "individual", "is_dp": False, "sigma": None, "eps_per_bit": None,
             "delta2": 1.0, "expected_flips": 2.5, "bits": 16}]
    table = F.mechanism_table(rows)
    assert list(table[0]) == list(F.TABLE_COLUMNS) + ["precision@50"]
    assert table[0]["σ or ε per bit"] == "σ = 0.98" and table[0]["expected flipped bits"] == "—"
    assert table[1]["σ or ε per bit"] == "Laplace b = 2.9"
    assert table[2]["σ or ε per bit"] == "ε′ = 5" and table[2]["bits per vector"] == "16"
    assert "not DP" in table[3]["guarantee"] and "precision@50" not in table[3]
    json.dumps(table)


def test_a_sweep_with_r_10_draws_end_to_end():
    """sweep → figure with R ≠ 50 (the figure once read a "precision_at_50" key and raised KeyError)."""
    result = sweep("digits", ["dp-oporp", "idp-signrp-rr"], (1.0, 10.0), repeats=2, seed=1, k=16, R=10,
                   queries=40)
    fig = F.precision_vs_epsilon(result, chosen_epsilon=10.0)
    assert fig.layout.yaxis.title.text == "precision@10"
    oporp = trace(fig, "DP-OPORP")
    assert list(oporp.y) == pytest.approx(result.mean("dp-oporp", "precision"), abs=1e-15)
    assert 0 <= min(oporp.y) and max(oporp.y) <= 1 and oporp.y[0] < oporp.y[1]  # ε = 1 below ε = 10
    assert "individual DP — not DP" in trace(fig, "iDP-SignRP-RR").name
    assert set(trace(fig, "chance").y) == {10 / 1597}
    rows = F.mechanism_table(table_rows(result, 10.0), precision_label(result))
    assert [r["mechanism"] for r in rows] == ["DP-OPORP", "iDP-SignRP-RR"] and "precision@10" in rows[0]


# ------------------------------------------------------------------ issue 22: axes, markers, line counts, Figs. 7–8
def log_axes(fig) -> list:
    return [axis for axis in (fig.layout.xaxis, fig.layout.yaxis) if axis.type == "log"]


def default_charts():
    """Every chart builder of the page with small grids, by name."""
    u, v = np.array([1, .5, 0, .25]), np.array([.5, 1, .25, 0])
    return {"precision": F.precision_vs_epsilon(sweep_result(), 1.0), "sigma": F.sigma_chart(1e-6, 1.0, 1.14),
            "delta2": F.delta2_chart(32, ps=(64, 784, 8192)), "ratio": F.variance_ratio_chart(),
            "variance": F.variance_chart(u, v, 2, 1e-6, 1.0), "angle": F.angle_sd_chart(32, 20.0, 1),
            "at_risk": F.at_risk_chart(ps=(10, 100, 1000)), "p_plus": F.p_plus_chart(ps=(1, 1000), r=(0.1, 0.5)),
            "n_plus": F.n_plus_chart(1024, 32, 1e-6, norms=(2.0, 10.0)), "flip": F.flip_chart(1.0, 1.0)}


def test_every_log_axis_is_labelled_in_full_by_style_log_axis():
    charts = default_charts()
    expected = {"precision": 1, "sigma": 2, "delta2": 1, "ratio": 2, "variance": 2, "angle": 2, "at_risk": 1}
    for name, fig in charts.items():
        axes = log_axes(fig)
        assert len(axes) == expected.get(name, 0), name
        for axis in axes:
            assert axis.tickmode == "array" and len(axis.tickvals) >= 2, name
            assert list(axis.ticktext) == [style.tick_text(t) for t in axis.tickvals], name
    # full numbers, not Plotly's minor digits ("2, 5") or SI suffixes ("2k")
    assert list(charts["delta2"].layout.xaxis.ticktext) == ["100", "200", "500", "1,000", "2,000", "5,000"]
    assert "10⁻⁶" not in charts["sigma"].layout.yaxis.ticktext and "0.1" in charts["sigma"].layout.yaxis.ticktext


def test_no_default_chart_has_more_than_eight_lines():
    for name, fig in default_charts().items():
        lines = [t for t in fig.data if t.showlegend is not False and not (t.name or "").startswith("chosen")]
        assert 1 <= len(lines) <= 8, (name, [t.name for t in lines])


def test_mark_epsilon_draws_a_vertical_line_at_the_chosen_epsilon():
    fig = F.mark_epsilon(F.sigma_chart(1e-6, 1.0, 1.14), 2.5)
    lines = [s for s in fig.layout.shapes if s.x0 == s.x1]
    assert [s.x0 for s in lines] == [2.5] and lines[0].yref.startswith("y")  # spans the plot
    note = [a for a in fig.layout.annotations if a.text == "ε = 2.5"]
    assert len(note) == 1 and note[0].x == pytest.approx(np.log10(2.5))  # annotations on a log axis: log10
    assert [s.x0 for s in F.precision_vs_epsilon(sweep_result(), 1.0).layout.shapes] == [1.0]


def test_at_risk_chart_is_eq_31_for_rademacher_and_eq_32_for_gaussian():
    beta = 0.1 * np.sqrt(1000 / 3)  # β/‖u‖ = 0.1 at p = 1,000 with ‖u‖ = √(p/3)
    fig = F.at_risk_chart(betas=(beta,), ps=(10, 1000))
    rademacher = trace(fig, "Rademacher")
    gaussian = trace(fig, "Gaussian")
    assert rademacher.y[1] == pytest.approx(2 * 0.5398278372770290 - 1, abs=1e-12)  # 2Φ(0.1) − 1
    assert gaussian.y[1] == pytest.approx(0.2686604157, abs=1e-9)  # P₊(0.1, 1000), the spec's table
    assert rademacher.line.color == gaussian.line.color and gaussian.line.dash == "dash"
    assert len(F.at_risk_chart().data) == 4  # β = 1 and 0.1, two projections each


def test_chart_titles_and_legend_entries_fit_a_half_width_chart():
    """At 1024×768 a chart in one of two columns is about 340 px wide: titles and legend entries
    stay short (the legend sits below the plot, entries wrap between them)."""
    for name, fig in default_charts().items():
        title = fig.layout.title.text or ""
        assert len(title) <= 40, (name, title)
        for t in fig.data:
            if t.showlegend is not False and name != "precision":  # the precision chart is full width
                assert len(t.name or "") <= 42, (name, t.name)
        assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0
