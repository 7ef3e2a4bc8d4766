"""The privacy–utility sweep: retrieval precision@R of each mechanism over a grid of ε (§5.1,
Figs. 10–13 and 15 of Li & Li, "Differential Privacy with Random Projections and Sign Random
Projections").

Protocol (§5.1): the truth is each query's top R database vectors by cosine similarity of the raw
data; the database and the queries are both released by the mechanism (each vector carries its own
guarantee); released real vectors are ranked by cosine similarity, released sign bits by Hamming
distance (ties to the lower index, ``estimators.retrieve``); precision@R is averaged over the
queries, then over repetitions. Chance is R/n_db.

``sweep(data, mechanisms, epsilons, *, repeats, seed, progress, …)`` returns the library's one
`privlib.core.sweep.SweepResult` (mechanism × ε × repetition × `METRICS`); `table_rows`,
`report_dict` (the ``rp-sweep`` JSON) and `combine` read it.

Cost (our addition, not in the paper): the projection depends only on the public configuration, so
it is drawn and applied ONCE per (repetition, configuration) and shared by every mechanism and every
ε that use it; for each ε only the noise or the coins and the ranking are redrawn
(``release_projected``). Each repetition draws a new projection. Every draw has its own stream,
``child_rng(seed, tag, repetition, …)`` (`privlib.core.sweep.child_rng`; the mechanism's name and ε
for the noise), so a mechanism's results at one ε do not depend on which other mechanisms or ε
values are in the sweep.
"""
from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from privlib.core.randomised_response import binary_flip_probability
from privlib.core.sweep import Progress, SweepResult, child_rng, child_seed_sequence, empty_values
from privlib.core.threads import available_cores, single_threaded_blas
from privlib.core.validation import check_delta, check_epsilons, check_positive_int, check_range, check_seed, shown
from privlib.projections.datasets import Dataset, load_dataset
from privlib.projections.estimators import true_neighbours
from privlib.projections.mechanisms import MECHANISMS, ProjectionMechanism, signs_with_coins
from privlib.projections.projection import make_projection

#: The ε grid of the default sweep: 12 values from 0.05 to 100 (log-spaced, 1-2-5 per decade, plus 15).
DEFAULT_EPSILONS: tuple[float, ...] = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 50.0, 100.0)
#: Every mechanism that is differential privacy (iDP-SignRP is not: Def 2.6), in the paper's order.
DP_MECHANISMS: tuple[str, ...] = tuple(name for name, cls in MECHANISMS.items() if cls.is_dp)
#: The individual-DP mechanisms (NOT DP; Alg 9–11).
IDP_MECHANISMS: tuple[str, ...] = tuple(name for name, cls in MECHANISMS.items() if not cls.is_dp)
#: Bits of one float64 number, for "bits per vector" of real outputs.
FLOAT_BITS = 64

#: The metrics of a sweep, per mechanism, ε and repetition: "precision" is precision@R (R is
#: ``settings["R"]``); "expected_flipped_bits" the exact expected number of released bits per
#: vector that differ from sgn(x_j) (sign outputs; NaN for real ones); "sigma", "epsilon_per_bit",
#: "laplace_scale" and "delta2" the public numbers of the release (NaN where the mechanism has
#: none; Δ₂ is the realised one of that repetition's projection); "bits_per_vector" the size of one
#: released vector (64 per float64 value, 1 per sign bit).
METRICS: tuple[str, ...] = ("precision", "expected_flipped_bits", "sigma", "epsilon_per_bit", "laplace_scale",
                            "delta2", "bits_per_vector")
#: Keys of ``SweepResult.reference``: the non-private RP and SignRP precision@R (mean over the
#: repetitions) and chance, R/n_db.
NONPRIVATE_RP, NONPRIVATE_SIGNRP, CHANCE = "nonprivate_rp", "nonprivate_signrp", "chance"

# The first key after the seed of every stream of a sweep: what the stream is for.
_TAG_PROJECTION, _TAG_NOISE, _TAG_NONPRIVATE = 1, 2, 3


def workers() -> int:
    """Threads of a sweep: one per core (at most 4)."""
    return min(available_cores(), 4)


def repetition_seed(seed: int, rep: int) -> int:
    """The public projection seed of repetition ``rep`` (our convention): the first word of
    SeedSequence((seed, 1, rep))."""
    return int(child_seed_sequence(seed, _TAG_PROJECTION, rep).generate_state(1, dtype=np.uint32)[0])


def noise_generator(seed: int, rep: int, name: str, epsilon: float) -> np.random.Generator:
    """The generator of the noise / coins of one (repetition, mechanism, ε) release:
    ``child_rng(seed, 2, rep, name, ε)`` (ε keyed by its bits, the name by its CRC-32), so a
    result at one ε depends neither on the rest of the grid nor on the other mechanisms."""
    return child_rng(seed, _TAG_NOISE, rep, name, float(epsilon))


def resolve_mechanisms(mechanisms) -> tuple[type[ProjectionMechanism], ...]:
    """Mechanism classes from names (a list, or a comma-separated string where "dp" means every DP
    mechanism, "idp" both individual-DP ones and "all" all of them) or from `ProjectionMechanism`
    subclasses themselves; ValueError for unknown names, repeats removed, order kept."""
    if isinstance(mechanisms, str):
        mechanisms = [m.strip() for m in mechanisms.split(",") if m.strip()]
    classes: list[type[ProjectionMechanism]] = []
    groups = {"dp": DP_MECHANISMS, "idp": IDP_MECHANISMS, "all": DP_MECHANISMS + IDP_MECHANISMS}
    for item in mechanisms or []:
        if isinstance(item, type) and issubclass(item, ProjectionMechanism):
            found = [item]
        else:
            found = []
            for name in groups.get(item, (item,)):
                if name not in MECHANISMS:
                    raise ValueError(f"Unknown mechanism {shown(name)}: choose among {', '.join(MECHANISMS)} "
                                     "(or dp, idp, all).")
                found.append(MECHANISMS[name])
        classes.extend(cls for cls in found if cls not in classes)
    if not classes:
        raise ValueError("Give at least one mechanism (e.g. dp-oporp, or 'dp' for every DP mechanism).")
    names = [cls.name for cls in classes]
    if len(set(names)) != len(names):
        raise ValueError(f"Two mechanisms share a name: {names}.")
    return tuple(classes)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to norm 1; a zero row stays zero (cosine 0 with everything)."""
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
    return np.divide(matrix, norms, out=np.zeros(matrix.shape), where=norms > 0)


def similarity_scores(database_released, queries_released, metric: str) -> np.ndarray:
    """(n_queries, n_db) scores, larger = nearer: cosine similarities (float64) for real outputs,
    or k − 2·Hamming distance for ±1 bits (exact small integers, int16 for k < 2¹⁵)."""
    if metric == "cosine":
        database = _unit_rows(np.asarray(database_released, dtype=np.float64))
        queries = _unit_rows(np.asarray(queries_released, dtype=np.float64))
        return queries @ database.T
    if metric == "hamming":
        # ±1 products summed in float32 are exact integers for k < 2**24
        database = np.asarray(database_released, dtype=np.float32)
        queries = np.asarray(queries_released, dtype=np.float32)
        return (queries @ database.T).astype(np.int16 if database.shape[1] < 2**15 else np.int32)
    raise ValueError(f"Unknown metric {metric!r}: use 'cosine' for real outputs or 'hamming' for sign bits.")


def precision_from_scores(truth: np.ndarray, scores: np.ndarray, R: int) -> float:
    """precision@R of the ranking by ``scores`` (larger first, ties to the lower index) against
    ``truth`` ((n_queries, R) true neighbour indices), averaged over queries.

    The same number as ``estimators.precision_at(truth, estimators.retrieve(...))`` (the §5.1
    protocol), computed without sorting or partitioning whole rows (our addition, for speed):

    1. a lower bound L on each row's R-th largest score: cut the row into G ≥ R groups (columns
       g, g + G, g + 2G, …); the R-th largest of the G group maxima is ≤ the R-th largest score,
       since R different groups each hold a score at least that large;
    2. only the candidates (scores ≥ L, typically a few times R per row) can be retrieved; the
       R-th largest candidate is the threshold τ;
    3. the retrieved items are the scores above τ, then the scores equal to τ in index order until
       R are taken (a stable ranking);
    4. a true neighbour counts if it is among the retrieved candidates (a binary search in them,
       not a mask of every pair).
    """
    nq, n = scores.shape
    groups = min(n, 4 * R)
    width = n // groups
    bound = scores[:, : groups * width].reshape(nq, width, groups).max(axis=1)
    if groups * width < n:  # the last n mod G columns join the first groups
        tail = scores[:, groups * width:]
        bound[:, : tail.shape[1]] = np.maximum(bound[:, : tail.shape[1]], tail)
    low = np.partition(bound, groups - R, axis=1)[:, groups - R][:, None]
    flat = np.flatnonzero(scores >= low)  # the candidates, row by row, increasing column within a row
    rows = flat // n
    values = scores.reshape(-1)[flat]
    counts = np.bincount(rows, minlength=nq)
    position = np.arange(rows.size) - (np.cumsum(counts) - counts)[rows]
    width = int(counts.max())
    fill = np.iinfo(scores.dtype).min if np.issubdtype(scores.dtype, np.integer) else -np.inf
    packed = np.full((nq, width), fill, dtype=scores.dtype)
    packed[rows, position] = values
    threshold = np.partition(packed, width - R, axis=1)[:, width - R][rows]
    above = values > threshold
    tied = values == threshold
    budget = R - np.bincount(rows[above], minlength=nq)
    tied_per_row = np.bincount(rows[tied], minlength=nq)
    tie_rank = np.cumsum(tied) - (np.cumsum(tied_per_row) - tied_per_row)[rows]  # 1 = the row's first tie
    take = above | (tied & (tie_rank <= budget[rows]))
    # a true neighbour is retrieved iff it is a candidate that is taken: find it among the candidates
    wanted = (np.arange(nq)[:, None] * n + truth).reshape(-1)
    place = np.minimum(np.searchsorted(flat, wanted), flat.size - 1)
    return float(((flat[place] == wanted) & take[place]).sum() / (nq * R))


def retrieval_precision(truth, database_released, queries_released, R: int, metric: str) -> float:
    """precision@R of released vectors (§5.1): cosine for real outputs, Hamming for bits."""
    return precision_from_scores(np.asarray(truth), similarity_scores(database_released, queries_released, metric), R)


def query_subset(n_queries: int, count: int | None) -> np.ndarray:
    """Indices of ``count`` queries spread evenly over the query set (all of them for None), so a
    query set ordered by class keeps every class (our addition, for speed)."""
    if count is None or count >= n_queries:
        return np.arange(n_queries)
    count = check_positive_int(count, "queries (the number of queries used)")
    return np.unique(np.round(np.linspace(0, n_queries - 1, count)).astype(np.int64))


def expected_flipped_bits(plus_probabilities: np.ndarray, projected: np.ndarray) -> float:
    """The expected number of released bits that differ from sgn(x_j), averaged over vectors:
    Σ_j P(bit ≠ sgn x_j), with a coin (½) where x_j = 0. Exact, from the output law."""
    wrong = np.where(projected > 0, 1.0 - plus_probabilities, plus_probabilities)
    wrong[projected == 0] = 0.5  # usually few: one masked write beats a second full np.where
    return float(wrong.sum(axis=1).mean())


@dataclass(frozen=True)
class RetrievalTask:
    """The retrieval task of §5.1 on one dataset: ``rows`` are released (the database, then the
    queries used), ``truth`` holds each query's top R database rows by cosine similarity of the raw
    data; `precision` scores released rows against it."""

    rows: np.ndarray
    n_db: int
    truth: np.ndarray
    R: int

    @property
    def n_queries(self) -> int:
        return int(self.rows.shape[0] - self.n_db)

    def precision(self, released: np.ndarray, metric: str) -> float:
        """precision@R of released rows (cosine for real outputs, "hamming" for sign bits)."""
        return retrieval_precision(self.truth, released[: self.n_db], released[self.n_db:], self.R, metric)


def retrieval_task(data: Dataset, R: int, queries: int | None = None, true: int | None = None) -> RetrievalTask:
    """The task on ``data`` with ``queries`` queries spread over the query set (`query_subset`);
    ``true``: the number of true neighbours per query (each query's top ``true``; default R)."""
    Q = data.Q[query_subset(data.n_queries, queries)]
    return RetrievalTask(rows=np.concatenate([data.X, Q], axis=0), n_db=data.n_db,
                         truth=true_neighbours(data.X, Q, R if true is None else true), R=R)


def nonprivate_levels(task: RetrievalTask, p: int, k: int, seed: int, rep: int, pool) -> tuple[float, float]:
    """precision@R of repetition ``rep`` without privacy: a Gaussian projection of the same k (the
    projection seed of the repetition) ranked by cosine (RP), and its signs ranked by Hamming
    distance (SignRP; a projection of exactly 0 is a coin from ``child_rng(seed, 3, rep)``)."""
    gaussian = make_projection("gaussian", p, k, repetition_seed(seed, rep)).apply(task.rows)
    signs = signs_with_coins(gaussian, child_rng(seed, _TAG_NONPRIVATE, rep))
    rp = pool.submit(task.precision, gaussian, "cosine")
    signrp = pool.submit(task.precision, signs, "hamming")
    return rp.result(), signrp.result()


def _number(value) -> float:
    return math.nan if value is None else float(value)


def release_metrics(mech: ProjectionMechanism, projected: np.ndarray, rng, task: RetrievalTask,
                    needs_rows: bool) -> tuple[np.ndarray, str]:
    """One release at one ε from the projected rows: the values of `METRICS` and the guarantee."""
    released = mech.release_projected(projected, rng, X=task.rows if needs_rows else None)
    sign = mech.output == "sign"
    precision = task.precision(released.values, "hamming" if sign else "cosine")
    flipped = expected_flipped_bits(mech.plus_probabilities(projected), projected) if sign else math.nan
    width = int(released.values.shape[1])
    public = released.public
    values = np.array([precision, flipped, _number(released.sigma), _number(released.epsilon_per_bit),
                       _number(public.get("laplace_scale")), _number(public.get("delta2")),
                       width if sign else FLOAT_BITS * width])
    return values, released.guarantee


def build_mechanism(cls, epsilon: float, *, delta, **settings) -> ProjectionMechanism:
    """The mechanism ``cls`` at ``epsilon`` and ``delta`` (unused by the ε-DP ones), given the
    sweep's other settings that it takes (its ``PARAMETERS``)."""
    return cls(epsilon=epsilon, delta=delta, **{key: value for key, value in settings.items() if key in cls.PARAMETERS})


def _configuration(mechanism, p: int) -> tuple:
    """The public configuration that determines ``project(X)``: the projections' kind, k, seed, s
    (Raw-data-G-OPT has none: the data itself)."""
    return tuple((proj.kind, proj.k, proj.seed, proj.s) for proj in mechanism.projections(p)) or ("raw",)


def submit_releases(pool, classes, epsilons, task: RetrievalTask, settings: dict, seed: int, rep: int,
                    projections: ProjectedRows | None = None) -> list:
    """Submit every (mechanism, ε) release of repetition ``rep`` to ``pool``: [(i, j, future)].

    The projection depends only on the public configuration, so it is drawn and applied once per
    configuration and shared by every mechanism and ε that use it (and, given ``projections``, by
    the other sweeps of the same task: a page sweeps one mechanism at a time); each release draws
    only its noise or coins, from `noise_generator`."""
    rep_settings = {**settings, "seed": repetition_seed(seed, rep)}
    projections = ProjectedRows() if projections is None else projections
    futures = []
    for i, cls in enumerate(classes):
        first = build_mechanism(cls, epsilons[0], **rep_settings)
        projected = projections.get(_configuration(first, settings["p"]), partial(first.project, task.rows))
        needs_rows = getattr(first, "m", 0) > 0  # a public norm bound is enforced on the rows
        for j, eps in enumerate(epsilons):
            mech = first if j == 0 else build_mechanism(cls, eps, **rep_settings)
            rng = noise_generator(seed, rep, cls.name, eps)
            futures.append((i, j, pool.submit(release_metrics, mech, projected, rng, task, needs_rows)))
    return futures


class ProjectedRows:
    """The projected rows of one retrieval task by public configuration (`_configuration`: the
    projections' kind, k, seed, s), each computed once and read-only; at most ``size`` kept (the
    oldest dropped first). Thread-safe: sessions of a page share one."""

    def __init__(self, size: int = 24):
        self.size = size
        self.lock = threading.Lock()
        self.rows: dict[tuple, np.ndarray] = {}

    def get(self, configuration: tuple, project) -> np.ndarray:
        """The rows projected under ``configuration``: kept ones, else ``project()`` (kept, read-only)."""
        with self.lock:
            found = self.rows.get(configuration)
        if found is not None:
            return found
        projected = project()
        projected.flags.writeable = False
        with self.lock:
            self.rows[configuration] = projected
            while len(self.rows) > self.size:
                del self.rows[next(iter(self.rows))]
        return projected


def _shared_key(data: Dataset, k: int, R: int, queries, true, repeats: int, seed: int) -> tuple:
    return (data.name, data.p, data.n_db, data.n_queries, k, R, queries, true, repeats, seed)


@dataclass(frozen=True)
class SharedReference:
    """What every mechanism of a sweep shares: the retrieval task (`retrieval_task`) and the
    non-private RP and SignRP levels of each repetition (`nonprivate_levels`). ``key`` names the
    settings it was computed for."""

    key: tuple
    task: RetrievalTask
    rp: tuple[float, ...]
    signrp: tuple[float, ...]
    #: The projected rows of each public configuration, shared by the sweeps that use this reference
    #: (DP-OPORP and the DP-SignOPORPs project the same OPORP: once per repetition, not once each).
    projections: ProjectedRows = field(default_factory=ProjectedRows, compare=False, repr=False)


def shared_reference(data, *, k: int = 32, R: int = 50, repeats: int = 3, seed: int = 0,
                     queries: int | None = None, true: int | None = None) -> SharedReference:
    """The retrieval task and non-private levels of a sweep (arguments as in `sweep`), computed once
    so that several one-mechanism sweeps (a page caching each mechanism on its own) share them
    instead of each redoing the truth's ranking and the non-private projections. Passing it to
    `sweep` as ``shared`` gives the same result as without it."""
    data = data if isinstance(data, Dataset) else load_dataset(data)
    k = check_positive_int(k, "k (the number of projections)")
    repeats = check_positive_int(repeats, "repeats (the number of repetitions)")
    seed = check_seed(seed)
    R = check_positive_int(R, "R (the number of neighbours retrieved)", maximum=data.n_db)
    if true is not None:
        true = check_positive_int(true, "true (the number of true neighbours per query)", maximum=data.n_db)
    task = retrieval_task(data, R, queries, true)
    with single_threaded_blas(), ThreadPoolExecutor(workers()) as pool:
        levels = [nonprivate_levels(task, data.p, k, seed, rep, pool) for rep in range(repeats)]
    return SharedReference(key=_shared_key(data, k, R, queries, true, repeats, seed), task=task,
                           rp=tuple(rp for rp, _ in levels), signrp=tuple(signrp for _, signrp in levels))


def sweep(data, mechanisms, epsilons=DEFAULT_EPSILONS, *, repeats: int = 3, seed: int = 0,
          progress: Progress | None = None, k: int = 32, t: int = 1, delta: float = 1e-6, beta: float = 1.0,
          m: float = 0.0, R: int = 50, projection: str = "rademacher", s: float = 3,
          queries: int | None = None, true: int | None = None,
          shared: SharedReference | None = None) -> SweepResult:
    """Retrieval precision@R against ε for each mechanism (§5.1; Figs. 10–13, 15), as a
    `SweepResult` of `METRICS`.

    ``data``: a `Dataset` or a name for ``datasets.load_dataset`` ("mnist", "digits",
    "synthetic"). ``mechanisms``: names (or a comma string; "dp" = every DP mechanism, "idp" the
    individual-DP ones, "all") or classes. ``k`` projections, ``t`` OPORP repetitions
    (DP-SignOPORP), ``delta`` for the (ε, δ)-DP mechanisms, ``beta`` the adjacency, ``m`` the
    public norm bound (DP-SignRP-RR), ``projection`` / ``s`` the projection of DP-RP-G-OPT-B.
    ``repeats`` repetitions, each with a new public projection; ``seed`` makes the whole sweep
    reproducible. ``queries``: use only that many queries, spread evenly over the query set
    (`query_subset`; default all). ``true``: how many neighbours count as true, each query's top
    ``true`` by cosine (default None: its top R, the §5.1 protocol). With ``true`` = T ≠ R, the
    precision metric is (# true among the R retrieved)/R and recall@R = that count/T = precision·R/T
    (§5.1's recall@R out of the top 50: T = 50, R = 10, 20, …; `recall_at_R`); chance precision is
    then T/n_db. ``progress(fraction, message)`` is called as the sweep advances. ``shared``: the
    task and non-private levels from `shared_reference` for the same data, k, R, true, queries,
    repeats and seed (ValueError otherwise), so one-mechanism sweeps need not redo them: the result
    is the same.

    ``reference`` holds the non-private levels (`NONPRIVATE_RP`, `NONPRIVATE_SIGNRP`: a Gaussian
    projection of the same k per repetition, ranked by cosine and by the Hamming distance of its
    signs; mean over the repetitions) and `CHANCE` (R/n_db); ``settings`` the data's shape and the
    parameters above, with each mechanism's output kind and whether it is DP (``"mechanisms"``)
    and the non-private levels of every repetition; ``guarantees[name]`` the guarantee at each ε.
    """
    data = data if isinstance(data, Dataset) else load_dataset(data)
    classes = resolve_mechanisms(mechanisms)
    names = tuple(cls.name for cls in classes)
    eps_grid = tuple(float(e) for e in check_epsilons(epsilons))
    if len(set(eps_grid)) != len(eps_grid):
        raise ValueError("The epsilon grid has repeated values: give each epsilon once.")
    k = check_positive_int(k, "k (the number of projections)")
    t = check_positive_int(t, "t (the number of OPORP repetitions)")
    repeats = check_positive_int(repeats, "repeats (the number of repetitions)")
    seed = check_seed(seed)
    R = check_positive_int(R, "R (the number of neighbours retrieved)", maximum=data.n_db)
    if true is not None:
        true = check_positive_int(true, "true (the number of true neighbours per query)", maximum=data.n_db)
    m = check_range(m, "m (the public lower bound on the norm of every vector; 0 = none)", low=0.0)
    delta = check_delta(delta)  # one δ for the sweep, checked even when every mechanism is ε-DP
    p = data.p
    settings = dict(k=k, t=t, beta=beta, m=m, p=p, projection=projection, s=s)
    # Validate every mechanism's parameters (and the data) before the long computation.
    prototypes = [build_mechanism(cls, eps_grid[0], delta=delta, seed=seed, **settings) for cls in classes]
    if shared is None:
        task = retrieval_task(data, R, queries, true)
    else:
        wanted = _shared_key(data, k, R, queries, true, repeats, seed)
        if shared.key != wanted or not np.array_equal(shared.task.rows[:data.n_db], data.X):
            raise ValueError("The shared reference was computed for other settings (data, k, R, true, queries, "
                             "repeats or seed): compute it with shared_reference for these.")
        task = shared.task
    for proto in prototypes:
        proto.check_data(task.rows)

    steps, done = repeats * (1 + len(names) * len(eps_grid)), 0

    def report(message):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / steps, message)

    values = empty_values(len(names), len(eps_grid), repeats, len(METRICS))
    guarantees = {name: [""] * len(eps_grid) for name in names}
    nonprivate = {"rp": [], "signrp": []}
    # Releases at different ε are independent (each has its own generator): they run on all cores,
    # each thread with a single-threaded BLAS; results are collected in order in this thread.
    with single_threaded_blas(), ThreadPoolExecutor(workers()) as pool:
        for rep in range(repeats):
            rp, signrp = (nonprivate_levels(task, p, k, seed, rep, pool) if shared is None
                          else (shared.rp[rep], shared.signrp[rep]))
            nonprivate["rp"].append(rp)
            nonprivate["signrp"].append(signrp)
            report(f"repetition {rep + 1}/{repeats}: non-private levels")
            for i, j, future in submit_releases(pool, classes, eps_grid, task, {**settings, "delta": delta}, seed, rep,
                                                None if shared is None else shared.projections):
                values[i, j, rep], guarantees[names[i]][j] = future.result()
                report(f"repetition {rep + 1}/{repeats}: {classes[i].label}, ε = {eps_grid[j]:g}")

    return SweepResult(
        mechanisms=names, epsilons=np.array(eps_grid), metrics=METRICS, values=values, seed=seed,
        labels={cls.name: cls.label for cls in classes},
        reference={NONPRIVATE_RP: float(np.mean(nonprivate["rp"])),
                   NONPRIVATE_SIGNRP: float(np.mean(nonprivate["signrp"])),
                   CHANCE: (R if true is None else true) / data.n_db},
        settings={"dataset": data.name, "p": p, "k": k, "n_db": data.n_db, "n_queries": task.n_queries, "R": R,
                  "true": true,
                  "delta": delta, "beta": float(prototypes[0].beta), "m": m, "t": t,
                  "projection": projection, "s": s,
                  "mechanisms": [{"name": cls.name, "label": cls.label, "output": cls.output, "is_dp": bool(cls.is_dp)}
                                 for cls in classes],
                  "nonprivate_per_repeat": nonprivate},
        guarantees=guarantees,
    )


# ------------------------------------------------------------------------------------------------
# Reading a sweep: the mechanisms' facts, the table at one ε, the rp-sweep JSON, combining sweeps
# ------------------------------------------------------------------------------------------------

def precision_label(result: SweepResult) -> str:
    """"precision@R" with the sweep's R (the name of its "precision" metric for people)."""
    return f"precision@{result.settings['R']}"


def mechanism_facts(result: SweepResult) -> dict[str, dict]:
    """{name: {name, label, output, is_dp}} of the sweep's mechanisms, in its order."""
    return {info["name"]: info for info in result.settings["mechanisms"]}


def epsilon_index(result: SweepResult, epsilon: float) -> int:
    """The position of ``epsilon`` in the sweep's grid (KeyError if the grid has no such ε)."""
    hit = np.flatnonzero(np.isclose(result.epsilons, epsilon, rtol=1e-12))
    if not hit.size:
        raise KeyError(f"The sweep has no epsilon = {epsilon:g}; its grid: "
                       f"{', '.join(f'{e:g}' for e in result.epsilons)}.")
    return int(hit[0])


def _optional(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def table_rows(result: SweepResult, epsilon: float) -> list[dict]:
    """One row per mechanism at ``epsilon`` (a grid value; KeyError otherwise) for the
    per-mechanism table: name, label, guarantee, is_dp, the public numbers of repetition 0 (σ,
    ε per bit, Laplace scale, Δ₂), the expected flipped bits and precision (means over the
    repetitions) and the bits per vector."""
    e = epsilon_index(result, epsilon)
    rows = []
    for name, info in mechanism_facts(result).items():
        first = {metric: _optional(result.per_repeat(name, metric)[e, 0]) for metric in METRICS}
        flips = result.mean(name, "expected_flipped_bits")[e]
        rows.append({"name": name, "label": info["label"], "guarantee": result.guarantees[name][e],
                     "is_dp": info["is_dp"], "sigma": first["sigma"], "eps_per_bit": first["epsilon_per_bit"],
                     "laplace_scale": first["laplace_scale"], "delta2": first["delta2"],
                     "expected_flips": _optional(flips), "bits": int(first["bits_per_vector"]),
                     "precision": float(result.mean(name, "precision")[e])})
    return rows


def recall_from_precision(precision: float, R: int, true: int) -> float:
    """recall@R = (# true neighbours among the R retrieved)/T = precision@R·R/T, for T = ``true``
    true neighbours per query (§5.1 reports recall@R out of the top 50: T = 50)."""
    return precision * R / true


#: The true neighbours of the paper's recall@R (§5.1): each query's top 50 by cosine.
TRUE_NEIGHBOURS = 50


def recall_at(result: SweepResult, epsilon: float) -> dict[str, float]:
    """{mechanism: recall@R at ``epsilon``} (mean over the repetitions) of a sweep run with
    ``true`` = T: the share of each query's top T found among the R retrieved, precision@R·R/T
    (`recall_from_precision`). ValueError for a sweep whose true neighbours are its top R (then
    recall = precision)."""
    true = result.settings.get("true")
    if true is None:
        raise ValueError("This sweep counts each query's top R as true (recall = precision): run it with true=T.")
    e = epsilon_index(result, epsilon)
    return {name: recall_from_precision(float(result.mean(name, "precision")[e]), result.settings["R"], true)
            for name in result.mechanisms}


def report_dict(result: SweepResult) -> dict:
    """The ``rp-sweep`` JSON: {dataset, p, k, n_db, n_queries, R, chance, reps, seed, delta, beta,
    m, t, projection, epsilons, nonprivate: {rp, signrp}, mechanisms: [...], results: [{mechanism,
    guarantee, epsilon, precision_at_R, sd}], details: [{mechanism, epsilon, sigma,
    epsilon_per_bit, laplace_scale, delta2, expected_flipped_bits, bits_per_vector, per_rep}]}.
    The public numbers are those of repetition 0; precision and flipped bits are means (sd: the
    sample SD, None with one repetition)."""
    st = result.settings
    key = f"precision_at_{st['R']}"
    true = st.get("true")  # None: the true neighbours are each query's top R (the default output)
    results, details = [], []
    for name in result.mechanisms:
        for e, eps in enumerate(result.epsilons):
            per_rep = np.array(result.per_repeat(name, "precision")[e])
            flips = np.array(result.per_repeat(name, "expected_flipped_bits")[e])
            first = {metric: _optional(result.per_repeat(name, metric)[e, 0]) for metric in METRICS}
            results.append({"mechanism": name, "guarantee": result.guarantees[name][e], "epsilon": float(eps),
                            key: float(per_rep.mean()),
                            "sd": float(per_rep.std(ddof=1)) if per_rep.size > 1 else None})
            if true is not None:
                results[-1][f"recall_at_{st['R']}"] = recall_from_precision(float(per_rep.mean()), st["R"], true)
            details.append({"mechanism": name, "epsilon": float(eps), "sigma": first["sigma"],
                            "epsilon_per_bit": first["epsilon_per_bit"], "laplace_scale": first["laplace_scale"],
                            "delta2": first["delta2"],
                            "expected_flipped_bits": None if np.isnan(flips).all() else float(np.mean(flips)),
                            "bits_per_vector": int(first["bits_per_vector"]),
                            "per_rep": [float(v) for v in per_rep]})
    extra = {} if true is None else {"true": true, "chance_recall": st["R"] / st["n_db"]}
    return {
        "dataset": st["dataset"], "p": st["p"], "k": st["k"], "n_db": st["n_db"], "n_queries": st["n_queries"],
        "R": st["R"], "chance": result.reference[CHANCE], "reps": result.repeats, "seed": result.seed,
        "delta": st["delta"], "beta": st["beta"], "m": st["m"], "t": st["t"], "projection": st["projection"],
        "epsilons": [float(e) for e in result.epsilons],
        "nonprivate": {"rp": result.reference[NONPRIVATE_RP], "signrp": result.reference[NONPRIVATE_SIGNRP]},
        "mechanisms": [dict(info) for info in st["mechanisms"]],
        "results": results,
        "details": details,
        **extra,
    }


def combine(results) -> SweepResult:
    """One sweep from sweeps of different mechanisms with the same settings (same data, k, t,
    seed, ε grid, repetitions, …), mechanisms in the given order. Each mechanism's draws depend
    only on the settings and its name, so this equals one sweep of all of them."""
    results = list(results)
    if not results:
        raise ValueError("Give at least one sweep to combine.")
    first = results[0]
    shared = {key: value for key, value in first.settings.items() if key != "mechanisms"}
    for other in results[1:]:
        differ = [key for key in shared if other.settings.get(key) != shared[key]]
        differ += [name for name, same in (("epsilons", np.array_equal(other.epsilons, first.epsilons)),
                                           ("seed", other.seed == first.seed),
                                           ("repeats", other.repeats == first.repeats),
                                           ("reference", other.reference == first.reference)) if not same]
        if differ:
            raise ValueError(f"Only sweeps with the same settings can be combined; these differ: {', '.join(differ)}.")
    names = [name for result in results for name in result.mechanisms]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"Mechanism {repeated[0]!r} is in two of the sweeps.")
    return SweepResult(
        mechanisms=tuple(names), epsilons=first.epsilons, metrics=first.metrics,
        values=np.concatenate([result.values for result in results], axis=0), seed=first.seed,
        labels={key: value for result in results for key, value in result.labels.items()}, axis=first.axis,
        reference=dict(first.reference),
        settings={**shared, "mechanisms": [info for result in results for info in result.settings["mechanisms"]]},
        guarantees={key: value for result in results for key, value in result.guarantees.items()},
    )


# ------------------------------------------------------------------------------------------------
# Monte Carlo check of the inner-product variances (eqs. 19, 20, 22)
# ------------------------------------------------------------------------------------------------

#: The mechanisms whose inner-product variance has a closed form (eq. 19, eq. 20, eq. 22).
VARIANCE_MECHANISMS: tuple[str, ...] = ("raw-data-g-opt", "dp-rp-g-opt-b", "dp-oporp")


@dataclass(frozen=True)
class VarianceCheck:
    """Monte Carlo variances of the released inner product Σ_j ũ_j ṽ_j, per mechanism and ε:
    ``variance[name]`` and ``standard_error[name]`` are arrays over ``epsilons``."""

    epsilons: tuple[float, ...]
    draws: int
    variance: dict
    standard_error: dict


def inner_product_monte_carlo(u, v, epsilons, k, draws=300, seed=0, delta=1e-6, beta=1.0,
                              mechanisms=VARIANCE_MECHANISMS) -> VarianceCheck:
    """The variance of the inner-product estimate of two released vectors, by simulation: each draw
    takes a NEW public projection (seed from ``seed`` and the draw) and fresh noise, releases u and
    v, and records Σ_j ũ_j ṽ_j (``estimators.inner_product``). The variance over draws, with its
    standard error √((m₄ − s⁴)/n), is what eqs. 19 (raw), 20 (Rademacher RP) and 22 (OPORP) give in
    closed form. The projection of each draw is applied once and shared by every ε."""
    from privlib.projections.estimators import inner_product

    pair = np.stack([np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)])
    eps_grid = tuple(float(e) for e in check_epsilons(epsilons))
    draws = check_positive_int(draws, "draws (the number of Monte Carlo draws)", minimum=3)
    seed = check_seed(seed)
    classes = resolve_mechanisms(mechanisms)
    estimates = {cls.name: np.empty((len(eps_grid), draws)) for cls in classes}
    for d in range(draws):
        draw_seed = repetition_seed(seed, d)
        for cls in classes:
            first = build_mechanism(cls, eps_grid[0], k=k, t=1, seed=draw_seed, delta=delta, beta=beta, m=0.0,
                                    p=pair.shape[1], projection="rademacher", s=3)
            projected = first.project(pair)
            for j, eps in enumerate(eps_grid):
                mech = first if j == 0 else build_mechanism(cls, eps, k=k, t=1, seed=draw_seed, delta=delta,
                                                            beta=beta, m=0.0, p=pair.shape[1],
                                                            projection="rademacher", s=3)
                values = mech.release_projected(projected, noise_generator(seed, d, cls.name, eps)).values
                estimates[cls.name][j, d] = inner_product(values[0], values[1])
    variance, standard_error = {}, {}
    for name, values in estimates.items():
        centred = values - values.mean(axis=1, keepdims=True)
        s2 = (centred**2).sum(axis=1) / (draws - 1)
        m4 = (centred**4).mean(axis=1)
        variance[name] = s2
        standard_error[name] = np.sqrt(np.maximum(m4 - s2**2, 0.0) / draws)
    return VarianceCheck(epsilons=eps_grid, draws=draws, variance=variance, standard_error=standard_error)



@dataclass(frozen=True)
class AngleCheck:
    """Monte Carlo standard deviations of the randomised-response angle estimate θ̂_RR (eq. 29)
    of a pair at angle ``theta``: ``sd`` and ``standard_error`` are arrays over ``eps_per_bit``."""

    theta: float
    k: int
    eps_per_bit: tuple[float, ...]
    draws: int
    sd: np.ndarray
    standard_error: np.ndarray


def rr_angle_monte_carlo(theta, eps_per_bit, k, draws=400, seed=0) -> AngleCheck:
    """The standard deviation of θ̂_RR (``estimators.angle_from_rr_signs``) by simulation, to set
    against the closed form √(V_RR/k) (Theorem 4.6, ``quantities.v_rr``).

    The pair u = (1, 0), v = (cos θ, sin θ) is at angle θ (a Gaussian projection is rotation-invariant,
    so two coordinates suffice). Each draw takes a NEW Gaussian projection W (2 × k), the k sign bits
    of u and of v (a zero projection is a fair coin), and flips every bit independently with
    probability 1/(e^{ε′} + 1) — randomised response at ε′ per bit, as DP-SignOPORP-RR with t = 1
    releases at ε′ = ε. The projections are shared by every ε′; the coins are fresh per ε′ (seeded
    by the bits of ε′, like ``noise_generator``). The SD over draws has standard error
    ≈ SD/√(2(draws − 1)) (the bits are iid, so θ̂_RR is close to normal)."""
    from privlib.projections.estimators import angle_from_rr_signs

    theta = check_range(theta, "theta (the angle between u and v)", low=0.0, high=float(np.pi))
    eps_grid = tuple(float(e) for e in check_epsilons(eps_per_bit))
    k = check_positive_int(k, "k (the number of projections)")
    draws = check_positive_int(draws, "draws (the number of Monte Carlo draws)", minimum=3)
    seed = check_seed(seed)
    pair = np.array([[1.0, 0.0], [np.cos(theta), np.sin(theta)]])
    W = child_rng(seed, _TAG_PROJECTION).standard_normal((draws, 2, k))
    projected = np.einsum("ip,dpk->dik", pair, W)  # (draws, 2, k)
    signs = signs_with_coins(projected, child_rng(seed, _TAG_NONPRIVATE))
    sd = np.empty(len(eps_grid))
    for j, eps in enumerate(eps_grid):
        rng = noise_generator(seed, 0, "rr-angle", eps)
        flips = rng.random(signs.shape) < binary_flip_probability(eps)
        bits = np.where(flips, -signs, signs)
        estimates = angle_from_rr_signs(bits[:, 0, :], bits[:, 1, :], eps)
        sd[j] = np.std(estimates, ddof=1)
    return AngleCheck(theta=theta, k=k, eps_per_bit=eps_grid, draws=draws, sd=sd,
                      standard_error=sd / np.sqrt(2.0 * (draws - 1)))


def smooth_levels_on_data(dataset, k, t=1, seed=0, beta=1.0, rows=1000,
                          mechanisms=("dp-signrp-rr-smooth", "dp-signoporp-rr-smooth")) -> dict:
    """The smooth-flipping levels L_j (Alg 7: ⌈|z_j|/D_j⌉ with z unscaled, D_j = β·maxᵢ|W_ij|;
    Alg 8: ⌈|x_j|/β⌉) of the first ``rows`` database vectors, per mechanism label (Fig. 9). They
    are data-dependent diagnostics of the release, never published."""
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    X = data.X[: check_positive_int(rows, "rows")]
    levels = {}
    for cls in resolve_mechanisms(mechanisms):
        mech = build_mechanism(cls, 1.0, k=k, t=t, seed=seed, delta=1e-6, beta=beta, m=0.0, p=data.p,
                               projection="rademacher", s=3)
        release = mech.release_projected(mech.project(X), child_rng(seed, _TAG_NONPRIVATE))
        levels[cls.label] = np.asarray(release.diagnostics["levels"], dtype=np.int64)
    return levels


def combine_epsilons(results) -> SweepResult:
    """One sweep over the union of the ε grids of sweeps of the same mechanisms and settings, ε in
    increasing order. Each (mechanism, ε, repetition) cell has its own stream, so this equals one
    sweep over the whole grid (e.g. a page adds one ε to a cached grid without redoing the grid)."""
    results = list(results)
    if not results:
        raise ValueError("Give at least one sweep to combine.")
    first = results[0]
    for other in results[1:]:
        differ = [name for name, same in (("mechanisms", other.mechanisms == first.mechanisms),
                                          ("settings", other.settings == first.settings),
                                          ("seed", other.seed == first.seed),
                                          ("repeats", other.repeats == first.repeats),
                                          ("reference", other.reference == first.reference)) if not same]
        if differ:
            raise ValueError(f"Only sweeps with the same settings can be combined; these differ: {', '.join(differ)}.")
    epsilons = np.concatenate([result.epsilons for result in results])
    if np.unique(epsilons).size != epsilons.size:
        raise ValueError("The sweeps share an epsilon: give each epsilon to one sweep.")
    order = np.argsort(epsilons, kind="stable")
    return SweepResult(
        mechanisms=first.mechanisms, epsilons=epsilons[order], metrics=first.metrics,
        values=np.concatenate([result.values for result in results], axis=1)[:, order], seed=first.seed,
        labels=dict(first.labels), axis=first.axis, reference=dict(first.reference), settings=first.settings,
        guarantees={name: [[g for result in results for g in result.guarantees[name]][i] for i in order]
                    for name in first.mechanisms},
    )


# ------------------------------------------------------------------------------------------------
# Caching one mechanism at a time: the settings each mechanism reads
# ------------------------------------------------------------------------------------------------

#: The sweep settings that only some mechanisms read, with the value a mechanism that does not read
#: one is swept with (`mechanism_settings`).
MECHANISM_SPECIFIC: dict = {"delta": 1e-6, "t": 1, "m": 0.0, "projection": "rademacher", "s": 3}


def reads_setting(mechanism, key: str) -> bool:
    """Whether the mechanism (a name or class) reads the sweep setting ``key`` of
    `MECHANISM_SPECIFIC`: δ if it is (ε, δ)-DP or takes a norm bound m (DP-SignRP-RR with m > 0
    is (ε, δ)-DP), the others if they are among its ``PARAMETERS``."""
    cls = resolve_mechanisms([mechanism])[0]
    if key not in MECHANISM_SPECIFIC:
        raise ValueError(f"Unknown mechanism-specific setting {shown(key)}: choose among "
                         f"{', '.join(MECHANISM_SPECIFIC)}.")
    if key == "delta":
        return bool(cls.USES_DELTA) or "m" in cls.PARAMETERS
    return key in cls.PARAMETERS


def mechanism_settings(mechanism, **settings) -> dict:
    """``settings`` with each `MECHANISM_SPECIFIC` one that ``mechanism`` does not read
    (`reads_setting`) set to its fixed value: the key under which a one-mechanism sweep can be
    cached, so that changing t does not rerun DP-OPORP (its draws do not depend on t)."""
    return {key: (value if key not in MECHANISM_SPECIFIC or reads_setting(mechanism, key)
                  else MECHANISM_SPECIFIC[key]) for key, value in settings.items()}


def restate_settings(result: SweepResult, **settings) -> SweepResult:
    """``result`` with ``settings`` recorded in its ``settings`` in place of the values it was swept
    with, allowed only for `MECHANISM_SPECIFIC` settings that none of its mechanisms reads (a sweep
    cached under `mechanism_settings`); then it equals the sweep run with ``settings``, and can be
    combined (`combine`) with sweeps of the mechanisms that do read them."""
    for key, value in settings.items():
        if key not in MECHANISM_SPECIFIC:
            raise ValueError(f"Only {', '.join(MECHANISM_SPECIFIC)} can be restated, not {shown(key)}.")
        readers = [name for name in result.mechanisms if reads_setting(name, key)]
        if readers and result.settings.get(key) != value:
            raise ValueError(f"{readers[0]} reads {key}: sweep it again with {key} = {value!r} instead.")
    return replace(result, settings={**result.settings, **settings})
