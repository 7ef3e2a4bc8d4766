"""Low-dimensional analogies of the word mechanism (Asghar et al. 2026, §1-§3, Figs. 1, 3 and 4).

* Fig. 1 — the Laplace mechanism in one dimension, on integers: true value 400,000, noise of
  scale 1/epsilon, output "original" (the true value), "close" (within ±100, the analogue of the
  100 close neighbours of a word) or "distant". Here every integer's nearest neighbour is at
  distance 1 and consecutive neighbours are 1 apart as well, so as epsilon grows the outputs move
  smoothly from distant to close to original: "as expected". Proportions in closed form, and
  simulated beside them.
* Fig. 3 — geo-indistinguishability on a map (Andrés et al. 2013): planar Laplace noise added to
  a place, output the nearest place of a small built-in map (approximate US state centres,
  privlib/words/data/us_state_centres.csv). An isolated place (Hawaii) keeps itself at epsilons where a
  place among neighbours (Kansas) is already replaced by a neighbour.
* Fig. 4 — the planar (n = 2) noise itself: radius R ~ Gamma(2, scale 1/epsilon), angle uniform.

The public artifact (r-carpentier/dx-privacy-curse) contains no code for Figs. 1, 3 and 4, so the
definitions below are ours, stated in each docstring.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from privlib.core.noise import laplace_noise
from privlib.core.statistics import binomial_standard_error
from privlib.core.validation import as_generator, check_epsilon, check_epsilons, check_positive_int
from privlib.words.theory.noisy_dot import NoiseRadius

#: Fig. 1: the true value (the size of the GloVe vocabulary) and the close-neighbour cut-off.
TRUE_VALUE_1D = 400_000
CLOSE_1D = 100
#: The two integer-valued Laplace mechanisms of `laplace_1d_proportions`.
KINDS_1D = ("rounded", "geometric")

DATA = Path(__file__).resolve().parent.parent / "data"
US_STATES_CSV = DATA / "us_state_centres.csv"
#: Mean Earth radius (km) of the spherical projection of `PointMap.us_states`.
EARTH_RADIUS_KM = 6371.0
#: Projection centre of the US map: the geographic centre of the contiguous states (near
#: Lebanon, Kansas), so distances from the middle of the country are preserved exactly.
US_PROJECTION_CENTRE = (39.83, -98.58)

_NAMES = ("original", "close", "distant")


def _check_kind(kind: str) -> str:
    if kind not in KINDS_1D:
        raise ValueError(f"kind must be one of {', '.join(KINDS_1D)}, got {kind!r}.")
    return kind


# ----------------------------------------------------------------------------- Fig. 1
@dataclass(frozen=True)
class Laplace1DProportions:
    """Proportions original / close / distant of the 1-D integer Laplace mechanism against
    epsilon (paper Fig. 1), exact (``samples`` = 0) or simulated.

    Has the attributes `privlib.presentation.words.figures.proportions_vs_epsilon` reads from an EpsilonSweep
    (``epsilons``, ``proportions``, ``standard_errors()``), so one chart shows both.
    """

    epsilons: np.ndarray
    proportions: dict
    kind: str
    close: int
    samples: int = 0  # draws per epsilon; 0 = closed form
    true_value: int = TRUE_VALUE_1D

    @property
    def exact(self) -> bool:
        return self.samples == 0

    def standard_errors(self) -> dict:
        """Binomial standard errors sqrt(p(1-p)/samples) (zeros when exact)."""
        if self.exact:
            return {k: np.zeros_like(v) for k, v in self.proportions.items()}
        return {k: binomial_standard_error(p, self.samples) for k, p in self.proportions.items()}

    def to_dict(self) -> dict:
        return {"kind": self.kind, "close": self.close, "true_value": self.true_value, "samples": self.samples,
                "epsilons": self.epsilons.tolist(),
                "proportions": {k: v.tolist() for k, v in self.proportions.items()},
                "standard_errors": {k: v.tolist() for k, v in self.standard_errors().items()}}


def laplace_1d_proportions(epsilons, close: int = CLOSE_1D, kind: str = "rounded") -> Laplace1DProportions:
    """Exact proportions of outputs at the true value (original), at 1..``close`` from it (close)
    and further (distant), for each epsilon. The domain is all integers (no clamping), so the
    answer does not depend on the true value.

    kind="rounded" (default): the Laplace mechanism, y = x + eta with eta ~ Laplace(0, 1/eps)
    (sensitivity 1), then rounded to the nearest integer (post-processing: still eps-DP). With
    K = ``close``:
        original = P(|eta| < 1/2)              = 1 - e^{-eps/2}
        close    = P(1/2 <= |eta| < K + 1/2)   = e^{-eps/2} (1 - e^{-eps K})
        distant  = P(|eta| >= K + 1/2)         = e^{-eps (K + 1/2)}
    kind="geometric": the discrete Laplace (two-sided geometric) mechanism, P(y - x = k) =
    (1 - q)/(1 + q) q^|k| with q = e^{-eps} (Ghosh, Roughgarden, Sundararajan 2009):
        original = (1 - q)/(1 + q) = tanh(eps/2),  close = 2q (1 - q^K)/(1 + q),  distant = 2q^{K+1}/(1 + q).
    Written with expm1 so that tiny and near-1 proportions keep their precision.
    """
    eps = check_epsilons(epsilons)
    close = check_positive_int(close, "close (the ± range of close outputs)", minimum=1)
    kind = _check_kind(kind)
    if kind == "rounded":
        original = -np.expm1(-eps / 2)
        near = np.exp(-eps / 2) * -np.expm1(-eps * close)
        distant = np.exp(-eps * (close + 0.5))
    else:
        q = np.exp(-eps)
        original = np.tanh(eps / 2)
        near = 2 * q * -np.expm1(-eps * close) / (1 + q)
        distant = 2 * np.exp(-eps * (close + 1)) / (1 + q)
    return Laplace1DProportions(eps, dict(zip(_NAMES, (original, near, distant))), kind, close)


def simulate_laplace_1d(epsilons, samples: int = 10_000, close: int = CLOSE_1D, kind: str = "rounded",
                        true_value: int = TRUE_VALUE_1D, rng=None) -> Laplace1DProportions:
    """``samples`` runs of the 1-D integer mechanism of `laplace_1d_proportions` on ``true_value``
    per epsilon, classified as original / close / distant: the simulation beside the closed form.

    rounded: rint(x + Laplace(0, 1/eps)); geometric: x + G1 - G2 with G1, G2 iid geometric with
    success probability 1 - e^{-eps} (their difference is the two-sided geometric law).
    """
    eps = check_epsilons(epsilons)
    samples = check_positive_int(samples, "samples", minimum=1, maximum=10_000_000)
    close = check_positive_int(close, "close (the ± range of close outputs)", minimum=1)
    kind = _check_kind(kind)
    true_value = int(true_value)
    rng = as_generator(rng)
    props = {k: np.empty(eps.size) for k in _NAMES}
    for j, e in enumerate(eps):
        if kind == "rounded":
            outputs = np.rint(true_value + rng.laplace(0.0, 1.0 / e, samples))
        else:
            p = -math.expm1(-e)
            outputs = true_value + (rng.geometric(p, samples) - rng.geometric(p, samples)).astype(np.float64)
        offset = np.abs(outputs - true_value)
        props["original"][j] = np.mean(offset == 0)
        props["close"][j] = np.mean((offset >= 1) & (offset <= close))
        props["distant"][j] = np.mean(offset > close)
    return Laplace1DProportions(eps, props, kind, close, samples, true_value)


# ----------------------------------------------------------------------------- Fig. 3: the map
def azimuthal_equidistant(lat, lon, centre) -> np.ndarray:
    """(x, y) in km of points given in degrees, by the azimuthal equidistant projection on a
    sphere of radius `EARTH_RADIUS_KM` centred at ``centre`` = (lat, lon): distances and directions
    from the centre are exact, other distances are approximate (a few % across the contiguous
    US; more for Alaska and Hawaii, which are far from the centre)."""
    phi, lam = np.radians(np.asarray(lat, dtype=np.float64)), np.radians(np.asarray(lon, dtype=np.float64))
    phi0, lam0 = (math.radians(v) for v in centre)
    cos_c = np.clip(math.sin(phi0) * np.sin(phi) + math.cos(phi0) * np.cos(phi) * np.cos(lam - lam0), -1.0, 1.0)
    c = np.arccos(cos_c)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(c > 1e-12, c / np.sin(c), 1.0)
    x = EARTH_RADIUS_KM * k * np.cos(phi) * np.sin(lam - lam0)
    y = EARTH_RADIUS_KM * k * (math.cos(phi0) * np.sin(phi) - math.sin(phi0) * np.cos(phi) * np.cos(lam - lam0))
    return np.stack([x, y], axis=-1)


@dataclass(frozen=True)
class PointMap:
    """Named places with planar coordinates in km (``xy``, shape (P, 2))."""

    names: tuple
    codes: tuple
    xy: np.ndarray = field(repr=False)
    source: str = ""

    def __post_init__(self):
        xy = np.asarray(self.xy, dtype=np.float64)
        if xy.ndim != 2 or xy.shape[1] != 2 or xy.shape[0] != len(self.names) or len(self.names) < 2:
            raise ValueError("A map needs at least two places, each with a name and (x, y) coordinates.")
        if len(set(self.names)) != len(self.names) or len(set(self.codes)) != len(self.codes):
            raise ValueError("Place names and codes must be unique.")
        if not np.isfinite(xy).all():
            raise ValueError("Place coordinates must be finite numbers.")
        xy.flags.writeable = False
        object.__setattr__(self, "xy", xy)

    @classmethod
    def from_arrays(cls, names, xy, codes=None, source: str = "custom map") -> "PointMap":
        names = tuple(str(n) for n in names)
        return cls(names, tuple(codes) if codes is not None else names, np.asarray(xy, dtype=np.float64), source)

    @classmethod
    def us_states(cls) -> "PointMap":
        """The 50 US states at their approximate centres (privlib/words/data/us_state_centres.csv; see that
        file for the source), projected to km with `azimuthal_equidistant` around the centre of
        the contiguous US. Hawaii (about 3,900 km from California) and Alaska are the islands;
        Kansas sits among neighbours about 300 km away."""
        with open(US_STATES_CSV, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
        lat = [float(r["lat"]) for r in rows]
        lon = [float(r["lon"]) for r in rows]
        return cls(tuple(r["name"] for r in rows), tuple(r["code"] for r in rows),
                   azimuthal_equidistant(lat, lon, US_PROJECTION_CENTRE),
                   "approximate US state centres, azimuthal equidistant projection (km)")

    def __len__(self) -> int:
        return len(self.names)

    def nearest_distance(self, name: str) -> float:
        """Distance (km) from the place ``name`` to the nearest other place."""
        if name not in self.names:
            raise ValueError(f"No place {name!r} on this map.")
        i = self.names.index(name)
        d = np.linalg.norm(self.xy - self.xy[i], axis=1)
        d[i] = np.inf
        return float(d.min())

    def index(self, place) -> int:
        """Row of a place given by name or code (ValueError listing a few when unknown)."""
        for options in (self.names, self.codes):
            if place in options:
                return options.index(place)
        raise ValueError(f"{place!r} is not on the map; places include {', '.join(self.names[:5])}, …")

    def nearest_neighbour_distances(self) -> np.ndarray:
        """Distance (km) from each place to the nearest other place."""
        d = np.sqrt(((self.xy[:, None, :] - self.xy[None, :, :]) ** 2).sum(-1))
        np.fill_diagonal(d, np.inf)
        return d.min(axis=1)

    def nearest(self, points) -> np.ndarray:
        """Row of the nearest place to each point (rows of an (m, 2) array; lowest row on ties)."""
        points = np.atleast_2d(np.asarray(points, dtype=np.float64))
        out = np.empty(points.shape[0], dtype=np.int64)
        x, y = self.xy[:, 0], self.xy[:, 1]
        # 1,000 x P distances at a time: bounded memory, and the block stays in the cache (for the 50 US states,
        # 400 KB: twice as fast as 20,000 rows, issue 22); the same arithmetic, so the same rows.
        for s in range(0, points.shape[0], 1_000):
            block = points[s:s + 1_000]
            dx = block[:, :1] - x  # the squared distance dx^2 + dy^2, as a sum over the 2 coordinates gives it
            dy = block[:, 1:] - y
            dx *= dx
            dy *= dy
            dx += dy
            out[s:s + block.shape[0]] = np.argmin(dx, axis=1)
        return out


@dataclass(frozen=True)
class KeepRates:
    """Proportion of runs in which each place is its own output, per epsilon (``rates``, shape
    (places, epsilons)); epsilon is per km."""

    epsilons: np.ndarray
    names: tuple
    rates: np.ndarray = field(repr=False)
    samples: int

    def standard_errors(self) -> np.ndarray:
        """Binomial standard errors sqrt(p(1-p)/samples), same shape as ``rates``."""
        return binomial_standard_error(self.rates, self.samples)

    def of(self, place) -> np.ndarray:
        return self.rates[self.names.index(place)]

    def at(self, epsilon: float) -> np.ndarray:
        """Every place's keep rate at ``epsilon``, one of ``epsilons`` (ValueError otherwise)."""
        hits = np.flatnonzero(np.isclose(self.epsilons, float(epsilon), rtol=1e-12, atol=0.0))
        if not hits.size:
            raise ValueError(f"ε = {epsilon:g} is not one of the simulated values "
                             f"({', '.join(f'{e:g}' for e in self.epsilons)}).")
        return self.rates[:, int(hits[0])]

    def to_dict(self) -> dict:
        return {"epsilons": self.epsilons.tolist(), "samples": self.samples,
                "rates": {n: r.tolist() for n, r in zip(self.names, self.rates)}}


def keep_rates(point_map: PointMap, epsilons, samples: int = 2000, rng=None, progress=None) -> KeepRates:
    """Geo-indistinguishability on ``point_map`` (paper Fig. 3): for each place and epsilon (per
    km), ``samples`` runs of "add planar Laplace noise (`laplace_noise`(2, eps): radius
    Gamma(2, 1/eps), uniform angle), output the nearest place"; the proportion of runs that
    output the place itself. For two places d apart this is exactly F_Z(d/2) with
    Z = NoisyDotProduct(2, eps) (Eq. 18 in two dimensions). ``progress(fraction, message)`` per epsilon.
    """
    eps = check_epsilons(epsilons)
    samples = check_positive_int(samples, "samples", minimum=1, maximum=1_000_000)
    rng = as_generator(rng)
    places = np.repeat(np.arange(len(point_map)), samples)
    rates = np.empty((len(point_map), eps.size))
    for j, e in enumerate(eps):
        noisy = point_map.xy[places] + laplace_noise(2, e, places.size, rng)
        kept = point_map.nearest(noisy) == places
        rates[:, j] = kept.reshape(len(point_map), samples).mean(axis=1)
        if progress is not None:
            progress((j + 1) / eps.size, f"Sampled ε = {e:g} per km ({j + 1} of {eps.size})")
    eps.flags.writeable = False
    rates.flags.writeable = False
    return KeepRates(eps, point_map.names, rates, samples)


# ----------------------------------------------------------------------------- Fig. 4
@dataclass(frozen=True)
class PlanarNoise:
    """Draws of the n = 2 multivariate Laplace noise (paper Fig. 4): ``noise`` (m, 2), its
    ``radius`` ||eta|| (law `NoiseRadius`(2, eps) = Gamma(2, scale 1/eps)) and ``angle`` in
    (-pi, pi] (uniform)."""

    epsilon: float
    noise: np.ndarray = field(repr=False)

    @property
    def radius(self) -> np.ndarray:
        return np.hypot(self.noise[:, 0], self.noise[:, 1])

    @property
    def angle(self) -> np.ndarray:
        return np.arctan2(self.noise[:, 1], self.noise[:, 0])

    @property
    def radius_law(self):
        return NoiseRadius(2, self.epsilon)

    def exact_densities(self, points: int = 300) -> dict:
        """The exact densities to draw beside the draws: {"radius": (grid, pdf)} of Gamma(2, scale
        1/eps) on [0, its 99.9 % quantile], and {"angle": (grid, pdf)}, the uniform density
        1/(2 pi) on [-pi, pi] (three points)."""
        law = self.radius_law
        r_grid = np.linspace(0, law.ppf(0.999), check_positive_int(points, "points", minimum=2))
        a_grid = np.linspace(-np.pi, np.pi, 3)
        return {"radius": (r_grid, law.pdf(r_grid)), "angle": (a_grid, np.full(3, 1 / (2 * np.pi)))}


def planar_noise(epsilon: float, samples: int = 5000, rng=None) -> PlanarNoise:
    """``samples`` draws of `laplace_noise`(2, epsilon) (the noise the map mechanism adds)."""
    epsilon = check_epsilon(epsilon)
    samples = check_positive_int(samples, "samples", minimum=1, maximum=1_000_000)
    noise = laplace_noise(2, epsilon, samples, as_generator(rng))
    noise.flags.writeable = False
    return PlanarNoise(epsilon, noise)


def laplace_1d_comparison(epsilons, samples: int = 10_000, close: int = CLOSE_1D, kind: str = "rounded",
                          rng=None) -> tuple[Laplace1DProportions, Laplace1DProportions]:
    """Fig. 1 with its check: (`laplace_1d_proportions`, `simulate_laplace_1d`) on the same
    epsilons, close cut-off and kind — the closed form and a simulation beside it."""
    return (laplace_1d_proportions(epsilons, close=close, kind=kind),
            simulate_laplace_1d(epsilons, samples, close=close, kind=kind, rng=rng))
