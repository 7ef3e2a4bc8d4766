"""The "Attacker's view" section of Neighbour ranks under AppTest (issue 23): it renders at the
defaults (where, on the full GloVe vocabulary, the attack waits for its button), its sentence and
its target answer are the library's for the same seed (privlib.words.attacks), the target answer
follows the target, and the button runs the attack.

A 1,000-word vocabulary keeps the attacks small; the tests' fixed kernel costs (tests/conftest.py)
make the estimates the same on any machine: every attack there starts by itself, except where a
test raises the kernel cost to make it wait for its button."""
import pytest
import streamlit as st
from apptest_counting import APP
from streamlit.testing.v1 import AppTest

from privlib.words import EmbeddingSpace
from privlib.words.attacks import VIEW_EPSILONS, attack_curve, attacker_view, largest_epsilon_under, word_candidates
from privlib.words.mechanisms import MultivariateLaplace, SanText

TIMEOUT = 300
PAGE = "pages/neighbour_ranks.py"
VOCABULARY = 1_000
SEED = 1  # the sidebar's default seed
CLOSE = 100  # the page's default K


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _markdown_starting(at, start: str) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(start)]


def _charts(at) -> set:
    return {chart.proto.id for chart in at.get("plotly_chart")}


def _has_chart(at, key: str) -> bool:
    return any(key in chart_id for chart_id in _charts(at))


@pytest.fixture(scope="module")
def small_space():
    return EmbeddingSpace.glove_6b_50d(vocab_size=VOCABULARY)


@pytest.fixture(scope="module")
def defaults():
    """The page at its defaults (full GloVe, the multivariate Laplace mechanism, ε = 10)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(PAGE).run()
    return at


def test_the_section_renders_at_the_defaults_and_waits_for_its_button(defaults):
    _ok(defaults)
    assert any(h.value == "Attacker's view" for h in defaults.subheader)
    # 2,000 candidates × 20 samples of the Laplace mechanism on 400,000 words: far above the automatic limit
    assert any(b.key == "nr_attack_run" for b in defaults.button)
    assert not _markdown_starting(defaults, "At ε = 10, somebody who sees")
    assert not _has_chart(defaults, "nr_attack_vs_epsilon")


@pytest.fixture(scope="module")
def santext():
    """A 1,000-word vocabulary, SanText at ε = 2: every part of the section starts by itself."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(PAGE).run()
    at.number_input(key="vocab_size").set_value(VOCABULARY).run()
    at.selectbox(key="mechanism").set_value("santext").run()
    at.select_slider(key="epsilon").set_value(2.0).run()
    return at


def test_the_sentence_is_the_librarys_for_the_same_settings(santext, small_space):
    _ok(santext)
    expected = attacker_view(small_space, SanText.family(), 2.0, candidates=word_candidates(small_space, VOCABULARY),
                             close=CLOSE, seed=SEED)
    assert _markdown_starting(santext, "At ε = 2, somebody who sees") == [expected.sentence]
    assert _has_chart(santext, "nr_attack_tradeoff") and _has_chart(santext, "nr_attack_vs_epsilon")


def test_the_target_answer_is_the_librarys_and_follows_the_target(santext, small_space):
    curve = attack_curve(small_space, SanText.family(), VIEW_EPSILONS, candidates=word_candidates(small_space, VOCABULARY),
                         close=CLOSE, seed=SEED)
    answers = {}
    for target in (0.05, 0.9):
        santext.number_input(key="nr_attack_target").set_value(target).run()
        _ok(santext)
        shown = _markdown_starting(santext, f"**Target {target:.0%}.**")
        assert shown == [f"**Target {target:.0%}.** {largest_epsilon_under(curve, target).sentence}"]
        answers[target] = shown[0]
    assert answers[0.05] != answers[0.9]


def test_a_sampled_attack_shows_the_librarys_numbers_for_the_same_seed(santext, small_space):
    santext.selectbox(key="mechanism").set_value("multivariate-laplace").run()
    _ok(santext)
    expected = attacker_view(small_space, MultivariateLaplace.family(), 2.0,
                             candidates=word_candidates(small_space, VOCABULARY), close=CLOSE, seed=SEED)
    assert _markdown_starting(santext, "At ε = 2, somebody who sees") == [expected.sentence]
    assert "± " in expected.sentence  # measured, with its interval


def test_the_button_runs_an_attack_estimated_above_the_automatic_limit(monkeypatch, small_space):
    # a kernel cost 10⁴ times the tests' own: the attack at ε = 2 on 1,000 words is estimated above the limit
    monkeypatch.setenv("PRIVLIB_KERNEL_NANOSECONDS", "20000")
    st.cache_data.clear()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(PAGE).run()
    at.number_input(key="vocab_size").set_value(VOCABULARY).run()
    at.selectbox(key="mechanism").set_value("santext").run()
    at.select_slider(key="epsilon").set_value(2.0).run()
    _ok(at)
    assert not _markdown_starting(at, "At ε = 2, somebody who sees")
    next(b for b in at.button if b.key == "nr_attack_run").click().run()
    _ok(at)
    expected = attacker_view(small_space, SanText.family(), 2.0, candidates=word_candidates(small_space, VOCABULARY),
                             close=CLOSE, seed=SEED)
    assert _markdown_starting(at, "At ε = 2, somebody who sees") == [expected.sentence]
    st.cache_data.clear()  # no estimate of this cost outlives the test


# ---------------------------------------------------------------------------------------------
# Sanitise text: the sentence when it is cheap, and the link to the section
SANITISE = "pages/sanitise_text.py"


def _links(at) -> list:
    return [element.proto for element in at.get("page_link")]


def test_sanitise_text_links_to_the_section_and_skips_the_costly_attack_on_the_full_vocabulary():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(SANITISE).run()
    _ok(at)
    assert not _markdown_starting(at, "**What an attacker learns")
    assert any("neighbour_ranks" in link.page and "Attacker's view" in link.label for link in _links(at))


def test_sanitise_text_says_the_librarys_sentence_when_it_is_cheap(small_space):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(SANITISE).run()
    at.number_input(key="vocab_size").set_value(VOCABULARY).run()
    _ok(at)
    expected = attacker_view(small_space, MultivariateLaplace.family(), 10.0, close=CLOSE, seed=SEED)
    shown = _markdown_starting(at, "**What an attacker learns")
    assert shown == [f"**What an attacker learns (Multivariate Laplace).** {expected.sentence}"]


def test_sanitise_text_gives_the_link_only_when_the_attack_refuses_the_settings():
    """CusText mapping 800 words, 1,000 candidates: the attack's estimate refuses the setting (as the attack
    would); the page sanitises a text of mapped words as before, says no sentence and keeps the link, without
    an exception."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(SANITISE).run()
    at.number_input(key="vocab_size").set_value(VOCABULARY).run()
    at.text_area(key="san_text").set_value("The people said that the city was new.").run()  # rows below 800
    at.multiselect(key="san_mechanisms").set_value(["custext"]).run()
    at.number_input(key="san.custext.vocab_limit").set_value(800).run()
    _ok(at)
    assert any(m.label == "Unchanged" for m in at.metric)  # sanitised
    assert not _markdown_starting(at, "**What an attacker learns")
    assert any("Attacker's view" in link.label for link in _links(at))


def test_no_guarantee_is_said_and_a_refused_setting_is_an_error_not_a_crash(santext):
    at = santext
    at.selectbox(key="mechanism").set_value("santext-plus").run()
    _ok(at)
    assert next(m for m in at.metric if m.label == "Guarantee's limit").value == "none"
    assert "gives no guarantee" in _markdown_starting(at, "At ε = 2, somebody who sees")[0]
    at.selectbox(key="mechanism").set_value("custext").run()
    at.number_input(key="mechanism.custext.vocab_limit").set_value(800).run()  # 1,000 candidates, 800 mapped
    assert not at.exception, [e.value for e in at.exception]
    refusal = ("CusText maps only the 800 most frequent words (vocab_limit): choose at most that many candidates, "
               "or raise vocab_limit.")
    assert [e.value for e in at.error][:1] == [refusal]
