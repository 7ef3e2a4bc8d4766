"""Charts people can read at 1024 × 768 (issue 22, "What a newcomer met in the browser"): log axes labelled
in full, no SI suffix on a fraction, a marker at the page's chosen ε on every chart against ε, at most
8 lines by default, no label drawn over a bar, titles wrapped instead of cut, and the words behind
tables and neighbour lists."""
import json
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import pytest

from privlib.core.sweep import SweepResult
from privlib.erm.calibration import privacy_meters
from privlib.erm.sweep import n_sweep
from privlib.erm.sweep import sweep as erm_sweep
from privlib.presentation import style
from privlib.presentation.erm import figures as erm
from privlib.presentation.label_dp import figures as label_dp
from privlib.presentation.words import figures as words
from privlib.words.experiments import SWEEP_METRICS, EpsilonSweep
from privlib.words.theory.analogies import PointMap, keep_rates
from privlib.words.theory.neighbour_distances import neighbour_distances, win_probabilities

#: Plotly's SI suffixes, which read as units on a proportion ("100μ", "10n").
SI = ("μ", "n", "m", "k", "M", "G")


def _sweep(eps, p_orig):
    """A two-word sweep of the words topic whose words have the share ``p_orig`` of original outputs."""
    p_orig = np.asarray(p_orig, float)
    per_word = np.stack([p_orig, np.zeros_like(p_orig), 1 - p_orig], axis=-1)
    values = np.repeat(per_word[None, :, None, :], 2, axis=2)
    result = SweepResult(("multivariate-laplace",), np.asarray(eps, float), SWEEP_METRICS, values, seed=0)
    return EpsilonSweep(result, ("a", "b"), 100, samples_per_word=4)


def lines(fig) -> list:
    """The drawn lines of a chart: traces with a line and a legend entry (not bands, not markers only)."""
    return [t for t in fig.data if t.type == "scatter" and "lines" in (t.mode or "") and t.showlegend is not False
            and t.fill in (None, "none")]


def chosen_lines(fig) -> list[float]:
    """The x of every vertical reference line (a shape from y = 0 to 1 of the plot area)."""
    return [float(s.x0) for s in fig.layout.shapes if s.type == "line" and s.x0 == s.x1 and s.yref.endswith("domain")]


def full_ticks(axis) -> list[str]:
    """The tick labels of a log axis drawn by `style.log_axis`: given in full (never Plotly's minor
    digits "2, 3, 5" nor an SI suffix)."""
    assert axis.type == "log" and axis.tickmode == "array", axis.to_plotly_json()
    texts = list(axis.ticktext)
    assert texts == [style.tick_text(v) for v in axis.tickvals]
    assert not any(s in t for t in texts for s in SI), texts
    return texts


# ---------------------------------------------------------------- 1. log axes labelled in full, no SI suffix
@pytest.fixture(scope="module")
def erm_n_sweep():
    return n_sweep("synthetic", ("non_private", "output", "obj_gauss"), (100, 300, 1000, 3000, 10_000), epsilon=1.0,
                   delta=1e-6, d=5, repeats=2, seed=0)


def test_private_learning_n_axis_reads_100_1000_not_2_5(erm_n_sweep):
    fig = erm.sweep_metric_chart(erm_n_sweep, chosen=1000)
    texts = full_ticks(fig.layout.xaxis)
    assert texts[:4] == ["100", "200", "500", "1,000"] and "2" not in texts and "5" not in texts
    excess = erm.sweep_excess_chart(erm_n_sweep, chosen=1000)
    full_ticks(excess.layout.xaxis)
    assert all("10" in t or t in ("0.001", "0.01", "0.1", "1") for t in full_ticks(excess.layout.yaxis))


def test_private_learning_meters_and_epsilon_l_axes_are_labelled_in_full():
    meters = privacy_meters(1.0, 1e-6, (100, 300, 1000, 10_000, 100_000), 5, R=1.0, A=1.0, B=1.0)
    fig = erm.meters_chart(meters, 1.0, chosen_n=1000)
    assert full_ticks(fig.layout.xaxis)[0] == "100"
    assert "1" in full_ticks(fig.layout.yaxis)  # the target ε = 1 is a labelled tick
    trade = erm.inflation_chart([1, 10, 100], [2000.0, 200.0, 20.0], [0.1, 0.2, 0.3], [0.01] * 3, [0.9, 0.5, 0.3])
    assert full_ticks(trade.layout.xaxis) == ["20", "50", "100", "200", "500", "1,000", "2,000"]


def test_label_dp_theory_axes_are_labelled_in_full():
    n = np.geomspace(1e2, 1e8, 7)
    fig = label_dp.theory_bounds_vs_n(n, {"eq. 59": np.linspace(0.5, 0.9, 7)},
                                      simulated={"θ̂₀": ((1000, 10_000), (0.6, 0.7), (0.01, 0.01))})
    assert full_ticks(fig.layout.xaxis)[:2] == ["100", "1,000"]
    cos = np.geomspace(1e-4, 1, 50)
    per_point = label_dp.theory_bounds_vs_cos(cos, {"α(x)": np.linspace(0.5, 1, 50)}, threshold=0.01)
    assert full_ticks(per_point.layout.xaxis)[0] == "10⁻⁴"


def test_word_tail_probabilities_read_as_powers_of_ten_not_si_units():
    t = np.linspace(0, 10, 20)
    fig = words.tail_bounds(t, np.exp(-2 * t), {"Thm 8": np.exp(-t)})
    texts = full_ticks(fig.layout.yaxis)
    assert texts == ["10⁻⁷", "10⁻⁵", "0.001", "0.1"]  # every second decade of 2×10⁻⁹ … 1


def test_small_densities_and_fractions_never_get_an_si_suffix():
    grid = np.linspace(-5000, 5000, 50)
    density = words.density_with_samples(grid, np.full(50, 1e-4), np.zeros(10))
    assert density.layout.yaxis.exponentformat == "power" and density.layout.xaxis.exponentformat == "power"
    trade = words.epsilon_tradeoff([_metrics("A")])
    assert trade.layout.xaxis.exponentformat == "power" and trade.layout.yaxis.exponentformat == "power"
    fraction = words.metric_vs_epsilon([_metrics("A")], "within_k", fraction=True)
    assert fraction.layout.yaxis.tickformat == ".0%"
    labels = label_dp.label_accuracy_vs_epsilon([0.1, 1, 8], {"given_label_accuracy": [0.5, 0.7, 0.99]})
    assert labels.layout.yaxis.tickformat == ".0%"


def _metrics(label: str, epsilons=(1.0, 3.0, 10.0, 30.0)):
    """A mechanism's metrics for the choose-ε charts (label, epsilons, values, bands)."""
    e = np.asarray(epsilons, float)
    values = {"within_k": e / 40, "unchanged": e / 60, "median_rank": 1000 / e, "effective": 100 / e}
    bands = {k: (v * 0.9, v * 1.1) for k, v in values.items()}
    return SimpleNamespace(label=label, epsilons=e, values=values, bands=bands)


def test_private_learning_explainer_ridge_of_1e_5_reads_as_a_power_not_10_micro():
    fig = erm.explainer_chart(10_000, 0.2, 0.5, {"input_safe": (0.003, 0.01)})
    assert fig.layout.yaxis.exponentformat == "power" and fig.layout.yaxis2.exponentformat == "power"


def test_choose_epsilon_log_axes_are_labelled_in_full():
    fig = words.metric_vs_epsilon([_metrics("A"), _metrics("B")], "median_rank", log_y=True, offset=1.0)
    assert full_ticks(fig.layout.xaxis) == ["1", "2", "5", "10", "20"]
    assert full_ticks(fig.layout.yaxis)[-1] in ("1,000", "500")


# ---------------------------------------------------------------- 2. a marker at the page's chosen ε
def test_proportions_chart_marks_the_chosen_epsilon_even_off_the_grid():
    sweeps = [("word", _sweep([1, 10, 100], [0, 0.5, 1]))]
    assert chosen_lines(words.proportions_vs_epsilon(sweeps)) == []
    fig = words.proportions_vs_epsilon(sweeps, chosen_epsilon=7)
    assert chosen_lines(fig) == [7.0]
    assert any(a.text == "chosen ε = 7" and a.x == pytest.approx(np.log10(7)) for a in fig.layout.annotations)
    wide = words.proportions_vs_epsilon(sweeps, chosen_epsilon=1000)  # off the grid: the axis reaches it
    assert chosen_lines(wide) == [1000.0] and max(wide.layout.xaxis.tickvals) == 1000


def test_keep_rate_win_probability_and_metric_charts_mark_the_chosen_epsilon(gaussian_space):
    rates = keep_rates(PointMap.us_states(), [0.001, 0.01], samples=20, rng=0)
    assert chosen_lines(words.keep_rate_vs_epsilon(rates, ["Hawaii"], chosen_epsilon=0.002)) == [0.002]
    assert chosen_lines(words.keep_rate_vs_epsilon(rates, ["Hawaii"])) == []
    table = neighbour_distances(gaussian_space, 20, far=10, rng=1)
    wp = win_probabilities(table, [0.5, 5.0, 50.0])
    assert chosen_lines(words.win_probabilities_vs_epsilon(wp, chosen_epsilon=5.0)) == [5.0]
    assert chosen_lines(words.metric_vs_epsilon([_metrics("A")], "within_k", chosen_epsilon=3.0)) == [3.0]


def test_private_learning_epsilon_charts_take_chosen_epsilon_and_n_charts_ignore_it(erm_n_sweep):
    sweep = erm_sweep("diabetes", ("non_private", "obj_gauss"), (1.0, 10.0), delta=1e-5, repeats=2, seed=0)
    fig = erm.sweep_metric_chart(sweep, chosen_epsilon=10.0)
    assert chosen_lines(fig) == [10.0] and [t for t in fig.data if t.name == "chosen ε = 10"]
    assert chosen_lines(erm.sweep_excess_chart(sweep, chosen_epsilon=1.0)) == [1.0]
    assert chosen_lines(erm.sweep_metric_chart(sweep)) == []
    assert chosen_lines(erm.sweep_metric_chart(erm_n_sweep, chosen_epsilon=1.0)) == []  # ε is fixed on an n axis


def test_label_dp_epsilon_charts_mark_the_chosen_epsilon():
    eps = [0.1, 0.5, 2.0]
    fig = label_dp.accuracy_vs_epsilon(eps, {"baseline": [0.6, 0.7, 0.9]}, classes=10, chosen_epsilon=0.5)
    assert chosen_lines(fig) == [0.5]
    assert chosen_lines(label_dp.label_accuracy_vs_epsilon(eps, {"given_label_accuracy": [0.2, 0.3, 0.5]},
                                                           chosen_epsilon=2.0)) == [2.0]


# ---------------------------------------------------------------- 3. at most 8 lines by default
def test_a_word_and_four_mechanisms_draw_at_most_eight_lines_by_default():
    sweeps = [(f"set {i}", _sweep([1, 10, 100], [0, 0.5, 1])) for i in range(5)]
    every = words.curve_set_labels(sweeps)
    assert len(every) == 5
    default = words.default_curve_sets(sweeps)
    assert default == ["set 0", "set 1"]  # 3 lines each: 2 sets = 6 lines, 3 would be 9
    fig = words.proportions_vs_epsilon(sweeps)
    assert 0 < len(lines(fig)) <= style.MAX_LINES
    assert len(lines(words.proportions_vs_epsilon(sweeps, shown=every))) == 15  # the user may ask for all
    picked = words.proportions_vs_epsilon(sweeps, shown=["set 4"])
    assert len(lines(picked)) == 3 and all(t.hovertemplate.startswith("set 4<br>") for t in lines(picked))


def test_first_groups_keeps_at_least_one_group():
    assert style.first_groups(["a", "b", "c"], 3) == ["a", "b"]
    assert style.first_groups(["a", "b"], 20) == ["a"]
    assert style.first_groups(["a", "b"], 1) == ["a", "b"]


def test_other_charts_against_epsilon_stay_within_eight_lines():
    eps = [0.1, 1, 8]
    curves = {m: [0.5, 0.7, 0.9] for m in ("baseline", "full", "consensus", "confidence")}
    fig = label_dp.accuracy_vs_epsilon(eps, curves, classes=2, nonprivate=0.95, chosen_epsilon=1)
    assert len(lines(fig)) <= style.MAX_LINES
    choose = words.metric_vs_epsilon([_metrics(str(i)) for i in range(4)], "within_k", target=0.5)
    assert len(lines(choose)) <= style.MAX_LINES


# ---------------------------------------------------------------- 4. nothing drawn over a bar
def test_word_neighbour_label_sits_between_the_line_and_the_bars():
    d = np.array([0.0, 2.0, 2.1, 2.15, 2.3])
    fig = words.neighbour_distance_profile(d, "w", k=3)
    note = fig.layout.annotations[0]
    # below the point it names (the line runs above it) and right of the first, tall bar, with its top edge
    # anchored there, so it reaches down into the empty band and stops above the small bars near 0
    assert note.ay > 0 and note.ax > 0 and note.xanchor == "left" and note.yanchor == "top"
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.range[1] > d.max()


# ---------------------------------------------------------------- 7. titles wrapped, not cut off
def test_wrap_text_breaks_long_titles_at_spaces_only():
    title = "centroid (eq. 2) on fig1, randomised response (RR): mean ± SD over 20 runs"
    wrapped = style.wrap_text(title, 40)
    assert wrapped.replace("<br>", " ") == title
    assert all(len(line) <= 40 for line in wrapped.split("<br>"))
    assert style.wrap_text("short", 40) == "short" and style.wrap_text(None) is None
    fig = style.titled(go.Figure(), title, width=40)
    assert fig.layout.title.text == wrapped and fig.layout.margin.t == style.MARGIN["t"] + 22


def test_half_width_charts_use_the_short_epsilon_title_and_a_wrapped_title():
    eps = [0.1, 0.5, 2.0]
    fig = label_dp.label_accuracy_vs_epsilon(eps, {"given_label_accuracy": [0.2, 0.3, 0.5]}, narrow=True,
                                             title="Label accuracy against ε for the chosen dataset and model")
    assert fig.layout.xaxis.title.text == style.EPSILON_AXIS_SHORT and "more privacy" in style.EPSILON_AXIS_SHORT
    assert "<br>" in fig.layout.title.text
    scatter_titles = json.dumps([a.text for a in label_dp.data_scatter(
        np.zeros((4, 2)), [0, 1, 0, 1], [0, 1, 1, 1], [True, True, False, True], 2, clean=[0, 1, 0, 0],
    ).layout.annotations], ensure_ascii=False)
    assert "<br>" in scatter_titles  # the two panels' long titles no longer run into each other


# ---------------------------------------------------------------- 5, 6. words behind tables and neighbour lists
def test_table_column_says_what_is_missing_instead_of_none():
    assert style.table_column([1.23456, None, float("nan")], "{:.3f}", missing="— (not sanitised)") == \
        ["1.235", "— (not sanitised)", "— (not sanitised)"]
    assert style.table_column([3, None]) == ["3", style.MISSING]


def test_vocabulary_note_names_the_junk_token_only_where_it_exists(gaussian_space):
    assert words.vocabulary_note(gaussian_space) is None  # not GloVe: nothing to explain

    class Space:
        name = "GloVe 6B 50d (top 20,000)"

        def __init__(self, words_):
            self.words_ = words_

        def __contains__(self, word):
            return word in self.words_

    with_junk = words.vocabulary_note(Space({"paris", "prohertrib"}))
    assert "“prohertrib”, the nearest neighbour of “paris”" in with_junk and "web" in with_junk
    without = words.vocabulary_note(Space({"paris"}))
    assert "prohertrib" not in without and "junk tokens" in without


def test_short_labels_drop_the_citation():
    assert words.short_label("Post-processing fix (Asghar et al. 2026)") == "Post-processing fix"
    assert words.short_label("TEM — truncated exponential mechanism (Carvalho et al. 2023)") == "TEM"
