"""The random-projection commands (privlib.projections): rp-sigma, rp-pplus, rp-nplus,
rp-variance, rp-sensitivity, rp-sweep and rp-attack.

Li & Li, "Differential Privacy with Random Projections and Sign Random Projections": noise scales
(Thms 2.2, 3.1, 3.4, 3.5; eq. 14), the at-risk rate P₊ (eq. 26) and count N₊ (eq. 27), the
variance ratio R (eq. 23), the realised sensitivities (eqs. 12–13) against the Lemma 3.3 / 3.7
bounds, the retrieval sweep of §5.1 and what an attacker learns (attribute inference and record
linkage, `privlib.projections.attacks`). Each command is a `Command` in `COMMANDS`; bad input is a
ValueError (or an argparse error), reported as one line on stderr with exit code 2.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from privlib.cli.common import (
    LARGEST_WHOLE,
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
    parse_params,
    real_number,
    whole_number,
)
from privlib.core.calibration import analytic_gaussian_delta, analytic_gaussian_sigma
from privlib.core.validation import check_positive_int, check_probability, check_range, shown
from privlib.projections.cost import sweep_work
from privlib.projections.datasets import DATASETS, load_dataset, load_dataset_at
from privlib.projections.projection import PROJECTION_KINDS, make_projection
from privlib.projections.quantities import (
    SIGMA_METHODS,
    keep_probability,
    lemma33_bound,
    lemma37_bound,
    n_plus,
    p_plus,
    p_plus_check,
    sigma_against_epsilon,
    variance_oporp,
    variance_ratio_R,
    variance_raw,
    variance_rp_rademacher,
)
from privlib.projections.sweep import DEFAULT_EPSILONS, report_dict, sweep

#: rp-sweep's default ε grid, in the one grid syntax of ``--epsilons``: 12 values from 0.05 to 100.
DEFAULT_EPSILON_GRID = ",".join(f"{e:g}" for e in DEFAULT_EPSILONS)

# ---------------------------------------------------------------------------------------------
def add_beta_argument(parser) -> None:
    parser.add_argument("--beta", type=real_number, default=1.0,
                        help="beta-adjacency: one coordinate changes by at most beta (default 1)")


# ---------------------------------------------------------------------------------------------
# rp-sigma


def add_sigma_arguments(parser) -> None:
    add_epsilon_argument(parser)
    add_delta_argument(parser, default=None)
    parser.add_argument("--sensitivity", type=real_number, default=1.0,
                        help="L2 sensitivity Delta_2 (for --method analytic: beta) (default 1)")
    parser.add_argument("--method", type=one_of(SIGMA_METHODS), choices=SIGMA_METHODS, default="optimal",
                        help="optimal: sigma* of eq. 14 (Thm 3.5); kenthapadi: Thm 3.1; classical: Thm 2.2 "
                             "(valid for epsilon < 1 only); analytic: Thm 3.4 (needs --p and --k)")
    parser.add_argument("--p", type=whole_number, default=None, help="data dimension (--method analytic)")
    parser.add_argument("--k", type=whole_number, default=None, help="number of projections (--method analytic)")


def run_sigma(args) -> dict:
    """σ of one method at (ε, δ, Δ), the δ the Gaussian mechanism with that σ actually achieves
    (eq. 14, Balle & Wang) and whether the method's theorem holds (``valid``).

    For "analytic" (Thm 3.4) the sensitivity is β and σ covers the Lemma 3.3 bound on Δ₂ at
    failure probability δ/2; ``delta_achieved`` is then eq. 14 at that bound plus the δ/2 of W."""
    if args.method == "analytic" and (args.p is None or args.k is None):
        raise ValueError("--method analytic (Thm 3.4) needs --p (the data dimension) and --k (the number of "
                         "projections).")
    check_eq14_resolves(args.epsilon, args.delta)
    with np.errstate(over="ignore"):  # an overflowing sigma is refused below
        curve = sigma_against_epsilon([args.epsilon], args.delta, args.sensitivity, args.method, p=args.p, k=args.k)
    sigma = float(curve.sigma[0])
    if not (math.isfinite(sigma) and sigma >= sys.float_info.min):
        raise ValueError(f"sigma = {sigma:g} is outside what float64 holds at full precision (about 2.2e-308 to "
                         "1.8e+308): bring --sensitivity or --epsilon nearer to 1.")
    if args.method == "analytic":
        bound = lemma33_bound(args.sensitivity, args.p, args.k, args.delta / 2.0)
        achieved = analytic_gaussian_delta(args.epsilon, sigma, bound) + args.delta / 2.0
    else:
        achieved = analytic_gaussian_delta(args.epsilon, sigma, args.sensitivity)
    result = {"epsilon": args.epsilon, "delta": args.delta, "sensitivity": args.sensitivity, "method": args.method,
              "sigma": sigma, "delta_achieved": achieved, "valid": bool(curve.valid[0])}
    if args.method == "analytic":
        result.update(p=args.p, k=args.k)
    return result


#: The relative error of eq. 14 at σ* beyond which float64 no longer resolves it (see
#: `check_eq14_resolves`).
EQ14_TOLERANCE = 1e-6


def check_eq14_resolves(epsilon: float, delta: float) -> None:
    """Refuse an ε at which eq. 14 cannot be evaluated in float64: its two terms cancel, and at a
    huge ε the δ it gives at σ*(ε, δ, 1) is off by more than `EQ14_TOLERANCE` (at 1e20 it read 1.0),
    so neither σ* nor any method's achieved δ would be right. (``privlib.core.calibration`` may
    refuse such an ε first, with its own message.)"""
    sigma = analytic_gaussian_sigma(epsilon, delta, 1.0)
    achieved = analytic_gaussian_delta(epsilon, sigma, 1.0)
    if not abs(achieved - delta) <= EQ14_TOLERANCE * delta:
        raise ValueError(f"epsilon = {epsilon:g} is too large to calibrate: eq. 14 cannot be evaluated in float64 "
                         "there; use a smaller --epsilon (the paper's range ends at 1,000).")


def print_sigma(args, result: dict) -> None:
    note = "" if result["valid"] else "   NOT VALID: the classical theorem holds only for epsilon < 1"
    print(f"{result['method']} sigma at epsilon = {result['epsilon']:g}, delta = {result['delta']:g}, "
          f"sensitivity = {result['sensitivity']:g}: {result['sigma']:.10g}{note}")
    print(f"  delta actually achieved (eq. 14): {result['delta_achieved']:.6g}")


# ---------------------------------------------------------------------------------------------
# rp-pplus


def add_pplus_arguments(parser) -> None:
    parser.add_argument("--r", type=real_number, required=True, help="r = beta/m (adjacency bound over the norm bound)")
    parser.add_argument("--p", type=whole_number, required=True, help="data dimension")


def run_pplus(args) -> dict:
    """P₊(r, p) of eq. (26), and the same by a second route (1 − ∫2φ(s)[2Φ(s/r) − 1]^p ds)."""
    return {"r": args.r, "p": args.p, "p_plus": p_plus(args.r, args.p), "p_plus_check": p_plus_check(args.r, args.p)}


def print_pplus(args, result: dict) -> None:
    print(f"P+(r = {result['r']:g}, p = {result['p']:,}) = {result['p_plus']:.10f}   "
          f"(second route: {result['p_plus_check']:.10f})")


# ---------------------------------------------------------------------------------------------
# rp-nplus


def add_nplus_arguments(parser) -> None:
    parser.add_argument("--p", type=whole_number, required=True, help="data dimension")
    parser.add_argument("--k", type=whole_number, required=True, help="number of projections")
    add_delta_argument(parser, default=None)
    parser.add_argument("--m", type=real_number, required=True,
                        help="PUBLIC lower bound on the norm of every vector (0 = none: N+ = k)")
    add_beta_argument(parser)
    parser.add_argument("--epsilon", type=parse_epsilon, default=None,
                        help="total budget per vector: adds epsilon per bit = epsilon/N+ and the keep probability")


def run_nplus(args) -> dict:
    """N₊ of eq. (27) (Prop 4.5) with F = P₊(β/m, p); with ``--epsilon`` the ε′ = ε/N₊ per bit of
    DP-SignRP-RR (Alg 6) and its keep probability e^{ε′}/(e^{ε′} + 1)."""
    count = n_plus(args.p, args.k, args.delta, args.m, args.beta)
    r = args.beta / args.m if args.m > 0 else None
    per_bit = args.epsilon / count if args.epsilon is not None else None
    return {"p": args.p, "k": args.k, "delta": args.delta, "m": args.m, "beta": args.beta, "epsilon": args.epsilon,
            "r": r, "F": p_plus(r, args.p) if r is not None else None, "n_plus": count,
            "eps_per_bit": per_bit, "keep_probability": keep_probability(per_bit) if per_bit is not None else None}


def print_nplus(args, result: dict) -> None:
    if result["r"] is None:
        print(f"m = 0 (no norm bound): N+ = k = {result['n_plus']:g}, pure epsilon-DP (Remark 4.1)")
    else:
        print(f"r = beta/m = {result['r']:g}, F = P+(r, p = {result['p']:,}) = {result['F']:.10f}")
        print(f"N+ = {result['n_plus']:.7f} of k = {result['k']} bits at risk (delta = {result['delta']:g})")
    if result["eps_per_bit"] is not None:
        print(f"epsilon = {result['epsilon']:g}: {result['eps_per_bit']:.6g} per bit, keep probability "
              f"{result['keep_probability']:.7f} (flip {1 - result['keep_probability']:.7f})")


# ---------------------------------------------------------------------------------------------
# rp-variance


def add_variance_arguments(parser) -> None:
    parser.add_argument("--sigma", type=real_number, required=True, help="Gaussian noise standard deviation")
    parser.add_argument("--p", type=whole_number, required=True, help="data dimension")
    parser.add_argument("--k", type=whole_number, required=True, help="number of projections")


def run_variance(args) -> dict:
    """Variances of the noisy inner product for two unit-norm vectors (eq. 23's setting): raw
    (eq. 19), Rademacher RP (eq. 20) and OPORP (eq. 22), and R = Var(raw)/Var(RP) (eq. 23).

    Computed for two orthogonal unit vectors, where the sketch term of eq. 20 is exactly 1/k (the
    approximation eq. 23 makes): 2σ² + pσ⁴, 2σ² + kσ⁴ + 1/k and 2σ² + kσ⁴ + (1/k)(p′ − k)/(p′ − 1)."""
    sigma = check_range(args.sigma, "sigma (the noise standard deviation)", low=0.0)
    p = check_positive_int(args.p, "p (the data dimension)", minimum=2)
    k = check_positive_int(args.k, "k (the number of projections)")
    check_memory("rp-variance", 2 * 8 * p, "--p")  # the two unit vectors u and v
    u, v = np.zeros(p), np.zeros(p)
    u[0], v[1] = 1.0, 1.0
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        result = {"sigma": sigma, "p": p, "k": k, "var_raw": float(variance_raw(u, v, sigma)),
                  "var_rp": float(variance_rp_rademacher(u, v, sigma, k)),
                  "var_oporp": float(variance_oporp(u, v, sigma, k)), "R": float(variance_ratio_R(sigma, p, k))}
    if not all(math.isfinite(result[key]) for key in ("var_raw", "var_rp", "var_oporp", "R")):
        raise ValueError(f"sigma = {sigma:g} with p = {p:,} makes p*sigma^4 overflow float64: use a smaller --sigma "
                         "(R tends to p/k as sigma grows).")
    return result


def print_variance(args, result: dict) -> None:
    print(f"unit-norm vectors, sigma = {result['sigma']:g}, p = {result['p']:,}, k = {result['k']:,}")
    print(f"  Var raw (eq. 19)   {result['var_raw']:.8g}")
    print(f"  Var RP (eq. 20)    {result['var_rp']:.8g}")
    print(f"  Var OPORP (eq. 22) {result['var_oporp']:.8g}")
    print(f"  R = raw / RP (eq. 23) = {result['R']:.8g}" + ("  (projecting first wins)" if result["R"] > 1 else ""))


# ---------------------------------------------------------------------------------------------
# rp-sensitivity


def add_sensitivity_arguments(parser) -> None:
    parser.add_argument("--projection", type=one_of(PROJECTION_KINDS), choices=PROJECTION_KINDS, required=True, help="projection kind")
    parser.add_argument("--p", type=whole_number, required=True, help="data dimension")
    parser.add_argument("--k", type=whole_number, required=True, help="number of projections")
    parser.add_argument("--s", type=real_number, default=3.0, help="sparsity s of the 'sparse' projection (default 3)")
    parser.add_argument("--seed", type=whole_number, required=True, help="seed of the (public) projection")
    add_beta_argument(parser)
    add_delta_argument(parser)


def run_sensitivity(args) -> dict:
    """The realised Δ₁ and Δ₂ (eqs. 12–13) of the projection drawn from ``--seed``, beside the
    Lemma 3.3 (Δ₂) and Lemma 3.7 (Δ₁) high-probability bounds for a Gaussian W at δ."""
    p = check_positive_int(args.p, "p (the data dimension)")
    k = check_positive_int(args.k, "k (the number of projections)")
    # the p x k matrix of float64, and as much again while it is drawn (OPORP: p' positions and signs)
    check_memory("rp-sensitivity", 3 * 8 * p if args.projection == "oporp" else 2 * 8 * p * k, "--p or --k")
    projection = make_projection(args.projection, p, k, args.seed, s=args.s)
    return {"projection": projection.kind, "p": projection.p, "k": projection.k, "s": projection.s,
            "seed": projection.seed, "beta": args.beta, "delta": args.delta,
            "delta1": projection.delta1(args.beta), "delta2": projection.delta2(args.beta),
            "lemma33_bound": lemma33_bound(args.beta, args.p, args.k, args.delta),
            "lemma37_bound": lemma37_bound(args.beta, args.p, args.k, args.delta)}


def print_sensitivity(args, result: dict) -> None:
    print(f"{result['projection']} projection, p = {result['p']:,}, k = {result['k']:,}, seed {result['seed']}, "
          f"beta = {result['beta']:g}")
    print(f"  realised Delta_1 = {result['delta1']:.6g}   (Lemma 3.7 bound for Gaussian W: "
          f"{result['lemma37_bound']:.6g})")
    print(f"  realised Delta_2 = {result['delta2']:.6g}   (Lemma 3.3 bound for Gaussian W: "
          f"{result['lemma33_bound']:.6g})")


# ---------------------------------------------------------------------------------------------
# rp-sweep


def add_sweep_arguments(parser) -> None:
    parser.add_argument("--dataset", type=one_of(DATASETS), choices=tuple(DATASETS), default="mnist", help="data (default mnist)")
    parser.add_argument("--p", type=whole_number, default=None,
                        help="dimension of the synthetic data (default 2048); mnist and digits fix theirs")
    parser.add_argument("--mechanisms", default="dp",
                        help="comma list of mechanism names; dp = every DP mechanism (default), idp = the "
                             "individual-DP ones (NOT DP), all = both")
    add_epsilons_argument(parser, default=DEFAULT_EPSILON_GRID)
    parser.add_argument("--k", type=whole_number, default=32, help="number of projections (default 32)")
    parser.add_argument("--t", type=whole_number, default=1, help="OPORP repetitions of DP-SignOPORP (default 1)")
    add_repeats_argument(parser, default=3, help="repetitions, each with a new public projection",
                         aliases=("--reps",))
    add_seed_argument(parser, default=0, help="random seed (default 0)")
    add_delta_argument(parser)
    add_beta_argument(parser)
    parser.add_argument("--m", type=real_number, default=0.0,
                        help="public lower bound on every norm for DP-SignRP-RR (default 0: none, N+ = k)")
    kinds = tuple(k for k in PROJECTION_KINDS if k != "oporp")
    parser.add_argument("--projection", type=one_of(kinds), choices=kinds,
                        default="rademacher", help="projection of DP-RP-G-OPT-B (default rademacher)")
    parser.add_argument("--queries", type=whole_number, default=None,
                        help="use this many queries, spread evenly over the query set (default: all)")
    parser.add_argument("--R", type=whole_number, default=50, help="neighbours retrieved (default 50)")
    parser.add_argument("--true", type=whole_number, default=None, metavar="T",
                        help="neighbours that count as true: each query's top T by cosine (default: R). With it, "
                             "each result adds recall_at_R = (true among the R retrieved)/T, e.g. --true 50 --R 10 "
                             "for the paper's recall@10 out of the top 50")
    add_allow_long_flag(parser)


def run_sweep(args) -> dict:
    """precision@R against ε for each mechanism (§5.1), with the non-private levels and chance;
    work estimated above the limit (`privlib.projections.cost`) is refused without --allow-long."""
    # --repeats and --seed are read by the shared flags, without a bound: say so here in one short line
    if args.repeats > LARGEST_WHOLE:
        raise ValueError(f"--repeats is too large: at most {LARGEST_WHOLE:,}, got {shown(args.repeats)}.")
    if args.seed < 0:
        raise ValueError(f"--seed must be a whole number of at least 0, got {shown(args.seed)}.")
    data = load_dataset_at(args.dataset, args.p)
    work = sweep_work(data, args.mechanisms, len(args.epsilons), repeats=args.repeats, k=args.k, queries=args.queries)
    check_memory("rp-sweep", work.nbytes(), "--k or --queries")
    progress = long_work(args, "rp-sweep", work.seconds(), "--epsilons, --repeats, --k or --queries")
    result = sweep(data, args.mechanisms, args.epsilons, repeats=args.repeats, seed=args.seed, progress=progress,
                   k=args.k, t=args.t, delta=args.delta, beta=args.beta, m=args.m, R=args.R,
                   projection=args.projection, queries=args.queries, true=args.true)
    return report_dict(result)


def print_sweep(args, result: dict) -> None:
    key = f"precision_at_{result['R']}"
    print(f"{result['dataset']}: p = {result['p']}, k = {result['k']}, {result['n_db']:,} database vectors, "
          f"{result['n_queries']:,} queries, {result['reps']} repetitions, seed {result['seed']}")
    print(f"precision@{result['R']}: non-private RP {result['nonprivate']['rp']:.3f}, SignRP "
          f"{result['nonprivate']['signrp']:.3f}, chance {result['chance']:.4f}")
    epsilons = result["epsilons"]
    print(f"{'mechanism':<26}" + "".join(f"{e:>8g}" for e in epsilons))
    for info in result["mechanisms"]:
        rows = {r["epsilon"]: r for r in result["results"] if r["mechanism"] == info["name"]}
        label = info["label"] + ("" if info["is_dp"] else " (iDP, not DP)")
        print(f"{label:<26}" + "".join(f"{rows[e][key]:>8.3f}" for e in epsilons))
    if result.get("true") is not None:
        recall = f"recall_at_{result['R']}"
        print(f"recall@{result['R']} out of each query's top {result['true']} (chance {result['chance_recall']:.4f}):")
        for info in result["mechanisms"]:
            rows = {r["epsilon"]: r for r in result["results"] if r["mechanism"] == info["name"]}
            label = info["label"] + ("" if info["is_dp"] else " (iDP, not DP)")
            print(f"{label:<26}" + "".join(f"{rows[e][recall]:>8.3f}" for e in epsilons))


# ---------------------------------------------------------------------------------------------
# rp-attack

#: rp-attack's attacks: both, or one of them.
ATTACK_CHOICES = ("both", "attribute", "linkage")
#: The options rp-attack reads itself (the other PARAMETERS of a mechanism go through --param).
ATTACK_OWN_PARAMETERS = ("k", "beta", "seed", "p")

parse_target = checked_number("target", lambda value: check_probability(
    value, "target (the attack success you accept)"))


def add_attack_arguments(parser) -> None:
    from privlib.projections import attacks
    from privlib.projections.attacks import DEFAULT_RELEASES, DEFAULT_TARGETS
    from privlib.projections.mechanisms import MECHANISMS

    parser.add_argument("--mechanism", type=one_of(MECHANISMS), choices=tuple(MECHANISMS), default="dp-oporp",
                        help="the mechanism attacked (default dp-oporp)")
    add_epsilon_argument(parser)
    add_delta_argument(parser)
    parser.add_argument("--dataset", type=one_of(DATASETS), choices=tuple(DATASETS), default="digits",
                        help="data: its dimension p for the attribute attack, its rows for the linkage "
                             "(default digits)")
    parser.add_argument("--k", type=whole_number, default=32, help="number of projections (default 32)")
    add_beta_argument(parser)
    add_seed_argument(parser, default=0, help="seed of the public projection and of the attacks' draws (default 0)")
    parser.add_argument("--attack", type=one_of(ATTACK_CHOICES), choices=ATTACK_CHOICES, default="both",
                        help="attribute: inferring one coordinate (covered by the guarantee); linkage: matching a "
                             "released row to its original (not covered); both (default)")
    parser.add_argument("--releases", type=whole_number, default=DEFAULT_RELEASES,
                        help=f"releases per value of the simulated attribute attack (default {DEFAULT_RELEASES:,})")
    parser.add_argument("--targets", type=whole_number, default=DEFAULT_TARGETS,
                        help=f"released rows of the linkage attack (default {DEFAULT_TARGETS:,}; at most every row)")
    parser.add_argument("--param", action="append", metavar="KEY=VALUE", default=None,
                        help="another parameter of the mechanism, e.g. t=2, m=10, projection=gaussian, s=3 "
                             "(repeatable)")
    parser.add_argument("--target", type=parse_target, default=None,
                        help="also the largest epsilon of --epsilons that keeps each attack's success at most this "
                             "(a probability, e.g. 0.6)")
    grid = ",".join(f"{e:g}" for e in attacks.DEFAULT_EPSILONS)
    add_epsilons_argument(parser, default=None, help=f"the epsilon grid of --target (default {grid})")
    add_allow_long_flag(parser)


def scaled_progress(progress, start: float, stop: float):
    """``progress`` for one part of the work, from ``start`` to ``stop`` of the whole (None: None)."""
    if progress is None:
        return None
    return lambda fraction, message: progress(start + (stop - start) * fraction, message)


def run_attack(args) -> dict:
    """What an attacker learns from one mechanism's release at ε (`privlib.projections.attacks`): the
    attribute attack (exact curve, simulated ROC, AUC, TPR at 1 % FPR, success at prior ½) and the
    linkage attack (success against chance, the pair's own guarantee), each with its sentence; with
    ``--target``, the largest ε of the grid under it. The same numbers as the page for the same seed."""
    from privlib.projections import attacks

    if args.seed < 0:
        raise ValueError(f"--seed must be a whole number of at least 0, got {shown(args.seed)}.")
    releases = check_positive_int(args.releases, "--releases (per value)", minimum=20, maximum=10**8)
    targets = check_positive_int(args.targets, "--targets (released rows)", maximum=10**8)
    k = check_positive_int(args.k, "--k (the number of projections)")
    extra = parse_params(args.param)
    clash = sorted(set(extra) & set(ATTACK_OWN_PARAMETERS))
    if clash:
        raise ValueError(f"--param {clash[0]}=… is an option of its own here: use --{clash[0]}"
                         + (" (p comes from --dataset)." if clash[0] == "p" else "."))
    parameters = {"k": k, "beta": args.beta, "seed": args.seed, **extra}
    data = load_dataset(args.dataset)
    attribute, linkage = args.attack in ("both", "attribute"), args.attack in ("both", "linkage")
    epsilons = args.epsilons if args.epsilons is not None else np.asarray(attacks.DEFAULT_EPSILONS)
    candidates = data.n_db + data.n_queries
    count = min(targets, candidates)
    width = data.p if args.mechanism == "raw-data-g-opt" else k
    check_memory("rp-attack", attacks.attack_nbytes(args.mechanism, p=data.p, k=k, candidates=candidates,
                                                    targets=count) + 16.0 * releases * width, "--k or --releases")
    seconds = attacks.attack_seconds(args.mechanism, p=data.p, k=k, releases=releases if attribute else 0,
                                     candidates=candidates if linkage else 0, targets=count if linkage else 0)
    if args.target is not None:
        seconds += attacks.attack_seconds(args.mechanism, p=data.p, k=k, epsilons=len(epsilons), releases=0,
                                          candidates=candidates if linkage else 0, targets=count if linkage else 0)
    progress = long_work(args, "rp-attack", seconds, "--releases, --targets, --k or --epsilons")
    common = {"epsilon": args.epsilon, "delta": args.delta, "seed": args.seed, "parameters": parameters,
              "allow_long": args.allow_long}
    result = {"mechanism": args.mechanism, "epsilon": args.epsilon, "delta": args.delta, "dataset": data.name,
              "p": data.p, "k": k, "beta": args.beta, "seed": args.seed, "attribute": None, "linkage": None,
              "targets": None, "sentences": []}
    if attribute:
        found = attacks.attribute_inference(args.mechanism, p=data.p, releases=releases,
                                            progress=scaled_progress(progress, 0.0, 0.3), **common)
        result["attribute"] = found.to_dict()
        result["sentences"].append(found.sentence)
    if linkage:
        found = attacks.record_linkage(args.mechanism, dataset=data, targets=targets,
                                       progress=scaled_progress(progress, 0.3, 0.5), **common)
        result["linkage"] = found.to_dict()
        result["sentences"].append(found.sentence)
    if args.target is not None:
        curves = attacks.attack_curves(args.mechanism, epsilons=epsilons, delta=args.delta, dataset=data,
                                       linkage=linkage, targets=targets, seed=args.seed, parameters=parameters,
                                       progress=scaled_progress(progress, 0.5, 1.0), allow_long=args.allow_long)
        chosen = [name for name, wanted in (("attribute", attribute), ("linkage", linkage)) if wanted]
        answers = [attacks.largest_epsilon_under(args.target, curves, name) for name in chosen]
        result["targets"] = {"target": args.target, "curves": curves.to_dict(),
                             "answers": [answer.to_dict() for answer in answers]}
        result["sentences"] += [answer.sentence for answer in answers]
    if progress is not None:
        progress(1.0, "rp-attack: done")
    return result


def print_attack(args, result: dict) -> None:
    print(f"{result['mechanism']} at epsilon = {result['epsilon']:g} on {result['dataset']} (p = {result['p']}, "
          f"k = {result['k']}, beta = {result['beta']:g}, seed {result['seed']})")
    attribute = result["attribute"]
    if attribute is not None:
        measured = attribute["measured"]
        exact = "" if attribute["exact_auc"] is None else f" (exact {attribute['exact_auc']:.4f})"
        print(f"attribute inference: AUC {measured['auc']:.4f} ± {2 * measured['auc_standard_error']:.4f}{exact}; "
              f"TPR {measured['tpr_at']:.4f} ± {2 * measured['tpr_at_standard_error']:.4f} at FPR "
              f"{measured['fpr_at']:.4f} (chosen for {100 * attribute['measured']['target_fpr']:g} %)")
    linkage = result["linkage"]
    if linkage is not None:
        print(f"record linkage: {linkage['hits']:,} of {linkage['targets']:,} linked right "
              f"({100 * linkage['success']:.3g} % ± {200 * linkage['standard_error']:.3g} %; chance "
              f"{100 * linkage['chance']:.3g} %)")
    for sentence in result["sentences"]:
        print(sentence)


# ---------------------------------------------------------------------------------------------

#: The random-projection commands, in the order ``--help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("rp-sigma", "Gaussian noise sigma for (epsilon, delta, Delta_2): optimal, Kenthapadi, classical or "
                        "analytic (Li & Li Thms 2.2, 3.1, 3.4, 3.5)",
            add_sigma_arguments, run_sigma, print_sigma),
    Command("rp-pplus", "P+(r, p): probability a sign-projection bit is at risk (Li & Li eq. 26)",
            add_pplus_arguments, run_pplus, print_pplus),
    Command("rp-nplus", "N+: bits of DP-SignRP-RR at risk, and epsilon per bit (Li & Li eq. 27)",
            add_nplus_arguments, run_nplus, print_nplus),
    Command("rp-variance", "inner-product variances raw / RP / OPORP and their ratio R (Li & Li eqs. 19-23)",
            add_variance_arguments, run_variance, print_variance),
    Command("rp-sensitivity", "realised sensitivities Delta_1, Delta_2 of a drawn projection against the "
                              "Lemma 3.3 / 3.7 bounds",
            add_sensitivity_arguments, run_sensitivity, print_sensitivity),
    Command("rp-sweep", "retrieval precision@50 against epsilon for the random-projection mechanisms "
                        "(Li & Li §5.1)",
            add_sweep_arguments, run_sweep, print_sweep),
    Command("rp-attack", "what an attacker learns from a random-projection release: attribute inference "
                         "(covered by the guarantee) and record linkage (not covered)",
            add_attack_arguments, run_attack, print_attack),
)
