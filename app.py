"""Epsilon Lab: see what word-level differential privacy does to text.

Run with:  streamlit run app.py
"""
import streamlit as st

import ui

st.set_page_config(page_title="Epsilon Lab", page_icon="ε", layout="wide")

space = ui.sidebar()
st.session_state["space"] = space

pages = st.navigation([
    st.Page("pages/neighbour_ranks.py", title="Neighbour ranks", default=True, url_path="neighbour-ranks"),
    st.Page("pages/noisy_dot_product.py", title="Noisy dot product", url_path="noisy-dot-product"),
])
if space is None:
    st.title("Epsilon Lab")
    st.warning("No embedding is loaded yet: choose one in the sidebar.")
else:
    pages.run()
