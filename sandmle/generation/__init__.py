"""The generation layer: episodes submit turns, one batcher sends every pending turn in one backend call."""

from sandmle.generation.batcher import BatchedPolicy, ConcurrentPolicy, GenerationStats, TurnBatcher, generation_policy

__all__ = ["BatchedPolicy", "ConcurrentPolicy", "GenerationStats", "TurnBatcher", "generation_policy"]
