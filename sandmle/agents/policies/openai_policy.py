"""A policy served by any OpenAI-compatible chat endpoint (vllm serve, a hosted API) through sandmle.llm.ChatClient."""

from __future__ import annotations

from sandmle.agents.policies.base import PolicyReply, SamplingParams


class OpenAIPolicy:
    """Chat completions with timeouts, retries with backoff and logprobs when the server returns them."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str = "SANDMLE_POLICY_API_KEY",
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
    ) -> None:
        from sandmle.llm import ChatClient

        self.name = f"openai:{model}"
        self.model = model
        # The run names the variable holding the key (a local vllm needs none); the value never enters a trajectory.
        self.client = ChatClient(
            base_url, model, api_key_env=api_key_env or "SANDMLE_POLICY_API_KEY", timeout_s=timeout_s, max_retries=max_retries, backoff_s=backoff_s
        )

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        reply = self.client.chat(
            [{"role": m["role"], "content": m["content"]} for m in messages],
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            logprobs=sampling.logprobs,
            seed=sampling.seed,
            stop=sampling.stop,
        )
        logprobs = list(reply.logprobs) if reply.logprobs else None
        return PolicyReply(
            text=reply.text or "",
            prompt_ids=None,
            completion_ids=None,
            logprobs=logprobs,
            finish_reason=reply.finish_reason or "stop",
            usage=dict(reply.usage or {}),
        )
