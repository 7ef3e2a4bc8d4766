"""Auditing any topic's mechanism against its claim: the ``audit`` command.

``audit --topic words|projections|label-dp|erm --mechanism NAME --epsilon E [--delta D]
[--param key=value …] [--releases N] [--confidence C] [--seed S] [--allow-long]``: runs the mechanism
on its topic's neighbouring pair (each topic's ``audit`` module: ``privlib.words.audit``, …) and
prints the empirical lower bound ε̂ (and μ̂ for exactly Gaussian releases) with Clopper–Pearson
confidence, the claim for that pair, the audit's ceiling and, where the output law is exact, the
pair's exact privacy loss (`privlib.core.audit`; Jagielski, Ullman & Oprea 2020, Nasr et al. 2021).
The time of the releases is estimated from the first ones; an audit above the long-work limit is
refused unless ``--allow-long``.
"""
from __future__ import annotations

# ``--topic`` → the topic's audit module: the What ε means page's table (its audit is this command's)
from privlib.analyses.what_epsilon_means import AUDIT_MODULES
from privlib.cli.common import (
    Command,
    add_allow_long_flag,
    add_seed_argument,
    one_of,
    parse_delta,
    parse_epsilon,
    parse_params,
    real_number,
    terminal_progress,
    whole_number_at_least,
)
from privlib.core.audit import DEFAULT_RELEASES
from privlib.core.validation import shown


def add_audit_arguments(parser) -> None:
    parser.add_argument("--topic", type=one_of(AUDIT_MODULES), required=True,
                        help=f"the mechanism's topic: {', '.join(AUDIT_MODULES)}")
    parser.add_argument("--mechanism", required=True, metavar="NAME",
                        help="the mechanism's name in its topic (e.g. santext, dp-oporp, rr, output)")
    parser.add_argument("--epsilon", type=parse_epsilon, required=True, help="the ε the mechanism claims")
    parser.add_argument("--delta", type=parse_delta, default=None,
                        help="δ of the (ε, δ)-DP mechanisms (required by them; the others take none)")
    parser.add_argument("--param", action="append", metavar="KEY=VALUE",
                        help="a parameter of the mechanism (repeatable), e.g. --param k=16")
    parser.add_argument("--releases", type=whole_number_at_least(2), default=DEFAULT_RELEASES,
                        help=f"releases per input of the pair; half choose the test, half are counted "
                             f"(default {DEFAULT_RELEASES:,})")
    parser.add_argument("--confidence", type=real_number, default=0.95,
                        help="confidence of the lower bound, strictly between 0 and 1 (default 0.95)")
    add_seed_argument(parser, default=0, help="random seed (default 0: an audit is a study, repeatable)")
    add_allow_long_flag(parser)


def run_audit(args) -> dict:
    """The topic's ``audit_mechanism`` for the options; its `AuditResult` as a dict, with the topic,
    the mechanism, its parameters and the pair in words."""
    module = AUDIT_MODULES[args.topic]
    if args.mechanism not in module.MECHANISMS:
        raise ValueError(f"Unknown {args.topic} mechanism {shown(args.mechanism)}; choose one of: "
                         f"{', '.join(module.MECHANISMS)}.")
    parameters = parse_params(args.param)
    seed = args.seed
    try:
        result = module.audit_mechanism(args.mechanism, epsilon=args.epsilon, delta=args.delta,
                                        releases=args.releases, seed=seed, confidence=args.confidence,
                                        progress=terminal_progress(), allow_long=args.allow_long,
                                        parameters=parameters)
    except ValueError as exc:  # the library names its own argument; the command line has a flag for it
        raise ValueError(str(exc).replace("allow_long=True", "--allow-long")) from None
    return {"topic": args.topic, "mechanism": args.mechanism, "parameters": parameters,
            "pair": module.UNIT_OF_PROTECTION, **result.to_dict()}


def print_audit(args, result: dict) -> None:
    claim = result["claim"] or {}
    print(f"Audit of {result['mechanism']} ({result['topic']}): {claim.get('text', '')}")
    print(f"  pair: {result['pair']}")
    print(f"  releases per input: {result['releases']:,} ({result['selected']:,} choose the test, "
          f"{result['counted']:,} are counted); seed {result['seed']}")
    print(f"  test: {result['score']}")
    claimed = result["claimed_epsilon"]
    print(f"  ε ≥ {result['epsilon']:.4g} at {100 * result['confidence']:g} % confidence "
          f"(claimed for this pair: {'no finite ε' if claimed is None else f'{claimed:.4g}'}; "
          f"ceiling {result['ceiling']:.3g})")
    if result["mu"] is not None:
        print(f"  μ ≥ {result['mu']:.4g} (claimed: {result['claimed_mu']:.4g}; ceiling {result['mu_ceiling']:.3g})")
    if result["exact_loss"] is not None or result["exact_loss_infinite"]:
        loss = "infinite" if result["exact_loss_infinite"] else f"{result['exact_loss']:.4g}"
        print(f"  exact privacy loss of the pair: {loss}")
    print(f"  verdict: {'EXCEEDS THE CLAIM' if result['exceeds_claim'] else 'within the claim'}")
    print(result["summary"])


COMMANDS: tuple[Command, ...] = (
    Command("audit", "audit a mechanism of any topic against its claim: the empirical lower bound on ε "
                     "(and μ) from its releases on a neighbouring pair, with confidence",
            add_audit_arguments, run_audit, print_audit),
)
