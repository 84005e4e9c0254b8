"""A policy from a local transformers checkpoint with its own sampling loop (per-token temperature, exact logprobs)."""

from __future__ import annotations

import math
from pathlib import Path

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.errors import UsageError


def ead_temperature(token_index: int, *, tau_max: float, tau_min: float, decay: float, warmup_tokens: int) -> float:
    """Exploratory Annealed Decoding: 1.0 for the first tokens, then max(1 + tau_max - e^(t/d), tau_min)."""
    if token_index < warmup_tokens:
        return 1.0
    return max(1.0 + tau_max - math.exp(token_index / decay), tau_min)


class HFPolicy:
    """Loads AutoModelForCausalLM/AutoTokenizer from a directory and samples token by token."""

    def __init__(self, *, checkpoint: str | Path, device: str | None = None, training_step: int = 0) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(checkpoint)
        if not path.is_dir():
            raise FileNotFoundError(f"checkpoint directory not found: {path}")
        self.name = f"hf:{path.name}"
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        if not getattr(self.tokenizer, "chat_template", None):
            raise UsageError(f"tokenizer in {path} has no chat_template")
        self.model = AutoModelForCausalLM.from_pretrained(str(path)).to(self.device)
        self.model.eval()
        # The EAD paper grows d with the training step so later policies explore for longer.
        self.training_step = training_step
        # Recent (conversation, token ids) pairs: a prompt that extends one of them reuses its ids exactly.
        self._history: list[tuple[list[dict], list[int]]] = []

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        """The prompt's token ids; a continuation of an earlier reply keeps that reply's sampled ids untouched.

        Re-rendering the whole conversation would re-tokenise the model's own text, which can give other ids than
        those sampled (the loss mask would then train on tokens the model never produced). The join between a
        reply and the next messages follows ChatML (Qwen's format): end-of-turn token, a newline, the new turns.
        """
        plain = [{"role": m["role"], "content": m["content"]} for m in messages]
        for earlier, ids in reversed(self._history):
            if len(plain) > len(earlier) and plain[: len(earlier)] == earlier:
                closing = [] if ids and ids[-1] in self._eos_ids() else [self.tokenizer.eos_token_id]
                closing += self.tokenizer.encode("\n", add_special_tokens=False)
                return ids + closing + self._render(plain[len(earlier):])
        return self._render(plain)

    def _render(self, messages: list[dict]) -> list[int]:
        encoded = self.tokenizer.apply_chat_template(
            messages,
            add_generation_prompt=True,
            tokenize=True,
        )
        if hasattr(encoded, "keys") and "input_ids" in encoded:
            encoded = encoded["input_ids"]
        if encoded and isinstance(encoded[0], list):
            encoded = encoded[0]
        return [int(token) for token in encoded]

    def _temperature(self, token_index: int, sampling: SamplingParams) -> float:
        if not sampling.ead:
            return sampling.temperature
        return ead_temperature(
            token_index,
            tau_max=sampling.ead_tau_max,
            tau_min=sampling.ead_tau_min,
            decay=sampling.ead_decay * (1.0 + self.training_step / 100.0),
            warmup_tokens=sampling.ead_warmup_tokens,
        )

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        torch = self.torch
        prompt = self.prompt_ids(messages)
        generator = torch.Generator(device="cpu")
        generator.manual_seed(sampling.seed if sampling.seed is not None else 0)
        eos_ids = self._eos_ids()
        completion: list[int] = []
        logprobs: list[float] = []
        finish_reason = "length"
        past = None
        next_input = torch.tensor([prompt], device=self.device)
        with torch.no_grad():
            for index in range(sampling.max_tokens):
                output = self.model(input_ids=next_input, past_key_values=past, use_cache=True)
                past = output.past_key_values
                logits = output.logits[0, -1].float().cpu()
                token, logprob = self._sample(logits, self._temperature(index, sampling), sampling.top_p, generator)
                completion.append(token)
                logprobs.append(logprob)
                if token in eos_ids:
                    finish_reason = "stop"
                    break
                if sampling.stop and self._hit_stop(completion, sampling.stop):
                    finish_reason = "stop"
                    break
                next_input = torch.tensor([[token]], device=self.device)
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        conversation = [{"role": m["role"], "content": m["content"]} for m in messages]
        self._history = (self._history + [(conversation + [{"role": "assistant", "content": text}], prompt + completion)])[-64:]
        return PolicyReply(
            text=text,
            prompt_ids=prompt,
            completion_ids=completion,
            logprobs=logprobs,
            finish_reason=finish_reason,
            usage={"prompt_tokens": len(prompt), "completion_tokens": len(completion)},
        )

    def _sample(self, logits, temperature: float, top_p: float, generator) -> tuple[int, float]:
        torch = self.torch
        if temperature <= 0:
            token = int(torch.argmax(logits))
            return token, 0.0
        log_probs = torch.log_softmax(logits / temperature, dim=-1)
        if top_p < 1.0:
            sorted_log_probs, order = torch.sort(log_probs, descending=True)
            cumulative = torch.cumsum(sorted_log_probs.exp(), dim=-1)
            # Keep the smallest prefix whose mass reaches top_p (always at least one token).
            drop = cumulative - sorted_log_probs.exp() >= top_p
            sorted_log_probs[drop] = float("-inf")
            log_probs = torch.full_like(log_probs, float("-inf")).scatter(0, order, sorted_log_probs)
            log_probs = torch.log_softmax(log_probs, dim=-1)
        token = int(torch.multinomial(log_probs.exp(), 1, generator=generator))
        # The recorded logprob is that of the distribution actually sampled from (temperature and top-p applied).
        return token, float(log_probs[token])

    def _eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for value in (self.tokenizer.eos_token_id, getattr(self.model.generation_config, "eos_token_id", None)):
            if isinstance(value, int):
                ids.add(value)
            elif isinstance(value, (list, tuple)):
                ids.update(int(v) for v in value)
        return ids

    def _hit_stop(self, completion: list[int], stop: list[str]) -> bool:
        tail = self.tokenizer.decode(completion[-32:], skip_special_tokens=True)
        return any(tail.endswith(s) for s in stop)
