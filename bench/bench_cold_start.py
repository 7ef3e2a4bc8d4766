"""Cold start of the app in headless Chromium: from starting the server (as `epsilon-lab app` does,
tests/app/browser.py) to the Neighbour ranks page's first rendered Plotly chart (the rank histogram)
and to both charts (with the proportions against ε), over several cold starts — a new server and
a new browser context (empty HTTP cache) each time.

    python bench/bench_cold_start.py [--runs 5] [--baseline /tmp/base] [--screenshot assets/screenshot.png]

--baseline ROOT also times another checkout of this repository (e.g. `git worktree add /tmp/base HEAD`
made before a change), interleaved run by run with this one (order alternating), so both see the same
machine load; it prints each checkout's medians and their ratios. Each checkout gets its own, fresh
cache folder (EPSILON_LAB_CACHE_DIR): the first start of each fills it (the first start after
installing), the next ones read it; the first run is shown apart. With --screenshot PATH, also saves
a screenshot of the page once both charts are drawn (used for assets/screenshot.png).
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "app"))
import browser
from browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, streamlit_server, wait_for_app_idle

URL_PATH = "/neighbour_ranks?word=king&epsilon=10&seed=1"  # the overview has no chart
#: What is timed, in order: (name, JavaScript condition on the page). A chart counts once Plotly has
#: drawn it (.js-plotly-plot) in the element of its key (Streamlit's st-key-<key> class).
MILESTONES = (
    ("title", "() => [...document.querySelectorAll('h1')].some(h => h.textContent.includes('Neighbour ranks'))"),
    ("first chart", "() => !!document.querySelector('.st-key-rank_histogram .js-plotly-plot')"),
    ("both charts", ("() => !!document.querySelector('.st-key-rank_histogram .js-plotly-plot')"
                     " && !!document.querySelector('.st-key-proportions_vs_epsilon .js-plotly-plot')")),
)


def cold_start(chromium, root: Path, cache_dir: str, screenshot: str | None = None) -> dict:
    """Seconds from starting the server of the checkout at ``root`` to: healthy, then each of `MILESTONES`."""
    browser.ROOT = root  # streamlit_server starts the app of this checkout
    os.environ["EPSILON_LAB_CACHE_DIR"] = cache_dir
    times = {}
    with streamlit_server() as (url, started):
        times["healthy"] = time.perf_counter() - started
        context = chromium.new_context(viewport={"width": 1400, "height": 1100})
        page = context.new_page()
        page.goto(f"{url}{URL_PATH}")
        for name, condition in MILESTONES:
            page.wait_for_function(condition, timeout=120_000, polling=20)
            times[name] = time.perf_counter() - started
        if screenshot:
            wait_for_app_idle(page)
            page.wait_for_timeout(1500)
            page.screenshot(path=screenshot, full_page=False)
        context.close()
    return times


def describe(runs: list[dict], name: str) -> str:
    values = [r[name] for r in runs]
    later = values[1:] or values
    return f"{statistics.median(later):6.2f}  (first start {values[0]:.2f}; all: {', '.join(f'{v:.2f}' for v in values)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default=None, help="the root of another checkout, timed alternately")
    parser.add_argument("--screenshot", default=None)
    args = parser.parse_args()
    require_chromium()
    from playwright.sync_api import sync_playwright

    roots = {"new": Path(__file__).resolve().parent.parent}
    if args.baseline:
        roots = {"baseline": Path(args.baseline).resolve(), **roots}
    results = {which: [] for which in roots}
    caches = {which: tempfile.TemporaryDirectory(prefix=f"epsilon-lab-cache-{which}-") for which in roots}
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for run in range(args.runs):
            order = list(roots) if run % 2 == 0 else list(reversed(roots))
            for which in order:
                shot = args.screenshot if which == "new" and run == 0 else None
                results[which].append(cold_start(chromium, roots[which], caches[which].name, shot))
                print(f"run {run + 1} {which}: " + ", ".join(f"{k} {v:.2f}" for k, v in results[which][-1].items()),
                      flush=True)
        chromium.close()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"seconds from starting the server, median of runs 2..{args.runs} (the first fills the cache):")
    for which, runs in results.items():
        print(f"[{which}] {roots[which]}")
        for name in ("healthy", *(m for m, _ in MILESTONES)):
            print(f"  {name:<12} {describe(runs, name)}")
    if args.baseline:
        print("ratio new / baseline (medians):")
        for name in ("first chart", "both charts"):
            old = statistics.median(r[name] for r in results["baseline"][1:] or results["baseline"])
            new = statistics.median(r[name] for r in results["new"][1:] or results["new"])
            print(f"  {name:<12} {new / old:.2f}")
    for cache in caches.values():
        cache.cleanup()


if __name__ == "__main__":
    main()
