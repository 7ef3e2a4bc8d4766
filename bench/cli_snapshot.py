"""Snapshot the CLI's output, to check that a restructuring changed no byte of it.

    python bench/cli_snapshot.py ROOT OUT [--against OTHER_OUT] [--only NAME,NAME]

runs each command of README.md's "Command line" block with ``--json`` (cwd = ROOT,
``sys.executable -m privlib …``) and saves its stdout to ``OUT/<name>.json``; then a few text-mode
and bad-input runs (``OUT/<name>.txt``: stdout; ``OUT/<name>.err``: exit code and stderr).
Differences from the README's commands: ``-i notes.txt`` and ``--words-file words.txt`` read
small files this script writes (in a temporary folder), the ``-i`` command gets ``--seed 1`` (it
has none in the README, so its output would be random), the first ``sanitize`` gets ``--json``,
and ``--report`` goes to the temporary folder: in the saved JSON its path reads ``REPORT/choice.html``
and the report is saved as ``OUT/choose.report.html`` with its creation time masked.

With ``--against OTHER_OUT`` (e.g. a snapshot of a baseline checkout), each file is compared
byte for byte; the exit code is 1 if any differs. Some commands take up to a minute (sweep over
200 words × 30 ε, table2 over 5,000 words of the full vocabulary): snapshot two roots one after
the other, not in parallel.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NOTES = "Maria lives at 789 Oak Drive.\nThe patient was seen in Paris on Monday.\n\nKings and queens, 42 times!\n"
WORDS = "king\nqueen\nriver\nbank\nmoney\nqwzxqwzx\nParis is the capital of France.\n"
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")


def commands(tmp: Path) -> list[tuple[str, str, list[str]]]:
    """(name, kind, arguments): kind "json" / "text" saves stdout, "error" the exit code and stderr."""
    notes, words, report = str(tmp / "notes.txt"), str(tmp / "words.txt"), str(tmp / "choice.html")
    return [
        # README.md "Command line", with --json
        ("ranks", "json", ["ranks", "--word", "king", "--epsilon", "10", "--samples", "2000", "--seed", "1", "--json"]),
        ("sweep", "json", ["sweep", "--words", "200", "--epsilons", "1:30", "--seed", "0", "--json"]),
        ("dot", "json", ["dot", "--n", "50", "--epsilon", "10", "--at", "0.5,1.369", "--json"]),
        ("table2", "json", ["table2", "--words", "5000", "--seed", "0", "--json"]),
        ("mechanisms", "json", ["mechanisms", "--json"]),
        ("sanitize", "json", ["sanitize", "--epsilon", "10", "--seed", "1", "Maria lives at 789 Oak Drive.", "--json"]),
        ("sanitize-file", "json", ["sanitize", "--epsilon", "10", "-i", notes, "--json", "--seed", "1"]),
        ("choose", "json", ["choose", "--words-file", words, "--epsilons", "1:30", "--mechanism", "postprocessing-fix",
                            "--target-close", "0.6", "--max-keep", "0.5", "--seed", "1", "--report", report, "--json"]),
        # the same commands' text output (the slow ones on a smaller vocabulary)
        ("ranks.text", "text", ["ranks", "--word", "king", "--epsilon", "10", "--samples", "2000", "--seed", "1"]),
        ("ranks-tem.text", "text", ["ranks", "--word", "king", "--epsilon", "10", "--mechanism", "tem",
                                    "--param", "beta=0.01", "--vocab-size", "20000"]),
        ("sweep.text", "text", ["sweep", "--words", "20", "--epsilons", "1,5,10", "--seed", "0", "--vocab-size", "20000"]),
        ("dot.text", "text", ["dot", "--n", "50", "--epsilon", "10", "--at", "0.5,1.369"]),
        ("table2.text", "text", ["table2", "--words", "200", "--seed", "0", "--vocab-size", "20000"]),
        ("mechanisms.text", "text", ["mechanisms"]),
        ("sanitize.text", "text", ["sanitize", "--epsilon", "10", "--seed", "1", "Maria lives at 789 Oak Drive."]),
        ("sanitize-file.text", "text", ["sanitize", "--epsilon", "10", "-i", notes, "--seed", "1", "--oov", "random",
                                        "--case", "exact"]),
        ("choose.text", "text", ["choose", "--words-file", words, "--epsilons", "1,5,10,20", "--samples", "30",
                                 "--seed", "1", "--vocab-size", "20000"]),
        # random projections (topic 2)
        ("rp-sigma", "json", ["rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--json"]),
        ("rp-sigma-analytic", "json", ["rp-sigma", "--epsilon", "1", "--delta", "1e-6", "--method", "analytic",
                                       "--p", "64", "--k", "32", "--json"]),
        ("rp-pplus", "json", ["rp-pplus", "--r", "0.1", "--p", "1024", "--json"]),
        ("rp-nplus", "json", ["rp-nplus", "--p", "1024", "--k", "512", "--delta", "1e-6", "--m", "10", "--json"]),
        ("rp-variance", "json", ["rp-variance", "--sigma", "2", "--p", "100", "--k", "32", "--json"]),
        ("rp-sensitivity", "json", ["rp-sensitivity", "--projection", "sparse", "--p", "64", "--k", "16",
                                    "--seed", "3", "--json"]),
        ("rp-sweep", "json", ["rp-sweep", "--dataset", "synthetic", "--epsilons", "1,5,10", "--k", "128", "--reps",
                              "2", "--seed", "0", "--json"]),
        ("rp-sweep-digits", "json", ["rp-sweep", "--dataset", "digits", "--mechanisms", "all", "--epsilons", "1,10",
                                     "--k", "16", "--reps", "1", "--seed", "2", "--queries", "40", "--R", "10",
                                     "--json"]),
        ("rp-sweep.text", "text", ["rp-sweep", "--dataset", "synthetic", "--epsilons", "1,5", "--k", "64", "--reps",
                                   "1", "--seed", "0"]),
        # label DP (topic 3)
        ("rr", "json", ["rr", "--classes", "10", "--epsilon", "1", "--json"]),
        ("rr-prior", "json", ["rr-prior", "--prior", "0.5,0.2,0.15,0.1,0.05", "--epsilon", "1", "--json"]),
        ("retrain", "json", ["retrain", "--dataset", "digits", "--model", "logreg", "--epsilon", "1", "--seeds", "5",
                             "--seed", "1000", "--json"]),
        ("retrain-fig1", "json", ["retrain", "--dataset", "fig1", "--epsilon", "0.5", "--seeds", "4", "--seed", "7",
                                  "--json"]),
        ("retrain-lp2st", "json", ["retrain", "--dataset", "twopoint", "--baseline", "lp2st", "--epsilon", "1",
                                   "--seeds", "3", "--seed", "5", "--json"]),
        ("retrain-theory", "json", ["retrain-theory", "--n", "300", "--d", "50", "--mu", "0.3", "--gamma", "0.1",
                                    "--epsilon", "1", "--json"]),
        ("retrain.text", "text", ["retrain", "--dataset", "fig1", "--epsilon", "1", "--seeds", "3", "--seed", "1"]),
        # private learning (topic 4)
        ("erm-calibrate", "json", ["erm-calibrate", "--epsilon", "1", "--delta", "1e-5", "--n", "1000", "--d", "10",
                                   "--json"]),
        ("erm-calibrate-asymptotic", "json", ["erm-calibrate", "--epsilon", "2", "--delta", "1e-6", "--n", "5000",
                                              "--route", "asymptotic", "--inflate", "3", "--json"]),
        ("agm", "json", ["agm", "--mu", "17.73", "--delta", "1e-5", "--json"]),
        ("erm-sweep", "json", ["erm-sweep", "--dataset", "synthetic", "--epsilon", "1", "--n", "1000", "10000", "100000", "--trials",
                               "20", "--seed", "0", "--json"]),
        ("erm-sweep-diabetes", "json", ["erm-sweep", "--dataset", "diabetes", "--epsilons", "1", "10", "--trials",
                                        "5", "--seed", "3", "--json"]),
        ("erm-sweep-census", "json", ["erm-sweep", "--dataset", "census2000", "--task", "classification", "--n",
                                      "2000", "--epsilon", "1", "--trials", "3", "--seed", "1", "--methods", "non_private",
                                      "input_safe", "obj_gauss", "--json"]),
        ("erm-sweep.text", "text", ["erm-sweep", "--dataset", "synthetic", "--epsilon", "2", "--n", "1000", "--trials", "3",
                                    "--seed", "0"]),
        # bad input: exit code 2 and one line on stderr
        ("error-rp-epsilon", "error", ["rp-sigma", "--epsilon", "-1", "--delta", "1e-6"]),
        ("error-rr-classes", "error", ["rr", "--classes", "1", "--epsilon", "1"]),
        ("error-erm-delta", "error", ["erm-calibrate", "--epsilon", "1", "--delta", "1.5", "--n", "100"]),
        ("error-unknown-word", "error", ["ranks", "--word", "qwzxqwzxq", "--epsilon", "10", "--vocab-size", "5000"]),
        ("error-epsilon", "error", ["ranks", "--word", "king", "--epsilon", "nan"]),
        ("error-param", "error", ["ranks", "--word", "king", "--epsilon", "1", "--param", "speed=3"]),
        ("error-oov", "error", ["sanitize", "--epsilon", "1", "--oov", "drop", "text"]),
        ("error-sanitize-input", "error", ["sanitize", "--epsilon", "1"]),
        ("error-grid", "error", ["sweep", "--epsilons", "5:1"]),
        ("error-dot-at", "error", ["dot", "--n", "50", "--epsilon", "1", "--at", "a,b"]),
        ("error-no-command", "error", []),
    ]


def snapshot(root: Path, out: Path, only: set[str] | None = None) -> list[tuple[str, float]]:
    """Run the commands in ``root`` and save their outputs in ``out``; (file name, seconds) of each."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(root)}  # the checkout's privlib, whatever is installed
    done = []
    with tempfile.TemporaryDirectory(prefix="cli_snapshot_") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "notes.txt").write_text(NOTES, encoding="utf-8")
        (tmp / "words.txt").write_text(WORDS, encoding="utf-8")
        for name, kind, args in commands(tmp):
            if only and name not in only:
                continue
            start = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "privlib", *args], cwd=root, env=env, capture_output=True,
                               check=False, timeout=900)
            seconds = time.perf_counter() - start
            if kind == "error":
                path = out / f"{name}.err"
                path.write_bytes(f"exit {r.returncode}\n".encode() + r.stderr)
            else:
                if r.returncode != 0:
                    sys.exit(f"{name} failed in {root} (exit {r.returncode}): {r.stderr.decode(errors='replace')}")
                path = out / f"{name}.{'json' if kind == 'json' else 'txt'}"
                path.write_bytes(r.stdout.replace(str(tmp).encode(), b"REPORT"))
                report = tmp / "choice.html"
                if name == "choose" and report.exists():
                    page = TIMESTAMP.sub("YYYY-MM-DD HH:MM", report.read_text(encoding="utf-8"))
                    (out / "choose.report.html").write_text(page, encoding="utf-8")
                    done.append(("choose.report.html", 0.0))
            done.append((path.name, seconds))
            print(f"  {path.name:<28} {seconds:6.1f} s", file=sys.stderr)
    return done


def compare(out: Path, other: Path, done: list[tuple[str, float]]) -> bool:
    """Print the summary table (file, bytes, identical); True when every file is identical."""
    print(f"{'output':<28} {'bytes':>9} {'seconds':>8}  identical to {other}")
    same = True
    for name, seconds in done:
        mine, theirs = out / name, other / name
        identical = theirs.exists() and mine.read_bytes() == theirs.read_bytes()
        same &= identical
        print(f"{name:<28} {mine.stat().st_size:>9,} {seconds:>8.1f}  {'yes' if identical else 'NO'}")
    return same


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="repository root to run the CLI in")
    parser.add_argument("out", type=Path, help="folder for the outputs")
    parser.add_argument("--against", type=Path, default=None, help="compare with the outputs in this folder")
    parser.add_argument("--only", default=None, help="comma-separated names of the commands to run")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    done = snapshot(args.root.resolve(), args.out, only)
    if args.against is None:
        print(f"{'output':<28} {'bytes':>9} {'seconds':>8}")
        for name, seconds in done:
            print(f"{name:<28} {(args.out / name).stat().st_size:>9,} {seconds:>8.1f}")
        return 0
    return 0 if compare(args.out, args.against, done) else 1


if __name__ == "__main__":
    sys.exit(main())
