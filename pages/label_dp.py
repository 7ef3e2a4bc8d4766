"""Page "Label DP": randomised response on training labels and retraining with predicted hard labels
(Das et al., "Retraining with Predicted Hard Labels Provably Increases Model Accuracy"; the LP-2ST
baseline of Ghazi et al. 2021). The sweep covers a whole ε grid: moving ε only moves the markers
and picks the run the scatter chart shows."""
import math

import numpy as np
import streamlit as st

from epsilon_lab import take_home, ui
from privlib.analyses.label_dp import (
    D_CHOICES,
    DELTA_CHOICES,
    EPSILONS,
    LN_1_5,
    N_CHOICES,
    P_CHOICES,
    PROTECTS,
    SETTINGS,
    THEORY_D_CHOICES,
    THEORY_N_CHOICES,
    numbers,
    run_title,
    sweep_title,
)
from privlib.core.randomised_response import RandomisedResponse
from privlib.core.risk import largest_epsilon_under
from privlib.core.validation import duration
from privlib.label_dp import attacks, theory
from privlib.label_dp.datasets import (
    COMPLIANT_LAW,
    DATASET_LABELS,
    DATASET_PARAMETERS,
    MAX_DIGIT_CLASSES,
    SYNTHETIC_DATASETS,
    TWO_POINT_LAW,
    default_model,
    default_repeats,
    load_dataset,
)
from privlib.label_dp.mechanisms import MECHANISMS
from privlib.label_dp.models import LOGISTIC_C, MODELS
from privlib.label_dp.retraining import MODE_LABELS, MODES, RETRAINING_MODES
from privlib.label_dp.sweep import (
    estimate_seconds,
    fit_seconds,
    gain_grid,
    retraining_sweep,
    run_seconds,
    sweep_run,
)
from privlib.presentation.label_dp import figures
from privlib.presentation.risk import attack_vs_epsilon_chart, frontier_chart, tradeoff_chart

MODEL_LABELS = {name: cls.label for name, cls in MODELS.items()}
RANDOMISER_LABELS = {name: cls.label for name, cls in MECHANISMS.items()}
SEPARATIONS = (0.1, 0.2, 0.3, 0.5, 0.75, 1.0)  # Δ of the heat map
HEATMAP_REPEATS = 10
THEORY_N = tuple(float(v) for v in np.geomspace(1e2, 1e8, 19))
SIMULATED_N = (1_000, 10_000, 100_000)
SIMULATED_REPS = 5
#: Normal draws (2·n·d per repetition: the data and X_U) that the theory tab simulates by itself; a larger n (n = 10⁵
#: at d = 50: 5·10⁷ draws, seconds) is simulated on request, so a change of p, d or the law answers at once.
SIMULATION_AUTOMATIC_DRAWS = 5_000_000
LAWS = {"two_point": TWO_POINT_LAW, "compliant": COMPLIANT_LAW}
LAW_LABELS = {"two_point": "two-point law (μ = ½, γ = 0.3; breaks SG(σ²): illustrative)",
              "compliant": "compliant law (μ = ½, γ = 0.05; meets every §4 assumption)"}
#: Presets: the paper's Fig. 1 (p = 0.4, i.e. ε = ln 1.5) and two 2-D cases where retraining helps / hurts.
PRESETS = {
    "Fig. 1, Δ = 0.5": dict(ldp_dataset="fig1", ldp_delta=0.5, ldp_n=300, ldp_d=50),
    "Fig. 1, Δ = 0.3": dict(ldp_dataset="fig1", ldp_delta=0.3, ldp_n=300, ldp_d=50),
    "d = 2, Δ = 0.3 (retraining helps)": dict(ldp_dataset="fig1", ldp_delta=0.3, ldp_n=200, ldp_d=2),
    "d = 2, Δ = 0.2 (retraining hurts)": dict(ldp_dataset="fig1", ldp_delta=0.2, ldp_n=200, ldp_d=2),
}
PRESET_COMMON = dict(ldp_epsilon=LN_1_5, ldp_model=default_model("fig1"), ldp_randomiser="rr", ldp_variant="full",
                     ldp_fresh=False, ldp_repeats=default_repeats("fig1"))
DEFAULTS = dict(ldp_dataset="fig1", ldp_delta=0.5, ldp_n=300, ldp_d=50, ldp_epsilon=LN_1_5,
                ldp_model=default_model("fig1"), ldp_randomiser="rr", ldp_variant="consensus", ldp_fresh=False,
                ldp_repeats=default_repeats("fig1"), ldp_seed=1000, ldp_classes=MAX_DIGIT_CLASSES)
#: The widget key of each setting (`privlib.analyses.label_dp.SETTINGS`).
KEYS = {"epsilon": "ldp_epsilon", "dataset": "ldp_dataset", "delta_sep": "ldp_delta", "n": "ldp_n", "d": "ldp_d",
        "model": "ldp_model", "randomiser": "ldp_randomiser", "mode": "ldp_variant", "fresh_unlabelled": "ldp_fresh",
        "repeats": "ldp_repeats", "seed": "ldp_seed", "classes": "ldp_classes", "heat_map": "ldp_heatmap",
        "attack_target": "ldp_attack_target", "law": "ldp_law", "p": "ldp_p", "theory_n": "ldp_theory_n",
        "theory_d": "ldp_theory_d"}
#: The settings of the sections drawn further down (heat map, attacker's view, Theory tab): their widgets take
#: these values from their state, so the link can carry them before the widgets are drawn.
LATER = ("heat_map", "attack_target", "law", "p", "theory_n", "theory_d")


def epsilon_label(value: float) -> str:
    return "0.405 (ln 1.5)" if value == LN_1_5 else f"{value:g}"


def data_key(name: str, widgets: dict) -> tuple:
    """The loader arguments the chosen dataset takes (`DATASET_PARAMETERS`) from the widgets' values,
    hashable for caching (the sweep's cache key)."""
    return name, tuple((key, widgets[key]) for key in DATASET_PARAMETERS[name])


def dataset_of(key: tuple):
    name, params = key
    return load_dataset(name, **dict(params))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_sweep(key, model, randomiser, fresh, repeats, seed):
    """Every mode over the whole ε grid (`sweep`), behind a progress bar."""
    data = dataset_of(key)
    return ui.with_progress_bar(
        f"Training on randomised labels: {len(EPSILONS)} values of ε × {repeats} runs, every retraining variant:",
        lambda progress: retraining_sweep(data, randomiser, EPSILONS, repeats=repeats, seed=seed, progress=progress, model=model,
                               fresh_unlabelled=fresh))


@st.cache_data(show_spinner="Training the run at this ε …", max_entries=64)
def cached_run(key, model, randomiser, fresh, seed, epsilon, variant):
    """The first run of the sweep at ε (same data, same labels) as a scatter chart and its numbers."""
    data = dataset_of(key)
    run = sweep_run(data, randomiser, epsilon, seed=seed, model=model, mode=variant, modes=("baseline", variant),
                    fresh_unlabelled=fresh)
    title = run_title(epsilon, seed, data.n)
    shown = {"accuracy": dict(run.accuracy), "flipped": int(run.flipped.sum()), "n": int(run.flipped.size),
             "given": run.given_label_accuracy, "predicted": run.predicted_label_accuracy,
             "consensus": run.consensus_label_accuracy, "fraction": run.consensus_fraction,
             "fallbacks": dict(run.fallbacks), "evaluation": run.evaluation,
             "numbers": numbers(run, RandomisedResponse(data.classes, epsilon))}  # the take-home table's
    return figures.run_scatter(run, data, title=title), shown  # (the figure holds BLAS single-threaded)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_gain_grid(n, d, model, randomiser, variant, repeats, seed):
    """Mean gain of ``variant`` over the baseline on the Fig. 1 mixture for each separation Δ and ε."""
    def compute(progress):
        grid = gain_grid(SEPARATIONS, EPSILONS, model, variant, repeats, seed, n=n, d=d, randomiser=randomiser,
                         progress=progress)
        return grid.mean_gain

    return ui.with_progress_bar("Heat map: retraining gain over ε and Δ:", compute)


@st.cache_data(show_spinner="Timing a fit on this machine …", max_entries=64)
def cached_fit_seconds(key, model):
    """The seconds of one fit here (`fit_seconds`, one timing), once per dataset and model."""
    return fit_seconds(dataset_of(key), model, runs=1)


@st.cache_data(show_spinner="Timing a run on this machine …", max_entries=64)
def cached_run_seconds(key, model, randomiser, modes):
    """The seconds of one whole run here (`run_seconds`), once per dataset, model, randomiser and modes."""
    return run_seconds(dataset_of(key), randomiser, model, modes, runs=7)  # a few ms each when it matters: steadier


def work_estimate(key, model, randomiser, repeats, modes) -> float:
    """`estimate_seconds` of a sweep over the ε grid: from the fits alone when they already take longer than
    `ui.AUTOMATIC_SECONDS` (a run is not timed then: with a slow model that would cost seconds itself), else from a
    timed whole run, which also counts the work besides the fits (most of a centroid run's)."""
    data, per_fit = dataset_of(key), cached_fit_seconds(key, model)
    fits = estimate_seconds(data, randomiser, EPSILONS, repeats, model=model, modes=modes, per_fit=per_fit)
    if fits > ui.AUTOMATIC_SECONDS:
        return fits
    per_run = cached_run_seconds(key, model, randomiser, modes)
    return max(fits, estimate_seconds(data, randomiser, EPSILONS, repeats, model=model, modes=modes, per_fit=per_fit,
                                      per_run=per_run))


#: The session's set of requested work (`ui.request`): asked-for work stays shown (a later ε change reruns
#: nothing, and coming back to these settings shows it again).
REQUESTED = "ldp_requested"


def request(work: tuple) -> None:
    """A Run button's callback: these settings' work was asked for."""
    ui.request(REQUESTED, work)


def wanted(work: tuple, seconds: float) -> bool:
    """Compute ``work`` now: cheap enough to start by itself, or asked for with its button."""
    return ui.runs_now(seconds, work, REQUESTED)


@st.cache_data(show_spinner="Evaluating eqs. 59, 65 and 141 …", max_entries=16)
def cached_population_bounds(law_name, d, p):
    return theory.population_bounds(THEORY_N, d, p, LAWS[law_name])


@st.cache_data(show_spinner="Simulating θ̂₀ and θ̂₁ on a fresh X_U …", max_entries=16)
def cached_simulation(law_name, d, p, ns=SIMULATED_N):
    """Each n's draws start from seed 0 (`simulate_centroid`): the same numbers whichever sizes are simulated."""
    runs = [theory.simulate_centroid(LAWS[law_name], n, d, p, reps=SIMULATED_REPS, seed=0) for n in ns]
    return {label: (ns, [float(np.mean(r[key])) for r in runs], [float(np.std(r[key], ddof=1)) for r in runs])
            for label, key in (("acc(θ̂₀)", "acc0"), ("acc(θ̂₁), fresh X_U", "acc1"))}


def apply_preset(name: str) -> None:
    st.session_state.update({**PRESET_COMMON, **PRESETS[name]})


def dataset_changed() -> None:
    """The library's defaults for the chosen dataset: its model and number of runs."""
    st.session_state["ldp_model"] = default_model(st.session_state["ldp_dataset"])
    st.session_state["ldp_repeats"] = default_repeats(st.session_state["ldp_dataset"])


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets
for k, v in DEFAULTS.items():  # None: a dataset parameter the linked dataset does not take (its default is shown)
    if st.session_state.get(k) is None:
        st.session_state[k] = v
for name in LATER:
    st.session_state.setdefault(KEYS[name], SETTINGS.by_name[name].default)

st.title("Label DP: randomised response and retraining")
st.markdown(
    "Under **label differential privacy** only the training *labels* are secret; the features are public. "
    "Each label is randomised once by **randomised response** — kept with probability e^ε/(e^ε + C − 1), "
    "otherwise replaced by one of the other C − 1 classes at random — and a model is trained on these noisy "
    "labels (the *baseline*). Das et al. show that **retraining on the model's own predicted labels** can make it "
    "more accurate, at no privacy cost: the predictions come from the noisy labels only. *Consensus* retraining "
    "keeps just the points whose predicted label agrees with the given one."
)

st.caption("Presets (the paper's Fig. 1: p = 0.4 flips, i.e. ε = ln 1.5, centroid estimator, full retraining):")
preset_columns = st.columns(2) * ((len(PRESETS) + 1) // 2)  # two per row: four in a row were cut at 1024 px
for column, name in zip(preset_columns, PRESETS):
    column.button(name, key=f"ldp_preset_{name}", on_click=apply_preset, args=(name,), width="stretch")

top = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
with top[0]:
    epsilon = ui.epsilon_slider(
        key="ldp_epsilon", default=LN_1_5, options=EPSILONS, format_func=epsilon_label,
        help="The privacy parameter of ε-label DP. Smaller ε = labels flipped more often = more privacy; larger ε = "
             "more accurate labels, less privacy. Moving ε reruns nothing: every curve covers this whole grid.")

with st.expander("Data, model and retraining", expanded=True):
    c = st.columns(4)
    dataset = c[0].selectbox("Dataset", list(DATASET_LABELS), format_func=DATASET_LABELS.get, key="ldp_dataset",
                             on_change=dataset_changed,
                             help="Fig. 1: x⁽¹⁾ uniform on ±[Δ, 5Δ] (the label is its sign), 49 noise coordinates. "
                                  "Two-point: the §4 model with |x⁽¹⁾| = 0.3 or 4.25. Digits and MNIST: real images of "
                                  "the first C digits (C below, 2 to 10).")
    takes = DATASET_PARAMETERS[dataset]
    synthetic = dataset in SYNTHETIC_DATASETS
    delta = c[1].select_slider("Δ (class separation)", options=list(DELTA_CHOICES), key="ldp_delta",
                               disabled="delta_sep" not in takes,
                               help="Fig. 1 only: the gap between the classes is 2Δ.")
    n = c[2].select_slider("n (training points)", options=list(N_CHOICES), key="ldp_n", disabled="n" not in takes)
    d = c[3].select_slider("d (dimension)", options=list(D_CHOICES), key="ldp_d", disabled="d" not in takes)
    c = st.columns(4)
    model = c[0].selectbox("Model", list(MODEL_LABELS), format_func=MODEL_LABELS.get, key="ldp_model",
                           help=f"Centroid: the paper's eq. 2 estimator. Logistic regression: regularisation C = "
                                f"{LOGISTIC_C:g}, fixed once as a public constant (never tuned on a private run). "
                                "k-NN predicts each training point from its 10 neighbours, leaving the point out.")
    randomiser = c[1].radio("Labels", list(RANDOMISER_LABELS), format_func=RANDOMISER_LABELS.get,
                            key="ldp_randomiser",
                            help="RR: plain randomised response. RRWithPrior: RR restricted to the classes a prior "
                                 "favours (here a uniform prior: plain RR). LP-2ST: RR on half the data, then "
                                 "RRWithPrior on the other half with a prior from a model of the first half. All are "
                                 "ε-label DP.")
    variant = c[2].selectbox("Retraining shown in the scatter", list(MODE_LABELS), format_func=MODE_LABELS.get,
                             key="ldp_variant",
                             help="Full: retrain on every predicted label. Consensus: only where the prediction "
                                  "agrees with the given label. Confidence: the half with the largest margin. The "
                                  "accuracy chart always shows all of them.")
    fresh = c[3].radio("Retrain on", [False, True], key="ldp_fresh", disabled=not synthetic,
                       format_func=lambda v: "a fresh unlabelled set X_U (§4)" if v else "the same training set",
                       help="The theory (§4) retrains on a fresh unlabelled set; Fig. 1 uses the same set. "
                            "Consensus needs a given label per point, so it is undefined on X_U.")
    c = st.columns(4)
    repeats = int(c[0].slider("Runs", min_value=1, max_value=50, key="ldp_repeats",
                              help="Every run redraws the labels (and the synthetic data); curves show mean ± SD."))
    seed = ui.seed_input("ldp_seed", default=1000, container=c[1],
                         help="Run r draws its labels from the stream (seed, r): the same seed gives the same labels "
                              "and results.")
    if "classes" not in takes:
        c[2].markdown("**Classes C:** 2 (fixed: the synthetic datasets are binary)")
        chosen_classes = 2
    else:
        chosen_classes = int(c[2].number_input(
            "Classes C", min_value=2, max_value=MAX_DIGIT_CLASSES, step=1, key="ldp_classes",
            help="Keep only the images of the digits 0..C − 1 (labels 0..C − 1), chosen before the train/test split "
                 "and the feature preprocessing; randomised response then works over these C classes."))

fresh = bool(fresh) and synthetic
values = {"epsilon": float(epsilon), "dataset": dataset, "model": model, "randomiser": randomiser, "mode": variant,
          "fresh_unlabelled": fresh, "repeats": repeats, "seed": int(seed),
          **{name: (value if name in takes else None) for name, value in
             (("delta_sep", float(delta)), ("n", int(n)), ("d", int(d)), ("classes", chosen_classes))},
          **{name: st.session_state[KEYS[name]] for name in LATER}}  # what those widgets will show
take_home.share(SETTINGS, values)
key = data_key(dataset, {"delta_sep": float(delta), "n": int(n), "d": int(d), "classes": chosen_classes})
try:
    data = dataset_of(key)
    scatter, run = cached_run(key, model, randomiser, fresh, seed, epsilon, variant)  # the cheap part, always
    sweep_work = ("sweep", key, model, randomiser, fresh, repeats, seed)
    sweep_seconds = work_estimate(key, model, randomiser, repeats, MODES)
    result = cached_sweep(key, model, randomiser, fresh, repeats, seed) if wanted(sweep_work, sweep_seconds) else None
except (ValueError, ImportError) as exc:
    st.error(str(exc))
    st.stop()

classes = data.classes
rr = RandomisedResponse(classes, epsilon)
top[1].metric("P(keep)", f"{rr.keep_probability:.3f}", help=f"e^ε/(e^ε + C − 1) with C = {classes}: the probability "
                                                              "a label is kept. Each other class gets "
                                                              f"{rr.other_probability:.3f}.")
top[2].metric("P(flip)", f"{rr.flip_probability:.3f}",
              help=f"(C − 1)/(e^ε + C − 1) with C = {classes}: the probability a label is replaced by another class "
                   "(1 − P(keep)); with C = 2 it is the paper's binary flip probability p = 1/(1 + e^ε).")
top[3].metric("P(ŷ = y)", f"{run['given']:.3f}",
              help=f"The given-label accuracy: the fraction of given labels that are right in the run below "
                   f"({run['flipped']} of {run['n']} flipped); its expectation is P(keep). A diagnostic computed "
                   "with the clean labels.")

st.info(
    f"**Privacy.** Each run is ε-label DP (ε = {epsilon_label(epsilon)}): every label is randomised once per run; "
    "retraining is post-processing; features are not protected. Flip markers, label-accuracy bars and the "
    "non-private line use clean labels: they are teaching diagnostics, not private, and never feed training or the "
    "choice of variant. "
    + (f"Averages over {repeats} runs on one dataset combine {repeats} runs ({repeats}ε = {repeats * epsilon:.3g} "
       "if all were released); the mean estimates what one ε-run does." if repeats > 1 else
       "One run is shown: releasing its model spends ε once."),
    icon="🔒")

experiment, theory_tab = st.tabs(["Experiment", "Theory"])
charts = []  # the experiment's figures, in order: the report draws them again


def chart(figure, key: str) -> None:
    """Draw ``figure`` and keep it for the take-home report."""
    charts.append(figure)
    st.plotly_chart(figure, key=key)


with experiment:
    st.subheader("Test accuracy against ε")
    if result is None:
        st.info(f"The sweep over every ε ({len(EPSILONS)} values × {repeats} runs × every retraining variant) takes "
                f"about {duration(sweep_seconds)} here with {MODEL_LABELS[model]}, so it runs only when you ask: a "
                "control change then answers at once. The run at the chosen ε below is computed already.",
                icon=":material/schedule:")
        st.button(f"Run the sweep (about {duration(sweep_seconds)})", key="ldp_run_sweep", type="primary",
                  on_click=request, args=(sweep_work,))
    else:
        chart(figures.sweep_accuracy_chart(
            result, chosen_epsilon=epsilon,
            title=sweep_title(model, randomiser, data.name, repeats)),
            key="ldp_accuracy")
        at = EPSILONS.index(epsilon) if epsilon in EPSILONS else None
        gains = {} if at is None else {m: float(result.mean(m)[at] - result.mean("baseline")[at])
                                       for m in RETRAINING_MODES if result.defined(m)}
        shown = ", ".join(f"{m} {g:+.3f}" for m, g in gains.items() if np.isfinite(g))
        st.caption(
            f"Accuracy is {result.evaluation}. Dotted red: e^ε/(e^ε + C − 1), the accuracy of the given labels "
            "themselves — a model trained on them can beat it because the noise averages out. Dashed black: the same "
            "model on clean labels (a diagnostic)."
            + (f" At ε = {epsilon_label(epsilon)} retraining changes the mean accuracy by: {shown}." if shown else ""))
    if model == "logistic":
        st.caption(f"Logistic regression uses C = {LOGISTIC_C:g}, fixed once: the ranking of the variants depends on "
                   "it (on digits with C = 0.01, full retraining catches up with consensus), so do not read "
                   "\"consensus beats full\" as a general law."
                   + (" On digits, compare confidence with consensus retraining across ε: they need not rank as in "
                      "the paper's App. I." if dataset == "digits" else ""))
    if model == "knn" and not synthetic:
        st.caption("k-NN is the teaching contrast: consensus retraining helps a lot while the baseline is poor "
                   "(small ε) but stops helping once it is good (large ε): compare the baseline and consensus curves "
                   "across ε above.")

    st.subheader(f"The data and its labels at ε = {epsilon_label(epsilon)}")
    chart(scatter, key="ldp_scatter")
    acc = run["accuracy"]
    after = f"; after {MODE_LABELS[variant]} {acc[variant]:.3f}" if variant != "baseline" and \
        acc.get(variant) is not None and np.isfinite(acc[variant]) else ""
    st.caption(
        f"Left: the labels the model is given; × marks the {run['flipped']} flipped ones (a diagnostic). Right: the "
        f"labels the baseline predicts on its own training points; filled points agree with their given label — the "
        f"consensus set ({run['fraction']:.0%} of the points). This run: baseline accuracy "
        f"{acc['baseline']:.3f}{after}. "
        + ("Lines: decision boundaries in this plane (the other coordinates at 0)." if synthetic else
           "Shaded: the predicted class on the plane of the first two principal components through the mean of the "
           "features (left before, right after retraining); the points themselves lie off that plane."))
    if run["fallbacks"]:
        st.caption("Kept the baseline model: " + "; ".join(f"{m}: {why}" for m, why in run["fallbacks"].items()))

    st.subheader("How good are the labels?")
    if result is None:
        st.caption(f"In the run above {run['given']:.0%} of the given labels are right and {run['predicted']:.0%} of "
                   "the predicted ones; the label accuracy across ε comes with the sweep (its button above).")
    else:
        left, right = st.columns(2)
        with left:
            chart(figures.sweep_label_chart(result, chosen_epsilon=epsilon, narrow=True,
                                            title="Label accuracy against ε"), key="ldp_labels")
        with right:
            chart(figures.sweep_label_bars(result, epsilon), key="ldp_label_bars")
        st.caption("As in the paper's Tables 3 and 4: the predicted labels are right far more often than the given "
                   "ones, and on the consensus set more often still. These fractions use the clean labels: they "
                   "explain, they are not released and never choose anything.")
    box = st.columns(2)
    with box[0]:
        consensus_text = (f" In the run above {run['given']:.0%} of the given labels are right, but "
                          f"{run['consensus']:.0%} of those in the consensus set."
                          if run["consensus"] is not None and np.isfinite(run["consensus"]) else "")
        st.success("**Why consensus works.** A point whose predicted label agrees with its given label was labelled "
                   "the same way twice: once by randomised response and once by a model that pooled all the other "
                   "points. Agreeing labels are far more often right, so retraining on them removes much of the noise "
                   "while keeping most of the signal." + consensus_text, icon=":material/handshake:")
    with box[1]:
        st.warning("**When retraining fails.** Retraining copies the baseline's own mistakes into the new labels: "
                   "a bad labeller entrenches its mistakes. That happens when the classes are barely separated (small "
                   "Δ), when most points sit near the decision boundary, or when the baseline is already good — then "
                   "there is little left to fix (try the preset \"d = 2, Δ = 0.2\", or k-NN on digits at ε = 3).",
                   icon="⚠️")

    st.subheader("Retraining gain over ε and class separation")
    heat_variant = variant if variant in RETRAINING_MODES else "consensus"
    show_heat = st.toggle("Compute the heat map (the Fig. 1 mixture at every Δ)", key="ldp_heatmap",
                          help=f"{len(SEPARATIONS)} separations × {len(EPSILONS)} values of ε × {HEATMAP_REPEATS} runs "
                               f"with this model: it starts by itself when it takes at most {ui.AUTOMATIC_SECONDS:g} s "
                               "here (the centroid), otherwise when you press its button.")
    heat_n, heat_d = (n, d) if dataset == "fig1" else (300, 50)
    heat_work = ("heat", int(heat_n), int(heat_d), model, randomiser, heat_variant, seed)
    heat_key = data_key("fig1", {"delta_sep": float(delta), "n": int(heat_n), "d": int(heat_d)})
    heat_seconds = len(SEPARATIONS) * work_estimate(heat_key, model, randomiser, HEATMAP_REPEATS,
                                                    ("baseline", heat_variant)) if show_heat else 0.0
    if show_heat and not wanted(heat_work, heat_seconds):
        st.info(f"The heat map retrains {len(SEPARATIONS)} × {len(EPSILONS)} × {HEATMAP_REPEATS} runs with "
                f"{MODEL_LABELS[model]}, about {duration(heat_seconds)} here, so it runs only when you ask.",
                icon=":material/schedule:")
        st.button(f"Compute the heat map (about {duration(heat_seconds)})", key="ldp_run_heat",
                  on_click=request, args=(heat_work,))
    elif show_heat:
        gain = cached_gain_grid(int(heat_n), int(heat_d), model, randomiser, heat_variant, HEATMAP_REPEATS, seed)
        chart(figures.gain_heatmap(
            EPSILONS, SEPARATIONS, gain, mode=heat_variant, chosen_epsilon=epsilon,
            chosen_separation=delta if dataset == "fig1" else None,
            title=f"{MODE_LABELS[heat_variant]} minus the baseline, Fig. 1 mixture (n = {heat_n}, d = {heat_d}), "
                  f"{MODEL_LABELS[model]}, mean over {HEATMAP_REPEATS} runs"), key="ldp_heat")
        st.caption("Blue: retraining helps; red: it hurts. It helps most at moderate noise and clear separation; with "
                   "little separation or little noise the gain vanishes or turns negative (our addition, not in the "
                   "paper).")

    with st.expander("Randomised response for C classes"):
        C = int(st.number_input("Classes C (this calculator only)", min_value=2, max_value=1000, value=int(classes),
                                step=1, key="ldp_rr_classes",
                                help="Starts at the experiment's C; changing it here recomputes only these numbers."))
        rr_c = RandomisedResponse(C, epsilon)
        st.markdown(
            f"At ε = {epsilon_label(epsilon)} with C = {C}: keep the true label with e^ε/(e^ε + C − 1) = "
            f"**{rr_c.keep_probability:.4f}**, each other class {rr_c.other_probability:.4f}. Using the *binary* "
            f"formula instead (keep {1 - RandomisedResponse(2, epsilon).flip_probability:.4f}, the rest spread over "
            f"the C − 1 others) would spend ε + ln(C − 1) = **{epsilon + math.log(C - 1):.4g}**, not ε.")

    # ---- Attacker's view (issue 23): what an attacker learns about one training label ------------------------------
    @st.cache_data(show_spinner="Computing the noisy-label attack at every ε …", max_entries=16)
    def cached_noisy_label_attacks(key, model, randomiser, seed):
        """Attack (a) at every ε of the grid (exact; LP-2ST fits its model once per ε)."""
        return attacks.noisy_label_attacks(dataset_of(key), randomiser, EPSILONS, seed=seed, model=model)

    @st.cache_data(show_spinner=False, max_entries=16)
    def cached_model_attack(key, model, randomiser, fresh, repeats, seed, modes):
        """Attacks (b) and (c) at every ε of the grid, behind a progress bar."""
        return ui.with_progress_bar(
            f"Attacking the models: {len(EPSILONS)} values of ε × {repeats} runs:",
            lambda progress: attacks.model_attack(dataset_of(key), randomiser, EPSILONS, repeats=repeats, seed=seed,
                                                  model=model, modes=modes, fresh_unlabelled=fresh, progress=progress,
                                                  allow_long=True))

    st.subheader("Attacker's view")
    st.caption("The secret is one training example's true label; the attacker knows everything else, the features "
               "included, and names one class. Smaller ε = more privacy: every bound below falls as ε falls.")
    at_epsilon = EPSILONS.index(epsilon)
    noisy_work = ("noisy-label attack", key, model, randomiser, seed)
    noisy_seconds = attacks.noisy_label_attacks_seconds(data, randomiser, EPSILONS, model=model,
                                                        per_fit=cached_fit_seconds(key, model))
    noisy = cached_noisy_label_attacks(key, model, randomiser, seed) if wanted(noisy_work, noisy_seconds) else None
    attacked_mode = variant if variant != "baseline" else None
    attack_modes = ("baseline",) + ((attacked_mode,) if attacked_mode else ())
    attack_work = ("model attack", key, model, randomiser, fresh, repeats, seed, attack_modes)
    # the sweep's estimate (already timed): the attack runs the same runs with fewer modes, so it is an upper bound
    measured = (cached_model_attack(key, model, randomiser, fresh, repeats, seed, attack_modes)
                if wanted(attack_work, sweep_seconds) else None)
    if measured is not None and attacked_mode and not measured.defined(attacked_mode):
        attacked_mode = None  # consensus on a fresh X_U: no retrained model to attack
    shown_modes = ("baseline",) + ((attacked_mode,) if attacked_mode else ())
    if noisy is None:
        st.info(f"With LP-2ST the noisy-label attack fits its model once per ε, about {duration(noisy_seconds)} here, "
                "so it runs only when you ask.", icon=":material/schedule:")
        st.button(f"Compute the noisy-label attack (about {duration(noisy_seconds)})", key="ldp_run_noisy_attack",
                  on_click=request, args=(noisy_work,))
    else:
        st.markdown("**From the noisy label.** " + attacks.noisy_label_sentence(noisy[at_epsilon]))
    if measured is None:
        st.info(f"The attack on the models retrains {len(EPSILONS)} × {repeats} runs with {MODEL_LABELS[model]}, about "
                f"{duration(sweep_seconds)} here, so it runs only when you ask.", icon=":material/schedule:")
        st.button(f"Attack the models (about {duration(sweep_seconds)})", key="ldp_run_model_attack",
                  on_click=request, args=(attack_work,))
    else:
        for mode in shown_modes:
            st.markdown(f"**From {attacks.MODEL_ATTACK_LABELS[mode]}.** "
                        + attacks.model_attack_sentence(measured, epsilon, mode))
    if noisy is not None:  # one chart per row: at 1024 px a half-width chart cuts its axis titles
        roc = {} if measured is None else {
            f"{MODE_LABELS[m]} (s_ref, success)": measured.roc(epsilon, m)
            for m in shown_modes}
        chart(tradeoff_chart(
            noisy[at_epsilon].guarantee_curve, attacks=roc, exact=noisy[at_epsilon].curve,
            exact_name="exact curve, from the noisy label",
            title=f"Two labels of one example, ε = {epsilon:.3g}"), key="ldp_attack_roc")
        st.caption("Black: no test of an example's label can get above this line (ε-label DP). "
                   + ("Dashed: the exact curve of telling two labels apart from the noisy label "
                      "(binary RR meets the line; C-ary RR stays under it). " if noisy[at_epsilon].curve else "")
                   + ("Points: each model's attack as a test of “this example's own label went in” (its "
                      "success) against “its label was independent of the truth” (s_ref); the guarantee "
                      "keeps them under the line." if measured is not None else ""))
        chart(attack_vs_epsilon_chart(
            EPSILONS, {"from the noisy label (exact)": ([a.success for a in noisy],)},
            bound=[a.bound for a in noisy], baseline=noisy[0].prior_baseline, chosen_epsilon=epsilon,
            y_title="chance of naming the true label", bound_name="the guarantee's bound (class prior)",
            baseline_name="naming the most common class",
            title="The noisy-label attacker against ε"), key="ldp_attack_noisy")
        st.caption("The exact success of the best guess from the randomised label, under the guarantee's "
                   "bound for this class prior; with two classes RR meets the bound exactly. Grey: what guessing "
                   "the most common class gets without the label.")
    if measured is not None:
        success_mode = attacked_mode or "baseline"
        series = {f"{MODE_LABELS[m]}": (measured.success(m), measured.standard_error(m))
                  for m in shown_modes}
        series[f"s_ref ({MODE_LABELS[success_mode]})"] = (measured.reference(success_mode),
                                                          measured.reference_standard_error(success_mode))
        chart(attack_vs_epsilon_chart(
            EPSILONS, series, bound=measured.bound(success_mode), chosen_epsilon=epsilon,
            y_title="chance of naming a training label", bound_name=f"the bound ({MODE_LABELS[success_mode]})",
            title=f"The models' attackers against ε ({repeats} runs, ± 2 SE)"), key="ldp_attack_models")
        st.caption("Each model's success on training examples beside s_ref, its success on examples whose own "
                   "label did not go in: s_ref is what the features and the other labels give, the difference is "
                   "what the example's own label adds, and the guarantee limits it. The black line is "
                   "min{e^ε·s_ref, 1 − e^(−ε)(1 − s_ref)}, from s_ref's upper confidence limit so that it errs "
                   "towards the attacker.")
        chart(frontier_chart(
            {MODE_LABELS[m]: (measured.mean_accuracy(m), measured.success(m), EPSILONS)
             for m in shown_modes},
            x_title=f"test accuracy ({result.evaluation if result is not None else run['evaluation']})",
            y_title="attack success on training labels", title="Attack success against utility, through ε"),
            key="ldp_attack_frontier")
        st.caption("Each point is one ε of the grid: the attacker's success on training labels rises with the "
                   "model's test accuracy — a model that predicts labels well names training labels well, "
                   "whatever ε; the guarantee only limits what the example's own label adds (the chart above).")
    target = st.number_input("Attack success you accept (a chance of naming a training label)", min_value=0.0,
                             max_value=1.0, step=0.05, key="ldp_attack_target",
                             help="The largest ε of the grid that keeps the attacker under it, from the guarantee's "
                                  "bound and, separately, from the measured attack with its ± 2 SE.")
    answers = []
    if noisy is not None:
        answers.append(attacks.target_sentence(
            target, largest_epsilon_under(target, EPSILONS, [a.bound for a in noisy]),
            "the attacker who sees the noisy label", "by the guarantee's bound with this class prior"))
    if measured is not None:
        mode = attacked_mode or "baseline"
        name = f"the attacker who sees {attacks.MODEL_ATTACK_LABELS[mode]}"
        answers.append(attacks.target_sentence(
            target, largest_epsilon_under(target, EPSILONS, measured.bound(mode)), name,
            "by the guarantee's bound from s_ref's upper limit"))
        answers.append(attacks.target_sentence(
            target, largest_epsilon_under(target, EPSILONS, measured.success(mode), measured.standard_error(mode)),
            name, "measured, + 2 SE"))
    st.markdown("\n".join(f"- {answer}" for answer in answers) if answers else
                "The answers come with the attacks (their buttons above).")
    # ---- end of the attacker's view --------------------------------------------------------------------------------

    if result is not None:
        st.download_button("Sweep results (JSON)", result.result.to_json(),
                           file_name="label-dp-sweep.json", mime="application/json", key="ldp_download")
    st.caption(f"Data: {data.description}")

with theory_tab:
    st.markdown(
        "The theory (§4) studies the **centroid estimator** θ̂₀ = (1/n) Σ ŷ_j x_j on binary labels flipped with "
        "probability p, and θ̂₁ retrained on the predicted labels of a **fresh** unlabelled set. Its bounds with "
        "explicit constants are drawn below; they are proven only for laws of |x⁽¹⁾| meeting every §4 assumption "
        "(μ ≤ ½, sub-Gaussian SG(σ²)). The Fig. 1 law breaks them (μ = 0.933), so no bound is drawn for it.")
    c = st.columns(4)
    law_name = c[0].radio("Law of |x⁽¹⁾|", list(LAWS), format_func=LAW_LABELS.get, key="ldp_law")
    p = float(c[1].select_slider("p (flip probability)", options=list(P_CHOICES),
                                 key="ldp_p", help="Binary randomised response flips with p = 1/(1 + e^ε): "
                                                   "p = 0.4 is ε = ln 1.5 (Fig. 1)."))
    theory_n = int(c[2].select_slider("n", options=list(THEORY_N_CHOICES), key="ldp_theory_n",
                                      format_func=lambda v: f"{v:,}"))
    theory_d = int(c[3].select_slider("d", options=list(THEORY_D_CHOICES), key="ldp_theory_d"))
    law = LAWS[law_name]
    st.caption(f"p = {p:g} is ε = ln((1 − p)/p) = {RandomisedResponse.epsilon_from_keep(1 - p, 2):.4g} of binary "
               "randomised response.")
    if theory.law_flag(law):
        st.warning(f"The two-point law breaks the sub-Gaussian assumption (SG(cσ²) only for c ≥ 2.392): these curves "
                   f"are the paper's formulas evaluated at μ = ½, γ = 0.3 — {theory.FLAG_ILLUSTRATIVE}.", icon="⚠️")
    bounds = theory.per_point_bounds(theory_n, theory_d, law.mu, law.gamma, p, np.geomspace(1e-4, 1.0, 401))
    population = cached_population_bounds(law_name, theory_d, p)
    first = population["thm4_from_n"]
    eq141_first = population["eq141_from_n"]
    if theory.thm4_vacuous_for_every_n(theory_d, law.mu):
        st.warning(f"Thm 4 is vacuous for every n at d = {theory_d}: 16·exp(−9(d−1)/40)/μ ≥ 1 (every d ≤ 16 at "
                   "μ = ½), so α₁ and eq. 141 are drawn nowhere.", icon=":material/block:")
    else:
        st.warning(f"Vacuous below n ≈ {first:,.3g}: Thm 4 says nothing anywhere before that n (at |cos β| = 1), and "
                   f"eq. 141 is valid only from n ≈ {eq141_first:,.3g}. The bounds are loose or vacuous at the scale "
                   "of "
                   "this page's experiments.", icon=":material/straighten:")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(figures.per_point_chart(
            bounds, title=f"Per-point bounds at n = {theory_n:,}, d = {theory_d}, p = {p:g}"), key="ldp_theory_cos")
        st.caption(f"α(x) ≤ P(θ̂₀ right at x) ≤ α̂(x) (Thm 1); α₁(x) for θ̂₁ (Thm 4), only where |cos β| ≥ 16p₂/μ = "
                   f"{bounds['threshold']:.3g} (p₂ = {bounds['p2']:.3g}); grey: the theorem says nothing there.")
    with right:
        simulation_work = ("simulation", law_name, theory_d, p)
        sim_ns = SIMULATED_N if simulation_work in st.session_state.get(REQUESTED, set()) else tuple(
            m for m in SIMULATED_N if 2 * m * theory_d * SIMULATED_REPS <= SIMULATION_AUTOMATIC_DRAWS)
        simulated = cached_simulation(law_name, theory_d, p, sim_ns)
        st.plotly_chart(figures.population_chart(
            population, simulated, title=f"Accuracy bounds against n (d = {theory_d}, p = {p:g})"),
            key="ldp_theory_pop")
        st.caption(f"Lines: eq. 59 (E[α(x)]) and eq. 65 bound acc(θ̂₀); eq. 141 bounds acc(θ̂₁). Diamonds: simulated "
                   f"accuracies (mean ± SD over {SIMULATED_REPS} draws). With the two-point law at n = 10⁵, retraining "
                   "on a fresh X_U is *worse* than θ̂₀: it amplifies θ̂₀'s own error direction.")
        later = [m for m in SIMULATED_N if m not in sim_ns]
        if later:
            st.caption(f"n = {', '.join(f'{m:,}' for m in later)} is simulated only when you ask: its "
                       f"{2 * max(later) * theory_d * SIMULATED_REPS:,} random draws take seconds, and a change of p, "
                       "d or the law should answer at once.")
            st.button(f"Simulate n = {', '.join(f'{m:,}' for m in later)} too", key="ldp_run_simulation",
                      on_click=request, args=(simulation_work,))
    st.markdown("**Results with unspecified constants** — shown as formulas only (" + theory.FLAG_THETA + "):")
    st.markdown("\n".join(f"- **{name}** ({theory.FLAG_THETA}): {formula}"
                           for name, formula in theory.THETA_ONLY_RESULTS))

take_home.panel(SETTINGS, values, run["numbers"], charts, KEYS, PROTECTS)
