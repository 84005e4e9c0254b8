"""A policy served by any OpenAI-compatible chat endpoint (vllm serve, a hosted API) through sandmle.llm.ChatClient."""

from __future__ import annotations

from sandmle.agents.policies.base import PolicyReply, SamplingParams

DEFAULT_KEY_ENV = "SANDMLE_POLICY_API_KEY"


class OpenAIPolicy:
    """Chat completions with timeouts, retries with backoff and logprobs when the server returns them.

    Logprobs are asked for when the sampling settings want them; a server that refuses the request with them
    (HTTP 400) is asked again without, and not asked for them again.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str = DEFAULT_KEY_ENV,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
    ) -> None:
        from sandmle.llm import ChatClient

        self.name = f"openai:{model}"
        self.model = model
        # The run names the variable holding the key (a local vllm needs none); the value never enters a trajectory.
        self.api_key_env = api_key_env or DEFAULT_KEY_ENV
        self.client = ChatClient(base_url, model, api_key_env=self.api_key_env, timeout_s=timeout_s,
                                 max_retries=max_retries, backoff_s=backoff_s)
        self.logprobs_supported: bool | None = None  # unknown until the server answers

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIPolicy(base_url={self.client.base_url!r}, model={self.model!r}, api_key_env={self.api_key_env!r})"

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        from sandmle.llm import LLMError

        want_logprobs = sampling.logprobs and self.logprobs_supported is not False
        try:
            reply = self._chat(messages, sampling, logprobs=want_logprobs)
        except LLMError as error:
            if not (want_logprobs and error.status == 400):
                raise
            reply = self._chat(messages, sampling, logprobs=False)
            self.logprobs_supported = False
        logprobs = list(reply.logprobs) if reply.logprobs else None
        if logprobs is not None:
            self.logprobs_supported = True
        return PolicyReply(
            text=reply.text or "",
            prompt_ids=None,
            completion_ids=None,
            logprobs=logprobs,
            finish_reason=reply.finish_reason or "stop",
            usage=dict(reply.usage or {}),
        )

    def _chat(self, messages: list[dict], sampling: SamplingParams, *, logprobs: bool):
        return self.client.chat(
            [{"role": m["role"], "content": m["content"]} for m in messages],
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            logprobs=logprobs,
            seed=sampling.seed,
            stop=sampling.stop,
        )
