"""ε studies on a Dask cluster (issue 16): the Fig. 2 sweep, Table 2 and the Choose-epsilon metrics
split their words into blocks that run on the workers of a 2-process `LocalCluster`
(tests/conftest.py, `dask_client`), and give the very numbers of the in-process run for the
same seed; the blocks are the same wherever a study runs. The command line on a cluster:
tests/cli/test_cli_cluster.py; that without a client nothing imports Dask (a fresh process):
tests/cli/test_cli_commands.py."""
from __future__ import annotations

import inspect
import json
import math

import numpy as np
import pytest

from privlib.words import EmbeddingSpace, experiments
from privlib.words.choice import Targets, WordSet, choose_epsilon, mechanism_metrics
from privlib.words.choice import metrics as choice_metrics
from privlib.words.cluster import SpaceSpec
from privlib.words.experiments import (
    block_seeds,
    compare_sweeps,
    epsilon_sweep,
    sweep_words_per_block,
    word_blocks,
    words_per_block,
)
from privlib.words.neighbours import DIRECT_MAX_WORDS, neighbour_order_prefixes
from privlib.words.theory import neighbour_distances as table2_module
from privlib.words.theory.neighbour_distances import TABLE2_BLOCK, neighbour_distances

MECHANISMS = ("multivariate-laplace", "postprocessing-fix")
SWEEP_EPSILONS = (1.0, 5.0, 30.0)
#: 600 words x 3 epsilons x 10 outputs each: 30 outputs per word, blocks of 256 words, so 3 blocks
SWEEP_WORDS, SWEEP_SAMPLES = 600, 10
CHOICE_EPSILONS = (1.0, 3.0, 10.0, 30.0)
#: 12 words x 4 epsilons x 100 runs: 10 words per block, 2 blocks
CHOICE_WORDS, CHOICE_SAMPLES = 12, 100


@pytest.fixture(scope="module")
def glove_2k():
    """The 2,000 most frequent GloVe words: enough for the 600 words of a three-block sweep or
    Table 2, at a tenth of the work of `glove_small` per output (blocks and seeds depend on the
    study's size only, never on the vocabulary)."""
    return EmbeddingSpace.glove_6b_50d(vocab_size=2000)


@pytest.fixture(scope="module")
def glove_60k():
    """More words than `DIRECT_MAX_WORDS`: neighbour orders take the float32 route of the full vocabulary."""
    return EmbeddingSpace.glove_6b_50d(vocab_size=60_000)


def test_the_study_sizes_used_here_make_several_blocks():
    # otherwise the cluster tests below would not split anything
    assert len(word_blocks(SWEEP_WORDS, sweep_words_per_block(len(SWEEP_EPSILONS) * SWEEP_SAMPLES))) == 3
    assert len(word_blocks(CHOICE_WORDS, words_per_block(len(CHOICE_EPSILONS) * CHOICE_SAMPLES))) == 2
    assert 600 > 2 * TABLE2_BLOCK


# ----------------------------------------------------------------------------- same numbers on a cluster
@pytest.mark.slow  # ~7 s on a 2-core machine (325 s before, on 20,000 words): both mechanisms, twice
def test_sweeps_on_a_cluster_equal_the_in_process_sweeps(dask_client, glove_2k):
    from dask.distributed import get_task_stream

    here = compare_sweeps(glove_2k, SWEEP_EPSILONS, SWEEP_WORDS, MECHANISMS, rng=7, samples_per_word=SWEEP_SAMPLES)
    seen = []
    dask_client.wait_for_workers(2, timeout=60)  # the session's cluster: a test may have killed one
    with get_task_stream(dask_client) as stream:
        there = compare_sweeps(glove_2k, SWEEP_EPSILONS, SWEEP_WORDS, MECHANISMS, rng=7,
                               samples_per_word=SWEEP_SAMPLES, client=dask_client,
                               progress=lambda fraction, message: seen.append(fraction))
    for a, b in zip(here, there, strict=True):
        assert a.words == b.words
        for name in a.proportions:
            np.testing.assert_array_equal(a.proportions[name], b.proportions[name])
        assert a.to_dict() == b.to_dict()
    assert here[0].proportions["original"][0] < here[0].proportions["original"][-1]  # a real sweep
    assert len(stream.data) == 2 * 3  # one task per block of words, per mechanism
    # ran on the cluster's worker processes (which of the two gets which block is the scheduler's
    # choice: requiring both workers to get one was a race)
    assert {task["worker"] for task in stream.data} <= set(dask_client.scheduler_info()["workers"])
    assert seen[-1] == 1.0 and seen == sorted(seen)


def test_table2_on_a_cluster_equals_the_in_process_table_and_the_one_before_blocks(dask_client, glove_60k):
    assert len(glove_60k) > DIRECT_MAX_WORDS
    here = neighbour_distances(glove_60k, 600, rng=3)
    there = neighbour_distances(glove_60k, 600, rng=3, client=dask_client)
    assert json.dumps(here.to_dict(per_word=True)) == json.dumps(there.to_dict(per_word=True))
    np.testing.assert_array_equal(here.neighbours, there.neighbours)
    # before blocks: the same words from the seed, every order from one call (Table 2 is
    # deterministic per word, so blocks change nothing)
    rows = np.sort(np.random.default_rng(3).choice(len(glove_60k), size=600, replace=False))
    np.testing.assert_array_equal(here.rows, rows)
    prefixes = np.empty((rows.size, 102), dtype=np.int64)
    for i, prefix in neighbour_order_prefixes(glove_60k, rows, 102):
        prefixes[i] = prefix
    np.testing.assert_array_equal(here.neighbours, prefixes[:, [1, 2, 101]])


@pytest.fixture(scope="module")
def choice_words(glove_2k):
    return WordSet.random(glove_2k, CHOICE_WORDS, seed=5)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_choose_metrics_on_a_cluster_equal_the_in_process_metrics(dask_client, glove_2k, choice_words, mechanism):
    here = mechanism_metrics(glove_2k, choice_words, CHOICE_EPSILONS, mechanism, CHOICE_SAMPLES, rng=11)
    there = mechanism_metrics(glove_2k, choice_words, CHOICE_EPSILONS, mechanism, CHOICE_SAMPLES, rng=11,
                              client=dask_client)
    assert not here.exact
    for table in ("values", "standard_errors", "per_word"):
        a, b = getattr(here, table), getattr(there, table)
        assert a.keys() == b.keys()
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=f"{table}[{name}]")
    for name in here.bands:
        for a, b in zip(here.bands[name], there.bands[name], strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"bands[{name}]")
    assert here.to_dict() == there.to_dict()


def test_choose_epsilon_csv_on_a_cluster_equals_the_in_process_csv(dask_client, glove_2k, choice_words):
    args = (glove_2k, choice_words, CHOICE_EPSILONS, MECHANISMS, CHOICE_SAMPLES)
    here = choose_epsilon(*args, targets=Targets(), seed=2)
    there = choose_epsilon(*args, targets=Targets(), seed=2, client=dask_client)
    assert here.to_csv() == there.to_csv()
    assert here.per_word_csv() == there.per_word_csv()
    assert here.to_dict() == there.to_dict()


def test_a_space_built_in_memory_cannot_go_to_a_cluster(dask_client, line_space):
    with pytest.raises(ValueError, match="built in memory"):
        epsilon_sweep(line_space, [1.0], words=2, close=1, rng=0, client=dask_client)


# ----------------------------------------------------------------------------- the blocks
def _recorder(monkeypatch, module, calls):
    """Replace ``module.run_word_blocks`` by a wrapper that records each task's words and seed (the
    space and the mechanism, a `SpaceSpec` and (name, parameters) on a cluster, are left out)."""
    real = module.run_word_blocks

    def describe(value):
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, np.random.SeedSequence):
            return value.entropy, value.spawn_key
        if isinstance(value, (int, float, np.integer, np.floating)):
            return value
        return None

    def recording(client, function, tasks, progress=None):
        tasks = [tuple(task) for task in tasks]
        calls.append((function.__name__, [[describe(v) for v in task] for task in tasks]))
        return real(client, function, tasks, progress)

    monkeypatch.setattr(module, "run_word_blocks", recording)


def test_block_sizes_and_seeds_do_not_depend_on_the_client(dask_client, glove_2k, choice_words, monkeypatch):
    # the block size is a function of the study's size alone: nothing else can change it
    assert list(inspect.signature(words_per_block).parameters) == ["outputs_per_word"]
    assert list(inspect.signature(sweep_words_per_block).parameters) == ["outputs_per_word"]
    assert list(inspect.signature(word_blocks).parameters) == ["count", "per_block"]
    runs = {}
    for where, client in (("here", None), ("there", dask_client)):
        calls = runs[where] = []
        for module in (experiments, choice_metrics, table2_module):
            _recorder(monkeypatch, module, calls)
        epsilon_sweep(glove_2k, SWEEP_EPSILONS, SWEEP_WORDS, rng=1, samples_per_word=SWEEP_SAMPLES, client=client)
        mechanism_metrics(glove_2k, choice_words, CHOICE_EPSILONS, "postprocessing-fix", CHOICE_SAMPLES, rng=1,
                          client=client)
        neighbour_distances(glove_2k, 600, rng=1, client=client)
        monkeypatch.undo()
    assert [name for name, _ in runs["here"]] == ["sweep_block", "sampled_block_metrics", "neighbour_block"]
    assert [len(tasks) for _, tasks in runs["here"]] == [3, 2, 3]
    assert runs["here"] == runs["there"]


def test_block_seeds_come_from_the_callers_generator_and_differ_between_blocks():
    a, b = block_seeds(np.random.default_rng(4), 3), block_seeds(np.random.default_rng(4), 3)
    assert [s.spawn_key for s in a] == [(0,), (1,), (2,)]
    assert all(s.entropy == a[0].entropy for s in a) and a[0].entropy == b[0].entropy
    first = [np.random.default_rng(s).random(4).tolist() for s in a]
    assert first == [np.random.default_rng(s).random(4).tolist() for s in b]  # reproducible
    assert len({tuple(x) for x in first}) == 3  # independent streams, not one stream three times
    assert block_seeds(np.random.default_rng(5), 1)[0].entropy != a[0].entropy
    # spawn(n)[b] does not depend on n: more blocks never reseed the first ones
    assert block_seeds(np.random.default_rng(4), 5)[1].generate_state(4).tolist() == a[1].generate_state(4).tolist()


def test_a_sweep_of_many_blocks_follows_the_exact_law_on_a_line(line_space, line_law):
    """Repeated words spread over several blocks (each with its own generator): the proportions of
    the multivariate Laplace mechanism on five words on a line against its exact output law
    (tests/conftest.py `line_probabilities`), within 4 standard deviations."""
    words, per_word, eps_grid = ["c", "a"] * 400, 20, [0.5, 1.5]
    assert len(word_blocks(len(words), sweep_words_per_block(len(eps_grid) * per_word))) == 4
    s = epsilon_sweep(line_space, eps_grid, words=words, close=1, samples_per_word=per_word, rng=9)
    rank_c, rank_a = np.array([3, 1, 0, 2, 4]), np.array([0, 1, 2, 3, 4])
    n = len(words) * per_word
    for j, eps in enumerate(eps_grid):
        pc, pa = line_law(2, eps), line_law(0, eps)
        for name, rule in (("original", lambda r: r == 0), ("close", lambda r: r == 1), ("distant", lambda r: r > 1)):
            p1, p2 = pc[rule(rank_c)].sum(), pa[rule(rank_a)].sum()
            sd = math.sqrt((p1 * (1 - p1) + p2 * (1 - p2)) / 2 / n)
            assert abs(s.proportions[name][j] - (p1 + p2) / 2) <= 4 * sd + 1e-12, (eps, name)


def test_space_spec_of_a_loaded_space_names_how_to_load_it_again(glove_small):
    assert SpaceSpec.of(glove_small) == SpaceSpec(None, 20000)


# ----------------------------------------------------------------------------- a task that kills its workers
@pytest.fixture(scope="module")
def fragile_cluster():
    """A 1-worker local cluster whose scheduler gives up on a task the first time its worker dies
    (Dask's default retries 3 times; the outcome is the same, only slower)."""
    import dask
    from dask.distributed import Client, LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        yield client


def _kill_the_worker(*_):  # pickled by value (a function of this test module): the worker dies running it
    import os

    os._exit(1)


@pytest.mark.parametrize("runner", ["run_tasks", "stream_tasks"])
def test_a_task_that_kills_every_worker_gives_a_one_line_value_error(fragile_cluster, runner):
    # Before: Dask's KilledWorker reached the CLI as a traceback instead of exit 2 with one line.
    from privlib.words import cluster

    fragile_cluster.wait_for_workers(1, timeout=60)
    with pytest.raises(ValueError, match="every worker that ran it died") as caught:
        if runner == "run_tasks":
            cluster.run_tasks(fragile_cluster, _kill_the_worker, [(1,)])
        else:
            list(cluster.stream_tasks(fragile_cluster, _kill_the_worker, [1], lambda item: (item,)))
    assert "\n" not in str(caught.value)
