"""The reward-hack audit of a task set: a job on the sandbox queue, its verdicts and degenerate scores, its pages."""
