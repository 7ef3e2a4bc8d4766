"""Choosing ε before a deployment: word sources, metrics with standard errors, targets and answers."""
from privlib.words.choice.choice import *  # noqa: F401,F403  (temporary: split below)
