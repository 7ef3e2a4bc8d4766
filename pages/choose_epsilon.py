"""Page "Choose epsilon": what ε gives the utility I need, and what privacy do I get for it?"""
import dataclasses
import datetime

import streamlit as st

from epsilon_lab import embedding_ui, ui
from privlib.core.validation import duration, long_work_limit
from privlib.presentation.words.figures import short_label
from privlib.presentation.words.report import ATTACK_CHART, choice_figures, choice_report
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
from privlib.words.text import PAPER_EXAMPLE

DEFAULT_GRID = "1,2,3,5,8,12,20,30"
SAMPLE_CHOICES = [10, 20, 30, 50, 100, 200, 500, 1000]
DEFAULT_SAMPLES = 20
DEFAULT_MECHANISMS = ["multivariate-laplace", "postprocessing-fix"]
SOURCES = ["Paste a text", "Upload a word list", "Random vocabulary words"]
KEEP_STATISTICS = {"max": "every word (the most-kept word)", "mean": "on average over the words"}
ATTACK_MEASURE_LABELS = {"success": "% of the words", "above_prior": "points above the prior"}
ATTACK_REQUESTS = "choose_attack_requests"  # the attacks asked for despite a long estimate (ui.request)


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


space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)
seed = int(st.session_state["seed"])
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
utility = t1.slider("Utility target: outputs unchanged or among the K nearest", 0.05, 1.0, 0.6, 0.05,
                    key="choose_utility", format="%.2f",
                    help="The fraction of outputs (averaged over your words) that must be the word itself or one "
                         "of its K nearest neighbours.")
close = int(t2.number_input("K (nearest neighbours)", min_value=1, max_value=min(10_000, len(space) - 1),
                            value=min(100, len(space) - 1), key="choose_close",
                            help="Outputs ranked 1..K among the word's neighbours count as close (the paper uses 100)."))
max_keep = t3.slider("Privacy floor: kept unchanged at most", 0.0, 1.0, 0.5, 0.05, key="choose_max_keep",
                     format="%.2f", help="How often a word may come out unchanged (N_w as a fraction of runs).")
keep_statistic = t4.radio("The floor applies to", list(KEEP_STATISTICS), format_func=KEEP_STATISTICS.get,
                          key="choose_keep_statistic",
                          help="Every word (literal reading: no word is kept more often than the floor) or the "
                               "average over your words.")
sentence_length = int(t5.number_input("Sentence length L", min_value=1, max_value=10_000, value=20,
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
attack_limit = a2.number_input(f"Re-identified at most ({ATTACK_MEASURE_LABELS[attack_measure]})",
                               min_value=0.1, max_value=100.0, value=20.0 if attack_measure == "success" else 5.0,
                               step=1.0, key=f"choose_attack_limit_{attack_measure}", disabled=not attack_on,
                               help="How often the attacker may name the original word: a share of the words, or "
                                    "points of probability above guessing from the prior alone (5 = 5 %-points).")
if st.session_state.get("choose_attack_candidates", 0) > len(space):  # a smaller vocabulary was chosen since:
    del st.session_state["choose_attack_candidates"]  # back to the default, at most the vocabulary
attack_candidates = int(a3.number_input("Candidates: the N most frequent words", min_value=2, max_value=len(space),
                                        value=min(2000, len(space)), step=500, key="choose_attack_candidates",
                                        disabled=not attack_on,
                                        help="The secret word is one of them; more candidates = longer attack."))
attack_prior = a4.radio("Prior", PRIORS, key="choose_attack_prior", disabled=not attack_on,
                        help="uniform, or Zipf (π_r ∝ 1/r, a proxy for word frequencies)")
targets = Targets(utility=float(utility), max_keep=float(max_keep), keep_statistic=keep_statistic,
                  attack=float(attack_limit) / 100 if attack_on else None, attack_measure=attack_measure)
if attack_on:
    try:  # an impossible or trivially met target is said at once, before any work
        targets.check_attack(AttackSettings(attack_candidates, attack_prior).candidates_of(space).prior_baseline)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()

st.subheader("2. Your words")
source = st.radio("Word source", SOURCES, key="choose_source", horizontal=True, label_visibility="collapsed")
try:
    if source == SOURCES[0]:
        text = st.text_area("Text", PAPER_EXAMPLE, key="choose_text", height=110,
                            help="Every distinct word of the text that the embedding knows is analysed.")
        words = WordSet.from_text(text, space, source="pasted text")
    elif source == SOURCES[1]:
        upload = st.file_uploader("Word list (UTF-8 text: one word per line, or any text)", type=["txt", "csv"],
                                  key="choose_upload")
        if upload is None:
            st.info("Upload a text file with your words to continue.")
            st.stop()
        try:
            content = upload.getvalue().decode("utf-8")
        except UnicodeDecodeError:
            st.error(f"{upload.name} is not UTF-8 text: save it as UTF-8 and upload it again.")
            st.stop()
        words = WordSet.from_text(content, space, source=f"words of {upload.name}")
    else:
        n_words = int(st.number_input("Number of words drawn uniformly from the vocabulary", min_value=2,
                                      max_value=min(5_000, len(space)), value=min(30, len(space)),
                                      key="choose_n_words", help="Drawn with the random seed of the sidebar."))
        words = WordSet.random(space, n_words, seed)
except ValueError as exc:  # empty text, no vocabulary word, too long
    st.error(str(exc))
    st.stop()
shown = ", ".join(words.words[:40]) + (" …" if len(words) > 40 else "")
st.caption(f"{len(words):,} distinct vocabulary words: {shown}. Standard errors: {SCOPES[words.scope]}.")
if words.unknown:
    st.info(f"{len(words.unknown):,} word(s) not in the vocabulary of {space.name} are left out: "
            + ", ".join(words.unknown[:10]) + (" …" if len(words.unknown) > 10 else ""))

st.subheader("3. Mechanisms, ε grid and runs")
m1, m2, m3 = st.columns([3, 2, 2])
names = m1.multiselect("Mechanisms to compare", list(MECHANISMS), default=DEFAULT_MECHANISMS, max_selections=4,
                       key="choose_mechanisms", format_func=lambda n: short_label(MECHANISMS[n].label))
grid_text = m2.text_input("ε grid", DEFAULT_GRID, key="choose_grid",
                          help="A comma list (1,2,5,10), or start:stop (1:30) or start:stop:step (0.5:10:0.5).")
samples = m3.select_slider("Runs per word and ε", SAMPLE_CHOICES, value=DEFAULT_SAMPLES, key="choose_samples",
                           help="More runs = smaller standard errors, longer wait (cost grows linearly with "
                                "words × ε values × runs). Exact mechanisms are not sampled.")
specs = []
with st.expander("Mechanism parameters"):
    for name in names:
        st.markdown(f"**{MECHANISMS[name].label}**")
        specs.append((name, ui.parameter_controls(MECHANISMS[name].PARAMETERS, f"choose.{name}", st) if MECHANISMS[name].PARAMETERS else ()))
        if not MECHANISMS[name].PARAMETERS:
            st.caption("no parameters")
if not names:
    st.info("Choose at least one mechanism to compare.")
    st.stop()
try:
    grid = epsilon_grid(grid_text)
except ValueError as exc:
    st.error(f"ε grid: {exc}")
    st.stop()

config = {"space": key, "words": words.words, "scope": words.scope, "source": words.source,
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
stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
d1, d2, d3 = st.columns(3)
d1.download_button("All numbers (CSV)", choice.to_csv(), file_name="choose-epsilon.csv", mime="text/csv",
                   on_click="ignore")
d2.download_button("Per-word numbers (CSV)", choice.per_word_csv(), file_name="choose-epsilon-words.csv",
                   mime="text/csv", on_click="ignore")
d3.download_button("Report (HTML)", help="One file that works offline: the charts, tables and settings.",
                   data=lambda: choice_report(choice, privacy_metric, created=stamp),
                   file_name="choose-epsilon-report.html", mime="text/html", on_click="ignore")
