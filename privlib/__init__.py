"""privlib — the library behind Epsilon Lab: differential privacy mechanisms and the exact
mathematics behind them, one package per topic.

- `privlib.core`: the topic-free DP pieces (validation, noise, calibration, randomised response,
  composition, statistics);
- `privlib.words`: word-level d_X-privacy on word embeddings;
- `privlib.presentation`: figures and reports, one package per topic;
- `privlib.cli`: the command line (``python -m privlib``).

Pure numpy/scipy (gensim, annoy and plotly where needed); it never imports streamlit. Importing
`privlib` itself loads nothing: import the part you need. See ARCHITECTURE.md.
"""
