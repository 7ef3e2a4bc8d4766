"""The "Noisy dot product" page in-process (AppTest)."""
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def page():
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/noisy_dot_product.py").run()
    return at


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_page_shows_law_components_tails_and_table(page):
    _ok(page)
    assert page.title[0].value == "Noisy dot product"
    assert page.number_input(key="dot_n").value == 50  # the loaded embedding's dimension
    assert len(page.get("plotly_chart")) == 5  # density, CDF, R, K, tails
    table = page.dataframe[0].value
    assert list(table["quantity"]) == ["mean", "variance", "99% interval half-width"]
    exact_var = table["exact"][1]
    assert exact_var == pytest.approx(51 / 100)  # (n+1)/eps^2 at n = 50, eps = 10
    # the simulated variance agrees with the exact one within 4 standard errors
    assert abs(table["simulated"][1] - exact_var) < 4 * table["standard error"][1]
    assert abs(table["simulated"][2] - table["exact"][2]) < 4 * table["standard error"][2]
    assert table["bound"][2] >= table["exact"][2]


def test_word_and_scaling(page, glove):
    page.selectbox(key="dot_word").set_value("king").run()
    _ok(page)
    page.radio(key="dot_normalise").set_value(False).run()  # the word vector w (law ‖w‖·Z)
    _ok(page)
    table = page.dataframe[0].value
    norm = float(np.linalg.norm(glove.vectors[glove.index("king")].astype(float)))
    assert table["exact"][1] == pytest.approx(norm**2 * 51 / 100, rel=1e-9)  # Var <eta, w> = ||w||^2 Var Z


def test_integral_toggle_and_dimension_without_word(page):
    page.toggle(key="dot_integral").set_value(True).run()
    _ok(page)
    density = page.get("plotly_chart")[0].proto.spec
    assert "Eq. 13" in density
    page.number_input(key="dot_n").set_value(300).run()
    _ok(page)
    assert page.dataframe[0].value["exact"][1] == pytest.approx(301 / 100)


def test_tiny_epsilon_page_still_renders(page):
    page.select_slider(key="dot_epsilon").set_value(0.1).run()
    _ok(page)
    page.number_input(key="dot_n").set_value(1).run()
    _ok(page)
    assert any("n = 1" in i.value for i in page.info)
