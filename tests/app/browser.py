"""Helpers for end-to-end tests: start the app on a free localhost port, as the `epsilon-lab app`
command does or as the README's `streamlit run app.py` in the checkout, and drive Debian's headless
Chromium with Playwright (no browser is ever downloaded)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
# Flags this sandbox needs (root, no GPU, closed network: no background connections).
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The two ways the app is started: the `epsilon-lab app` command (the package's epsilon_lab/app.py; installed,
#: its pages are beside it), and the README's `streamlit run app.py` in the checkout (pages/ beside it).
COMMAND, CHECKOUT = "epsilon-lab app", "streamlit run app.py"


#: url -> the file the running server at that url writes its output to.
SERVER_LOGS: dict[str, Path] = {}


def server_log(url: str, last: int = 6000) -> str:
    """The last ``last`` characters the running server at ``url`` (or a page of it) printed."""
    for base, path in SERVER_LOGS.items():
        if url.startswith(base):
            return path.read_bytes().decode(errors="replace")[-last:]
    return "(no server log)"


@contextlib.contextmanager
def streamlit_server(timeout: float = 60.0, how: str = COMMAND):
    """Start the app on 127.0.0.1:<free port> (``how``: `COMMAND` or `CHECKOUT`); yield (url,
    seconds until healthy).

    `COMMAND` runs ``python -m epsilon_lab app`` (the ``epsilon-lab`` command) from an empty folder
    outside the checkout, with the checkout on PYTHONPATH in place of an install: the app gets only
    the settings it carries (epsilon_lab/.streamlit/config.toml) and the command's own options."""
    port = free_port()
    options = ["--server.port", str(port), "--server.headless", "true", "--server.fileWatcherType", "none"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    elsewhere = tempfile.TemporaryDirectory(prefix="epsilon-lab-cwd-")
    if how == COMMAND:
        cmd, cwd = [sys.executable, "-m", "epsilon_lab", "app", *options], elsewhere.name
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    elif how == CHECKOUT:
        cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), *options,
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        cwd = ROOT
    else:
        raise ValueError(f"how = {how!r}: {COMMAND!r} or {CHECKOUT!r}")
    started = time.perf_counter()
    # The server's output goes to a file, so a test that meets a redacted exception can show the
    # traceback the server logged (`server_log`).
    log = open(Path(elsewhere.name) / "server.log", "w+b")  # noqa: SIM115 (closed in the finally)
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    SERVER_LOGS[url] = Path(log.name)
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}:\n{server_log(url)}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"streamlit did not become healthy within {timeout} s")
            time.sleep(0.1)
        yield url, started
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        SERVER_LOGS.pop(url, None)
        elsewhere.cleanup()


#: JavaScript: the number of the page's Plotly charts, not counting the empty one that loads Plotly's
#: script early (ui.plotly_warmup).
CHARTS_JS = ("[...document.querySelectorAll('.js-plotly-plot')]"
             ".filter(e => !e.closest('.st-key-plotly_warmup')).length")


def assert_no_exception(page) -> None:
    """The page shows no exception; if it does, the message names it with the server's log (the
    browser shows only a redacted message)."""
    shown = page.locator('[data-testid="stException"]')
    assert shown.count() == 0, (f"{page.url} shows an exception: {shown.first.inner_text()[:300]}\n"
                                f"server log:\n{server_log(page.url)}")


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(
            f"The browser test needs Debian's chromium at {CHROMIUM}: "
            "run `sudo apt-get install chromium` (.ci/run does this), then re-run the tests."
        )


def script_state(page) -> str | None:
    """Streamlit's own run state, from the ``data-test-script-state`` attribute of its root element:
    "initial" (no run yet), "running", "rerunRequested", "stopRequested", "notRunning" or
    "compilationError"."""
    return page.evaluate(
        "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
        " return app ? app.getAttribute('data-test-script-state') : null; }"
    )


def wait_for_app_idle(page, timeout_ms: int = 90_000) -> None:
    """Wait until Streamlit has finished running the page's script.

    Waits on the run state Streamlit writes on its root element (see `script_state`): it must read
    "notRunning" (or "compilationError") on two checks 250 ms apart, so a rerun that a widget has
    just requested, whose state flips on the next frame, is not mistaken for the end of the run.
    """
    done = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
            " const s = app && app.getAttribute('data-test-script-state');"
            " return s === 'notRunning' || s === 'compilationError'; }")
    for _ in range(2):
        page.wait_for_function(done, timeout=timeout_ms)
        page.wait_for_timeout(250)
    page.wait_for_function(done, timeout=timeout_ms)
