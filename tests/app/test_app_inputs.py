"""The app's inputs (Streamlit AppTest): embedding files chosen by path (reloaded when they change,
offered only when the server is this computer's alone), and values of a shared link that cannot be
used (reported, not silently replaced)."""
from pathlib import Path

import numpy as np
import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

TIMEOUT = 180
APP = str(Path(__file__).resolve().parents[2] / "app.py")
FILE_SOURCE = "A file on this computer"


def _app(page: str = "pages/neighbour_ranks.py", **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    return at.switch_page(page)


def _write_vectors(path: Path, n_words: int) -> None:
    rng = np.random.default_rng(n_words)
    words = ["king"] + [f"w{i}" for i in range(n_words - 1)]
    path.write_text("\n".join(w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(8)) for w in words) + "\n")


def _caption_text(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


@pytest.fixture()
def server_address():
    """Set Streamlit's server.address for one test (the config is process-wide), then restore it."""
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


# ----------------------------------------------------------------------------- a file chosen by path
def test_a_changed_file_is_loaded_again(tmp_path):
    path = tmp_path / "mine.txt"
    _write_vectors(path, 300)
    at = _app()
    at.run()
    at.radio(key="embedding_source").set_value(FILE_SOURCE).run()
    at.text_input(key="embedding_path").input(str(path)).run()
    assert not at.exception and not at.error
    assert "300 words" in _caption_text(at)
    _write_vectors(path, 350)  # new words, same path
    at.run()
    assert not at.exception and not at.error
    assert "350 words" in _caption_text(at)


def test_files_by_path_are_offered_when_the_server_is_local():
    at = _app()
    at.run()
    assert FILE_SOURCE in at.radio(key="embedding_source").options


def test_files_by_path_are_not_offered_when_others_can_reach_the_server(server_address, monkeypatch):
    monkeypatch.delenv("EPSILON_LAB_ALLOW_SERVER_FILES", raising=False)
    server_address("0.0.0.0")
    at = _app()
    at.run()
    assert not at.exception
    assert FILE_SOURCE not in at.radio(key="embedding_source").options
    explained = " ".join(c.value for c in at.sidebar.caption)
    assert "EPSILON_LAB_ALLOW_SERVER_FILES" in explained and "localhost" in explained


def test_an_explicit_setting_offers_files_by_path_on_a_shared_server(server_address, monkeypatch):
    monkeypatch.setenv("EPSILON_LAB_ALLOW_SERVER_FILES", "1")
    server_address("0.0.0.0")
    at = _app()
    at.run()
    assert FILE_SOURCE in at.radio(key="embedding_source").options


# ----------------------------------------------------------------------------- shared links
def test_a_seed_out_of_range_in_the_link_is_reported():
    at = _app(seed="99999999999")
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "seed" in warnings and "99999999999" in warnings
    assert at.number_input(key="seed").value == 1


def test_a_bad_epsilon_in_the_link_is_reported():
    at = _app(epsilon="abc")
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "epsilon" in warnings and "abc" in warnings
    assert at.select_slider(key="epsilon").value == 10.0


def test_huge_values_in_the_link_are_not_repeated_in_full():
    at = _app(epsilon="7" * 5000 + "x", word="q" * 10_000)
    at.run()
    assert not at.exception
    shown = " ".join(w.value for w in at.warning) + " ".join(e.value for e in at.error)
    assert "epsilon" in shown
    assert "7" * 41 not in shown and "q" * 41 not in shown


def test_good_link_values_give_no_warning():
    at = _app(seed="7", epsilon="5", word="queen")
    at.run()
    assert not at.exception and not at.warning
