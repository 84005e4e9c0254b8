"""Latency studies: the per-step speed-up of a synthesized task against its full-scale data, measured on the workers."""
