"""The policy interface every scaffold talks to, its sampling parameters and the spec parser `make_policy`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sandmle.errors import UsageError


@dataclass
class SamplingParams:
    """How to sample one reply.

    reply_format names the scaffold's reply grammar ("react", "aide", "aira", "mle_agent", "review_json")
    so that a policy without a model (the baseline) can answer in it; model policies ignore it.
    The ead_* fields switch on Exploratory Annealed Decoding (arXiv 2510.05251) in policies that support it:
    the first ead_warmup_tokens (the paper's c) at 1.0, then max(1 + tau_max - e^(t/d), tau_min) with the decay
    rate d = min(ead_decay + 5 * ead_training_step, 40000). Defaults are the paper's illustration (c=10, 1.2, 0.1).
    """

    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 1024
    seed: int | None = None
    stop: list[str] | None = None
    logprobs: bool = True
    reply_format: str | None = None
    ead: bool = False
    ead_tau_max: float = 1.2
    ead_tau_min: float = 0.1
    ead_decay: float = 1000.0
    ead_warmup_tokens: int = 10
    ead_training_step: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PolicyReply:
    """One reply; token ids and logprobs are those the policy sampled (None where the backend does not expose them)."""

    text: str
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: str = "stop"
    usage: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Policy(Protocol):
    """Anything that turns a chat history into a reply."""

    name: str

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply: ...


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
        from sandmle.agents.policies.vllm_engine import VLLMEnginePolicy, choose_engine

        checkpoint = spec[len("hf:"):]
        # vLLM where it is installed on a GPU (or asked for): the token loop is for CPU machines and tests.
        if choose_engine(Path(checkpoint), options.pop("engine", None)) == "vllm":
            return VLLMEnginePolicy(checkpoint=checkpoint, **options)
        return HFPolicy(checkpoint=checkpoint, **options)
    raise UsageError(f"unknown policy spec {spec!r}: expected baseline, openai:MODEL@URL or hf:PATH")
