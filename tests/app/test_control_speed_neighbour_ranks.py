""""Neighbour ranks" under AppTest (issue 22): which computations a control change really runs. The
word's curve across ε (12 ε × 300 runs of the mechanism) waits for its button when its estimate is
above `AUTOMATIC_SECONDS` (the page says so); once asked for it is kept through ε changes, which
recompute only the run at the new ε.

The estimate is machine-independent: the page estimates from the stored kernel costs
(`privlib.words.kernel_costs.STORED_KERNEL_NANOSECONDS`, ``timed=False``), which put the curve of one word
on GloVe 6B 50d above 1.5 s, and times no kernel (a timing run cost a new process about a second: issue
22); so do the Attacker's view's estimates (`privlib.words.attacks.attack_seconds`), which put the attack
at the defaults (2,000 candidates on the whole GloVe) behind its button. Here the tests' fixed costs are removed (`stored_costs`), so the page's own estimate is checked,
and every timing of a kernel is counted. The library's `rank_experiment` and `epsilon_sweep` are
counted (`counting_calls`: a cache hit never calls them); no test asserts seconds."""
import pytest
from apptest_counting import counting_calls, opened_page

from privlib.words import attacks, cost, experiments

PAGE = "pages/neighbour_ranks.py"

pytestmark = pytest.mark.slow  # the full GloVe vocabulary and 2,000 runs of the mechanism per view


@pytest.fixture(scope="module")
def stored_costs():
    """The page's estimates from the stored costs (the tests' fixed costs removed for this module);
    yields the kernels timed: `privlib.words.cost.per_unit_seconds` calls (the curve's estimate) and
    `privlib.words.attacks.probe_seconds` calls (the Attacker's view's estimates)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(cost.KERNEL_NANOSECONDS_VARIABLE)
        with counting_calls(cost, "per_unit_seconds") as timed, \
                counting_calls(attacks, "probe_seconds", record=lambda args, kwargs: "attack kernel") as probed:
            yield timed, probed


@pytest.fixture(scope="module")
def counted(stored_costs):
    """(the (word, ε) of every run at one ε, the words of every curve across ε)."""
    with counting_calls(experiments, "rank_experiment", record=lambda args, kwargs: (args[1], args[2])) as runs, \
            counting_calls(experiments, "epsilon_sweep", record=lambda args, kwargs: _words(args[2])) as curves:
        yield runs, curves


def _words(words):
    """A curve's words (a tuple), or the number of random words of an average."""
    return words if isinstance(words, int) else tuple(words)


@pytest.fixture(scope="module")
def page(counted):
    return opened_page(PAGE, "neighbour ranks (control speed)")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _changed(at, counted, change):
    runs, curves = counted
    before = len(runs), len(curves)
    change(at)
    _ok(at)
    return runs[before[0]:], curves[before[1]:]


def _curve_button(at):
    return next((b for b in at.button if b.key == "nr_curve_run"), None)


def _has_curve_chart(at) -> bool:
    return any(chart.key == "proportions_vs_epsilon" for chart in at.get("plotly_chart"))


def test_the_first_view_runs_the_word_and_offers_the_curve(page, counted, stored_costs):
    _ok(page)
    runs, curves = counted
    assert runs == [("king", 10.0)] and curves == []
    assert stored_costs == ([], [])  # neither the curve's estimate nor the attacks' timed a kernel
    button = _curve_button(page)
    assert button is not None and button.label.startswith("Draw the curve across ε (about ")
    assert any("drawn only when you ask" in i.value for i in page.info)
    assert not _has_curve_chart(page)
    assert {"nr_attack_run", "nr_attack_curve_run"} <= {b.key for b in page.button}  # the attacks wait too


def test_the_requested_curve_is_computed_once_and_kept_through_epsilon_changes(page, counted):
    runs, curves = _changed(page, counted, lambda at: _curve_button(at).click().run())
    assert runs == [] and curves == [("king",)] and _has_curve_chart(page) and _curve_button(page) is None
    runs, curves = _changed(page, counted, lambda at: at.select_slider(key="epsilon").set_value(5.0).run())
    assert runs == [("king", 5.0)] and curves == []  # only the run at the new ε
    assert _has_curve_chart(page) and _curve_button(page) is None


def test_a_new_word_runs_once_and_waits_with_its_curve(page, counted):
    runs, curves = _changed(page, counted, lambda at: at.selectbox(key="word").set_value("queen").run())
    assert runs == [("queen", 5.0)] and curves == []
    assert _curve_button(page) is not None and not _has_curve_chart(page)
    runs, curves = _changed(page, counted, lambda at: at.selectbox(key="word").set_value("king").run())
    assert runs == [] and curves == [] and _has_curve_chart(page)  # both cached, the curve still asked for


def test_no_change_timed_a_kernel(stored_costs):
    """(Last: after every change of this module.)"""
    assert stored_costs == ([], [])
