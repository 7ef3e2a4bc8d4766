"""Epsilon Lab: explore what differential privacy does to data.

Run with:  streamlit run app.py

The router: one section of pages per topic, the overview first. A new topic adds its pages
(files in pages/, each starting with `ui.start_page()`) as one more section below.
"""
import streamlit as st

import ui

st.set_page_config(page_title="Epsilon Lab", page_icon="ε", layout="wide")

# URL paths are the file names (/noisy_dot_product): a direct link to a page must name its file
# (see ui.start_page), so no custom url_path.
SECTIONS = {
    "": [
        st.Page("pages/overview.py", title="Overview", default=True),
    ],
    "Word-level text": [
        st.Page("pages/neighbour_ranks.py", title="Neighbour ranks"),
        st.Page("pages/noisy_dot_product.py", title="Noisy dot product"),
        st.Page("pages/sanitise_text.py", title="Sanitise text"),
        st.Page("pages/why_it_happens.py", title="Why it happens"),
        st.Page("pages/choose_epsilon.py", title="Choose epsilon"),
    ],
    "Random projections": [
        st.Page("pages/random_projections.py", title="Random projections"),
    ],
    "Label DP": [
        st.Page("pages/label_dp.py", title="Label DP"),
    ],
    "Private learning": [
        st.Page("pages/private_learning.py", title="Private learning"),
    ],
}

ui.run_page(st.navigation(SECTIONS))
