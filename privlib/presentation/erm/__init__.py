"""Figures of the private-learning topic (input vs objective vs output perturbation)."""
