"""The private ERM mechanisms: each returns a w in the ball W = {‖w‖ ≤ R}, or says why it cannot.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425 (the paper); KST12 = Kifer, Smith, Thakurta (2012), COLT,
Alg. 1; CMS11 = Chaudhuri, Monteleoni, Sarwate (2011), JMLR, Alg. 1 (output perturbation). Every
mechanism sees the records only through the sums S = Σ a aᵀ, b_sum = Σ b, c_sum, n of a quadratic loss,
J(w) = (wᵀSw + b_sumᵀw + c_sum)/n, and solves min wᵀHw + gᵀw over ‖w‖ ≤ R exactly
(``solver.minimise_in_ball``). Neighbours replace one record, for every mechanism.

One class per mechanism, each a `privlib.core.mechanism.Mechanism` (through `ErmMechanism`): ε, and δ
where the guarantee has one, fixed and checked once by the keyword-only constructor;
``release(sums, loss, rng, records=None)`` → `FitResult`. `MECHANISMS` is the registry by ``name``.

- ``non_private`` (`NonPrivate`; takes no ε or δ): ŵ = argmin_{‖w‖≤R} J(w) (paper §3.1): H = S/n,
  g = b_sum/n.
- ``output`` (`OutputPerturbation`, CMS11 Alg. 1): w_Λ = argmin_{‖w‖≤R} J(w) + (Λ/2)‖w‖²
  (H = S/n + (Λ/2)I), released as w_Λ + b with density ∝ exp(−‖b‖/scale), scale = 2ζ/(nΛε)
  (‖b‖ ~ Gamma(shape d, scale), uniform direction: `privlib.core.noise.laplace_noise` at
  ε' = 1/scale): pure ε-DP, Λ from ``calibration.output_calibration`` (default Λ = √(2ζd/(nε)), our
  public rule). The result is then projected onto the ball (w·R/‖w‖ when ‖w‖ > R): post-processing,
  so still ε-DP (our choice; it keeps every released w in W, where J(w) − J(ŵ) ≥ 0).
- ``obj_gauss`` (`ObjectiveGaussian`, KST12 Alg. 1): argmin_{‖w‖≤R} J(w) + (Δ/(2n))‖w‖² + gᵀw/n,
  g ~ N(0, β²I_d), with Δ = 2λ/ε and β² = ζ_s²(8 ln(2/δ) + 4ε)/ε², ζ_s = 2ζ (replace-one).
- ``input_safe`` / ``input_asymptotic`` (`InputPerturbationSafe`, `InputPerturbationAsymptotic`;
  paper Alg. 1–2, eq. 4): the contributors send ã = a + N(0, σ_a²I), b̃ = b + N(0, σ_b²I); the
  database solves argmin_{‖w‖≤R} wᵀH̃w + g̃ᵀw with H̃ = Σ ã ãᵀ/n, g̃ = Σ b̃/n. σ's from
  ``calibration.safe_input_calibration`` (our addition: a proven (ε, δ)-DP calibration; invalid when
  n is too small, and then no model is returned — never a silent fallback) or
  ``calibration.asymptotic_input_calibration`` (the paper's n → ∞ match, reconstructed from its
  prose: NOT a guarantee). Both scale the two noise variances by ``inflate`` m ≥ 1 (§3.5). The sums
  come from ``sampler.exact_noisy_sums`` (same law, O(d³)) unless the records (a, b) are given,
  which forces the per-record protocol.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from privlib.core.mechanism import Guarantee, Mechanism, Parameter
from privlib.core.noise import laplace_noise
from privlib.core.registry import registry_by_name
from privlib.core.validation import as_generator, check_range
from privlib.erm.calibration import (
    asymptotic_input_calibration,
    local_guarantee,
    obj_gauss_calibration,
    output_calibration,
    safe_input_calibration,
)
from privlib.erm.losses import QuadraticLoss, QuadraticSums
from privlib.erm.sampler import exact_noisy_sums, per_record_noisy_sums, records_pair
from privlib.erm.solver import minimise_in_ball

#: The neighbouring relation of every mechanism here, in words (the unit of protection is one record).
NEIGHBOURS_IN_WORDS = "data sets that differ by replacing one record"
#: How the guarantee of input perturbation with the safe calibration is stated (the CLI and the page).
SAFE_INPUT_GUARANTEE = ("(ε, δ)-DP, replace-one — the project's proof sketch (beyond the paper); model DP holds "
                        "only if at least n honestly perturbed records arrive")


@dataclass(frozen=True)
class FitResult:
    """One fitted model: ``w`` (None when the calibration is invalid), ``valid`` and, when invalid, the
    ``reason`` in a plain sentence. ``method`` is the mechanism's ``name``."""

    method: str
    w: np.ndarray | None
    valid: bool
    reason: str


@lru_cache(maxsize=4096)
def input_calibration(route: str, epsilon: float, delta: float, n: int, d: int, R: float, A: float, B: float,
                      inflate: float):
    """The input calibration of ``route`` ("safe" or "asymptotic"), cached (a sweep asks for the same
    (ε, δ, n) once per repetition)."""
    maker = safe_input_calibration if route == "safe" else asymptotic_input_calibration
    return maker(epsilon, delta, n, d, R=R, A=A, B=B, inflate=inflate)


@lru_cache(maxsize=4096)
def cached_obj_gauss_calibration(epsilon: float, delta: float, zeta: float, lam: float):
    """KST12's Δ and β, replace-one (``calibration.obj_gauss_calibration``), cached."""
    return obj_gauss_calibration(epsilon, delta, zeta, lam, replace_one=True)


@lru_cache(maxsize=4096)
def cached_output_calibration(epsilon: float, n: int, d: int, zeta: float):
    """CMS11's Λ and noise scale (``calibration.output_calibration``), cached."""
    return output_calibration(epsilon, n, d, zeta)


def project_to_ball(w: np.ndarray, R: float) -> np.ndarray:
    """w·R/‖w‖ when ‖w‖ > R, else w (the Euclidean projection onto the ball)."""
    norm = float(np.linalg.norm(w))
    return w * (R / norm) if norm > R else w


def check_inflate(inflate) -> float:
    """The local multiplier m ≥ 1 of both input-noise variances (paper §3.5)."""
    # at most 1e50: the noise standard deviations grow by √m and their squares must stay finite in float64
    return check_range(inflate, "inflate m (the factor on both input-noise variances)", low=1.0, high=1e50)


class ErmMechanism(Mechanism):
    """A private-ERM mechanism: ``release(sums, loss, rng=None, records=None)`` checks the training sums
    (a `QuadraticSums`), the loss (a `QuadraticLoss`) and the optional per-record arrays (a, b), then
    calls ``_release(sums, loss, rng, records)`` with a numpy Generator and ``records`` as float64
    (n, d) arrays (or None)."""

    def release(self, sums, loss, rng=None, records=None) -> FitResult:
        if not isinstance(sums, QuadraticSums):
            raise ValueError("sums must be a QuadraticSums (loss.sums(X, y)).")
        if not isinstance(loss, QuadraticLoss):
            raise ValueError("loss must be a QuadraticLoss (losses.make_loss).")
        if records is not None:
            a, b = records_pair(*records)
            if a.shape != (sums.n, sums.d):
                raise ValueError(f"records must hold the n = {sums.n} records of the sums (shape ({sums.n}, "
                                 f"{sums.d})), got {a.shape}.")
            records = (a, b)
        return self._release(sums, loss, as_generator(rng), records)

    def _release(self, sums: QuadraticSums, loss: QuadraticLoss, rng: np.random.Generator, records) -> FitResult:
        raise NotImplementedError(f"{type(self).__name__} must define _release()")

    def _fitted(self, w) -> FitResult:
        return FitResult(self.name, w, True, "")


class NonPrivate(ErmMechanism):
    """ŵ = argmin_{‖w‖≤R} J(w) (paper §3.1): the reference every private model is measured against."""

    name = "non_private"
    label = "Non-private"
    REQUIRES_EPSILON = False

    def __init__(self):
        super().__init__(epsilon=None)

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="none", text="no privacy: the exact minimiser of the training data",
                         neighbours=NEIGHBOURS_IN_WORDS)

    def _release(self, sums, loss, rng, records) -> FitResult:
        return self._fitted(minimise_in_ball(sums.S / sums.n, sums.b_sum / sums.n, loss.R))


class OutputPerturbation(ErmMechanism):
    """CMS11 Alg. 1: the ridge minimiser w_Λ plus noise of density ∝ exp(−‖b‖/scale), scale =
    2ζ/(nΛε), projected onto the ball (module docstring). Pure ε-DP, replace-one."""

    name = "output"
    label = "Output perturbation (CMS11)"

    def __init__(self, *, epsilon):
        super().__init__(epsilon=epsilon)

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="pure-dp", text=f"ε-DP with ε = {self.epsilon:g}, replace-one [CMS11]",
                         neighbours=NEIGHBOURS_IN_WORDS, epsilon=self.epsilon)

    def _release(self, sums, loss, rng, records) -> FitResult:
        n, d = sums.n, sums.d
        cal = cached_output_calibration(self.epsilon, n, d, loss.zeta)
        w_lam = minimise_in_ball(sums.S / n + (0.5 * cal.Lambda) * np.eye(d), sums.b_sum / n, loss.R)
        # CMS11's noise, density ∝ exp(−‖b‖/scale), is the multivariate Laplace law at ε' = 1/scale
        noise = laplace_noise(d, 1.0 / cal.scale, 1, rng)[0]
        return self._fitted(project_to_ball(w_lam + noise, loss.R))


class ObjectiveGaussian(ErmMechanism):
    """KST12 Alg. 1 (Obj-Gauss): a ridge Δ/(2n) and a random linear term g ~ N(0, β²I) in the objective
    (module docstring). (ε, δ)-DP, replace-one (ζ_s = 2ζ)."""

    name = "obj_gauss"
    label = "Objective perturbation (Obj-Gauss, KST12)"
    USES_DELTA = True

    def __init__(self, *, epsilon, delta):
        super().__init__(epsilon=epsilon, delta=delta)

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="approximate-dp",
                         text=f"(ε, δ)-DP with ε = {self.epsilon:g}, δ = {self.delta:g}, replace-one [KST12]",
                         neighbours=NEIGHBOURS_IN_WORDS, epsilon=self.epsilon, delta=self.delta)

    def _release(self, sums, loss, rng, records) -> FitResult:
        n, d = sums.n, sums.d
        cal = cached_obj_gauss_calibration(self.epsilon, self.delta, loss.zeta, loss.lam)
        g = cal.beta * rng.standard_normal(d)
        H = sums.S / n + (cal.Delta / (2.0 * n)) * np.eye(d)
        return self._fitted(minimise_in_ball(H, (sums.b_sum + g) / n, loss.R))


class InputPerturbation(ErmMechanism):
    """Paper Alg. 1–2: every contributor perturbs her own (a, b) once; the database solves on the noisy
    sums (module docstring). Subclasses fix the calibration ``ROUTE``. ``inflate`` m ≥ 1 multiplies both
    noise variances (§3.5). The agreed n of the calibration is the ``sums.n`` of the release."""

    ROUTE = ""
    USES_DELTA = True
    PARAMETERS = {"inflate": Parameter(1.0, low=1.0, help="local multiplier m: every contributor multiplies both "
                                                           "noise variances by m (more local privacy, less accuracy)")}

    def __init__(self, *, epsilon, delta, inflate=1.0):
        super().__init__(epsilon=epsilon, delta=delta)
        self.inflate = check_inflate(inflate)

    def calibration(self, n: int, d: int, loss: QuadraticLoss):
        """The `InputCalibration` for n records of dimension d under ``loss`` (cached)."""
        return input_calibration(self.ROUTE, self.epsilon, self.delta, n, d, loss.R, loss.A, loss.B, self.inflate)

    def local_guarantee(self, n: int, d: int, loss: QuadraticLoss) -> Guarantee | None:
        """One contributor's own record against the database: local (ε_L, δ_L = δ)-DP (the paper's
        Cor. 1, exact via Balle & Wang 2018; ``calibration.local_guarantee``) at the agreed n, or None
        where the calibration is invalid."""
        cal = self.calibration(n, d, loss)
        if not cal.valid:
            return None
        local = local_guarantee(cal.sigma_a, cal.sigma_b, loss.A, loss.B, self.delta)
        return Guarantee(kind="local-dp", neighbours="one contributor's record against any other record",
                         text=f"local ε_L-DP of each submitted record: ε_L = {local.epsilon_L:.6g} at "
                              f"δ_L = {self.delta:g} (n = {n:,}; Cor. 1, exact via BW18)",
                         epsilon=local.epsilon_L, delta=self.delta, mu=local.mu)

    def _release(self, sums, loss, rng, records) -> FitResult:
        n = sums.n
        cal = self.calibration(n, sums.d, loss)
        if not cal.valid:
            return FitResult(self.name, None, False, cal.reason)
        if records is None:
            H, g = exact_noisy_sums(sums, cal.sigma_a, cal.sigma_b, rng)
        else:
            H, g = per_record_noisy_sums(*records, cal.sigma_a, cal.sigma_b, rng)
        return self._fitted(minimise_in_ball(H / n, g / n, loss.R))


class InputPerturbationSafe(InputPerturbation):
    """Input perturbation with the safe calibration (our addition): (ε, δ)-DP for the released model,
    replace-one, provided at least n honestly perturbed records arrive; no model below the smallest
    valid n."""

    name = "input_safe"
    label = "Input perturbation (safe calibration)"
    ROUTE = "safe"

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="approximate-dp", text=f"{SAFE_INPUT_GUARANTEE} (ε = {self.epsilon:g}, "
                                                     f"δ = {self.delta:g}; local ε_L: `local_guarantee`)",
                         neighbours=NEIGHBOURS_IN_WORDS, epsilon=self.epsilon, delta=self.delta)


class InputPerturbationAsymptotic(InputPerturbation):
    """Input perturbation with the paper's infinite-n match to Obj-Gauss (reconstructed from its prose):
    a teaching curve, NOT a guarantee at any finite n."""

    name = "input_asymptotic"
    label = "Input perturbation (asymptotic match, no guarantee)"
    ROUTE = "asymptotic"

    def _guarantee(self) -> Guarantee:
        return Guarantee(kind="none", neighbours=NEIGHBOURS_IN_WORDS,
                         text=f"no guarantee: the noise of Obj-Gauss at ε = {self.epsilon:g}, δ = {self.delta:g} "
                              "matched only as n → ∞ [R]")


#: Every mechanism, in the order the CLI, the page and the sweeps list them.
ALL_MECHANISMS: tuple[type[ErmMechanism], ...] = (
    NonPrivate, OutputPerturbation, ObjectiveGaussian, InputPerturbationSafe, InputPerturbationAsymptotic,
)
#: Every mechanism by its ``name`` (the CLI's ``--methods``, the page's picker).
MECHANISMS: dict[str, type[ErmMechanism]] = registry_by_name(ALL_MECHANISMS, "ERM mechanism")
METHODS = tuple(MECHANISMS)
METHOD_LABELS = {name: cls.label for name, cls in MECHANISMS.items()}
#: Methods whose noise is set by the input calibration (and scaled by ``inflate``).
INPUT_METHODS = tuple(name for name, cls in MECHANISMS.items() if issubclass(cls, InputPerturbation))


def check_method(method) -> str:
    """``method`` if it is one of ``METHODS``, else a ValueError listing them."""
    if method not in MECHANISMS:
        raise ValueError(f"Unknown method {method!r}: choose one of {', '.join(METHODS)}.")
    return method


def check_methods(methods) -> tuple[str, ...]:
    """A non-empty tuple of distinct method names from names or mechanism classes (a list, or a
    comma-separated string of names), order kept."""
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    out: list[str] = []
    for m in methods or ():
        if isinstance(m, type) and issubclass(m, ErmMechanism):
            m = m.name
        if check_method(m) not in out:
            out.append(m)
    if not out:
        raise ValueError(f"Give at least one method: {', '.join(METHODS)}.")
    return tuple(out)


def make_mechanism(name: str, *, epsilon=None, delta=None, inflate=None) -> ErmMechanism:
    """The mechanism ``name`` at ε and δ, each passed only to the classes that take it (the
    non-private fit takes neither; output perturbation no δ), and ``inflate`` only to input
    perturbation — so one sweep setting serves every method. ValueError for an unknown name or an
    invalid value."""
    cls = MECHANISMS[check_method(name)]
    kwargs = {}
    if cls.REQUIRES_EPSILON:
        kwargs["epsilon"] = epsilon
    if cls.USES_DELTA:
        kwargs["delta"] = delta
    if inflate is not None and "inflate" in cls.PARAMETERS:
        kwargs["inflate"] = inflate
    return cls(**kwargs)


__all__ = [
    "ALL_MECHANISMS",
    "INPUT_METHODS",
    "MECHANISMS",
    "METHODS",
    "METHOD_LABELS",
    "NEIGHBOURS_IN_WORDS",
    "SAFE_INPUT_GUARANTEE",
    "ErmMechanism",
    "FitResult",
    "InputPerturbation",
    "InputPerturbationAsymptotic",
    "InputPerturbationSafe",
    "NonPrivate",
    "ObjectiveGaussian",
    "OutputPerturbation",
    "check_inflate",
    "check_method",
    "check_methods",
    "input_calibration",
    "make_mechanism",
    "project_to_ball",
]
