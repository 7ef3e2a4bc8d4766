"""Epsilon Lab: see what word-level differential privacy does to text.

Run with:  streamlit run app.py
"""
import streamlit as st

import ui

st.set_page_config(page_title="Epsilon Lab", page_icon="ε", layout="wide")

space = ui.sidebar()
st.session_state["space"] = space

pages = st.navigation([
    st.Page("pages/neighbour_ranks.py", title="Neighbour ranks", icon="🎯", default=True, url_path="neighbour-ranks"),
])
if space is None:
    st.title("Epsilon Lab")
    st.warning("No embedding is loaded yet: choose one in the sidebar.")
else:
    pages.run()
