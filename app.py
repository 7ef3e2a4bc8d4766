"""Epsilon Lab: see what word-level differential privacy does to text.

Run with:  streamlit run app.py
"""
import streamlit as st

import ui

st.set_page_config(page_title="Epsilon Lab", page_icon="ε", layout="wide")

# Navigation first. URL paths are the file names (/noisy_dot_product): with Streamlit 1.67 a
# custom url_path shows "Page not found" when a link opens that page directly.
pages = st.navigation([
    st.Page("pages/neighbour_ranks.py", title="Neighbour ranks", default=True),
    st.Page("pages/noisy_dot_product.py", title="Noisy dot product"),
    st.Page("pages/sanitise_text.py", title="Sanitise text"),
    st.Page("pages/why_it_happens.py", title="Why it happens"),
    st.Page("pages/choose_epsilon.py", title="Choose epsilon"),
])

space = ui.sidebar()
st.session_state["space"] = space
if space is None:
    st.title("Epsilon Lab")
    st.warning("No embedding is loaded yet: choose one in the sidebar.")
else:
    pages.run()
