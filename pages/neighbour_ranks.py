"""Page "Neighbour ranks": where do the mechanism's outputs land among the word's neighbours?

Cheap parts first: the title and the explanation show while the embedding loads (in the background
since the app started, `embedding_ui.preload`); privlib and Plotly are imported after them. Its settings,
link, script and report: `privlib.analyses.neighbour_ranks` through `epsilon_lab.take_home` (issue 24).
"""
import zlib

import numpy as np
import streamlit as st

from epsilon_lab import embedding_ui, take_home, ui

#: Words offered in the type-ahead list (the most frequent ones); any other vocabulary word can be typed.
PICKER_WORDS = 20_000


@st.cache_data(show_spinner="Running the mechanism …", max_entries=64)
def cached_rank_experiment(_space, space_key, mechanism, word, epsilon, samples, close, seed):
    return rank_experiment(_space, word, epsilon, samples, resolve_mechanism(mechanism), close, rng=seed)


@st.cache_data(show_spinner="Sampling across ε …", max_entries=32)
def cached_word_curve(_space, space_key, mechanism, word, epsilons, samples, close, seed):
    return epsilon_sweep(_space, epsilons, [word], resolve_mechanism(mechanism), close, rng=seed,
                         samples_per_word=samples)


@st.cache_data(show_spinner="Estimating the time of the curve …", max_entries=64)
def cached_curve_seconds(_space, space_key, mechanism, word, epsilons, samples):
    """`epsilon_sweep_seconds` of the word's curve: drawn by itself only when at most `ui.AUTOMATIC_SECONDS`. From the
    stored kernel costs (``timed=False``): timing the kernels would cost a new process about a second, as long as the
    curve itself."""
    from privlib.words.cost import epsilon_sweep_seconds

    return epsilon_sweep_seconds(_space, epsilons, [word], resolve_mechanism(mechanism), samples_per_word=samples,
                                 timed=False)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_sweep(_space, space_key, mechanism, n_words, epsilons, close, seed, label):
    return ui.with_progress_bar(f"{label}:", lambda progress: epsilon_sweep(
        _space, epsilons, n_words, resolve_mechanism(mechanism), close, rng=seed, progress=progress))


ui.start_page()
st.title("Neighbour ranks")
st.markdown(
    "Pick a word, a mechanism and a privacy level ε. The mechanism replaces the word by a word of the "
    "vocabulary — the **multivariate Laplace mechanism**, the default, adds random noise to the word's "
    "embedding and outputs the nearest word. Is the output the word itself, one of its close neighbours, "
    "or a far-off word? Each output is ranked among the input's neighbours (rank 0 = the word itself, "
    "1 = its nearest neighbour, …)."
)
# The browser loads Plotly's script (4.7 MB) only when the page shows its first chart: an empty
# chart now has it loaded while the server computes the first result; removed once that is drawn.
plotly_warmup = ui.plotly_warmup()
# Imported here, after the cheap parts are on screen (the embedding's preload has imported most of privlib).
from privlib.analyses.neighbour_ranks import (
    ATTACK_CANDIDATES,
    AVERAGE_EPSILONS,
    AVERAGE_WORDS,
    CURVE_EPSILONS,
    CURVE_SAMPLES,
    MAX_CLOSE,
    MAX_COMPARED,
    PARAMETER_SETTINGS,
    PROTECTS,
    SETTINGS,
    numbers,
)

#: The widget key of each setting (`privlib.analyses.neighbour_ranks.SETTINGS`; the sidebar's: `take_home`).
KEYS = {"word": "word", "epsilon": "epsilon", "samples": "samples", "close": "close", "mechanism": "mechanism",
        **{s.name: f"mechanism.{s.name}" for s in PARAMETER_SETTINGS},  # `embedding_ui.mechanism_controls`' keys
        "average_mechanisms": "fig2_mechanisms", "average_words": "fig2_words", "candidates": "nr_attack_candidates",
        "prior": "nr_attack_prior", "target": "nr_attack_target", "frontier_mechanisms": "nr_attack_frontier_mechanisms"}
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets (the sidebar's too)
defaults = SETTINGS.defaults()
for name in ("word", "epsilon", "samples", "mechanism", "average_words", "prior", "target"):
    st.session_state.setdefault(KEYS[name], defaults[name])  # widgets take their value from their state
for name in ("average_mechanisms", "frontier_mechanisms"):  # a restored setting is a tuple or None (none chosen)
    if KEYS[name] in st.session_state:
        st.session_state[KEYS[name]] = list(st.session_state[KEYS[name]] or [])

space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)

from privlib.core.validation import duration
from privlib.presentation.words import figures
from privlib.words.experiments import epsilon_sweep, rank_experiment, sweeps_to_json
from privlib.words.mechanisms import MECHANISMS, resolve_mechanism

words_offered = list(space.words[: min(PICKER_WORDS, len(space))])
current = st.session_state.get("word") or "king"
if current not in words_offered:
    words_offered.append(current)
close_max = min(MAX_CLOSE, len(space) - 1)
# K within this vocabulary (a number input shows its minimum for a larger value: say it, then keep the largest)
st.session_state.setdefault("close", min(defaults["close"], close_max))
if st.session_state["close"] > close_max:
    st.warning(f"K = {st.session_state['close']:,} is more than this vocabulary allows: using {close_max:,}.",
               icon="⚠️")
    st.session_state["close"] = close_max


def pick_random_word():
    rng = np.random.default_rng()
    st.session_state["word"] = space.words[int(rng.integers(min(PICKER_WORDS, len(space))))]


controls = st.columns([2.2, 2, 2, 1.8], vertical_alignment="bottom")
with controls[0]:
    word = st.selectbox("Word", words_offered, key="word", accept_new_options=True,
                        help=f"Type to search the {min(PICKER_WORDS, len(space)):,} most frequent words, "
                             "or type any word of the vocabulary and press Enter.")
with controls[1]:
    st.button("Random word", on_click=pick_random_word,
              help=f"A word drawn at random from the {min(PICKER_WORDS, len(space)):,} most frequent.")
with controls[2]:
    samples = st.select_slider("Samples", SETTINGS.by_name["samples"].choices, key="samples",
                               help="Number of times the mechanism is run on the word (mechanisms with exact "
                                    "output probabilities are not sampled).")
with controls[3]:
    close = st.number_input("K (close ranks)", min_value=1, max_value=close_max, key="close",
                            help="Outputs ranked 1..K are 'close neighbours' (the paper uses K = 100).")
mech_col, eps_col = st.columns([1.4, 2])
with mech_col:
    mechanism = embedding_ui.mechanism_controls(key="mechanism")
with eps_col:
    epsilon = ui.epsilon_slider(help=embedding_ui.WORD_EPSILON_HELP)
seed = int(st.session_state["seed"])

if not word:
    st.info("Type a word to start.")
    st.stop()
if word not in space:  # named (with a hint for a capital); the link is written once the word is found
    try:
        space.index(word)
    except ValueError as exc:
        st.error(str(exc))
    st.stop()

# The controls of the sections below (drawn later): their values from their state, their defaults from this view
attack_counts = [n for n in ATTACK_CANDIDATES if n <= len(space)] or [len(space)]
default_count = max(n for n in attack_counts if n <= 2_000) if attack_counts[0] <= 2_000 else attack_counts[0]
if st.session_state.get("nr_attack_candidates") not in attack_counts:  # e.g. a link's 5,000 in a smaller vocabulary
    st.session_state["nr_attack_candidates"] = default_count
for name in ("average_mechanisms", "frontier_mechanisms"):
    st.session_state.setdefault(KEYS[name], [mechanism[0]])
values = {**take_home.embedding_values(space, seed), "word": word, "epsilon": float(epsilon), "samples": samples,
          "close": int(close), "mechanism": mechanism[0],
          **{s.name: st.session_state.get(KEYS[s.name], s.default) for s in PARAMETER_SETTINGS},
          **{f"{mechanism[0]}.{pname}": value for pname, value in mechanism[1]},
          **{name: st.session_state[KEYS[name]] for name in ("average_words", "candidates", "prior", "target")},
          **{name: tuple(st.session_state[KEYS[name]]) or None  # none chosen: None (an empty list in a link)
             for name in ("average_mechanisms", "frontier_mechanisms")}}
take_home.share(SETTINGS, values)
charts = []  # the page's figures, in order: the report draws them again

try:
    result = cached_rank_experiment(space, key, mechanism, word, epsilon, samples, int(close), seed)
except ValueError as exc:  # e.g. a parameter combination the mechanism refuses
    st.error(str(exc))
    st.stop()
se = result.standard_errors()
how = "exact" if result.exact else f"± {{:.1%}} (one standard error, {samples:,} samples)"

cols = st.columns(3)
for col, name, label in zip(cols, ("original", "close", "distant"),
                            ("Original word (rank 0)", f"Close neighbour (1–{close})", f"Distant word (> {close})")):
    col.metric(label, f"{result.proportions[name]:.1%}", help=how.format(se[name]))

# One below the other: side by side, at 1024 pixels, the table's columns and the chart's titles were cut off.
left, right = st.container(), st.container()
with left:
    what = "Exact output law" if result.exact else f"Ranks of {samples:,} outputs"
    charts.append(figures.rank_histogram(*result.rank_distribution(), len(space), int(close), exact=result.exact,
                                         title=f"{what} for “{word}” at ε = {epsilon:g}"))
    st.plotly_chart(charts[-1], key="rank_histogram")
    plotly_warmup.empty()
with right:
    st.markdown("**Most probable outputs**" if result.exact else "**Most frequent outputs**")
    st.dataframe(
        result.top_table(),
        column_config={"share": st.column_config.NumberColumn("probability" if result.exact else "share",
                                                              format="percent"),
                       "distance": st.column_config.NumberColumn(format="%.3f"),
                       "cosine": st.column_config.NumberColumn("cosine similarity", format="%.3f")},
        hide_index=True,
    )
    note = figures.vocabulary_note(space)
    if note:
        st.caption(note)
    d1, d2 = st.columns(2)
    d1.download_button("Ranks (CSV)", result.to_csv(), file_name=f"ranks-{word}-eps{epsilon:g}.csv", mime="text/csv")
    d2.download_button("Result (JSON)", result.to_json(), file_name=f"ranks-{word}-eps{epsilon:g}.json",
                       mime="application/json")

st.subheader("Across ε")
curve_samples = CURVE_SAMPLES
curve_work = (key, mechanism, word, CURVE_EPSILONS, curve_samples, int(close), seed)
curve_seconds = cached_curve_seconds(space, key, mechanism, word, CURVE_EPSILONS, curve_samples)
sweeps = []
if ui.runs_now(curve_seconds, curve_work, "nr_curves_requested"):
    curve = cached_word_curve(space, key, mechanism, word, CURVE_EPSILONS, curve_samples, int(close), seed)
    sweeps.append((f"“{word}” ({curve_samples} samples per ε)", curve))
else:
    st.info(f"The curve runs the mechanism {len(CURVE_EPSILONS) * curve_samples:,} times on “{word}”, about "
            f"{duration(curve_seconds)} here, so it is drawn only when you ask: a new word or ε then answers at once.",
            icon=":material/schedule:")
    st.button(f"Draw the curve across ε (about {duration(curve_seconds)})", key="nr_curve_run", type="primary",
              on_click=ui.request, args=("nr_curves_requested", curve_work))

with st.expander("Average over random words (the paper's Figs. 2, 8, 9) — compare up to four mechanisms",
                 expanded="fig2" in st.session_state):
    st.markdown(
        "For each ε, one output for each of many words drawn uniformly from the whole vocabulary, as in "
        "the paper. For the multivariate Laplace mechanism close neighbours stay rare at every ε: the "
        "output is either the word itself or a distant word. Each mechanism runs with the parameters "
        "chosen above (the mechanism selected above) or its defaults (the others)."
    )
    # the picker on a row of its own: in a third of the row its tags were cut off at 1024 pixels
    c1 = st.container()
    c2, c3 = st.columns([1.5, 1], vertical_alignment="bottom")
    compare = c1.multiselect("Mechanisms", list(MECHANISMS), max_selections=MAX_COMPARED, key="fig2_mechanisms",
                             format_func=lambda n: figures.short_label(MECHANISMS[n].label))
    n_words = c2.select_slider("Words", AVERAGE_WORDS, key="fig2_words",
                               help="The paper uses 5,000 words; more words = smaller error bands, longer wait.")
    c3.button("Compute the average", type="primary", on_click=lambda: st.session_state.update(
        fig2=(tuple(st.session_state["fig2_mechanisms"]), int(st.session_state["fig2_words"]),
              int(st.session_state["close"]), int(st.session_state["seed"]))))
    if "fig2" in st.session_state:
        names, n_words_run, close_run, seed_run = st.session_state["fig2"]
        averages = []
        for mech_name in names:
            spec = mechanism if mech_name == mechanism[0] else (mech_name, ())
            label = MECHANISMS[mech_name].label
            sweep = cached_sweep(space, key, spec, n_words_run, AVERAGE_EPSILONS, close_run, seed_run, label)
            averages.append((f"{label}, {n_words_run:,} random words" if len(names) > 1
                             else f"average over {n_words_run:,} random words", sweep))
        sweeps.extend(averages)
        # the averages alone (the word's curve may not be drawn: sweeps[1:] would drop the first average)
        st.download_button("Averages (JSON)", sweeps_to_json(averages),
                           file_name=f"proportions-{n_words_run}-words.json", mime="application/json")

# At most 8 lines by default (a word and four mechanisms would draw 15): the user picks the curve sets.
labels = figures.curve_set_labels(sweeps) if sweeps else []
shown = labels
if len(labels) > 1:
    shown = st.multiselect("Curves on the chart", labels, default=figures.default_curve_sets(sweeps),
                           key=f"nr_curves_{zlib.crc32('|'.join(labels).encode())}",
                           help="Three lines each (original, close, distant); more than two sets crowd the chart.")
hidden = len(labels) - len([label for label in labels if label in shown])
if sweeps:  # (none before the curve is asked for, unless the averages below are computed)
    charts.append(figures.proportions_vs_epsilon(sweeps, title="Proportions of outputs against ε",
                                                 chosen_epsilon=epsilon, shown=shown or labels[:1]))
    st.plotly_chart(charts[-1], key="proportions_vs_epsilon")
    st.caption(f"Dotted line: the chosen ε = {epsilon:g}. Colour: the outcome; dash: the curve set. Bands: ±2 "
               "standard errors." + (f" {hidden} of {len(labels)} curve sets hidden: choose them above the chart."
                                     if hidden else ""))

# ---------------------------------------------------------------------------------------------
# Attacker's view (issue 23): what somebody who sees one sanitised word learns. One privlib call per
# result (privlib.words.attacks); work whose estimate is over ui.AUTOMATIC_SECONDS runs on request.


@st.cache_data(show_spinner=False, max_entries=64)
def cached_attack_seconds(_space, space_key, mechanisms, epsilons, count, prior, close, bound, utility=True):
    """`attack_seconds` from the stored kernel costs (``timed=False``): the decision whether an attack starts by
    itself times no kernel (a timing run cost a new process about a second of the first view: issue 22).
    ``utility``: with the close-neighbour share (the view does not show it, so its table is not built)."""
    from privlib.words.attacks import attack_seconds, word_candidates

    return attack_seconds(_space, [resolve_mechanism(m) for m in mechanisms], epsilons,
                          candidates=word_candidates(_space, count, prior), close=close, bound=bound, utility=utility,
                          timed=False)


# a resource, not data: the exact attack keeps its likelihood, which holds the space (not worth pickling)
@st.cache_resource(show_spinner=False, max_entries=16)
def cached_attacker_view(_space, space_key, mechanism, epsilon, count, prior, close, seed):
    from privlib.words.attacks import attacker_view, word_candidates

    return ui.with_progress_bar("Attack at this ε:", lambda progress: attacker_view(
        _space, resolve_mechanism(mechanism), epsilon, candidates=word_candidates(_space, count, prior), close=close,
        seed=seed, progress=progress))


@st.cache_data(show_spinner=False, max_entries=16)
def cached_attack_curve(_space, space_key, mechanism, epsilons, count, prior, close, seed):
    from privlib.words.attacks import attack_curve, word_candidates

    return ui.with_progress_bar("Attack across ε:", lambda progress: attack_curve(
        _space, resolve_mechanism(mechanism), epsilons, candidates=word_candidates(_space, count, prior), close=close,
        seed=seed, progress=progress))


@st.cache_data(show_spinner=False, max_entries=8)
def cached_attack_frontier(_space, space_key, mechanisms, epsilons, count, prior, close, seed):
    from privlib.words.attacks import attack_frontier, word_candidates

    return ui.with_progress_bar("Frontier:", lambda progress: attack_frontier(
        _space, [resolve_mechanism(m) for m in mechanisms], epsilons, candidates=word_candidates(_space, count, prior),
        close=close, seed=seed, progress=progress))


@st.cache_resource(show_spinner="Telling the word from its nearest neighbour …", max_entries=16)
def cached_pair_tradeoff(_space, space_key, mechanism, epsilon, word, seed):
    from privlib.words.attacks import pair_tradeoff

    return pair_tradeoff(_space, resolve_mechanism(mechanism), epsilon, word, seed=seed)


def attack_on_request(estimate, work, requested_key, button_key, what) -> bool:
    """Whether ``work`` runs now (`ui.runs_now` of the seconds ``estimate()`` gives); else the estimate and
    the button that asks for it. Settings the library refuses (e.g. more candidates than CusText maps): said."""
    try:
        seconds = estimate()
    except ValueError as exc:
        st.error(str(exc))
        return False
    if ui.runs_now(seconds, work, requested_key):
        return True
    st.info(f"{what} takes about {duration(seconds)} here (the library's estimate), so it runs only when you ask: "
            "a smaller “Vocabulary size” in the sidebar or fewer candidate words make it faster.",
            icon=":material/schedule:")
    st.button(f"Run it (about {duration(seconds)})", key=button_key, type="primary", on_click=ui.request,
              args=(requested_key, work))
    return False


def attack_result(compute):
    """``compute()``, or None after saying why the library refused it."""
    try:
        return compute()
    except ValueError as exc:
        st.error(str(exc))
        return None


st.subheader("Attacker's view")
st.markdown(
    "What does somebody who sees **one sanitised word** learn about the word that was typed? The secret word is "
    "drawn from the N most frequent words (uniformly, or by a Zipf prior: frequent words are more likely) and run "
    "through the mechanism above at its ε; the attacker sees the output and names one candidate. **Smaller ε = more "
    "privacy**: the attacker names the original less often. The measured attack is exact (the best possible "
    "attacker) for SanText, SanText+, TEM and CusText, and a sampled attack — fitted on one set of outputs, scored "
    "on fresh ones, so a lower bound on the best attacker — for the others."
)
from privlib.presentation.risk import attack_vs_epsilon_chart, frontier_chart, tradeoff_chart
from privlib.words.attacks import PRIORS, VIEW_EPSILONS, largest_epsilon_under

ac1, ac2, ac3 = st.columns([1.6, 1.2, 1.2], vertical_alignment="bottom")
with ac1:
    attack_count = st.select_slider("Candidate words (the most frequent)", attack_counts, key="nr_attack_candidates",
                                    help="The secret word is one of these; the spec's default is 2,000.")
with ac2:
    attack_prior = st.radio("Prior over them", list(PRIORS), key="nr_attack_prior", horizontal=True,
                            format_func=lambda p: {"uniform": "uniform", "zipf": "Zipf (1/rank)"}[p],
                            help="Zipf: the word of rank r has probability ∝ 1/r (a proxy for word frequencies).")
with ac3:
    attack_target = st.number_input("Attack success you accept", min_value=0.0, max_value=1.0, step=0.05, format="%.2f", key="nr_attack_target",
                                    help="Answered below as the largest ε that keeps re-identification under it.")
attack_args = (int(attack_count), attack_prior, int(close))
view_work = ("view", key, mechanism, epsilon, *attack_args, seed)
view = None
if attack_on_request(lambda: cached_attack_seconds(space, key, (mechanism,), (epsilon,), *attack_args, True, False),
                     view_work, "nr_attack_requested", "nr_attack_run",
                     f"The attack at ε = {epsilon:g} over {attack_count:,} candidates"):
    view = attack_result(lambda: cached_attacker_view(space, key, mechanism, epsilon, *attack_args, seed))
if view is not None:
    st.markdown(view.sentence)
    low, high = view.interval()
    am1, am2, am3, am4 = st.columns(4)
    am1.metric("Names the original", f"{view.success:.2%}",
               help="Exact: the best attacker." if view.exact else
               f"Sampled attack, ±2 SE: {low:.2%} – {high:.2%} (Wilson).")
    # short labels and values: four metrics side by side at 1024 pixels
    am2.metric("Names the output", f"{view.guess_output:.2%}", help="The naive attacker: names the output word itself.")
    am3.metric("Blind guess", f"{view.prior_baseline:.2%}", help="The most likely candidate, without the output.")
    am4.metric("Guarantee's limit", "none" if view.bound is None else f"{view.bound:.2%}",
               help=view.guarantee.text)
    pair = attack_result(lambda: cached_pair_tradeoff(space, key, mechanism, epsilon, word, seed))
if view is not None and pair is not None:
    pair_attacks = {} if pair.sampled is None else {
        f"distance test ({pair.sampled.samples:,} outputs per word)": pair.sampled}
    charts.append(tradeoff_chart(pair.bound, exact=pair.exact, attacks=pair_attacks,
                                 title=f"Telling “{pair.word}” from “{pair.other}” at ε = {epsilon:g}"))
    st.plotly_chart(charts[-1], key="nr_attack_tradeoff")
    st.caption(
        (f"Any test that sees one output and says “{pair.word}” or “{pair.other}” (its nearest neighbour) stays on or "
         "under the black line, the guarantee's limit (" + pair.guarantee + ")" if pair.bound is not None else
         f"No line bounds a test that tells “{pair.word}” from “{pair.other}” (its nearest neighbour): "
         + pair.guarantee)
        + (". Dashed: the best test's exact curve, from the mechanism's output probabilities." if pair.exact is not None
           else "; this mechanism has no exact output law, so the coloured line is a measured test: say "
                f"“{pair.word}” when the output is nearer to it than to “{pair.other}” (by a margin, one point per "
                "margin), scored on sampled outputs.")
        + " The nearer a curve to the diagonal, the less one output tells the two words apart.")

attack_curve_work = ("curve", key, mechanism, VIEW_EPSILONS, *attack_args, seed)
attack_curve_result = None
if attack_on_request(lambda: cached_attack_seconds(space, key, (mechanism,), VIEW_EPSILONS, *attack_args, True),
                     attack_curve_work, "nr_attack_curve_requested", "nr_attack_curve_run",
                     f"The attack at {len(VIEW_EPSILONS)} values of ε"):
    attack_curve_result = attack_result(lambda: cached_attack_curve(space, key, mechanism, VIEW_EPSILONS, *attack_args,
                                                                    seed))
if attack_curve_result is not None:
    attack_label = attack_curve_result.labels[attack_curve_result.mechanisms[0]]
    exact_attack = attack_curve_result.exact[0]
    bound_values = attack_curve_result.bound
    guaranteed = bool(np.isfinite(bound_values).all())
    charts.append(attack_vs_epsilon_chart(
        attack_curve_result.epsilons,
        {("Bayes attack (exact)" if exact_attack else "sampled attack"): (
            attack_curve_result.success[0], None if exact_attack else attack_curve_result.success_se[0]),
         "names the output itself": (attack_curve_result.guess_output[0],
                                     None if exact_attack else attack_curve_result.guess_output_se[0])},
        bound=bound_values if guaranteed else None, baseline=attack_curve_result.prior_baseline,
        chosen_epsilon=epsilon, y_title="re-identification success",
        title=f"Re-identification against ε: {figures.short_label(attack_label)}"))
    st.plotly_chart(charts[-1], key="nr_attack_vs_epsilon")
    st.caption(
        "Left = smaller ε = more privacy. "
        + ("Black: the guarantee's bound for every attacker (the dual bound over the candidates); " if guaranteed
           else f"No bound is drawn: {attack_label} gives no guarantee over these candidates; ")
        + "dashed grey: guessing without the output. Where the attack meets the grey line, one output tells an "
          "attacker nothing more than word frequency" + ("." if exact_attack else "; bands ±2 SE."))
    target_answer = largest_epsilon_under(attack_curve_result, attack_target)
    st.markdown(f"**Target {attack_target:.0%}.** {target_answer.sentence}")
else:
    st.caption(f"Target {attack_target:.0%}: answered (the largest ε that keeps re-identification under it) once "
               "the attack across ε has run.")

with st.expander("Frontier: attack success against utility, mechanism by mechanism", expanded=False):
    st.markdown("ε values compare only within the Euclidean d_X family; the frontier compares mechanisms by what "
                "they give (close-neighbour outputs, the utility) against what they leak (re-identification).")
    frontier_names = st.multiselect("Mechanisms", list(MECHANISMS), max_selections=MAX_COMPARED, key="nr_attack_frontier_mechanisms",
                                    format_func=lambda n: figures.short_label(MECHANISMS[n].label))
    frontier_specs = tuple(mechanism if n == mechanism[0] else (n, ()) for n in frontier_names)
    if frontier_specs:
        frontier_work = ("frontier", key, frontier_specs, VIEW_EPSILONS, *attack_args, seed)
        frontier = None
        if attack_on_request(lambda: cached_attack_seconds(space, key, frontier_specs, VIEW_EPSILONS, *attack_args,
                                                           False),
                             frontier_work, "nr_attack_frontier_requested", "nr_attack_frontier_run", "The frontier"):
            frontier = attack_result(lambda: cached_attack_frontier(space, key, frontier_specs, VIEW_EPSILONS,
                                                                    *attack_args, seed))
        if frontier is not None:
            charts.append(frontier_chart(
                {figures.short_label(frontier.labels[n]): (frontier.close[i], frontier.success[i], frontier.epsilons)
                 for i, n in enumerate(frontier.mechanisms)},
                x_title=f"close-neighbour outputs (rank 1–{close}): utility", y_title="re-identification success",
                baseline=frontier.prior_baseline, title="Attack success against utility"))
            st.plotly_chart(charts[-1], key="nr_attack_frontier")
            st.caption("Each point is one ε (hover for it). Better mechanisms sit to the right (more close-neighbour "
                       "outputs) and low (less re-identification); the dashed line is guessing without the output.")

with st.expander("About this mechanism"):
    chosen = resolve_mechanism(mechanism)
    st.markdown(f"**{chosen.label}.** {chosen.guarantee.text}")
    st.markdown((type(chosen).__doc__ or "").split("\n\n")[0])

take_home.panel(SETTINGS, values, numbers(result), charts, KEYS, PROTECTS)
