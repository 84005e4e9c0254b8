"""Synthesized tasks: their pages, files, charts, DNA, versions and rollout statistics."""
