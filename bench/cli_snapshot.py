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
        # bad input: exit code 2 and one line on stderr
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
