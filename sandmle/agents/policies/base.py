"""The policy interface every scaffold talks to and its sampling parameters (the spec parser `make_policy` is in the
package's __init__)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from sandmle.episodes.budget import BUDGET_DEFAULTS


@dataclass
class SamplingParams:
    """How to sample one reply.

    reply_format names the scaffold's reply grammar ("react", "aide", "aira", "mle_agent", "review_json")
    so that a policy without a model (the baseline) can answer in it; model policies ignore it.
    The ead_* fields switch on Exploratory Annealed Decoding (arXiv 2510.05251; sandmle/agents/policies/schedule.py,
    the settings' `temperature_schedule: annealed`): the first ead_warmup_tokens (the paper's c) at 1.0, then
    max(1 + tau_max - e^(t/d), tau_min) with the decay rate d = min(ead_decay + ead_decay_growth x
    ead_training_step, 40000), t counted from the reply's start (ead_scope reply) or the episode's (episode: the
    scaffold sets ead_offset to the tokens it sampled before). Defaults are the paper's (c=10, 1.2, 0.1, 1000, 5).
    """

    temperature: float = BUDGET_DEFAULTS["temperature"]  # the episode budgets (sandmle/episodes/budget.py)
    top_p: float = 1.0
    max_tokens: int = BUDGET_DEFAULTS["max_tokens"]
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
    ead_decay_growth: float = 5.0
    ead_scope: str = "reply"
    ead_offset: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PolicyReply:
    """One reply; token ids and logprobs are those the policy sampled (None where the backend does not expose them)."""

    text: str
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    # 1 where the policy sampled the token, 0 where it forced it (a reply menu's fixed text): forced tokens train
    # like environment tokens. None: every completion token was sampled.
    completion_mask: list[int] | None = None
    finish_reason: str = "stop"
    usage: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Policy(Protocol):
    """Anything that turns a chat history into a reply."""

    name: str

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply: ...
