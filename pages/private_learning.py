"""Page "Private learning": private empirical risk minimisation by input perturbation (Fukuchi, Tran,
Sakuma 2017) against objective perturbation (Obj-Gauss, KST12) and output perturbation (CMS11). The sweep
covers a whole grid of n (of ε for the diabetes data): moving n (or ε on diabetes) reruns no sweep."""
import streamlit as st

from epsilon_lab import ui
from privlib.erm.calibration import calibrate, privacy_meters
from privlib.erm.datasets import CHOSEN_DIMENSION, DATASET_LABELS, TASK_LABELS, task_caveat
from privlib.erm.mechanisms import METHOD_LABELS, METHODS
from privlib.erm.sweep import (
    DEFAULT_INFLATIONS,
    SWEEP_AXIS,
    inflation_tradeoff,
    inside_view,
    loss_for,
    metric_of,
    n_sweep,
    sizes_within,
    sweep,
)
from privlib.presentation.erm import figures

#: The n grid of the sweep and the values of the n slider (the page caps n at 10⁵).
NS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)
#: The ε grid of a sweep over ε (the diabetes data).
SWEEP_EPSILONS = (0.5, 1.0, 2.0, 4.0, 10.0, 30.0, 100.0)
#: The n grid of the privacy meters (pure calibration, no training).
METER_NS = tuple(round(10 ** (2 + k / 10)) for k in range(31))
D_CHOICES = (1, 2, 3, 5, 10, 20, 30, 50)
R_CHOICES = (0.25, 0.5, 1.0, 2.0, 4.0)
INFLATIONS = tuple(float(m) for m in DEFAULT_INFLATIONS)
INSIDE_RECORDS = 200
DEFAULTS = dict(erm_n=10_000, erm_dataset="synthetic", erm_task="regression", erm_d=10, erm_R=1.0, erm_m=1.0,
                erm_repeats=10, erm_methods=list(METHODS))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_n_sweep(dataset, ns, epsilon, delta, d, R, task, repeats, seed, methods, inflate):
    """Every chosen method over the whole n grid (moving n reruns nothing), behind a progress bar."""
    return ui.with_progress_bar(
        f"Training {len(methods)} methods at {len(ns)} sizes n × {repeats} repeats:",
        lambda progress: n_sweep(dataset=dataset, mechanisms=methods, ns=ns, epsilon=epsilon, delta=delta, d=d, R=R,
                                 task=task, repeats=repeats, seed=seed, inflate=inflate, progress=progress))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_epsilon_sweep(dataset, epsilons, delta, R, task, repeats, seed, methods, inflate):
    """Every chosen method over the ε grid at the data's fixed n (diabetes), behind a progress bar."""
    return ui.with_progress_bar(
        f"Training {len(methods)} methods at {len(epsilons)} values of ε × {repeats} splits:",
        lambda progress: sweep(dataset=dataset, mechanisms=methods, epsilons=epsilons, delta=delta, R=R, task=task,
                               repeats=repeats, seed=seed, inflate=inflate, progress=progress))


@st.cache_data(show_spinner=False, max_entries=64)
def cached_calibrations(epsilon, delta, n, d, R, task, inflate):
    """(safe, asymptotic) calibrations of every mechanism at one n."""
    loss = loss_for(task, R)
    return tuple(calibrate(epsilon, delta, n, d, R=R, A=loss.A, B=loss.B, inflate=inflate, route=route)
                 for route in ("safe", "asymptotic"))


@st.cache_data(show_spinner=False, max_entries=64)
def cached_meters(epsilon, delta, d, R, task, inflate):
    loss = loss_for(task, R)
    return privacy_meters(epsilon, delta, METER_NS, d, R=R, A=loss.A, B=loss.B, inflate=inflate)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_tradeoff(dataset, n, epsilon, delta, d, R, task, repeats, seed):
    return ui.with_progress_bar(
        f"Input perturbation at {len(INFLATIONS)} multipliers m × {repeats} repeats:",
        lambda progress: inflation_tradeoff(dataset=dataset, n=n, epsilon=epsilon, delta=delta, inflations=INFLATIONS,
                                            d=d, repeats=repeats, seed=seed, R=R, task=task, progress=progress))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_inside_view(dataset, epsilon, delta, n, d, seed, inflate, task, R):
    return inside_view(n_records=INSIDE_RECORDS, dataset=dataset, epsilon=epsilon, delta=delta, n=n, d=d, seed=seed,
                       inflate=inflate, task=task, R=R)


def n_grid(dataset: str) -> tuple:
    """The n grid of the sweep and the slider: census2000 stops at its number of training records."""
    return sizes_within(dataset, NS)


def dataset_changed() -> None:
    """Keep the chosen n on the grid of the new dataset (Streamlit would silently reset it to 100)."""
    if st.session_state["erm_n"] not in n_grid(st.session_state["erm_dataset"]):
        st.session_state["erm_n"] = DEFAULTS["erm_n"]


ui.start_page()
for k, v in DEFAULTS.items():
    st.session_state.setdefault(k, v)

st.title("Private learning: input vs objective vs output perturbation")
st.markdown(
    "A model user wants a linear model trained on n people's records. With **input perturbation** (Fukuchi, Tran, "
    "Sakuma 2017) every contributor adds Gaussian noise to her own record once — to its quadratic part a(z) and its "
    "linear part b(z) — and sends it; the database solves the ordinary least-squares problem on what arrives and "
    "publishes w. Nobody ever sees a raw record. It is compared with **objective perturbation** (Obj-Gauss, KST12: "
    "the database sees raw data and adds a ridge and a random linear term to the objective) and **output "
    "perturbation** (CMS11: noise on the trained w)."
)
st.caption("Tags: **[paper]** stated in the paper · **[R]** reconstructed from the paper's prose (its formulas are "
           "lost) · **(beyond the paper)** the project's own addition.")

top = st.columns([3, 2, 3], vertical_alignment="bottom")
with top[0]:
    epsilon = ui.epsilon_slider(key="erm_epsilon", default=1.0)
delta = ui.delta_choice("erm_delta", default=1e-6, container=top[1])
dataset = top[2].selectbox(
    "Dataset", list(DATASET_LABELS), format_func=DATASET_LABELS.get, key="erm_dataset", on_change=dataset_changed,
    help="Synthetic: x ~ N(0, I/d) clipped to the unit ball, y = w*ᵀx + noise. Diabetes: 442 patients, too few for a "
         "curve over n — the page shows a curve over ε instead. Census 2000: log weekly income on education and "
         "experience, subsampled to each n.")
by_epsilon = SWEEP_AXIS[dataset] == "epsilon"

with st.expander("Data, model and methods", expanded=True):
    c = st.columns(4)
    n_options = n_grid(dataset)
    n_choice = int(c[0].select_slider(
        "n (contributors, log scale)", options=list(n_options), key="erm_n", format_func=lambda v: f"{v:,}",
        disabled=by_epsilon,
        help="The agreed number of honest contributors. Every curve covers the whole grid: moving n moves the marker "
             "and recomputes only the calibration, the trade-off and the inside view."))
    task = c[1].radio("Task", list(TASK_LABELS), format_func=TASK_LABELS.get, key="erm_task",
                      help="Classification uses the second-order Taylor surrogate of the logistic loss at 0 [R]. "
                           "Every method fits the same surrogate (Obj-Gauss and Output too), so it does not explain "
                           "why Input trails Obj-Gauss at small n: the safe calibration (beyond the paper) does — it "
                           "needs more noise than Obj-Gauss when n is small, while the asymptotic match, with "
                           "Obj-Gauss's noise and no guarantee, nearly closes the gap.")
    d_choice = int(c[2].select_slider("d (dimension)", options=list(D_CHOICES), key="erm_d",
                                      disabled=not CHOSEN_DIMENSION[dataset],
                                      help="Synthetic data only; diabetes has d = 11 and census2000 d = 4 (with an "
                                           "intercept)."))
    R = float(c[3].select_slider("R (radius of ‖w‖ ≤ R)", options=list(R_CHOICES), key="erm_R",
                                 help="The parameter ball, public. The gradient bound ζ = 2RA² + B grows with R, so "
                                      "every mechanism needs more noise."))
    c = st.columns([2, 2, 1])
    inflate = float(c[0].select_slider(
        "m (local multiplier)", options=list(INFLATIONS), key="erm_m", format_func=lambda v: f"{v:g}",
        help="Each contributor multiplies both her noise variances by m [R: the paper's factor is lost]: more privacy "
             "for her own record (smaller ε_L) and a smaller model ε, at the price of accuracy."))
    repeats = int(c[1].slider("Repeats", min_value=5, max_value=50, key="erm_repeats",
                              help="Each repeat redraws the data (or the split) and the noise; curves show mean ± SD."))
    seed = ui.seed_input("erm_seed", default=0, container=c[2], help="Same seed, same data and noise, same results.")
    methods = st.multiselect("Methods", list(METHODS), key="erm_methods", format_func=METHOD_LABELS.get,
                             help="Input (asymptotic match) is the paper's infinite-n match [R]: a teaching curve, "
                                  "NOT a guarantee.")

if not methods:
    st.info("Choose at least one method.")
    st.stop()
methods = tuple(m for m in METHODS if m in methods)

try:
    if by_epsilon:
        result = cached_epsilon_sweep(dataset, SWEEP_EPSILONS, delta, R, task, repeats, seed, methods, inflate)
        n = int(result.settings["n"])
    else:
        result = cached_n_sweep(dataset, n_options, epsilon, delta, d_choice, R, task, repeats, seed, methods, inflate)
        n = n_choice
    d = int(result.settings["d"])
    safe, asymptotic = cached_calibrations(epsilon, delta, n, d, R, task, inflate)
    meters = cached_meters(epsilon, delta, d, R, task, inflate)
except (ValueError, ImportError) as exc:
    st.error(str(exc))
    st.stop()

cal = safe.input
# three and two in a row: five in one row cut their labels and values at 1024 pixels
metrics = st.columns(3) + st.columns(3)[:2]
metrics[0].metric("model ε (accountant)", f"{cal.epsilon_model:.3f}" if cal.valid else "invalid",
                  help="What the proof of the safe calibration gives at these noise levels: ln(1 + Ã²/(σ_a²s²)) + "
                       "z²/2 + z·t₃ (beyond the paper). It is at most the target ε, and smaller when m > 1.")
metrics[1].metric("contributor ε_L", f"{safe.local.epsilon_L:,.1f}" if safe.local else "—",
                  help="The privacy of one submitted record against the database itself ((ε_L, δ)-DLP, Cor. 1 "
                       "[paper]), exact via the analytic Gaussian mechanism (beyond the paper). It grows like n·ε.")
metrics[2].metric("σ_a (noise on a)", f"{cal.sigma_a:.4g}" if cal.valid else "—",
                  help="Standard deviation of the noise each contributor adds to every coordinate of a(z).")
metrics[3].metric("σ_b (noise on b)", f"{cal.sigma_b:.4g}" if cal.valid else "—",
                  help="Standard deviation of the noise each contributor adds to every coordinate of b(z).")
metrics[4].metric("smallest valid n", f"{cal.min_n:,}",
                  help=f"The smallest n at which the safe calibration exists at ε = {epsilon:g}, δ = {delta:g}, "
                       f"d = {d}.")

st.info(
    f"**Privacy of the published model.** Input perturbation with the safe calibration: **{figures.MODEL_GUARANTEE}**, "
    f"with δ = {delta:g} the total of its three parts (δ/3 each): the two high-probability events of the "
    "calibration — one record's noise longer than σ_a·r, and the smallest eigenvalue of the other records' noisy "
    "Gram matrix below σ_a²s² (together δ′ = 2δ/3) — and the Gaussian tail of the linear noise (δ/3); "
    f"**{figures.HONEST_RECORDS}** (n = {n:,} is the agreed lower "
    "bound: fewer records mean less total noise) and only for the exact minimiser over ‖w‖ ≤ R. Obj-Gauss [KST12] is "
    "(ε, δ)-DP and output perturbation [CMS11] is ε-DP, both for replace-one neighbours. The asymptotic match [R] is "
    "**not a guarantee**. A contributor's own record is protected only at ε_L — the second meter below.",
    icon="🔒")
if delta >= 1.0 / n:
    st.warning(f"δ = {delta:g} is at least 1/n = {1.0 / n:.3g}: a mechanism that publishes one whole record with "
               "probability δ would meet this guarantee. Choose δ well below 1/n.", icon="⚠️")
if not cal.valid:
    st.warning(f"**Input perturbation (safe calibration) is not available here.** {cal.reason} The page does not fall "
               "back to the asymptotic match, which is not a guarantee.", icon=":material/block:")

# ---------------------------------------------------------------- 1. utility
metric_name = figures.METRIC_NAMES[metric_of(result)]
if by_epsilon:
    st.subheader(f"Test {metric_name} against ε (n = {n:,})")
    st.plotly_chart(figures.sweep_metric_chart(
        result, chosen_epsilon=epsilon,
        title=f"{TASK_LABELS[task]} on {dataset}: mean ± SD over {repeats} random 80/20 splits"), key="erm_metric")
    st.caption(f"With only n = {n:,} training records a curve over n is meaningless, so ε varies instead (beyond the "
               "paper: a small-n reality check). Dashed: the non-private model. Grey dotted: the constant predictor, "
               "which ignores the features — a private model that does no better has learnt nothing usable. Where the "
               "safe-input line stops, its "
               "calibration is invalid at that ε: with so few records it needs a larger ε than Obj-Gauss or Output.")
else:
    st.subheader(f"Test {metric_name} against n at ε = {epsilon:g}")
    st.plotly_chart(figures.sweep_metric_chart(
        result, chosen=n, invalid_below=cal.min_n if "input_safe" in methods and cal.min_n > min(n_options) else None,
        title=f"{TASK_LABELS[task]} on {dataset} (d = {d}): mean ± SD over {repeats} repeats"), key="erm_metric")
    caveat = task_caveat(dataset, task)
    if caveat is not None:
        st.warning(caveat, icon=":material/visibility_off:")
    else:  # the paper's claim holds only where the chart can show it
        st.caption("The shape of the paper's Figs. 1–2 [paper]: with more contributors every private model approaches the "
                   "non-private one (dashed), and input perturbation catches up with Obj-Gauss from about n = 10⁴ "
                   "[paper]. At small n the safe calibration (beyond the paper) costs Input more than Obj-Gauss; in the "
                   "shaded range it does not exist at all. Output perturbation converges more slowly. Grey dotted: the "
                   "constant predictor (features ignored; the training mean or the majority class) — a private model "
                   "that does no better has learnt nothing usable.")

st.subheader("Excess empirical risk")
st.plotly_chart(figures.sweep_excess_chart(result, chosen=None if by_epsilon else n,
                                           chosen_epsilon=epsilon if by_epsilon else None,
                                           title="E[J(w_priv)] − J(ŵ) on the training data, log–log"), key="erm_excess")
st.caption(("The paper proves that the excess risk of Input and Obj-Gauss falls at the rate O(1/n) for fixed ε "
            "[paper, Thm 2]; its constants are lost, so the dashed line shows only a slope of −1, not a bound. "
            "Measured curves may fall faster: O(1/n) is a worst case.")
           if not by_epsilon else
           "The same excess risk against ε at the fixed n: more privacy (smaller ε) costs more risk. The O(1/n) "
           "rate [paper] concerns n, which is fixed here.")

# ---------------------------------------------------------------- 3. the two meters
st.subheader("Two privacy meters: the model and one contributor")
st.plotly_chart(figures.meters_chart(
    meters, epsilon, chosen_n=n, title=f"Safe calibration at ε = {epsilon:g}, δ = {delta:g}, d = {d}, m = {inflate:g}"),
    key="erm_meters")
st.caption("Blue: the published model's ε from the accountant — fixed at or below the target ε whatever n "
           f"({figures.MODEL_GUARANTEE}). Red: one contributor's ε_L for her own submitted record, which the database "
           "sees — it *grows* with n because each record's noise shrinks like 1/√n (Cor. 1 [paper]; exact via the "
           "analytic Gaussian mechanism, beyond the paper: ε_L ≈ μ_L²/2 ∝ n·ε). Dashed: the classic Gaussian formula "
           f"the paper's √n growth comes from — {figures.CLASSIC_NOTE}, so useless here.")

# ---------------------------------------------------------------- 4. the m trade-off
st.subheader("Balancing the two: the local multiplier m")
if cal.valid:
    try:
        tradeoff = cached_tradeoff(dataset, n, epsilon, delta, d, R, task, repeats, seed)
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.plotly_chart(figures.tradeoff_chart(
            tradeoff, chosen_m=inflate,
            title=f"Input (safe calibration) at n = {n:,}, ε = {epsilon:g}: one point per m, {repeats} repeats"),
            key="erm_tradeoff")
        st.caption("Each contributor multiplies both noise variances by m (§3.5 [paper]; the factor itself is [R]). "
                   "Her ε_L falls like 1/m, and the model's ε falls too — to a floor, not to 0, because the bound G "
                   "on a record's influence grows with σ_a (beyond the paper) — while the model gets worse.")
else:
    st.caption("The trade-off needs a valid safe calibration at this n and ε (see the message above).")

# ---------------------------------------------------------------- 5. the inside view
st.subheader("Inside view: what the database receives")
view = cached_inside_view(dataset, epsilon, delta, n, d, seed, inflate, task, R)
if view.valid:
    st.plotly_chart(figures.view_chart(
        view, title=f"{view.n_records} contributors, noise calibrated for the agreed n = {n:,}"), key="erm_inside")
    # the first coordinate and two decimals: seven columns of three coordinates did not fit at 1024 pixels
    st.dataframe(figures.view_rows(view, coordinates=1, digits=2), hide_index=True, key="erm_inside_table",
                 column_config={"contributor": st.column_config.NumberColumn("#")})
    st.caption("Alg. 1 [paper]: each contributor adds N(0, σ_a²I) to a(z) and N(0, σ_b²I) to b(z), sends the result "
               "once and never interacts again; c(z) is never sent (beyond the paper: it does not move the minimiser "
               "and y² would leak |y|). The raw records (blue) never leave their owners. Every single submitted b is "
               f"buried in noise (σ_b = {cal.sigma_b:.3g}); only their sum over n contributors carries the signal.")
else:
    st.caption(f"No records are perturbed: {view.reason}")

# ---------------------------------------------------------------- 6. the explainer
st.subheader("Why it works: the noise on a is a ridge, the noise on b a random linear term")
st.plotly_chart(figures.calibration_explainer_chart(safe, asymptotic), key="erm_explainer")
st.markdown(
    "Summed over the n submitted records the objective becomes (eq. 5 [R])  \n"
    "J(w) + (1/n)(Σξᵢ)ᵀw + (1/n)wᵀ[Σ(ηᵢηᵢᵀ + aᵢηᵢᵀ + ηᵢaᵢᵀ)]w.\n"
    "- **Noise on b → KST12's random linear term.** Σξᵢ ~ N(0, nσ_b²I) is exactly the linear noise g of Obj-Gauss "
    "[paper].\n"
    "- **Noise on a → KST12's ridge.** (1/n)Σηᵢηᵢᵀ → σ_a²I and the cross terms average out, so the quadratic noise "
    "acts as Obj-Gauss's ridge Δ/(2n) — \"objective perturbation with infinitely many samples\" [paper].\n"
    "- Matching the two gives the asymptotic calibration nσ_b² = β², σ_a² = λ/(nε) [R] — equal bars in the chart, but "
    "no guarantee at finite n. The safe calibration (beyond the paper) pays for finite n with a larger ridge and a "
    "larger linear term; both shrink towards Obj-Gauss's as n grows.")

st.download_button("Sweep results (CSV)", result.to_csv(), file_name="private-learning-sweep.csv", mime="text/csv",
                   key="erm_download_csv")
st.download_button("Sweep results (JSON)", result.to_json(), file_name="private-learning-sweep.json",
                   mime="application/json", key="erm_download_json")
