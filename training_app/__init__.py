"""Rollout batches and their trajectories; later GRPO jobs, evaluations and transfer results."""
