"""Evaluation campaigns: policies by scaffolds over a task set, and the transfer report."""
