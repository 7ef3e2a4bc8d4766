"""Page "Neighbour ranks": where do the mechanism's outputs land among the word's neighbours?

Cheap parts first: the title and the explanation show while the embedding loads (in the background
since the app started, `embedding_ui.preload`); privlib and Plotly are imported once the embedding is there.
"""
import zlib

import numpy as np
import streamlit as st

from epsilon_lab import embedding_ui, ui

#: Words offered in the type-ahead list (the most frequent ones); any other vocabulary word can be typed.
PICKER_WORDS = 20_000
SAMPLE_CHOICES = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000]
CURVE_EPSILONS = (0.5, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)
FIG2_EPSILONS = tuple(range(1, 31))
#: The curve across ε starts by itself only when its estimate is at most this many seconds (issue 22: a new word
#: or ε answers at once); a longer one waits for its button.
AUTOMATIC_SECONDS = 1.5


@st.cache_data(show_spinner="Running the mechanism …", max_entries=64)
def cached_rank_experiment(_space, space_key, mechanism, word, epsilon, samples, close, seed):
    return rank_experiment(_space, word, epsilon, samples, resolve_mechanism(mechanism), close, rng=seed)


@st.cache_data(show_spinner="Sampling across ε …", max_entries=32)
def cached_word_curve(_space, space_key, mechanism, word, epsilons, samples, close, seed):
    return epsilon_sweep(_space, epsilons, [word], resolve_mechanism(mechanism), close, rng=seed,
                         samples_per_word=samples)


@st.cache_data(show_spinner="Estimating the time of the curve …", max_entries=64)
def cached_curve_seconds(_space, space_key, mechanism, word, epsilons, samples):
    """`epsilon_sweep_seconds` of the word's curve: drawn by itself only when at most `AUTOMATIC_SECONDS`."""
    from privlib.words.cost import epsilon_sweep_seconds

    return epsilon_sweep_seconds(_space, epsilons, [word], resolve_mechanism(mechanism), samples_per_word=samples)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_sweep(_space, space_key, mechanism, n_words, epsilons, close, seed, label):
    return ui.with_progress_bar(f"{label}:", lambda progress: epsilon_sweep(
        _space, epsilons, n_words, resolve_mechanism(mechanism), close, rng=seed, progress=progress))


ui.start_page()
qp = st.query_params

if "nr_initialised" not in st.session_state:  # a shared link sets the first view
    st.session_state["nr_initialised"] = True
    st.session_state["word"] = qp.get("word", "king")
    st.session_state["epsilon"] = ui.float_param(qp.get("epsilon"), 10.0, name="epsilon")

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
space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)

# Imported here, after the cheap parts are on screen (the embedding's load has imported most of privlib).
from privlib.core.validation import duration
from privlib.presentation.words import figures
from privlib.words.experiments import epsilon_sweep, rank_experiment, sweeps_to_json
from privlib.words.mechanisms import MECHANISMS, resolve_mechanism

words_offered = list(space.words[: min(PICKER_WORDS, len(space))])
current = st.session_state.get("word") or "king"
if current not in words_offered:
    words_offered.append(current)


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
    samples = st.select_slider("Samples", SAMPLE_CHOICES, value=2_000, key="samples",
                               help="Number of times the mechanism is run on the word (mechanisms with exact "
                                    "output probabilities are not sampled).")
with controls[3]:
    close = st.number_input("K (close ranks)", min_value=1, max_value=min(10_000, len(space) - 1),
                            value=min(100, len(space) - 1), key="close",
                            help="Outputs ranked 1..K are 'close neighbours' (the paper uses K = 100).")
mech_col, eps_col = st.columns([1.4, 2])
with mech_col:
    mechanism = embedding_ui.mechanism_controls(key="mechanism")
with eps_col:
    epsilon = ui.epsilon_slider(help=embedding_ui.WORD_EPSILON_HELP)
seed = int(st.session_state["seed"])
st.query_params.update({"word": word or "", "epsilon": f"{epsilon:g}", "seed": str(seed)})

if not word:
    st.info("Type a word to start.")
    st.stop()
if word not in space:
    try:
        space.index(word)
    except ValueError as exc:
        st.error(str(exc))
    st.stop()

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
    st.plotly_chart(
        figures.rank_histogram(*result.rank_distribution(), len(space), int(close), exact=result.exact,
                               title=f"{what} for “{word}” at ε = {epsilon:g}"),
        key="rank_histogram",
    )
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
curve_samples = 300
curve_work = (key, mechanism, word, CURVE_EPSILONS, curve_samples, int(close), seed)
curve_seconds = cached_curve_seconds(space, key, mechanism, word, CURVE_EPSILONS, curve_samples)
sweeps = []
if curve_seconds <= AUTOMATIC_SECONDS or curve_work in st.session_state.get("nr_curves_requested", set()):
    curve = cached_word_curve(space, key, mechanism, word, CURVE_EPSILONS, curve_samples, int(close), seed)
    sweeps.append((f"“{word}” ({curve_samples} samples per ε)", curve))
else:
    st.info(f"The curve runs the mechanism {len(CURVE_EPSILONS) * curve_samples:,} times on “{word}”, about "
            f"{duration(curve_seconds)} here, so it is drawn only when you ask: a new word or ε then answers at once.",
            icon=":material/schedule:")
    st.button(f"Draw the curve across ε (about {duration(curve_seconds)})", key="nr_curve_run", type="primary",
              on_click=lambda: st.session_state.setdefault("nr_curves_requested", set()).add(curve_work))

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
    compare = c1.multiselect("Mechanisms", list(MECHANISMS), default=[mechanism[0]], max_selections=4,
                             key="fig2_mechanisms", format_func=lambda n: figures.short_label(MECHANISMS[n].label))
    n_words = c2.select_slider("Words", [50, 100, 200, 500, 1_000, 2_000, 5_000], value=200, key="fig2_words",
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
            sweep = cached_sweep(space, key, spec, n_words_run, FIG2_EPSILONS, close_run, seed_run, label)
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
    st.plotly_chart(figures.proportions_vs_epsilon(sweeps, title="Proportions of outputs against ε",
                                                   chosen_epsilon=epsilon, shown=shown or labels[:1]),
                    key="proportions_vs_epsilon")
    st.caption(f"Dotted line: the chosen ε = {epsilon:g}. Colour: the outcome; dash: the curve set. Bands: ±2 "
               "standard errors." + (f" {hidden} of {len(labels)} curve sets hidden: choose them above the chart."
                                     if hidden else ""))

with st.expander("About this mechanism"):
    chosen = resolve_mechanism(mechanism)
    st.markdown(f"**{chosen.label}.** {chosen.guarantee.text}")
    st.markdown((type(chosen).__doc__ or "").split("\n\n")[0])
