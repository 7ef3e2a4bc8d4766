"""Figures of the label-DP topic (privlib.label_dp): ``figures`` builds every chart of the "Label DP"
page from plain numbers and arrays."""
