"""privlib.projections — differential privacy with random projections and sign random projections.

Source: Ping Li & Xiaoyun Li, "Differential Privacy with Random Projections and Sign Random
Projections". Data rows lie in [−1, 1]^p (scaled with public constants); neighbours differ in one
coordinate by at most β (Def 2.3). Imports only ``privlib.core``.

- `projection`: the public randomness — Gaussian, Rademacher, √3·U[−1,1], very sparse and OPORP
  projections (`make_projection`, `Projection`) with their realised sensitivities Δ₁, Δ₂
  (eqs. 12–13);
- `mechanisms`: one class per mechanism, each a `privlib.core.mechanism.Mechanism` — Raw-data-G-OPT,
  DP-RP-G, Analytic DP-RP-G, DP-RP-G-OPT, DP-RP-L, DP-RP-G-OPT-B, DP-OPORP, DP-SignRP-RR(-smooth),
  DP-SignOPORP-RR(-smooth), and the individual-DP (not DP) iDP-SignRP-G / -RR — with the registry
  `ALL_MECHANISMS`, `MECHANISMS` and `make_mechanism`;
- `sweep`: retrieval precision@R against ε (§5.1), ``sweep(data, mechanisms, epsilons, *, repeats,
  seed, progress, …)`` returning a `privlib.core.sweep.SweepResult`; `cost`: its time estimate.
"""
from privlib.projections.mechanisms import (
    ALL_MECHANISMS,
    DEFAULT_K,
    DPOPORP,
    DPRPG,
    DPRPL,
    MECHANISMS,
    NEIGHBOURS,
    AnalyticDPRPG,
    DPRPGOpt,
    DPRPGOptB,
    DPSignOPORPRR,
    DPSignOPORPRRSmooth,
    DPSignRPRR,
    DPSignRPRRSmooth,
    GaussianNoiseMechanism,
    IDPSignRPG,
    IDPSignRPRR,
    IndividualDPSignRP,
    ProjectionMechanism,
    RawDataGaussianOpt,
    Release,
    SignMechanism,
    check_unit_box,
    make_mechanism,
    oporp_repetition_seeds,
    signs_with_coins,
)
from privlib.projections.projection import (
    DENSE_KINDS,
    PROJECTION_KINDS,
    Projection,
    as_data_matrix,
    check_kind,
    make_projection,
)

__all__ = [
    "ALL_MECHANISMS",
    "DEFAULT_K",
    "DENSE_KINDS",
    "DPOPORP",
    "DPRPG",
    "DPRPL",
    "MECHANISMS",
    "NEIGHBOURS",
    "PROJECTION_KINDS",
    "AnalyticDPRPG",
    "DPRPGOpt",
    "DPRPGOptB",
    "DPSignOPORPRR",
    "DPSignOPORPRRSmooth",
    "DPSignRPRR",
    "DPSignRPRRSmooth",
    "GaussianNoiseMechanism",
    "IDPSignRPG",
    "IDPSignRPRR",
    "IndividualDPSignRP",
    "Projection",
    "ProjectionMechanism",
    "RawDataGaussianOpt",
    "Release",
    "SignMechanism",
    "as_data_matrix",
    "check_kind",
    "check_unit_box",
    "make_mechanism",
    "make_projection",
    "oporp_repetition_seeds",
    "signs_with_coins",
]
