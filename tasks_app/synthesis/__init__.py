"""Synthesis runs: jobs that make tasks from a seed, procedurally or with an LLM."""
