"""The "Choose epsilon" page in-process (AppTest), on the 20,000 most frequent GloVe words."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("pages/choose_epsilon.py").run()
    at.number_input(key="vocab_size").set_value(20_000).run()
    return at


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture(scope="module")
def ran():
    at = _page()
    _ok(at)
    at.select_slider(key="choose_samples").set_value(10)
    at.button[0].click().run()
    _ok(at)
    return at


def test_page_order_targets_first_and_waits_for_run():
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page("pages/choose_epsilon.py").run()
    # the session's first run: no result chart, only the empty one that has the browser load
    # Plotly's script before Run is pressed (ui.plotly_warmup), not after the results
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "plotly_warmup" in charts[0].proto.id
    at.number_input(key="vocab_size").set_value(20_000).run()
    _ok(at)
    assert at.title[0].value == "Choose epsilon"
    headers = [h.value for h in at.subheader]
    assert headers == ["1. Your targets", "2. Your words", "3. Mechanisms, ε grid and runs"]
    assert at.slider(key="choose_utility").value == 0.6 and at.slider(key="choose_max_keep").value == 0.5
    assert at.multiselect(key="choose_mechanisms").value == ["multivariate-laplace", "postprocessing-fix"]
    assert any("press **Run**" in i.value for i in at.info)
    assert "maria" in at.caption[0].value  # the paper's example text, its vocabulary words
    assert not at.get("plotly_chart")  # the warm-up chart is emptied on the next run


def test_run_shows_answers_charts_table_and_exports(ran):
    labels = ("Multivariate Laplace", "Post-processing fix")
    boxes = [b for b in [*ran.success, *ran.info] if any(lb in b.value for lb in labels)]  # one answer per mechanism
    assert len(boxes) == 2 and all(any(lb in b.value for b in boxes) for lb in labels)
    # the paper's example has two numbers outside the 20,000-word vocabulary: said, not silently dropped
    assert any("not in the vocabulary" in b.value and "2023" in b.value for b in ran.info)
    assert all("a 20-word sentence spends" in b.value for b in boxes)
    charts = ran.get("plotly_chart")
    assert len(charts) == 9  # trade-off + 8 metrics against epsilon (the warm-up chart is gone)
    assert not any("plotly_warmup" in c.proto.id for c in charts)
    table = ran.dataframe[0].value
    assert len(table) == 2 * 8 and "recommended" in table.columns
    downloads = [b.proto.label for b in ran.get("download_button")]
    # the page's three, then Take this analysis home's settings file and script (the notebook and report on request)
    assert downloads == ["All numbers (CSV)", "Per-word numbers (CSV)", "Report (HTML)", "Settings file (JSON)",
                         "Python script (.py)"]


def test_targets_apply_without_a_new_run(ran):
    ran.slider(key="choose_utility").set_value(1.0).run()
    ran.slider(key="choose_max_keep").set_value(0.0).run()
    _ok(ran)
    texts = [b.value for b in [*ran.success, *ran.info]]
    assert sum("no ε on this grid satisfies both targets" in t for t in texts) == 2
    assert not any("inputs above changed" in c.value for c in ran.caption)
    ran.number_input(key="choose_sentence_length").set_value(5).run()
    answers = [b for b in [*ran.success, *ran.info] if "not in the vocabulary" not in b.value]
    assert len(answers) == 2 and all("a 5-word sentence spends" in b.value for b in answers)


def test_bad_inputs_are_explained_not_tracebacks():
    at = _page()
    at.text_area(key="choose_text").set_value("   ").run()
    assert not at.exception and any("empty" in e.value for e in at.error)
    at.text_area(key="choose_text").set_value("qwzxqwzx zzqqxxw!").run()
    assert not at.exception and any("None of the 2 distinct words" in e.value for e in at.error)
    at.text_area(key="choose_text").set_value("river bank").run()
    at.text_input(key="choose_grid").set_value("ten,20").run()
    assert not at.exception and any(e.value.startswith("ε grid:") for e in at.error)
    at.text_input(key="choose_grid").set_value("1,10").run()
    at.multiselect(key="choose_mechanisms").set_value([]).run()
    assert not at.exception and any("at least one mechanism" in i.value for i in at.info)


def test_random_sample_of_the_vocabulary_with_an_exact_mechanism():
    at = _page()
    at.radio(key="choose_source").set_value("random").run()
    at.number_input(key="choose_n_words").set_value(5).run()
    at.multiselect(key="choose_mechanisms").set_value(["santext"]).run()
    at.text_input(key="choose_grid").set_value("1,5,20").run()
    _ok(at)
    assert "between-word SD" in at.caption[0].value
    at.button[0].click().run()
    _ok(at)
    assert len([*at.success, *at.info]) >= 1 and len(at.get("plotly_chart")) == 9
    at.text_input(key="choose_grid").set_value("1,5").run()  # inputs changed: old results stay, flagged
    _ok(at)
    assert any("inputs above changed" in c.value for c in at.caption)


# ----------------------------------------------------------------------------- the attack target (issue 23)
ATTACK_GRID = "1,3,8"


def _with_attack(candidates: int = 100) -> AppTest:
    at = _page()
    at.toggle(key="choose_attack").set_value(True).run()
    at.number_input(key="choose_attack_candidates").set_value(candidates).run()
    at.multiselect(key="choose_mechanisms").set_value(["multivariate-laplace"]).run()
    at.text_input(key="choose_grid").set_value(ATTACK_GRID).run()
    at.select_slider(key="choose_samples").set_value(10).run()
    _ok(at)
    return at


def _cli_json(tmp_path, *args) -> dict:
    """`python -m privlib choose ... --json` in this process."""
    import contextlib
    import io
    import json

    from privlib.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["choose", *map(str, args), "--json"]) == 0
    return json.loads(out.getvalue())


def test_attack_target_answer_chart_and_table_are_the_cli_numbers(tmp_path):
    from privlib.words.text import PAPER_EXAMPLE

    at = _with_attack()
    at.button[0].click().run()
    _ok(at)
    (box,) = [b.value for b in [*at.success, *at.info] if "Multivariate Laplace" in b.value]
    assert "Attack target: largest ε that meets it" in box or "Attack target: met at no ε" in box
    assert "somebody who sees the sanitised word names the original" in box and "lower bound" in box
    assert any(c.proto.id.endswith("choose_chart_attack") or "choose_chart_attack" in c.proto.id
               for c in at.get("plotly_chart"))
    assert any("dotted red: your attack target" in c.value for c in at.caption)
    page = list(at.dataframe[0].value["re-identified"])
    words = tmp_path / "words.txt"
    words.write_text(PAPER_EXAMPLE, encoding="utf-8")
    cli = _cli_json(tmp_path, "--words-file", words, "--vocab-size", 20_000, "--epsilons", ATTACK_GRID,
                    "--samples", 10, "--mechanism", "multivariate-laplace", "--seed", 1, "--attack-target", 0.2,
                    "--attack-candidates", 100)
    (m,) = cli["mechanisms"]
    assert page == m["attack"]["success"]  # the same seed, the same numbers
    threshold = m["answer"]["attack"]
    if threshold["epsilon"] is not None:
        assert f"largest ε that meets it = {threshold['epsilon']:g}" in box
    # the target applies at once, without a new run
    at.number_input(key="choose_attack_limit_success").set_value(99.0).run()
    _ok(at)
    (box,) = [b.value for b in [*at.success, *at.info] if "Multivariate Laplace" in b.value]
    assert "largest ε that meets it = 8" in box and not any("inputs above changed" in c.value for c in at.caption)


def test_an_impossible_attack_target_is_said_not_a_traceback():
    at = _with_attack(candidates=50)  # the prior alone: 2 %
    at.number_input(key="choose_attack_limit_success").set_value(1.0).run()
    assert not at.exception
    assert any("cannot be met at any ε" in e.value and "2.00%" in e.value for e in at.error)
    at.radio(key="choose_attack_measure").set_value("above_prior").run()
    at.number_input(key="choose_attack_limit_above_prior").set_value(99.0).run()
    assert not at.exception and any("met at every ε" in e.value for e in at.error)


def test_a_long_attack_waits_for_its_button_with_the_estimate(monkeypatch):
    monkeypatch.setenv("PRIVLIB_LONG_WORK_SECONDS", "0")
    at = _with_attack(candidates=20)
    at.button[0].click().run()
    _ok(at)
    assert any("The attack would take about" in w.value for w in at.warning)
    anyway = [b for b in at.button if b.label.startswith("Run the attack anyway")]
    assert len(anyway) == 1 and "re-identified" not in at.dataframe[0].value.columns
    anyway[0].click().run()
    _ok(at)
    assert not any("The attack would take about" in w.value for w in at.warning)
    assert "re-identified" in at.dataframe[0].value.columns


def test_a_smaller_vocabulary_than_the_candidates_resets_them():
    at = _page()
    at.toggle(key="choose_attack").set_value(True).run()
    assert at.number_input(key="choose_attack_candidates").value == 2000
    at.number_input(key="vocab_size").set_value(1000).run()
    _ok(at)
    assert at.number_input(key="choose_attack_candidates").value == 1000
