"""Evaluation: resumable campaigns of episodes, their metrics (rates with SEM, best-of-k, HumanRank), the transfer report."""
