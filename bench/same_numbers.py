"""Same numbers for the same seed: small versions of the Choose epsilon and Why it happens pages'
library calls, run on the privlib of a baseline revision (``git archive REV privlib`` unpacked into a
temporary folder, run in a subprocess) and on this checkout, on the 60,000 most frequent GloVe words
(more than `DIRECT_MAX_WORDS`, so neighbour orders take the float32 route of the full vocabulary).
Prints, per part, whether every float of every table and every word of every output is equal;
exit code 1 when a part differs.

    python bench/same_numbers.py [--baseline REV]

The default baseline is the last commit before the page-speed work of issue 15. Not compared: the
sampled Choose-epsilon metrics and the Fig. 2 sweeps, which since issue 16 draw per block of words
(`privlib.words.experiments.block_seeds`, so that a Dask cluster gives the in-process numbers; their
equality is tests/words/test_cluster_studies.py); what they compute from the draws is compared
through its kernels (`output_ranks`, `classify_outputs`, `words_at_ranks`). (A check of a change
against history, so it lives here and not in the test suite, which must not depend on the
repository's history.)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: The last commit before the page-speed work (privlib/words as it was).
BASELINE = "b2aae277e6b6284cce0d15a2622ad3eb43ad722a"
WORDS = 60_000

#: Run by both checkouts; returns JSON-ready results (floats as Python floats: JSON keeps every bit).
COMPUTE = r'''
def compute(vocab_size):
    import numpy as np
    from privlib.words import EmbeddingSpace
    from privlib.words.neighbours import classify_outputs, output_ranks, words_at_ranks
    from privlib.words.theory.analogies import PointMap, keep_rates
    from privlib.words.theory.neighbour_distances import (mechanism_frequencies, neighbour_distances,
                                                          win_probabilities, word_neighbourhood)

    space = EmbeddingSpace.glove_6b_50d(vocab_size=vocab_size)
    out = {}
    # Choose epsilon's sampled metrics ("choose", "choose_vocabulary") and the sweeps ("sweeps",
    # "sweep_given_words") are no longer compared: they now draw per block of words (issue 16,
    # see the module docstring); their kernels are compared below.
    # Why it happens: the page's calls, smaller
    table = neighbour_distances(space, 150, rng=1)
    out["table2"] = table.to_dict(per_word=True)
    out["table2_blocks"] = neighbour_distances(space, 600, rng=2).to_dict(per_word=True)  # 3 blocks since issue 16
    fig6 = (0.5, 1, 2, 5, 10, 30, 50)
    out["win"] = win_probabilities(table, fig6).w_beats_x1.tolist()
    out["frequencies"] = mechanism_frequencies(space, table, fig6, 60, 1, rng=1).to_dict()
    out["frequencies_unsorted"] = mechanism_frequencies(space, table, (5, 1, 1, 30, 2), 40, 2, rng=2).to_dict()
    hood = word_neighbourhood(space, "king")
    out["king"] = [hood.distances.tolist(), hood.table.to_dict(per_word=True)]
    out["map"] = keep_rates(PointMap.us_states(), (0.0005, 0.002, 0.01), 300, rng=1).rates.tolist()
    # the kernels themselves, on random pairs (many distinct outputs per word, and few)
    rng = np.random.default_rng(7)
    rows = np.repeat(rng.choice(len(space), 20, replace=False), 40)
    outputs = rng.integers(0, len(space), rows.size)
    outputs[::7] = rows[::7]
    out["output_ranks"] = output_ranks(space, rows, outputs).tolist()
    out["output_ranks_few"] = output_ranks(space, rows[::40], outputs[::40]).tolist()
    out["classify"] = classify_outputs(space, rows[::40], outputs.reshape(20, 40), close=30).tolist()
    pivots = rng.integers(0, len(space), 300)
    out["words_at_ranks"] = words_at_ranks(space, pivots, rng.geometric(0.02, 300) - 1).tolist()
    return out
'''


def results_of(root: Path | None, vocab_size: int) -> dict:
    """``compute(vocab_size)`` with the privlib at ``root`` (None: this checkout), in a subprocess."""
    path = str(root or REPO)
    script = f"import json, sys\nsys.path.insert(0, {path!r})\n{COMPUTE}\nprint(json.dumps(compute({vocab_size})))"
    ran = subprocess.run([sys.executable, "-c", script], cwd=path, capture_output=True, text=True, timeout=3600)
    if ran.returncode:
        raise SystemExit(ran.stderr[-3000:])
    return json.loads(ran.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="the git revision to compare with")
    args = parser.parse_args()
    from privlib.words.neighbours import DIRECT_MAX_WORDS

    assert WORDS > DIRECT_MAX_WORDS  # the float32 route of the full vocabulary
    with tempfile.TemporaryDirectory(prefix="same-numbers-") as folder:
        archive = Path(folder) / "privlib.tar"
        subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), args.baseline, "privlib"], cwd=REPO,
                       check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        baseline = results_of(Path(folder), WORDS)
    new = results_of(None, WORDS)
    differ = 0
    for key in sorted(set(new) | set(baseline)):
        same = new.get(key) == baseline.get(key)
        differ += not same
        print(f"{key:24s} {'same' if same else 'DIFFERENT'}")
    print(f"baseline {args.baseline}: {'all parts equal' if not differ else f'{differ} part(s) differ'}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
