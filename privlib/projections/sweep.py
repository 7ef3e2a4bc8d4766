"""The privacy–utility sweep: retrieval precision@R of each mechanism over a grid of ε (§5.1,
Figs. 10–13 and 15 of Li & Li, "Differential Privacy with Random Projections and Sign Random
Projections").

Protocol (§5.1): the truth is each query's top R database vectors by cosine similarity of the raw
data; the database and the queries are both released by the mechanism (each vector carries its own
guarantee); released real vectors are ranked by cosine similarity, released sign bits by Hamming
distance (ties to the lower index, ``estimators.retrieve``); precision@R is averaged over the
queries, then over repetitions. Chance is R/n_db.

Cost (our addition, not in the paper): the projection depends only on the public configuration, so
it is drawn and applied ONCE per (repetition, configuration) and shared by every mechanism and every
ε that use it; for each ε only the noise or the coins and the ranking are redrawn
(``release_projected``). Each repetition draws a new projection. Every draw has its own seed,
derived from ``seed``, the repetition, the mechanism's name and ε, so a mechanism's results at one
ε do not depend on which other mechanisms or ε values are in the sweep.
"""
from __future__ import annotations

import dataclasses
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from privlib.core.threads import single_threaded_blas
from privlib.core.validation import check_epsilons, check_positive_int, check_range, check_seed
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

_TAG_PROJECTION, _TAG_NOISE, _TAG_NONPRIVATE = 1, 2, 3


def workers() -> int:
    """Threads of a sweep: one per core (at most 4)."""
    return max(1, min(os.cpu_count() or 1, 4))


def _name_key(name: str) -> int:
    """A stable integer for a mechanism name (seeds must not depend on the list's order)."""
    return zlib.crc32(name.encode("utf-8"))


def repetition_seed(seed: int, rep: int) -> int:
    """The public projection seed of repetition ``rep`` (our convention): from numpy's
    SeedSequence((seed, 1, rep))."""
    return int(np.random.SeedSequence((seed, _TAG_PROJECTION, rep)).generate_state(1, dtype=np.uint32)[0])


def noise_generator(seed: int, rep: int, name: str, epsilon: float) -> np.random.Generator:
    """The generator of the noise / coins of one (repetition, mechanism, ε) release (keyed by the
    bits of ε, so a result at one ε does not depend on the rest of the grid)."""
    eps_key = int(np.float64(epsilon).view(np.uint64))
    return np.random.default_rng((seed, _TAG_NOISE, rep, _name_key(name), eps_key))


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
                    raise ValueError(f"Unknown mechanism {name!r}: choose among {', '.join(MECHANISMS)} "
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
       R are taken (a stable ranking).
    """
    nq, n = scores.shape
    groups = min(n, 4 * R)
    width = n // groups
    bound = scores[:, : groups * width].reshape(nq, width, groups).max(axis=1)
    if groups * width < n:  # the last n mod G columns join the first groups
        tail = scores[:, groups * width:]
        bound[:, : tail.shape[1]] = np.maximum(bound[:, : tail.shape[1]], tail)
    low = np.partition(bound, groups - R, axis=1)[:, groups - R][:, None]
    candidate = scores >= low
    counts = candidate.sum(axis=1)
    rows, cols = np.divmod(np.flatnonzero(candidate), n)  # row by row, increasing column within a row
    values = scores[rows, cols]
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
    retrieved = np.zeros((nq, n), dtype=bool)
    retrieved[rows[take], cols[take]] = True
    return float(np.take_along_axis(retrieved, truth, axis=1).sum() / (nq * R))


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
    wrong = np.where(projected > 0, 1.0 - plus_probabilities,
                     np.where(projected < 0, plus_probabilities, 0.5))
    return float(wrong.sum(axis=1).mean())


@dataclass(frozen=True)
class SweepPoint:
    """One mechanism at one ε: precision@R (mean and SD over repetitions) and the public numbers
    of the release (σ or ε per bit, Δ₂ of repetition 0), with the expected number of flipped bits
    per vector (sign outputs) and the size of a released vector in bits."""

    mechanism: str
    epsilon: float
    guarantee: str
    precision: float
    sd: float | None
    per_rep: tuple[float, ...]
    sigma: float | None
    epsilon_per_bit: float | None
    delta2: float | None
    expected_flips: float | None
    bits_per_vector: int
    laplace_scale: float | None = None


@dataclass(frozen=True)
class PrivacyUtilitySweep:
    """The result of `privacy_utility_sweep`; ``to_dict()`` is the ``rp-sweep`` JSON."""

    dataset: str
    p: int
    k: int
    n_db: int
    n_queries: int
    R: int
    reps: int
    seed: int
    delta: float
    beta: float
    m: float
    t: int
    projection: str
    epsilons: tuple[float, ...]
    mechanisms: tuple[dict, ...]
    points: tuple[SweepPoint, ...]
    nonprivate_rp: float
    nonprivate_signrp: float
    nonprivate_per_rep: dict = field(default_factory=dict)

    @property
    def chance(self) -> float:
        """precision@R of a random ranking: R/n_db."""
        return self.R / self.n_db

    @property
    def metric_key(self) -> str:
        return f"precision_at_{self.R}"

    def point(self, mechanism: str, epsilon: float) -> SweepPoint:
        """The point of ``mechanism`` at ``epsilon`` (KeyError if the sweep has none)."""
        for pt in self.points:
            if pt.mechanism == mechanism and np.isclose(pt.epsilon, epsilon, rtol=1e-12):
                return pt
        raise KeyError(f"The sweep has no point for {mechanism!r} at epsilon = {epsilon:g}.")

    def curve(self, mechanism: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ε, mean precision, SD) of one mechanism, in ε order."""
        pts = sorted((pt for pt in self.points if pt.mechanism == mechanism), key=lambda pt: pt.epsilon)
        return (np.array([pt.epsilon for pt in pts]), np.array([pt.precision for pt in pts]),
                np.array([np.nan if pt.sd is None else pt.sd for pt in pts]))

    def table_rows(self, epsilon: float) -> list[dict]:
        """One row per mechanism at ``epsilon`` for the per-mechanism table: label, guarantee,
        is_dp, σ, ε per bit, Δ₂, expected flipped bits, bits per vector and precision."""
        rows = []
        for info in self.mechanisms:
            pt = self.point(info["name"], epsilon)
            rows.append({"name": info["name"], "label": info["label"], "guarantee": pt.guarantee,
                         "is_dp": info["is_dp"], "sigma": pt.sigma, "eps_per_bit": pt.epsilon_per_bit,
                         "laplace_scale": pt.laplace_scale,
                         "delta2": pt.delta2, "expected_flips": pt.expected_flips, "bits": pt.bits_per_vector,
                         "precision": pt.precision})
        return rows

    @classmethod
    def combine(cls, sweeps) -> PrivacyUtilitySweep:
        """One sweep from sweeps of different mechanisms with the same settings (same data, k, t,
        seeds, ε grid, …), mechanisms in the given order. Each mechanism's draws depend only on the
        settings and its name, so this equals one sweep of all of them."""
        sweeps = list(sweeps)
        if not sweeps:
            raise ValueError("Give at least one sweep to combine.")
        first = sweeps[0]
        same = ("dataset", "p", "k", "n_db", "n_queries", "R", "reps", "seed", "delta", "beta", "m", "t",
                "projection", "epsilons", "nonprivate_rp", "nonprivate_signrp")
        for other in sweeps[1:]:
            differ = [name for name in same if getattr(other, name) != getattr(first, name)]
            if differ:
                raise ValueError("Only sweeps with the same settings can be combined; these differ: "
                                 f"{', '.join(differ)}.")
        mechanisms, points, seen = [], [], set()
        for sweep in sweeps:
            for info in sweep.mechanisms:
                if info["name"] in seen:
                    raise ValueError(f"Mechanism {info['name']!r} is in two of the sweeps.")
                seen.add(info["name"])
                mechanisms.append(info)
            points.extend(sweep.points)
        return dataclasses.replace(first, mechanisms=tuple(mechanisms), points=tuple(points))

    def to_dict(self) -> dict:
        """{dataset, p, k, n_db, n_queries, R, chance, reps, seed, delta, beta, m, t, projection,
        epsilons, nonprivate: {rp, signrp}, mechanisms: [...], results: [{mechanism, guarantee,
        epsilon, precision_at_R, sd}], details: [{mechanism, epsilon, sigma, epsilon_per_bit,
        delta2, expected_flipped_bits, bits_per_vector, per_rep}]}."""
        return {
            "dataset": self.dataset, "p": self.p, "k": self.k, "n_db": self.n_db, "n_queries": self.n_queries,
            "R": self.R, "chance": self.chance, "reps": self.reps, "seed": self.seed, "delta": self.delta,
            "beta": self.beta, "m": self.m, "t": self.t, "projection": self.projection,
            "epsilons": list(self.epsilons),
            "nonprivate": {"rp": self.nonprivate_rp, "signrp": self.nonprivate_signrp},
            "mechanisms": [dict(m) for m in self.mechanisms],
            "results": [{"mechanism": pt.mechanism, "guarantee": pt.guarantee, "epsilon": pt.epsilon,
                         self.metric_key: pt.precision, "sd": pt.sd} for pt in self.points],
            "details": [{"mechanism": pt.mechanism, "epsilon": pt.epsilon, "sigma": pt.sigma,
                         "epsilon_per_bit": pt.epsilon_per_bit, "laplace_scale": pt.laplace_scale,
                         "delta2": pt.delta2,
                         "expected_flipped_bits": pt.expected_flips, "bits_per_vector": pt.bits_per_vector,
                         "per_rep": list(pt.per_rep)} for pt in self.points],
        }


def _build(cls, epsilon: float, *, k, t, seed, delta, beta, m, p, projection, s) -> ProjectionMechanism:
    """The mechanism ``cls`` at ``epsilon``, given the sweep's settings it accepts."""
    available = {"epsilon": epsilon, "delta": delta, "beta": beta, "k": k, "seed": seed, "p": p, "m": m, "t": t,
                 "projection": projection, "s": s}
    return cls(**{key: value for key, value in available.items() if key in cls.PARAMETERS})


def _configuration(mechanism, p: int) -> tuple:
    """The public configuration that determines ``project(X)``: the projections' kind, k, seed, s
    (Raw-data-G-OPT has none: the data itself)."""
    return tuple((proj.kind, proj.k, proj.seed, proj.s) for proj in mechanism.projections(p)) or ("raw",)


def _mean_sd(values) -> tuple[float, float | None]:
    values = np.asarray(values, dtype=float)
    return float(values.mean()), (float(values.std(ddof=1)) if values.size > 1 else None)


def privacy_utility_sweep(dataset, mechanisms, epsilons=DEFAULT_EPSILONS, k=32, t=1, reps=3, seed=0,
                          delta=1e-6, beta=1.0, m=0.0, R=50, progress=None, *, projection="rademacher",
                          s=3, queries=None) -> PrivacyUtilitySweep:
    """Retrieval precision@R against ε for each mechanism (§5.1; Figs. 10–13, 15).

    ``dataset``: a `Dataset` or a name for ``datasets.load_dataset`` ("mnist", "digits",
    "synthetic"). ``mechanisms``: names (or a comma string; "dp" = every DP mechanism, "idp" the
    individual-DP ones, "all"). ``k`` projections, ``t`` OPORP repetitions (DP-SignOPORP),
    ``m`` the public norm bound (DP-SignRP-RR), ``projection`` / ``s`` the projection of
    DP-RP-G-OPT-B. ``reps`` repetitions, each with a new public projection; ``seed`` makes the
    whole sweep reproducible. ``queries``: use only that many queries, spread evenly over the query
    set (`query_subset`; default all). ``progress(fraction, message)`` is called as the sweep
    advances.

    The non-private levels use a Gaussian projection of the same k per repetition: the projected
    data ranked by cosine (RP) and its signs ranked by Hamming distance (SignRP).
    """
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    classes = resolve_mechanisms(mechanisms)
    names = tuple(cls.name for cls in classes)
    eps_grid = tuple(float(e) for e in check_epsilons(epsilons))
    if len(set(eps_grid)) != len(eps_grid):
        raise ValueError("The epsilon grid has repeated values: give each epsilon once.")
    k = check_positive_int(k, "k (the number of projections)")
    t = check_positive_int(t, "t (the number of OPORP repetitions)")
    reps = check_positive_int(reps, "reps (the number of repetitions)")
    seed = check_seed(seed)
    R = check_positive_int(R, "R (the number of neighbours retrieved)", maximum=data.n_db)
    m = check_range(m, "m (the public lower bound on the norm of every vector; 0 = none)", low=0.0)
    p, n_db = data.p, data.n_db
    settings = dict(k=k, t=t, delta=delta, beta=beta, m=m, p=p, projection=projection, s=s)
    # Validate every mechanism's parameters (and the data) before the long computation.
    prototypes = {cls.name: _build(cls, eps_grid[0], seed=seed, **settings) for cls in classes}
    chosen = query_subset(data.n_queries, queries)
    Q = data.Q[chosen]
    X_all = np.concatenate([data.X, Q], axis=0)
    for proto in prototypes.values():
        proto.check_data(X_all)
    truth = true_neighbours(data.X, Q, R)

    steps = reps * (1 + len(names) * len(eps_grid))
    done = 0

    def report(message):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / steps, message)

    scores = {(name, e): [] for name in names for e in eps_grid}
    flips = {(name, e): [] for name in names for e in eps_grid}
    public = {}
    nonprivate = {"rp": [], "signrp": []}
    def evaluate(mech, projected, rng, needs_rows):
        """One release at one ε: (precision, expected flipped bits or None, public numbers)."""
        released = mech.release_projected(projected, rng, X=X_all if needs_rows else None)
        metric = "hamming" if mech.output == "sign" else "cosine"
        precision = retrieval_precision(truth, released.values[:n_db], released.values[n_db:], R, metric)
        flipped = (expected_flipped_bits(mech.plus_probabilities(projected), projected)
                   if mech.output == "sign" else None)
        numbers = (released.guarantee, released.sigma, released.epsilon_per_bit, released.public.get("delta2"),
                   released.values.shape[1], mech.output, released.public.get("laplace_scale"))
        return precision, flipped, numbers

    # Releases at different ε are independent (each has its own generator): they run on all cores,
    # each thread with a single-threaded BLAS; results are collected in order in this thread.
    with single_threaded_blas(), ThreadPoolExecutor(workers()) as pool:
        for rep in range(reps):
            rep_seed = repetition_seed(seed, rep)
            gaussian = make_projection("gaussian", p, k, rep_seed).apply(X_all)
            signs = signs_with_coins(gaussian, np.random.default_rng((seed, _TAG_NONPRIVATE, rep)))
            levels = [pool.submit(retrieval_precision, truth, gaussian[:n_db], gaussian[n_db:], R, "cosine"),
                      pool.submit(retrieval_precision, truth, signs[:n_db], signs[n_db:], R, "hamming")]
            nonprivate["rp"].append(levels[0].result())
            nonprivate["signrp"].append(levels[1].result())
            report(f"repetition {rep + 1}/{reps}: non-private levels")
            projected_by_configuration: dict[tuple, np.ndarray] = {}
            tasks = []
            for cls in classes:
                first = _build(cls, eps_grid[0], seed=rep_seed, **settings)
                key = _configuration(first, p)
                if key not in projected_by_configuration:
                    projected_by_configuration[key] = first.project(X_all)
                projected = projected_by_configuration[key]
                needs_rows = getattr(first, "m", 0) > 0  # a public norm bound is enforced on the rows
                for j, eps in enumerate(eps_grid):
                    mech = first if j == 0 else _build(cls, eps, seed=rep_seed, **settings)
                    rng = noise_generator(seed, rep, cls.name, eps)
                    future = pool.submit(evaluate, mech, projected, rng, needs_rows)
                    tasks.append((cls.name, cls.label, eps, future))
            for name, label, eps, future in tasks:
                precision, flipped, numbers = future.result()
                scores[(name, eps)].append(precision)
                if flipped is not None:
                    flips[(name, eps)].append(flipped)
                if rep == 0:
                    public[(name, eps)] = numbers
                report(f"repetition {rep + 1}/{reps}: {label}, ε = {eps:g}")

    points = []
    for name in names:
        for eps in eps_grid:
            guarantee, sigma, per_bit, delta2, width, output, laplace = public[(name, eps)]
            mean, sd = _mean_sd(scores[(name, eps)])
            points.append(SweepPoint(
                mechanism=name, epsilon=eps, guarantee=guarantee, precision=mean, sd=sd,
                per_rep=tuple(scores[(name, eps)]), sigma=sigma, epsilon_per_bit=per_bit,
                delta2=None if delta2 is None else float(delta2),
                expected_flips=float(np.mean(flips[(name, eps)])) if flips[(name, eps)] else None,
                bits_per_vector=int(width) if output == "sign" else FLOAT_BITS * int(width),
                laplace_scale=None if laplace is None else float(laplace),
            ))
    infos = tuple({"name": cls.name, "label": cls.label, "output": cls.output, "is_dp": bool(cls.is_dp)}
                  for cls in classes)
    return PrivacyUtilitySweep(
        dataset=data.name, p=p, k=k, n_db=n_db, n_queries=int(chosen.size), R=R, reps=reps, seed=seed,
        delta=float(prototypes[names[0]].delta), beta=float(prototypes[names[0]].beta), m=m, t=t,
        projection=projection, epsilons=eps_grid, mechanisms=infos, points=tuple(points),
        nonprivate_rp=float(np.mean(nonprivate["rp"])), nonprivate_signrp=float(np.mean(nonprivate["signrp"])),
        nonprivate_per_rep={key: tuple(values) for key, values in nonprivate.items()},
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
            first = _build(cls, eps_grid[0], k=k, t=1, seed=draw_seed, delta=delta, beta=beta, m=0.0,
                           p=pair.shape[1], projection="rademacher", s=3)
            projected = first.project(pair)
            for j, eps in enumerate(eps_grid):
                mech = first if j == 0 else _build(cls, eps, k=k, t=1, seed=draw_seed, delta=delta, beta=beta, m=0.0,
                                                   p=pair.shape[1], projection="rademacher", s=3)
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
    from privlib.projections.quantities import flip_probability

    theta = check_range(theta, "theta (the angle between u and v)", low=0.0, high=float(np.pi))
    eps_grid = tuple(float(e) for e in check_epsilons(eps_per_bit))
    k = check_positive_int(k, "k (the number of projections)")
    draws = check_positive_int(draws, "draws (the number of Monte Carlo draws)", minimum=3)
    seed = check_seed(seed)
    pair = np.array([[1.0, 0.0], [np.cos(theta), np.sin(theta)]])
    W = np.random.default_rng((seed, _TAG_PROJECTION)).standard_normal((draws, 2, k))
    projected = np.einsum("ip,dpk->dik", pair, W)  # (draws, 2, k)
    signs = signs_with_coins(projected, np.random.default_rng((seed, _TAG_NONPRIVATE)))
    sd = np.empty(len(eps_grid))
    for j, eps in enumerate(eps_grid):
        rng = noise_generator(seed, 0, "rr-angle", eps)
        flips = rng.random(signs.shape) < flip_probability(eps)
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
        mech = _build(cls, 1.0, k=k, t=t, seed=seed, delta=1e-6, beta=beta, m=0.0, p=data.p,
                      projection="rademacher", s=3)
        release = mech.release_projected(mech.project(X), np.random.default_rng((seed, _TAG_NONPRIVATE)))
        levels[cls.label] = np.asarray(release.diagnostics["levels"], dtype=np.int64)
    return levels
