"""Count what a page really computes under AppTest: wrap a library function, so a test can check
that a widget change reran no sweep (a cache hit never calls the function)."""
from contextlib import contextmanager

import streamlit as st


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
