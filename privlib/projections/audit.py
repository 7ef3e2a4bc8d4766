"""Auditing a random-projection mechanism against its claim (`privlib.core.audit`: the empirical
lower bound ε̂, and μ̂ for the exactly Gaussian releases, with Clopper–Pearson confidence;
Jagielski, Ullman & Oprea 2020, Nasr et al. 2021).

The unit of protection is one attribute of one vector (β-adjacency, Li & Li Def 2.3). The pair is
x = −(β/2)·e_i and x′ = +(β/2)·e_i in [−1, 1]^p (p = `AUDIT_DIMENSION`), i the attribute whose row of
the realised projection has the largest norm: the pair that attains the realised sensitivity
Δ₂ = β·max_i ‖W_{i,:}‖₂ (eq. 13), so the audit is as tight as one pair can make it (spec §3, attribute
inference). DP-SignRP-RR with a norm bound m > 0 adds a second attribute (the one of the smallest
row norm) at the value that brings ‖x‖ to m, as the mechanism refuses smaller vectors.

The test's score is each release's exact log-likelihood ratio up to a constant: o·(Wx − Wx′) for the
Gaussian releases (x + N(0, σ²I)), Σ_j |o_j − (Wx′)_j| − |o_j − (Wx)_j| for DP-RP-L's Laplace noise, and
for the sign releases Σ_j log P(o_j | x)/P(o_j | x′) from the exact bit probabilities
(``plus_probabilities``: the bits are independent given the input).

The Gaussian releases are exactly μ-GDP (Dong, Roth & Su 2022): a Gaussian mechanism is (ε, δ)-DP
exactly when its μ = Δ₂/σ is at most μ*(ε, δ) = 1/σ*(ε, δ, 1), the analytic Gaussian σ of Balle &
Wang 2018. So their claim gains μ*(ε, δ), computed from ε and δ alone (not from the mechanism's own σ,
which is what the audit checks), and the audit reports μ̂, far more powerful than ε̂ (spec §4).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from privlib.core.audit import DEFAULT_RELEASES, AuditResult, audit, claim_of
from privlib.core.calibration import analytic_gaussian_sigma
from privlib.core.mechanism import Guarantee
from privlib.core.sweep import Progress
from privlib.projections.mechanisms import (
    DPRPL,
    MECHANISMS,
    DPSignRPRR,
    GaussianNoiseMechanism,
    ProjectionMechanism,
    SignMechanism,
    make_mechanism,
)

#: The data dimension of the audit's pair (that of scikit-learn's digits, 8 × 8 pixels).
AUDIT_DIMENSION = 64

#: The pair, for people.
UNIT_OF_PROTECTION = (f"one attribute of one vector: x = −(β/2)e_i and x′ = +(β/2)e_i in [−1, 1]^{AUDIT_DIMENSION}, "
                      "i the attribute of the largest projection row norm (the realised Δ₂)")


def neighbouring_pair(mechanism: ProjectionMechanism, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(x, x′), each a (p,) vector: β apart in the attribute of the largest projection row norm."""
    rows = mechanism.project(np.eye(p))  # row i: the projection of e_i (the projection is linear)
    norms = np.linalg.norm(rows, axis=1)
    attribute = int(np.argmax(norms))
    base = np.zeros(p)
    if isinstance(mechanism, DPSignRPRR) and mechanism.m > 0:
        if p < 2:
            raise ValueError("DP-SignRP-RR with m > 0 needs p >= 2 for the audit's pair.")
        other = int(np.argmin(np.where(np.arange(p) == attribute, np.inf, norms)))
        value = float(np.sqrt(max(mechanism.m**2 - (mechanism.beta / 2) ** 2, 0.0)))
        if value > 1:
            raise ValueError(f"m = {mechanism.m:g} is too large for the audit's pair (two attributes in [-1, 1]): "
                             "choose m of at most 1.")
        # a hair above: ‖x‖ computed in floats must not fall below m
        base[other] = min(1.0, value * (1 + 1e-12))
    x, y = base.copy(), base.copy()
    x[attribute], y[attribute] = -mechanism.beta / 2, mechanism.beta / 2
    return x, y


def likelihood_score(mechanism: ProjectionMechanism, x: np.ndarray, y: np.ndarray):
    """The exact log-likelihood ratio of x against x′ of each release, up to a constant and a
    positive factor (module docstring)."""
    if isinstance(mechanism, SignMechanism):
        plus_x, plus_y = (mechanism.plus_probabilities(mechanism.project(v[None]), v[None])[0] for v in (x, y))
        with np.errstate(divide="ignore"):
            if_plus = np.log(plus_x) - np.log(plus_y)
            if_minus = np.log1p(-plus_x) - np.log1p(-plus_y)
        return lambda outputs: np.where(np.asarray(outputs) > 0, if_plus, if_minus).sum(axis=1)
    centre_x, centre_y = mechanism.project(x[None])[0], mechanism.project(y[None])[0]
    if isinstance(mechanism, DPRPL):
        return lambda outputs: (np.abs(outputs - centre_y) - np.abs(outputs - centre_x)).sum(axis=1)
    difference, middle = centre_x - centre_y, (centre_x + centre_y) / 2
    return lambda outputs: (outputs - middle) @ difference


def gaussian_claim(mechanism: ProjectionMechanism) -> Guarantee:
    """The mechanism's (ε, δ) claim with μ*(ε, δ) = 1/σ*(ε, δ, 1): what an exactly Gaussian
    (ε, δ)-DP release allows (module docstring)."""
    claim = mechanism.guarantee
    mu = 1 / analytic_gaussian_sigma(claim.epsilon, claim.delta, 1.0)
    return Guarantee(claim.kind, f"{claim.text}; exactly Gaussian: μ ≤ μ*(ε, δ) = {mu:.4g}",
                     neighbours=claim.neighbours, epsilon=claim.epsilon, delta=claim.delta, mu=mu)


def audit_mechanism(name: str, *, epsilon: float, delta: float | None = None, releases: int = DEFAULT_RELEASES,
                    seed, confidence: float = 0.95, progress: Progress | None = None, allow_long: bool = False,
                    parameters: Mapping | None = None) -> AuditResult:
    """Audit the projection mechanism ``name`` of `MECHANISMS` at ``epsilon`` (and ``delta``,
    required by the (ε, δ)-DP mechanisms; with ``parameters``, its ``PARAMETERS``: β, k, the
    projection's public seed, …) on one attribute (module docstring): `privlib.core.audit.audit`
    with ``releases`` per vector, ``confidence``, ``seed`` (the audit's draws; the projection's is
    the mechanism's ``seed`` parameter), ``progress`` and the refusal of long work
    (``allow_long``). For the ε-DP mechanisms ``delta`` is only the δ of ε̂ (default 0).
    ValueError for an unknown name or parameter, a missing δ, or a mechanism without a guarantee
    (the individual-DP ones)."""
    parameters = dict(parameters or {})
    parameters.setdefault("p", AUDIT_DIMENSION)
    mechanism = make_mechanism(name, epsilon=epsilon, delta=delta, **parameters)
    claim = claim_of(mechanism)
    x, y = neighbouring_pair(mechanism, mechanism.p)
    gaussian = isinstance(mechanism, GaussianNoiseMechanism)
    return audit(lambda vector, rng, size: mechanism.release(np.tile(vector, (size, 1)), rng).values, (x, y),
                 releases=releases, seed=seed, confidence=confidence, delta=delta if claim.delta is None else claim.delta,
                 claim=gaussian_claim(mechanism) if gaussian else claim, score=likelihood_score(mechanism, x, y),
                 gaussian=gaussian, progress=progress, allow_long=allow_long)


__all__ = ["AUDIT_DIMENSION", "MECHANISMS", "UNIT_OF_PROTECTION", "audit_mechanism", "gaussian_claim",
           "likelihood_score", "neighbouring_pair"]
