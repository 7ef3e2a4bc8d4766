"""Page "Private learning": private empirical risk minimisation by input perturbation (Fukuchi, Tran,
Sakuma 2017) against objective perturbation (Obj-Gauss, KST12) and output perturbation (CMS11). The sweep
covers a whole grid of n (of ε for the diabetes data): moving n (or ε on diabetes) reruns no sweep."""
import streamlit as st

from epsilon_lab import take_home, ui
from privlib.analyses.private_learning import (
    D_CHOICES,
    DELTA_CHOICES,
    INFLATIONS,
    INSIDE_RECORDS,
    METER_NS,
    PROTECTS,
    R_CHOICES,
    SETTINGS,
    SWEEP_EPSILONS,
    n_grid,
    numbers,
)
from privlib.core.validation import duration
from privlib.erm import attacks
from privlib.erm.calibration import calibrate, privacy_meters
from privlib.erm.datasets import CHOSEN_DIMENSION, DATASET_LABELS, TASK_LABELS, task_caveat
from privlib.erm.mechanisms import METHOD_LABELS, METHODS
from privlib.erm.sweep import (
    SWEEP_AXIS,
    inflation_tradeoff,
    inside_view,
    loss_for,
    metric_of,
    n_sweep,
    sweep,
)
from privlib.presentation.erm import figures
from privlib.presentation.risk import attack_vs_epsilon_chart, frontier_chart, tradeoff_chart

#: The widget key of each setting (`privlib.analyses.private_learning.SETTINGS`).
KEYS = {"epsilon": "erm_epsilon", "delta": "erm_delta", "dataset": "erm_dataset", "n": "erm_n", "task": "erm_task",
        "d": "erm_d", "R": "erm_R", "inflate": "erm_m", "repeats": "erm_repeats", "seed": "erm_seed",
        "methods": "erm_methods", "target": "erm_attack_target"}
DEFAULTS = SETTINGS.defaults()


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


#: Games of the ε curve of the attacker's view (the sentence and the ROC use `attacks.DEFAULT_GAMES`).
CURVE_GAMES = 2_000
#: The session's set of attack work the user asked for (`ui.request`).
ATTACK_REQUESTED = "erm_attack_requested"


@st.cache_data(show_spinner=False, max_entries=16)
def cached_membership(epsilons, delta, n, d, task, R, seed, games):
    """The membership game of every attacked method at ``epsilons``, behind a progress bar."""
    return ui.with_progress_bar(
        f"Membership game: {games:,} pairs × {len(epsilons)} ε:",
        lambda progress: attacks.membership_study(epsilons, delta, n=n, d=d, games=games, task=task, R=R, seed=seed,
                                                  progress=progress, allow_long=True))


@st.cache_data(show_spinner=False, max_entries=64)
def cached_submission(epsilon, delta, n, d, task, R, inflate):
    return attacks.submission_risk(epsilon, delta, n=n, d=d, task=task, R=R, inflate=inflate)


def dataset_changed() -> None:
    """Keep the chosen n on the grid of the new dataset (Streamlit would silently reset it to 100)."""
    if st.session_state["erm_n"] not in n_grid(st.session_state["erm_dataset"]):
        st.session_state["erm_n"] = DEFAULTS["n"]


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets
for name, key in KEYS.items():  # widgets take their value from their state: a restored setting stays
    st.session_state.setdefault(key, DEFAULTS[name])
st.session_state["erm_methods"] = list(st.session_state["erm_methods"])  # a restored setting is a tuple
if st.session_state["erm_n"] not in n_grid(st.session_state["erm_dataset"]):  # e.g. a link's census2000 at 10⁵
    st.warning(f"n = {st.session_state['erm_n']:,} is not on the {st.session_state['erm_dataset']} grid: "
               f"n = {DEFAULTS['n']:,} is used.", icon="⚠️")
    st.session_state["erm_n"] = DEFAULTS["n"]

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
delta = ui.delta_choice("erm_delta", default=DEFAULTS["delta"], container=top[1], options=DELTA_CHOICES)
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
    seed = ui.seed_input("erm_seed", default=DEFAULTS["seed"], container=c[2],
                         help="Same seed, same data and noise, same results.")
    methods = st.multiselect("Methods", list(METHODS), key="erm_methods", format_func=METHOD_LABELS.get,
                             help="Input (asymptotic match) is the paper's infinite-n match [R]: a teaching curve, "
                                  "NOT a guarantee.")

if not methods:
    st.info("Choose at least one method.")
    st.stop()
methods = tuple(m for m in METHODS if m in methods)
values = {"epsilon": float(epsilon), "delta": float(delta), "dataset": dataset, "n": n_choice, "task": task,
          "d": d_choice, "R": R, "inflate": inflate, "repeats": repeats, "seed": int(seed), "methods": methods,
          "target": float(st.session_state["erm_attack_target"])}  # its widget is drawn further down
take_home.share(SETTINGS, values)

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
charts = []  # the page's figures, in order: the report draws them again


def show_chart(figure, key: str) -> None:
    charts.append(figure)
    st.plotly_chart(figure, key=key)


metric_name = figures.METRIC_NAMES[metric_of(result)]
if by_epsilon:
    st.subheader(f"Test {metric_name} against ε (n = {n:,})")
    show_chart(figures.sweep_metric_chart(
        result, chosen_epsilon=epsilon,
        title=f"{TASK_LABELS[task]} on {dataset}: mean ± SD over {repeats} random 80/20 splits"), key="erm_metric")
    st.caption(f"With only n = {n:,} training records a curve over n is meaningless, so ε varies instead (beyond the "
               "paper: a small-n reality check). Dashed: the non-private model. Grey dotted: the constant predictor, "
               "which ignores the features — a private model that does no better has learnt nothing usable. Where the "
               "safe-input line stops, its "
               "calibration is invalid at that ε: with so few records it needs a larger ε than Obj-Gauss or Output.")
else:
    st.subheader(f"Test {metric_name} against n at ε = {epsilon:g}")
    show_chart(figures.sweep_metric_chart(
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
show_chart(figures.sweep_excess_chart(result, chosen=None if by_epsilon else n,
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
show_chart(figures.meters_chart(
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
        show_chart(figures.tradeoff_chart(
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
    show_chart(figures.view_chart(
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
show_chart(figures.calibration_explainer_chart(safe, asymptotic), key="erm_explainer")
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

# ---------------------------------------------------------------- 7. the attacker's view
st.subheader("Attacker's view")
st.markdown(
    "**Membership, replace-one.** The unit of protection is one record: n − 1 other records and a pair of candidate "
    "records; a coin picks which candidate enters, so the model is trained on n records either way, and the attacker "
    "who sees the model says which candidate was in (guessing: 50 %). Two attacks: the **loss threshold** (Yeom et al. "
    "2018: the candidate with the smaller loss) and the **known-neighbour likelihood ratio** (an attacker who knows "
    "both candidates and every other record, as every DP bound assumes). The guarantee bounds both for every pair; "
    "membership in the add/remove sense (n or n − 1 records) is a different pair, **not** bounded by the replace-one "
    "curve. The games use synthetic records of the page's n and d (beyond the paper). Smaller ε = more privacy.")
attack_n, attack_d = n, d
attack_work = ("sentence", epsilon, delta, attack_n, attack_d, task, R, seed)
attack_seconds = attacks.estimate_seconds(attack_n, attack_d, attacks.DEFAULT_GAMES, attacks.ATTACK_METHODS)
study = None
if ui.runs_now(attack_seconds, attack_work, ATTACK_REQUESTED):
    try:
        study = cached_membership((epsilon,), delta, attack_n, attack_d, task, R, seed, attacks.DEFAULT_GAMES)
    except ValueError as exc:
        st.error(str(exc))
else:
    st.info(f"The membership game fits {len(attacks.ATTACK_METHODS)} methods on {attacks.DEFAULT_GAMES:,} pairs of "
            f"{attack_n:,}-record data sets, about {duration(attack_seconds)} here, so it runs when you ask.",
            icon=":material/schedule:")
    st.button(f"Run the membership game (about {duration(attack_seconds)})", key="erm_attack_run", type="primary",
              on_click=ui.request, args=(ATTACK_REQUESTED, attack_work))
if study is not None:
    st.markdown("\n".join(f"- {sentence}" for sentence in attacks.plain_sentences(study, epsilon).values()))
    valid = [m for m in study.methods if study.at(m, epsilon).valid]
    shown_method = st.selectbox("Method on the chart", valid, format_func=METHOD_LABELS.get, key="erm_attack_method",
                                index=valid.index("input_safe") if "input_safe" in valid else 0)
    chosen = study.at(shown_method, epsilon)
    show_chart(tradeoff_chart(
        chosen.bound, attacks={m.label: m for m in chosen.attacks.values()}, log_fpr=True,
        title=f"{chosen.label} at ε = {epsilon:g}, n = {attack_n:,}: {study.games:,} games"), key="erm_attack_roc")
    tail = ("TPR at 1 % FPR is measured from 10⁴ non-member scores" if study.games >= attacks.ROC_MIN_NONMEMBERS
            else "fewer than 10⁴ non-member scores: TPR at 1 % FPR is not measured")
    best = chosen.strongest()
    st.caption("Each coloured line is an attack's ROC (a log FPR axis, where membership attacks matter); the black "
               "line is the most any test can reach under the guarantee, "
               + ("none here: no guarantee." if chosen.bound is None else
                  f"{chosen.bound.label} — its (ε, δ) curve only for Obj-Gauss and input perturbation, never a μ-GDP "
                  "curve (their released argmin is not exactly Gaussian).")
               + f" The strongest attack's AUC is {best.auc:.3f} ± {2 * best.auc_se:.3f} (2 SE); {tail}.")
    if chosen.weak_attack:
        st.caption("The measured ROC stays far under the bound: that gap reflects a weak attack on typical records, "
                   "not measured extra privacy — the bound covers the worst pair of records and every attacker.")
if not cal.valid:
    st.caption(f"Input perturbation (safe calibration) releases no model here, so it is not attacked: {cal.reason}")

curve_epsilons = tuple(sorted(set(attacks.ATTACK_EPSILONS) | {epsilon}))
curve_work = ("curve", curve_epsilons, delta, attack_n, attack_d, task, R, seed)
curve_seconds = attacks.estimate_seconds(attack_n, attack_d, CURVE_GAMES, attacks.ATTACK_METHODS, len(curve_epsilons))
curve = None
if ui.runs_now(curve_seconds, curve_work, ATTACK_REQUESTED):
    try:
        curve = cached_membership(curve_epsilons, delta, attack_n, attack_d, task, R, seed, CURVE_GAMES)
    except ValueError as exc:
        st.error(str(exc))
else:
    st.button(f"Draw the attack across ε (about {duration(curve_seconds)})", key="erm_attack_curve_run",
              on_click=ui.request, args=(ATTACK_REQUESTED, curve_work))
if curve is not None:
    private = [m for m in curve.methods if m != "non_private"]
    bound_method = "obj_gauss" if "obj_gauss" in private else private[0]
    bounds = [r.bound_success for r in curve.results[bound_method]]
    show_chart(attack_vs_epsilon_chart(
        curve_epsilons, {METHOD_LABELS[m]: curve.series(m) for m in private}, bound=bounds, baseline=0.5,
        chosen_epsilon=epsilon, y_title="success in naming the member",
        bound_name="the (ε, δ) guarantee's bound (output perturbation's pure ε: slightly lower)",
        baseline_name="guessing (50 %)",
        title=f"The strongest attack against ε, n = {attack_n:,} ({CURVE_GAMES:,} games per point, ± 2 SE)"),
        key="erm_attack_curve")
    st.caption("Each line: the success of the strongest of the two attacks at each ε, ± 2 SE; black: what the "
               "guarantee allows any attacker; grey: guessing. Where the lines stay near 50 % while the bound climbs, "
               "the attacks are weak on typical records — the bound is a worst case, not a prediction.")
    frontier = frontier_chart(
        {METHOD_LABELS[m]: ([r.excess_risk for r in curve.results[m]], curve.series(m)[0], curve_epsilons)
         for m in private}, x_title="excess empirical risk in the same games (lower = more useful)",
        y_title="success in naming the member", baseline=0.5, baseline_name="guessing (50 %)",
        title="Attack success against utility, one point per ε")
    frontier.update_xaxes(type="log")  # the excess risk spans orders of magnitude over the ε grid
    show_chart(frontier, key="erm_attack_frontier")
    st.caption("Each point is one ε of the grid (hover for it): lower is more private, further left more useful. "
               "ε values are comparable within one method; across methods compare the points themselves.")

target = st.number_input("Attack success you accept (naming the member of a pair)", min_value=0.5, max_value=1.0,
                         step=0.01, format="%.2f", key="erm_attack_target",
                         help="50 % is guessing; the answer is the largest ε of the grid that keeps the attack under it.")
for method in ("input_safe", "obj_gauss", "output"):
    answer = attacks.largest_epsilon_under(target, curve_epsilons, method, delta=delta, n=attack_n, d=attack_d,
                                           task=task, R=R)
    line = f"- By the bound (any attacker): {answer.sentence}"
    if curve is not None:
        line += "  \n  By the measured attacks: " + attacks.largest_epsilon_under(
            target, curve_epsilons, method, basis="measured", study=curve).sentence
    st.markdown(line)

submission = cached_submission(epsilon, delta, attack_n, attack_d, task, R, inflate)
st.markdown(f"**Each contributor's submission.** {submission.sentence}")
if submission.valid:
    # a markdown table, not a dataframe: the page's one table stays the inside view's
    st.markdown("| radius η | prior mass κ̄ of the best η-ball | bound Φ(Φ⁻¹(κ̄) + μ_L) | vacuous |\n|---|---|---|---|\n"
                + "\n".join(f"| {row['eta']:g} | {row['kappa']:.3g} | {row['bound']:.3g} | "
                            f"{'yes' if row['vacuous'] else 'no'} |" for row in map(dict, submission.rows)))
    st.caption("The database sees every submission: the bound holds for any way of reconstructing her features a "
               "within η from it (Hayes et al. 2023; κ̄ bounds the prior mass of the best η-ball from above). With "
               "more contributors each submission carries less noise, so μ_L grows like √n and the bound soon says "
               "nothing.")

st.download_button("Sweep results (CSV)", result.to_csv(), file_name="private-learning-sweep.csv", mime="text/csv",
                   key="erm_download_csv")
st.download_button("Sweep results (JSON)", result.to_json(), file_name="private-learning-sweep.json",
                   mime="application/json", key="erm_download_json")

take_home.panel(SETTINGS, values, numbers(result, safe, n), charts, KEYS, PROTECTS)
