"""What an attacker learns (privlib.core.risk): the ``bounds`` command.

``bounds --epsilon E [--delta D]`` or ``bounds --mu M``: the attack terms of an (ε, δ)-DP, ε-DP or
μ-GDP guarantee — the maximal advantage, TPR at FPR 1 % and 0.1 %, the chance of guessing right
between two inputs at ``--prior``, the posterior sentence, the re-identification bound among
``--candidates`` (uniform prior), δ for ``--people`` and, with ``--json``, the sampled trade-off curve
(Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022; Kulynych et al. 2024). Bounds, not
measurements: they hold for any attacker who knows everything except the secret.
"""
from __future__ import annotations

from privlib.cli.common import Command, checked_number, whole_number_at_least
from privlib.cli.settings import goes_with
from privlib.core.validation import check_delta, check_epsilon, check_probability, check_range

#: The most μ accepted (`privlib.core.risk.MU_MAX`, repeated so that parsing does not import scipy).
MU_MAX = 1e6

parse_epsilon_or_zero = checked_number("epsilon", lambda value: check_epsilon(value, allow_zero=True))
parse_delta_or_zero = checked_number("delta", lambda value: check_delta(value, allow_zero=True))
parse_mu = checked_number("mu", lambda value: check_range(value, "mu (sensitivity / sigma)", low=0.0, high=MU_MAX))
parse_prior = checked_number("prior", lambda value: check_probability(
    value, "prior (the attacker's belief in x before the output)", open_low=True, open_high=True))


def add_bounds_arguments(parser) -> None:
    guarantee = parser.add_mutually_exclusive_group(required=True)
    guarantee.add_argument("--epsilon", type=parse_epsilon_or_zero, default=None,
                           help="ε of ε-DP or (ε, δ)-DP (ε ≥ 0; smaller = more privacy)")
    guarantee.add_argument("--mu", type=parse_mu, default=None,
                           help="μ of μ-GDP (μ = sensitivity/σ; only for exactly Gaussian mechanisms)")
    parser.add_argument("--delta", type=parse_delta_or_zero, default=0.0,
                        help="δ of (ε, δ)-DP, with --epsilon (default 0: pure ε-DP)")
    # a settings file's δ belongs to its ε: a --mu typed over an (ε, δ) file drops both (`guarantee_of` refuses a δ
    # with μ)
    goes_with(parser, "delta", "epsilon")
    parser.add_argument("--prior", type=parse_prior, default=0.5,
                        help="the attacker's belief in one of two inputs before the output, in (0, 1) (default 0.5)")
    parser.add_argument("--candidates", type=whole_number_at_least(2), default=10,
                        help="k candidates for the re-identification bound (uniform prior; default 10)")
    parser.add_argument("--people", type=whole_number_at_least(1), default=None,
                        help="n, the number of people in the data: δ as n·δ people, with a warning when δ ≥ 1/n")


def guarantee_of(args):
    """The `Guarantee` the options describe: μ-GDP, (ε, δ)-DP or ε-DP (`core.risk.stated_guarantee`)."""
    from privlib.core.risk import stated_guarantee

    if args.mu is not None and args.delta:
        raise ValueError("--delta goes with --epsilon: μ-GDP has its own δ for every ε (drop --delta).")
    return stated_guarantee(epsilon=None if args.mu is not None else args.epsilon, delta=args.delta or 0.0,
                            mu=args.mu)


def run_bounds(args) -> dict:
    """`privlib.core.risk.attack_terms` of the guarantee of the options."""
    from privlib.core.risk import attack_terms

    return attack_terms(guarantee_of(args), prior=args.prior, candidates=args.candidates, people=args.people)


def share(value: float) -> str:
    """A probability in the table, to 4 significant figures: "7.389 %"."""
    return f"{100 * value:.4g} %"


def print_bounds(args, result: dict) -> None:
    print(f"What any attacker can achieve at most against {result['guarantee']['text']}")
    print(f"  maximal advantage (TPR − FPR):            {result['advantage']:.6g}")
    for point in result["tpr_at_fpr"]:
        print(f"  TPR at FPR {share(point['fpr']):>7}:                   {share(point['tpr'])}")
    print(f"  guessing right between two inputs (prior {share(result['prior'])}): {share(result['guessing_chance'])}")
    reid = result["reidentification"]
    print(f"  naming the right one of {reid['candidates']:,} candidates: {share(reid['bound'])} "
          f"(guessing: {share(reid['prior'])}; {reid['method']})")
    loss = result["privacy_loss"]
    print(f"  privacy loss of one output: {'unbounded' if loss is None else f'at most {loss:g}'}")
    if result["delta_for_people"] is not None:
        print(f"  {result['delta_for_people']['sentence']}")
    print(result["sentence"])


COMMANDS: tuple[Command, ...] = (
    Command("bounds", "what any attacker can achieve at most against a guarantee (--epsilon [--delta] or --mu): "
                      "advantage, TPR at low FPR, guessing and re-identification chances, the posterior",
            add_bounds_arguments, run_bounds, print_bounds),
)
