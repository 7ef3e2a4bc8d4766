"""Shared fixtures for the privlib core tests.

The GloVe fixtures are session-scoped: the real 400,000 x 50 matrix takes ~2 s to load and is
immutable, so one copy serves every test. Synthetic spaces are small and built from fixed seeds.
Fixtures are lazy: a test file that uses none of them pays nothing.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace

#: `privlib.words.cost.KERNEL_NANOSECONDS_VARIABLE` (spelt out: another topic's tests need not import
#: the cost model; tests/cli/test_cli_long_work.py checks the two agree) and its value during tests:
#: about this machine's pace, so every estimate is the same whatever the load.
KERNEL_NANOSECONDS_VARIABLE = "PRIVLIB_KERNEL_NANOSECONDS"
TEST_KERNEL_NANOSECONDS = "2"


@pytest.fixture(scope="session", autouse=True)
def fixed_kernel_costs():
    """Cost estimates (`privlib.words.cost`) from fixed kernel costs instead of timings, for the whole
    run and for the processes it starts: the command line refuses work estimated above a minute, and a
    timing on a busy machine could refuse a small run (or let a test of refusal through). A test of
    the timings themselves removes the variable (``monkeypatch.delenv``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KERNEL_NANOSECONDS_VARIABLE, TEST_KERNEL_NANOSECONDS)
        # Label DP's timings too (privlib.label_dp.sweep.FIXED_SECONDS_VARIABLE): a fit and a run cost 1 µs, so its
        # page starts every sweep and heat map by itself whatever the load (the buttons: test_control_speed_label_dp.py)
        patch.setenv("PRIVLIB_LABEL_DP_SECONDS", "1e-6")
        yield


#: The process's ``__main__`` before any test ran (`original_main_module`).
ORIGINAL_MAIN = sys.modules["__main__"]


@pytest.fixture(autouse=True)
def original_main_module():
    """Put back the process's ``__main__`` after each test: Streamlit's script runner (AppTest) replaces
    ``sys.modules["__main__"]`` with the page's module and leaves it there, and a process started later by
    ``multiprocessing``'s spawn (Dask's local cluster, tests/words/test_cluster_studies.py) re-imports
    ``__main__`` from its file: an AppTest script's temporary file, gone or not runnable (the worker
    dies with "Nanny failed to start"). Taken when this file is imported: a module-scoped AppTest has
    already run when a test's own fixtures start."""
    yield
    sys.modules["__main__"] = ORIGINAL_MAIN


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): a worker per core for the suite or a folder of it, but one
    process when the command line names test files or tests: starting the workers (each imports the
    libraries again) costs more than a run of a few files saves. ``-n 2`` (or the variable
    PYTEST_XDIST_AUTO_NUM_WORKERS) asks for workers whatever the arguments."""
    named = [arg for arg in config.args if "::" in arg or arg.split("::")[0].endswith(".py")]
    if named and not os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return 0
    return None  # xdist's own count: the cores this process may use


#: The pytest-xdist group of the browser tests (``-m browser``; pyproject's addopts run the suite on
#: every core with ``--dist loadgroup``).
BROWSER_GROUP = "browser"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group marks
def pytest_collection_modifyitems(config, items):
    """The browser tests run one after another on one worker: each starts a Streamlit server and
    Chromium (two processes of their own), so two of them at once on a 2-core machine, each beside
    the other worker's tests, would wait on each other within their time limits. The other worker
    runs the rest of the suite meanwhile.

    Every other test runs on the worker of its file, in the file's order: a page's AppTest tests share
    one module-scoped app and each starts from the state the one before left (split over two workers,
    tests/app/test_app_erm.py failed), and a module-scoped fixture is then computed once, not once per
    worker."""
    for item in items:
        group = BROWSER_GROUP if item.get_closest_marker("browser") is not None else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))


def brute_force_nearest(vectors, points, chunk_bytes: int = 32 * 2**20) -> np.ndarray:
    """Reference nearest neighbour: argmin over words of sum((x - q)^2) in float64, computed
    from the differences (never the norm trick); np.argmin returns the lowest index on ties.

    The per-row reduction is np.einsum('ij,ij->i'), the textbook sum of squares in float64.
    Work is chunked over words so memory stays bounded on the full GloVe matrix.
    """
    x64 = np.asarray(vectors, dtype=np.float64)
    q = np.atleast_2d(np.asarray(points, dtype=np.float64))
    n_words, dim = x64.shape
    words_per_chunk = max(1, chunk_bytes // (8 * dim))
    out = np.empty(q.shape[0], dtype=np.int64)
    for j, point in enumerate(q):
        best_d, best_i = np.inf, -1
        for start in range(0, n_words, words_per_chunk):
            diff = x64[start:start + words_per_chunk] - point
            d = np.einsum("ij,ij->i", diff, diff)
            i = int(np.argmin(d))
            if d[i] < best_d:  # strict: an equal distance in a later chunk has a higher index
                best_d, best_i = d[i], start + i
        out[j] = best_i
    return out


def words_for(n: int, prefix: str = "w") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


@pytest.fixture(scope="session")
def brute_force():
    """The reference search `brute_force_nearest` (a fixture, so test modules need no imports)."""
    return brute_force_nearest


def near_tie_queries(space, epsilon: float, rng, ranks=(0, 1), count: int = 60) -> np.ndarray:
    """Noisy queries (words + Laplace noise at ``epsilon``) each moved next to the bisector of
    its nearest words of the given ranks, so their squared distances differ by 1e-6..1e-4:
    invisible to float32 at small epsilon, unambiguous in float64."""
    from privlib.core.noise import laplace_noise

    x = space.vectors.astype(np.float64)
    rows = rng.integers(0, len(space), count)
    queries = []
    for q in x[rows] + laplace_noise(space.dim, epsilon, rows.size, rng):
        diff = x - q
        order = np.argsort(np.einsum("ij,ij->i", diff, diff))
        a, b = order[ranks[0]], order[ranks[1]]
        length = np.linalg.norm(x[b] - x[a])
        e = (x[b] - x[a]) / length
        on_bisector = q - ((q - (x[a] + x[b]) / 2.0) @ e) * e
        gap = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-6, -4)  # d^2(q,a) - d^2(q,b)
        queries.append(on_bisector + gap / (2.0 * length) * e)
    return np.array(queries)


@pytest.fixture(scope="session")
def glove() -> EmbeddingSpace:
    """The real GloVe 6B 50d space, all 400,000 words."""
    return EmbeddingSpace.glove_6b_50d()


@pytest.fixture(scope="session")
def glove_small() -> EmbeddingSpace:
    """The 20,000 most frequent GloVe 6B 50d words."""
    return EmbeddingSpace.glove_6b_50d(vocab_size=20000)


@pytest.fixture(scope="session")
def gaussian_space() -> EmbeddingSpace:
    """3,000 words with iid standard normal vectors in 8 dimensions (no ties almost surely)."""
    rng = np.random.default_rng(20240601)
    return EmbeddingSpace.from_arrays(words_for(3000), rng.standard_normal((3000, 8)), name="gaussian 3000x8")


@pytest.fixture(scope="session")
def integer_space() -> EmbeddingSpace:
    """600 words with small-integer vectors in 3 dimensions: many duplicate vectors and many
    exactly equal distances. All arithmetic on these values (squares, dot products, sums) is
    exact in float32 and float64, so every tie is a true tie whatever the order of summation."""
    rng = np.random.default_rng(7)
    return EmbeddingSpace.from_arrays(words_for(600), rng.integers(-3, 4, size=(600, 3)), name="integer 600x3")


@pytest.fixture(scope="session")
def line_space() -> EmbeddingSpace:
    """Five words on a line (n = 1) at exactly representable positions."""
    return EmbeddingSpace.from_arrays(["a", "b", "c", "d", "e"], [[x] for x in LINE_POSITIONS], name="line")


#: Positions of the words of `line_space`.
LINE_POSITIONS = (0.0, 1.0, 2.5, 4.0, 7.0)


def line_probabilities(positions, word: int, eps: float) -> np.ndarray:
    """Exact output law of the mechanism on a line (n = 1; mechanisms.md §1(d)): the noise is
    Laplace(0, 1/eps) and word y is output when the noisy point falls in [a_y, b_y], between the
    midpoints around y: P = F(b_y - x_w) - F(a_y - x_w), F(t) = 1 - e^{-eps t}/2 (t >= 0),
    e^{eps t}/2 (t < 0). Written without subtracting numbers close to 1, so tiny probabilities
    keep full relative precision."""
    x = np.asarray(positions, dtype=np.float64)
    mids = (x[1:] + x[:-1]) / 2.0
    lo = np.concatenate([[-np.inf], mids]) - x[word]
    hi = np.concatenate([mids, [np.inf]]) - x[word]
    p = np.empty(len(x))
    for y in range(len(x)):
        if lo[y] >= 0:  # entirely to the right of the input
            p[y] = 0.5 * (np.exp(-eps * lo[y]) - np.exp(-eps * hi[y]))
        elif hi[y] <= 0:  # entirely to the left
            p[y] = 0.5 * (np.exp(eps * hi[y]) - np.exp(eps * lo[y]))
        else:  # contains the input
            p[y] = 1.0 - 0.5 * np.exp(eps * lo[y]) - 0.5 * np.exp(-eps * hi[y])
    return p


@pytest.fixture(scope="session")
def line_law():
    """`line_probabilities` bound to the positions of `line_space`: line_law(word, eps)."""
    return lambda word, eps: line_probabilities(LINE_POSITIONS, word, eps)


@pytest.fixture(scope="session")
def dask_client():
    """A ``dask.distributed.Client`` of the local cluster of ``--workers 2``
    (`privlib.words.cluster.open_client`: 2 worker processes of one thread and one search thread
    each, as CI runs it), shared by every test that runs work on a cluster (ε studies, corpus
    sanitisation). Started once, on first use only: a test run that uses no cluster never imports
    Dask. Workers load embeddings themselves (`privlib.words.cluster.SpaceSpec`) and keep them."""
    from privlib.words.cluster import open_client

    with open_client(workers=2) as client:
        yield client


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium (/usr/bin/chromium) through Playwright, one per test module of tests/app (whose
    browser.py it uses); never a downloaded browser."""
    from browser import CHROMIUM, CHROMIUM_ARGS, require_chromium  # tests/app/browser.py
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
