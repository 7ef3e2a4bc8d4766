"""The Private learning page's analysis: its settings, its numbers and its code.

The page trains linear models privately — input perturbation (Fukuchi, Tran, Sakuma 2017) with the
safe calibration, objective perturbation (Obj-Gauss, KST12), output perturbation (CMS11) — over a
grid of n at one ε (over a grid of ε on the diabetes data: `privlib.erm.sweep`), and shows the
calibration at the chosen n, the two privacy meters, the local multiplier's trade-off, the inside view
and the calibration's explainer (`privlib.presentation.erm.figures`). The attacker's view (the
membership game) runs on request only, so the exported code leaves it out and says how to run it.
"""
from __future__ import annotations

import math

from privlib.analyses.code import code, markdown
from privlib.analyses.embedding import MAX_SEED
from privlib.analyses.settings import PageSettings, Setting
from privlib.core.validation import EPSILON_MAX, EPSILON_MIN, shown
from privlib.erm.datasets import DATASET_LABELS, TASK_LABELS
from privlib.erm.mechanisms import METHODS
from privlib.erm.sweep import DEFAULT_INFLATIONS, SWEEP_AXIS, metric_of, sizes_within

#: The n grid of the sweep over n and the values of the n slider (the page caps n at 10⁵).
NS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)
#: The ε grid of a sweep over ε (the diabetes data).
SWEEP_EPSILONS = (0.5, 1.0, 2.0, 4.0, 10.0, 30.0, 100.0)
#: The δ values the page offers (largest first, as on the slider).
DELTA_CHOICES = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
D_CHOICES = (1, 2, 3, 5, 10, 20, 30, 50)
R_CHOICES = (0.25, 0.5, 1.0, 2.0, 4.0)
INFLATIONS = tuple(float(m) for m in DEFAULT_INFLATIONS)
#: The records drawn in the inside view.
INSIDE_RECORDS = 200
#: Every n a dataset's grid can hold (census2000's grid ends at its number of training records).
N_CHOICES = tuple(sorted({n for dataset in DATASET_LABELS for n in sizes_within(dataset, NS)}))
#: The n grid of the privacy meters (pure calibration, no training).
METER_NS = tuple(round(10 ** (2 + k / 10)) for k in range(31))


def n_grid(dataset: str) -> tuple:
    """The n grid of the sweep and of the page's n slider: census2000 stops at its training records."""
    return sizes_within(dataset, NS)


class MethodsSetting(Setting):
    """A non-empty subset of `METHODS`, kept in `METHODS`' order: a comma-separated list in a link, a
    list in a settings file (a "text" setting whose `parse`, `rule` and `to_text` read a subset)."""

    def parse(self, value):
        items = value.split(",") if isinstance(value, str) else value
        try:
            chosen = {str(item).strip() for item in items} - {""}
        except TypeError:
            chosen = set()
        if not chosen or not chosen <= set(METHODS):
            raise ValueError(f"{self.name} = {shown(value)} is not {self.rule()}.")
        return tuple(m for m in METHODS if m in chosen)

    def rule(self) -> str:
        return "a comma-separated list of at least one of " + ", ".join(METHODS)

    def to_text(self, value) -> str:
        return ",".join(value)


SETTINGS = PageSettings("private_learning", "Private learning", command="erm-sweep", settings=(
    Setting("epsilon", 1.0, "float", low=EPSILON_MIN, high=EPSILON_MAX, label="ε (epsilon)",
            help="The target ε of every method (the sweep over n); on the diabetes data the chosen ε on the ε grid."),
    Setting("delta", 1e-6, "choice", choices=DELTA_CHOICES, label="δ (delta)"),
    Setting("dataset", "synthetic", "choice", choices=tuple(DATASET_LABELS), label="Dataset"),
    Setting("n", 10_000, "choice", choices=N_CHOICES, label="n (contributors)",
            help="The chosen n on the grid (the sweep covers the whole grid); unused on the diabetes data."),
    Setting("task", "regression", "choice", choices=tuple(TASK_LABELS), label="Task"),
    Setting("d", 10, "choice", choices=D_CHOICES, label="d (dimension)", help="Synthetic data only."),
    Setting("R", 1.0, "choice", choices=R_CHOICES, label="R (radius of ‖w‖ ≤ R)"),
    Setting("inflate", 1.0, "choice", choices=INFLATIONS, label="m (local multiplier)"),
    Setting("repeats", 10, "int", low=5, high=50, label="Repeats"),
    Setting("seed", 0, "int", low=0, high=MAX_SEED, label="Seed"),
    MethodsSetting("methods", METHODS, "text", label="Methods"),
    Setting("target", 0.6, "float", low=0.5, high=1.0, label="Attack success you accept",
            help="The largest ε of the attacker's-view grid that keeps the membership attack under it."),
))

#: What ε protects on this page (the report says it).
PROTECTS = ("One record, replace-one: the published model is (ε, δ)-DP for two data sets of n records that differ "
            "in one record (input perturbation with the safe calibration, Obj-Gauss; output perturbation is pure "
            "ε-DP); a contributor's own submitted record is protected against the database only at ε_L.")


def numbers(result, calibration, n: int) -> dict:
    """The numbers of the page's main result: the test metric's mean and SD and the excess risk's mean of
    every method at the chosen ``n`` (a sweep over n) or at every ε of the grid (a sweep over ε), from
    ``result`` (`n_sweep` / `sweep`), and the safe calibration's meters at ``n`` (``calibration``:
    `calibrate(..., route="safe")`). An undefined value (an invalid method) is left out."""
    metric = metric_of(result)
    axis = result.axis
    found = {}
    for i, value in enumerate(result.epsilons):
        if axis == "n" and int(value) != int(n):
            continue
        at = f"n = {int(value)}" if axis == "n" else f"ε = {float(value)!r}"
        for m in result.mechanisms:
            sd = result.sd(m, metric)[i] if result.repeats > 1 else 0.0
            for what, number in ((f"{metric} mean", result.mean(m, metric)[i]), (f"{metric} SD", sd),
                                 ("excess risk mean", result.mean(m, "excess_risk")[i])):
                if math.isfinite(number):  # not NaN: the method gave a model
                    found[f"{m} at {at}, {what}"] = float(number)
    cal = calibration.input
    if cal.valid:
        found.update({"model ε (accountant)": float(cal.epsilon_model), "σ_a": float(cal.sigma_a),
                      "σ_b": float(cal.sigma_b)})
    if calibration.local is not None:
        found["contributor ε_L"] = float(calibration.local.epsilon_L)
    found["smallest valid n"] = int(cal.min_n)
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text."""
    v = SETTINGS.check(values)
    by_epsilon = SWEEP_AXIS[v["dataset"]] == "epsilon"
    if not by_epsilon and v["n"] not in n_grid(v["dataset"]):
        raise ValueError(f"n = {v['n']:,} is not on the {v['dataset']} grid: choose one of "
                         f"{', '.join(f'{n:,}' for n in n_grid(v['dataset']))}.")
    methods = v["methods"]
    if by_epsilon:
        run = """
result = sweep(dataset=dataset, mechanisms=methods, epsilons=SWEEP_EPSILONS, delta=delta, R=R, task=task,
               repeats=repeats, seed=seed, inflate=inflate)
n = int(result.settings["n"])  # the data's fixed number of training records"""
        metric_chart = """
metric_chart = figures.sweep_metric_chart(
    result, chosen_epsilon=epsilon,
    title=f"{TASK_LABELS[task]} on {dataset}: mean ± SD over {repeats} random 80/20 splits")"""
        excess_chart = """
excess_chart = figures.sweep_excess_chart(result, chosen=None, chosen_epsilon=epsilon,
                                          title="E[J(w_priv)] − J(ŵ) on the training data, log–log")"""
    else:
        run = """
ns = sizes_within(dataset, NS)  # the page's n grid
result = n_sweep(dataset=dataset, mechanisms=methods, ns=ns, epsilon=epsilon, delta=delta, d=d, R=R, task=task,
                 repeats=repeats, seed=seed, inflate=inflate)"""
        metric_chart = """
metric_chart = figures.sweep_metric_chart(
    result, chosen=n, invalid_below=cal.min_n if "input_safe" in methods and cal.min_n > min(ns) else None,
    title=f"{TASK_LABELS[task]} on {dataset} (d = {d}): mean ± SD over {repeats} repeats")"""
        excess_chart = """
excess_chart = figures.sweep_excess_chart(result, chosen=n, chosen_epsilon=None,
                                          title="E[J(w_priv)] − J(ŵ) on the training data, log–log")"""
    return [
        markdown(f"""
# Private learning — from Epsilon Lab
Linear models trained privately on n people's records: **input perturbation** (Fukuchi, Tran, Sakuma 2017:
every contributor adds Gaussian noise to her own record once), **objective perturbation** (Obj-Gauss, KST12)
and **output perturbation** (CMS11), against the non-private model. Below: the test metric and the excess
risk over {"ε at the data's fixed n" if by_epsilon else "the n grid"}, the calibration at the chosen n, the two
privacy meters, the local multiplier m, the inside view and the calibration's explainer.
Smaller ε = more noise = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.private_learning import INFLATIONS, INSIDE_RECORDS, METER_NS, NS, SWEEP_EPSILONS, numbers
from privlib.erm.calibration import calibrate, privacy_meters
from privlib.erm.datasets import TASK_LABELS
from privlib.erm.sweep import inflation_tradeoff, inside_view, loss_for, n_sweep, sizes_within, sweep
from privlib.presentation.erm import figures"""),
        code(f"""
# The page's settings
epsilon = {v['epsilon']!r}
delta = {v['delta']!r}
dataset = {v['dataset']!r}
n = {v['n']!r}
task = {v['task']!r}
d = {v['d']!r}
R = {v['R']!r}
inflate = {v['inflate']!r}  # m, the local multiplier
repeats = {v['repeats']!r}
seed = {v['seed']!r}
methods = {methods!r}"""),
        markdown("## The sweep: every method, mean ± SD over the repeats"),
        code(run + """
d = int(result.settings["d"])
loss = loss_for(task, R)
safe, asymptotic = (calibrate(epsilon, delta, n, d, R=R, A=loss.A, B=loss.B, inflate=inflate, route=route)
                    for route in ("safe", "asymptotic"))
cal = safe.input  # input perturbation, safe calibration
print("safe calibration:", "valid" if cal.valid else f"not available: {cal.reason}")"""),
        code(metric_chart + "\nmetric_chart"),
        code(excess_chart + "\nexcess_chart"),
        markdown("## Two privacy meters: the model and one contributor"),
        code("""
meters = privacy_meters(epsilon, delta, METER_NS, d, R=R, A=loss.A, B=loss.B, inflate=inflate)
meters_chart = figures.meters_chart(meters, epsilon, chosen_n=n,
                                    title=f"Safe calibration at ε = {epsilon:g}, δ = {delta:g}, d = {d}, m = {inflate:g}")
meters_chart"""),
        markdown("## Balancing the two: the local multiplier m (needs a valid safe calibration)"),
        code("""
tradeoff_chart = None
if cal.valid:
    tradeoff = inflation_tradeoff(dataset=dataset, n=n, epsilon=epsilon, delta=delta, inflations=INFLATIONS, d=d,
                                  repeats=repeats, seed=seed, R=R, task=task)
    tradeoff_chart = figures.tradeoff_chart(
        tradeoff, chosen_m=inflate,
        title=f"Input (safe calibration) at n = {n:,}, ε = {epsilon:g}: one point per m, {repeats} repeats")
tradeoff_chart"""),
        markdown("## Inside view: what the database receives"),
        code("""
view = inside_view(n_records=INSIDE_RECORDS, dataset=dataset, epsilon=epsilon, delta=delta, n=n, d=d, seed=seed,
                   inflate=inflate, task=task, R=R)
view_chart = (figures.view_chart(view, title=f"{view.n_records} contributors, noise calibrated for the agreed "
                                             f"n = {n:,}") if view.valid else None)
view_chart"""),
        markdown("## Why it works: the noise on a is a ridge, the noise on b a random linear term"),
        code("""
explainer_chart = figures.calibration_explainer_chart(safe, asymptotic)
explainer_chart"""),
        markdown("""
## The numbers (the page's table)
The attacker's view (the membership game) runs on the page only on request; from the command line:
`python -m privlib erm-attack --epsilon EPSILON --n N --d D` (see its `--help`)."""),
        code("""
print_numbers(numbers(result, safe, n))
charts = [chart for chart in (metric_chart, excess_chart, meters_chart, tradeoff_chart, view_chart, explainer_chart)
          if chart is not None]
save_charts("private-learning-charts.html", charts, title="Private learning")"""),
    ]
