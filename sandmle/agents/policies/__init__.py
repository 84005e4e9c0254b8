"""Policies: one `generate(messages, sampling=...)` interface over several backends, and the factory that builds one
from a spec string. The factory lives here, not in base.py: the concrete policies import base.py, so base.py must not
import them back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandmle.agents.policies.base import Policy, PolicyReply, SamplingParams
from sandmle.errors import UsageError

__all__ = ["Policy", "PolicyReply", "SamplingParams", "make_policy"]


def make_policy(spec: str, **options: Any) -> Policy:
    """Build a policy from "baseline", "openai:MODEL@URL" or "hf:PATH"."""
    if spec == "baseline" or spec.startswith("baseline:"):
        from sandmle.agents.policies.baseline import BaselinePolicy

        seed_text = spec.split(":", 1)[1] if ":" in spec else str(options.pop("seed", 0))
        if not seed_text.lstrip("-").isdigit():
            raise UsageError(f"policy spec {spec!r}: expected baseline or baseline:SEED with an integer seed")
        return BaselinePolicy(seed=int(seed_text))
    if spec.startswith("openai:"):
        from sandmle.agents.policies.openai_policy import OpenAIPolicy

        body = spec[len("openai:"):]
        if "@" not in body:
            raise UsageError(f"policy spec {spec!r}: expected openai:MODEL@URL")
        model, base_url = body.rsplit("@", 1)
        if not model or not base_url:
            raise UsageError(f"policy spec {spec!r}: expected openai:MODEL@URL")
        return OpenAIPolicy(base_url=base_url, model=model, **options)
    if spec.startswith("hf:"):
        from sandmle.agents.policies.hf import HFPolicy
        from sandmle.agents.policies.menu import with_reply_menu
        from sandmle.agents.policies.vllm_engine import VLLMEnginePolicy, choose_engine

        checkpoint = spec[len("hf:"):]
        # vLLM where it is installed on a GPU (or asked for): the token loop is for CPU machines and tests.
        if choose_engine(Path(checkpoint), options.pop("engine", None)) == "vllm":
            return VLLMEnginePolicy(checkpoint=checkpoint, **options)
        return with_reply_menu(HFPolicy(checkpoint=checkpoint, **options))
    raise UsageError(f"unknown policy spec {spec!r}: expected baseline, openai:MODEL@URL or hf:PATH")
