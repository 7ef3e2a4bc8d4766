"""Server time of every page's heavy controls, each changed once, on two checkouts interleaved
(issue 22: every control change ≤ 2 s on a quiet machine; a change must not recompute what it does not
change; heavy work waits for its button).

    python bench/bench_controls.py BASELINE_ROOT NEW_ROOT [--repeats 1] [--pages NAME,NAME]

For each page and checkout, a fresh process opens the app in Streamlit's AppTest (the router's
overview, then the page: caches cold, as in bench_page_views.py), then for each control of `CONTROLS`
sets it to the new value and times that script run, then sets it back (untimed: the default view is
cached by then). So every change starts from the default view. The checkouts alternate per page and
repeat, so both see the same machine load; the load average (`uptime`) is printed before and after.
Seconds are the page's own script run (server side), not the browser's drawing. A change that only
shows a button (work on request) is timed as it is: what the user waits for.

Random projections is left out (its speed work is elsewhere); the overview has no control.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import machine_info

#: Page → [(widget kind of AppTest, key, new value)], the heavy controls of each page.
CONTROLS = {
    "label_dp": [("select_slider", "ldp_epsilon", 1.0), ("selectbox", "ldp_dataset", "digits"),
                 ("selectbox", "ldp_model", "least_squares"), ("selectbox", "ldp_variant", "full"),
                 ("slider", "ldp_repeats", 10), ("select_slider", "ldp_delta", 0.3),
                 ("radio", "ldp_randomiser", "lp2st"), ("select_slider", "ldp_p", 0.2)],
    "why_it_happens": [("radio", "why_table_words", 5_000), ("select_slider", "why_map_epsilon", 0.005),
                       ("text_input", "why_word", "queen"), ("radio", "why_1d_kind", "geometric")],
    "private_learning": [("select_slider", "erm_epsilon", 2.0), ("select_slider", "erm_n", 1_000),
                         ("selectbox", "erm_dataset", "census2000"), ("radio", "erm_task", "classification"),
                         ("select_slider", "erm_d", 5), ("select_slider", "erm_R", 2.0),
                         ("select_slider", "erm_m", 3.0), ("slider", "erm_repeats", 20)],
    "neighbour_ranks": [("select_slider", "epsilon", 5.0), ("selectbox", "word", "queen"),
                        ("select_slider", "samples", 5_000), ("number_input", "close", 10)],
    "noisy_dot_product": [("select_slider", "dot_epsilon", 5.0), ("selectbox", "dot_word", "queen")],
    "sanitise_text": [("select_slider", "san_epsilon", 5.0)],
    "choose_epsilon": [("text_input", "choose_grid", "1:20")],  # the page computes on request (Run)
}

WORKER = r'''
import json, sys, time
from pathlib import Path
root = Path(ROOT)
sys.path.insert(0, str(root))
from streamlit.testing.v1 import AppTest
page, controls = PAGE, CONTROLS
folder = "pages" if (root / "pages" / f"{page}.py").exists() else "epsilon_lab/pages"
at = AppTest.from_file(str(root / "app.py"), default_timeout=1800)
at.run()
start = time.perf_counter()
at.switch_page(f"{folder}/{page}.py" if folder == "pages" else str(root / folder / f"{page}.py")).run()
out = {"first view": time.perf_counter() - start}
assert not at.exception, [e.value for e in at.exception]


def widget(kind, key):
    found = [w for w in getattr(at, kind) if w.key == key]
    return found[0] if found else None


def set_to(kind, key, value):
    w = widget(kind, key)
    if kind == "text_input":
        return w.input(value)
    return w.set_value(value)  # the option's value itself (a select slider formats it)


for kind, key, value in controls:
    w = widget(kind, key)
    if w is None:
        out[f"{key} → {value}"] = None
        continue
    before = w.value
    start = time.perf_counter()
    set_to(kind, key, value).run()
    out[f"{key} → {value}"] = time.perf_counter() - start
    assert not at.exception, (key, [e.value for e in at.exception])
    set_to(kind, key, before).run()  # back to the default view (cached), untimed
print(json.dumps(out))
'''


def run_once(root: Path, page: str) -> dict:
    code = WORKER.replace("ROOT", repr(str(root))).replace("PAGE", repr(page)) \
        .replace("CONTROLS", repr(CONTROLS[page]))
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=root,
                         timeout=3600)
    if out.returncode != 0:
        raise SystemExit(f"{page} in {root} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--pages", default=",".join(CONTROLS), help="comma-separated page names")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    print(machine_info())
    print(f"load average (1, 5, 15 min) before: {load_average()}", flush=True)
    runs = {(which, page): [] for which in ("baseline", "new") for page in pages}
    for i in range(args.repeats):
        for page in pages:
            for which in (("baseline", "new") if i % 2 == 0 else ("new", "baseline")):
                runs[which, page].append(run_once(getattr(args, which).resolve(), page))
            print(f"  {page} done (repeat {i + 1}), load {load_average()}", flush=True)
    print(f"load average (1, 5, 15 min) after: {load_average()}")
    print(f"{'page':<18} {'control → value':<36} {'base':>8} {'new':>8} {'ratio':>6}   (medians of {args.repeats}, "
          "seconds)")
    for page in pages:
        for name in runs["new", page][0]:
            old = [r[name] for r in runs["baseline", page] if r.get(name) is not None]
            new = [r[name] for r in runs["new", page] if r.get(name) is not None]
            o = f"{statistics.median(old):>8.2f}" if old else f"{'—':>8}"
            n = f"{statistics.median(new):>8.2f}" if new else f"{'—':>8}"
            ratio = f"{statistics.median(new) / statistics.median(old):>6.2f}" if old and new else f"{'—':>6}"
            print(f"{page:<18} {name:<36} {o} {n} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
