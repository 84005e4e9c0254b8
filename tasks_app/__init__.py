"""Seeds, their DNA, synthesis runs, synthesized tasks with hidden rules, and the review workflow."""
