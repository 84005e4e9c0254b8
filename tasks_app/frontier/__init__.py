"""Re-levelling a task set for a policy: a job that measures each task's success rate, asks the engine for a harder or
easier successor of each task outside the band, stores the successors for review and makes the new set."""
