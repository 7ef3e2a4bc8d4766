"""Epsilon Lab: explore what differential privacy does to data.

Run with:  epsilon-lab app   (installed), or  streamlit run app.py  from a checkout (its app.py calls `main`).

The router: one section of pages per topic, the overview first. A new topic adds its pages
(files in pages/, each starting with `ui.start_page()`) as one more section of `SECTIONS`.
"""
import streamlit as st

from epsilon_lab import embedding_ui, ui

#: The navigation: section title → its pages as (file in pages/, title); the first page is the default.
#: URL paths are the file names (/noisy_dot_product): a direct link to a page must name its file
#: (see ui.start_page), so no custom url_path.
SECTIONS = {
    "": [
        ("overview.py", "Overview"),
        ("what_epsilon_means.py", "What ε means"),
    ],
    "Word-level text": [
        ("neighbour_ranks.py", "Neighbour ranks"),
        ("noisy_dot_product.py", "Noisy dot product"),
        ("sanitise_text.py", "Sanitise text"),
        ("why_it_happens.py", "Why it happens"),
        ("choose_epsilon.py", "Choose epsilon"),
    ],
    "Random projections": [
        ("random_projections.py", "Random projections"),
    ],
    "Label DP": [
        ("label_dp.py", "Label DP"),
    ],
    "Private learning": [
        ("private_learning.py", "Private learning"),
    ],
}


def main() -> None:
    """Run the app once (Streamlit reruns the main script on every interaction)."""
    st.set_page_config(page_title="Epsilon Lab", page_icon="ε", layout="wide")
    # Absolute paths (ui.PAGES): the same pages, URL paths and page identities whichever script
    # Streamlit runs, this one or a checkout's app.py.
    default = SECTIONS[""][0][0]
    navigation = {section: [st.Page(ui.PAGES / file, title=title, default=file == default) for file, title in pages]
                  for section, pages in SECTIONS.items()}
    try:
        ui.run_page(st.navigation(navigation))
    finally:
        # after the page, so it is on screen first (and imported its modules alone: see `preload`);
        # the default embedding then loads in the background for the word-level pages
        embedding_ui.preload()


if __name__ == "__main__":  # the script Streamlit runs (it names it __main__)
    main()
