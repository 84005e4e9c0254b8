"""The latency study: full-scale against synthesized-size runs, and the bounded split of a large table."""
