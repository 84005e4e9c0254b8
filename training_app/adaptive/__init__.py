"""Adaptive environments of GRPO runs in the studio: each lineage on the run page, successors reviewed and stored as tasks, the current frontier saved as a task set."""
