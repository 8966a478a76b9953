"""Analytic models from the papers, overlaid on simulation results."""
