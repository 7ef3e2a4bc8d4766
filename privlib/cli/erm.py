"""The private-learning commands (privlib.erm): erm-calibrate, agm, erm-sweep and erm-attack.

Fukuchi, Tran, Sakuma (2017), "Differentially Private Empirical Risk Minimization with Input
Perturbation" (DS 2017, arXiv:1710.07425), against objective perturbation (Kifer, Smith, Thakurta
2012, Alg. 1: "Obj-Gauss") and output perturbation (Chaudhuri, Monteleoni, Sarwate 2011):
- ``erm-calibrate``: the noise of every mechanism at (ε, δ, n, d, R, A, B): KST12's Δ and β
  (replace-one, ζ_s = 2ζ), the input noise σ_a, σ_b of the safe calibration (our addition; invalid at
  too small an n, and then it says which ε or n is needed — never a silent fallback) or of the
  asymptotic match (reconstructed from the paper's prose; no guarantee), the model ε of the accountant,
  a contributor's local ε_L (Cor. 1, exact via Balle & Wang 2018) beside the classic formula (valid
  only for ε < 1), and CMS11's Λ and mean noise radius;
- ``agm``: the analytic-Gaussian ε of a μ-GDP release at δ (Balle & Wang 2018, Thm 8);
- ``erm-sweep``: test RMSE (or accuracy) and excess empirical risk of every method over n (or over ε
  with ``--epsilons``), mean ± SD over ``--repeats`` (alias ``--trials``); work estimated above about a
  minute is refused without ``--allow-long`` (`privlib.erm.sweep.estimate_seconds`);
- ``erm-attack``: what an attacker learns (`privlib.erm.attacks`): membership in the replace-one game
  (loss-threshold and known-neighbour likelihood-ratio attacks: AUC, success, TPR at 1 % FPR) against
  each guarantee's bound, at ``--epsilon`` or over ``--epsilons`` (then the largest ε under ``--target``),
  and each contributor's submission (μ_L, the reconstruction bound); the page's numbers for the same seed.

Each command is a `Command` in `COMMANDS`; bad input is a ValueError (or an argparse error), reported as
one line on stderr with exit code 2. The library is imported when a command runs.
"""
from __future__ import annotations

import argparse
import math

from privlib.cli.common import (
    Command,
    add_allow_long_flag,
    add_delta_argument,
    add_epsilon_argument,
    add_epsilons_argument,
    add_repeats_argument,
    add_seed_argument,
    check_memory,
    checked_number,
    long_work,
    one_of,
    parse_epsilon,
    whole_number_at_least,
)
from privlib.core.validation import check_probability, shown

#: ``--dataset`` choices: ``privlib.erm.datasets.DATASETS`` (spelled out so that ``--help`` loads no data code).
DATASET_CHOICES = ("synthetic", "diabetes", "census2000")
#: ``--methods`` choices: ``privlib.erm.mechanisms.METHODS``.
METHOD_CHOICES = ("non_private", "output", "obj_gauss", "input_safe", "input_asymptotic")
TASK_CHOICES = ("regression", "classification")
ROUTE_CHOICES = ("safe", "asymptotic")
GUARANTEE_NOTE = ("input perturbation, safe calibration: (ε, δ)-DP, replace-one — the project's proof sketch "
                  "(beyond the paper); model DP holds only if at least n honestly perturbed records arrive")
#: The caveat of the asymptotic input route, printed whenever its numbers are (the JSON carries it in its label).
ASYMPTOTIC_NOTE = ("input_asymptotic: the paper's infinite-n match to Obj-Gauss [reconstructed] — NO guarantee at "
                   "any finite n: a teaching curve, not a private model")


def parse_count(text: str) -> int:
    """argparse ``type`` of a record count: a whole number ≥ 1, also written 1e4."""
    try:
        value = float(text)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"expected a whole number of records, got {shown(text)}") from None
    if not math.isfinite(value) or not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError(f"the number of records must be a whole number of at least 1, got "
                                         f"{shown(text)}")
    return int(value)


def parse_dimension(text: str) -> int:
    """argparse ``type`` of ``--d``: a whole number (the library says which ones it accepts); argparse's own
    ``int`` would repeat a long wrong value in full."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {shown(text)}") from None


def parse_positive(text: str) -> float:
    """argparse ``type`` of R, A, B, μ and m: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number greater than 0, got {shown(text)}")
    return value


# ---------------------------------------------------------------------------------------------
# erm-calibrate


def add_calibrate_arguments(parser) -> None:
    add_epsilon_argument(parser)
    add_delta_argument(parser, None)
    parser.add_argument("--n", type=parse_count, required=True,
                        help="the agreed lower bound on the number of honestly perturbed records")
    parser.add_argument("--d", type=parse_dimension, default=10, help="dimension of w (default 10)")
    parser.add_argument("--R", type=parse_positive, default=1.0,
                        help="radius of the parameter ball ‖w‖ ≤ R (default 1)")
    parser.add_argument("--A", type=parse_positive, default=1.0,
                        help="public bound ‖a(z)‖ ≤ A (default 1: squared loss; 0.35355 for the logistic surrogate)")
    parser.add_argument("--B", type=parse_positive, default=2.0,
                        help="public bound ‖b(z)‖ ≤ B (default 2: squared loss; 0.5 for the logistic surrogate)")
    parser.add_argument("--inflate", type=parse_positive, default=1.0, metavar="m",
                        help="local multiplier m ≥ 1: every contributor multiplies both noise variances by m "
                             "(default 1)")
    parser.add_argument("--route", type=one_of(ROUTE_CHOICES), default="safe", metavar="{safe,asymptotic}",
                        help="input calibration: safe (a guarantee, our addition; default) or asymptotic (the "
                             "paper's infinite-n match, no guarantee)")


def run_calibrate(args) -> dict:
    """``privlib.erm.calibration.calibrate(...).to_dict()``: {obj_gauss, input, local, output}."""
    from privlib.erm.calibration import calibrate

    return calibrate(args.epsilon, args.delta, args.n, args.d, R=args.R, A=args.A, B=args.B, inflate=args.inflate,
                     route=args.route).to_dict()


def number(value, fmt: str = ".6g") -> str:
    return "—" if value is None else format(value, fmt)


def print_calibrate(args, result: dict) -> None:
    kst, inp, local, out = result["obj_gauss"], result["input"], result["local"], result["output"]
    print(f"epsilon = {args.epsilon:g}, delta = {args.delta:g}, n = {args.n:,}, d = {args.d}, R = {args.R:g}, "
          f"A = {args.A:g}, B = {args.B:g}, m = {args.inflate:g}; replace-one neighbours")
    print(f"Obj-Gauss [KST12]:  Delta = {kst['Delta']:.6g}, beta = {kst['beta']:.6g} (zeta_s = {kst['zeta_s']:.6g})")
    route = "safe calibration (beyond the paper)" if inp["route"] == "safe" else \
        "asymptotic match [R] — NOT a guarantee"
    print(f"Input, {route}:")
    if not inp["valid"]:
        print(f"  invalid: {inp['reason']}")
    else:
        print(f"  sigma_a = {inp['sigma_a']:.8g}, sigma_b = {inp['sigma_b']:.8g} (standard deviations)")
        print(f"  r = {number(inp['r'])}, s = {number(inp['s'])}, G = {number(inp['G'])}")
        print(f"  model epsilon (accountant) = {number(inp['epsilon_model'], '.4f')} = Jacobian "
              f"{number(inp['epsilon_jacobian'], '.4f')} + noise {number(inp['epsilon_noise'], '.4f')}")
        if inp["guaranteed"]:
            print(f"  {GUARANTEE_NOTE}")
    print(f"  smallest valid n at this epsilon: {inp['min_n']:,}")
    if local is not None:
        print(f"Contributor (Cor. 1, exact via BW18): mu = {local['mu']:.6g}, epsilon_L = {local['epsilon_L']:.6g} at "
              f"delta_L = {local['delta_L']:g}; classic formula {local['epsilon_L_classic']:.6g}"
              + ("" if local["classic_valid"] else " (invalid for epsilon >= 1)"))
    print(f"Output [CMS11]:     Lambda = {out['Lambda']:.6g}, noise radius mean = {out['mean_radius']:.6g} "
          f"(scale {out['scale']:.6g}; pure epsilon-DP)")


# ---------------------------------------------------------------------------------------------
# agm


#: The smallest μ that ``agm`` computes an ε for.
AGM_MU_MIN = 1e-100


def add_agm_arguments(parser) -> None:
    parser.add_argument("--mu", type=parse_positive, required=True,
                        help="mu = sensitivity / sigma of the Gaussian mechanism (mu-GDP)")
    add_delta_argument(parser, None)


def run_agm(args) -> dict:
    """Balle & Wang (2018), Thm 8: the smallest ε with δ(ε) ≤ δ for a μ-GDP release, in log space."""
    from privlib.core.calibration import analytic_gaussian_epsilon

    if args.mu < AGM_MU_MIN:
        # the root finder meets NaN below this; ε is 0 there for any δ above 1e-100
        raise ValueError(f"mu must be at least {AGM_MU_MIN:g} (the release is then almost pure noise and its ε is 0), "
                         f"got {args.mu:g}.")
    return {"mu": args.mu, "delta": args.delta, "epsilon": analytic_gaussian_epsilon(args.mu, args.delta)}


def print_agm(args, result: dict) -> None:
    print(f"analytic Gaussian (BW18): mu = {result['mu']:g}, delta = {result['delta']:g} -> "
          f"epsilon = {result['epsilon']:.10g}")


# ---------------------------------------------------------------------------------------------
# erm-sweep


def add_sweep_arguments(parser) -> None:
    parser.add_argument("--dataset", type=one_of(DATASET_CHOICES), default="synthetic",
                        metavar="{" + ",".join(DATASET_CHOICES) + "}",
                        help="synthetic (d of your choice, default), diabetes (n = 354 training records: use "
                             "--epsilons) or census2000 (US Census 2000 extract, subsampled to each n)")
    parser.add_argument("--epsilon", type=parse_epsilon, default=None,
                        help="privacy parameter of the sweep over n (smaller = more privacy)")
    add_epsilons_argument(parser, help="sweep over this epsilon grid instead of over n (diabetes): start:stop[:step], "
                                       "a comma list or several numbers, e.g. 1,4,10 or 1 4 10")
    add_delta_argument(parser, 1e-6)
    parser.add_argument("--n", type=parse_count, nargs="+", default=None, metavar="N",
                        help="training-set sizes of the sweep over n")
    add_repeats_argument(parser, 20, help="repetitions per point (each redraws the data and the noise)",
                         aliases=("--trials",))
    add_seed_argument(parser, default=0, help="random seed (default 0)")
    parser.add_argument("--task", type=one_of(TASK_CHOICES), default="regression",
                        metavar="{" + ",".join(TASK_CHOICES) + "}",
                        help="regression (squared loss, default) or classification (logistic Taylor surrogate)")
    parser.add_argument("--methods", type=one_of(METHOD_CHOICES), nargs="+", default=None, metavar="METHOD",
                        help=f"methods to run (default all): {', '.join(METHOD_CHOICES)}")
    parser.add_argument("--d", type=parse_dimension, default=10, help="dimension of the synthetic data (default 10)")
    parser.add_argument("--R", type=parse_positive, default=1.0, help="radius of the parameter ball (default 1)")
    parser.add_argument("--inflate", type=parse_positive, default=1.0, metavar="m",
                        help="local multiplier m of the input noise variances (default 1)")
    add_allow_long_flag(parser)


#: What makes an erm-sweep smaller, for the refusal of long work.
SWEEP_REDUCE = "--n, --d, --repeats (--trials), the number of --epsilons or --methods"


def sweep_plan(args) -> tuple[str, tuple, dict]:
    """("epsilon" or "n", the axis values, the keyword arguments of ``sweep`` / ``n_sweep`` besides the
    dataset, the mechanisms, the values and the progress), or a ValueError for inconsistent flags."""
    from privlib.erm.sweep import SWEEP_AXIS

    common = {"delta": args.delta, "repeats": args.repeats, "seed": args.seed, "task": args.task, "R": args.R,
              "inflate": args.inflate}
    if args.epsilons is not None:
        if args.epsilon is not None:
            raise ValueError("Give either --epsilon (a sweep over --n) or --epsilons (a sweep over epsilon), not both.")
        if args.n is not None:
            if len(args.n) != 1:
                raise ValueError("A sweep over --epsilons takes at most one --n.")
            common["n"] = args.n[0]
        if args.dataset == "synthetic":
            common["d"] = args.d
        return "epsilon", tuple(args.epsilons), common
    if args.epsilon is None:
        raise ValueError("--epsilon is required for a sweep over --n (or give --epsilons for a sweep over epsilon).")
    if args.n is None:
        raise ValueError("--n is required: the training-set sizes of the sweep, e.g. --n 1000 10000.")
    if SWEEP_AXIS[args.dataset] == "epsilon":
        raise ValueError(f"{args.dataset} has too few training records for a sweep over n (diabetes: n = 354): use "
                         "--epsilons, e.g. --epsilons 1 4 10 30.")
    return "n", tuple(args.n), dict(common, epsilon=args.epsilon, d=args.d)


def run_sweep(args) -> dict:
    """``sweep_to_dict`` of ``n_sweep(...)`` over ``--n`` at ``--epsilon``, or of ``sweep(...)`` over
    ``--epsilons``; refused when estimated above the long-work limit (``--allow-long``)."""
    from privlib.erm import sweep as erm_sweep

    methods = tuple(args.methods) if args.methods else erm_sweep.METHODS
    axis, values, kwargs = sweep_plan(args)
    synthetic_n = kwargs.get("n", erm_sweep.SYNTHETIC_DEFAULT_N if args.dataset == "synthetic" else 0)
    ns = values if axis == "n" else (synthetic_n,)
    # every setting checked before the memory and time estimates (which grow with d and the repeats), so that
    # bad input is one line, never an estimate first
    erm_sweep.check_settings(args.dataset, args.task, args.R, args.repeats, args.seed, methods, args.inflate,
                             args.delta)
    if args.dataset == "synthetic":
        erm_sweep.check_synthetic_d(args.d)
    erm_sweep.check_sweep_epsilons(values if axis == "epsilon" else [args.epsilon])
    if axis == "n":
        erm_sweep.check_ns(values, args.dataset)
    check_memory("erm-sweep", erm_sweep.memory_bytes(args.dataset, ns, len(values) if axis == "epsilon" else 1,
                                                     len(methods), args.repeats, args.d), SWEEP_REDUCE)
    seconds = erm_sweep.estimate_seconds(args.dataset, ns, len(values) if axis == "epsilon" else 1, len(methods),
                                         args.repeats, args.d)
    progress = long_work(args, "erm-sweep", seconds, SWEEP_REDUCE)
    run = erm_sweep.sweep if axis == "epsilon" else erm_sweep.n_sweep
    return erm_sweep.sweep_to_dict(run(args.dataset, methods, values, progress=progress, **kwargs))


def print_sweep(args, result: dict) -> None:
    axis, metric = result["axis"], result["metric"]
    header = f"{result['dataset']} ({result['task']}, d = {result['d']}), delta = {result['delta']:g}, " \
             f"{result['trials']} trials, seed {result['seed']}: test {metric} mean ± SD, excess empirical risk"
    header += f", epsilon = {result['epsilon']:g}" if axis == "n" else f", n = {result['n']:,}"
    print(header)
    for row in result["points"]:
        print(f"{axis} = {row[axis]:,.6g}")
        for method, stats in row["methods"].items():
            if not stats["valid"] or stats[f"{metric}_mean"] is None:
                print(f"  {method:<18} invalid (the safe calibration does not exist here: n too small for this "
                      "epsilon)" if method == "input_safe" else f"  {method:<18} invalid")
                continue
            excess = stats.get("excess_risk_mean")
            print(f"  {method:<18} {stats[f'{metric}_mean']:.4f} ± {number(stats.get(f'{metric}_sd'), '.4f')}   "
                  f"excess risk {number(excess, '.3e')}")
    print(GUARANTEE_NOTE)
    if "input_asymptotic" in result["methods"]:
        print(ASYMPTOTIC_NOTE)


# ---------------------------------------------------------------------------------------------
# erm-attack

#: ``--methods`` choices of erm-attack: ``privlib.erm.attacks.ATTACK_METHODS``.
ATTACK_METHOD_CHOICES = ("non_private", "input_safe", "obj_gauss", "output")
#: What makes an erm-attack smaller, for the refusal of long work.
ATTACK_REDUCE = "--games, --n, --d, the number of --epsilons or --methods"

parse_target = checked_number("target", lambda value: check_probability(
    value, "target (the attack success you accept, a probability)"))


def add_attack_arguments(parser) -> None:
    parser.add_argument("--epsilon", type=parse_epsilon, default=1.0,
                        help="privacy parameter (smaller = more privacy; default 1)")
    add_epsilons_argument(parser, help="also run the game over this epsilon grid (with --epsilon added) and answer "
                                       "--target: start:stop[:step] or a comma list, e.g. 0.1,1,10")
    add_delta_argument(parser, 1e-6)
    parser.add_argument("--n", type=parse_count, default=1000, help="records in the training data (default 1000)")
    parser.add_argument("--d", type=parse_dimension, default=10, help="number of features (default 10)")
    parser.add_argument("--R", type=parse_positive, default=1.0, help="radius of the parameter ball (default 1)")
    parser.add_argument("--task", type=one_of(TASK_CHOICES), default="regression",
                        metavar="{" + ",".join(TASK_CHOICES) + "}",
                        help="regression (squared loss, default) or classification (logistic Taylor surrogate)")
    parser.add_argument("--methods", type=one_of(ATTACK_METHOD_CHOICES), nargs="+", default=None, metavar="METHOD",
                        help=f"methods to attack (default all): {', '.join(ATTACK_METHOD_CHOICES)}")
    parser.add_argument("--games", type=whole_number_at_least(10), default=10_000,
                        help="pairs of candidate records (default 10000: TPR at 1%% FPR needs 10^4 non-members)")
    parser.add_argument("--target", type=parse_target, default=0.6,
                        help="with --epsilons: the success in naming the member you accept (default 0.6)")
    add_seed_argument(parser, default=0, help="random seed (default 0)")
    add_allow_long_flag(parser)


def run_attack(args) -> dict:
    """``membership_study`` at ``--epsilon`` (and over ``--epsilons``), its sentences, the submission's
    reconstruction bound and, over a grid, the largest ε under ``--target`` by the bound and by the
    measured attacks."""
    from privlib.erm import attacks

    methods = tuple(args.methods) if args.methods else attacks.ATTACK_METHODS
    epsilons = [args.epsilon] if args.epsilons is None else sorted({args.epsilon, *map(float, args.epsilons)})
    settings = {"n": args.n, "d": args.d, "methods": methods, "games": args.games, "task": args.task, "R": args.R,
                "seed": args.seed}
    attacks.check_game_settings(epsilons, args.delta, args.n, args.d, args.games, args.task, args.R, args.seed,
                                methods)
    seconds = attacks.estimate_seconds(args.n, args.d, args.games, methods, len(epsilons))
    progress = long_work(args, "erm-attack", seconds, ATTACK_REDUCE)
    study = attacks.membership_study(epsilons, args.delta, progress=progress, allow_long=True, **settings)
    result = {"study": study.to_dict(), "epsilon": args.epsilon,
              "sentences": attacks.plain_sentences(study, args.epsilon),
              "submission": attacks.submission_risk(args.epsilon, args.delta, n=args.n, d=args.d, task=args.task,
                                                    R=args.R).to_dict(),
              "largest_epsilon": None}
    if args.epsilons is not None:
        result["largest_epsilon"] = [
            attacks.largest_epsilon_under(args.target, study.epsilons, method, basis=basis, study=study).to_dict()
            for method in methods for basis in ("bound", "measured")]
    return result


def print_attack(args, result: dict) -> None:
    study = result["study"]
    print(f"Membership, replace-one (n = {study['n']:,} records either way, d = {study['d']}, {study['games']:,} "
          f"games, seed {study['seed']}); add/remove membership is not bounded by this curve")
    index = study["epsilons"].index(result["epsilon"])
    for rows in study["results"].values():
        row = rows[index]
        bound = row["bound"]
        print(f"{row['label']}: " + ("no guarantee" if bound is None else
                                     f"bound ({bound['label']}): success {bound['success']:.4f}, AUC "
                                     f"{bound['auc']:.4f}, TPR at 1% FPR {bound['tpr_at_fpr']:.4f}"))
        if not row["valid"]:
            print(f"  no model: {row['reason']}")
        for attack in row["attacks"].values():
            tpr = ("not measured (fewer than 10^4 non-member scores)" if attack["tpr_at_fpr"] is None
                   else f"{attack['tpr_at_fpr']:.4f} ± {attack['tpr_at_fpr_se']:.4f}")
            print(f"  {attack['label']:<34} success {attack['success']:.4f} ± {attack['success_se']:.4f}, AUC "
                  f"{attack['auc']:.4f} ± {attack['auc_se']:.4f}, TPR at 1% FPR {tpr}")
    for sentence in result["sentences"].values():
        print(sentence)
    print(result["submission"]["sentence"])
    for choice in result["largest_epsilon"] or ():
        print(f"[{choice['basis']}] {choice['sentence']}")


# ---------------------------------------------------------------------------------------------

#: The private-learning commands, in the order ``--help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("erm-calibrate", "private ERM noise at (ε, δ, n, d): Obj-Gauss (KST12), input perturbation (safe or "
                             "asymptotic), the contributor's ε_L (BW18) and output perturbation (CMS11)",
            add_calibrate_arguments, run_calibrate, print_calibrate),
    Command("agm", "analytic Gaussian mechanism (Balle & Wang 2018): ε of a μ-GDP release at δ",
            add_agm_arguments, run_agm, print_agm),
    Command("erm-sweep", "private ERM: test RMSE / accuracy and excess risk of every method over n (or ε), mean ± SD "
                         "over trials",
            add_sweep_arguments, run_sweep, print_sweep),
    Command("erm-attack", "private ERM: what an attacker learns — membership in the replace-one game (loss-threshold "
                          "and known-neighbour attacks) against each guarantee, and each submission's reconstruction "
                          "bound",
            add_attack_arguments, run_attack, print_attack),
)
