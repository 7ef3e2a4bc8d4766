"""How long a privacy–utility sweep (`privlib.projections.sweep.sweep`) will take, before running it:
the CLI refuses work estimated above a minute unless asked (``rp-sweep --allow-long``).

The model counts the sweep's work (our addition, not in the paper). For each repetition: one
projection of the N = n_db + n_queries rows per projection kind (N·p·k multiply-adds), the two
non-private retrievals, and one release and one retrieval per mechanism and ε. A release draws
N·w values (w: the released width, k — or p for Raw-data-G-OPT); a retrieval scores every
(query, database row) pair: n_queries·n_db scores, each of w multiply-adds. Work is spread over
the sweep's threads (`privlib.projections.sweep.workers`).

The seconds per unit (`Rates`) were measured once, single-threaded, on the project's 2-core
machine (``MEASURED``); the estimate is rough (within a factor of about 2 on an idle machine, more
under load), enough to tell seconds from minutes from hours. Tests pass their own `Rates`, so an
estimate never depends on the machine's load.
"""
from __future__ import annotations

from dataclasses import dataclass

from privlib.core.validation import check_positive_int
from privlib.projections.datasets import Dataset, load_dataset
from privlib.projections.sweep import query_subset, resolve_mechanisms, workers


@dataclass(frozen=True)
class Rates:
    """Seconds per unit of work, on one thread: a scored (query, database row) pair (ranking and
    precision@R), a multiply-add (projections and similarities, BLAS), a released value (noise or
    coins, the exact flip law) and the fixed cost of one release (checks, public parameters, a
    thread-pool task)."""

    seconds_per_score: float = 12e-9
    seconds_per_multiply_add: float = 0.1e-9
    seconds_per_value: float = 50e-9
    seconds_per_release: float = 3e-3


#: The rates measured on the project's machine (see the module docstring).
MEASURED = Rates()


@dataclass(frozen=True)
class SweepWork:
    """The size of a sweep: rows released, queries and database rows scored, the dimension, the
    released widths of one release per (mechanism, ε) cell of a repetition, the projections drawn
    per repetition, and the repetitions."""

    rows: int
    n_queries: int
    n_db: int
    p: int
    k: int
    widths: tuple[int, ...]
    projections: int
    repeats: int

    def seconds(self, rates: Rates = MEASURED, threads: int | None = None) -> float:
        """Estimated wall-clock seconds on ``threads`` threads (default: the sweep's)."""
        threads = check_positive_int(threads if threads is not None else workers(), "threads")
        pairs = self.n_queries * self.n_db
        # the non-private RP and SignRP retrievals have width k, like most releases
        retrievals = (*self.widths, self.k, self.k)
        per_repetition = (
            self.projections * self.rows * self.p * self.k * rates.seconds_per_multiply_add
            + sum(pairs * (rates.seconds_per_score + w * rates.seconds_per_multiply_add) for w in retrievals)
            + sum(self.rows * w * rates.seconds_per_value for w in self.widths)
            + len(retrievals) * rates.seconds_per_release
        )
        # the true neighbours (cosine on the raw data) are found once, before the repetitions
        truth = pairs * (rates.seconds_per_score + self.p * rates.seconds_per_multiply_add)
        return (truth + self.repeats * per_repetition) / threads

    def nbytes(self, threads: int | None = None) -> float:
        """Estimated peak bytes of the arrays the sweep holds (float64, 8 bytes a value): each kind
        of projection (p·k) and its projected rows (rows·k), kept for the whole repetition; and on
        each of ``threads`` threads (default: the sweep's) one release at a time — the released
        rows (rows·w), their unit-norm copy, the (query, database row) scores and the retrieved
        mask. The data itself is already loaded. A float, so that absurd sizes cannot overflow."""
        threads = check_positive_int(threads if threads is not None else workers(), "threads")
        widest = float(max((*self.widths, self.k)))
        pairs = float(self.n_queries) * self.n_db
        kept = self.projections * (float(self.p) * self.k + float(self.rows) * self.k)
        per_release = 2.0 * self.rows * widest + pairs + pairs / 8.0  # bools: 1 byte each, 1/8 of a value
        return 8.0 * (kept + threads * per_release)


def sweep_work(data, mechanisms, epsilons: int, *, repeats: int, k: int, queries: int | None = None) -> SweepWork:
    """The `SweepWork` of ``sweep(data, mechanisms, <epsilons values>, repeats=..., k=...,
    queries=...)``; ``data`` a `Dataset` or a dataset name. Raw-data-G-OPT releases p values per
    row, every other mechanism k; each kind of projection is drawn once per repetition, plus the
    Gaussian one of the non-private levels."""
    data = data if isinstance(data, Dataset) else load_dataset(data)
    classes = resolve_mechanisms(mechanisms)
    epsilons = check_positive_int(epsilons, "epsilons (the number of ε values)")
    k = check_positive_int(k, "k (the number of projections)")
    n_queries = int(query_subset(data.n_queries, queries).size)
    widths = tuple(data.p if cls.kind is None else k for cls in classes for _ in range(epsilons))
    kinds = {cls.kind for cls in classes if cls.kind is not None} | {"gaussian"}
    return SweepWork(rows=data.n_db + n_queries, n_queries=n_queries, n_db=data.n_db, p=data.p, k=k, widths=widths,
                     projections=len(kinds), repeats=check_positive_int(repeats, "repeats"))


def sweep_seconds(data, mechanisms, epsilons: int, *, repeats: int, k: int, queries: int | None = None,
                  rates: Rates = MEASURED, threads: int | None = None) -> float:
    """Estimated seconds of a sweep (`sweep_work` at ``rates`` on ``threads`` threads)."""
    return sweep_work(data, mechanisms, epsilons, repeats=repeats, k=k, queries=queries).seconds(rates, threads)
