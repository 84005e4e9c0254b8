"""Web plumbing the training side's features share: job launch and cancel APIs, trajectory presentation."""
