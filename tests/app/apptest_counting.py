"""The topic pages under AppTest: open a page through the app's router (`opened_page`), and count
what it really computes (`counting_calls`: wrap a library function, so a test can check that a
widget change reran no sweep — a cache hit never calls the function)."""
import time
from contextlib import contextmanager
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

#: The checkout's app.py (the README's `streamlit run app.py`): its pages are the top-level pages/.
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def opened_page(page: str, name: str, timeout: float = 300) -> AppTest:
    """The app run once (the overview), then switched to ``page`` (e.g. "pages/label_dp.py"); prints
    the first render's time under ``name`` (shown with pytest -s)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    started = time.perf_counter()
    at.switch_page(page).run()
    print(f"{name}: first render {time.perf_counter() - started:.2f} s (AppTest, in process)")
    return at


@contextmanager
def counting_calls(module, name: str, record=lambda args, kwargs: args[0] if args else None):
    """Replace ``module.name`` by a wrapper that appends ``record(args, kwargs)`` to the yielded
    list on every call; Streamlit's data cache is cleared first, so the first run computes."""
    calls = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(record(args, kwargs))
        return original(*args, **kwargs)

    setattr(module, name, counting)
    st.cache_data.clear()
    try:
        yield calls
    finally:
        setattr(module, name, original)
