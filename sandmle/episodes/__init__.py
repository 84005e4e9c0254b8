"""One episode from start to trajectory: the runner, the thread pool that runs many, budgets, failures."""
