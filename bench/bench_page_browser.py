"""Browser time of one page of the app, in Debian's headless Chromium: what `bench_page_views.py
--browser` reports beside the server time (run that; this file holds the browser half).

For one checkout and one page: start the app as the README does (`streamlit run app.py` in the
checkout, headless, on a free localhost port: tests/app/browser.py), open the overview in a new
browser context (empty HTTP cache) and wait until it is idle, then

- **first view**: click the page in the sidebar's navigation (as a user does, and as the server
  benchmark switches pages after the overview) and time, from the click, the page's first chart
  drawn ("first chart") and the whole page ("whole page": the run has ended — Streamlit's
  ``data-test-script-state`` is back to ``notRunning``, the attribute its "Running..." indicator
  follows — and every Plotly chart it ended with is drawn);
- **ε change**: click the page's ε control (`bench_page_views.PAGES`) at the position of the value
  the server benchmark sets (one click: one rerun, as a user's click; arrow keys would request a
  rerun per step) and time, from the click, the run's end and the last chart redrawn.

The times come from the page itself (``performance.now()``): a script installed in every document
logs each change of the run state (a MutationObserver on the attribute), each chart that appears
(checked on every DOM change), and each Plotly redraw (``plotly_afterplot``); the polling from
Python only decides when the page is done (idle, with every chart drawn, on two checks 300 ms
apart, then 1 s more for late redraws).
"""
from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "app"))
import browser as helpers  # (tests/app/browser.py: the server and Chromium's flags)

VIEWPORT = {"width": 1400, "height": 1000}  # the browser tests' window
TIMEOUT_S = 900.0

#: Installed in every document before the app's own scripts: logs [ms since navigation, what, value].
RECORDER = r"""
(() => {
  const log = window.__pageLog = [];
  const now = () => performance.now();
  let count = -1;
  const charts = () => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(e => !e.closest('.st-key-plotly_warmup'));
  const tick = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (app && !app.__pageLogged) {
      app.__pageLogged = true;
      log.push([now(), 'state', app.getAttribute('data-test-script-state')]);
      new MutationObserver(() => log.push([now(), 'state', app.getAttribute('data-test-script-state')]))
        .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    }
    const shown = charts();
    if (shown.length !== count) { count = shown.length; log.push([now(), 'charts', count]); }
    for (const c of shown) {
      if (!c.__pageLogged && typeof c.on === 'function') {
        c.__pageLogged = true;
        log.push([now(), 'drawn', null]);  // a new chart, already drawn once
        c.on('plotly_afterplot', () => log.push([now(), 'drawn', null]));
      }
    }
  };
  // A DOM change runs the check at once (a microtask: not starved, as a timer is, by a busy page);
  // the timer is the fallback.
  const watch = () => new MutationObserver(tick).observe(document.documentElement, {childList: true, subtree: true});
  if (document.documentElement) watch(); else document.addEventListener('DOMContentLoaded', watch);
  setInterval(tick, 20);
})();
"""

#: JavaScript: every chart the page shows has been drawn by Plotly (a busy browser draws them well after
#: the run's end).
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .filter(e => !e.closest('.st-key-plotly_warmup') && e.getBoundingClientRect().width > 0)
  .every(e => e.querySelector('.js-plotly-plot .main-svg'))"""

#: The running states of Streamlit's root element (`helpers.script_state`).
RUNNING = ("running", "rerunRequested", "stopRequested")


def log_since(page, start: float) -> list:
    return [e for e in page.evaluate("() => window.__pageLog || []") if e[0] >= start]


def wait_until_done(page, start: float) -> list:
    """Wait until the run that an action at ``start`` (ms, the page's clock) caused has ended and the
    page is quiet; return the log since ``start``."""
    deadline = time.perf_counter() + TIMEOUT_S
    quiet = 0
    while quiet < 2:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"the page did not finish within {TIMEOUT_S:.0f} s")
        log = log_since(page, start)
        states = [e[2] for e in log if e[1] == "state"]
        ran = any(s in RUNNING for s in states)
        idle = helpers.script_state(page) in ("notRunning", "compilationError") and page.evaluate(CHARTS_DRAWN)
        quiet = quiet + 1 if ran and idle else 0
        time.sleep(0.3)
    time.sleep(1.0)  # a chart drawn, or redrawn to its width, just after the run's end
    return log_since(page, start)


def timings(log: list, start: float) -> dict:
    """Seconds from ``start`` to the first chart drawn, to the run's end (the script finished) and to
    the page's end ("done": the last of the run's end and of the charts' appearances and redraws)."""
    ends = [e[0] for e in log if e[1] == "state" and e[2] == "notRunning"]
    drawn = [e[0] for e in log if e[1] == "drawn"]
    last = max(ends + drawn)
    return {"first chart": (min(drawn) - start) / 1000 if drawn else None, "done": (last - start) / 1000,
            "run": (max(ends) - start) / 1000 if ends else None}


def no_exception(page, what: str) -> None:
    shown = page.locator('[data-testid="stException"]')
    if shown.count():
        raise RuntimeError(f"{what} shows an exception: {shown.first.inner_text()[:500]}")


def click_slider_at(page, key: str, index: int) -> float:
    """Click the select slider of ``key`` on the track at its option ``index``; returns the page's
    clock just before the click (ms)."""
    box = page.evaluate(
        """([key, index]) => {
            const input = document.querySelector(`.st-key-${key} input[type=range]`);
            if (!input) return null;
            let thumb = input.parentElement;
            while (thumb && !(thumb.style && thumb.style.left)) thumb = thumb.parentElement;
            const track = thumb.parentElement;
            track.scrollIntoView({block: 'center'});
            const r = track.getBoundingClientRect();
            const last = Number(input.max);
            return {x: r.left + r.width * index / last, y: r.top + r.height / 2, last: last};
        }""", [key, index])
    if box is None:
        raise RuntimeError(f"no select slider with key {key!r} on the page")
    if not 0 <= index <= box["last"]:
        raise RuntimeError(f"option {index} of the slider {key!r} does not exist (0..{box['last']})")
    page.wait_for_timeout(300)  # the scroll settles
    box = page.evaluate(  # again, after the scroll
        """([key, index]) => {
            const input = document.querySelector(`.st-key-${key} input[type=range]`);
            let thumb = input.parentElement;
            while (thumb && !(thumb.style && thumb.style.left)) thumb = thumb.parentElement;
            const r = thumb.parentElement.getBoundingClientRect();
            return {x: r.left + r.width * index / Number(input.max), y: r.top + r.height / 2};
        }""", [key, index])
    start = page.evaluate("() => performance.now()")
    page.mouse.click(box["x"], box["y"])
    return start


def slider_text(page, key: str) -> str | None:
    return page.evaluate(
        "(key) => { const i = document.querySelector(`.st-key-${key} input[type=range]`);"
        " return i ? i.getAttribute('aria-valuetext') : null; }", key)


@contextlib.contextmanager
def chromium():
    """Debian's headless Chromium (never a downloaded browser)."""
    helpers.require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=helpers.CHROMIUM, args=helpers.CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def measure(chromium_browser, root: Path, page_name: str, key: str | None, target: dict | None) -> dict:
    """Browser seconds of ``page_name`` in the checkout at ``root``, on a new server: "first chart",
    "first" (the whole first view) and "change" (one ε change; None without ``key``), and for each
    its "run" (to the script's end; the rest is the browser drawing), and the number of "charts". ``target``:
    {"index": option index, "text": its label}, from the server benchmark's AppTest."""
    helpers.ROOT = Path(root)  # streamlit_server runs this checkout's app.py
    with helpers.streamlit_server(timeout=120, how=helpers.CHECKOUT) as (url, _):
        context = chromium_browser.new_context(viewport=VIEWPORT)
        context.add_init_script(RECORDER)
        try:
            page = context.new_page()
            page.goto(f"{url}/")
            helpers.wait_for_app_idle(page, timeout_ms=int(TIMEOUT_S * 1000))
            no_exception(page, "the overview")
            result = {"first chart": None, "first": None, "change": None, "first run": None, "change run": None,
                      "charts": None}
            if page_name == "overview":  # the router's default page: timed from the navigation
                log = wait_until_done(page, 0.0)
                got = timings(log, 0.0)
            else:
                link = f'[data-testid="stSidebarNav"] a[href$="/{page_name}"]'
                page.locator(link).wait_for(timeout=60_000)
                start = page.evaluate(f"() => {{ const t = performance.now();"
                                      f" document.querySelector('{link}').click(); return t; }}")
                got = timings(wait_until_done(page, start), start)
                no_exception(page, page_name)
            result.update({"first chart": got["first chart"], "first": got["done"], "first run": got["run"],
                           "charts": page.evaluate(f"() => {helpers.CHARTS_JS}")})
            if key is not None:
                start = click_slider_at(page, key, target["index"])
                got = timings(wait_until_done(page, start), start)
                no_exception(page, f"{page_name} after the ε change")
                shown = slider_text(page, key)
                if shown != target["text"]:
                    raise RuntimeError(f"{page_name}: the click set {key} to {shown!r}, not {target['text']!r}")
                result.update({"change": got["done"], "change run": got["run"]})
            return result
        finally:
            context.close()


if __name__ == "__main__":
    sys.exit("Run bench/bench_page_views.py BASELINE NEW --browser: it gives this file the ε values to set.")
