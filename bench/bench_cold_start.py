"""Cold start of the app, started as `epsilon-lab app` does (tests/app/browser.py), to the first rendered
Plotly chart in headless Chromium, measured 3 times (fresh server each time). With --screenshot PATH, also saves a
screenshot of the first page (used for assets/screenshot.png).

    python bench/bench_cold_start.py [--runs 3] [--screenshot assets/screenshot.png]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "app"))
from browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, streamlit_server, wait_for_app_idle  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--screenshot", default=None)
    args = parser.parse_args()
    require_chromium()
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for run in range(args.runs):
            with streamlit_server() as (url, started):
                page = browser.new_page(viewport={"width": 1400, "height": 1100})
                page.goto(f"{url}/neighbour_ranks?word=king&epsilon=10&seed=1")  # the overview has no chart
                page.wait_for_selector(".js-plotly-plot", timeout=120_000)
                times.append(time.perf_counter() - started)
                if args.screenshot and run == 0:
                    wait_for_app_idle(page)
                    page.wait_for_timeout(1500)
                    page.screenshot(path=args.screenshot, full_page=False)
                page.close()
        browser.close()
    print(f"cold start to first rendered chart: median {statistics.median(times):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
