"""Work spread over a Dask cluster: the client, the embedding on each worker, ordered task results.

Dask (``dask.distributed``) is imported only here and only when a cluster is asked for: without
one, every function of privlib runs in-process as before. The same code runs on a laptop's
processes (``workers=N``: a ``LocalCluster`` of N worker processes) or on a cluster (``scheduler=
"tcp://host:port"``).

The embedding is never shipped with the tasks: a task carries a `SpaceSpec` (which embedding, which
vocabulary size), and each worker process loads the space once (`SpaceSpec.load`, cached per
process) and keeps it for every later task.
"""
from __future__ import annotations

import contextlib
import functools
import logging
from collections import deque
from dataclasses import dataclass

from privlib.words.search import THREADS_VARIABLE

#: The environment of a local cluster's worker processes: one search thread each (a worker runs one
#: task at a time; N workers share the machine's cores), see `privlib.words.search.THREADS_VARIABLE`.
#: Workers of another cluster: start them with PRIVLIB_THREADS set to their threads' share of cores.
LOCAL_WORKER_ENVIRONMENT = {THREADS_VARIABLE: "1"}
#: Seconds to wait for a scheduler given by address before saying it cannot be reached.
CONNECT_TIMEOUT = 10


@dataclass(frozen=True)
class SpaceSpec:
    """Which embedding space a task works on: ``embeddings`` (a file path; None: the built-in GloVe
    6B 50d) and ``vocab_size`` (its N first rows; None: all). Small and picklable, unlike the space."""

    embeddings: str | None = None
    vocab_size: int | None = None

    def load(self):
        """The space, loaded once per process (every later call in the same process returns it)."""
        return _load_space(self.embeddings, self.vocab_size)

    @classmethod
    def of(cls, space) -> "SpaceSpec":
        """The spec a space was loaded from (`EmbeddingSpace.source`), or ValueError when it was
        built in memory (then there is nothing a worker could load)."""
        source = getattr(space, "source", None)
        if source is None:
            raise ValueError("This embedding was built in memory: a cluster's workers cannot load it. "
                             "Load it from a file (EmbeddingSpace.from_file) or use the built-in GloVe.")
        return cls(*source)


@functools.lru_cache(maxsize=2)
def _load_space(embeddings: str | None, vocab_size: int | None):
    from privlib.words.embeddings import EmbeddingSpace

    if embeddings is None:
        return EmbeddingSpace.glove_6b_50d(vocab_size=vocab_size)
    return EmbeddingSpace.from_file(embeddings, vocab_size=vocab_size)


#: Threads of each worker process of a local cluster (`open_client` with ``workers``).
LOCAL_THREADS_PER_WORKER = 1


@contextlib.contextmanager
def open_client(scheduler: str | None = None, workers: int | None = None):
    """A ``dask.distributed.Client`` for the duration of the block, or None (in-process) when neither
    ``scheduler`` (an address such as ``tcp://host:8786``) nor ``workers`` (start a local cluster of
    that many single-threaded worker processes) is given. ValueError (one line: what to do) when
    both are given, when Dask is not installed or when the scheduler cannot be reached."""
    if scheduler is not None and workers is not None:
        raise ValueError("Give either --scheduler (an existing cluster) or --workers (a local one), not both.")
    if scheduler is None and workers is None:
        yield None
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - dask is a requirement; kept for slim installs
        raise ValueError("Running on a cluster needs Dask: pip install 'dask[distributed]'.") from exc
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"Cannot reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT} s: "
                             "check the address and that the scheduler is running.") from exc
        with client:
            yield client
        return
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}.")
    # one thread per worker process: numpy's own threads and the search's pool share the cores;
    # the scheduler's HTTP server on any free port (None still means 8787, and a second cluster on
    # the machine then warns on stderr that the port is taken); Dask's own log lines off (a
    # heartbeat that a busy machine delays is logged as an error and retried): what fails for good
    # reaches the command as an exception, said in one line (`lost_workers_said`)
    with LocalCluster(n_workers=workers, threads_per_worker=LOCAL_THREADS_PER_WORKER, processes=True,
                      dashboard_address=":0", env=LOCAL_WORKER_ENVIRONMENT,
                      silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as client:
        yield client


def run_tasks(client, function, tasks, progress=None) -> list:
    """``[function(*task) for task in tasks]``, in order: in this process when ``client`` is None,
    else one Dask task each, spread over the workers (a task lost with its worker is run again by
    Dask; functions must be deterministic in their arguments). ``progress(done, total)`` is called as
    results arrive."""
    tasks = [tuple(task) for task in tasks]
    total = len(tasks)
    if client is None:
        out = []
        for task in tasks:
            out.append(function(*task))
            if progress is not None:
                progress(len(out), total)
        return out
    from dask.distributed import as_completed

    futures = [client.submit(function, *task, pure=False) for task in tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * total
    with lost_workers_said():
        for done, (future, value) in enumerate(as_completed(futures, with_results=True), start=1):
            results[index[future.key]] = value
            if progress is not None:
                progress(done, total)
    return results


@contextlib.contextmanager
def lost_workers_said():
    """Dask's KilledWorker — a task whose worker died while running it more often than the
    scheduler allows (``distributed.scheduler.allowed-failures``, 3 by default), e.g. a worker
    that runs out of memory on it each time — as a one-line ValueError that says what to do (the
    CLI then exits 2 with it, as for any other bad run)."""
    from distributed import KilledWorker

    try:
        yield
    except KilledWorker:
        raise ValueError(
            "The cluster gave up on a task: every worker that ran it died (for example out of memory). "
            "Give the workers more memory (for sanitize-corpus, or a smaller --partition-size), then run again."
        ) from None


def stream_tasks(client, function, items, arguments, window: int | None = None):
    """``(item, function(*arguments(item)))`` for each item of the iterable ``items``, in order,
    reading ``items`` lazily: for a stream too long to hold (10^7 documents in partitions).

    In this process when ``client`` is None (one item at a time). On a cluster, at most
    ``window`` tasks are submitted and not yet yielded (default: two per worker thread, so each
    worker has the next task queued while it runs one), hence at most that many items are held
    here at once; results are yielded in input order as the oldest task finishes (later ones keep
    running meanwhile). A task lost with its worker is run again by Dask: ``function`` must be a
    pure function of its arguments, so the retried result is the same. If the consumer stops
    early (an exception), the tasks still running are cancelled."""
    if client is None:
        for item in items:
            yield item, function(*arguments(item))
        return
    if window is None:
        window = 2 * max(1, sum(client.nthreads().values()))
    running: deque = deque()  # (item, future), oldest first
    try:
        for item in items:
            running.append((item, client.submit(function, *arguments(item), pure=False)))
            if len(running) >= window:
                oldest, future = running.popleft()
                with lost_workers_said():
                    value = future.result()
                yield oldest, value
        while running:
            oldest, future = running.popleft()
            with lost_workers_said():
                value = future.result()
            yield oldest, value
    finally:
        for _, future in running:
            future.cancel()
