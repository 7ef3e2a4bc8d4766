"""Streamlit glue shared by app.py and the pages of every topic: routing, the common widgets (ε
slider, δ choice, seed, a mechanism's parameter controls), links' values, progress.

Only widgets and caching live here; every number a page shows is computed in privlib. The word
embedding's sidebar and caches are in `epsilon_lab.embedding_ui`.

Every page starts with one call: `start_page()` (e.g. the overview, the topic pages) or
`embedding_ui.word_space()` (a word-level page: draws the embedding sidebar and returns the
loaded space, which calls `start_page()` first).
"""
from __future__ import annotations

import contextvars
from pathlib import Path

import numpy as np
import streamlit as st

#: Epsilon values offered by the log-scale sliders (1-1.5-2-3-5-7 per decade).
EPSILON_STEPS = sorted({round(m * 10.0**k, 6) for k in range(-1, 3) for m in (1, 1.5, 2, 3, 5, 7)} | {1000.0})
EPSILON_HELP = ("The privacy parameter. Smaller ε = more noise = more privacy; larger ε = less noise = "
                "more utility.")


def pages_folder() -> Path:
    """The folder of the page files: ``pages/`` at the top of a checkout (the project's layout, beside
    app.py, privlib/ and epsilon_lab/; an editable install uses it too), or ``epsilon_lab/pages``
    in an installed wheel, which maps the top-level folder into the package (setup.py)."""
    package = Path(__file__).resolve().parent
    installed = package / "pages"
    return installed if installed.is_dir() else package.parent / "pages"


#: The page files (pages/*.py, an absolute path): app.py lists them in st.navigation; `start_page`
#: registers them too.
PAGES = pages_folder()
#: True while app.py runs the page it routed to (see `run_page` and `start_page`).
_ROUTED = contextvars.ContextVar("epsilon_lab_routed", default=False)
#: The largest random seed (the seed widget's maximum).
MAX_SEED = 2**31 - 1
#: Characters of a shared link's value shown in a warning.
SHOWN_LINK_CHARS = 40


def run_page(page) -> None:
    """Run ``page`` (what st.navigation returned) as the page app.py routed to."""
    token = _ROUTED.set(True)
    try:
        page.run()
    finally:
        _ROUTED.reset(token)


def _starting() -> None:  # the placeholder default page of `start_page`; never shown
    pass


def start_page() -> None:
    """Make sure this page runs inside app.py (page config, navigation, sections). Call it first.

    (It replaces a patch of Streamlit's private PagesManager flag, with public calls only.)
    Why: Streamlit 1.67 runs an app in its legacy "pages/ folder" mode until st.navigation has
    been called in the server process (and on every AppTest run), because a pages/ folder
    exists beside the script it runs (a checkout's app.py, and the installed epsilon_lab/app.py
    that `epsilon-lab app` runs). In that mode a direct link such as /noisy_dot_product runs the page file alone,
    without app.py: no page config, and the old file-list navigation for the rest of the session.
    Here such a run calls st.navigation itself — public API, which turns the legacy mode off for
    the process — with the same page files (so this page keeps its URL and identity, found by
    its file name), and reruns: the rerun goes through app.py, which runs this same page. Runs
    routed by app.py (`run_page`) return at once. The browser tests open pages by direct link
    on a fresh server, the case this handles.
    """
    if _ROUTED.get():
        return
    st.navigation([st.Page(_starting, title="Epsilon Lab", url_path="epsilon-lab-starting", default=True)]
                  + [st.Page(path) for path in sorted(PAGES.glob("*.py"))], position="hidden")
    st.rerun()


#: The widget key of `plotly_warmup`'s chart (Streamlit gives its element the class st-key-<key>).
PLOTLY_WARMUP_KEY = "plotly_warmup"


def plotly_warmup():
    """On a session's first run, an empty, invisible Plotly chart in a placeholder (returned; call its
    ``.empty()`` once the page's first real chart is drawn): the browser fetches and parses Plotly's
    script (4.7 MB) when it meets the first chart, so this starts that while the server still
    computes the page's first result. Later runs get an empty placeholder (the script is loaded)."""
    placeholder = st.empty()
    if not st.session_state.get("_plotly_warm"):
        st.session_state["_plotly_warm"] = True
        import plotly.graph_objects as go

        figure = go.Figure(layout={"height": 10, "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                                   "xaxis": {"visible": False}, "yaxis": {"visible": False}})
        placeholder.plotly_chart(figure, config={"staticPlot": True, "displayModeBar": False}, key=PLOTLY_WARMUP_KEY)
    return placeholder


def epsilon_slider(label: str = "ε (epsilon)", key: str = "epsilon", default: float = 10.0,
                   help: str = EPSILON_HELP, options=EPSILON_STEPS, format_func=None) -> float:
    """A log-scale epsilon slider whose labels say which direction means more privacy; ``help``:
    the topic's own sentence (e.g. what a text of m words spends); ``options``: the values offered
    (e.g. the ε grid a page's sweep covers, so that moving ε reruns nothing); ``format_func``: how a
    value is shown (default ``f"{v:g}"``)."""
    options = list(options)
    current = st.session_state.get(key, default)
    if current not in options:  # e.g. a shared link with another epsilon
        options = sorted(set(options) | {current})
    st.session_state[key] = current
    value = st.select_slider(label, options=options, key=key, format_func=format_func or (lambda v: f"{v:g}"),
                             help=help)
    st.caption("← more privacy (more noise) · · · less privacy (less noise) →")
    return float(value)


def ignored_link_value(name: str, value, rule: str, used) -> None:
    """Say that the shared link's ``name`` = ``value`` cannot be used (``rule``) and what is used
    instead; a long value is shortened, never repeated in full."""
    text = str(value)
    shown = text if len(text) <= SHOWN_LINK_CHARS else text[:SHOWN_LINK_CHARS] + "…"
    st.warning(f"The link's {name} = {shown!r} was ignored: {rule}. Using {used} instead.", icon="⚠️")


def seed_param(value, default: int) -> int:
    """The seed of a shared link (``value``: the query parameter, or None without one); a value
    that is not a whole number from 0 to `MAX_SEED` is reported and replaced by ``default``."""
    if value is None:
        return default
    try:
        seed = int(str(value).strip())
    except ValueError:
        seed = None
    if seed is None or not 0 <= seed <= MAX_SEED:
        ignored_link_value("seed", value, f"a seed is a whole number from 0 to {MAX_SEED:,}", default)
        return default
    return seed


def parameter_controls(parameters: dict, key: str, container=None) -> tuple:
    """One widget per parameter of a mechanism (``parameters``: its class's ``PARAMETERS``, name →
    `privlib.core.mechanism.Parameter`), for any topic: a choice list, a checkbox, a whole number or
    a real number within the parameter's range. Widget keys are ``f"{key}.{name}"``; returns
    ((name, value), ...), hashable for caching."""
    box = container or st
    params = []
    for pname, p in parameters.items():
        wkey, label = f"{key}.{pname}", p.label or pname
        # from the widget's state (a shared link or a settings file may have set it: `take_home.restore`)
        real = not (p.choices or isinstance(p.default, (bool, int)))
        st.session_state.setdefault(wkey, float(p.default) if real else p.default)
        if p.choices:
            value = box.selectbox(label, list(p.choices), key=wkey, help=p.help)
        elif isinstance(p.default, bool):
            value = box.checkbox(label, key=wkey, help=p.help)
        elif isinstance(p.default, int):
            value = int(box.number_input(label, min_value=p.low, max_value=p.high, step=1, key=wkey, help=p.help))
        else:
            value = float(box.number_input(label, min_value=None if p.low is None else float(p.low),
                                           max_value=None if p.high is None else float(p.high),
                                           format="%.6g", key=wkey, help=p.help, step=_step(p.default)))
        params.append((pname, value))
    return tuple(params)


#: The δ values offered by `delta_choice` (δ should be far below 1/n for n people).
DELTA_STEPS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
DELTA_HELP = ("δ of (ε, δ)-DP: the probability that the ε guarantee fails. Keep it far below 1/n for n people "
              "(smaller δ = more privacy, more noise).")


def delta_choice(key: str, default: float = 1e-6, label: str = "δ (delta)", container=None,
                 options=DELTA_STEPS) -> float:
    """A δ picker on a log scale (``options``), labelled like the ε slider."""
    box = container or st
    current = st.session_state.setdefault(key, default)  # from the state: a shared link may have set it
    choices = sorted(set(options) | {default, current}, reverse=True)
    value = box.select_slider(label, options=choices, key=key, format_func=lambda v: f"{v:.0e}", help=DELTA_HELP)
    return float(value)


def seed_input(key: str, default: int = 0, label: str = "Seed", container=None,
               help: str = "Same seed, same results: the view can be shared and reproduced.") -> int:
    """A random seed: a whole number from 0 to `MAX_SEED`."""
    box = container or st
    if key in st.session_state:
        return int(box.number_input(label, min_value=0, max_value=MAX_SEED, step=1, key=key, help=help))
    return int(box.number_input(label, min_value=0, max_value=MAX_SEED, value=default, step=1, key=key, help=help))


def _step(default: float) -> float:
    """A step of about a tenth of the default's order of magnitude (c = 0.005 steps by 0.001)."""
    import math

    return 10.0 ** (math.floor(math.log10(abs(default))) - 1) if default else 0.01


#: Work starts by itself only when its estimate (the library's, timed on this machine) is at most this
#: many seconds; longer work waits for its button, so a control change answers at once (issue 22).
AUTOMATIC_SECONDS = 1.5


def runs_now(seconds: float, work, requested_key: str) -> bool:
    """Whether ``work`` (a hashable description of its settings) runs in this rerun: its estimate is at
    most `AUTOMATIC_SECONDS`, or the user asked for exactly this work (``requested_key``: a session
    set that `request` fills from the work's button)."""
    return seconds <= AUTOMATIC_SECONDS or work in st.session_state.get(requested_key, set())


def request(requested_key: str, work) -> None:
    """A button's callback: remember that the user asked for ``work`` (see `runs_now`)."""
    st.session_state.setdefault(requested_key, set()).add(work)


def with_progress_bar(text, compute):
    """Run ``compute(progress)`` under a progress bar; ``progress(fraction, message)`` is privlib's
    callback. Call it inside an ``st.cache_data`` function, so the bar belongs to that function:
    Streamlit replays its (few, throttled to 5 % steps) updates and its removal on a cache hit.
    A bar created outside and updated from inside a cached function breaks the next rerun
    (CacheReplayClosureError)."""
    bar = st.progress(0.0, text=text)
    last = [-1.0]

    def progress(fraction, message):
        if fraction - last[0] >= 0.05 or fraction >= 1:
            last[0] = fraction
            bar.progress(min(1.0, max(0.0, fraction)), text=f"{text} {message}")

    try:
        return compute(progress)
    finally:
        bar.empty()
