"""Issue 22 on the Private learning and Label DP pages, in-process (AppTest): the n and ε log axes labelled
in full, the chosen ε marked on every chart against ε, metric labels short enough for 1024 pixels, and no
number written over a bar."""
import json

import pytest
from apptest_counting import opened_page

from privlib.presentation.style import tick_text

pytestmark = pytest.mark.slow  # a Streamlit script run per step; the first one sweeps


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def spec(at, key: str) -> dict:
    (found,) = [c for c in at.get("plotly_chart") if key in c.proto.id]
    return json.loads(found.proto.spec)


def vertical_lines(figure: dict) -> list[float]:
    return [float(s["x0"]) for s in figure["layout"].get("shapes", []) if s.get("type") == "line"
            and s["x0"] == s["x1"]]


def labelled_in_full(axis: dict) -> list[str]:
    """The tick labels of a log axis drawn by `style.log_axis` (never Plotly's "2, 3, 5" nor "100μ")."""
    assert axis["type"] == "log" and axis["tickmode"] == "array"
    assert axis["ticktext"] == [tick_text(v) for v in axis["tickvals"]]
    return axis["ticktext"]


@pytest.fixture(scope="module")
def learning():
    return opened_page("pages/private_learning.py", "private learning")


def test_private_learning_n_axes_read_100_1000_10000(learning):
    ok(learning)
    for key in ("erm_metric", "erm_excess", "erm_meters"):
        texts = labelled_in_full(spec(learning, key)["layout"]["xaxis"])
        assert texts[0] == "100" and "1,000" in texts and "2" not in texts, (key, texts)
    assert vertical_lines(spec(learning, "erm_metric")) == [10_000.0]  # the chosen n


def test_private_learning_metrics_fit_and_keep_their_labels(learning):
    labels = [m.label for m in learning.metric]
    assert labels[0] == "model ε (accountant)" and len(labels) == 5


def test_private_learning_over_epsilon_marks_the_chosen_epsilon(learning):
    learning.selectbox(key="erm_dataset").set_value("diabetes").run()
    learning.select_slider(key="erm_epsilon").set_value(10.0).run()
    ok(learning)
    for key in ("erm_metric", "erm_excess"):
        figure = spec(learning, key)
        assert vertical_lines(figure) == [10.0], key
        assert "more privacy" in figure["layout"]["xaxis"]["title"]["text"]
        labelled_in_full(figure["layout"]["xaxis"])


@pytest.fixture(scope="module")
def label_page():
    at = opened_page("pages/label_dp.py", "label DP")
    run = [b for b in at.button if b.key == "ldp_run_sweep"]  # a sweep estimated long waits for its button
    if run:
        run[0].click().run()
    return at


def test_label_dp_bars_carry_no_number_over_the_bar_and_the_label_chart_marks_epsilon(label_page):
    ok(label_page)
    bars = spec(label_page, "ldp_label_bars")
    (bar,) = bars["data"]
    assert "text" not in bar and not bars["layout"].get("annotations")
    assert all(x.split("<br>")[-1].endswith("%</b>") for x in bar["x"])  # the value under its bar
    labels = spec(label_page, "ldp_labels")
    assert len(vertical_lines(labels)) == 1
    assert labels["layout"]["xaxis"]["title"]["text"].startswith("ε  (← more privacy")  # the short title
    assert "P(ŷ = y)" in [m.label for m in label_page.metric]
