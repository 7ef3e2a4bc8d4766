"""The DP mechanisms built on random projections and sign random projections, one class each.

Source: Ping Li & Xiaoyun Li, "Differential Privacy with Random Projections and Sign Random
Projections" (section, algorithm and equation numbers are the paper's).

Privacy model (§2): each row u of the data lies in [−1, 1]^p (scale into the box with PUBLIC
constants, e.g. pixels/255 — never with the data's own range or norm); two vectors are β-adjacent
when they differ in ONE coordinate by at most β (Def 2.3). Every mechanism protects each row on its
own. The projection (W, or OPORP's Π and w) is public randomness: drawn once per configuration from
``seed`` and reported in ``Release.public``; the noise and the coins are fresh from ``rng`` on every
release. Sensitivities always come from the realised projection (eqs. 12–13), never from a bound.

Full-precision outputs (``output = "real"``): Raw-data-G-OPT, DP-RP-G, Analytic DP-RP-G,
DP-RP-G-OPT, DP-RP-L, DP-RP-G-OPT-B, DP-OPORP. Sign outputs (``output = "sign"``, int8 ±1):
DP-SignRP-RR, DP-SignRP-RR-smooth, DP-SignOPORP-RR, DP-SignOPORP-RR-smooth and the individual-DP
(NOT DP) iDP-SignRP-G and iDP-SignRP-RR. In every sign mechanism sgn(0) is a fair ±1 coin (Alg 8
line 7; our addition for the others): np.sign(0) = 0 would be a third output symbol with unbounded
privacy loss. Keep and flip probabilities are expit(e) and expit(−e), overflow-free.

Usage: ``make_mechanism("dp-oporp", epsilon=5, delta=1e-6, k=128).release(X, rng)`` (δ is
required by the (ε, δ)-DP mechanisms, accepted and unused by the ε-DP ones); a sweep over ε projects
once with ``project(X)`` (which depends only on the public configuration: kind, p, k, seed, s, t)
and then calls ``release_projected(projected, rng, X)`` for each ε.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from scipy.special import expit, ndtr

from privlib.core.calibration import analytic_gaussian_sigma, kenthapadi_gaussian_sigma, laplace_scale
from privlib.core.mechanism import Guarantee, Mechanism, Parameter
from privlib.core.noise import gaussian_noise, laplace_scalar_noise
from privlib.core.registry import make_from_registry, registry_by_name
from privlib.core.validation import (
    as_generator,
    check_delta,
    check_positive_int,
    check_range,
    check_seed,
)
from privlib.projections.projection import (
    DENSE_KINDS,
    Projection,
    as_data_matrix,
    check_kind,
    make_projection,
)
from privlib.projections.quantities import analytic_rp_sigma, lemma33_bound, n_plus, smooth_levels

#: Default number of projections k (the synthetic data's default).
DEFAULT_K = 128

#: Relative slack in iDP-SignRP's test |x_j| ≤ β/√k (our addition, not in the paper): floating-point
#: rounding can only ADD bits to the randomised set A, never drop one.
IDP_THRESHOLD_SLACK = 1e-9


@dataclass(frozen=True)
class Release:
    """One release of a mechanism on n vectors.

    ``values``: (n, k) float64 for real outputs ((n, p) for Raw-data-G-OPT), int8 ±1 for sign
    outputs. ``public``: the public parameters (projection description, σ, ε per bit, N₊, …) —
    everything here may be published. ``sigma`` / ``epsilon_per_bit``: the noise σ or the
    per-bit privacy-loss bound when one number applies to every vector (None otherwise).
    ``diagnostics``: data-dependent quantities for analysis (e.g. smooth-flipping levels L_j,
    iDP's Ñ and σ per vector) — NOT part of the private release: publishing them may leak.
    """

    values: np.ndarray
    mechanism: str
    guarantee: str
    public: dict
    sigma: float | None = None
    epsilon_per_bit: float | None = None
    diagnostics: dict = field(default_factory=dict)


def check_unit_box(X, name: str = "X", p: int | None = None) -> np.ndarray:
    """X as a 2-D float64 array with every entry in [−1, 1] (§2), or a ValueError saying to scale
    the data with public constants."""
    X = as_data_matrix(X, name, p)
    if X.size and (X.min() < -1.0 or X.max() > 1.0):
        raise ValueError(
            f"{name} must lie in [-1, 1]^p (Li & Li §2), got values from {X.min():g} to {X.max():g}: scale the "
            "data with PUBLIC constants (e.g. divide pixels by 255), never with the data's own range or norms."
        )
    return X


def signs_with_coins(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """sgn(values) as int8 ±1, with a fair ±1 coin wherever a value is exactly 0 (Alg 8 line 7)."""
    signs = np.sign(values).astype(np.int8)
    zero = signs == 0
    if zero.any():
        signs[zero] = np.where(rng.random(int(zero.sum())) < 0.5, -1, 1).astype(np.int8)
    return signs


def oporp_repetition_seeds(seed: int, t: int) -> tuple[int, ...]:
    """The seeds of the t independent OPORPs of DP-SignOPORP (our convention, not in the paper):
    ``seed`` itself when t = 1 (the same OPORP as DP-OPORP at that seed), otherwise one seed per
    repetition r from numpy's SeedSequence((seed, r)), so repetitions are independent and
    reproducible."""
    seed = check_seed(seed)
    t = check_positive_int(t, "t (the number of OPORP repetitions)")
    if t == 1:
        return (seed,)
    return tuple(int(np.random.SeedSequence((seed, r)).generate_state(1, dtype=np.uint32)[0]) for r in range(t))


def _check_beta(beta) -> float:
    return check_range(beta, "beta (the largest change of one coordinate between neighbours, Def 2.3; the box "
                             "[-1, 1] has width 2)", low=0.0, low_inclusive=False, high=2.0)


#: The neighbouring relation of every mechanism here (Def 2.3): what one guarantee protects.
NEIGHBOURS = "β-adjacent vectors: one coordinate of one row changes by at most β"

#: The parameters every projection mechanism takes besides ε and δ.
BASE_PARAMETERS: dict[str, Parameter] = {
    "beta": Parameter(1.0, low=0.0, high=2.0, help="β-adjacency: one coordinate changes by at most β (0 < β ≤ 2; "
                                                   "the box [-1, 1] has width 2)"),
    "k": Parameter(DEFAULT_K, low=1, help="number of projections (projected values or bits per vector)"),
    "seed": Parameter(0, low=0, help="seed of the PUBLIC projection (the noise comes from the release's rng)"),
    "p": Parameter(None, low=1, help="data dimension (optional: taken from the data)"),
}


class ProjectionMechanism(Mechanism):
    """Base class: parameters, the public projection, data checks and the release pipeline.

    Keyword-only constructor ``(*, epsilon, delta=None, beta=1.0, k=128, seed=0, p=None, …)``,
    validated once (`privlib.core.mechanism.Mechanism`): δ is required by the (ε, δ)-DP mechanisms
    (``USES_DELTA``) and accepted but unused by the ε-DP ones. ``p`` is optional (it is taken from
    the data) but lets ``release_projected`` and ``public_parameters`` work without X.
    """

    output: ClassVar[str] = "real"
    is_dp: ClassVar[bool] = True
    USES_DELTA = True
    #: The projection kind, or None for Raw-data-G-OPT (no projection).
    kind: ClassVar[str | None] = "gaussian"
    PARAMETERS = BASE_PARAMETERS

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None):
        super().__init__(epsilon=epsilon, delta=delta)
        self._beta = _check_beta(beta)
        self._k = check_positive_int(k, "k (the number of projections)")
        self._seed = check_seed(seed)
        self._p = None if p is None else check_positive_int(p, "p (the data dimension)")
        self._public_cache: dict[int, dict] = {}

    # -- parameters ----------------------------------------------------------------------------
    @property
    def beta(self) -> float:
        return self._beta

    @property
    def k(self) -> int:
        return self._k

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def p(self) -> int | None:
        return self._p

    def _dp_guarantee(self, text: str) -> Guarantee:
        """A DP guarantee with ``text``: (ε, δ)-DP when this instance has a δ, else ε-DP."""
        kind = "pure-dp" if self._delta is None else "approximate-dp"
        return Guarantee(kind, text=text, neighbours=NEIGHBOURS, epsilon=self._epsilon, delta=self._delta)

    def _guarantee(self) -> Guarantee:
        if self._delta is not None:
            return self._dp_guarantee(f"(ε, δ)-DP under β-adjacency (ε = {self._epsilon:g}, δ = {self._delta:g}, "
                                      f"β = {self._beta:g}), for each vector")
        return self._dp_guarantee(f"ε-DP under β-adjacency (ε = {self._epsilon:g}, β = {self._beta:g}), "
                                  "for each vector")

    # -- the public randomness -----------------------------------------------------------------
    def projections(self, p: int) -> tuple[Projection, ...]:
        """The public projection(s) for p-dimensional data, drawn from ``seed`` (cached)."""
        p = check_positive_int(p, "p (the data dimension)")
        return (make_projection(self.kind, p, self._k, self._seed),)

    def _dimension(self, X) -> int:
        if X is not None:
            p = X.shape[1]
            if self._p is not None and p != self._p:
                raise ValueError(f"X has {p} columns but this mechanism was built for p = {self._p}.")
            return p
        if self._p is None:
            raise ValueError(f"{self.label} needs the data dimension: pass X=... or build the mechanism with p=....")
        return self._p

    def check_data(self, X) -> np.ndarray:
        """X as (n, p) float64 in [−1, 1]^p (and meeting any public norm bound), or a ValueError."""
        return check_unit_box(X, p=self._p)

    def project(self, X) -> np.ndarray:
        """The data the noise or coins are applied to: the projected data (n, k) (Raw-data-G-OPT:
        X itself). Depends only on the public configuration, so a sweep over ε computes it once."""
        return self._project(self.check_data(X))

    def _project(self, X: np.ndarray) -> np.ndarray:
        """`project` of data already checked."""
        projections = self.projections(X.shape[1])
        if len(projections) == 1:
            return projections[0].apply(X)
        return np.concatenate([proj.apply(X) for proj in projections], axis=1)

    def _width(self, p: int) -> int:
        return self._k

    # -- public parameters ---------------------------------------------------------------------
    def public_parameters(self, p: int | None = None) -> dict:
        """Everything that may be published for p-dimensional data (cached per p): the projection
        description (to_dict, not the matrix), β, ε, δ, and σ / ε per bit / N₊ / Δ as applicable."""
        p = self._dimension(None) if p is None else check_positive_int(p, "p (the data dimension)")
        if p not in self._public_cache:
            projections = self.projections(p)
            described = [proj.to_dict() for proj in projections]
            public = {
                "mechanism": self.name, "epsilon": self._epsilon, "delta": self._delta,
                "beta": self._beta, "k": self._k, "p": p, "seed": self._seed,
                "projection": described[0] if len(described) == 1 else (described or None),
            }
            public.update(self._public(projections, p))
            self._public_cache[p] = public
        return dict(self._public_cache[p])

    def _public(self, projections: tuple[Projection, ...], p: int) -> dict:
        raise NotImplementedError

    # -- releasing -----------------------------------------------------------------------------
    def release(self, X, rng=None) -> Release:
        """Release every row of X (n, p) in [−1, 1]^p: project, then add noise or randomise the bits."""
        X = self.check_data(X)
        return self._release(self._project(X), as_generator(rng), X)

    def release_projected(self, projected, rng=None, X=None) -> Release:
        """Release from already projected data (``project(X)``): only the noise / coins are drawn,
        fresh from ``rng`` (the sweep's fast path: one projection, many ε). ``X`` (the original
        rows) is needed when p was not given to the constructor, and by DP-SignRP-RR with m > 0
        (to enforce the norm bound)."""
        if X is not None:
            X = self.check_data(X)
        p = self._dimension(X)
        projected = as_data_matrix(projected, "projected")
        width = self._width(p)
        if projected.shape[1] != width:
            raise ValueError(f"projected must have {width} columns (the output of project(X)), got {projected.shape[1]}.")
        if X is not None and X.shape[0] != projected.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but projected has {projected.shape[0]}: pass the same rows.")
        return self._release(projected, as_generator(rng), X)

    def _release(self, projected: np.ndarray, rng: np.random.Generator, X: np.ndarray | None) -> Release:
        """The release of checked projected data: the noise or coins, and the public numbers."""
        public = self.public_parameters(self._dimension(X))
        values, diagnostics = self._randomise(projected, public, rng, X)
        return Release(values=values, mechanism=self.name, guarantee=self.guarantee.text, public=public,
                       sigma=public.get("sigma"), epsilon_per_bit=public.get("epsilon_per_bit"),
                       diagnostics=diagnostics)

    def _randomise(self, projected, public, rng, X) -> tuple[np.ndarray, dict]:
        raise NotImplementedError

    def describe(self) -> dict:
        """`Mechanism.describe` (name, label, guarantee, its kind, PARAMETERS) with the output kind,
        DP or not, the guarantee's numbers and neighbours, this instance's parameter values and
        (when p is known) the public parameters."""
        info = super().describe()
        info.update(output=self.output, is_dp=self.is_dp, guarantee_detail=self.guarantee.to_dict(),
                    values={"epsilon": self._epsilon, "delta": self._delta, **self.parameters})
        if self._p is not None:
            info["public"] = self.public_parameters(self._p)
        return info


# ------------------------------------------------------------------------------------------------
# Full-precision mechanisms (§3)
# ------------------------------------------------------------------------------------------------

class GaussianNoiseMechanism(ProjectionMechanism):
    """Projected data plus iid N(0, σ²) noise; subclasses define σ from the public projection.

    Exactly μ-GDP (Dong, Roth & Su 2022, "Gaussian differential privacy"): data + N(0, σ²I) with ℓ₂ sensitivity Δ₂ is
    μ-GDP with μ = Δ₂/σ, and for β-adjacency Δ₂ is the realised β·max_i ‖W_{i,:}‖₂ (eq. 13) — a
    statement about the public W actually drawn, stronger than the (ε, δ) it implies. ``_mu``
    gives that μ (None where it needs the data dimension and p is unknown); the guarantee then has
    kind "gdp" and carries ε and δ beside μ, and ``public["mu"]`` = Δ₂/σ."""

    output = "real"

    def _sigma(self, projection: Projection, p: int) -> dict:
        raise NotImplementedError

    def _mu(self) -> float | None:
        """μ = Δ₂/σ of this instance's guarantee. σ*(ε, δ, Δ) = Δ·σ*(ε, δ, 1) (the analytic Gaussian
        scales with Δ), so for the analytic calibrations μ = 1/σ*(ε, δ, 1) whatever the realised Δ₂."""
        return 1.0 / analytic_gaussian_sigma(self._epsilon, self._delta, 1.0)

    def _dp_claim(self) -> Guarantee:
        """The (ε, δ)-DP guarantee the calibration was designed for (the μ-GDP one implies it)."""
        return super()._guarantee()

    def _guarantee(self) -> Guarantee:
        dp = self._dp_claim()
        mu = self._mu()
        if mu is None:
            return dp
        return Guarantee("gdp", text=f"{dp.text}; exactly μ-GDP with μ = Δ₂/σ = {mu:.4g}", neighbours=dp.neighbours,
                         epsilon=dp.epsilon, delta=dp.delta, mu=mu)

    def _public(self, projections, p):
        projection = projections[0]
        delta2 = projection.delta2(self._beta)
        if delta2 == 0:
            raise ValueError("The drawn projection ignores every coordinate (all-zero matrix): choose another seed "
                             "or a smaller s.")
        public = {"delta2": delta2, "delta1": projection.delta1(self._beta), **self._sigma(projection, p)}
        return {**public, "mu": delta2 / public["sigma"]}

    def _randomise(self, projected, public, rng, X):
        return projected + gaussian_noise(public["sigma"], projected.shape, rng), {}


class RawDataGaussianOpt(GaussianNoiseMechanism):
    """Raw-data-G-OPT (§3.6): u + N(0, σ²I_p) with σ = σ*(ε, δ, β), the analytic Gaussian
    mechanism (eq. 14, Balle & Wang) at the L2 sensitivity β of one coordinate. The baseline
    that the projection mechanisms are compared with; no projection."""

    name = "raw-data-g-opt"
    label = "Raw-data-G-OPT"
    kind = None

    def projections(self, p):
        check_positive_int(p, "p (the data dimension)")
        return ()

    def _project(self, X):
        return X.copy()

    def _width(self, p):
        return p

    def _public(self, projections, p):
        sigma = analytic_gaussian_sigma(self._epsilon, self._delta, self._beta)
        return {"delta2": self._beta, "delta1": self._beta, "sigma": sigma, "mu": self._beta / sigma}


class DPRPG(GaussianNoiseMechanism):
    """DP-RP-G (Alg 1, Thm 3.1): Gaussian W, x + N(0, σ²I_k) with Kenthapadi et al.'s
    σ = Δ₂·√(2(log(1/δ) + ε))/ε at the realised Δ₂ (eq. 13). Requires δ < ½."""

    name = "dp-rp-g"
    label = "DP-RP-G"
    kind = "gaussian"

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None):
        super().__init__(epsilon=epsilon, delta=delta, beta=beta, k=k, seed=seed, p=p)
        if self._delta >= 0.5:
            raise ValueError(f"DP-RP-G (Kenthapadi et al.'s σ, Thm 3.1) needs delta < 1/2, got {self._delta:g}: "
                             "use a smaller delta (e.g. 1e-6).")

    def _sigma(self, projection, p):
        return {"sigma": kenthapadi_gaussian_sigma(self._epsilon, self._delta, projection.delta2(self._beta))}

    def _mu(self):
        """μ = Δ₂/σ = ε/√(2(ln(1/δ) + ε)) (σ is proportional to the realised Δ₂)."""
        return self._epsilon / math.sqrt(2.0 * (math.log(1.0 / self._delta) + self._epsilon))


class AnalyticDPRPG(GaussianNoiseMechanism):
    """Analytic DP-RP-G (Thm 3.4): Gaussian W, x + N(0, σ²I_k) with

        σ = β·√(1 + 2√(log(2p/δ)/k) + 2·log(2p/δ)/k) · √(2(log(2/δ) + ε))/ε,

    the Lemma 3.3 bound on Δ₂ (failure probability δ/2) times Kenthapadi's factor at δ/2. Here δ
    includes the draw of W (Lemma 3.3), which is public: ``public["bound_holds"]`` says whether
    the realised Δ₂ is within the bound. Requires δ < ½."""

    name = "analytic-dp-rp-g"
    label = "Analytic DP-RP-G"
    kind = "gaussian"

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None):
        super().__init__(epsilon=epsilon, delta=delta, beta=beta, k=k, seed=seed, p=p)
        if self._delta >= 0.5:
            raise ValueError(f"Analytic DP-RP-G (Thm 3.4) needs delta < 1/2, got {self._delta:g}: use a smaller delta.")

    def _dp_claim(self) -> Guarantee:
        return self._dp_guarantee(f"(ε, δ)-DP under β-adjacency (ε = {self._epsilon:g}, δ = {self._delta:g}, "
                                  f"β = {self._beta:g}), for each vector, δ including the draw of the public W "
                                  "(Thm 3.4)")

    def _mu(self):
        """μ = realised Δ₂/σ: σ covers the Lemma 3.3 bound, not the realised Δ₂, so μ needs the data
        dimension; None (the (ε, δ) guarantee of Thm 3.4 only) when p was not given."""
        return None if self._p is None else self.public_parameters(self._p)["mu"]

    def _sigma(self, projection, p):
        bound = lemma33_bound(self._beta, p, self._k, self._delta / 2.0)
        return {"sigma": analytic_rp_sigma(self._epsilon, self._delta, self._beta, p, self._k),
                "lemma33_bound": bound, "bound_holds": bool(projection.delta2(self._beta) <= bound)}


class DPRPGOpt(GaussianNoiseMechanism):
    """DP-RP-G-OPT (Thm 3.5): Gaussian W, x + N(0, σ²I_k) with σ = σ*(ε, δ, Δ₂), the analytic
    Gaussian mechanism (eq. 14) at the realised Δ₂ (eq. 13; ≈ 1.14β for p = 784, k = 256)."""

    name = "dp-rp-g-opt"
    label = "DP-RP-G-OPT"
    kind = "gaussian"

    def _sigma(self, projection, p):
        return {"sigma": analytic_gaussian_sigma(self._epsilon, self._delta, projection.delta2(self._beta))}


class DPRPL(ProjectionMechanism):
    """DP-RP-L (Alg 2): Gaussian W, x + iid Laplace(Δ₁/ε) with the realised Δ₁ (eq. 12): ε-DP.
    (The Lemma 3.7 bound would not give pure DP.) ``public["laplace_scale"]`` is Δ₁/ε and
    ``public["noise_sd"]`` = √2·Δ₁/ε."""

    name = "dp-rp-l"
    label = "DP-RP-L"
    kind = "gaussian"
    USES_DELTA = False

    def _public(self, projections, p):
        delta1 = projections[0].delta1(self._beta)
        scale = laplace_scale(self._epsilon, delta1)
        return {"delta1": delta1, "delta2": projections[0].delta2(self._beta), "laplace_scale": scale,
                "noise_sd": math.sqrt(2.0) * scale}

    def _randomise(self, projected, public, rng, X):
        return projected + laplace_scalar_noise(public["laplace_scale"], projected.shape, rng), {}


class DPRPGOptB(DPRPGOpt):
    """DP-RP-G-OPT-B (Alg 3, §3.4): x + N(0, σ²I_k) with σ = σ*(ε, δ, Δ₂) at the realised Δ₂ of
    the chosen projection: ``projection`` = "rademacher" (default; Δ₂ = β exactly), "gaussian",
    "uniform" (√3·U[−1,1]) or "sparse" (√s·{−1,0,1}, parameter ``s``)."""

    name = "dp-rp-g-opt-b"
    label = "DP-RP-G-OPT-B"
    kind = "rademacher"
    PARAMETERS = {
        **BASE_PARAMETERS,
        "projection": Parameter("rademacher", choices=DENSE_KINDS,
                                help="the dense projection (rademacher: Δ₂ = β exactly)"),
        "s": Parameter(3, low=1, help="sparsity of the very sparse projection (s = 1 is Rademacher)"),
    }

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None, projection="rademacher", s=3):
        super().__init__(epsilon=epsilon, delta=delta, beta=beta, k=k, seed=seed, p=p)
        kind = check_kind(projection)
        if kind not in DENSE_KINDS:
            raise ValueError(f"DP-RP-G-OPT-B takes a dense projection ({', '.join(DENSE_KINDS)}), got {projection!r}: "
                             "use DP-OPORP (dp-oporp) for OPORP.")
        self.kind = kind  # instance attribute: this mechanism's projection kind
        self._s = check_range(s, "s (the sparsity of the very sparse projection; s = 1 is Rademacher)", low=1.0)

    @property
    def projection(self) -> str:
        return self.kind

    @property
    def s(self) -> float:
        return self._s

    def projections(self, p):
        p = check_positive_int(p, "p (the data dimension)")
        return (make_projection(self.kind, p, self._k, self._seed, s=self._s),)


class DPOPORP(DPRPGOpt):
    """DP-OPORP (Alg 5): the OPORP bin sums x (Alg 4, no 1/√k) + N(0, σ²I_k) with
    σ = σ*(ε, δ, β): each coordinate lies in one bin and |w| = 1, so Δ₂ = β."""

    name = "dp-oporp"
    label = "DP-OPORP"
    kind = "oporp"


# ------------------------------------------------------------------------------------------------
# Sign mechanisms (§4, §6)
# ------------------------------------------------------------------------------------------------

class SignMechanism(ProjectionMechanism):
    """Sign bits of the projection, randomised bit by bit; values int8 ±1.

    Subclasses give ``_keep_exponent``: e per bit (or one float for every bit), the bit sgn(x_j) being
    kept with probability expit(e) and flipped with probability expit(−e) (e = ∞: always kept). A bit
    with x_j = 0 is a fair coin.
    """

    output = "sign"
    USES_DELTA = False

    def _keep_exponent(self, projected: np.ndarray, public: dict) -> tuple[np.ndarray | float, dict]:
        raise NotImplementedError

    def plus_probabilities(self, projected, X=None) -> np.ndarray:
        """P(output bit = +1) for each bit, (n, k) float64, exactly: the output law (the bits are
        independent given u). Used to check the privacy loss exactly, without sampling."""
        if X is not None:
            X = self.check_data(X)
        public = self.public_parameters(self._dimension(X))
        projected = as_data_matrix(projected, "projected")
        exponent, _ = self._keep_exponent(projected, public)
        if np.ndim(exponent) == 0:  # one exponent for every bit (randomised response): three values to place
            values = np.array([expit(-exponent), 0.5, expit(exponent)])
            return values[np.sign(projected).astype(np.intp) + 1]
        return np.where(projected > 0, expit(exponent), np.where(projected < 0, expit(-exponent), 0.5))

    def _randomise(self, projected, public, rng, X):
        exponent, diagnostics = self._keep_exponent(projected, public)
        signs = signs_with_coins(projected, rng)
        flip = rng.random(projected.shape) < expit(-exponent)
        return np.where(flip, -signs, signs).astype(np.int8), diagnostics


class DPSignRPRR(SignMechanism):
    """DP-SignRP-RR (Alg 6, Thm 4.1): Gaussian W; keep each bit of sgn(x) with probability
    e^{ε′}/(e^{ε′} + 1), ε′ = ε/N₊, where N₊ (eq. 27, Prop 4.5, from P₊ of eq. 26) bounds the number
    of bits that can change between neighbours when every ‖u‖ ≥ m.

    ``m`` is a PUBLIC lower bound on ‖u‖, enforced on all data (rows with ‖u‖ < m are refused),
    with m ≥ β. m = 0 (default): N₊ = k and the mechanism is pure ε-DP (Rem 4.1). With m > 0 it is
    (ε, δ)-DP where δ is a probability over the draw of W for each pair of neighbours — but W is
    public, so a vector adversarially placed (e.g. orthogonal to the columns) can have every bit
    at risk: not a worst-case guarantee over data given W.
    """

    name = "dp-signrp-rr"
    label = "DP-SignRP-RR"
    kind = "gaussian"
    PARAMETERS = {**BASE_PARAMETERS,
                  "m": Parameter(0.0, low=0.0, help="PUBLIC lower bound on every vector's norm, enforced on all "
                                                    "data (0 = none: N₊ = k, pure ε-DP; else at least β)")}

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None, m=0.0):
        super().__init__(epsilon=epsilon, delta=delta, beta=beta, k=k, seed=seed, p=p)
        self._m = check_range(m, "m (the public lower bound on the norm of every vector; 0 = none)", low=0.0)
        if 0 < self._m < self._beta:
            raise ValueError(f"m (the public lower bound on ||u||) must be 0 (no bound: N+ = k, pure ε-DP) or at least "
                             f"beta = {self._beta:g}, got m = {self._m:g}: raise m or lower beta.")
        if self._m > 0:
            # with a norm bound, N₊ (eq. 27) holds with probability 1 − δ: δ enters the guarantee
            if delta is None:
                raise ValueError("DP-SignRP-RR with m > 0 is (ε, δ)-DP (N₊ of eq. 27 holds with probability "
                                 "1 − δ): give delta, e.g. 1e-6.")
            self._delta = check_delta(delta)

    @property
    def m(self) -> float:
        return self._m

    def _guarantee(self) -> Guarantee:
        if self._m == 0:
            return self._dp_guarantee(f"ε-DP under β-adjacency (ε = {self._epsilon:g}, β = {self._beta:g}; N₊ = k), "
                                      "for each vector")
        return self._dp_guarantee(
            f"(ε, δ)-DP under β-adjacency for ‖u‖ ≥ m (ε = {self._epsilon:g}, δ = {self._delta:g}, "
            f"β = {self._beta:g}, m = {self._m:g}), δ over the draw of the PUBLIC W per pair — not a "
            "worst case over data given W")

    def check_data(self, X):
        X = super().check_data(X)
        if self._m > 0:
            norms = np.sqrt(np.einsum("ij,ij->i", X, X))
            low = np.flatnonzero(norms < self._m)
            if low.size:
                raise ValueError(
                    f"{low.size} row(s) of X (e.g. row {low[0]}, norm {norms[low[0]]:g}) have ||u|| < m = {self._m:g}: m "
                    "must be a public lower bound enforced on ALL data (Alg 6): drop those rows or lower m."
                )
        return X

    def release_projected(self, projected, rng=None, X=None):
        if self._m > 0 and X is None:
            raise ValueError("DP-SignRP-RR with m > 0 needs X=... to enforce the public norm bound ||u|| >= m.")
        return super().release_projected(projected, rng, X)

    def _public(self, projections, p):
        count = float(n_plus(p, self._k, self._delta, self._m, self._beta)) if self._m > 0 else float(self._k)
        return {"m": self._m, "n_plus": count, "epsilon_per_bit": self._epsilon / count,
                "delta2": projections[0].delta2(self._beta)}

    def _keep_exponent(self, projected, public):
        return float(public["epsilon_per_bit"]), {}  # the same for every bit


class DPSignRPRRSmooth(SignMechanism):
    """DP-SignRP-RR-smooth (Alg 7, Thm 4.7): Gaussian W; for each column j, z_j = w_jᵀu
    (UNSCALED), D_j = β·maxᵢ|W_ij|, L_j = ⌈|z_j|/D_j⌉, and the bit sgn(z_j) is kept with
    probability expit(L_j·ε/k). ε-DP: L_j moves by at most 1 between neighbours, and a bit can
    change sign only where L_j ≤ 1, so each bit's log-ratio is at most ε/k
    (``epsilon_per_bit``). z and D must share one scaling: the paper's box (scaled x over
    unscaled D) is conservative; the reverse mix is NOT DP. ``diagnostics["levels"]`` holds L."""

    name = "dp-signrp-rr-smooth"
    label = "DP-SignRP-RR-smooth"
    kind = "gaussian"

    def _public(self, projections, p):
        projection = projections[0]
        column_max = projection.column_max_abs
        if np.any(column_max == 0):
            raise ValueError("A column of the drawn projection is all zero: choose another seed.")
        return {"epsilon_per_bit": self._epsilon / self._k, "delta2": projection.delta2(self._beta),
                "D": (self._beta * column_max).tolist(), "scale": projection.scale}

    def _keep_exponent(self, projected, public):
        z = np.abs(projected) / public["scale"]  # unscaled z_j = w_jᵀu
        levels = smooth_levels(z, np.asarray(public["D"]))
        return levels * (self._epsilon / self._k), {"levels": levels.astype(np.int64)}


class DPSignOPORPRR(SignMechanism):
    """DP-SignOPORP-RR (Alg 8, Thm 4.8): the signs of the OPORP bin sums x (Alg 4), each kept
    with probability expit(ε); x_j = 0 (an empty bin, or a sum that cancels) gives a coin. ε-DP:
    one coordinate lies in one bin, so one bit can change.

    ``t`` repetitions (t | k): t independent OPORPs (new Π and w each, seeds from
    `oporp_repetition_seeds`) of k/t bins each with budget ε/t, concatenated — ε/t per bit, ε in
    total.
    """

    name = "dp-signoporp-rr"
    label = "DP-SignOPORP-RR"
    kind = "oporp"
    PARAMETERS = {**BASE_PARAMETERS,
                  "t": Parameter(1, low=1, help="independent OPORP repetitions (t divides k), ε/t per bit")}

    def __init__(self, *, epsilon, delta=None, beta=1.0, k=DEFAULT_K, seed=0, p=None, t=1):
        super().__init__(epsilon=epsilon, delta=delta, beta=beta, k=k, seed=seed, p=p)
        self._t = check_positive_int(t, "t (the number of independent OPORP repetitions)")
        if self._k % self._t:
            raise ValueError(f"t = {self._t} must divide k = {self._k} (t OPORPs of k/t bins each): choose t among "
                             f"the divisors of k, e.g. {', '.join(str(d) for d in (1, 2, 4, 8) if self._k % d == 0)}.")

    @property
    def t(self) -> int:
        return self._t

    def projections(self, p):
        p = check_positive_int(p, "p (the data dimension)")
        return tuple(make_projection("oporp", p, self._k // self._t, seed)
                     for seed in oporp_repetition_seeds(self._seed, self._t))

    def _public(self, projections, p):
        return {"t": self._t, "bins_per_repetition": self._k // self._t, "epsilon_per_bit": self._epsilon / self._t,
                "delta2": self._beta}

    def _keep_exponent(self, projected, public):
        return float(public["epsilon_per_bit"]), {}  # the same for every bit


class DPSignOPORPRRSmooth(DPSignOPORPRR):
    """DP-SignOPORP-RR-smooth (Alg 8, Thm 4.8): the OPORP signs with smooth flipping:
    L_j = ⌈|x_j|/β⌉ and the bit is kept with probability expit(L_j·ε/t) (t repetitions as in
    DP-SignOPORP-RR); x_j = 0 gives L_j = 0, a coin. ε-DP with each bit's log-ratio at most ε/t.
    ``diagnostics["levels"]`` holds L."""

    name = "dp-signoporp-rr-smooth"
    label = "DP-SignOPORP-RR-smooth"

    def _keep_exponent(self, projected, public):
        levels = smooth_levels(np.abs(projected), self._beta)
        return levels * public["epsilon_per_bit"], {"levels": levels.astype(np.int64)}


class IndividualDPSignRP(SignMechanism):
    """Shared part of iDP-SignRP (Alg 9–11): Rademacher W, x = Wᵀu/√k; the set
    A = {j : |x_j| ≤ β/√k} (Alg 10) holds the bits a neighbour can change, Ñ = |A|. Bits outside A
    are released exactly. A and Ñ are computed from u itself, so this is individual DP (Def 2.6)
    — NOT DP: do not add its ε to DP budgets."""

    is_dp = False
    kind = "rademacher"

    def _guarantee(self) -> Guarantee:
        # kind "none": individual DP compares u only with u's own neighbours (Def 2.6), no DP bound
        text = (f"individual DP — not DP (ε = {self._epsilon:g}"
                + (f", δ = {self._delta:g}" if self._delta is not None else "")
                + f", β = {self._beta:g}; only between the actual u and its neighbours, Def 2.6)")
        return Guarantee("none", text=text, neighbours=NEIGHBOURS, epsilon=self._epsilon, delta=self._delta)

    def _public(self, projections, p):
        threshold = self._beta / math.sqrt(self._k)
        return {"threshold": threshold, "delta2": projections[0].delta2(self._beta)}

    def at_risk(self, projected: np.ndarray, public: dict) -> np.ndarray:
        """The mask of A: |x_j| ≤ β/√k (Alg 10), with a tiny relative slack so rounding can only
        enlarge A."""
        return np.abs(projected) <= public["threshold"] * (1.0 + IDP_THRESHOLD_SLACK)


class IDPSignRPRR(IndividualDPSignRP):
    """iDP-SignRP-RR (Alg 9–11, Thm 6.2): bits in A flipped with probability 1/(e^{ε/Ñ} + 1),
    bits outside A released exactly; Ñ = 0 gives the plain SignRP. ``diagnostics["n_tilde"]``
    holds Ñ per vector (data-dependent: not public)."""

    name = "idp-signrp-rr"
    label = "iDP-SignRP-RR"
    USES_DELTA = False

    def _keep_exponent(self, projected, public):
        mask = self.at_risk(projected, public)
        counts = mask.sum(axis=1)
        per_bit = np.divide(self._epsilon, counts, out=np.full(counts.shape, np.inf), where=counts > 0)
        exponent = np.where(mask, per_bit[:, None], np.inf)
        return exponent, {"n_tilde": counts, "epsilon_per_bit": per_bit}


class IDPSignRPG(IndividualDPSignRP):
    """iDP-SignRP-G (Alg 9–11, Thm 6.1): bits in A released as sgn(x_j + N(0, σ²)) with
    σ = σ*(ε, δ, β√(Ñ/k)) (eq. 14 at the L2 sensitivity of x_A), bits outside A exactly; Ñ = 0
    gives the plain SignRP. ``diagnostics`` holds Ñ and σ per vector (data-dependent: not public)."""

    name = "idp-signrp-g"
    label = "iDP-SignRP-G"
    USES_DELTA = True

    def _sigmas(self, counts: np.ndarray) -> np.ndarray:
        unit = analytic_gaussian_sigma(self._epsilon, self._delta, 1.0)  # σ*(ε, δ, Δ) = Δ·σ*(ε, δ, 1)
        return unit * self._beta * np.sqrt(counts / self._k)

    def plus_probabilities(self, projected, X=None):
        if X is not None:
            X = self.check_data(X)
        public = self.public_parameters(self._dimension(X))
        projected = as_data_matrix(projected, "projected")
        mask = self.at_risk(projected, public)
        sigmas = self._sigmas(mask.sum(axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            noisy = ndtr(projected / sigmas[:, None])
        exact = np.where(projected > 0, 1.0, np.where(projected < 0, 0.0, 0.5))
        return np.where(mask, noisy, exact)

    def _randomise(self, projected, public, rng, X):
        mask = self.at_risk(projected, public)
        counts = mask.sum(axis=1)
        sigmas = self._sigmas(counts)
        noise = gaussian_noise(1.0, projected.shape, rng) * sigmas[:, None]
        values = signs_with_coins(np.where(mask, projected + noise, projected), rng)
        return values, {"n_tilde": counts, "sigma": sigmas}


# ------------------------------------------------------------------------------------------------
# Registry
# ------------------------------------------------------------------------------------------------

#: Every mechanism, in the paper's order.
ALL_MECHANISMS: tuple[type[ProjectionMechanism], ...] = (
    RawDataGaussianOpt, DPRPG, AnalyticDPRPG, DPRPGOpt, DPRPL, DPRPGOptB, DPOPORP,
    DPSignRPRR, DPSignRPRRSmooth, DPSignOPORPRR, DPSignOPORPRRSmooth, IDPSignRPG, IDPSignRPRR,
)

#: Every mechanism by its CLI ``name``.
MECHANISMS: dict[str, type[ProjectionMechanism]] = registry_by_name(ALL_MECHANISMS, "projection mechanism")


def make_mechanism(name: str, **params) -> ProjectionMechanism:
    """``MECHANISMS[name](**params)`` with ``epsilon`` (required), ``delta`` (required by the
    (ε, δ)-DP mechanisms) and the mechanism's ``PARAMETERS``; ValueError for an unknown name or
    parameter (`privlib.core.registry.make_from_registry`)."""
    return make_from_registry(MECHANISMS, name, params)
