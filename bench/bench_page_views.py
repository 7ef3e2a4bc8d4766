"""Server time of every page of the app, on two checkouts interleaved: the first view and one
control change, in Streamlit's AppTest through the app's router (no browser: the browser's time is
what `bench_pages.py --browser` and `bench_cold_start.py` report beside this).

    python bench/bench_page_views.py BASELINE_ROOT NEW_ROOT [--repeats 3] [--pages NAME,NAME]

Each repeat runs every page once in a fresh process per checkout (order alternating), so both see
the same machine load; it prints, per page, the median seconds of the first view (the router's
overview first, then a switch to the page: caches cold, the embedding loaded by the page itself)
and of one control change (a new ε: the page's main control), and their ratio new/baseline. The
page files are found in either layout (pages/ at the top, or epsilon_lab/pages/).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import machine_info  # noqa: E402

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
change = None
if key is not None:
    widget = at.select_slider(key=key)
    start = time.perf_counter()
    widget.set_value(value).run()
    change = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
print(json.dumps({"first": first, "change": change}))
'''


def run_once(root: Path, page: str) -> dict:
    key, value = PAGES[page]
    code = WORKER.replace("ROOT", repr(str(root))).replace("PAGE", repr(page)).replace("KEY", repr(key)) \
        .replace("VALUE", repr(value))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{page} in {root} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", default=",".join(PAGES), help="comma-separated page names")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    print(machine_info())
    runs = {(which, page): [] for which in ("baseline", "new") for page in pages}
    for i in range(args.repeats):
        for page in pages:
            for which in (("baseline", "new") if i % 2 == 0 else ("new", "baseline")):
                runs[which, page].append(run_once(getattr(args, which).resolve(), page))
    print(f"{'page':<20} {'first view: base':>17} {'new':>7} {'ratio':>6}   {'ε change: base':>15} {'new':>7} {'ratio':>6}"
          f"   (medians of {args.repeats}, seconds)")
    for page in pages:
        row = [f"{page:<20}"]
        for part, width in (("first", 17), ("change", 15)):
            old = [r[part] for r in runs["baseline", page] if r[part] is not None]
            new = [r[part] for r in runs["new", page] if r[part] is not None]
            if old and new:
                o, n = statistics.median(old), statistics.median(new)
                row.append(f"{o:>{width}.2f} {n:>7.2f} {n / o:>6.2f}")
            else:
                row.append(f"{'—':>{width}} {'—':>7} {'—':>6}")
        print("   ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
