"""A policy served by any OpenAI-compatible chat endpoint (vllm serve, a hosted API) through
sandmle.llm.client.ChatClient."""

from __future__ import annotations

from sandmle.agents.policies.base import PolicyReply, SamplingParams

DEFAULT_KEY_ENV = "SANDMLE_POLICY_API_KEY"


class OpenAIPolicy:
    """Chat completions with timeouts, retries with backoff and logprobs when the server returns them.

    Logprobs are asked for when the sampling settings want them, with vLLM's `return_token_ids`, so a reply from a
    vLLM server carries the prompt and completion token ids it was sampled with (the trajectory records them as a
    local model's). A server that refuses the request with them (HTTP 400) is asked again without, and not asked for
    them again. Episodes call from their own threads, so every live episode's request is in flight at once and the
    server batches them.
    """

    engine = "server"  # generation happens at the endpoint

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
        from sandmle.llm.client import ChatClient

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
        from sandmle.llm.client import LLMError

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
        prompt_ids, completion_ids = sampled_token_ids(reply.raw)
        if completion_ids is not None and logprobs is not None and len(logprobs) != len(completion_ids):
            logprobs = None  # not one logprob per sampled token: keep the ids, drop what cannot be aligned
        return PolicyReply(
            text=reply.text or "",
            prompt_ids=prompt_ids,
            completion_ids=completion_ids,
            logprobs=logprobs,
            finish_reason=reply.finish_reason or "stop",
            usage=dict(reply.usage or {}),
        )

    def _chat(self, messages: list[dict], sampling: SamplingParams, *, logprobs: bool):
        extra: dict = {"return_token_ids": True} if logprobs else {}
        if sampling.ead:
            # An annealed schedule is set per token by a vLLM server that runs sandmle's logits processor
            # (sandmle/agents/policies/vllm_schedule.py); the request goes at temperature 1.0 with the schedule.
            from sandmle.agents.policies.schedule import schedule_xargs

            extra["vllm_xargs"] = schedule_xargs(sampling)
        return self.client.chat(
            [{"role": m["role"], "content": m["content"]} for m in messages],
            temperature=1.0 if sampling.ead else sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            logprobs=logprobs,
            seed=sampling.seed,
            stop=sampling.stop,
            extra=extra or None,
        )


def sampled_token_ids(body: dict | None) -> tuple[list[int] | None, list[int] | None]:
    """vLLM's `prompt_token_ids` and the choice's `token_ids` when the server returned them (both, as integers)."""
    try:
        prompt = (body or {}).get("prompt_token_ids")
        completion = body["choices"][0].get("token_ids")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None, None
    valid = all(isinstance(ids, list) and all(isinstance(t, int) and not isinstance(t, bool) for t in ids)
                for ids in (prompt, completion))
    return (list(prompt), list(completion)) if valid else (None, None)
