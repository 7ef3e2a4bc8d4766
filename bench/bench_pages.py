"""What the Choose epsilon page computes when Run is pressed with its defaults, and what the Why it
happens page computes on its first view, on the full GloVe 6B 50d vocabulary: this checkout's
privlib against the committed one (HEAD), interleaved in the same run.

    python bench/bench_pages.py [--repeats 3] [--pages choose,why] [--baseline REV] [--browser]
                                [--old-search] [--cores N]

The baseline is ``git archive REV privlib`` (default HEAD) unpacked into a temporary directory;
the working tree is not touched. ``--old-search`` adds a third checkout: this one with the
baseline's privlib/words/search.py (what the rest of the change gives without the search's own).
Each measurement runs in a fresh process (so no cache of one run helps the next), on a space
loaded as the app's server loads it (`EmbeddingSpace.glove_6b_50d` and its exact search built),
and times the library calls exactly as the page makes them, with its defaults (checked against
the page file's own constants), and separately the figures the page draws from them. Repeats
alternate the order of the checkouts, so all see the same machine load; the machine is shared,
so compare the ratios, not the seconds. Each result is also reduced to a digest: equal digests =
the same numbers for the same seed.

``--browser`` measures the same in the app, in Debian's headless Chromium (tests/app/browser.py),
one server per checkout and repeat (the baseline's app is ``git archive REV epsilon_lab app.py``):
once the Choose epsilon page has drawn (the GloVe space loaded), the time from opening Why it
happens to its last chart (the fix's, then the page idle), and then from clicking Run on Choose
epsilon, defaults, to its charts (then the page idle); and for each, how long the tab's renderer
main thread was busy meanwhile ("browser busy", `renderer_busy`).
"""
from __future__ import annotations

import argparse
import ast
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import machine_info  # noqa: E402  (bench/timing.py, beside this script)

REPO = Path(__file__).resolve().parent.parent

#: The page defaults the workers use (the checks in `check_page_defaults` keep them in step).
CHOOSE = {"DEFAULT_GRID": "1,2,3,5,8,12,20,30", "DEFAULT_SAMPLES": 20,
          "DEFAULT_MECHANISMS": ["multivariate-laplace", "postprocessing-fix"]}
WHY = {"MAP_EPSILONS": (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05), "MAP_SAMPLES": 2_000,
       "TABLE2_WORDS": [1_000, 2_000, 5_000], "FIG6_EPSILONS": (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50),
       "FIG6_MECHANISM_WORDS": 200, "FIX_EPSILONS": (1, 2, 5, 10, 15, 20, 30), "FIX_WORDS": 100,
       "FIX_MECHANISMS": ("multivariate-laplace", "postprocessing-fix")}

COMMON = r'''
import hashlib, json, os, sys, time
sys.path.insert(0, ROOT)
if CORES:  # before numpy loads, so that BLAS and the search's workers see only these cores
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:CORES]))
import numpy as np
from privlib.words import EmbeddingSpace

def digest(*parts):
    h = hashlib.sha1()
    for p in parts:
        h.update(np.ascontiguousarray(p).tobytes() if isinstance(p, np.ndarray)
                 else json.dumps(p, sort_keys=True, default=repr).encode())
    return h.hexdigest()[:16]

space = EmbeddingSpace.glove_6b_50d()
space.exact_search  # as the app's server loads it (epsilon_lab.embedding_ui.glove_space)
seed = 1  # the sidebar's default seed
progress = lambda fraction, message: None  # the pages pass a progress bar's callback
times, cpu = {}, {}
def timed(name, fn):
    start, start_cpu = time.perf_counter(), time.process_time()
    out = fn()
    times[name] = times.get(name, 0.0) + time.perf_counter() - start
    cpu[name] = cpu.get(name, 0.0) + time.process_time() - start_cpu  # all threads of the process
    return out
'''

CHOOSE_WORKER = COMMON + r'''
from privlib.presentation.words.report import choice_figures
from privlib.words.choice import Targets, WordSet, assemble_choice, epsilon_grid, mechanism_metrics
from privlib.words.mechanisms import MECHANISMS
from privlib.words.text import PAPER_EXAMPLE

P = PAGE
words = WordSet.from_text(PAPER_EXAMPLE, space, source="pasted text")
grid = epsilon_grid(P["DEFAULT_GRID"])
specs = [(n, tuple((k, p.default) for k, p in MECHANISMS[n].PARAMETERS.items())) for n in P["DEFAULT_MECHANISMS"]]
close = min(100, len(space) - 1)
results = []
for spec in specs:
    ws = WordSet(words.words, space.indices(words.words), words.scope)
    results.append(timed(spec[0], lambda: mechanism_metrics(space, ws, tuple(float(e) for e in grid), spec,
                                                            P["DEFAULT_SAMPLES"], close, rng=seed, progress=progress)))
word_set = WordSet(words.words, space.indices(words.words), words.scope, words.source, words.unknown, words.seed)
targets = Targets(utility=0.6, max_keep=0.5, keep_statistic="max")  # the page's defaults, L = 20
choice = timed("answers", lambda: assemble_choice(space, word_set, results, targets, 20, seed))
times["library"], cpu["library"] = sum(times.values()), sum(cpu.values())
timed("figures", lambda: choice_figures(choice, "unchanged"))
print(json.dumps({"times": times, "cpu": cpu, "digest": digest(choice.to_csv(), choice.per_word_csv())}))
'''

WHY_WORKER = COMMON + r'''
from privlib.presentation.words import figures
from privlib.words.experiments import compare_sweeps
from privlib.words.theory.analogies import PointMap, keep_rates, laplace_1d_comparison, planar_noise
from privlib.words.theory.neighbour_distances import (FAR_RANK, mechanism_frequencies, neighbour_distances,
                                                      published_table2, table2_rows, win_probabilities,
                                                      word_neighbourhood)

P = PAGE
EPSILONS_1D = tuple(float(e) for e in np.geomspace(0.001, 10, 21))
exact_1d, simulated_1d = timed("1d", lambda: laplace_1d_comparison(EPSILONS_1D, 2_000, kind="rounded", rng=seed))
point_map = timed("map", PointMap.us_states)
rates = timed("map", lambda: keep_rates(point_map, P["MAP_EPSILONS"], P["MAP_SAMPLES"], rng=seed))
noise = timed("map", lambda: planar_noise(0.002, 5_000, rng=seed))
exact = timed("map", noise.exact_densities)
hood = timed("word", lambda: word_neighbourhood(space, "king", FAR_RANK))
table = timed("table2", lambda: neighbour_distances(space, P["TABLE2_WORDS"][0], rng=seed, progress=progress))
published = published_table2(space)
rows = timed("table2", lambda: (table2_rows(table, published), table.undefined(),
                                json.dumps(table.to_dict(per_word=True)))[0])
probabilities = timed("fig6", lambda: win_probabilities(table, P["FIG6_EPSILONS"], progress=progress))
frequencies = timed("fig6", lambda: mechanism_frequencies(space, table, P["FIG6_EPSILONS"], P["FIG6_MECHANISM_WORDS"],
                                                          1, rng=seed, progress=progress))
word_curves = ("king", timed("fig6", lambda: win_probabilities(hood.table, P["FIG6_EPSILONS"])))
reach = probabilities.first_reaching(0.9)
plain, fixed = timed("fix", lambda: compare_sweeps(space, P["FIX_EPSILONS"], P["FIX_WORDS"], P["FIX_MECHANISMS"],
                                                   rng=seed, progress=progress))
times["library"], cpu["library"] = sum(times.values()), sum(cpu.values())

def draw():
    figures.proportions_vs_epsilon([("exact", exact_1d), ("simulated", simulated_1d)], title="1d")
    figures.location_map(point_map, rates.at(0.002), 0.002, highlight=["Hawaii", "Kansas"])
    figures.keep_rate_vs_epsilon(rates, ["Hawaii", "Kansas"], title="keep")
    figures.density_with_samples(*exact["radius"], noise.radius, x_title="r", title="r", exact_name="r")
    figures.density_with_samples(*exact["angle"], noise.angle, x_title="a", title="a", exact_name="a")
    figures.noise_scatter(noise.noise, 0.002, units=" km", title="n")
    figures.neighbour_distance_profile(hood.distances, "king", FAR_RANK, title="king")
    figures.neighbour_gap_distributions(table.values(), table.means(),
                                        dict(zip(table.names, published["paper"])) if published else None, title="t")
    figures.win_probabilities_vs_epsilon(probabilities, frequencies, word_curves, title="fig6")
    figures.proportions_vs_epsilon([("without", plain), ("with", fixed)], title="fix")

timed("figures", draw)
print(json.dumps({"times": times, "cpu": cpu, "digest": digest(
    exact_1d.to_dict(), simulated_1d.to_dict(),
    rates.rates, noise.noise, hood.distances, hood.table.to_dict(per_word=True), table.to_dict(per_word=True), rows,
    probabilities.w_beats_x1, probabilities.x1_beats_x2, frequencies.to_dict(), word_curves[1].w_beats_x1,
    reach, plain.to_dict(), fixed.to_dict())}))
'''


def page_file(name: str) -> Path:
    """The page's file: pages/ at the top (or epsilon_lab/pages/ in the layout of issue 15's checkouts)."""
    for folder in (REPO / "pages", REPO / "epsilon_lab" / "pages"):
        if (folder / name).exists():
            return folder / name
    raise SystemExit(f"page {name} not found")


def check_page_defaults() -> None:
    """The constants above must be the page files' own (literal top-level assignments)."""
    for name, expected in (("choose_epsilon.py", CHOOSE), ("why_it_happens.py", WHY)):
        tree = ast.parse(page_file(name).read_text())
        found = {t.id: ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name) and t.id in expected}
        for key, value in expected.items():
            got = found.get(key)
            same = (list(got) == list(value)) if isinstance(value, (list, tuple)) else got == value
            if not same:
                raise SystemExit(f"{name}: {key} is {got!r} in the page, {value!r} here: update bench_pages.py")


def run_once(root: str, page: str, cores: int = 0) -> dict:
    worker = (CHOOSE_WORKER if page == "choose" else WHY_WORKER).replace("ROOT", repr(root))
    worker = worker.replace("CORES", repr(cores))
    worker = worker.replace("PAGE", repr(CHOOSE if page == "choose" else WHY))
    out = subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True, cwd=root, check=False)
    if out.returncode:
        raise SystemExit(f"{page} on {root} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def renderer_busy(page):
    """A function giving the seconds the tab's renderer main thread has been busy (Chrome's
    Performance.getMetrics "TaskDuration": scripts, style, layout, paint) since this call: the
    browser's share of the machine, which on 2 cores the server's computation competes with."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def task_seconds():
        return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")

    first = task_seconds()
    return lambda: task_seconds() - first


def browser_once(browser, root: str) -> dict:
    """One server on ``root``: seconds to Why it happens's last chart (GloVe loaded first), then from
    Run on Choose epsilon to its charts."""
    sys.path.insert(0, str(REPO / "tests" / "app"))
    import browser as helpers

    helpers.ROOT = Path(root)  # the checkout the server runs (streamlit_server puts it on PYTHONPATH)
    times = {}
    with helpers.streamlit_server(timeout=120) as (url, _):
        choose = browser.new_page(viewport={"width": 1400, "height": 1000})
        choose.goto(f"{url}/choose_epsilon")
        run = choose.get_by_role("button", name="Run", exact=True)
        run.wait_for(timeout=300_000)  # drawn after the space has loaded
        helpers.wait_for_app_idle(choose, timeout_ms=300_000)
        why = browser.new_page(viewport={"width": 1400, "height": 1000})
        why_busy = renderer_busy(why)
        start = time.perf_counter()
        why.goto(f"{url}/why_it_happens")
        why.locator(".js-plotly-plot", has_text="without and with the fix").wait_for(timeout=300_000)
        times["why: to the last chart"] = time.perf_counter() - start
        helpers.wait_for_app_idle(why, timeout_ms=300_000)
        times["why: to idle"] = time.perf_counter() - start
        times["why: browser busy"] = why_busy()
        assert why.locator('[data-testid="stException"]').count() == 0
        why.close()
        choose_busy = renderer_busy(choose)
        start = time.perf_counter()
        run.click()
        choose.wait_for_function(f"() => {helpers.CHARTS_JS} >= 9", timeout=300_000)
        times["choose: Run to the charts"] = time.perf_counter() - start
        helpers.wait_for_app_idle(choose, timeout_ms=300_000)
        times["choose: Run to idle"] = time.perf_counter() - start
        times["choose: browser busy"] = choose_busy()
        assert choose.get_by_text("sentence spends").count() >= 2
        assert choose.locator('[data-testid="stException"]').count() == 0
        choose.close()
    return times


def report(runs: dict, roots: dict, pages, repeats: int) -> None:
    print(f"\nmedians of {repeats} (seconds; each in a fresh process, the embedding loaded first)")
    for page in pages:
        parts = list(runs["baseline", page][0]["times"])
        print(f"{page}: {'part':<22} " + " ".join(f"{w:>10}" for w in roots) + "   ratios to the baseline")
        for part in parts:
            med = {w: statistics.median(r["times"][part] for r in runs[w, page]) for w in roots}
            print(f"{'':<8}{part:<22} " + " ".join(f"{med[w]:>10.2f}" for w in roots) + "   "
                  + ", ".join(f"{w} {med[w] / med['baseline']:.2f}" for w in roots if w != "baseline"))
        print(f"{'':<8}CPU seconds (all threads; less sensitive to the machine's load than the time):")
        for part in parts:
            med = {w: statistics.median(r["cpu"][part] for r in runs[w, page]) for w in roots}
            print(f"{'':<8}{part:<22} " + " ".join(f"{med[w]:>10.2f}" for w in roots) + "   "
                  + ", ".join(f"{w} {med[w] / med['baseline']:.2f}" for w in roots if w != "baseline"))
        for w in roots:
            if w != "baseline":
                ratios = [n["times"]["library"] / b["times"]["library"]
                          for b, n in zip(runs["baseline", page], runs[w, page])]
                print(f"{'':<8}library time ratio {w}/baseline per repeat: {', '.join(f'{r:.2f}' for r in ratios)}")
        digests = {w: sorted({r["digest"] for r in runs[w, page]}) for w in roots}
        same = all(d == digests["baseline"] for d in digests.values()) and len(digests["baseline"]) == 1
        print(f"{'':<8}same numbers for the same seed: {same} (digests {digests})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", default="choose,why")
    parser.add_argument("--baseline", default="HEAD", help="the git revision to compare with (default HEAD)")
    parser.add_argument("--browser", action="store_true", help="measure in the app with headless Chromium instead")
    parser.add_argument("--cores", type=int, default=0,
                        help="run the computations on this many cores only (default: all; 1 = the work itself, "
                             "without parallelism)")
    parser.add_argument("--old-search", action="store_true",
                        help="also this checkout with the baseline's privlib/words/search.py")
    args = parser.parse_args()
    pages = [p for p in args.pages.split(",") if p]
    check_page_defaults()
    print(machine_info())
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        archive = Path(tmp) / "baseline.tar"
        subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), args.baseline, "privlib",
                        *(["epsilon_lab", "app.py"] if args.browser else [])], cwd=REPO, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "baseline", filter="data")
        roots = {"baseline": str(Path(tmp) / "baseline"), "new": str(REPO)}
        if args.old_search:
            mixed = Path(tmp) / "new-old-search"
            shutil.copytree(REPO / "privlib", mixed / "privlib", ignore=shutil.ignore_patterns("__pycache__"))
            if args.browser:
                shutil.copytree(REPO / "epsilon_lab", mixed / "epsilon_lab",
                                ignore=shutil.ignore_patterns("__pycache__"))
                shutil.copy(REPO / "app.py", mixed / "app.py")
            shutil.copy(Path(roots["baseline"]) / "privlib" / "words" / "search.py", mixed / "privlib" / "words")
            roots["new, old search"] = str(mixed)
        if args.browser:
            browser_main(roots, args.repeats)
            return
        runs = {(w, p): [] for w in roots for p in pages}
        for i in range(args.repeats):
            order = list(roots) if i % 2 == 0 else list(roots)[::-1]
            for page in pages:
                for which in order:
                    runs[which, page].append(run_once(roots[which], page, args.cores))
                    t, c = runs[which, page][-1]["times"], runs[which, page][-1]["cpu"]
                    print(f"  repeat {i + 1}: {page:<6} {which:<16} library {t['library']:6.2f} s "
                          f"(CPU {c['library']:6.2f} s): "
                          + ", ".join(f"{k} {v:.2f}" for k, v in t.items() if k != "library"), flush=True)
        report(runs, roots, pages, args.repeats)


def browser_main(roots: dict, repeats: int) -> None:
    sys.path.insert(0, str(REPO / "tests" / "app"))
    from browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
    from playwright.sync_api import sync_playwright

    require_chromium()
    runs = {w: [] for w in roots}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for i in range(repeats):
            for which in (list(roots) if i % 2 == 0 else list(roots)[::-1]):
                runs[which].append(browser_once(browser, roots[which]))
                done = runs[which][-1]
                print(f"  repeat {i + 1}: {which:<16} " + ", ".join(f"{k} {v:.1f} s" for k, v in done.items()),
                      flush=True)
        browser.close()
    print(f"\nin the browser, medians of {repeats} (seconds)")
    print(f"{'':<28}" + " ".join(f"{w:>16}" for w in roots))
    for part in runs["baseline"][0]:
        med = {w: statistics.median(r[part] for r in runs[w]) for w in roots}
        print(f"{part:<28}" + " ".join(f"{med[w]:>16.1f}" for w in roots) + "   "
              + ", ".join(f"{w}/baseline {med[w] / med['baseline']:.2f}" for w in roots if w != "baseline"))


if __name__ == "__main__":
    main()
