"""The "Random projections" page in-process (AppTest): it renders every chart without an exception,
moving ε reruns no sweep (each mechanism's sweep covers the ε grid; ε only moves a marker and the
table), and showing iDP adds only the iDP sweeps, labelled as not DP."""
import json
import re
import time

import pytest
from apptest_counting import counting_calls, opened_page

from privlib.projections import sweep as rp_sweep

PAGE = "pages/random_projections.py"

pytestmark = pytest.mark.slow  # the default view sweeps 3 mechanisms on MNIST (a few seconds)

#: The mechanisms the page sweeps by default (one sweep each).
DEFAULT = ["dp-oporp", "dp-signoporp-rr", "dp-signoporp-rr-smooth"]


@pytest.fixture(scope="module")
def counted():
    """The sweeps the page really computes (cache misses), by the mechanisms they cover."""
    def mechanisms(args, kwargs):
        return tuple(kwargs.get("mechanisms", args[1] if len(args) > 1 else ()))

    with counting_calls(rp_sweep, "sweep", mechanisms) as calls:
        yield calls


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "random projections")


def _text(chart) -> str:
    """The trace names, annotations and titles of a plotly chart element, as one string."""
    spec = json.loads(chart.proto.spec)
    names = [t.get("name") or "" for t in spec["data"]]
    notes = [a.get("text", "") for a in spec["layout"].get("annotations", [])]
    return " | ".join(names + notes + [json.dumps(spec["layout"].get("title"), ensure_ascii=False)])


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]

def _table(at) -> dict[str, list[str]]:
    """The per-mechanism table (Markdown: `figures.markdown_table`) as its columns of cell texts."""
    tables = [m.value for m in at.markdown if m.value.startswith("| mechanism |")]
    assert len(tables) == 1
    rows = [[re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in tables[0].splitlines()]
    header, body = rows[0], rows[2:]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}



def test_default_view_renders_every_chart_and_the_table(page, counted):
    _ok(page)
    assert page.title[0].value == "Random projections"
    assert sorted(counted) == [(name,) for name in DEFAULT]  # one sweep per default mechanism
    charts = page.get("plotly_chart")
    assert len(charts) == 14  # 11, and the attacker's view: the trade-off curve, attack success against ε, the frontier
    main = _text(charts[0])
    assert "precision@50" in main and "non-private RP" in main and "chosen ε = 5" in main
    assert "individual DP" not in main  # iDP is off by default
    table = _table(page)
    assert list(table["mechanism"]) == ["DP-OPORP", "DP-SignOPORP-RR", "DP-SignOPORP-RR-smooth"]
    assert page.select_slider(key="rp_epsilon").value == 5.0
    assert not page.toggle(key="rp_show_idp").value
    assert "Word vectors" not in [r.label for r in page.radio]  # no embedding sidebar


def test_moving_epsilon_reruns_no_sweep(page, counted):
    before = len(counted)
    started = time.perf_counter()
    page.select_slider(key="rp_epsilon").set_value(1.0).run()
    elapsed = time.perf_counter() - started
    print(f"random projections: epsilon change rendered in {elapsed:.2f} s (AppTest, in process)")
    _ok(page)
    assert len(counted) == before  # the cached sweep is reused
    assert "chosen ε = 1" in _text(page.get("plotly_chart")[0])
    assert any(s.value == "At ε = 1" for s in page.subheader)
    page.select_slider(key="rp_epsilon").set_value(20.0).run()
    _ok(page)
    assert len(counted) == before


def test_an_epsilon_off_the_grid_sweeps_only_that_epsilon(page, counted):
    before = len(counted)
    page.select_slider(key="rp_epsilon").set_value(1.5).run()  # the shared slider's steps include 1.5
    _ok(page)
    assert len(counted) == before + len(DEFAULT)  # per mechanism, a sweep at ε = 1.5 alone, merged with the grid
    assert "chosen ε = 1.5" in _text(page.get("plotly_chart")[0])
    assert any(s.value == "At ε = 1.5" for s in page.subheader)
    assert len(_table(page)["mechanism"]) == len(DEFAULT)
    page.select_slider(key="rp_epsilon").set_value(20.0).run()  # back on the grid: nothing recomputed
    _ok(page)
    assert len(counted) == before + len(DEFAULT)


def test_showing_idp_adds_only_its_sweep_and_says_not_dp(page, counted):
    before = len(counted)
    page.toggle(key="rp_show_idp").set_value(True).run()
    _ok(page)
    assert sorted(counted[before:]) == [(name,) for name in sorted(rp_sweep.IDP_MECHANISMS)]
    assert "individual DP — not DP" in _text(page.get("plotly_chart")[0])
    table = _table(page)
    assert len(table["mechanism"]) == len(DEFAULT) + 2
    assert all("not DP" in g for g in table["guarantee"][-2:])
    assert any("Why iDP is not DP" in w.value for w in page.warning)
    page.toggle(key="rp_show_idp").set_value(False).run()
    _ok(page)
    assert len(counted) == before + 2  # back to the cached DP sweeps


def test_other_settings_recompute_and_bad_settings_explain(page, counted):
    before = len(counted)
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp", "dp-signoporp-rr-smooth"]).run()
    _ok(page)
    assert len(counted) == before  # both are cached on their own
    assert len(_table(page)["mechanism"]) == 2
    page.multiselect(key="rp_mechanisms").set_value(["dp-signrp-rr"]).run()
    page.number_input(key="rp_m").set_value(0.5).run()  # m must be 0 or >= beta: explained, no traceback
    assert not page.exception
    assert any("m (the public lower bound" in e.value for e in page.error)
    page.number_input(key="rp_m").set_value(0.0).run()
    _ok(page)
    page.multiselect(key="rp_mechanisms").set_value([]).run()
    _ok(page)
    assert any("at least one mechanism" in i.value for i in page.info)


def test_synthetic_dataset_shows_the_p_control_and_renders(page, counted):
    assert "rp_p" not in [s.key for s in page.select_slider]  # MNIST: p is fixed text
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp"]).run()  # one mechanism keeps the sweeps short
    page.selectbox(key="rp_dataset").set_value("synthetic").run()
    _ok(page)
    control = page.select_slider(key="rp_p")
    assert control.value == 2048 and list(control.options) == ["512", "1024", "2048", "4096"]
    assert "p/k ≥ 16" in control.help
    assert len(page.get("plotly_chart")) == 14  # 11, and the attacker's view: trade-off, success against ε, the frontier
    assert "p = 2048" in " ".join(c.value for c in page.caption)
    control.set_value(4096).run()
    _ok(page)
    assert "p = 4096" in " ".join(c.value for c in page.caption)
    page.selectbox(key="rp_dataset").set_value("digits").run()
    _ok(page)
    assert "rp_p" not in [s.key for s in page.select_slider]
    assert any("p = 64 (fixed by the data)" in c.value for c in page.caption)


def test_R_control_offers_the_papers_recall_out_of_the_top_50(page, counted):
    """R retrieved against each query's top 50: precision@R on the chart, the paper's recall@R beside it."""
    page.selectbox(key="rp_dataset").set_value("digits").run()
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp"]).run()
    assert page.select_slider(key="rp_R").value == 50
    assert not any("recall@" in c.value for c in page.caption)  # at R = 50 recall is precision
    page.select_slider(key="rp_R").set_value(10).run()
    _ok(page)
    assert "precision@10" in _text(page.get("plotly_chart")[0])
    recall = next(c.value for c in page.caption if "recall@10 out of each query's top 50" in c.value)
    assert "DP-OPORP" in recall and "chance 10/1,597" in recall
    assert any("Chance = 50/1,597" in c.value for c in page.caption)
    page.select_slider(key="rp_R").set_value(50).run()
    _ok(page)


def test_optimal_k_is_shown_as_a_trend_once_a_norm_bound_is_set(page, counted):
    page.selectbox(key="rp_dataset").set_value("digits").run()
    page.multiselect(key="rp_mechanisms").set_value(["dp-oporp"]).run()
    page.number_input(key="rp_m").set_value(0.0).run()
    assert any("set m ≥ β above to see it" in c.value for c in page.caption)
    page.number_input(key="rp_m").set_value(10.0).run()
    _ok(page)
    text = next(c.value for c in page.caption if "How many bits k (§4.1.2), a trend only" in c.value)
    assert "p = 64, m = 10" in text and "is smallest at k = " in text and "does not follow" in text
    page.number_input(key="rp_m").set_value(0.0).run()
