"""Page "Overview" (the default page): what Epsilon Lab is, which way ε goes, and one line per page."""
import streamlit as st

from epsilon_lab import ui

#: One entry per topic: its title, one paragraph, then (file in pages/, title, what it shows) per page.
TOPICS = [
    ("Word-level text",
     ("Word-level privacy replaces every word of a text by a randomised choice of word, using word "
      "embeddings (Feyisetan et al. 2020). Asghar et al. (PoPETs 2026) showed that it almost never "
      "outputs a *similar* word: the output is either the word itself or a far-off word. These pages "
      "show it with the real GloVe vectors (400,000 words) and explain why."),
     [("neighbour_ranks.py", "Neighbour ranks",
       "Where a mechanism's outputs land: the word itself, a close neighbour or a distant word, at any ε."),
      ("noisy_dot_product.py", "Noisy dot product",
       "The single number that decides the output, sampled from the real noise beside its exact law."),
      ("sanitise_text.py", "Sanitise text",
       "Your own sentences sanitised word by word, mechanisms side by side, with the privacy budget of the text."),
      ("why_it_happens.py", "Why it happens",
       "The explanation step by step: a number line, a map of the US, then the embedding itself."),
      ("choose_epsilon.py", "Choose epsilon",
       "Before a deployment: the ε that gives the utility you need on your words, and the privacy it leaves."),
      ]),
    ("Random projections",
     ("Publish k random projections of each vector, or just their signs, instead of the vector itself "
      "(Li & Li): projecting first needs far less noise, and one randomised bit per projection can beat "
      "full precision at small ε."),
     [("random_projections.py", "Random projections",
       "Similarity search on MNIST under every mechanism across ε, and why projecting and keeping signs helps."),
      ]),
    ("Label DP",
     ("Keep only the training labels private: randomise each label once (randomised response), train on the "
      "noisy labels, then retrain on the model's own predicted labels (Das et al.). Retraining is free in "
      "privacy and often more accurate — especially on the points where the prediction agrees with the given label."),
     [("label_dp.py", "Label DP",
       "Randomised response on labels, retraining (full, consensus, confidence) across ε, and the paper's bounds."),
      ]),
    ("Private learning",
     ("Train a model without ever seeing a raw record: each contributor adds noise to her own record before sending "
      "it (input perturbation, Fukuchi et al.), and the model learnt from the noisy records is as private as one "
      "trained with noise in the objective (KST12) — once enough people contribute."),
     [("private_learning.py", "Private learning",
       "Input vs objective vs output perturbation across n, the model's and each contributor's ε, and why it works."),
      ]),
]

ui.start_page()
st.title("Epsilon Lab")
st.markdown(
    "Differential privacy protects the people in a data set by adding carefully calibrated random noise "
    "to what is published. **Epsilon Lab shows what that noise does to data** — exactly where the "
    "mathematics allows it, interactively, and on a laptop: nothing leaves this computer."
)
st.info(
    "**ε (epsilon) is the privacy level.** Smaller ε = more noise = **more privacy**; larger ε = less noise = "
    "more useful results but less privacy. Every ε slider reads: ← more privacy · · · less privacy →",
    icon="🔒",
)
st.markdown("Every analysis page ends with **Take this analysis home**: its view as a Python script, a notebook and a "
            "one-file report, a settings file, and a link that reopens it.")
st.page_link(ui.PAGES / "what_epsilon_means.py", label="**What ε means**", icon="➡️")
st.caption("ε as a limit on any attacker: type a guarantee and see how often an attacker can be right, what one "
           "output does to a belief, the unit each topic protects, and an audit of any mechanism against its claim.")
for topic, about, pages in TOPICS:
    st.header(topic)
    st.markdown(about)
    for file, title, what in pages:  # the link is the title; the sentence below it wraps (a long link is cut off)
        st.page_link(ui.PAGES / file, label=f"**{title}**", icon="➡️")
        st.caption(what)
st.caption(
    "For a demonstration or a class: start with *Sanitise text* (the paper's example), then *Neighbour ranks* "
    "(move ε), then *Why it happens*. The word-level pages load the built-in GloVe vectors the first time "
    "(a few seconds); their sidebar chooses the embedding. Nothing you type is stored, logged or sent anywhere."
)
