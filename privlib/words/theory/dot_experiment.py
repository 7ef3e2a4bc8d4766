"""The noisy dot product of the seed paper (Asghar et al., PoPETs 2026, §4–5) as the mechanism
really draws it: multivariate Laplace noise dotted with a direction, beside its exact law
(`NoisyDotProduct`) and the paper's bounds (Thm 8, Cor. 2)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.validation import as_generator, check_epsilon, check_positive_int
from privlib.words.experiments import MAX_SAMPLES
from privlib.words.theory.noisy_dot import (
    AngularComponent,
    NoiseRadius,
    NoisyDotProduct,
    chebyshev_tail_bound,
    chernoff_tail_bound,
    empirical_dot_products,
    thm8_half_width,
    thm8_tail_bound,
)

#: The curves drawn beside an experiment: the density and CDF span ±1.1 h and the tails run to
#: 1.5 h, h the half-width of the law's central 1 - 2·DISPLAY_TAIL (99.9 %) interval.
DISPLAY_TAIL = 0.0005
#: Points of the density / CDF curves, of the tail curves, and every how many tail thresholds the
#: samples' tail is shown.
CURVE_POINTS = 401
TAIL_POINTS = 200
EMPIRICAL_EVERY = 10
#: Points of the component curves: the radius R and the angle K.
RADIUS_POINTS = 300
ANGLE_POINTS = 401


@dataclass(frozen=True)
class DotProductExperiment:
    """Real mechanism noise dotted with a direction, beside the exact law (Asghar et al. 2026,
    §4-5; the closed form is our addition, not in the paper).

    ``values`` = <eta, e> for ``samples`` noise vectors eta of the multivariate Laplace mechanism
    (`laplace_noise`) with e = w/||w|| for a word w (law Z = NoisyDotProduct(n, eps)), or
    e = w itself when ``normalise`` is False (law ||w|| Z = NoisyDotProduct(n, eps/||w||), since
    Z scales as 1/eps), or e = the first axis when no word is given. ``radius`` = ||eta|| and
    ``cosine`` = <eta/||eta||, e/||e||> are the paper's two components R and K.
    """

    n: int
    epsilon: float
    word: str | None
    normalise: bool
    scale: float  # ||e||: 1 for a unit direction
    values: np.ndarray = field(repr=False)
    radius: np.ndarray = field(repr=False)
    cosine: np.ndarray = field(repr=False)

    @property
    def law(self):
        """The exact law of ``values``."""
        return NoisyDotProduct(self.n, self.epsilon / self.scale)

    def summary(self, confidence: float = 0.99) -> list[dict]:
        """Mean, variance and the central ``confidence`` interval: exact, simulated (with the
        standard error of the simulation) and the paper's bounds (Thm 8 half-width and
        Chebyshev's Var/t^2 = 1 - confidence), all in the units of ``values``."""
        law, x, m = self.law, self.values, self.values.size
        var = law.var()
        sample_var = float(np.var(x, ddof=1))
        # SE of the sample variance: sqrt((mu4 - var^2 (m-3)/(m-1)) / m), mu4 estimated
        mu4 = float(np.mean((x - x.mean()) ** 4))
        se_var = float(np.sqrt(max(mu4 - sample_var**2 * (m - 3) / (m - 1), 0.0) / m))
        half = float(law.isf((1 - confidence) / 2))
        lo, hi = np.quantile(x, [(1 - confidence) / 2, (1 + confidence) / 2])
        # SE of a sample quantile: sqrt(p(1-p)/m) / f(q)
        p = (1 - confidence) / 2
        se_q = float(np.sqrt(p * (1 - p) / m) / law.pdf(half))
        thm8 = thm8_half_width(self.n, self.epsilon / self.scale, confidence).half_width
        chebyshev = float(np.sqrt(var / (1 - confidence)))
        pct = f"{confidence:.0%}"
        return [
            {"quantity": "mean", "exact": 0.0, "simulated": float(x.mean()),
             "standard error": float(np.sqrt(sample_var / m)), "bound": None},
            {"quantity": "variance", "exact": var, "simulated": sample_var, "standard error": se_var, "bound": None},
            {"quantity": f"{pct} interval half-width", "exact": half, "simulated": float((hi - lo) / 2),
             "standard error": se_q, "bound": thm8, "bound (Chebyshev)": chebyshev},
        ]

    def to_dict(self) -> dict:
        return {"n": self.n, "epsilon": self.epsilon, "word": self.word, "normalise": self.normalise,
                "scale": self.scale, "samples": int(self.values.size), "summary": self.summary()}

    def display_half_width(self) -> float:
        """Half-width of the central 99.9 % interval of the exact law of ``values`` (see
        `DISPLAY_TAIL`): the scale of the curves drawn beside the samples."""
        return display_half_width(self.law.n, self.law.epsilon)

    def empirical_tail(self, thresholds) -> tuple[np.ndarray, np.ndarray]:
        """(t, P̂(|Z| > t)): the proportion of samples whose absolute value exceeds each threshold,
        thresholds where no sample does left out (a log axis cannot show 0)."""
        return _empirical_tail(self.values, thresholds)

    def tail_table(self, points: int = TAIL_POINTS, every: int = EMPIRICAL_EVERY) -> TailTable:
        """`tail_table` of the exact law of ``values``, with the samples' tail at every ``every``-th
        threshold (`TailTable.with_empirical`)."""
        return tail_table(self.law.n, self.law.epsilon, points).with_empirical(self.values, every)

    def component_curves(self, points: int = RADIUS_POINTS, angle_points: int = ANGLE_POINTS) -> ComponentCurves:
        """Exact densities of the two components of the noise, to draw beside ``radius`` and
        ``cosine``: R = ||eta|| ~ Gamma(n, 1/eps) (`NoiseRadius`) between its 0.01 % and 99.99 %
        quantiles, and K (`AngularComponent`, density f_B) on (-1, 1), ends left out; no K curve
        for n = 1, where K is ±1 with probability 1/2 each."""
        radius_law = NoiseRadius(self.n, self.epsilon)
        r_grid = np.linspace(max(radius_law.ppf(1e-4), 0), radius_law.ppf(1 - 1e-4), points)
        k_grid = k_pdf = None
        if self.n >= 2:
            k_grid = np.linspace(-1, 1, angle_points)[1:-1]
            k_pdf = AngularComponent(self.n).pdf(k_grid)
        return ComponentCurves(self.n, self.epsilon, r_grid, radius_law.pdf(r_grid), k_grid, k_pdf)


def dot_product_experiment(n: int, epsilon: float, samples: int = 100_000, space=None, word=None,
                           normalise: bool = True, rng=None) -> DotProductExperiment:
    """Sample the mechanism's real noise and its dot product with a word's vector (or the first
    axis when ``word`` is None); see `DotProductExperiment`. With a word, ``n`` must be the
    embedding's dimension."""
    epsilon = check_epsilon(epsilon)
    samples = check_positive_int(samples, "samples", minimum=2, maximum=MAX_SAMPLES)
    n = check_positive_int(n, "n (dimension)", maximum=100_000)
    if word is not None:
        if space is None:
            raise ValueError("A word needs an embedding space.")
        if n != space.dim:
            raise ValueError(f"The word's embedding has dimension {space.dim}; set n = {space.dim} to use a word.")
        direction = space.vectors[space.index(word)].astype(np.float64)
        if not np.any(direction):
            raise ValueError(f"{word!r} has the zero vector, which has no direction; choose another word.")
    else:
        direction = np.zeros(n)
        direction[0] = 1.0
    norm = float(np.linalg.norm(direction))
    noise = laplace_noise(n, epsilon, samples, as_generator(rng))
    radius = np.linalg.norm(noise, axis=1)
    values = empirical_dot_products(noise, direction, normalise)
    cosine = (values if normalise else values / norm) / np.maximum(radius, 1e-300)
    return DotProductExperiment(n, epsilon, word, bool(normalise), 1.0 if normalise else norm,
                                values, radius, cosine)


def display_half_width(n: int, epsilon: float) -> float:
    """Half-width h of the central 99.9 % interval of Z = NoisyDotProduct(n, epsilon) (see
    `DISPLAY_TAIL`)."""
    return float(NoisyDotProduct(n, epsilon).isf(DISPLAY_TAIL))


def _empirical_tail(samples, thresholds) -> tuple[np.ndarray, np.ndarray]:
    """(t, proportion of |samples| > t), thresholds no sample exceeds left out."""
    t = np.asarray(thresholds, dtype=np.float64)
    abs_sorted = np.sort(np.abs(np.asarray(samples, dtype=np.float64)))
    tail = 1 - np.searchsorted(abs_sorted, t, side="right") / abs_sorted.size
    keep = tail > 0
    return t[keep], tail[keep]


@dataclass(frozen=True)
class LawCurves:
    """The exact density and CDF of Z = NoisyDotProduct(n, epsilon) on ``grid`` (±1.1 h, see
    `DISPLAY_TAIL`), and optionally the density from the paper's integral (Eq. 13, numerical
    quadrature) on the same grid, to show that the two coincide."""

    n: int
    epsilon: float
    grid: np.ndarray = field(repr=False)
    pdf: np.ndarray = field(repr=False)
    cdf: np.ndarray = field(repr=False)
    integral_pdf: np.ndarray | None = field(default=None, repr=False)


def law_curves(n: int, epsilon: float, with_integral: bool = False, points: int = CURVE_POINTS) -> LawCurves:
    """`LawCurves` of NoisyDotProduct(n, epsilon). The Eq. 13 integral (~0.3 ms a point) is
    evaluated once per distinct |z| of the symmetric grid (the density is even)."""
    law = NoisyDotProduct(n, epsilon)
    half = display_half_width(n, epsilon)
    grid = np.linspace(-1.1 * half, 1.1 * half, check_positive_int(points, "points", minimum=2))
    integral = None
    if with_integral:
        magnitudes, where = np.unique(np.abs(grid), return_inverse=True)
        integral = np.asarray(law.pdf_integral(magnitudes))[where.ravel()]
    return LawCurves(law.n, law.epsilon, grid, law.pdf(grid), law.cdf(grid), integral)


@dataclass(frozen=True)
class TailTable:
    """The two-sided tail P(|Z| > t) of Z = NoisyDotProduct(n, epsilon): exact (2·sf) and the
    paper's bounds (Thm 8 with the best c1·c2, Chebyshev's Cor. 2, the optimal Chernoff bound
    from the MGF) at ``thresholds`` (0 < t <= 1.5 h, see `DISPLAY_TAIL`); ``empirical`` =
    (t, proportion of samples beyond t) once `with_empirical` has been given samples."""

    n: int
    epsilon: float
    thresholds: np.ndarray = field(repr=False)
    exact: np.ndarray = field(repr=False)
    bounds: dict = field(repr=False)  # label -> bound at each threshold (not capped)
    empirical: tuple | None = field(default=None, repr=False)

    def with_empirical(self, samples, every: int = EMPIRICAL_EVERY) -> TailTable:
        """This table with the tail of ``samples`` (draws of Z) at every ``every``-th threshold,
        thresholds no sample exceeds left out."""
        every = check_positive_int(every, "every")
        empirical = _empirical_tail(samples, self.thresholds[::every])
        return TailTable(self.n, self.epsilon, self.thresholds, self.exact, self.bounds, empirical)

    def to_dict(self) -> dict:
        out = {"n": self.n, "epsilon": self.epsilon, "thresholds": self.thresholds.tolist(),
               "exact": self.exact.tolist(), "bounds": {k: np.asarray(v).tolist() for k, v in self.bounds.items()}}
        if self.empirical is not None:
            out["empirical"] = {"thresholds": self.empirical[0].tolist(), "tail": self.empirical[1].tolist()}
        return out


def tail_table(n: int, epsilon: float, points: int = TAIL_POINTS) -> TailTable:
    """`TailTable` of NoisyDotProduct(n, epsilon) at ``points`` thresholds t_max/points, …, t_max,
    t_max = 1.5 h."""
    points = check_positive_int(points, "points")
    t_max = 1.5 * display_half_width(n, epsilon)
    t = np.linspace(t_max / points, t_max, points)
    bounds = {
        "Thm 8 (paper, best c1·c2)": thm8_tail_bound(n, epsilon, t),
        "Chebyshev (Cor. 2)": chebyshev_tail_bound(n, epsilon, t),
        "Chernoff (optimal, from the MGF)": chernoff_tail_bound(n, epsilon, t),
    }
    return TailTable(int(n), float(epsilon), t, 2 * NoisyDotProduct(n, epsilon).sf(t), bounds)


@dataclass(frozen=True)
class ComponentCurves:
    """Exact densities of the noise's two components (paper §5): the length R = ||eta|| ~
    Gamma(n, 1/eps) on ``radius_grid`` and the angle K (density f_B) on ``angle_grid`` (None for
    n = 1: K is ±1)."""

    n: int
    epsilon: float
    radius_grid: np.ndarray = field(repr=False)
    radius_pdf: np.ndarray = field(repr=False)
    angle_grid: np.ndarray | None = field(default=None, repr=False)
    angle_pdf: np.ndarray | None = field(default=None, repr=False)
