"""Page "Noisy dot product": the exact law of Z = <eta, e>, its components and tail bounds."""
import json
import math

import numpy as np
import pandas as pd
import streamlit as st

from epsilon_lab import embedding_ui, take_home, ui
from privlib.analyses.noisy_dot_product import CONFIDENCE, PROTECTS, SETTINGS, numbers
from privlib.presentation.style import MISSING
from privlib.presentation.words import figures
from privlib.words.theory.dot_experiment import dot_product_experiment, law_curves, tail_table

NO_WORD = "(none: a fixed unit vector)"
NORMALISE_LABELS = {True: "the unit vector w/‖w‖  (law Z)", False: "the word vector w  (law ‖w‖·Z)"}
#: The widget key of each setting (`privlib.analyses.noisy_dot_product.SETTINGS`).
KEYS = {name: f"dot_{name}" for name in ("n", "epsilon", "samples", "word", "normalise", "integral")}
NO_BOUND = MISSING


@st.cache_data(show_spinner="Sampling the mechanism's noise …", max_entries=32)
def cached_experiment(_space, space_key, n, epsilon, samples, word, normalise, seed):
    return dot_product_experiment(n, epsilon, samples, _space, word, normalise, rng=seed)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_law_curves(n, epsilon, with_integral):
    return law_curves(n, epsilon, with_integral)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_tail_table(n, epsilon):
    return tail_table(n, epsilon)


ui.start_page()
take_home.restore(SETTINGS, KEYS)  # a shared link's settings, before the widgets
space = embedding_ui.word_space()
st.title("Noisy dot product")
st.markdown(
    "Which word does the mechanism output? The one minimising ‖w − x‖² − 2⟨x, η⟩ (paper §4). "
    "So what matters is the **noisy dot product** Z = ⟨η, e⟩ of the noise η with a fixed unit "
    "vector e. Its spread grows like √n/ε: in 50 or 300 dimensions it dwarfs the small gaps between "
    "a word's close neighbours, so the noise either leaves the word where it is or throws it far away. "
    "Below: Z sampled from the mechanism's real noise, against its exact law (a closed form — "
    "the paper used Monte Carlo), its two components, and the paper's tail bounds."
)

defaults = {**SETTINGS.defaults(), "n": space.dim}
for name, key in KEYS.items():  # widgets take their value from their state: a restored setting stays
    st.session_state.setdefault(key, defaults[name])
c1, c2, c3 = st.columns([1, 2, 2], vertical_alignment="bottom")
n = c1.number_input("Dimension n", min_value=1, max_value=5000, key="dot_n",
                    help=f"Default: the loaded embedding's dimension ({space.dim}).")
with c2:
    epsilon = ui.epsilon_slider(key="dot_epsilon", help=embedding_ui.WORD_EPSILON_HELP)
samples = c3.select_slider("Samples", SETTINGS.by_name["samples"].choices, key="dot_samples")

c4, c5, c6 = st.columns([1.7, 1.7, 1.6], vertical_alignment="bottom")
words = [None] + list(space.words[:20_000])
chosen = st.session_state["dot_word"]
if chosen is not None and chosen not in words[1:]:
    if chosen in space:  # e.g. from a link: any vocabulary word
        words.append(chosen)
    else:
        st.warning(f"{chosen[:40]!r} is not in the embedding's vocabulary: no word is used.", icon="⚠️")
        st.session_state["dot_word"] = None
word = c4.selectbox("Word (optional)", words, key="dot_word", disabled=n != space.dim,
                    format_func=lambda w: NO_WORD if w is None else w,
                    help="Dot the noise with this word's vector; needs n = the embedding's dimension.")
word = None if n != space.dim else word
normalise = c5.radio("Dot product with", [True, False], key="dot_normalise", disabled=word is None,
                     format_func=NORMALISE_LABELS.get, horizontal=False)
show_integral = c6.toggle("Paper's integral", key="dot_integral",
                          help="Overlay the paper's Eq. 13, integrated numerically: it coincides with the closed form.")
seed = int(st.session_state["seed"])
values = {**take_home.embedding_values(space, seed), "n": int(n), "epsilon": float(epsilon), "samples": samples,
          "word": word, "normalise": bool(normalise), "integral": bool(show_integral)}
take_home.share(SETTINGS, values)

try:
    exp = cached_experiment(space, embedding_ui.embedding_key(space), int(n), epsilon, samples, word, normalise, seed)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
law = exp.law
curves = cached_law_curves(law.n, law.epsilon, show_integral)
subject = f"⟨η, {word}⟩" if word and not normalise else (f"⟨η, {word}/‖{word}‖⟩" if word else "⟨η, e⟩")

st.caption(f"Showing {subject} for n = {int(n)}, ε = {epsilon:g}: standard deviation "
           f"{np.sqrt(law.var()):.3g} = √(n+1)/ε{'·‖w‖' if exp.scale != 1 else ''}.")
charts = []  # the page's figures, in order: the report draws them again
left, right = st.columns(2)
with left:
    charts.append(figures.density_with_samples(
        curves.grid, curves.pdf, exp.values, integral_pdf=curves.integral_pdf, x_title=subject,
        title=f"Density of {subject}: samples vs exact law"))
    st.plotly_chart(charts[-1], key="dot_density")
with right:
    charts.append(figures.cdf_with_samples(curves.grid, curves.cdf, exp.values, x_title=subject,
                                           title="Cumulative distribution"))
    st.plotly_chart(charts[-1], key="dot_cdf")

st.subheader("The two components: length R and angle K")
components = exp.component_curves()
left, right = st.columns(2)
charts.append(figures.density_with_samples(
    components.radius_grid, components.radius_pdf, exp.radius, x_title="R = ‖η‖",
    title="Length R ~ Gamma(n, 1/ε)", exact_name="Gamma(n, 1/ε) density"))
left.plotly_chart(charts[-1], key="dot_radius")
if components.angle_grid is not None:
    charts.append(figures.density_with_samples(
        components.angle_grid, components.angle_pdf, exp.cosine, x_title="K = cos(angle between η and e)",
        title="Angle K: density f_B, variance 1/n", exact_name="f_B(k) = (1−k²)^((n−3)/2) / B((n−1)/2, 1/2)"))
    right.plotly_chart(charts[-1], key="dot_angle")
else:
    right.info("For n = 1 the direction is ±1: K takes the values −1 and 1 with probability ½ each.")

st.subheader("Tail probability P(|Z| > t): exact vs the paper's bounds")
tails = cached_tail_table(law.n, law.epsilon).with_empirical(exp.values)
charts.append(figures.tail_bounds(tails.thresholds, tails.exact, tails.bounds, empirical_tail=tails.empirical,
                                  x_title=f"threshold t for {subject}"))
st.plotly_chart(charts[-1], key="dot_tails")

st.subheader("Exact vs simulated vs bound")
summary = exp.summary(CONFIDENCE)
# The bounds exist only for the interval: a missing one is the trivial bound ∞, shown as "—" and explained under the
# table (Streamlit draws a missing cell as "None"); the column stays numeric.
table = pd.DataFrame({column: [row.get(column) for row in summary]
                      for column in ("quantity", "exact", "simulated", "standard error", "bound", "bound (Chebyshev)")})
bounds = ["bound", "bound (Chebyshev)"]
table[bounds] = table[bounds].astype(float).fillna(math.inf)
st.dataframe(table.style.format({column: (lambda v: f"{v:.6g}" if math.isfinite(v) else NO_BOUND)
                                 for column in ("exact", "simulated", "standard error", *bounds)}),
             hide_index=True, column_config={"standard error": "SE", "bound (Chebyshev)": "Chebyshev"})
st.caption(
    f"Simulated from {samples:,} samples of the mechanism's noise; SE is the standard error of the "
    "simulated value. The bound column is the paper's Thm 8 with the best (c1, c2); Chebyshev uses Var/t² = 1%. "
    f"{MISSING}: no bound (the paper bounds the interval only, not the mean or the variance)."
)
st.download_button("Summary (JSON)", json.dumps(exp.to_dict(), indent=2), file_name="noisy-dot-product.json",
                   mime="application/json")

take_home.panel(SETTINGS, values, numbers(exp), charts, KEYS, PROTECTS)
