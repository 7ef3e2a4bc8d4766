"""Page "What ε means" (Overview section): ε as a bound on any attacker, for a guarantee the user types.

Every number comes from privlib: the attack terms of the typed guarantee from
`privlib.core.risk.attack_terms` (the numbers `python -m privlib bounds` prints), its trade-off curve
drawn by `privlib.presentation.risk.tradeoff_chart`, group privacy by `group_guarantee`, and the audit
of a mechanism of any topic by that topic's `privlib.<topic>.audit.audit_mechanism` (what
`python -m privlib audit` runs), on request: an audit runs its mechanism thousands of times.
Sources: Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022; Kulynych et al. 2024; Jagielski,
Ullman & Oprea 2020, Nasr et al. 2021 (auditing). Its settings, link, script and report:
`privlib.analyses.what_epsilon_means` through `epsilon_lab.take_home` (issue 24).
"""
import math

import numpy as np
import streamlit as st

from epsilon_lab import take_home, ui

#: The four topics (the keys of `privlib.analyses.what_epsilon_means.AUDIT_MODULES`, the CLI's ``audit --topic``
#: spelling) → (title, the topic's page, what changes between two neighbouring inputs). The unit of protection is
#: the audit module's own ``UNIT_OF_PROTECTION`` (`unit_of_protection`).
TOPICS = {
    "words": ("Word-level text", "neighbour_ranks.py",
              "one word of a text replaced by another (priced by their distance: ε·d)"),
    "projections": ("Random projections", "random_projections.py", "one coordinate of one data vector changed by up to β"),
    "label-dp": ("Label DP", "label_dp.py", "the label of one training example changed (its features are public)"),
    "erm": ("Private learning", "private_learning.py", "one person's record replaced by another"),
}
#: Session sets of the audits the user asked for (`ui.request`), and of those asked for despite a long estimate.
AUDIT_REQUESTED, AUDIT_LONG_REQUESTED = "wem_audit_requested", "wem_audit_long_requested"
#: Where a link's or a settings file's audit mechanism waits until the page knows its topic (each topic has its own
#: mechanism picker, f"wem_audit_mechanism.{topic}").
RESTORED_MECHANISM = "wem_audit_mechanism_restored"
#: The audit's δ when an (ε, δ) mechanism is first chosen.
AUDIT_DELTA = 1e-5


def share(value: float) -> str:
    """A probability as a metric shows it, to 4 significant figures as `python -m privlib bounds` prints
    it: "46.21 %"."""
    return f"{100 * value:.4g} %"


@st.cache_data(show_spinner=False, max_entries=16)
def cached_audit(topic, name, epsilon, delta, parameters, releases, seed, allow_long):
    """(the `AuditResult`, None, None), or (None, the library's message, the estimate in seconds of a
    long audit refused without ``allow_long`` — else None) when it refuses (a long audit, a parameter
    it cannot take, a mechanism without a claim)."""
    from privlib.core.validation import LongWorkRefused

    module = AUDIT_MODULES[topic]
    try:
        return ui.with_progress_bar(f"Auditing {module.MECHANISMS[name].label}:", lambda progress: (
            module.audit_mechanism(name, epsilon=epsilon, delta=delta, releases=releases, seed=seed,
                                   confidence=AUDIT_CONFIDENCE, progress=progress, allow_long=allow_long,
                                   parameters=dict(parameters)), None, None))
    except LongWorkRefused as exc:
        return None, str(exc), exc.seconds
    except ValueError as exc:
        return None, str(exc), None


ui.start_page()
st.title("What ε means")
st.markdown(
    "A differential-privacy guarantee is a promise about **every possible attacker**, however much they "
    "know: somebody who knows everything about the data except one person's part (the *unit of "
    "protection*) sees the output and must tell which of two neighbouring inputs it came from. The "
    "guarantee caps how well any such test can do. Type a guarantee below to see that cap in numbers: "
    "how often an attacker can be right, how sure one output can make them, and what δ means for people."
)
st.info("**Smaller ε, δ or μ = more privacy** (more noise, a lower cap on every attacker); larger = less "
        "privacy (more useful results).", icon="🔒")

# Imported after the text: it is on screen while the topics' registries (the audit's settings), scipy and Plotly load.
from privlib.analyses.what_epsilon_means import (
    AUDIT_CONFIDENCE,
    AUDIT_MODULES,
    AUDIT_PARAMETER_SETTINGS,
    DEFAULT_MU,
    GDP_DELTA_EPSILONS,
    GUARANTEE_KINDS,
    PROTECTS,
    RELEASE_CHOICES,
    SETTINGS,
    audit_parameters,
    numbers,
    topic_of,
    unit_of_protection,
)

#: The widget key of each setting (`privlib.analyses.what_epsilon_means.SETTINGS`); a mechanism parameter's is
#: `ui.parameter_controls`' key under its topic and mechanism.
KEYS = {**{name: f"wem_{name.replace('.', '_')}" for name in (
    "kind", "epsilon", "delta", "mu", "prior", "people", "candidates", "group", "log_fpr", "audit.topic",
    "audit.epsilon", "audit.delta", "audit.releases", "audit.seed")},
    "audit.mechanism": RESTORED_MECHANISM,
    **{s.name: "wem_audit.{}.{}".format(topic_of(s.name.split(".")[1]), s.name.split(".", 1)[1])
       for s in AUDIT_PARAMETER_SETTINGS}}
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets
for name in ("epsilon", "delta", "mu", "audit.delta"):  # a number the restored view does not use (None): the default
    if st.session_state.get(KEYS[name], 0.0) is None:
        del st.session_state[KEYS[name]]
defaults = {**SETTINGS.defaults(), "mu": DEFAULT_MU, "audit.delta": AUDIT_DELTA}  # a widget never starts empty
parameter_names = {s.name for s in AUDIT_PARAMETER_SETTINGS}  # `ui.parameter_controls` sets their defaults
for name, key in KEYS.items():  # widgets take their value from their state: a restored setting stays
    if name != "audit.mechanism" and name not in parameter_names:
        st.session_state.setdefault(key, defaults[name])
restored_mechanism = st.session_state.pop(RESTORED_MECHANISM, None)
if restored_mechanism is not None:
    restored_topic = topic_of(restored_mechanism)
    if restored_topic != st.session_state[KEYS["audit.topic"]]:  # the mechanism says its topic
        st.warning(f"The audit's mechanism {restored_mechanism} is one of {TOPICS[restored_topic][0]}: the audit's "
                   f"topic is {TOPICS[restored_topic][0]}.", icon="⚠️")
        st.session_state[KEYS["audit.topic"]] = restored_topic
    st.session_state[f"wem_audit_mechanism.{restored_topic}"] = restored_mechanism
audit_topic = st.session_state[KEYS["audit.topic"]]
audit_name = st.session_state.setdefault(f"wem_audit_mechanism.{audit_topic}",
                                         next(iter(AUDIT_MODULES[audit_topic].MECHANISMS)))

# ---------------------------------------------------------------------------------------------
# the typed guarantee
st.header("A guarantee as a limit on attackers")
kind = st.radio("Kind of guarantee", list(GUARANTEE_KINDS), format_func=GUARANTEE_KINDS.get, horizontal=True,
                key="wem_kind", help="μ-GDP (Gaussian DP) describes exactly the mechanisms that add Gaussian "
                                     "noise to their data; use (ε, δ) for the others.")
first, second, third = st.columns(3)
epsilon = delta = mu = 0.0
if kind == "gdp":
    mu = first.number_input("μ (mu)", step=0.1, format="%.6g", key="wem_mu",
                            help="μ = sensitivity / σ of a Gaussian mechanism. Smaller μ = more privacy.")
else:
    epsilon = first.number_input("ε (epsilon)", step=0.1, format="%.6g", key="wem_epsilon", help=ui.EPSILON_HELP)
    delta = second.number_input("δ (delta)", step=1e-6, format="%.6g", key="wem_delta",
                                help="0: pure ε-DP. " + ui.DELTA_HELP)
prior = third.number_input("Prior: the attacker's belief before", min_value=0.001, max_value=0.999,
                           step=0.05, format="%.6g", key="wem_prior",
                           help="How sure the attacker is, before seeing the output, that the input was x "
                                "rather than x′ (0.5: no idea).")
fourth, fifth, sixth = st.columns(3)
people = int(fourth.number_input("People in the data (n)", min_value=1, step=1, key="wem_people",
                                 help="For δ: n·δ is how many people the guarantee may fail for."))
candidates = int(fifth.number_input("Candidates (k)", min_value=2, step=1, key="wem_candidates",
                                    help="An attacker who must name the right one of k candidates (every two "
                                         "neighbours), guessing 1/k without the output."))
group = int(sixth.number_input("Changed units (group)", min_value=1, step=1, key="wem_group",
                               help="Group privacy: k units (words, labels, records) changed together."))

from privlib.core.risk import (
    DPCurve,
    GDPCurve,
    attack_terms,
    group_guarantee,
    stated_guarantee,
    tradeoff_curve,
)
from privlib.core.validation import duration
from privlib.presentation.risk import tradeoff_chart

try:
    guarantee = stated_guarantee(**({"mu": mu} if kind == "gdp" else {"epsilon": epsilon, "delta": delta}))
    terms = attack_terms(guarantee, prior=prior, candidates=candidates, people=people)
except ValueError as exc:  # a δ ≥ 1, a negative ε, …: the library says what a valid value is
    st.error(f"{exc}", icon="⚠️")
    st.stop()
curve = tradeoff_curve(guarantee)

# The audit's controls are drawn further down: their values from their state (a link may have set them)
audit_class = AUDIT_MODULES[audit_topic].MECHANISMS[audit_name]
values = {"kind": kind, "epsilon": None if kind == "gdp" else float(epsilon),
          "delta": None if kind == "gdp" else float(delta), "mu": float(mu) if kind == "gdp" else None,
          "prior": float(prior), "people": people, "candidates": candidates, "group": group,
          **{name: st.session_state[KEYS[name]] for name in ("log_fpr", "audit.topic", "audit.epsilon",
                                                              "audit.releases", "audit.seed")},
          "audit.mechanism": audit_name,
          "audit.delta": st.session_state[KEYS["audit.delta"]] if audit_class.USES_DELTA else None,
          **{s.name: st.session_state.get(KEYS[s.name], s.default) for s in AUDIT_PARAMETER_SETTINGS}}
take_home.share(SETTINGS, values)
charts = []  # the page's figures, in order: the report draws them again

tpr = {point["fpr"]: point["tpr"] for point in terms["tpr_at_fpr"]}
reidentification = terms["reidentification"]
row = st.columns(3)
row[0].metric("Maximal advantage", share(terms["advantage"]), help=(
    f"{terms['advantage']:.6g}: the largest TPR − FPR of any test, how far it rises above guessing (0: not at all, "
    "100 %: it always tells the two inputs apart)."))
row[1].metric("TPR at FPR 1 %", share(tpr[0.01]), help=(
    f"{tpr[0.01]:.6g}: the largest share of true positives a test can have while wrongly accusing 1 % of "
    "the other input."))
row[2].metric("TPR at FPR 0.1 %", share(tpr[0.001]), help=f"{tpr[0.001]:.6g}: the same at 0.1 %.")
row = st.columns(3)
row[0].metric("Right between two inputs", share(terms["guessing_chance"]), help=(
    f"{terms['guessing_chance']:.6g}: the best chance of naming the right one of the two inputs, on average "
    f"over outputs, for the prior {prior:g} (guessing alone: {share(max(prior, 1 - prior))})."))
row[1].metric(f"Naming 1 of {candidates:,}", share(reidentification["bound"]), help=(
    f"{reidentification['bound']:.6g}: the best chance of naming the right one of {candidates:,} candidates, "
    f"every two of them neighbours ({reidentification['method']}); guessing without the output: "
    f"1/{candidates:,} = {share(reidentification['prior'])}."))
loss = terms["privacy_loss"]
row[2].metric("Privacy loss of one output", "unbounded" if loss is None else f"≤ {loss:.6g}", help=(
    "max |ln P(output | x)/P(output | x′)|: bounded by ε for pure ε-DP; with δ > 0 or μ-GDP a rare "
    "output can reveal more."))
st.markdown(f"**What one output does to a belief.** {terms['sentence']}")

log_fpr = st.toggle("Log false-positive rate (where the attacks that matter live: 1 %, 0.1 %)", key="wem_log_fpr")
charts.append(tradeoff_chart(curve, log_fpr=log_fpr, title=f"What any attacker can achieve at most: {curve.label}"))
st.plotly_chart(charts[-1], key="wem_tradeoff")
st.caption(
    f"Each test an attacker could run is a point: how often it wrongly says “x” (x axis) against how often it "
    f"rightly says “x” (y axis). The guarantee puts every test on or under the black line; the shaded region "
    f"is out of reach and the dotted diagonal is guessing. At a false-positive rate of 1 % no test finds more "
    f"than {share(tpr[0.01])} of the true cases. Smaller ε, δ or μ pulls the line down to the diagonal.")

st.subheader("δ for people")
gdp_deltas = None
if kind == "gdp":
    gdp_deltas = dict(zip(GDP_DELTA_EPSILONS, GDPCurve(mu).delta(np.array(GDP_DELTA_EPSILONS))))
    st.markdown("μ-GDP has no single δ: it is (ε, δ(ε))-DP for every ε at once — "
                + ", ".join(f"δ({e:g}) = {d:.3g}" for e, d in gdp_deltas.items())
                + ". The sentence above gives how likely one output moves a belief past a level.")
elif terms["delta_for_people"] is None:
    st.markdown("δ = 0: the ε guarantee holds for every output, with no exception.")
else:
    people_terms = terms["delta_for_people"]
    (st.warning if people_terms["warning"] else st.markdown)(people_terms["sentence"])

st.subheader("Groups: several units changed together")
grouped = group_guarantee(guarantee, group)
group_terms = attack_terms(grouped, prior=prior)
if not group_terms["private"]:  # δ reached 1
    st.warning(f"For {group:,} changed units: {grouped.text}. δ reaches 1, so the guarantee says nothing about "
               "a group this large.")
else:
    st.markdown(f"For {group:,} changed units together the guarantee is {group_terms['curve_label']}: "
                f"maximal advantage {share(group_terms['advantage'])} (one unit: "
                f"{share(terms['advantage'])}). {group_terms['sentence']}")
st.caption("Group privacy: k changed units cost kε (pure ε), (kε, k·e^((k−1)ε)·δ) or kμ (μ-GDP). A text of "
           "several words, several labels of one person or several records of one family count as a group.")

# ---------------------------------------------------------------------------------------------
# the unit of protection of each topic
st.header("What one unit is, topic by topic")
st.markdown("The guarantee protects one **unit** — what differs between two neighbouring inputs. Each topic "
            "protects a different unit, so the same ε protects different things:")
header = st.columns([1.5, 1.5, 2.5])
for column, text in zip(header, ("**Topic**", "**Unit of protection**", "**Two neighbouring inputs differ in**")):
    column.markdown(text)
for topic_key, (title, page, change) in TOPICS.items():
    cells = st.columns([1.5, 1.5, 2.5], vertical_alignment="center")
    cells[0].page_link(ui.PAGES / page, label=title)
    cells[1].markdown(unit_of_protection(topic_key))
    cells[2].markdown(change)

# ---------------------------------------------------------------------------------------------
# the audit of a mechanism against its claim
st.header("Audit a mechanism against its claim")
st.markdown(
    "An audit runs a mechanism thousands of times on two neighbouring inputs, picks the best test it can on "
    "half the releases and counts its errors on the other half. The errors give a lower bound ε̂ on the "
    "mechanism's real ε, with 95 % confidence (Clopper–Pearson). ε̂ above the claim would prove the claim "
    "wrong; ε̂ below it only says that this audit found no stronger attack.")
controls = st.columns([1.2, 2])
topic = controls[0].selectbox("Topic", list(AUDIT_MODULES), format_func=lambda t: TOPICS[t][0], key="wem_audit_topic")
module = AUDIT_MODULES[topic]
names = list(module.MECHANISMS)
name = controls[1].selectbox("Mechanism", names, format_func=lambda n: module.MECHANISMS[n].label,
                             key=f"wem_audit_mechanism.{topic}")
cls = module.MECHANISMS[name]
settings = st.columns(4 if cls.USES_DELTA else 3)
audit_epsilon = settings[0].number_input("Claimed ε", min_value=0.0, step=0.1, format="%.6g", key="wem_audit_epsilon",
                                         help="The ε the mechanism is run with and claims. " + ui.EPSILON_HELP)
releases = settings[1].select_slider("Releases per input", RELEASE_CHOICES, key="wem_audit_releases",
                                     format_func=lambda v: f"{v:,}",
                                     help="More releases: a stronger audit (a higher ceiling), a longer wait.")
seed = ui.seed_input("wem_audit_seed", container=settings[2])
audit_delta = ui.delta_choice("wem_audit_delta", default=AUDIT_DELTA, container=settings[3]) if cls.USES_DELTA else None
controlled = audit_parameters(cls)  # a parameter without a default (a prior, the data dimension): the audit's choice
parameters = ()
if controlled:
    with st.expander(f"Parameters of {cls.label}"):
        parameters = ui.parameter_controls(controlled, key=f"wem_audit.{topic}.{name}")
st.caption(f"The pair audited: {module.UNIT_OF_PROTECTION}.")

work = (topic, name, float(audit_epsilon), audit_delta, parameters, int(releases), int(seed))
result = None
st.button("Run the audit", key="wem_audit_run", type="primary", on_click=ui.request, args=(AUDIT_REQUESTED, work),
          help="The audit's time is estimated from its first releases; one over the long-work limit is refused "
               "until you allow it.")
if work in st.session_state.get(AUDIT_REQUESTED, set()):
    allow_long = work in st.session_state.get(AUDIT_LONG_REQUESTED, set())
    result, refusal, long_seconds = cached_audit(*work, allow_long)
    if refusal is not None:
        st.warning(refusal.replace("pass allow_long=True to run it anyway", "run it anyway below")
                   if long_seconds is not None else refusal, icon="⚠️")
        if long_seconds is not None:
            st.button(f"Run it anyway (about {duration(long_seconds)})", key="wem_audit_long", on_click=ui.request,
                      args=(AUDIT_LONG_REQUESTED, work))
if result is not None:
    claimed = result.claimed_epsilon
    level = f"{100 * result.confidence:g} %"
    cells = st.columns(3)  # four in a row cut their labels at 1024 pixels
    if result.exact_loss is not None or result.mu is not None:
        cells.append(st.columns(3)[0])
    cells[0].metric(f"ε̂ ({level} lower bound)", f"{result.epsilon:.3g}", help=(
        f"{result.epsilon:.6g}: with {level} confidence the mechanism's ε on this pair is at least this "
        f"(Clopper–Pearson limits of the test's error rates, {result.counted:,} releases counted per input)."))
    cells[1].metric("Claimed ε", "none" if claimed is None else
                    ("no finite ε" if not math.isfinite(claimed) else f"{claimed:.3g}"),
                    help=f"{result.claim.text}" + ("" if claimed is None or not math.isfinite(claimed)
                                                    else f" — {claimed:.6g} for the pair audited."))
    cells[2].metric("Audit's ceiling", f"{result.ceiling:.3g}", help=(
        "The most any audit with this many releases counted could show, even with no error at all: a small ε̂ "
        "may mean a weak audit, not a strong guarantee."))
    if result.exact_loss is not None:
        cells[3].metric("Exact loss", "infinite" if math.isinf(result.exact_loss)
                        else f"{result.exact_loss:.3g}",
                        help="max |ln P(o | x)/P(o | x′)| over the outputs, from the mechanism's exact output law.")
    elif result.mu is not None:
        cells[3].metric(f"μ̂ ({level} lower bound)", f"{result.mu:.3g}",
                        help=f"{result.mu:.6g}, against the claimed μ = {result.claimed_mu:.4g} (an exactly "
                             "Gaussian mechanism: the μ test is far more powerful than the ε one).")
    if result.exceeds_claim:
        st.error("The audit found an attack stronger than the claim allows: at this confidence the mechanism does "
                 "not keep its guarantee (or its claim is wrong).", icon="🚨")
    else:
        st.success("The audit found no attack stronger than the claim allows; a small ε̂ may mean a weak audit, "
                   "not a strong guarantee.", icon="✅")
    st.caption(f"{result.summary()} Test: {result.score}. {2 * result.releases:,} releases in "
               f"{duration(result.seconds)}" + (f" (estimated {duration(result.estimated_seconds)})"
                                                if result.estimated_seconds is not None else "") + ".")
    if claimed is not None and math.isfinite(claimed):
        test = result.epsilon_test
        exact = result.curves[test.pair][0] if result.curves else None
        chart = tradeoff_chart(DPCurve(claimed, result.delta), exact=exact, log_fpr=log_fpr,
                               attacks={f"the audit's test ({level} limits)": ([test.alpha_upper],
                                                                               [1 - test.beta_upper])},
                               bound_name=f"the claim's limit (ε = {claimed:.3g})",
                               title=f"The audit's best test against the claim of {cls.label}")
        charts.append(chart)
        st.plotly_chart(chart, key="wem_audit_chart")
        st.caption(
            f"The point is the audit's test at its {level} confidence limits (false-positive rate at most "
            f"{test.alpha_upper:.3g}, true-positive rate at least {1 - test.beta_upper:.3g}): under the claim's "
            "line means within the claim" + ("; the dashed line is the pair's exact curve, the best any test "
                                             "can do on it" if exact is not None else "") + ".")

take_home.panel(SETTINGS, values, numbers(terms, group_terms, gdp_deltas), charts, KEYS, PROTECTS)
