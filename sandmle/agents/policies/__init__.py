"""Policies: one `generate(messages, sampling=...)` interface over several backends."""

from sandmle.agents.policies.base import Policy, PolicyReply, SamplingParams, make_policy

__all__ = ["Policy", "PolicyReply", "SamplingParams", "make_policy"]
