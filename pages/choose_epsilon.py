"""Page "Choose epsilon": what ε gives the utility I need, and what privacy do I get for it?

Its settings, link, script and report: `privlib.analyses.choose_epsilon` through `epsilon_lab.take_home`
(issue 24). The words you type or upload never go into the link, and into the downloads only when you tick
the box of *Take this analysis home*.
"""
import dataclasses
import datetime

import streamlit as st

from epsilon_lab import embedding_ui, take_home, ui
from privlib.analyses import choose_epsilon as analysis
from privlib.analyses.choose_epsilon import (
    FILE,
    MAX_CLOSE,
    MAX_MECHANISMS,
    MAX_RANDOM_WORDS,
    PROTECTS,
    RUN_SETTINGS,
    SAMPLE_CHOICES,
    SETTINGS,
    SOURCES,
    TEXT,
    attack_fraction,
    attack_percent,
)
from privlib.core.validation import duration, long_work_limit
from privlib.presentation.words.figures import short_label
from privlib.presentation.words.report import ATTACK_CHART, choice_figures
from privlib.words.attacks import PRIORS
from privlib.words.choice import (
    ATTACK_MEASURES,
    METRICS,
    PRIVACY_METRICS,
    SCOPES,
    AttackSettings,
    Targets,
    WordSet,
    assemble_choice,
    attack_metrics,
    attack_metrics_seconds,
    epsilon_grid,
    mechanism_metrics,
)
from privlib.words.mechanisms import MECHANISMS

KEEP_STATISTICS = {"max": "every word (the most-kept word)", "mean": "on average over the words"}
ATTACK_MEASURE_LABELS = {"success": "% of the words", "above_prior": "points above the prior"}
ATTACK_REQUESTS = "choose_attack_requests"  # the attacks asked for despite a long estimate (ui.request)
#: The widget key of each setting (`privlib.analyses.choose_epsilon.SETTINGS`; the sidebar's: `take_home`). Two
#: are not widgets: the attack target (a fraction; the page's toggle and limit in % are set from it below) and the
#: word list's name (an upload cannot be restored: the page asks for the file of that name).
KEYS = {"target_close": "choose_utility", "close": "choose_close", "max_keep": "choose_max_keep",
        "keep_statistic": "choose_keep_statistic", "sentence_length": "choose_sentence_length",
        "attack_target": "choose_attack_target", "attack_measure": "choose_attack_measure",
        "attack_candidates": "choose_attack_candidates", "attack_prior": "choose_attack_prior",
        "source": "choose_source", "text": "choose_text", "words_file": "choose_words_file", "words": "choose_n_words",
        "mechanisms": "choose_mechanisms", **{s.name: f"choose.{s.name}" for s in analysis.PARAMETER_SETTINGS},
        "epsilons": "choose_grid", "samples": "choose_samples", "privacy_metric": "choose_privacy_metric"}


@st.cache_data(show_spinner=False, max_entries=32)
def cached_metrics(_space, space_key, words, scope, epsilons, mechanism, samples, close, seed, _label=""):
    ws = WordSet(words, _space.indices(words), scope)
    return ui.with_progress_bar(f"{_label}:", lambda progress: mechanism_metrics(
        _space, ws, epsilons, mechanism, samples, close, rng=seed, progress=progress))


@st.cache_data(show_spinner=False, max_entries=32)
def cached_attack_seconds(_space, space_key, mechanisms, epsilons, candidates, prior, close):
    settings = AttackSettings(candidates, prior)
    return sum(attack_metrics_seconds(_space, spec, epsilons, settings, close) for spec in mechanisms)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_attack(_space, space_key, mechanism, epsilons, candidates, prior, close, seed, _label=""):
    return ui.with_progress_bar(f"{_label}:", lambda progress: attack_metrics(
        _space, mechanism, epsilons, AttackSettings(candidates, prior), close=close, seed=seed, progress=progress,
        allow_long=True))  # the page asked for it, with its estimate


def request_run():
    # the inputs are read in the script run this click starts (a text edited and Run clicked at
    # once arrive together), not from the widgets as they were drawn before the click
    st.session_state["choose_run_requested"] = True


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets (the sidebar's too; never the text)
if KEYS["attack_target"] in st.session_state:  # restored: the toggle and the limit (in % or points) of its measure
    restored_target = st.session_state.pop(KEYS["attack_target"])
    st.session_state["choose_attack"] = restored_target is not None
    if restored_target is not None:
        measure = st.session_state.get("choose_attack_measure", "success")
        st.session_state[f"choose_attack_limit_{measure}"] = attack_percent(restored_target)
if KEYS["mechanisms"] in st.session_state:  # a restored setting is a tuple or None (none chosen)
    st.session_state[KEYS["mechanisms"]] = list(st.session_state[KEYS["mechanisms"]] or [])
space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)
seed = int(st.session_state["seed"])
defaults = {**SETTINGS.defaults(), "close": min(SETTINGS.defaults()["close"], len(space) - 1),
            "attack_candidates": min(SETTINGS.defaults()["attack_candidates"], len(space)),
            "words": min(SETTINGS.defaults()["words"], len(space))}
for name in ("target_close", "close", "max_keep", "keep_statistic", "sentence_length", "attack_measure",
             "attack_candidates", "attack_prior", "source", "text", "words", "epsilons", "samples", "privacy_metric"):
    st.session_state.setdefault(KEYS[name], defaults[name])  # widgets take their value from their state
st.session_state.setdefault(KEYS["mechanisms"], list(defaults["mechanisms"]))
st.session_state.setdefault("choose_attack", False)
for name, largest in (("close", min(MAX_CLOSE, len(space) - 1)), ("words", min(MAX_RANDOM_WORDS, len(space)))):
    if st.session_state[KEYS[name]] > largest:  # e.g. a link's value in a smaller vocabulary: said, then the largest
        st.warning(f"{SETTINGS.by_name[name].label} = {st.session_state[KEYS[name]]:,} is more than this vocabulary "
                   f"allows: using {largest:,}.", icon="⚠️")
        st.session_state[KEYS[name]] = largest
run_requested = st.session_state.pop("choose_run_requested", False)  # set by the Run button's callback

st.title("Choose epsilon")
st.markdown(
    "Before a deployment: which ε gives the utility you need on **your** words, and what privacy do you get "
    "for it? Each mechanism is run many times on each word over a grid of ε (mechanisms with exact output "
    "probabilities are computed exactly). Privacy: how often a word is kept unchanged (N_w) and how many "
    "different outputs it has (S_w) — the plausible-deniability statistics of Feyisetan et al. 2020. "
    "Utility: how often the output is the word or one of its K nearest neighbours, the median rank and the "
    "cosine similarity. Smaller ε = more noise = more privacy; a sentence of L words spends L·ε. An attack target "
    "adds what an attacker learns: how often somebody who sees the sanitised word names the original."
)
# The browser loads Plotly's script (4.7 MB) at the page's first chart: an empty chart on the first
# view has it loaded before Run is pressed, not after the results (ui.plotly_warmup).
plotly_warmup = ui.plotly_warmup()

st.subheader("1. Your targets")
t1, t2, t3, t4, t5 = st.columns([2, 1, 2, 2, 1])
utility = t1.slider("Utility target: outputs unchanged or among the K nearest", 0.05, 1.0, step=0.05,
                    key="choose_utility", format="%.2f",
                    help="The fraction of outputs (averaged over your words) that must be the word itself or one "
                         "of its K nearest neighbours.")
close = int(t2.number_input("K (nearest neighbours)", min_value=1, max_value=min(MAX_CLOSE, len(space) - 1),
                            key="choose_close",
                            help="Outputs ranked 1..K among the word's neighbours count as close (the paper uses 100)."))
max_keep = t3.slider("Privacy floor: kept unchanged at most", 0.0, 1.0, step=0.05, key="choose_max_keep",
                     format="%.2f", help="How often a word may come out unchanged (N_w as a fraction of runs).")
keep_statistic = t4.radio("The floor applies to", list(KEEP_STATISTICS), format_func=KEEP_STATISTICS.get,
                          key="choose_keep_statistic",
                          help="Every word (literal reading: no word is kept more often than the floor) or the "
                               "average over your words.")
sentence_length = int(t5.number_input("Sentence length L", min_value=1, max_value=analysis.MAX_SENTENCE_LENGTH,
                                      key="choose_sentence_length",
                                      help="Words per sentence for the composed budget L·ε."))
a1, a2, a3, a4 = st.columns([2, 2, 2, 1])
attack_on = a1.toggle("Attack target", key="choose_attack",
                      help="Also attack each mechanism: a secret word drawn from the N most frequent words is "
                           "sanitised once and the attacker names a candidate. SanText, SanText+, TEM and CusText: "
                           "the exact Bayes attacker (the best there is); the others: a sampled attack, a lower bound "
                           "on the best attacker. Answered as the largest ε that keeps the attacker under the target.")
attack_measure = a1.radio("Measured as", list(ATTACK_MEASURES), format_func=ATTACK_MEASURE_LABELS.get,
                          key="choose_attack_measure", disabled=not attack_on,
                          help="A share of the words, or points above guessing from the prior alone.")
st.session_state.setdefault(f"choose_attack_limit_{attack_measure}", 20.0 if attack_measure == "success" else 5.0)
attack_limit = a2.number_input(f"Re-identified at most ({ATTACK_MEASURE_LABELS[attack_measure]})",
                               min_value=0.1, max_value=100.0, step=1.0, key=f"choose_attack_limit_{attack_measure}",
                               disabled=not attack_on,
                               help="How often the attacker may name the original word: a share of the words, or "
                                    "points of probability above guessing from the prior alone (5 = 5 %-points).")
if st.session_state.get("choose_attack_candidates", 0) > len(space):  # a smaller vocabulary was chosen since:
    st.session_state["choose_attack_candidates"] = defaults["attack_candidates"]  # the default, at most the vocabulary
attack_candidates = int(a3.number_input("Candidates: the N most frequent words", min_value=2, max_value=len(space),
                                        step=500, key="choose_attack_candidates",
                                        disabled=not attack_on,
                                        help="The secret word is one of them; more candidates = longer attack."))
attack_prior = a4.radio("Prior", PRIORS, key="choose_attack_prior", disabled=not attack_on,
                        help="uniform, or Zipf (π_r ∝ 1/r, a proxy for word frequencies)")
attack_target = attack_fraction(float(attack_limit)) if attack_on else None
targets = Targets(utility=float(utility), max_keep=float(max_keep), keep_statistic=keep_statistic,
                  attack=attack_target, attack_measure=attack_measure)
# What stops the page is said after every control is drawn and the link written: a control not drawn in a run
# loses its state, and a shared link's settings would be lost with it.
problems = []
if attack_on:
    try:  # an impossible or trivially met target is said at once, before any work
        targets.check_attack(AttackSettings(attack_candidates, attack_prior).candidates_of(space).prior_baseline)
    except ValueError as exc:
        problems.append(("error", str(exc)))

st.subheader("2. Your words")
source = st.radio("Word source", list(SOURCES), format_func=SOURCES.get, key="choose_source", horizontal=True,
                  label_visibility="collapsed")
words, typed = None, None  # typed: the words' text (pasted or uploaded), a private setting
n_words = int(st.session_state[KEYS["words"]])
try:
    if source == TEXT:
        typed = st.text_area("Text", key="choose_text", height=110,
                             help="Every distinct word of the text that the embedding knows is analysed. It stays "
                                  "here: never in the page's link, and in the downloads only if you tick the box of "
                                  "Take this analysis home.")
        words = WordSet.from_text(typed, space, source="pasted text")
    elif source == FILE:
        upload = st.file_uploader("Word list (UTF-8 text: one word per line, or any text)", type=["txt", "csv"],
                                  key="choose_upload")
        if upload is None:
            named = st.session_state.get(KEYS["words_file"])
            problems.append(("info", f"Upload your word list {named!r} to see the same view (a link or a settings file "
                                     "never carries a file)." if named else
                             "Upload a text file with your words to continue."))
        else:
            st.session_state[KEYS["words_file"]] = upload.name
            try:
                typed = upload.getvalue().decode("utf-8")
            except UnicodeDecodeError:
                problems.append(("error", f"{upload.name} is not UTF-8 text: save it as UTF-8 and upload it again."))
            else:
                words = WordSet.from_text(typed, space, source=f"words of {upload.name}")
    else:
        n_words = int(st.number_input("Number of words drawn uniformly from the vocabulary", min_value=2,
                                      max_value=min(MAX_RANDOM_WORDS, len(space)),
                                      key="choose_n_words", help="Drawn with the random seed of the sidebar."))
        words = WordSet.random(space, n_words, seed)
except ValueError as exc:  # empty text, no vocabulary word, too long
    problems.append(("error", str(exc)))
if typed is not None and len(typed) > analysis.MAX_TEXT_CHARS:
    problems.append(("error", (f"Your words are {len(typed):,} characters long; the page reads at most "
                               f"{analysis.MAX_TEXT_CHARS:,}: give fewer (the command line `choose` reads any length).")))
    words, typed = None, None
if words is not None:
    shown = ", ".join(words.words[:40]) + (" …" if len(words) > 40 else "")
    st.caption(f"{len(words):,} distinct vocabulary words: {shown}. Standard errors: {SCOPES[words.scope]}.")
    if words.unknown:
        st.info(f"{len(words.unknown):,} word(s) not in the vocabulary of {space.name} are left out: "
                + ", ".join(words.unknown[:10]) + (" …" if len(words.unknown) > 10 else ""))

st.subheader("3. Mechanisms, ε grid and runs")
m1, m2, m3 = st.columns([3, 2, 2])
names = m1.multiselect("Mechanisms to compare", list(MECHANISMS), max_selections=MAX_MECHANISMS,
                       key="choose_mechanisms", format_func=lambda n: short_label(MECHANISMS[n].label))
grid_text = m2.text_input("ε grid", key="choose_grid", max_chars=SETTINGS.by_name["epsilons"].max_chars,
                          help="A comma list (1,2,5,10), or start:stop (1:30) or start:stop:step (0.5:10:0.5).")
samples = m3.select_slider("Runs per word and ε", SAMPLE_CHOICES, key="choose_samples",
                           help="More runs = smaller standard errors, longer wait (cost grows linearly with "
                                "words × ε values × runs). Exact mechanisms are not sampled.")
specs = []
with st.expander("Mechanism parameters"):
    for name in names:
        st.markdown(f"**{MECHANISMS[name].label}**")
        specs.append((name, ui.parameter_controls(MECHANISMS[name].PARAMETERS, f"choose.{name}", st) if MECHANISMS[name].PARAMETERS else ()))
        if not MECHANISMS[name].PARAMETERS:
            st.caption("no parameters")

values = {**take_home.embedding_values(space, seed), "target_close": float(utility), "close": close,
          "max_keep": float(max_keep), "keep_statistic": keep_statistic, "sentence_length": sentence_length,
          "attack_target": attack_target, "attack_measure": attack_measure, "attack_candidates": attack_candidates,
          "attack_prior": attack_prior, "source": source,
          "words_file": st.session_state.get(KEYS["words_file"]) if source == FILE else None,
          "words": n_words, "mechanisms": tuple(names), "epsilons": grid_text, "samples": int(samples),
          "privacy_metric": st.session_state[KEYS["privacy_metric"]],
          **{s.name: st.session_state.get(KEYS[s.name], s.default) for s in analysis.PARAMETER_SETTINGS},
          **{f"{name}.{pname}": value for name, params in specs for pname, value in params},
          **({"text": typed} if typed is not None else {})}
take_home.share(SETTINGS, values)  # the link now reproduces these inputs (never the text)
for kind, problem in problems:
    (st.error if kind == "error" else st.info)(problem)
if problems:
    st.stop()
if not names:
    st.info("Choose at least one mechanism to compare.")
    st.stop()
try:
    grid = epsilon_grid(grid_text)
except ValueError as exc:
    st.error(f"ε grid: {exc}")
    st.stop()

config = {"values": {name: values[name] for name in RUN_SETTINGS if name in values},
          "space": key, "words": words.words, "scope": words.scope, "source": words.source,
          "unknown": words.unknown, "word_seed": words.seed, "epsilons": tuple(float(e) for e in grid),
          "mechanisms": tuple(specs), "samples": int(samples), "close": close, "seed": seed,
          "attack": (attack_candidates, attack_prior) if attack_on else None}
runs = len(words) * grid.size * int(samples)
st.button("Run", type="primary", on_click=request_run,
          help=f"{len(words):,} words × {grid.size} ε × {samples} runs = {runs:,} runs per sampled mechanism.")
if run_requested:
    st.session_state["choose_config"] = config

run = st.session_state.get("choose_config")
if run is None or run["space"] != key:
    st.info("Set your targets and words, then press **Run**.")
    st.stop()
if run != config:
    st.caption("The inputs above changed since the last run: the results below are for the last run. "
               "Press Run to update them (targets are applied at once).")

results = []
try:
    for i, spec in enumerate(run["mechanisms"]):
        label = f"Mechanism {i + 1} of {len(run['mechanisms'])}"
        results.append(cached_metrics(space, key, run["words"], run["scope"], run["epsilons"], spec, run["samples"],
                                      run["close"], run["seed"], _label=label))
except ValueError as exc:  # e.g. too many runs, a parameter the mechanism refuses
    st.error(str(exc))
    st.stop()
attacks = None
if run.get("attack") is not None and attack_on:
    work = (key, run["mechanisms"], run["epsilons"], *run["attack"], run["close"], run["seed"])
    try:
        seconds = cached_attack_seconds(space, key, run["mechanisms"], run["epsilons"], *run["attack"], run["close"])
        if seconds > long_work_limit() and work not in st.session_state.get(ATTACK_REQUESTS, set()):
            st.warning(f"The attack would take about {duration(seconds)} (estimate): fewer candidates, fewer ε or a "
                       "smaller vocabulary (sidebar) make it shorter. The other answers below do not wait for it.")
            st.button(f"Run the attack anyway (about {duration(seconds)})", key="choose_attack_anyway",
                      on_click=ui.request, args=(ATTACK_REQUESTS, work))
        else:
            attacks = [cached_attack(space, key, spec, run["epsilons"], *run["attack"], run["close"], run["seed"],
                                     _label=f"Attack on mechanism {i + 1} of {len(run['mechanisms'])}")
                       for i, spec in enumerate(run["mechanisms"])]
    except ValueError as exc:  # e.g. CusText's vocab_limit below the candidates
        st.error(f"Attack: {exc}")
elif attack_on:
    st.caption("Press Run to attack the mechanisms for the attack target.")
word_set = WordSet(run["words"], space.indices(run["words"]), run["scope"], run["source"], run["unknown"],
                   run["word_seed"])
try:
    choice = assemble_choice(space, word_set, results, targets if attacks else dataclasses.replace(targets, attack=None),
                             sentence_length, run["seed"], attacks)
except ValueError as exc:  # an attack target impossible for the candidates of the last run
    st.error(str(exc))
    st.stop()

st.subheader("Answers")
for i, (r, a) in enumerate(zip(choice.results, choice.answers)):
    if a.feasible:
        lo, hi = a.range
        head = f"**{r.label}: recommended ε = {lo:g}{'' if lo == hi else f'–{hi:g}'}**"
    else:
        head = f"**{r.label}: no ε on this grid satisfies {'both' if a.attack is None else 'all three'} targets**"
    attack_line = "" if a.attack_summary is None else f"\n\n**{a.attack_summary}**"
    (st.success if a.feasible else st.info)(f"{head}{attack_line}\n\n{choice.summary(i)}\n\n{a.message}")

st.subheader("Charts")
privacy_metric = st.selectbox("Privacy measure on the trade-off chart", PRIVACY_METRICS, key="choose_privacy_metric",
                              format_func=lambda m: f"{METRICS[m][0]} ({METRICS[m][2]})")
charts = choice_figures(choice, privacy_metric, narrow=True)  # the charts against ε: two per row
plotly_warmup.empty()
st.plotly_chart(charts[0][1], key="choose_chart_tradeoff")
exact_labels = ", ".join(cls.label for cls in MECHANISMS.values() if cls.has_exact_probabilities)
st.caption("Bands and error bars: ±2 standard errors. Shaded ε ranges: recommended for the mechanism of that colour. "
           f"Mechanisms with an exact output law ({exact_labels}) have no sampling error.")
columns = st.columns(2)
for k, (name, fig) in enumerate(c for c in charts[1:] if c[0] != ATTACK_CHART):
    with columns[k % 2]:
        st.plotly_chart(fig, key=f"choose_chart_{name}")
for name, fig in charts:
    if name == ATTACK_CHART:
        st.plotly_chart(fig, key="choose_chart_attack")
        st.caption("How often somebody who sees one sanitised word names the original, among the "
                   f"{choice.attack_settings.candidates:,} most frequent words: higher = less privacy, and smaller ε "
                   "= more privacy. Dashed grey: guessing from the prior alone, without looking; dotted red: your "
                   "attack target. SanText, SanText+, TEM and CusText: the exact Bayes attacker; the others: a sampled "
                   "attack (band ±2 SE), a lower bound on the best attacker.")

st.subheader("All numbers")
st.dataframe(
    [{"mechanism": row["mechanism"], "ε": row["epsilon"], f"budget (L = {sentence_length})": row["budget"],
      f"rank ≤ {run['close']}": row["within_k"], "± SE": row["within_k_se"], "unchanged": row["unchanged"],
      "most-kept word": row["unchanged_max"], "median rank": row["median_rank"], "cosine": row["cosine"],
      "S_w": row["distinct"], "exp(H)": row["effective"], **({"re-identified": row["attack_success"]} if choice.attacks else {}),
      "recommended": row["recommended"]}
     for row in choice.table()],
    column_config={c: st.column_config.NumberColumn(format="percent")
                   for c in (f"rank ≤ {run['close']}", "± SE", "unchanged", "most-kept word", "re-identified")},
    # the columns that fit at 1024 pixels; the others are in the charts above and in the CSV
    column_order=["mechanism", "ε", f"rank ≤ {run['close']}", "± SE", "unchanged",
                  *(["re-identified"] if choice.attacks else []), "recommended"],
    hide_index=True,
)
st.caption("Shown: the utility target's measure with its standard error, the mean share kept unchanged and whether ε "
           "is recommended. The budget, the most-kept word, the median rank, the cosine, S_w and exp(H) of every ε "
           "are in the charts above and in the CSV.")
# The take-home values of the results shown: the last run's inputs with the targets as they are now; an attack target
# only with the attacks it needs (otherwise the answers above ignore it, and so does the script).
shown_values = {**values, **run["values"], "attack_target": values["attack_target"] if attacks else None}
if "text" not in run["values"]:
    shown_values.pop("text", None)
included = shown_values if take_home.included(SETTINGS) else {  # the panel's box: the page's report follows it
    name: value for name, value in shown_values.items() if not SETTINGS.by_name[name].private}
stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
d1, d2, d3 = st.columns(3)
d1.download_button("All numbers (CSV)", choice.to_csv(), file_name="choose-epsilon.csv", mime="text/csv",
                   on_click="ignore")
d2.download_button("Per-word numbers (CSV)", choice.per_word_csv(), file_name="choose-epsilon-words.csv",
                   mime="text/csv", on_click="ignore")
d3.download_button("Report (HTML)", help="One file that works offline: the charts, tables, settings and the code "
                                         "that reproduces them (your words only if you tick the box below).",
                   data=lambda: analysis.report(choice, included, privacy_metric, created=stamp),
                   file_name="choose-epsilon-report.html", mime="text/html", on_click="ignore")

take_home.panel(SETTINGS, shown_values, analysis.numbers(choice), [figure for _, figure in charts], KEYS, PROTECTS,
                report=lambda chosen, created: analysis.report(choice, chosen, privacy_metric, created=created))
