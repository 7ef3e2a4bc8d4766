"""The Random projections page's analysis: its settings, its numbers and its code.

The page releases a random projection of each data vector (or its signs) made differentially private
(Li & Li, "Differential Privacy with Random Projections and Sign Random Projections") and uses the
releases for similarity search: precision@R against ε for each chosen mechanism
(`privlib.projections.sweep.sweep`, the page's main result), the per-mechanism table at the chosen ε,
the paper's explanatory charts (`privlib.presentation.projections.figures`) and the attacker's view
(`privlib.projections.attacks`: one attribute, covered by the guarantee). The page runs the linkage
attack and the other mechanisms' frontier lines only on their buttons: the exported code leaves them
out and says how to run them (the command line's ``rp-attack``).

The page sweeps each mechanism on its own (cached) and merges an ε off the grid into the grid's sweep;
each (mechanism, ε, repetition) cell draws from its own stream, so the export's one sweep of every
mechanism over the grid and the chosen ε gives the same numbers (`sweep.combine`, `combine_epsilons`).
"""
from __future__ import annotations

import math

from privlib.analyses.code import code, markdown
from privlib.analyses.settings import PageSettings, Setting
from privlib.core.validation import EPSILON_MAX, EPSILON_MIN, shown
from privlib.projections.attacks import DEFAULT_TARGET
from privlib.projections.datasets import DATASET_LABELS
from privlib.projections.mechanisms import MECHANISMS
from privlib.projections.sweep import (
    CHANCE,
    DEFAULT_EPSILONS,
    DP_MECHANISMS,
    IDP_MECHANISMS,
    NONPRIVATE_RP,
    NONPRIVATE_SIGNRP,
    TRUE_NEIGHBOURS,
    epsilon_index,
    precision_label,
    recall_at,
    table_rows,
)

#: The ε grid of the curves; an ε of the slider off this grid is swept alone and merged in.
EPSILONS = DEFAULT_EPSILONS
#: The repetitions of the sweep (each with a new public projection).
REPEATS = 3
K_CHOICES = (16, 32, 48, 64, 128, 256)
T_CHOICES = (1, 2, 4, 8)
P_CHOICES = (512, 1024, 2048, 4096)
R_CHOICES = (10, 20, 50, 100)
#: The δ values the page offers (largest first, as on the slider).
DELTA_CHOICES = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
#: The projections of DP-RP-G-OPT-B the page offers, and their labels.
KIND_LABELS = {"rademacher": "Rademacher ±1", "gaussian": "Gaussian", "uniform": "√3·U[−1, 1]",
               "sparse": "very sparse √s·{−1, 0, 1}"}
#: The mechanisms swept by default: DP-OPORP (full precision) and the two DP-SignOPORPs (one bit per
#: value) — a few lines on the chart and a first view in seconds; the others are one click away.
DEFAULT_MECHANISMS = ("dp-oporp", "dp-signoporp-rr", "dp-signoporp-rr-smooth")
#: The Monte Carlo check of √(V_RR/k): the angle of the pair, the ε at which it is simulated, and its draws.
ANGLE_THETA = math.pi / 3
ANGLE_CHECK_EPSILONS = (0.5, 2.0, 5.0, 20.0)
ANGLE_CHECK_DRAWS = 400
#: The Monte Carlo check of the inner-product variances (the page's toggle): its ε and draws (a new W each).
VARIANCE_CHECK_EPSILONS = (0.5, 5.0, 50.0)
VARIANCE_CHECK_DRAWS = 200
#: The settings besides k, β and the projection's seed that a mechanism may read (its own PARAMETERS decide).
ATTACK_SETTINGS = ("t", "m", "projection", "s")
#: The linkage success accepted by default.
LINKAGE_TARGET = 0.05
#: The synthetic data's dimension when none is given (rp-sweep's without --p; rp-attack has no --p).
DEFAULT_SYNTHETIC_P = 2048
#: The largest seed (as every seed input of the app).
MAX_SEED = 2**31 - 1

#: The page's settings; the names are `rp-sweep`'s option dests where it has the option (dataset, mechanisms,
#: k, t, seed, delta, beta, m, projection, R, and true: fixed on the page, each query's top 50). The page's
#: own: ε (the sweep covers the grid and ε), p (the synthetic data's dimension; MNIST and the digits fix it),
#: s, whether to show the iDP mechanisms, the variance check, and the attacker's view's mechanism and targets.
SETTINGS = PageSettings("random_projections", "Random projections", command="rp-sweep", settings=(
    Setting("epsilon", 5.0, "float", low=EPSILON_MIN, high=EPSILON_MAX, label="ε (epsilon)",
            help="The chosen ε: marked on the charts, the table's ε; smaller = more privacy."),
    Setting("delta", 1e-6, "choice", choices=DELTA_CHOICES, label="δ (delta)"),
    Setting("dataset", "mnist", "choice", choices=tuple(DATASET_LABELS), label="Dataset"),
    Setting("p", DEFAULT_SYNTHETIC_P, "choice", choices=P_CHOICES, label="p (dimension)",
            help="The synthetic data only."),
    Setting("k", 32, "choice", choices=K_CHOICES, label="k (projections)"),
    Setting("t", 1, "choice", choices=T_CHOICES, label="t (OPORP repetitions)"),
    Setting("seed", 0, "int", low=0, high=MAX_SEED, label="Seed"),
    Setting("projection", "rademacher", "choice", choices=tuple(KIND_LABELS), label="Projection of DP-RP-G-OPT-B"),
    Setting("s", 3.0, "float", low=1.0, high=100.0, label="s (very sparse)"),
    Setting("m", 0.0, "float", low=0.0, high=100.0, label="m (norm bound, DP-SignRP-RR)",
            help="A public lower bound on every vector's norm; 0 = none. Must be 0 or at least β."),
    Setting("beta", 1.0, "float", low=0.05, high=2.0, label="β (adjacency)"),
    Setting("R", TRUE_NEIGHBOURS, "choice", choices=R_CHOICES, label="R (neighbours retrieved)"),
    Setting("true", TRUE_NEIGHBOURS, "choice", choices=(TRUE_NEIGHBOURS,), label="True neighbours per query",
            help=f"Each query's top {TRUE_NEIGHBOURS} by cosine (fixed on the page): rp-sweep's --true, so that the "
                 "command line counts the same neighbours as true whatever R."),
    Setting("mechanisms", DEFAULT_MECHANISMS, "choices", choices=DP_MECHANISMS, label="Mechanisms"),
    Setting("show_idp", False, "bool", label="show iDP (not DP)"),
    Setting("variance_check", False, "bool", label="Monte Carlo check of the variances"),
    Setting("attack_mechanism", DEFAULT_MECHANISMS[0], "choice", choices=DP_MECHANISMS + IDP_MECHANISMS,
            label="Mechanism attacked", help="One of the mechanisms shown (else the first of them)."),
    Setting("attack_target", DEFAULT_TARGET, "float", low=0.0, high=1.0, label="Attack success you accept"),
    Setting("linkage_target", LINKAGE_TARGET, "float", low=0.0, high=1.0, label="Linkage success you accept"),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("One attribute of one vector (β-adjacency): whether one coordinate of a vector holds one value or "
            "another at most β away changes the chance of any release of that vector by at most a factor e^ε "
            "(and δ); a whole row is not protected — linking a release to its original row is not covered.")


def shown_mechanisms(values) -> list[str]:
    """The mechanisms the page sweeps and shows, in order: the chosen DP ones, then the iDP ones if shown."""
    return list(values["mechanisms"]) + (list(IDP_MECHANISMS) if values["show_idp"] else [])


def attacked_mechanism(values) -> str:
    """The attacker's view's mechanism: the chosen one if it is shown, else the first shown."""
    names = shown_mechanisms(values)
    if not names:
        raise ValueError("Choose at least one mechanism.")
    return values["attack_mechanism"] if values["attack_mechanism"] in names else names[0]


def attack_parameters(name, k, beta, seed, specific) -> tuple:
    """The attacked mechanism's parameters as a hashable tuple: k, β, the public projection's seed and
    those of t, m, the projection and s (``specific``: name → value) that it reads."""
    own = MECHANISMS[name].PARAMETERS
    return tuple(sorted({"k": int(k), "beta": float(beta), "seed": int(seed),
                         **{key: specific[key] for key in ATTACK_SETTINGS if key in own}}.items()))


def numbers(result, epsilon: float) -> dict:
    """The numbers of the page's main result, the sweep ``result`` at ``epsilon`` (a value of its grid):
    the non-private RP and SignRP levels and chance, and for each mechanism its precision@R (mean and
    SD over the repetitions), the public numbers of the table (σ, ε per bit, Laplace scale, Δ₂ of
    repetition 0), the expected flipped bits and the bits per vector (`sweep.table_rows`); with R ≠
    the true neighbours, each mechanism's recall@R (`sweep.recall_at`)."""
    metric = precision_label(result)
    found = {f"non-private RP, {metric}": float(result.reference[NONPRIVATE_RP]),
             f"non-private SignRP, {metric}": float(result.reference[NONPRIVATE_SIGNRP]),
             f"chance, {metric}": float(result.reference[CHANCE])}
    e = epsilon_index(result, epsilon)
    at = f"ε = {float(epsilon)!r}"
    for row in table_rows(result, epsilon):
        name = f"{row['label']} at {at}"
        found[f"{name}, {metric} mean"] = float(row["precision"])
        found[f"{name}, {metric} SD"] = float(result.sd(row["name"], "precision")[e])
        for key, what in (("sigma", "σ"), ("eps_per_bit", "ε per bit"), ("laplace_scale", "Laplace scale"),
                          ("delta2", "Δ₂"), ("expected_flips", "expected flipped bits")):
            if row[key] is not None:
                found[f"{name}, {what}"] = float(row[key])
        found[f"{name}, bits per vector"] = int(row["bits"])
    true = result.settings.get("true")
    if true is not None and true != result.settings["R"]:
        for mechanism, recall in recall_at(result, epsilon).items():
            found[f"{result.labels[mechanism]} at {at}, recall@{result.settings['R']} of the top {true}"] = float(recall)
    return found


def linkage_command(values) -> str:
    """The command line that runs the page's on-request linkage attack (and its curve) at ``values``."""
    v = SETTINGS.check(values)
    attacked = attacked_mechanism(v)
    specific = {"t": v["t"], "m": v["m"], "projection": v["projection"], "s": v["s"]}
    params = " ".join(f"--param {key}={value!r}" if isinstance(value, float) else f"--param {key}={value}"
                      for key, value in attack_parameters(attacked, v["k"], v["beta"], v["seed"], specific)
                      if key not in ("k", "beta", "seed"))
    return (f"python -m privlib rp-attack --attack linkage --mechanism {attacked} --dataset {v['dataset']} "
            f"--epsilon {v['epsilon']!r} --delta {v['delta']!r} --k {v['k']} --beta {v['beta']!r} --seed {v['seed']}"
            + (f" {params}" if params else "") + f" --target {v['linkage_target']!r} --epsilons "
            + ",".join(f"{e:g}" for e in EPSILONS))


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    if not shown_mechanisms(v):
        raise ValueError("Choose at least one mechanism (mechanisms, or show_idp = true).")
    if v["attack_mechanism"] not in shown_mechanisms(v):
        raise ValueError(f"attack_mechanism = {shown(v['attack_mechanism'])} is not among the mechanisms shown: "
                         f"choose one of {', '.join(shown_mechanisms(v))}.")
    linkage_note = (f" (the command line's rp-attack reads the synthetic data at p = {DEFAULT_SYNTHETIC_P:,})"
                    if v["dataset"] == "synthetic" and v["p"] != DEFAULT_SYNTHETIC_P else "")
    return [
        markdown(f"""
# Random projections — from Epsilon Lab
Publish a random projection of each data vector instead of the vector itself (k numbers, or the k bin sums of
OPORP), made private with Gaussian noise — or only their signs, one bit each, made private by randomly flipping
bits (Li & Li, *Differential Privacy with Random Projections and Sign Random Projections*). Below: how many of
each query's {TRUE_NEIGHBOURS} true nearest neighbours are still found among the R nearest released vectors
(precision@R) against ε, the table at the chosen ε, why projecting first and keeping one bit help, and what an
attacker learns. Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
import numpy as np

from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.random_projections import (ANGLE_CHECK_DRAWS, ANGLE_CHECK_EPSILONS, ANGLE_THETA, EPSILONS,
                                                  REPEATS, VARIANCE_CHECK_DRAWS, VARIANCE_CHECK_EPSILONS,
                                                  attack_parameters, numbers)
from privlib.presentation.projections import figures
from privlib.presentation.risk import attack_vs_epsilon_chart, frontier_chart, tradeoff_chart
from privlib.projections import attacks
from privlib.projections.datasets import load_dataset_at
from privlib.projections.projection import make_projection
from privlib.projections.quantities import n_plus
from privlib.projections.sweep import (IDP_MECHANISMS, inner_product_monte_carlo, precision_label, recall_at,
                                       rr_angle_monte_carlo, smooth_levels_on_data, sweep, table_rows)"""),
        code(f"""
# The page's settings
epsilon = {v['epsilon']!r}
delta = {v['delta']!r}
dataset = {v['dataset']!r}
p = {v['p']!r}  # the synthetic data's dimension (MNIST and the digits fix theirs)
k = {v['k']!r}
t = {v['t']!r}
seed = {v['seed']!r}
projection = {v['projection']!r}  # of DP-RP-G-OPT-B
s = {v['s']!r}  # of the very sparse projection
m = {v['m']!r}  # public norm bound of DP-SignRP-RR (0: none)
beta = {v['beta']!r}
R = {v['R']!r}
true = {v['true']!r}  # each query's top `true` by cosine are its true neighbours; R are retrieved
mechanisms = {v['mechanisms']!r}
show_idp = {v['show_idp']!r}
variance_check = {v['variance_check']!r}
attack_mechanism = {v['attack_mechanism']!r}
attack_target = {v['attack_target']!r}"""),
        markdown("## Privacy against retrieval quality"),
        code("""
data = load_dataset_at(dataset, p)
names = list(mechanisms) + (list(IDP_MECHANISMS) if show_idp else [])
epsilons = sorted(set(EPSILONS) | {epsilon})  # the grid, and the chosen ε
result = sweep(data, names, epsilons, repeats=REPEATS, seed=seed, k=k, t=t, delta=delta, beta=beta, m=m, R=R,
               projection=projection, s=s, true=true)
metric = precision_label(result)
precision_chart = figures.precision_vs_epsilon(result, chosen_epsilon=epsilon, title=f"{metric} on {data.name}, k = {k}")
precision_chart"""),
        code("""
print(figures.markdown_table(figures.mechanism_table(table_rows(result, epsilon), metric)))
if R != true:  # the paper's recall@R = precision@R × R/true
    recalls = recall_at(result, epsilon)
    print(f"recall@{R} out of each query's top {true} at ε = {epsilon:g}: "
          + ", ".join(f"{result.labels[name]} {value:.3f}" for name, value in recalls.items()))"""),
        markdown("## Why projecting first reduces the noise"),
        code("""
realised = make_projection("gaussian", data.p, k, seed).delta2(beta)  # a Gaussian W's realised Δ₂ (not β)
print(f"Gaussian W: realised Δ₂ = {realised:.3f}")
sigma_chart = figures.mark_epsilon(figures.sigma_chart(delta, beta, realised), epsilon)
sigma_chart"""),
        code("""
delta2_chart = figures.delta2_chart(k, beta, seed)
delta2_chart"""),
        code("""
ratio_chart = figures.variance_ratio_chart()
ratio_chart"""),
        code("""
u, v = data.Q[0], data.Q[1]  # two queries
check = (inner_product_monte_carlo(u, v, VARIANCE_CHECK_EPSILONS, k, draws=VARIANCE_CHECK_DRAWS, seed=seed,
                                   delta=delta, beta=beta) if variance_check else None)
variance_chart = figures.mark_epsilon(figures.variance_chart(u, v, k, delta, beta, monte_carlo=check), epsilon)
variance_chart"""),
        markdown("## Why one bit per value can win at small ε"),
        code("""
p_plus_chart = figures.p_plus_chart()
p_plus_chart"""),
        code("""
n_plus_chart = figures.n_plus_chart(data.p, k, delta)
n_plus_chart"""),
        code("""
at_risk_chart = figures.mark_x(figures.at_risk_chart(), data.p, f"p = {data.p:,}")
at_risk_chart"""),
        code("""
flip_chart = figures.flip_chart(epsilon, epsilon / t, D=beta)
flip_chart"""),
        code("""
levels_chart = figures.smooth_level_histogram(smooth_levels_on_data(data, k, t, seed, beta))
levels_chart"""),
        code("""
count = n_plus(data.p, k, delta, m, beta) if m >= beta else float(k)  # the bits at risk N₊ (m = 0: all k)
angle_check = rr_angle_monte_carlo(ANGLE_THETA, tuple(e / t for e in ANGLE_CHECK_EPSILONS), k,
                                   draws=ANGLE_CHECK_DRAWS, seed=seed)
angle_chart = figures.mark_epsilon(figures.angle_sd_chart(k, float(count), t, theta=ANGLE_THETA,
                                                          monte_carlo=angle_check,
                                                          title="SD of the angle estimate (Thm 4.6)"), epsilon)
angle_chart"""),
        markdown("""
## Attacker's view: one attribute of one vector
Somebody who knows every other coordinate of a vector tries to tell which of two values β apart one coordinate
holds (covered: the guarantee bounds every such attacker). The page runs the attribute attack at ε by itself when
it takes under a second and a half, else on its button."""),
        code("""
specific = {"t": t, "m": m, "projection": projection, "s": s}
parameters = dict(attack_parameters(attack_mechanism, k, beta, seed, specific))
attribute = attacks.attribute_inference(attack_mechanism, epsilon=epsilon, delta=delta, p=data.p, seed=seed,
                                        parameters=parameters, allow_long=True)
print(attribute.sentence)
attack_chart = tradeoff_chart(attribute.bound, attacks={"likelihood-ratio attack (measured, held out)":
                                                        attribute.measured},
                              exact=attribute.exact, title=f"Attribute inference at ε = {epsilon:g}")
attack_chart"""),
        code("""
curves = attacks.attack_curves(attack_mechanism, epsilons=EPSILONS, delta=delta, dataset=data, linkage=False,
                               seed=seed, parameters=parameters, allow_long=True)  # closed forms across ε
label = result.labels[attack_mechanism]
bound = curves.attribute_bound if np.all(np.isfinite(curves.attribute_bound)) else None  # no guarantee: none
measured = "the attribute attacker (exact)" if curves.attribute_exact else "the attribute attacker (measured)"
success_chart = figures.mark_epsilon(attack_vs_epsilon_chart(
    curves.epsilons, {measured: (curves.attribute_success,
                                 None if curves.attribute_exact else curves.attribute_standard_error)},
    bound=bound, baseline=attacks.PRIOR, y_title="guessed right (prior ½)",
    title=f"Attribute inference against ε, {label}", baseline_name="guessing without the release"), epsilon)
print(attacks.largest_epsilon_under(attack_target, curves, "attribute").sentence)
success_chart"""),
        code("""
frontier = frontier_chart(
    attacks.attack_utility_frontier(result, [curves]), x_title=f"{metric} (the retrieval sweep above)",
    y_title="attribute guessed right (prior ½)", baseline=attacks.PRIOR, baseline_name="guessing without the release",
    title="Attack success against retrieval quality, through ε")
frontier"""),
        markdown(f"""
## On request on the page: not run here
The page adds the other mechanisms' lines to the frontier (`attacks.attack_curves` of each, as above) and runs
the linkage attack (a whole row: not covered by the guarantee) only on their buttons. The linkage attack and its
largest ε under the page's linkage target, from the command line{linkage_note}:

    {linkage_command(v)}"""),
        markdown("## The numbers (the page's *Take this analysis home* section)"),
        code("""
print_numbers(numbers(result, epsilon))
charts = [precision_chart, sigma_chart, delta2_chart, ratio_chart, variance_chart, p_plus_chart, n_plus_chart,
          at_risk_chart, flip_chart, levels_chart, angle_chart, attack_chart, success_chart, frontier]
save_charts("random-projections-charts.html", charts, title="Random projections")"""),
    ]
