"""Server time of every page of the app, on two checkouts interleaved: the first view and one
control change, in Streamlit's AppTest through the app's router; with ``--browser``, the browser
time beside it (Debian's headless Chromium: bench_page_browser.py).

    python bench/bench_page_views.py BASELINE_ROOT NEW_ROOT [--repeats 3] [--pages NAME,NAME] [--browser]

Each repeat runs every page once in a fresh process per checkout (order alternating), so both see
the same machine load; it prints, per page, the median seconds of the first view (the router's
overview first, then a switch to the page: caches cold, the embedding loaded by the page itself)
and of one control change (a new ε: the page's main control), and their ratio new/baseline. The
page files are found in either layout (pages/ at the top, or epsilon_lab/pages/).

``--browser`` also runs, right after each server measurement and on the same checkout, the same
page in the browser on a new server (`streamlit run app.py`, headless): from the click on the page
in the navigation (after the overview) to its first chart and to the whole page (the run ended and
every chart drawn), and from a click on the same control, set to the same value, to the run's end
and the charts redrawn. The two tables are printed side by side, each with its ratios.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import machine_info

#: Every page, its ε control's widget key and the value it is changed to (a select slider's option).
PAGES = {
    "overview": (None, None),
    "neighbour_ranks": ("epsilon", 5.0),
    "noisy_dot_product": ("dot_epsilon", 5.0),
    "sanitise_text": ("san_epsilon", 5.0),
    "why_it_happens": ("why_map_epsilon", 0.005),
    "choose_epsilon": ("choose_samples", 50),  # the page computes on request (Run): a setting changes
    "random_projections": ("rp_epsilon", 2.0),
    "label_dp": ("ldp_epsilon", 1.0),
    "private_learning": ("erm_epsilon", 2.0),
}

WORKER = r'''
import json, sys, time
from pathlib import Path
root = Path(ROOT)
sys.path.insert(0, str(root))
from streamlit.testing.v1 import AppTest
page, key, value = PAGE, KEY, VALUE
folder = "pages" if (root / "pages" / f"{page}.py").exists() else "epsilon_lab/pages"
at = AppTest.from_file(str(root / "app.py"), default_timeout=900)
start = time.perf_counter()
at.run()  # the overview: the router's default page
if page != "overview":
    start = time.perf_counter()
    at.switch_page(f"{folder}/{page}.py" if folder == "pages" else str(root / folder / f"{page}.py")).run()
first = time.perf_counter() - start
assert not at.exception, [e.value for e in at.exception]
change = target = None
if key is not None:
    widget = at.select_slider(key=key)
    text = str(widget.format_func(value))  # the option's label, as the browser shows it
    target = {"index": widget.options.index(text), "text": text}
    start = time.perf_counter()
    widget.set_value(value).run()
    change = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
print(json.dumps({"first": first, "change": change, "target": target}))
'''


class PageFailed(RuntimeError):
    """A page's worker failed (its traceback's end is the message)."""


def run_once(root: Path, page: str) -> dict:
    key, value = PAGES[page]
    code = WORKER.replace("ROOT", repr(str(root))).replace("PAGE", repr(page)).replace("KEY", repr(key)) \
        .replace("VALUE", repr(value))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=1800,
                         check=False)
    if out.returncode != 0:
        raise PageFailed(f"{page} in {root} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def medians(runs: list[dict], part: str) -> float | None:
    values = [r[part] for r in runs if r[part] is not None]
    return statistics.median(values) if values else None


def cells(old: float | None, new: float | None) -> str:
    """Baseline, new and their ratio new/baseline."""
    if old is None or new is None:
        return f"{'—':>6} {'—':>6} {'—':>5}"
    return f"{old:>6.2f} {new:>6.2f} {new / old:>5.2f}"


def report(runs: dict, pages: list[str], parts: list[tuple[str, str, str]], repeats: int) -> None:
    """One line per page: for each (table, part, heading) of ``parts``, baseline, new and ratio."""
    tables = list(dict.fromkeys(table for table, _, _ in parts))
    groups = "   ".join(f"{table + ': ' + heading:^20}" for table, _, heading in parts)
    print(f"{'':<20} {groups}")
    print(f"{'page':<20} " + "   ".join(f"{'base':>6} {'new':>6} {'ratio':>5}" for _ in parts))
    for page in pages:
        row = [cells(medians(runs[table, "baseline", page], part), medians(runs[table, "new", page], part))
               for table, part, _ in parts]
        print(f"{page:<20} " + "   ".join(row))
    print(f"(medians of up to {repeats} repeats (a failed run is said above), seconds; ratio = new / baseline;"
          f" {' and '.join(tables)} measured in turn on the same checkout, the checkouts alternating)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES), help="comma-separated page names")
    parser.add_argument("--browser", action="store_true",
                        help="also time each page in headless Chromium (bench_page_browser.py)")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    unknown = sorted(set(pages) - set(PAGES))
    if unknown:
        parser.error(f"unknown page(s) {', '.join(unknown)}: choose from {', '.join(PAGES)}")
    tables = ("server", "browser") if args.browser else ("server",)
    parts = [("server", "first", "first view"), ("server", "change", "ε change")]
    if args.browser:
        parts += [("browser", "first chart", "first chart"), ("browser", "first", "whole page"),
                  ("browser", "change", "ε change")]
    # SIGTERM (a stopped run) unwinds like Ctrl-C, so the app servers and Chromium are shut down too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(machine_info())
    runs = {(table, which, page): [] for table in tables for which in ("baseline", "new") for page in pages}
    with contextlib.ExitStack() as stack:
        if args.browser:
            import bench_page_browser
            from playwright.sync_api import Error as PlaywrightError

            chromium = stack.enter_context(bench_page_browser.chromium())
        for i in range(args.repeats):
            for page in pages:
                for which in (("baseline", "new") if i % 2 == 0 else ("new", "baseline")):
                    root = getattr(args, which).resolve()
                    try:  # the other checkout's pages are still timed when one page fails (said, not hidden)
                        server = run_once(root, page)
                    except PageFailed as failed:
                        print(f"repeat {i + 1} {page} {which}: FAILED on the server: {failed}", flush=True)
                        continue
                    runs["server", which, page].append(server)
                    line = f"repeat {i + 1} {page} {which}: server {server['first']:.2f}"
                    if server["change"] is not None:
                        line += f" / {server['change']:.2f}"
                    if args.browser:
                        try:
                            seen = bench_page_browser.measure(chromium, root, page, PAGES[page][0], server["target"])
                        except (RuntimeError, PlaywrightError) as failed:  # a timeout, an exception shown: said
                            print(f"{line}; FAILED in the browser: {str(failed)[:1000]}", flush=True)
                            continue
                        runs["browser", which, page].append(seen)
                        line += "; browser " + ", ".join(
                            f"{k} {seen[k]:.2f}" for k in ("first chart", "first run", "first", "change run", "change")
                            if seen[k] is not None) + f" ({seen['charts']} charts)"
                    print(line, f"(load {os.getloadavg()[0]:.1f})", flush=True)
            # the tables so far after every repeat: a run stopped early still leaves its medians
            print(f"\nafter repeat {i + 1} of {args.repeats}; load average (1, 5, 15 min): "
                  f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
            report(runs, pages, parts, i + 1)
            print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
