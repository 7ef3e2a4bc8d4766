"""Epsilon Lab from a checkout:  streamlit run app.py

The app is the package epsilon_lab (its router: epsilon_lab/app.py); installed, `epsilon-lab app` runs it.
"""
from epsilon_lab.app import main

main()
