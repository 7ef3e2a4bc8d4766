"""Page "Why it happens": from Laplace noise in one dimension to word embeddings, the paper's
explanation (Asghar et al., PoPETs 2026, §1-§7: Figs. 1, 3, 4; §4-§6 with Eqs. 18-21, Table 2
and Fig. 6) with the loaded embedding's own numbers. Its settings, link, script and report:
`privlib.analyses.why_it_happens` through `epsilon_lab.take_home` (issue 24)."""
import json

import numpy as np
import streamlit as st

from epsilon_lab import embedding_ui, take_home, ui
from privlib.analyses.why_it_happens import (
    DEFAULT_PLACES,
    EPSILONS_1D,
    FIG6_EPSILONS,
    FIG6_MECHANISM_WORDS,
    FIX_EPSILONS,
    FIX_MECHANISMS,
    FIX_WORDS,
    MAP_EPSILONS,
    MAP_SAMPLES,
    MAX_PLACES,
    NOISE_SAMPLES,
    PROTECTS,
    REACH_LEVEL,
    SAMPLES_1D,
    SETTINGS,
    TABLE2_WORDS,
    numbers,
)
from privlib.core.validation import duration
from privlib.presentation.words import figures
from privlib.words.experiments import sweep
from privlib.words.mechanisms.postprocessing import DEFAULT_C
from privlib.words.neighbours import DEFAULT_CLOSE
from privlib.words.theory.analogies import (
    CLOSE_1D,
    TRUE_VALUE_1D,
    PointMap,
    keep_rates,
    laplace_1d_comparison,
    planar_noise,
)
from privlib.words.theory.neighbour_distances import (
    FAR_RANK,
    mechanism_frequencies,
    neighbour_distances,
    published_table2,
    table2_rows,
    win_probabilities,
    word_neighbourhood,
)

#: The widget key of each setting (`privlib.analyses.why_it_happens.SETTINGS`; the sidebar's: `take_home`).
KEYS = {"noise_1d": "why_1d_kind", "samples_1d": "why_1d_samples", "map_epsilon": "why_map_epsilon",
        "places": "why_places", "word": "why_word", "words": "why_table_words"}


@st.cache_data(show_spinner=False, max_entries=16)
def cached_1d(kind, samples, seed):
    return laplace_1d_comparison(EPSILONS_1D, samples, kind=kind, rng=seed)


@st.cache_data(show_spinner=False)
def us_map():
    return PointMap.us_states()


@st.cache_data(show_spinner="Running the map mechanism …", max_entries=8)
def cached_keep_rates(samples, seed):
    return keep_rates(us_map(), MAP_EPSILONS, samples, rng=seed)


@st.cache_data(show_spinner=False, max_entries=16)
def cached_planar_noise(epsilon, seed):
    return planar_noise(epsilon, NOISE_SAMPLES, rng=seed)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_word(_space, space_key, word):
    return word_neighbourhood(_space, word, FAR_RANK)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_table2(_space, space_key, words, seed):
    return ui.with_progress_bar("Ranking neighbours …",
                             lambda progress: neighbour_distances(_space, words, rng=seed, progress=progress))


@st.cache_data(show_spinner="Estimating the time of Table 2 …", max_entries=16)
def cached_table2_seconds(_space, space_key, words):
    """`neighbour_distances_seconds`: Table 2 for more words than the default waits for its button when longer than
    `ui.AUTOMATIC_SECONDS`."""
    from privlib.words.cost import neighbour_distances_seconds  # (here: the first view needs no estimate)

    return neighbour_distances_seconds(_space, words)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_win_probabilities(_table, space_key, words, seed):
    return ui.with_progress_bar("Exact probabilities …",
                             lambda progress: win_probabilities(_table, FIG6_EPSILONS, progress=progress))


@st.cache_data(show_spinner=False, max_entries=64)
def cached_word_win_probabilities(_table, space_key, word):
    return win_probabilities(_table, FIG6_EPSILONS)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_frequencies(_space, _table, space_key, words, seed):
    return ui.with_progress_bar("Running the mechanism …", lambda progress: mechanism_frequencies(
        _space, _table, FIG6_EPSILONS, FIG6_MECHANISM_WORDS, 1, rng=seed, progress=progress))


def frequencies_seconds(space) -> float:
    """`mechanism_frequencies_seconds` from the stored kernel costs (no timing: microseconds). Fig. 6's runs of the
    mechanism start by itself only when at most `ui.AUTOMATIC_SECONDS` (issue 22: 2,200 searches of the whole GloVe
    vocabulary are about a second of the first view); the exact curves are shown at once."""
    from privlib.words.cost import mechanism_frequencies_seconds

    return mechanism_frequencies_seconds(space, FIG6_EPSILONS, FIG6_MECHANISM_WORDS, 1, timed=False)


@st.cache_data(show_spinner=False, max_entries=8)
def cached_fix_sweep(_space, space_key, seed):
    """Step 5's comparison: `sweep` of the two mechanisms on `FIX_WORDS` random words (its numbers with this seed)."""
    return ui.with_progress_bar("Comparing the mechanisms …", lambda progress: sweep(
        _space, FIX_MECHANISMS, FIX_EPSILONS, repeats=FIX_WORDS, seed=seed, progress=progress))


def fix_seconds(space) -> float:
    """`epsilon_sweep_seconds` of step 5's comparison, summed over its two mechanisms, from the stored kernel costs (no
    timing: microseconds). It starts by itself only when at most `ui.AUTOMATIC_SECONDS`: on the whole GloVe vocabulary
    its 1,400 searches and the fix's ranking of each pivot's neighbours are about 2 s of CPU, which in the background
    (as before) took a core from steps 1–4 on a 2-core machine (issue 22: a first view of 6.9 s)."""
    from privlib.words.cost import epsilon_sweep_seconds
    from privlib.words.mechanisms import resolve_mechanism

    return sum(epsilon_sweep_seconds(space, FIX_EPSILONS, FIX_WORDS, resolve_mechanism(name), timed=False)
               for name in FIX_MECHANISMS)


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets (the sidebar's too)
defaults = SETTINGS.defaults()
for name, widget in KEYS.items():  # widgets take their value from their state: a restored setting stays
    st.session_state.setdefault(widget, defaults[name])
# a restored place list is a tuple, or None (none chosen): a multiselect's state is a list
st.session_state[KEYS["places"]] = list(st.session_state[KEYS["places"]] or [])
space = embedding_ui.word_space()
key = embedding_ui.embedding_key(space)
seed = int(st.session_state["seed"])
charts = []  # the page's figures, in order: the report draws them again

st.title("Why it happens")
st.markdown(
    "On word embeddings the multivariate Laplace mechanism returns either the word itself or a "
    "far-off word, and almost never one of its close neighbours (see *Neighbour ranks*). This page "
    "follows the paper's explanation step by step, from noise on a number line to the words of "
    f"**{space.name}**."
)

# ------------------------------------------------------------------------------------ step 1
st.header("1. On a number line, Laplace noise behaves as expected")
st.markdown(
    f"Add Laplace noise of scale 1/ε to the number {TRUE_VALUE_1D:,} and round to a whole number. Call an "
    f"output *close* when it is within ±{CLOSE_1D} of the true value — the analogue of a word's "
    f"{CLOSE_1D} nearest neighbours. Here every number's nearest neighbour is 1 away, and so is the next "
    "one: as ε grows the outputs move smoothly from distant to close to the number itself."
)
c1, c2 = st.columns([2, 1])
kind = c1.radio("Integer noise", SETTINGS.by_name["noise_1d"].choices, horizontal=True, key="why_1d_kind",
                format_func={"rounded": "Laplace, rounded to the nearest integer",
                             "geometric": "discrete Laplace (two-sided geometric)"}.get,
                help="Both are ε-differentially private for counts (sensitivity 1).")
samples_1d = c2.select_slider("Simulated draws per ε", SAMPLES_1D, key="why_1d_samples")
exact_1d, simulated_1d = cached_1d(kind, samples_1d, seed)
charts.append(figures.proportions_vs_epsilon(
    [("exact (closed form)", exact_1d), (f"simulated ({samples_1d:,} draws per ε)", simulated_1d)],
    title=f"One dimension: outputs for the true value {TRUE_VALUE_1D:,}"))
st.plotly_chart(charts[-1], key="why_1d_chart")

# ------------------------------------------------------------------------------------ step 2
st.header("2. On a map, islands keep themselves")
point_map = us_map()
st.markdown(
    "Now two dimensions: report a US state's centre with planar Laplace noise, as location privacy "
    "does, and output the nearest state. The same ε that sends Kansas to one of its neighbours about "
    f"{point_map.nearest_distance('Kansas'):,.0f} km away leaves Hawaii, "
    f"{point_map.nearest_distance('Hawaii'):,.0f} km from any other state, where it is: what an output "
    "looks like depends on how far the nearest neighbour is."
)
c1, c2 = st.columns([2, 1])
with c1:
    map_epsilon = ui.epsilon_slider("ε per km", key="why_map_epsilon", default=0.002, options=MAP_EPSILONS)
places = c2.multiselect("Places on the curve", list(point_map.names), key="why_places", max_selections=MAX_PLACES)
rates = cached_keep_rates(MAP_SAMPLES, seed)
left, right = st.columns(2)
charts.append(figures.location_map(point_map, rates.at(map_epsilon), map_epsilon, highlight=places))
left.plotly_chart(charts[-1], key="why_map")
charts.append(figures.keep_rate_vs_epsilon(rates, places or list(DEFAULT_PLACES),
                                           title=f"Proportion of {MAP_SAMPLES:,} runs that keep the place",
                                           chosen_epsilon=map_epsilon))
right.plotly_chart(charts[-1], key="why_keep_rates")
st.caption(f"Left: each state coloured by how often it keeps itself at ε = {map_epsilon:g} per km. Right: the same "
           "proportion across ε for the chosen places (dotted line: the chosen ε), ±2 standard errors.")
with st.expander("The noise in two dimensions (the paper's Fig. 4)"):
    noise = cached_planar_noise(map_epsilon, seed)
    exact = noise.exact_densities()
    n1, n2 = st.columns(2)  # two in a row and the scatter below: three in a row cut their legends at 1024 px
    n3 = st.container()
    charts.append(figures.density_with_samples(
        *exact["radius"], noise.radius, x_title="radius ‖η‖ (km)",
        title="Radius: Gamma(2, 1/ε)", exact_name="Gamma(2, scale 1/ε) density"))
    n1.plotly_chart(charts[-1], key="why_noise_radius")
    charts.append(figures.density_with_samples(
        *exact["angle"], noise.angle, x_title="angle (radians)",
        title="Angle: uniform", exact_name="uniform density 1/(2π)"))
    n2.plotly_chart(charts[-1], key="why_noise_angle")
    charts.append(figures.noise_scatter(noise.noise, map_epsilon, units=" km", title="Noise vectors η"))
    n3.plotly_chart(charts[-1], key="why_noise_scatter")
    st.caption(f"{NOISE_SAMPLES:,} draws at ε = {map_epsilon:g} per km: the radius has mean 2/ε = {2 / map_epsilon:,.0f} km "
               "and every direction is equally likely.")

# ------------------------------------------------------------------------------------ step 3
st.header("3. In a word embedding, every word is an island")
st.markdown(
    f"In {space.dim} dimensions a word's nearest neighbour is far away, while its neighbours are at "
    "almost the same distance from it: the gaps between consecutive neighbours are tiny compared with "
    "the distance to the first one. Every word is a Hawaii, surrounded at a distance by a crowd."
)
word = st.text_input("Word", key="why_word",
                     help="Any word of the vocabulary; its neighbours are ranked by Euclidean distance.").strip()
word_ok = False
if not word:
    st.info("Type a word to see its neighbours.")
else:
    try:
        space.index(word)
        word_ok = True
    except ValueError as exc:
        st.error(f"{exc} The neighbour chart needs a word of the loaded vocabulary.")
word_table = neighbourhood = None
if word_ok:
    try:
        neighbourhood = cached_word(space, key, word)
        word_table = neighbourhood.table
    except ValueError as exc:  # e.g. a vocabulary smaller than the word and its 101 neighbours
        st.error(str(exc))
        word_ok = False
        neighbourhood = None
if word_ok:
    z, (x1, x2, x_far) = neighbourhood.z, neighbourhood.neighbours
    m1, m2, m3 = st.columns(3)
    # Short labels (cut off at 1024 pixels otherwise): the nearest neighbour named, the others in the help.
    m1.metric(f"z(w, x₁) · “{x1}”", f"{z['z_w_x1']:.3f}",
              help=f"Half the distance from “{word}” to its nearest neighbour x₁ = “{x1}”.")
    m2.metric("z(x₁, x₂)", f"{z['z_x1_x2']:.3f}" if np.isfinite(z["z_x1_x2"]) else "undefined",
              help=f"Eq. 19: the nearest neighbour x₁ = “{x1}” against the next one, x₂ = “{x2}”.")
    m3.metric(f"z(x₁, x{FAR_RANK})",
              f"{z[f'z_x1_x{FAR_RANK}']:.3f}" if np.isfinite(z[f"z_x1_x{FAR_RANK}"]) else "undefined",
              help=f"Eq. 19: x₁ = “{x1}” against neighbour {FAR_RANK}, “{x_far}”.")
    st.caption(f"Nearest neighbours of “{word}”: x₁ = “{x1}”, x₂ = “{x2}”, x{FAR_RANK} = “{x_far}”. "
               + (figures.vocabulary_note(space) or ""))
    charts.append(figures.neighbour_distance_profile(
        neighbourhood.distances, word, FAR_RANK, title=f"The {FAR_RANK} nearest neighbours of “{word}”"))
    st.plotly_chart(charts[-1], key="why_profile")

st.subheader("Across the vocabulary (the paper's Table 2)")
n_table = st.radio("Words drawn at random from the whole vocabulary", TABLE2_WORDS, horizontal=True,
                   key="why_table_words", format_func=lambda n: f"{n:,}" + (" (as the paper)" if n == 5_000 else ""),
                   help="The paper uses 5,000 words; more words = smaller standard errors and a longer wait.")
values = {**take_home.embedding_values(space, seed), "noise_1d": kind, "samples_1d": samples_1d,
          "map_epsilon": float(map_epsilon), "places": tuple(places) or None,  # none chosen: None (empty in a link)
          "word": word, "words": n_table}
take_home.share(SETTINGS, values)
table_work = (key, n_table, seed)
if n_table != TABLE2_WORDS[0]:
    table_seconds = cached_table2_seconds(space, key, n_table)
    if not ui.runs_now(table_seconds, table_work, "why_table_requested"):
        st.info(f"Ranking the neighbours of {n_table:,} words takes about {duration(table_seconds)} here (and step 4 "
                "grows with it), so it runs only when you ask: a click elsewhere then answers at once. Shown until "
                f"then: {TABLE2_WORDS[0]:,} words.", icon=":material/schedule:")
        st.button(f"Compute Table 2 for {n_table:,} words (about {duration(table_seconds)})", key="why_table_run",
                  type="primary", on_click=ui.request, args=("why_table_requested", table_work))
        n_table = TABLE2_WORDS[0]
try:
    table = cached_table2(space, key, n_table, seed)
except ValueError as exc:  # e.g. a vocabulary smaller than a word and its 101 neighbours
    st.error(str(exc))
    st.stop()
published = published_table2(space)
rows = table2_rows(table, published)
TABLE2_HEADERS = {"± standard error": "± SE", "standard deviation over words": "SD over words",
                  "paper (Table 2)": "paper", "artifact's run": "artifact's run"}  # short: not cut at 1024 pixels
st.dataframe(rows, hide_index=True, column_config={
    k: st.column_config.NumberColumn(TABLE2_HEADERS.get(k, k), format="%.4f") for k in rows[0] if k != "quantity"})
if published is not None:
    st.caption(f"Paper: 5,000 random words of GloVe 6B {published['dim']}d (all 400,000 words); its public "
               "artifact's own run printed the second column. Different random words give slightly different "
               "means: compare the difference with the standard error.")
else:
    st.caption("The paper published Table 2 for GloVe 6B (all 400,000 words) in 50–300 dimensions; load the "
               "full built-in GloVe 6B 50d to see its values beside these.")
undefined = {k: v for k, v in table.undefined().items() if v}
if undefined:
    st.caption(f"Left out of the means: {undefined} word(s) whose two neighbours have identical vectors "
               "(Eq. 19 is 0/0 there).")
charts.append(figures.neighbour_gap_distributions(
    table.values(), table.means(), dict(zip(table.names, published["paper"])) if published else None,
    title=f"Per-word distributions over {len(table):,} random words"))
st.plotly_chart(charts[-1], key="why_table2_chart")
st.download_button("Per-word values (JSON)", json.dumps(table.to_dict(per_word=True)),
                   file_name=f"table2-{len(table)}-words-seed{seed}.json", mime="application/json")

# ------------------------------------------------------------------------------------ step 4
st.header("4. The noisy dot product decides, and it cannot see small gaps")
st.markdown(
    "The word w beats its nearest neighbour x₁ when the noisy dot product Z (see *Noisy dot product*) "
    "stays below z(w, x₁) (Eq. 18); x₁ beats x₂ when Z stays below z(x₁, x₂) (Eq. 19). Both probabilities "
    "start at ½ when the noise is large. Because z(w, x₁) is large, the first climbs to 1 at moderate ε — "
    "the word wins; because z(x₁, x₂) is small, the second stays near ½ — the order among neighbours is "
    "a coin toss, so no neighbour is favoured."
)
probabilities = cached_win_probabilities(table, key, n_table, seed)
fig6_work = ("fig6 runs", key, n_table, seed)
fig6_seconds = frequencies_seconds(space)
frequencies = None
if ui.runs_now(fig6_seconds, fig6_work, "why_fig6_requested"):
    frequencies = cached_frequencies(space, table, key, n_table, seed)
word_curves = None
if word_table is not None:
    word_curves = (word, cached_word_win_probabilities(word_table, key, word))
charts.append(figures.win_probabilities_vs_epsilon(
    probabilities, frequencies, word_curves,
    title=f"Exact probabilities (n = {space.dim}) for {len(table):,} random words"
          + (", and what the mechanism did" if frequencies is not None else "")))
st.plotly_chart(charts[-1], key="why_fig6")
reach = probabilities.first_reaching(REACH_LEVEL)
if reach is not None:
    st.markdown(
        f"At ε = {reach['epsilon']:g}, w beats x₁ with probability {reach['w_beats_x1']:.2f} on "
        f"average, while x₁ beats x₂ with probability {reach['x1_beats_x2']:.2f} (a coin toss would be 0.50)."
    )
runs_text = (f"Diamonds: {FIG6_MECHANISM_WORDS} of the same words, one run each per ε, ±2 standard errors. Eq. 18 is "
             "an upper bound on the proportion of original outputs: the word must beat every other word, not only x₁, "
             "and with large noise one of them usually does.") if frequencies is not None else (
    f"What the mechanism did ({FIG6_MECHANISM_WORDS} of the same words, one run each per ε: "
    f"{FIG6_MECHANISM_WORDS * len(FIG6_EPSILONS):,} searches of the whole vocabulary, about {duration(fig6_seconds)} "
    "here) is drawn as diamonds when you ask, so the page answers at once.")
st.caption("Curves: exact, from the closed-form law of Z (no Monte Carlo); the band holds 80 % of the words. "
           + runs_text)
if frequencies is None:
    st.button(f"Run the mechanism on {FIG6_MECHANISM_WORDS} words (about {duration(fig6_seconds)})",
              key="why_fig6_run", on_click=ui.request, args=("why_fig6_requested", fig6_work))

# ------------------------------------------------------------------------------------ step 5
st.header("5. What the fix changes")
st.markdown(
    "The paper's fix (§7) keeps the mechanism's output only as a pivot and then picks a word near the pivot, "
    f"with probability decreasing with its rank among the pivot's neighbours (c = {DEFAULT_C:g}). It reads only "
    "the pivot, so the privacy guarantee is unchanged, but close neighbours of the input now come out."
)
fix_work = ("fix", key, seed)
fix_estimate = fix_seconds(space)
if ui.runs_now(fix_estimate, fix_work, "why_fix_requested"):
    fix_sweep = cached_fix_sweep(space, key, seed)
    charts.append(figures.proportions_vs_epsilon(
        fix_sweep, title=f"Outputs of {fix_sweep.repeats} random words, without and with the fix"))
    st.plotly_chart(charts[-1], key="why_fix")
else:
    st.info(f"The comparison — how often {FIX_WORDS} random words come out as themselves, as one of their "
            f"{DEFAULT_CLOSE} nearest neighbours or as a distant word, at ε from {FIX_EPSILONS[0]:g} to "
            f"{FIX_EPSILONS[-1]:g}, without and with the fix ({2 * FIX_WORDS * len(FIX_EPSILONS):,} runs of the "
            f"mechanisms, each a search of the whole vocabulary) — takes about {duration(fix_estimate)} here: it is "
            "drawn when you ask, so the page answers at once.", icon=":material/schedule:")
    st.button(f"Compare the two mechanisms on {FIX_WORDS} words (about {duration(fix_estimate)})", key="why_fix_run",
              type="primary", on_click=ui.request, args=("why_fix_requested", fix_work))
st.page_link(ui.PAGES / "neighbour_ranks.py", label="Try both mechanisms on any word in Neighbour ranks", icon="➡️")

if len(table) != values["words"]:
    st.caption(f"The script below computes Table 2 for the {values['words']:,} words chosen in step 3; the numbers "
               f"here are those of the {len(table):,} words shown until you compute it.")
take_home.panel(SETTINGS, values, numbers(table, neighbourhood, probabilities), charts, KEYS, PROTECTS)
