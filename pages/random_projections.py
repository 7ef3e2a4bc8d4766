"""Page "Random projections": differential privacy with random projections and sign random projections
(Li & Li): retrieval quality against ε, and why projecting first — and keeping one bit — helps."""
import json

import numpy as np
import streamlit as st

from epsilon_lab import take_home, ui
from privlib.analyses.random_projections import (
    ANGLE_CHECK_DRAWS,
    ANGLE_CHECK_EPSILONS,
    ANGLE_THETA,
    DEFAULT_MECHANISMS,
    EPSILONS,
    K_CHOICES,
    KIND_LABELS,
    P_CHOICES,
    PROTECTS,
    R_CHOICES,
    REPEATS,
    SETTINGS,
    T_CHOICES,
    VARIANCE_CHECK_DRAWS,
    VARIANCE_CHECK_EPSILONS,
    attack_parameters,
    numbers,
    shown_mechanisms,
)
from privlib.core.validation import duration
from privlib.presentation.projections import figures
from privlib.presentation.projections.corrections import PAPER_CORRECTIONS
from privlib.presentation.risk import attack_vs_epsilon_chart, frontier_chart, tradeoff_chart
from privlib.projections import attacks
from privlib.projections import sweep as rp_sweep
from privlib.projections.datasets import DATASET_LABELS, FIXED_DIMENSIONS, load_dataset_at
from privlib.projections.mechanisms import MECHANISMS
from privlib.projections.projection import make_projection
from privlib.projections.quantities import n_plus, optimal_k

DP_NAMES = rp_sweep.DP_MECHANISMS
IDP_NAMES = rp_sweep.IDP_MECHANISMS
#: The widget key of each setting (`privlib.analyses.random_projections.SETTINGS`).
KEYS = {name: f"rp_{name}" for name in SETTINGS.names}


@st.cache_resource(show_spinner=False, max_entries=4)
def cached_shared_reference(dataset, p, k, R, repeats, seed):
    """The retrieval task and non-private levels every mechanism's sweep shares (read-only arrays:
    a resource, not copied on each run)."""
    return rp_sweep.shared_reference(load_dataset_at(dataset, p), k=k, R=R, repeats=repeats, seed=seed,
                                     true=rp_sweep.TRUE_NEIGHBOURS)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_sweep(name, dataset, p, epsilons, k, repeats, seed, beta, R, delta, t, m, projection, s, _shared):
    """The sweep of one mechanism over ``epsilons`` (the grid: moving ε reruns nothing), retrieving R
    neighbours against each query's top `rp_sweep.TRUE_NEIGHBOURS`. The page passes the settings
    the mechanism does not read at fixed values (`rp_sweep.mechanism_settings`), so changing t, m,
    δ or the projection reruns only the mechanisms that read it; ``_shared`` is determined by the
    other arguments."""
    return ui.with_progress_bar(f"Sweeping {MECHANISMS[name].label} over {len(epsilons)} values of ε × {repeats} "
                                "repetitions:",
                                lambda progress: rp_sweep.sweep(
                                    load_dataset_at(dataset, p), [name], epsilons, repeats=repeats, seed=seed,
                                    progress=progress, k=k, t=t, delta=delta, beta=beta, m=m,
                                    projection=projection, s=s, R=R, true=rp_sweep.TRUE_NEIGHBOURS, shared=_shared))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_sigma_chart(delta, beta, realised):
    return figures.sigma_chart(delta, beta, realised)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_delta2_chart(k, beta, seed):
    return figures.delta2_chart(k, beta, seed)


@st.cache_data(show_spinner=False, max_entries=2)
def cached_ratio_chart():
    return figures.variance_ratio_chart()


@st.cache_data(show_spinner=False, max_entries=2)
def cached_at_risk_chart():
    return figures.at_risk_chart()


@st.cache_data(show_spinner="Computing P₊ (eq. 26) …", max_entries=2)
def cached_p_plus_chart():
    return figures.p_plus_chart()


@st.cache_data(show_spinner="Computing N₊ (eq. 27) …", max_entries=16)
def cached_n_plus_chart(p, k, delta):
    return figures.n_plus_chart(p, k, delta)


@st.cache_data(show_spinner="Simulating the inner-product variances …", max_entries=16)
def cached_variance_chart(dataset, p, k, delta, beta, seed, simulate):
    """The closed-form variances, with the Monte Carlo check (about a second) only if ``simulate``."""
    data = load_dataset_at(dataset, p)
    u, v = data.Q[0], data.Q[1]
    check = rp_sweep.inner_product_monte_carlo(u, v, VARIANCE_CHECK_EPSILONS, k, draws=VARIANCE_CHECK_DRAWS,
                                               seed=seed, delta=delta, beta=beta) if simulate else None
    return figures.variance_chart(u, v, k, delta, beta, monte_carlo=check)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_levels_chart(dataset, p, k, t, seed, beta):
    return figures.smooth_level_histogram(rp_sweep.smooth_levels_on_data(load_dataset_at(dataset, p), k, t, seed,
                                                                         beta))


@st.cache_data(show_spinner="Simulating the angle estimate …", max_entries=16)
def cached_angle_chart(k, n_plus_count, t, seed):
    check = rp_sweep.rr_angle_monte_carlo(ANGLE_THETA, tuple(e / t for e in ANGLE_CHECK_EPSILONS), k,
                                          draws=ANGLE_CHECK_DRAWS, seed=seed)
    return figures.angle_sd_chart(k, n_plus_count, t, theta=ANGLE_THETA, monte_carlo=check,
                                  title="SD of the angle estimate (Thm 4.6)")


@st.cache_data(show_spinner=False, max_entries=16)
def cached_gaussian_delta2(p, k, seed, beta):
    return make_projection("gaussian", p, k, seed).delta2(beta)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_n_plus(p, k, delta, m, beta):
    return n_plus(p, k, delta, m, beta)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_attribute_attack(name, epsilon, delta, p, parameters, seed):
    return ui.with_progress_bar(f"Attacking one attribute of {MECHANISMS[name].label}:",
                                lambda progress: attacks.attribute_inference(
                                    name, epsilon=epsilon, delta=delta, p=p, seed=seed, parameters=dict(parameters),
                                    progress=progress, allow_long=True))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_attack_curves(name, delta, dataset, p, parameters, seed, linkage, _data):
    """Both attacks over the page's ε grid (``linkage`` False: the attribute attack's closed forms
    only, a fraction of a second); ``_data`` is determined by ``dataset`` and ``p``."""
    return ui.with_progress_bar(f"Attacking {MECHANISMS[name].label} across ε:",
                                lambda progress: attacks.attack_curves(
                                    name, epsilons=EPSILONS, delta=delta, dataset=_data, linkage=linkage, seed=seed,
                                    parameters=dict(parameters), progress=progress, allow_long=True))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_linkage(name, epsilon, delta, dataset, p, parameters, seed, _data):
    return ui.with_progress_bar(f"Linking {MECHANISMS[name].label} releases to their rows:",
                                lambda progress: attacks.record_linkage(
                                    name, epsilon=epsilon, delta=delta, dataset=_data, seed=seed,
                                    parameters=dict(parameters), progress=progress, allow_long=True))


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets
for name, key in KEYS.items():  # widgets take their value from their state: a restored setting stays
    default = SETTINGS.by_name[name].default
    # written back on every run, so that a widget not drawn in a run (p on MNIST, the linkage target before its
    # attack, anything after an error) keeps its setting in the state and the link instead of losing it
    st.session_state[key] = st.session_state.get(key, list(default) if isinstance(default, tuple) else default)
st.title("Random projections")
st.markdown(
    "Publish a **random projection** of each data vector instead of the vector itself: k numbers "
    "x = Wᵀu/√k (or the k **bin sums** of OPORP), made private with Gaussian noise — or just their "
    "**signs**, one bit each, made private by randomly flipping bits (Li & Li, *Differential Privacy "
    "with Random Projections and Sign Random Projections*). The projection W is public; the noise and "
    "the flips are fresh for every vector. Each vector gets its own guarantee: one coordinate may "
    "change by at most β (β-adjacency). Below, every mechanism is used for **similarity search**: "
    "how many of each query's 50 true nearest neighbours are still found among the R nearest "
    "released vectors (precision@R; R = 50 unless you change it below)."
)

top = st.columns([3, 2], vertical_alignment="bottom")
with top[0]:
    epsilon = ui.epsilon_slider(key="rp_epsilon", default=5.0)
with top[1]:
    delta = ui.delta_choice(key="rp_delta", default=1e-6)

with st.expander("Data, projection and repetitions", expanded=False):
    c = st.columns(4)
    dataset = c[0].selectbox("Dataset", list(DATASET_LABELS), format_func=DATASET_LABELS.get, key="rp_dataset",
                             help="MNIST: the paper's kind of data (pixels/255). Digits: small (p = 64, too small "
                                  "for projections to beat raw noise). Synthetic: sparse clusters of dimension p.")
    if dataset not in FIXED_DIMENSIONS:
        p_value = int(c[0].select_slider("p (dimension)", options=list(P_CHOICES), key="rp_p",
                                         help="The dimension of the synthetic data. Keep p/k ≥ 16 for projecting "
                                              "to beat noise on the raw data (p = 2,048: k ≤ 128)."))
    else:
        p_value = FIXED_DIMENSIONS[dataset]
        c[0].caption(f"p = {p_value} (fixed by the data)")
    k = c[1].select_slider("k (projections)", options=list(K_CHOICES), key="rp_k",
                           help="Number of projected values or bits per vector. Keep p/k ≥ 16 for projecting to "
                                "beat noise on the raw data (MNIST: k ≤ 49).")
    t = c[2].select_slider("t (OPORP repetitions)", options=list(T_CHOICES), key="rp_t",
                           help="DP-SignOPORP: t independent OPORPs of k/t bins, ε/t each. Fewer empty bins, "
                                "but a smaller budget per bit.")
    seed = ui.seed_input(key="rp_seed", container=c[3], help="Same seed, same projections, noise and results.")
    c = st.columns(4)
    projection = c[0].selectbox("Projection of DP-RP-G-OPT-B", list(KIND_LABELS), format_func=KIND_LABELS.get,
                                key="rp_projection",
                                help="Rademacher gives Δ₂ = β exactly; the others have a larger realised Δ₂.")
    s = float(c[1].number_input("s (very sparse)", min_value=1.0, max_value=100.0, step=1.0, key="rp_s",
                                disabled=projection != "sparse",
                                help="Sparsity of the very sparse projection (s = 1 is Rademacher)."))
    m = float(c[2].number_input("m (norm bound, DP-SignRP-RR)", min_value=0.0, max_value=100.0, step=1.0,
                                key="rp_m",
                                help="A PUBLIC lower bound on every vector's norm, enforced on all data; 0 = none "
                                     "(N₊ = k, pure ε-DP). Must be at least β."))
    beta = float(c[3].number_input("β (adjacency)", min_value=0.05, max_value=2.0, step=0.05,
                                   key="rp_beta", help="One coordinate may change by at most β (the data is in "
                                                       "[0, 1]: β = 1 protects a whole pixel)."))
    R = int(st.select_slider("R (neighbours retrieved)", options=list(R_CHOICES), key="rp_R",
                             help=f"Each query's top {rp_sweep.TRUE_NEIGHBOURS} by cosine are its true "
                                  "neighbours; R are retrieved. precision@R = true among them / R; the "
                                  f"paper's recall@R = true among them / {rp_sweep.TRUE_NEIGHBOURS}."))

chosen = st.multiselect("Mechanisms", list(DP_NAMES), key="rp_mechanisms",
                        format_func=lambda n: MECHANISMS[n].label,
                        help="Every mechanism here is differential privacy. Their guarantees are in the table. "
                             "Each one you add is swept on its own (about a second; Raw-data-G-OPT, whose noise "
                             "covers all p coordinates, several).")
show_idp = st.toggle("show iDP (not DP)", key="rp_show_idp",
                     help="iDP-SignRP (Alg 9–11) satisfies only individual DP, which is NOT differential privacy.")
# One cached sweep per mechanism: adding one sweeps only it, and a setting reruns only the mechanisms
# that read it. Each mechanism's draws depend only on the settings it reads and its name, so the
# combined result equals one sweep of them all.
names = shown_mechanisms({"mechanisms": chosen, "show_idp": show_idp})
if names and st.session_state[KEYS["attack_mechanism"]] not in names:  # e.g. no longer chosen: the first one
    st.session_state[KEYS["attack_mechanism"]] = names[0]
values = {"epsilon": float(epsilon), "delta": float(delta), "dataset": dataset,
          "p": p_value if dataset not in FIXED_DIMENSIONS else int(st.session_state[KEYS["p"]]), "k": int(k),
          "t": int(t), "seed": int(seed), "projection": projection, "s": s, "m": m, "beta": beta, "R": R,
          "true": rp_sweep.TRUE_NEIGHBOURS, "mechanisms": tuple(chosen), "show_idp": bool(show_idp),
          **{name: st.session_state[KEYS[name]]  # the widgets further down show these
             for name in ("variance_check", "attack_mechanism", "attack_target", "linkage_target")}}
take_home.share(SETTINGS, values)
if not names:
    st.info("Choose at least one mechanism.")
    st.stop()

try:
    data = load_dataset_at(dataset, p_value)
    shared = cached_shared_reference(dataset, p_value, int(k), R, REPEATS, seed)
    specific = {"delta": float(delta), "t": int(t), "m": m, "projection": projection, "s": s}
    sweeps = []
    for name in names:
        read = rp_sweep.mechanism_settings(name, **specific)
        parts = [cached_sweep(name, dataset, p_value, EPSILONS, int(k), REPEATS, seed, beta, R, **read, _shared=shared)]
        if epsilon not in EPSILONS:  # one more ε: its cells have their own streams, so merging is exact
            parts.append(cached_sweep(name, dataset, p_value, (epsilon,), int(k), REPEATS, seed, beta, R, **read,
                                      _shared=shared))
        sweeps.append(rp_sweep.combine_epsilons([rp_sweep.restate_settings(part, **specific) for part in parts]))
except ValueError as exc:
    st.error(str(exc))
    st.stop()
result = rp_sweep.combine(sweeps)
metric = rp_sweep.precision_label(result)

charts = []  # the page's figures, in order: the report draws them again


def chart(figure, key: str) -> None:
    """Draw ``figure`` and keep it for the report."""
    charts.append(figure)
    st.plotly_chart(figure, key=key)


st.subheader("Privacy against retrieval quality")
chart(figures.precision_vs_epsilon(result, chosen_epsilon=epsilon, title=f"{metric} on {data.name}, k = {k}"),
      key="rp_precision")
hidden = len(DP_NAMES) - len(chosen)
st.caption(
    f"Mean ± SD over {REPEATS} repetitions. Showing {len(chosen)} of the {len(DP_NAMES)} DP mechanisms"
    + (f" ({hidden} hidden: add them under Mechanisms above)" if hidden else "") + ". "
    f"{data.n_db:,} database vectors and {result.settings['n_queries']:,} queries (p = {data.p}); each repetition "
    f"draws a new public projection. Chance = {result.settings['true']}/{data.n_db:,} (true neighbours per query / database vectors) = "
    f"{result.reference[rp_sweep.CHANCE]:.3f}. Dashed: the non-private random projection (RP, cosine) and its signs "
    "(SignRP, Hamming distance) — the best any mechanism of this k can do."
)
if R != rp_sweep.TRUE_NEIGHBOURS:
    recalls = rp_sweep.recall_at(result, epsilon)
    st.caption(f"recall@{R} out of each query's top {rp_sweep.TRUE_NEIGHBOURS} at ε = {epsilon:g} (precision@{R} × "
               f"{R}/{rp_sweep.TRUE_NEIGHBOURS}; chance {R}/{data.n_db:,}): "
               + ", ".join(f"{result.labels[name]} {value:.3f}" for name, value in recalls.items()) + ".")
st.markdown(
    "**Why projecting first needs less noise.** Changing one coordinate by β moves the k projected values by at "
    "most Δ₂ ≈ β in total, so each projected value needs about as much noise as one raw coordinate — but there "
    "are only k of them instead of p. Fewer noisy numbers, less noise in every similarity: when p/k is large, the "
    "projections (DP-RP-G-OPT-B, DP-OPORP) beat noise on the raw data until ε is large.  \n"
    "**Why one bit per value can beat full precision at small ε.** Gaussian noise grows like 1/ε without bound; a "
    "randomised sign bit is flipped with probability at most ½ however small ε is. A DP-SignOPORP bit can change "
    "only in the one bin a coordinate falls into, so each bit gets the whole ε: at small ε a few honest bits carry "
    "more than drowned real values."
)
st.caption(f"To answer in seconds, the page sweeps {len(DEFAULT_MECHANISMS)} mechanisms unless you add more (add "
           "Raw-data-G-OPT and DP-RP-G-OPT-B to see projecting first beat noise on the raw data), and simulates the "
           "variances below only when you switch that check on.")

st.subheader(f"At ε = {epsilon:g}")
# a static table: its cells wrap, so every column fits a small window (a data grid scrolls sideways); Markdown,
# not st.table, which imports pandas (about half a second of the first view)
st.markdown(figures.markdown_table(figures.mechanism_table(rp_sweep.table_rows(result, epsilon), metric)))
realised = cached_gaussian_delta2(data.p, int(k), seed, beta)
st.caption(
    "σ: Gaussian noise per value; ε′: the privacy loss bound per bit (randomised response keeps a bit with "
    "probability e^ε′/(e^ε′ + 1)); expected flipped bits: per vector, exactly from the output law (a zero "
    "projection is a coin). Bits per vector: 64 per float64 value. "
    f"Gaussian W here has a realised Δ₂ = {realised:.3f} (not β): its σ must grow with it."
)
if show_idp:
    st.warning(
        "**Why iDP is not DP.** iDP-SignRP chooses which bits to randomise — and how much — from the vector u "
        "itself (the set A of bits a neighbour could flip). Its promise only compares u with u's own neighbours; "
        "the choice of A already depends on u, and no bound holds for the worst pair of neighbours. That is why its "
        "curve can stay near the non-private SignRP level even at a tiny ε. Never add its ε to a DP budget.",
        icon="⚠️")

st.subheader("Why projecting first reduces the noise")
left, right = st.columns(2)
with left:
    chart(figures.mark_epsilon(cached_sigma_chart(float(delta), beta, realised), epsilon), key="rp_sigma")
    st.caption("The noise σ each calibration needs (Fig. 1). The optimal σ* (eq. 14) is the smallest that is "
               "(ε, δ)-DP; the classical formula is valid only for ε < 1 (grey beyond). Solid: at Δ₂ = β "
               f"= {beta:g}; dashed: at the realised Δ₂ = {realised:.3f} of a Gaussian W, which is larger than β — "
               "Rademacher and OPORP keep Δ₂ = β.")
with right:
    chart(cached_delta2_chart(int(k), beta, seed), key="rp_delta2")
    st.caption("The realised sensitivity Δ₂ of each kind of projection against p (Fig. 2): it must be computed "
               "from the W actually drawn. Only Rademacher and OPORP give Δ₂ = β whatever p.")
left, right = st.columns(2)
with left:
    chart(cached_ratio_chart(), key="rp_ratio")
    st.caption("R = Var(raw)/Var(projected) for unit vectors (eq. 23, Fig. 3): above 1 projecting first wins; "
               "with much noise it tends to p/k (the paper's k/p = 0.05 is left out to keep six lines).")
with right:
    simulate = st.toggle("Monte Carlo check (about a second)", key="rp_variance_check",
                         help="Simulate the variances at three ε (200 draws each, a new W every draw).")
    chart(figures.mark_epsilon(cached_variance_chart(dataset, p_value, int(k), float(delta), beta, seed, simulate),
                               epsilon), key="rp_variance")
    st.caption("The variance of the released inner product of two queries against ε (eqs. 19, 20, 22)"
               + (", with a Monte Carlo check (crosses ± 2 SE: 200 draws, new W each)" if simulate else "")
               + ". The projections pay a fixed sketching variance, so raw data wins again when ε is large.")

st.subheader("Why one bit per value can win at small ε")
left, right = st.columns(2)
with left:
    chart(cached_p_plus_chart(), key="rp_pplus")
    st.caption("P₊: the probability that one bit of a Gaussian sign projection can flip when one coordinate "
               "changes by β, for vectors of norm at least m = β/r (eq. 26, Fig. 4).")
with right:
    chart(cached_n_plus_chart(data.p, int(k), float(delta)), key="rp_nplus")
    st.caption(f"N₊: how many of the k = {k} bits of DP-SignRP-RR are at risk (eq. 27, Fig. 5); each bit gets only "
               "ε/N₊. That is why DP-SignRP-RR needs a huge ε — DP-SignOPORP gives each bit the whole ε.")
left, right = st.columns(2)
with left:
    chart(figures.mark_x(cached_at_risk_chart(), data.p, f"p = {data.p:,}"), key="rp_at_risk")
    st.caption("The share of bits at risk (one changed coordinate can flip them) for data like the paper's, u uniform "
               "in [−1, 1]^p (Figs. 7–8, eqs. 31–32): a Rademacher W puts fewer bits at risk than a Gaussian W, so "
               "DP-SignRP would need less noise with it — but eq. 31 is an approximation, not a bound, so Alg 6 keeps "
               "the Gaussian W.")
with right:
    chart(figures.flip_chart(epsilon, epsilon / int(t), D=beta), key="rp_flip")
    st.caption("Smooth flipping (Alg 7–8, Fig. 6): a bit whose projection is L steps of β away from 0 would need "
               "L changed coordinates to flip, so it is flipped with probability 1/(e^{Lε}+1) instead of the flat "
               "randomised-response level.")
left, right = st.columns(2)
with left:
    chart(cached_levels_chart(dataset, p_value, int(k), int(t), seed, beta), key="rp_levels")
    st.caption("How far the projections of the data are from 0, in steps (L_j, Fig. 9): OPORP bins sum a few "
               "pixels, so many bits sit several steps away and are rarely flipped; L = 0 is an empty bin (a coin).")
count = cached_n_plus(data.p, int(k), float(delta), m, beta) if m >= beta else float(k)  # m = 0: N₊ = k
with right:
    chart(figures.mark_epsilon(cached_angle_chart(int(k), float(count), int(t), seed), epsilon), key="rp_angle")
    st.caption("The lines are √(V_RR/k) for a pair of vectors at angle θ = π/3; the crosses (± 2 SE) are the spread "
               "of the angle actually estimated from randomised-response bits at ε′ = ε/t per bit, over "
               f"{ANGLE_CHECK_DRAWS} simulated draws (new Gaussian W and new coins each).")
if m >= beta:
    best = optimal_k(ANGLE_THETA, epsilon, data.p, m, float(delta), beta)
    st.caption(f"**How many bits k (§4.1.2), a trend only.** For DP-SignRP-RR at ε = {epsilon:g} (θ = π/3, p = "
               f"{data.p}, m = {m:g}, β = {beta:g}), the variance V_RR(θ, ε/N₊)/k is smallest at k = {best.exact}. "
               f"The paper's k* = εθ(π−θ)/F gives {best.paper:.0f}, but it does not follow from its own expansion: "
               f"the two leading terms give ε√(θ(π−θ)/2)/(πF) = {best.two_term:.0f}, and eq. 27's log(1/δ) slack "
               "makes the exact minimiser smaller still. All grow like ε/F.")
else:
    st.caption("**How many bits k (§4.1.2).** The k that minimises the angle variance of DP-SignRP-RR depends on the "
               "public norm bound m: set m ≥ β above to see it.")

with st.expander(f"Where the code departs from the paper's print ({len(PAPER_CORRECTIONS)} slips corrected)"):
    st.markdown("\n".join(f"- **{c.where}.** The paper prints {c.printed}; the code uses {c.code}: {c.why}."
                          for c in PAPER_CORRECTIONS))

st.subheader("Attacker's view")
st.markdown(
    "What the guarantee protects is **one attribute of one vector**: somebody who knows every other coordinate "
    "of a vector tries to tell which of two values β apart one coordinate holds (covered: the guarantee bounds "
    "every such attacker). A whole row is not protected: somebody who holds the original rows can try to "
    "**link** each release to its row (not covered). Smaller ε = more noise = more privacy; larger ε = less."
)


def attack_frontier(attacked, curves) -> None:
    """Attack success against precision through ε (`attacks.attack_utility_frontier`): the attacked
    mechanism's line from results the page already holds (its attack across ε and the sweep), the other
    chosen mechanisms' on request (their exact laws: the sign ones import scipy.stats, about half a second)."""
    others = [name for name in names if name != attacked]
    others_seconds = sum(attacks.attribute_curve_seconds(name, p=data.p, k=int(k)) for name in others)
    frontier_work = ("frontier", tuple(others), float(delta), dataset, p_value, int(k), beta, seed,
                     tuple(sorted(specific.items())))
    drawn = [curves]
    if others and frontier_work in st.session_state.get("rp_frontier_requested", set()):
        try:
            drawn += [cached_attack_curves(name, float(delta), dataset, p_value,
                                           attack_parameters(name, k, beta, seed, specific), seed, False, data)
                      for name in others]
        except ValueError as exc:
            st.error(str(exc))
    exact = all(c.attribute_exact for c in drawn)
    chart(frontier_chart(
        attacks.attack_utility_frontier(result, drawn), x_title=f"{metric} (the retrieval sweep above)",
        y_title="attribute guessed right (prior ½)", baseline=attacks.PRIOR,
        baseline_name="guessing without the release",
        title="Attack success against retrieval quality, through ε"), key="rp_attack_frontier")
    st.caption(
        "Each point is one ε of the grid: its precision from the sweep above, and how often the best attacker "
        + ("guesses one attribute right (exact)" if exact else "guesses one attribute right (DP-RP-L: simulated)")
        + ". Smaller ε sits lower and further left: more privacy, less precision. Where one mechanism's line runs "
          "to the right of another's at the same height, it gives more precision for the same attack success.")
    if others and len(drawn) == 1:
        st.button(f"Add the other {len(others)} chosen mechanism{'s' if len(others) > 1 else ''} to this chart "
                  f"({'under a second' if others_seconds < 1 else 'about ' + duration(others_seconds)})",
                  key="rp_frontier_run", on_click=ui.request,
                  args=("rp_frontier_requested", frontier_work),
                  help="Their attribute attacks across ε, from their exact output laws (a line each).")


def attackers_view() -> None:
    """The attacker's view of the mechanism chosen in it; an error ends the section, not the page."""
    attacked = st.selectbox("Mechanism attacked", names, format_func=lambda n: MECHANISMS[n].label,
                            key="rp_attack_mechanism", help="One of the mechanisms chosen above.")
    attack_params = attack_parameters(attacked, k, beta, seed, specific)
    attack_label = MECHANISMS[attacked].label
    try:
        attribute_seconds = attacks.attack_seconds(attacked, p=data.p, k=int(k))
        attribute_work = ("attribute", attacked, epsilon, float(delta), data.p, attack_params, seed)
        attribute = None
        if ui.runs_now(attribute_seconds, attribute_work, "rp_attack_requested"):
            attribute = cached_attribute_attack(attacked, epsilon, float(delta), data.p, attack_params, seed)
        curves = cached_attack_curves(attacked, float(delta), dataset, p_value, attack_params, seed, False, data)
    except ValueError as exc:
        st.error(str(exc))
        return
    left, right = st.container(), st.container()  # one chart per row: side by side, 1024 px cut their axis titles
    with left:
        if attribute is not None:
            chart(tradeoff_chart(attribute.bound, attacks={"likelihood-ratio attack (measured, held out)":
                                                           attribute.measured},
                                 exact=attribute.exact, title=f"Attribute inference at ε = {epsilon:g}"),
                  key="rp_attack_tradeoff")
            st.markdown(attribute.sentence)
            st.caption(
                "The shaded region is what the guarantee forbids: no test on one release gets there. "
                + ("The dashed line is this pair's exact curve (the likelihood-ratio test on the bits whose law differs "
                   "between the two values); " if attribute.informative_bits is not None else
                   "The exact curve of a Gaussian release is G_μ with μ = β‖W_i‖/(√k σ): for the attribute of the largest "
                   "row norm it is the guarantee's own curve; " if attribute.mu is not None else "")
                + f"the coloured line is the attack run on {2 * attribute.measured.releases:,} fresh releases, its "
                  f"threshold chosen on half of them and counted on the other half (AUC {attribute.measured.auc:.3f} ± "
                  f"{2 * attribute.measured.auc_standard_error:.3f}).")
        else:
            st.info(f"The attribute attack draws {2 * attacks.DEFAULT_RELEASES:,} releases of {attack_label}, about "
                    f"{duration(attribute_seconds)} here, so it runs only when you ask.", icon=":material/schedule:")
            st.button(f"Run the attribute attack (about {duration(attribute_seconds)})", key="rp_attack_run",
                      on_click=ui.request, args=("rp_attack_requested", attribute_work))
    with right:
        bound = curves.attribute_bound if np.all(np.isfinite(curves.attribute_bound)) else None
        measured_label = "the attribute attacker (exact)" if curves.attribute_exact else "the attribute attacker (measured)"
        chart(figures.mark_epsilon(attack_vs_epsilon_chart(
            curves.epsilons, {measured_label: (curves.attribute_success,
                                               None if curves.attribute_exact else curves.attribute_standard_error)},
            bound=bound, baseline=attacks.PRIOR, y_title="guessed right (prior ½)",
            title=f"Attribute inference against ε, {attack_label}", baseline_name="guessing without the release"),
            epsilon), key="rp_attack_epsilon")
        st.caption("How often the best attacker guesses the attribute right against ε, beside the guarantee's limit and "
                   "the 50 % of guessing blind" + ("" if bound is not None else " (no guarantee: no limit drawn)")
                   + ". Read it with the retrieval chart above: the ε that keeps this low is the ε whose precision you "
                     "pay.")
    attack_frontier(attacked, curves)
    target = st.number_input("Attack success you accept (guessing the attribute right)", min_value=0.0, max_value=1.0,
                             step=0.01, key="rp_attack_target",
                             help="A probability: 0.5 is guessing blind, 1 is always right.")
    st.markdown(attacks.largest_epsilon_under(float(target), curves, "attribute").sentence)

    candidates = data.n_db + data.n_queries
    linkage_seconds = attacks.attack_seconds(attacked, p=data.p, k=int(k), epsilons=len(EPSILONS) + 1, releases=0,
                                             candidates=candidates, targets=min(attacks.DEFAULT_TARGETS, candidates))
    linkage_work = ("linkage", attacked, epsilon, float(delta), dataset, p_value, attack_params, seed)
    if ui.runs_now(linkage_seconds, linkage_work, "rp_linkage_requested"):
        try:
            linkage = cached_linkage(attacked, epsilon, float(delta), dataset, p_value, attack_params, seed, data)
            linkage_curves = cached_attack_curves(attacked, float(delta), dataset, p_value, attack_params, seed, True, data)
        except ValueError as exc:
            st.error(str(exc))
            return
        st.markdown(linkage.sentence)
        chart(figures.mark_epsilon(attack_vs_epsilon_chart(
            linkage_curves.epsilons, {"linkage (measured)": (linkage_curves.linkage_success,
                                                             linkage_curves.linkage_standard_error)},
            baseline=linkage_curves.linkage_chance, y_title="linked to the right row",
            title=f"Record linkage against ε, {attack_label} (not covered by the guarantee)",
            baseline_name="guessing a row"), epsilon), key="rp_linkage_epsilon")
        st.caption(f"{linkage.targets:,} released rows matched to the nearest of the {linkage.candidates:,} original rows' "
                   "projections (Hamming distance for bits), ± 2 SE. No guarantee bounds this line: the per-attribute ε "
                   "stays the same while whole rows become easy to link.")
        linkage_target = st.number_input("Linkage success you accept", min_value=0.0, max_value=1.0, step=0.01,
                                         key="rp_linkage_target")
        st.markdown(attacks.largest_epsilon_under(float(linkage_target), linkage_curves, "linkage").sentence)
    else:
        st.info(f"The linkage attack releases {min(attacks.DEFAULT_TARGETS, candidates):,} rows and matches each to the "
                f"nearest of {candidates:,} at {len(EPSILONS) + 1} values of ε, about {duration(linkage_seconds)} here, so "
                "it runs only when you ask.", icon=":material/schedule:")
        st.button(f"Run the linkage attack across ε (about {duration(linkage_seconds)})", key="rp_linkage_run",
                  on_click=ui.request, args=("rp_linkage_requested", linkage_work))


attackers_view()

# the file is written when asked for (a callable): not on every run of the page
st.download_button("Sweep results (JSON)", lambda: json.dumps(rp_sweep.report_dict(result), indent=2),
                   file_name="random-projections-sweep.json", mime="application/json", key="rp_download")
st.caption(f"Guarantees in the table are per vector; releasing the same vector again spends its budget again. "
           f"Data: {data.description}")

take_home.panel(SETTINGS, values, numbers(result, epsilon), charts, KEYS, PROTECTS)
