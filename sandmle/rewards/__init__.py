"""Reward schemes (dense, sparse, the rubric judge) and the comparison of schemes over the same episodes."""
