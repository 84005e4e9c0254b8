"""Rollout batches and their trajectories."""
