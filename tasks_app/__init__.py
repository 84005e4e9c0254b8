"""The task side, a folder per feature: seeds/, synthesis/, tasks/, review/, task_sets/; shared/: what they share."""
