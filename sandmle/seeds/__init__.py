"""Seeds: the real datasets tasks are made from, and the TaskDNA that crosses from a seed to its tasks."""
