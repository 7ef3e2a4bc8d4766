"""The "What ε means" page's analysis: its settings, its numbers and its code.

The page turns a guarantee the user types — ε-DP, (ε, δ)-DP or μ-GDP — into attack terms
(`privlib.core.risk.attack_terms`: what ``python -m privlib bounds`` prints; Kairouz, Oh & Viswanath
2015; Dong, Roth & Su 2022; Kulynych et al. 2024): its trade-off curve, the maximal advantage, TPR at
a low FPR, the chance of guessing right, the posterior sentence, δ for people and group privacy. That
is its main result and the script's. It also shows each topic's unit of protection (the topic audit
modules' ``UNIT_OF_PROTECTION``) and audits one mechanism of any topic against its claim
(``audit_mechanism`` of the topic's audit module; Jagielski, Ullman & Oprea 2020, Nasr et al. 2021):
on the page only when asked (a button), in the export as its last cell, marked as such.
"""
from __future__ import annotations

from types import SimpleNamespace

from privlib.analyses.code import code, markdown
from privlib.analyses.settings import PageSettings, Setting, parameter_settings
from privlib.core.audit import DEFAULT_RELEASES
from privlib.core.risk import MU_MAX
from privlib.core.validation import EPSILON_MAX
from privlib.erm import audit as erm_audit
from privlib.label_dp import audit as label_dp_audit
from privlib.projections import audit as projections_audit
from privlib.words import audit as words_audit

#: The kinds of guarantee a user types: key → label.
GUARANTEE_KINDS = {"dp": "ε-DP or (ε, δ)-DP", "gdp": "μ-GDP"}
#: μ when the user first switches to μ-GDP (the default view is ε-DP, whose μ is none).
DEFAULT_MU = 1.0
#: The ε at which a μ-GDP guarantee's δ(ε) is shown (μ-GDP has no single δ).
GDP_DELTA_EPSILONS = (1.0, 2.0, 5.0)
#: The four topics' audit modules (each has ``audit_mechanism``, ``MECHANISMS`` and ``UNIT_OF_PROTECTION``), by the
#: ``audit --topic`` spelling: the one table of the page's audit and of the ``audit`` command (privlib.cli.audit).
AUDIT_MODULES = {"words": words_audit, "projections": projections_audit, "label-dp": label_dp_audit,
                 "erm": erm_audit}
#: Each topic's name for people.
TOPIC_TITLES = {"words": "word-level text", "projections": "random projections", "label-dp": "label DP",
                "erm": "private learning"}
#: The topic the audit opens with: label DP's randomised response audits in a fraction of a second.
AUDIT_DEFAULT_TOPIC = "label-dp"
#: Releases per input the audit offers (half choose the test, half are counted).
RELEASE_CHOICES = (1_000, 2_000, 5_000, DEFAULT_RELEASES, 20_000, 50_000, 100_000)
#: The confidence of the audit's lower bound (the ``audit`` command's default).
AUDIT_CONFIDENCE = 0.95
#: The largest seed (as every seed input of the app).
MAX_SEED = 2**31 - 1


def audit_parameters(mechanism) -> dict:
    """The parameters of ``mechanism`` (a class of a topic's registry) that the page's audit lets the user set:
    those with a default. A parameter without one (RRWithPrior's prior, a projection's data dimension) is the
    audit's own choice, made for its neighbouring pair."""
    return {name: p for name, p in mechanism.PARAMETERS.items() if p.default is not None}


def topic_of(mechanism: str) -> str:
    """The topic (a key of `AUDIT_MODULES`) whose registry holds ``mechanism``; ValueError for none."""
    for topic, module in AUDIT_MODULES.items():
        if mechanism in module.MECHANISMS:
            return topic
    raise ValueError(f"No topic has a mechanism {mechanism!r}.")


def unit_of_protection(topic: str) -> str:
    """The topic's unit of protection in a few words: its audit module's ``UNIT_OF_PROTECTION`` ("<unit>: <the
    pair audited>") up to the colon."""
    return AUDIT_MODULES[topic].UNIT_OF_PROTECTION.split(":", 1)[0]


#: The audit's mechanism parameters as settings, named "audit.<mechanism>.<parameter>" (mechanism names are unique
#: across the four topics: `topic_of`).
AUDIT_PARAMETER_SETTINGS = tuple(
    setting for module in AUDIT_MODULES.values()
    for setting in parameter_settings({name: SimpleNamespace(PARAMETERS=audit_parameters(cls))
                                       for name, cls in module.MECHANISMS.items()}, prefix="audit."))

#: The page's settings. The guarantee's are the names of `bounds`' options (epsilon, delta, mu, prior, candidates,
#: people); the guarantee's numbers it does not use are None (ε and δ for μ-GDP, μ for ε-DP), so that the settings
#: file gives `bounds` one guarantee. The page's own: the kind (the radio), the group size, the chart's axis, and the
#: audit's controls ("audit.…", the ``audit`` command's options): the audit runs on request.
SETTINGS = PageSettings("what_epsilon_means", "What ε means", command="bounds", settings=(
    Setting("kind", "dp", "choice", choices=tuple(GUARANTEE_KINDS), label="Kind of guarantee",
            help="dp: ε-DP or (ε, δ)-DP; gdp: μ-GDP (for exactly Gaussian mechanisms)."),
    Setting("epsilon", 1.0, "float", low=0.0, high=EPSILON_MAX, optional=True, label="ε (epsilon)",
            help="ε of ε-DP or (ε, δ)-DP; none for μ-GDP. Smaller = more privacy."),
    Setting("delta", 0.0, "float", low=0.0, high=1.0, optional=True, label="δ (delta)",
            help="δ of (ε, δ)-DP (0: pure ε-DP; below 1); none for μ-GDP."),
    Setting("mu", None, "float", low=0.0, high=MU_MAX, optional=True, label="μ (mu)",
            help="μ of μ-GDP; none for ε-DP or (ε, δ)-DP. Smaller = more privacy."),
    Setting("prior", 0.5, "float", low=0.001, high=0.999, label="Prior: the attacker's belief before"),
    Setting("people", 10_000, "int", low=1, label="People in the data (n)"),
    Setting("candidates", 10, "int", low=2, label="Candidates (k)"),
    Setting("group", 2, "int", low=1, label="Changed units (group)"),
    Setting("log_fpr", True, "bool", label="Log false-positive rate"),
    Setting("audit.topic", AUDIT_DEFAULT_TOPIC, "choice", choices=tuple(AUDIT_MODULES), label="Audit: topic"),
    Setting("audit.mechanism", next(iter(AUDIT_MODULES[AUDIT_DEFAULT_TOPIC].MECHANISMS)), "choice",
            choices=tuple(name for module in AUDIT_MODULES.values() for name in module.MECHANISMS),
            label="Audit: mechanism", help="A mechanism of the audit's topic."),
    Setting("audit.epsilon", 1.0, "float", low=0.0, high=EPSILON_MAX, label="Audit: claimed ε"),
    Setting("audit.delta", None, "float", low=0.0, high=1.0, optional=True, label="Audit: δ",
            help="The δ of an (ε, δ)-DP mechanism; none for the others."),
    Setting("audit.releases", DEFAULT_RELEASES, "choice", choices=RELEASE_CHOICES, label="Audit: releases per input"),
    Setting("audit.seed", 0, "int", low=0, high=MAX_SEED, label="Audit: seed"),
    *AUDIT_PARAMETER_SETTINGS,
))

#: What ε protects on this page (the report says it): one unit, whatever it is on each topic.
PROTECTS = ("One unit — whatever differs between two neighbouring inputs: "
            + "; ".join(f"{unit_of_protection(topic)} in {TOPIC_TITLES[topic]}" for topic in AUDIT_MODULES)
            + ". The guarantee caps how well any attacker can tell two inputs that differ in one unit apart.")


def audit_mechanism_parameters(values) -> dict:
    """The audited mechanism's parameters (parameter → value) in ``values`` (see `SETTINGS`)."""
    name = values["audit.mechanism"]
    cls = AUDIT_MODULES[topic_of(name)].MECHANISMS[name]
    return {pname: values[f"audit.{name}.{pname}"] for pname in audit_parameters(cls)}


def numbers(terms, group_terms, gdp_deltas=None) -> dict:
    """The numbers the page shows for the typed guarantee: ``terms`` (`attack_terms` of the guarantee with the
    prior, candidates and people), ``group_terms`` (`attack_terms` of its `group_guarantee` at the prior) and, for
    μ-GDP, ``gdp_deltas`` (ε → δ(ε) of the μ-GDP curve). Probabilities as floats, sentences as text."""
    found = {"guarantee": terms["guarantee"]["text"], "maximal advantage": float(terms["advantage"])}
    for point in terms["tpr_at_fpr"]:
        found[f"TPR at FPR {point['fpr']:g}"] = float(point["tpr"])
    found[f"right between two inputs (prior {terms['prior']:g})"] = float(terms["guessing_chance"])
    reidentification = terms["reidentification"]
    if reidentification is not None:
        k = reidentification["candidates"]
        found[f"naming 1 of {k}"] = float(reidentification["bound"])
        found[f"naming 1 of {k}, guessing"] = float(reidentification["prior"])
    loss = terms["privacy_loss"]
    found["privacy loss of one output"] = "unbounded" if loss is None else float(loss)
    found["what one output does to a belief"] = terms["sentence"]
    people = terms["delta_for_people"]
    if people is not None:
        found["δ for people, people expected"] = float(people["expected_people"])
        found["δ for people"] = people["sentence"]
    for epsilon, delta in dict(gdp_deltas or {}).items():
        found[f"δ(ε = {epsilon:g}) of μ-GDP"] = float(delta)
    found["group, guarantee"] = group_terms["guarantee"]["text"]
    if group_terms["private"]:
        found["group, maximal advantage"] = float(group_terms["advantage"])
        found["group, what one output does to a belief"] = group_terms["sentence"]
    return found


def cells(values) -> list:
    """The page's analysis at ``values`` (see `SETTINGS`) as cells of code and text; the audit last, marked (on the
    page it runs on request)."""
    v = SETTINGS.check(values)
    gdp = v["kind"] == "gdp"
    mu = DEFAULT_MU if v["mu"] is None else v["mu"]
    epsilon = 1.0 if v["epsilon"] is None else v["epsilon"]
    delta = v["delta"] or 0.0
    settings_lines = (f"mu = {mu!r}" if gdp else f"epsilon = {epsilon!r}\ndelta = {delta!r}")
    guarantee_call = "stated_guarantee(mu=mu)" if gdp else "stated_guarantee(epsilon=epsilon, delta=delta)"
    gdp_cell = (f"""
# μ-GDP has no single δ: it is (ε, δ(ε))-DP for every ε at once
gdp_deltas = dict(zip({GDP_DELTA_EPSILONS!r}, GDPCurve(mu).delta(np.array({GDP_DELTA_EPSILONS!r}))))""" if gdp else """
gdp_deltas = None  # a μ-GDP guarantee's δ(ε) only""")
    return [
        markdown(f"""
# What ε means — from Epsilon Lab
A differential-privacy guarantee is a promise about every possible attacker: somebody who knows everything about
the data except one unit sees the output and must tell which of two neighbouring inputs it came from. The guarantee
caps how well any such test can do. Below: that cap in numbers for the guarantee typed on the page (Kairouz, Oh &
Viswanath 2015; Dong, Roth & Su 2022; Kulynych et al. 2024). Smaller ε, δ or μ = more privacy.

What ε protects: {PROTECTS}"""),
        code("""
import math

import numpy as np

from privlib.analyses.code import print_numbers, save_charts
from privlib.analyses.what_epsilon_means import AUDIT_MODULES, numbers, unit_of_protection
from privlib.core.risk import DPCurve, GDPCurve, attack_terms, group_guarantee, stated_guarantee, tradeoff_curve
from privlib.presentation.risk import tradeoff_chart"""),
        code(f"""
# The page's settings (smaller ε, δ or μ = more privacy)
{settings_lines}
prior = {v['prior']!r}  # the attacker's belief in x before the output
candidates = {v['candidates']!r}  # k candidates to name one of
people = {v['people']!r}  # n people in the data: δ as n·δ people
group = {v['group']!r}  # units changed together (group privacy)
log_fpr = {v['log_fpr']!r}"""),
        markdown("## The guarantee as a limit on attackers"),
        code(f"""
guarantee = {guarantee_call}
terms = attack_terms(guarantee, prior=prior, candidates=candidates, people=people)  # what `privlib bounds` prints
print(terms["sentence"])
curve = tradeoff_curve(guarantee)
chart = tradeoff_chart(curve, log_fpr=log_fpr, title=f"What any attacker can achieve at most: {{curve.label}}")
chart"""),
        markdown("## δ for people, and groups: several units changed together"),
        code(f"""{gdp_cell.strip(chr(10))}
grouped = group_guarantee(guarantee, group)  # kε, (kε, k·e^((k−1)ε)·δ) or kμ
group_terms = attack_terms(grouped, prior=prior)
print(f"For {{group:,}} changed units: {{grouped.text}}")"""),
        markdown("## What one unit is, topic by topic"),
        code("""
for topic, module in AUDIT_MODULES.items():
    print(f"{topic} protects {unit_of_protection(topic)} — the pair audited is {module.UNIT_OF_PROTECTION}")"""),
        markdown("## The numbers (the page's)"),
        code("""
print_numbers(numbers(terms, group_terms, gdp_deltas))
save_charts("what-epsilon-means-charts.html", [chart], title="What ε means")"""),
        *audit_cells(v),
    ]


def audit_cells(v) -> list:
    """The audit of the chosen mechanism at the settings ``v`` (checked), as the export's last cells, marked: on the
    page it runs only when asked."""
    name = v["audit.mechanism"]
    topic = topic_of(name)
    module = AUDIT_MODULES[topic]
    cls = module.MECHANISMS[name]
    delta = v["audit.delta"] if cls.USES_DELTA else None
    parameters = audit_mechanism_parameters(v)
    module_name = module.__name__
    return [
        markdown(f"""
## Audit a mechanism against its claim — on request on the page
On the page this runs only when you press *Run the audit*: it runs {cls.label} {2 * v['audit.releases']:,} times on
its topic's two neighbouring inputs, chooses a test on half the releases and counts its errors on the other half: a
{100 * AUDIT_CONFIDENCE:g} % lower bound ε̂ on the mechanism's real ε (Clopper–Pearson). The pair:
{module.UNIT_OF_PROTECTION}.
An audit estimated above the long-work limit is refused with its estimate: set `allow_long = True` to run it anyway.
This cell prints no numbers of the page's table."""),
        code(f"""
from {module_name} import audit_mechanism

allow_long = False
audit = audit_mechanism({name!r}, epsilon={v['audit.epsilon']!r}, delta={delta!r}, releases={v['audit.releases']!r},
                        seed={v['audit.seed']!r}, confidence={AUDIT_CONFIDENCE!r}, allow_long=allow_long,
                        parameters={parameters!r})
print(audit.summary())
claimed = audit.claimed_epsilon
audit_chart = None
if claimed is not None and math.isfinite(claimed):  # the audit's best test against the claim's limit
    test = audit.epsilon_test
    exact = audit.curves[test.pair][0] if audit.curves else None
    level = f"{{100 * audit.confidence:g}} %"
    audit_chart = tradeoff_chart(DPCurve(claimed, audit.delta), exact=exact, log_fpr=log_fpr,
                                 attacks={{f"the audit's test ({{level}} limits)": ([test.alpha_upper],
                                                                                [1 - test.beta_upper])}},
                                 bound_name=f"the claim's limit (ε = {{claimed:.3g}})",
                                 title={f"The audit's best test against the claim of {cls.label}"!r})
    save_charts("what-epsilon-means-audit.html", [audit_chart], title="What ε means: the audit")
audit_chart"""),
    ]

