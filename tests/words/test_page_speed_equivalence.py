"""The faster Choose epsilon and Why it happens computations give the very numbers of the code
they replaced, for the same seed: small versions of both pages' library calls run on the committed
privlib of `BASELINE` (unpacked with ``git archive`` into a temporary folder, run in a subprocess)
and on this checkout, on the 60,000 most frequent GloVe words (more than `DIRECT_MAX_WORDS`, so
neighbour orders take the float32 route the full vocabulary takes), and must agree exactly: every
float of every table, every word of every output. Skipped where git or that commit is missing.

Also: `RecentDraws`, the memory of recent multivariate Laplace runs that lets the post-processing
fix reuse the plain mechanism's search for its pivots, returns what a fresh run returns and leaves
the generator where a fresh run leaves it."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile

import numpy as np
import pytest

from privlib.words.embeddings import EmbeddingSpace
from privlib.words.mechanisms import MultivariateLaplace, PostProcessingFix
from privlib.words.mechanisms.base import SAMPLE_BATCH
from privlib.words.mechanisms.laplace import RECENT_MAX_ROWS
from privlib.words.neighbours import DIRECT_MAX_WORDS
from privlib.words.search import ExactSearch

#: The last commit before the page-speed work (privlib/words as it was).
BASELINE = "b2aae277e6b6284cce0d15a2622ad3eb43ad722a"
WORDS = 60_000

#: Run by both checkouts; returns JSON-ready results (floats as Python floats: JSON keeps every bit).
COMPUTE = r'''
def compute(vocab_size):
    import numpy as np
    from privlib.words import EmbeddingSpace
    from privlib.words.choice import Targets, WordSet, assemble_choice, epsilon_grid, mechanism_metrics
    from privlib.words.experiments import compare_sweeps, epsilon_sweep
    from privlib.words.mechanisms import MECHANISMS, resolve_mechanism
    from privlib.words.neighbours import classify_outputs, output_ranks, words_at_ranks
    from privlib.words.text import PAPER_EXAMPLE
    from privlib.words.theory.analogies import PointMap, keep_rates
    from privlib.words.theory.neighbour_distances import (mechanism_frequencies, neighbour_distances,
                                                          win_probabilities, word_neighbourhood)

    space = EmbeddingSpace.glove_6b_50d(vocab_size=vocab_size)
    out = {}
    # Choose epsilon: the page's calls (two mechanisms, each from the seed), smaller
    words = WordSet.from_text(PAPER_EXAMPLE, space, source="pasted text").words[:12]
    ws = WordSet(words, space.indices(words))
    results = [mechanism_metrics(space, ws, (1.0, 3.0, 10.0, 30.0),
                                 (name, tuple((k, p.default) for k, p in MECHANISMS[name].PARAMETERS.items())),
                                 12, 100, rng=1)
               for name in ("multivariate-laplace", "postprocessing-fix")]
    choice = assemble_choice(space, ws, results, Targets(), 20, 1)
    out["choose"] = [choice.to_csv(), choice.per_word_csv()]
    vocabulary = WordSet.random(space, 10, seed=3)
    fix = mechanism_metrics(space, vocabulary, (2.0, 8.0), "postprocessing-fix", 15, 50, rng=4)
    out["choose_vocabulary"] = assemble_choice(space, vocabulary, [fix], Targets(), 10, 4).to_csv()
    # Why it happens: the page's calls, smaller
    table = neighbour_distances(space, 150, rng=1)
    out["table2"] = table.to_dict(per_word=True)
    fig6 = (0.5, 1, 2, 5, 10, 30, 50)
    out["win"] = win_probabilities(table, fig6).w_beats_x1.tolist()
    out["frequencies"] = mechanism_frequencies(space, table, fig6, 60, 1, rng=1).to_dict()
    out["frequencies_unsorted"] = mechanism_frequencies(space, table, (5, 1, 1, 30, 2), 40, 2, rng=2).to_dict()
    plain, fixed = compare_sweeps(space, (1, 2, 5, 10, 30), 40, ("multivariate-laplace", "postprocessing-fix"), rng=1)
    out["sweeps"] = [plain.to_dict(), fixed.to_dict()]
    out["sweep_given_words"] = epsilon_sweep(space, (3, 12), ["king", "queen", "king", "the"],
                                             resolve_mechanism("postprocessing-fix"), close=7, rng=5,
                                             samples_per_word=3).to_dict()
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


def _compute_here(vocab_size: int) -> dict:
    scope: dict = {}
    exec(COMPUTE, scope)
    return json.loads(json.dumps(scope["compute"](vocab_size)))


@pytest.fixture(scope="module")
def baseline_results(tmp_path_factory):
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    folder = tmp_path_factory.mktemp("baseline")
    archive = folder / "privlib.tar"
    made = subprocess.run([git, "archive", "--format=tar", "-o", str(archive), BASELINE, "privlib"], cwd=repo,
                          capture_output=True, text=True)
    if made.returncode:
        pytest.skip(f"the baseline commit is not available: {made.stderr.strip()[:200]}")
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    script = (f"import json, sys\nsys.path.insert(0, {str(folder)!r})\n{COMPUTE}\n"
              f"print(json.dumps(compute({WORDS})))")
    ran = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=1200)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return json.loads(ran.stdout.strip().splitlines()[-1])


def test_page_computations_give_the_baselines_numbers(baseline_results):
    assert WORDS > DIRECT_MAX_WORDS  # the float32 route of the full vocabulary
    new = _compute_here(WORDS)
    assert new.keys() == baseline_results.keys()
    for key in new:
        assert new[key] == baseline_results[key], f"{key} differs from the baseline's"


# ----------------------------------------------------------------------------- RecentDraws
@pytest.fixture(scope="module")
def space():
    return EmbeddingSpace.glove_6b_50d(vocab_size=WORDS)


def _counting_nearest(monkeypatch):
    calls = []
    original = ExactSearch.nearest

    def nearest(self, points):
        calls.append(np.atleast_2d(points).shape[0])
        return original(self, points)

    monkeypatch.setattr(ExactSearch, "nearest", nearest)
    return calls


def test_a_repeated_laplace_run_is_recalled_with_the_generator_moved_on(space, monkeypatch):
    fresh = EmbeddingSpace.from_arrays(space.words, space.vectors)  # no remembered runs
    rows = np.arange(0, 3000, 7)
    eps = np.repeat([1.0, 10.0], rows.size // 2 + 1)[:rows.size]
    first, second = np.random.default_rng(5), np.random.default_rng(5)
    calls = _counting_nearest(monkeypatch)
    a = MultivariateLaplace().sample_many(fresh, rows, eps, first)
    b = MultivariateLaplace().sample_many(fresh, rows, eps, second)  # recalled: no search
    assert len(calls) == 1
    np.testing.assert_array_equal(a, b)
    assert first.bit_generator.state == second.bit_generator.state
    np.testing.assert_array_equal(first.random(5), second.random(5))
    b[:] = -1  # the caller's copy: the remembered outputs are not changed by it
    np.testing.assert_array_equal(MultivariateLaplace().sample_many(fresh, rows, eps, np.random.default_rng(5)), a)
    # another state, other rows or other epsilons are other runs
    MultivariateLaplace().sample_many(fresh, rows, eps, np.random.default_rng(6))
    MultivariateLaplace().sample_many(fresh, rows[1:], eps[1:], np.random.default_rng(5))
    MultivariateLaplace().sample_many(fresh, rows, eps * 2, np.random.default_rng(5))
    assert len(calls) == 4


def test_the_fix_reuses_the_plain_mechanisms_search_for_its_pivots(space, monkeypatch):
    fresh = EmbeddingSpace.from_arrays(space.words, space.vectors)
    rows = np.repeat(np.arange(0, 400, 10), 5)
    calls = _counting_nearest(monkeypatch)
    plain = MultivariateLaplace().sample_many(fresh, rows, 8.0, np.random.default_rng(2))
    fix = PostProcessingFix().sample_many(fresh, rows, 8.0, np.random.default_rng(2))
    assert calls == [rows.size]  # the fix's pivots came from the remembered run
    # the very outputs a space with no memory gives
    other = EmbeddingSpace.from_arrays(space.words, space.vectors)
    np.testing.assert_array_equal(PostProcessingFix().sample_many(other, rows, 8.0, np.random.default_rng(2)), fix)
    np.testing.assert_array_equal(MultivariateLaplace().sample_many(other, rows, 8.0, np.random.default_rng(2)), plain)


def test_runs_beyond_the_limit_are_not_remembered(space, monkeypatch):
    tiny = EmbeddingSpace.from_arrays(space.words[:50], space.vectors[:50])
    rows = np.zeros(RECENT_MAX_ROWS + 1, dtype=np.int64)
    calls = _counting_nearest(monkeypatch)
    a = MultivariateLaplace().sample_many(tiny, rows, 50.0, np.random.default_rng(1))
    b = MultivariateLaplace().sample_many(tiny, rows, 50.0, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert len(calls) == 2 * (-(-rows.size // SAMPLE_BATCH))  # searched again, batch by batch


# ----------------------------------------------------------------------------- ranks without a sort
@pytest.mark.parametrize("values", [(-1, 0, 1), (0, 1), (0,)])
def test_output_ranks_of_many_outputs_per_word_with_exact_ties(values):
    """Every word of a small integer space (duplicated vectors, many equal distances; in the last
    case all vectors equal) as the output of every word: each word has more distinct outputs than
    `output_ranks` counts one by one, so all go through its histogram, and must get the stable ranks
    of `neighbour_ranks`."""
    from privlib.words.neighbours import neighbour_ranks, output_ranks

    rng = np.random.default_rng(len(values))
    vectors = rng.choice(values, size=(90, 3)).astype(np.float32)
    space = EmbeddingSpace.from_arrays([f"w{i}" for i in range(len(vectors))], vectors)
    rows = np.repeat(np.arange(len(space)), len(space))
    outputs = np.tile(np.arange(len(space)), len(space))
    got = output_ranks(space, rows, outputs, block=16).reshape(len(space), len(space))
    for w in range(len(space)):
        np.testing.assert_array_equal(got[w], neighbour_ranks(space, w).rank)
