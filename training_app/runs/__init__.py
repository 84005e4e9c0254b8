"""Training runs: GRPO/SFT jobs on a GPU worker, their metric lines and checkpoints."""
