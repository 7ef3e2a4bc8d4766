"""Epsilon Lab, the app: a Streamlit app over `privlib` (see ARCHITECTURE.md).

- `epsilon_lab.app`: the st.navigation router, the script ``streamlit run`` runs (`epsilon-lab app`);
- `epsilon_lab.ui`: the Streamlit glue the pages share; ``pages/``: one thin file per page;
- `epsilon_lab.command`: the ``epsilon-lab`` command (the app, and privlib's command line).

Importing `epsilon_lab` itself loads nothing (the command line does not import Streamlit).
"""
