"""Agents: policies that write replies (openai-compatible, local transformers, offline baseline) and the scaffolds that drive them."""

from sandmle.agents.policies import Policy, PolicyReply, SamplingParams, make_policy

__all__ = ["Policy", "PolicyReply", "SamplingParams", "make_policy"]
