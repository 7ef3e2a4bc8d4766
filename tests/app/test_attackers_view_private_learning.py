"""The "Attacker's view" section of "Private learning" under AppTest: it renders without an exception at the
defaults (the membership game waits for its button: its estimate is above ui.AUTOMATIC_SECONDS), the button
runs it and the sentences are the library's for the same seed (`privlib.erm.attacks.plain_sentences`, what
``erm-attack`` prints), the target's answer follows the target, and the curve across ε runs on request."""
import pytest
from apptest_counting import opened_page

from epsilon_lab import ui
from privlib.erm import attacks

PAGE = "pages/private_learning.py"

pytestmark = pytest.mark.slow  # a Streamlit script run per step; the membership game runs twice


@pytest.fixture(scope="module")
def page():
    return opened_page(PAGE, "private learning (attacker's view)")


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def markdown_text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_the_section_renders_at_the_defaults_and_waits_for_its_button(page):
    ok(page)
    assert "Attacker's view" in [h.value for h in page.subheader]
    # the default n = 10,000 game is estimated above the automatic limit: a button, no sentence yet
    assert attacks.estimate_seconds(10_000, 10, attacks.DEFAULT_GAMES, attacks.ATTACK_METHODS) > ui.AUTOMATIC_SECONDS
    assert [b for b in page.button if b.key == "erm_attack_run"]
    assert "names the one that was trained on" not in markdown_text(page)
    # the submission's bound needs no game: shown at once (n = 10,000, ε = 1: vacuous)
    expected = attacks.submission_risk(1.0, 1e-6, n=10_000, d=10)
    assert expected.sentence in markdown_text(page) and "vacuous" in expected.sentence


def test_the_target_answer_follows_the_target(page):
    def answers(at):
        return [line for line in markdown_text(at).splitlines() if line.startswith("- By the bound")]

    page.number_input(key="erm_attack_target").set_value(0.6).run()
    ok(page)
    before = answers(page)
    grid = tuple(sorted(set(attacks.ATTACK_EPSILONS) | {1.0}))
    expected = attacks.largest_epsilon_under(0.6, grid, "obj_gauss", delta=1e-6, n=10_000, d=10)
    assert expected.epsilon == 0.3 and any(expected.sentence in line for line in before)
    page.number_input(key="erm_attack_target").set_value(0.75).run()
    ok(page)
    after = answers(page)
    assert after != before
    assert any(attacks.largest_epsilon_under(0.75, grid, "obj_gauss", delta=1e-6, n=10_000, d=10).sentence in line
               for line in after)


def test_the_button_runs_the_game_and_the_sentences_are_the_librarys(page):
    page.select_slider(key="erm_n").set_value(1_000).run()  # moving n reruns no sweep
    ok(page)
    page.button(key="erm_attack_run").click().run()
    ok(page)
    study = attacks.membership_attack(1.0, 1e-6, n=1_000, d=10, seed=0)
    text = markdown_text(page)
    for sentence in attacks.plain_sentences(study).values():
        assert sentence in text
    assert any("erm_attack_roc" in c.proto.id for c in page.get("plotly_chart"))


def test_the_curve_across_epsilon_runs_on_request(page):
    assert not any("erm_attack_curve" in c.proto.id for c in page.get("plotly_chart"))
    page.button(key="erm_attack_curve_run").click().run()
    ok(page)
    assert any("erm_attack_curve" in c.proto.id for c in page.get("plotly_chart"))
    assert "By the measured attacks" in markdown_text(page)
