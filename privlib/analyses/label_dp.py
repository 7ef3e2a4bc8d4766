"""The Label DP page's analysis: its settings, its numbers and its code.

The page randomises the training labels with an ε-label-DP randomiser (k-ary randomised response,
RRWithPrior or LP-2ST), trains a model on them (the baseline) and retrains it on its own predicted
labels (Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy"; the
LP-2ST baseline of Ghazi et al. 2021). Its main result is one run at the chosen ε (`sweep_run`: the
first repetition of the sweep, same data, same labels) and the sweep of every retraining mode over the
ε grid `EPSILONS` (`retraining_sweep`). The heat map, the attacker's view and the Theory tab run on
their own controls or buttons: they are not in the export.
"""
from __future__ import annotations

import math

from privlib.analyses.code import code, markdown
from privlib.analyses.settings import PageSettings, Setting
from privlib.label_dp.datasets import (
    DATASET_LABELS,
    DATASET_PARAMETERS,
    MAX_DIGIT_CLASSES,
    SYNTHETIC_DATASETS,
    default_model,
    default_repeats,
)
from privlib.label_dp.mechanisms import MECHANISMS
from privlib.label_dp.models import MODELS
from privlib.label_dp.retraining import MODE_LABELS

#: ln 1.5: binary randomised response flips with p = 1/(1 + e^ε) = 0.4 (the paper's Fig. 1).
LN_1_5 = math.log(1.5)
#: The ε grid of the page's sweep, and the values its ε slider offers (moving ε reruns no sweep).
EPSILONS = (0.05, 0.1, 0.25, LN_1_5, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
#: The choices of the dataset parameters the page offers (the loader takes others too).
DELTA_CHOICES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)
N_CHOICES = (100, 200, 300, 500, 1000, 3000)
D_CHOICES = (2, 5, 10, 20, 50, 100)
#: The largest number of runs the page's slider offers.
MAX_REPEATS = 50
#: The largest seed (as every seed input of the app).
MAX_SEED = 2**31 - 1
#: The Theory tab's choices: the law of |x⁽¹⁾|, the binary flip probability p, n and d.
LAWS = ("two_point", "compliant")
P_CHOICES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.45)
THEORY_N_CHOICES = (300, 1_000, 3_000, 10_000, 100_000, 10**6, 2 * 10**6, 10**7)
THEORY_D_CHOICES = (2, 10, 16, 17, 20, 50, 100, 200)

#: The page's settings; the names are `retrain`'s option dests. The page's own: ``mode`` (the retraining
#: shown in the scatter chart), and the controls of the sections that are not in the export (the heat map,
#: the attacker's view's target, the Theory tab). A dataset parameter the chosen dataset does not take
#: (`DATASET_PARAMETERS`) is None: the command line refuses it, and the page shows its default.
SETTINGS = PageSettings("label_dp", "Label DP", command="retrain", settings=(
    Setting("epsilon", LN_1_5, "choice", choices=EPSILONS, label="ε (epsilon)",
            help="ε of ε-label DP, one value of the sweep's grid; smaller = more privacy."),
    Setting("dataset", "fig1", "choice", choices=tuple(DATASET_LABELS), label="Dataset"),
    Setting("delta_sep", 0.5, "choice", choices=DELTA_CHOICES, optional=True, label="Δ (class separation)",
            help="Fig. 1 only."),
    Setting("n", 300, "choice", choices=N_CHOICES, optional=True, label="n (training points)",
            help="The synthetic datasets only."),
    Setting("d", 50, "choice", choices=D_CHOICES, optional=True, label="d (dimension)",
            help="The synthetic datasets only."),
    Setting("model", default_model("fig1"), "choice", choices=tuple(MODELS), label="Model"),
    Setting("randomiser", "rr", "choice", choices=tuple(MECHANISMS), label="Labels"),
    Setting("mode", "consensus", "choice", choices=tuple(MODE_LABELS), label="Retraining shown in the scatter"),
    Setting("fresh_unlabelled", False, "bool", label="Retrain on a fresh unlabelled set X_U (§4)",
            help="The synthetic datasets only."),
    Setting("repeats", default_repeats("fig1"), "int", low=1, high=MAX_REPEATS, label="Runs"),
    Setting("seed", 1000, "int", low=0, high=MAX_SEED, label="Seed"),
    Setting("classes", None, "int", low=2, high=MAX_DIGIT_CLASSES, optional=True, label="Classes C",
            help="Digits and MNIST only: the first C digit classes."),
    Setting("heat_map", True, "bool", label="Compute the heat map"),
    Setting("attack_target", 0.75, "float", low=0.0, high=1.0, label="Attack success you accept"),
    Setting("law", "two_point", "choice", choices=LAWS, label="Theory: law of |x⁽¹⁾|"),
    Setting("p", 0.4, "choice", choices=P_CHOICES, label="Theory: p (flip probability)"),
    Setting("theory_n", 10**7, "choice", choices=THEORY_N_CHOICES, label="Theory: n"),
    Setting("theory_d", 50, "choice", choices=THEORY_D_CHOICES, label="Theory: d"),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("One training example's label (ε-label DP): each label is randomised once per run, so whether an example's "
            "label was one class or another changes the chance of any output by at most a factor e^ε; the features "
            "are public and not protected, and retraining on predicted labels is post-processing.")


def dataset_parameters(values) -> dict:
    """The loader parameters the chosen dataset takes (`DATASET_PARAMETERS`), from checked ``values``; a
    synthetic dataset's own default where the value is None (the binary data have C = 2, fixed)."""
    defaults = SETTINGS.defaults()
    found = {}
    for name in DATASET_PARAMETERS[values["dataset"]]:
        value = values[name] if values[name] is not None else defaults[name]
        found[name] = MAX_DIGIT_CLASSES if value is None else value  # classes: all ten digits unless chosen
    return found


def numbers(run, randomised_response) -> dict:
    """The numbers of the page's run at ε: each mode's test accuracy, the flipped labels, the label
    diagnostics (computed with the clean labels) and randomised response's keep and flip probabilities
    e^ε/(e^ε + C − 1) and (C − 1)/(e^ε + C − 1) (``randomised_response``: a `RandomisedResponse` of C
    classes at ε). An undefined value (consensus on a fresh X_U) is left out."""
    found = {f"test accuracy, {mode}": value for mode, value in run.accuracy.items()}
    found.update({
        "training points": int(run.flipped.size),
        "flipped labels": int(run.flipped.sum()),
        "given labels correct": run.given_label_accuracy,
        "predicted labels correct": run.predicted_label_accuracy,
        "correct on the consensus set": run.consensus_label_accuracy,
        "consensus fraction": run.consensus_fraction,
        "P(keep)": randomised_response.keep_probability,
        "P(flip)": randomised_response.flip_probability,
    })
    return {name: (value if isinstance(value, int) else float(value)) for name, value in found.items()
            if value is not None and math.isfinite(value)}


def run_title(epsilon: float, seed: int, n: int) -> str:
    """The title of the page's scatter chart of one run."""
    return f"One run at ε = {epsilon:.3g} (seed {seed}, first repetition): {n:,} training points"


def sweep_title(model: str, randomiser: str, dataset_name: str, repeats: int) -> str:
    """The title of the page's accuracy-against-ε chart."""
    return (f"{MODELS[model].label} on {dataset_name}, {MECHANISMS[randomiser].label}: mean ± SD over "
            f"{repeats} runs")


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    fresh = v["fresh_unlabelled"] and v["dataset"] in SYNTHETIC_DATASETS
    return [
        markdown(f"""
# Label DP: randomised response and retraining — from Epsilon Lab
Each training label is randomised once by an ε-label-DP randomiser (k-ary randomised response keeps it with
probability e^ε/(e^ε + C − 1)); a model trained on these labels is the *baseline*, and retraining on its own
predicted labels can make it more accurate at no privacy cost (Das et al.). Smaller ε = labels flipped more
often = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.label_dp import EPSILONS, numbers, run_title, sweep_title
from privlib.core.randomised_response import RandomisedResponse
from privlib.label_dp.datasets import load_dataset
from privlib.label_dp.sweep import retraining_sweep, sweep_run
from privlib.presentation.label_dp import figures"""),
        code(f"""
# The page's settings
dataset = {v['dataset']!r}
parameters = {dataset_parameters(v)!r}  # the loader parameters this dataset takes
epsilon = {v['epsilon']!r}  # one value of the grid EPSILONS
model = {v['model']!r}
randomiser = {v['randomiser']!r}
mode = {v['mode']!r}  # the retraining shown in the scatter chart
fresh_unlabelled = {fresh!r}
repeats = {v['repeats']!r}
seed = {v['seed']!r}"""),
        markdown("## One run at ε: the data, the given labels and the predicted ones"),
        code("""
data = load_dataset(dataset, **parameters)
run = sweep_run(data, randomiser, epsilon, seed=seed, model=model, mode=mode, modes=("baseline", mode),
                fresh_unlabelled=fresh_unlabelled)
scatter = figures.run_scatter(run, data, title=run_title(epsilon, seed, data.n))
scatter"""),
        markdown("## The numbers of this run (the page's table)"),
        code("""
print_numbers(numbers(run, RandomisedResponse(data.classes, epsilon)))
save_charts("label-dp-charts.html", [scatter], title="Label DP: one run")"""),
        markdown(f"""
## The sweep over the ε grid (may take a while)
The page runs this by itself when it is quick, otherwise on its button: every retraining mode at each of the
{len(EPSILONS)} values of ε, {v['repeats']} runs each (mean ± SD). The heat map, the attacker's view and the
Theory tab run on their own buttons and controls on the page; they are not in this export."""),
        code("""
sweep = retraining_sweep(data, randomiser, EPSILONS, repeats=repeats, seed=seed, model=model,
                         fresh_unlabelled=fresh_unlabelled)
accuracy = figures.sweep_accuracy_chart(sweep, chosen_epsilon=epsilon,
                                        title=sweep_title(model, randomiser, data.name, repeats))
labels = figures.sweep_label_chart(sweep, chosen_epsilon=epsilon, narrow=True, title="Label accuracy against ε")
label_bars = figures.sweep_label_bars(sweep, epsilon)
save_charts("label-dp-charts.html", [accuracy, scatter, labels, label_bars], title="Label DP")
accuracy"""),
    ]
