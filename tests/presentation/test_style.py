"""The one figure style: tick labels people read on log axes (issue 22: "20, 30, 50" read "2, 3, 5",
fractions read "100μ", "10n")."""
import math

import plotly.graph_objects as go
import pytest

from privlib.presentation.style import log_axis, log_ticks, tick_text


@pytest.mark.parametrize("value, text", [
    (1, "1"), (20, "20"), (50, "50"), (0.02, "0.02"), (0.001, "0.001"), (20_000, "20,000"),
    (1e-4, "10⁻⁴"), (1e-7, "10⁻⁷"), (2e8, "2×10⁸"), (1e5, "10⁵"), (0, "0"),
])
def test_tick_text_is_a_plain_number_or_a_power_of_ten(value, text):
    assert tick_text(value) == text


def test_no_si_suffix_on_any_tick_of_a_wide_fraction_axis():
    texts = [tick_text(t) for t in log_ticks(1e-7, 1)]
    assert texts == ["10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "0.001", "0.01", "0.1", "1"]
    assert not any(suffix in text for text in texts for suffix in ("μ", "n", "m", "k", "M", "G"))


def test_log_ticks_one_two_five_over_a_few_decades_and_decades_beyond():
    assert log_ticks(1, 100) == [1, 2, 5, 10, 20, 50, 100]
    assert log_ticks(0.5, 30) == pytest.approx([0.5, 1, 2, 5, 10, 20])
    wide = log_ticks(1, 1e6)
    assert wide == pytest.approx([1, 10, 100, 1e3, 1e4, 1e5, 1e6])
    very_wide = log_ticks(1e-12, 1e12)
    assert len(very_wide) <= 10 and all(math.log10(t).is_integer() for t in very_wide)
    with pytest.raises(ValueError, match="0 < low <= high"):
        log_ticks(0, 1)


def test_log_axis_labels_every_tick_in_full():
    fig = log_axis(go.Figure(go.Scatter(x=[1, 30], y=[0, 1])), 1, 30, "x", title="ε")
    axis = fig.layout.xaxis
    assert axis.type == "log" and list(axis.ticktext) == ["1", "2", "5", "10", "20"]
    assert axis.title.text == "ε"
