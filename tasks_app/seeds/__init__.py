"""Seeds: datasets a task is synthesized from, and their DNA."""
