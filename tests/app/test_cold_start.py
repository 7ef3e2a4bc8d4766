"""Cold start: the default embedding loads in a background thread from the app's start, and is the
very space the word-level pages then use (bench/bench_cold_start.py times it in the browser)."""
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from epsilon_lab import embedding_ui

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def recorded_load(monkeypatch):
    """embedding_ui.DEFAULT_GLOVE replaced by a load that records the thread it runs in and waits to be released."""
    calls, release = [], threading.Event()

    def load():
        calls.append(threading.current_thread().name)
        release.wait(10)
        return "the space"

    monkeypatch.setattr(embedding_ui, "DEFAULT_GLOVE", embedding_ui.BackgroundLoad(load, name="test-load-glove"))
    yield calls, release
    release.set()


def test_the_app_starts_loading_the_default_embedding_in_the_background(recorded_load):
    calls, release = recorded_load
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()  # the overview: it needs no embedding, and does not wait for one
    assert not at.exception
    assert embedding_ui.DEFAULT_GLOVE.started
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == ["test-load-glove"]  # one load, in its own thread: the page ran on while it loads
    assert not embedding_ui.DEFAULT_GLOVE.future.done()
    release.set()
    assert embedding_ui.DEFAULT_GLOVE.result() == "the space" and calls == ["test-load-glove"]


def test_background_load_runs_once_for_concurrent_callers_and_retries_after_a_failure():
    attempts = []
    gate = threading.Event()

    def compute():
        attempts.append(1)
        gate.wait(10)
        if len(attempts) == 1:
            raise ValueError("package missing")
        return object()

    load = embedding_ui.BackgroundLoad(compute, name="test-load")
    results, errors = [], []

    def caller():
        try:
            results.append(load.result())
        except ValueError as exc:
            errors.append(str(exc))

    callers = [threading.Thread(target=caller) for _ in range(4)]
    for t in callers:
        t.start()
    time.sleep(0.05)
    gate.set()
    for t in callers:
        t.join(10)
    assert len(attempts) == 1 and errors == ["package missing"] * 4  # one computation, its error for all
    value = load.result()  # the next caller tries again
    assert len(attempts) == 2 and load.result() is value and len(attempts) == 2


def test_the_built_in_space_is_the_background_loaded_one():
    embedding_ui.preload()
    space = embedding_ui.DEFAULT_GLOVE.result()
    assert embedding_ui.glove_space(None) is space
    assert len(space) == 400_000 and "exact_search" in vars(space)  # its search was built in the background


#: Modules that Plotly and narwhals look up in sys.modules without taking the import lock: a thread
#: importing one of them while a page draws a chart hands the page a half-initialised module.
PEEKED_MODULES = ("pandas", "pyarrow", "polars", "modin", "cudf", "dask", "narwhals", "ibis", "pyspark")


@pytest.mark.parametrize("word_cache", ["filled", "empty"])
def test_the_background_load_imports_nothing(word_cache, tmp_path):
    # Before the fix a second background thread imported pandas and pyarrow while the first page
    # drew its charts: "partially initialized module 'pandas' has no attribute 'Series'" on the
    # Noisy dot product and Why it happens pages of a fresh server (the browser tests timed out).
    # With an empty word-index cache (a fresh install, CI) the load read the parquet index with
    # pyarrow.dataset, which imported pandas in the loading thread: the same failure on the
    # Neighbour ranks page of a fresh machine.
    code = (
        "import sys, threading, streamlit\n"
        "from epsilon_lab import embedding_ui\n"
        "embedding_ui.preload()\n"  # what the caller's thread imports before the load starts is safe
        "before = set(sys.modules)\n"
        "embedding_ui.DEFAULT_GLOVE.result()\n"
        "print(sorted(set(sys.modules) - before))\n"
        "print([t.name for t in threading.enumerate() if t.name.startswith('epsilon-lab')])\n"
    )
    import ast
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    if word_cache == "empty":
        env["PRIVLIB_CACHE_DIR"] = str(tmp_path)  # nothing cached there: the parquet route
    else:  # fill a cache first
        env["PRIVLIB_CACHE_DIR"] = str(tmp_path)
        subprocess.run([sys.executable, "-c", "from privlib.words import EmbeddingSpace as E; E.glove_6b_50d(1000)"],
                       cwd=root, env=env, check=True)
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    imported, threads = (ast.literal_eval(line) for line in out.stdout.splitlines()[-2:])
    top_level = {name.split(".")[0] for name in imported}
    assert not top_level & set(PEEKED_MODULES), sorted(top_level & set(PEEKED_MODULES))
    # Nothing at all: two threads importing the same modules (privlib's, numpy's) at once can hand
    # one of them a partially initialised module, so `preload` imports everything first.
    assert imported == []
    assert threads in (["epsilon-lab-load-glove"], [])  # no other background loader


def test_why_it_happens_starts_no_background_work():
    # The page used to start step 5's comparison (`sweep` of two mechanisms) in a background thread during its
    # first view (a warm-up sweep in its own thread kept that thread from importing). Issue 22: the comparison
    # took a core from steps 1–4 on a 2-core machine, so it now runs on request, in the page's own thread
    # (tests/app/test_control_speed_why.py); no background thread is left to import anything.
    root = Path(__file__).resolve().parents[2]
    page = (root / "pages" / "why_it_happens.py").read_text()
    assert "BackgroundLoad(" not in page and "threading" not in page
