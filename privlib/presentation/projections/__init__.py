"""Figures of the random-projections topic (privlib.projections): ``figures`` builds every chart of
the "Random projections" page from plain numbers and arrays."""
