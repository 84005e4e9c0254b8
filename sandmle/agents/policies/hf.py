"""A policy from a local transformers checkpoint: batched sampling (per-token temperature, exact logprobs)."""

from __future__ import annotations

from pathlib import Path

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.agents.policies.schedule import temperature_at
from sandmle.errors import UsageError

HISTORY_LIMIT = 1024


class HFPolicy:
    """Loads AutoModelForCausalLM/AutoTokenizer from a directory; samples many turns at once (hf_sampling)."""

    engine = "hf"  # which generation path a job took (summaries and job pages show it)

    def __init__(self, *, checkpoint: str | Path, device: str | None = None) -> None:
        path = Path(checkpoint)
        if not path.is_dir():
            raise FileNotFoundError(f"checkpoint directory not found: {path}")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = f"hf:{path.name}"
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        if not getattr(self.tokenizer, "chat_template", None):
            raise UsageError(f"tokenizer in {path} has no chat_template")
        if (path / "adapter_config.json").is_file():
            # A LoRA checkpoint (peft's adapter next to the tokenizer): load base + adapter, merge for plain forwards.
            from peft import AutoPeftModelForCausalLM

            self.model = AutoPeftModelForCausalLM.from_pretrained(str(path)).merge_and_unload().to(self.device)
        else:
            self.model = AutoModelForCausalLM.from_pretrained(str(path)).to(self.device)
        self.model.eval()
        # Recent (conversation, token ids) pairs: a prompt that extends one of them reuses its ids exactly.
        self._history: list[tuple[list[dict], list[int]]] = []

    @classmethod
    def from_model(cls, model, tokenizer, *, name: str = "hf:training", device: str | None = None) -> "HFPolicy":
        """A policy over a model already in memory (GRPO samples with the trainer's current weights, not a copy).

        The caller owns train/eval mode; sampling runs under no_grad, so it leaves no graph on the live model.
        """
        import torch

        if not getattr(tokenizer, "chat_template", None):
            raise UsageError("the tokenizer has no chat_template")
        policy = cls.__new__(cls)
        policy.name = name
        policy.torch = torch
        policy.tokenizer = tokenizer
        policy.model = model
        policy.device = device or str(next(model.parameters()).device)
        policy._history = []
        return policy

    def count_tokens(self, text: str) -> int:
        return len(self._encode(text))

    def _encode(self, text: str) -> list[int]:
        return [int(token) for token in self.tokenizer.encode(text, add_special_tokens=False)]

    def prompt_ids(self, messages: list[dict]) -> list[int]:
        """The prompt's token ids; a continuation of an earlier reply keeps that reply's sampled ids untouched.

        Re-rendering the whole conversation would re-tokenise the model's own text, which can give other ids than
        those sampled (the loss mask would then train on tokens the model never produced). Only the markup that
        closes the reply and the new messages are tokenised.
        """
        plain = [{"role": m["role"], "content": m["content"]} for m in messages]
        match = self._continued(plain)
        if match is None:
            return self._render(plain)
        earlier, ids = match
        # The template renders the reply as sampled, so the new messages are tokenised in their real context.
        return ids + self._continuation(earlier, earlier + plain[len(earlier):], ids)

    def _continued(self, conversation: list[dict]) -> tuple[list[dict], list[int]] | None:
        """The (conversation, ids) of the reply this conversation continues, best match first; None for a new one.

        Sampled ids are the truth (verl and rLLM pass token ids in and out): a scaffold may show the reply trimmed
        (SandMLE's ReAct strips it and cuts it at a <tool_response> the model wrote itself) and may ask again with
        no new message after it (a reply without a tool call), yet the next prompt must extend prompt + sampled ids,
        or the episode has no token sequence and GRPO masks it whole. The messages before the reply are compared
        exactly; a trimmed reply is matched only after an exact one, since a group's samples share their prompt.
        """
        def fit(shown: str, sampled: str) -> int | None:
            """How closely the reply as shown fits the sampled text: 0 exact, 1 stripped, 2 cut; None not at all."""
            if shown == sampled:
                return 0
            if shown.strip() == sampled.strip():
                return 1
            return 2 if shown.strip() and sampled.strip().startswith(shown.strip()) else None

        best, best_rank = None, None
        for recency, (earlier, ids) in enumerate(self._history):
            if len(earlier) > len(conversation) or conversation[len(earlier) - 1]["role"] != "assistant":
                continue
            tier = fit(conversation[len(earlier) - 1]["content"], earlier[-1]["content"])
            if tier is None or conversation[: len(earlier) - 1] != earlier[:-1]:
                continue
            # The latest reply first (continuing an older one would re-render the replies after it from text), then
            # the closest fit, then the newest entry.
            rank = (len(earlier), -tier, recency)
            if best_rank is None or rank > best_rank:
                best, best_rank = (earlier, ids), rank
        return best

    def _continuation(self, earlier: list[dict], conversation: list[dict], reply_ids: list[int]) -> list[int]:
        """The ids after a sampled reply: the template's end of that turn, the new messages, the generation prompt."""
        reply = earlier[-1]["content"]
        opened = self._render_text(earlier[:-1], generation_prompt=True)
        closed = self._render_text(earlier, generation_prompt=False)
        if closed.startswith(opened + reply):
            closing = self._encode(closed[len(opened + reply):])
        else:  # a template that rewrites replies: close the turn the ChatML way
            closing = [self.tokenizer.eos_token_id] + self._encode("\n")
        if reply_ids and closing and reply_ids[-1] in self._eos_ids() and closing[0] == reply_ids[-1]:
            closing = closing[1:]  # the model sampled the end-of-turn token itself
        full = self._render_text(conversation, generation_prompt=True)
        if full.startswith(closed):
            return closing + self._encode(full[len(closed):])
        if len(conversation) == len(earlier):  # the model is asked again with nothing new: only the generation prompt
            return closing + self._encode(self._generation_prompt())
        # Some templates render earlier replies differently (Qwen3 drops their thinking): render the new turns alone.
        return closing + self._render(conversation[len(earlier):])

    def _generation_prompt(self) -> str:
        """The text the template adds to open an assistant turn ("<|im_start|>assistant\\n" in ChatML)."""
        probe = [{"role": "user", "content": "."}]
        opened = self._render_text(probe, generation_prompt=True)
        return opened[len(self._render_text(probe, generation_prompt=False)):]

    def _render_text(self, messages: list[dict], *, generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=generation_prompt, tokenize=False)

    def _render(self, messages: list[dict]) -> list[int]:
        encoded = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        if hasattr(encoded, "keys") and "input_ids" in encoded:
            encoded = encoded["input_ids"]
        if encoded and isinstance(encoded[0], list):
            encoded = encoded[0]
        return [int(token) for token in encoded]

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        return self.generate_batch([(messages, sampling)])[0]

    def generate_batch(self, requests: list[tuple[list[dict], SamplingParams]]) -> list[PolicyReply]:
        """One reply per (messages, sampling) in one batched decoding loop (sandmle.generation batches episodes'
        turns into such calls). Not thread-safe: one call at a time per model."""
        from sandmle.agents.policies.hf_sampling import sample_batch

        prompts = [self.prompt_ids(messages) for messages, _ in requests]
        pad_id = self.tokenizer.pad_token_id
        if pad_id is None:
            pad_id = self.tokenizer.eos_token_id
        rows = sample_batch(self.model, prompts, [sampling for _, sampling in requests], pad_id=int(pad_id),
                            eos_ids=self._eos_ids(), temperature_at=temperature_at, hit_stop=self._hit_stop)
        replies = [self.reply(messages, prompt, row.completion_ids, row.logprobs, row.finish_reason)
                   for (messages, _), prompt, row in zip(requests, prompts, rows)]
        for reply, row in zip(replies, rows):
            reply.usage.update(row.edges)  # temperature and entropy where the reply opened and where it closed
        return replies

    def reply(self, messages: list[dict], prompt: list[int], completion: list[int], logprobs: list[float] | None,
              finish_reason: str) -> PolicyReply:
        """The reply for sampled ids; remembers them, so the episode's next prompt continues these exact ids."""
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        conversation = [{"role": m["role"], "content": m["content"]} for m in messages]
        # Room for every live episode's last turns (a batch of 64 episodes adds 64 entries a turn).
        entry = (conversation + [{"role": "assistant", "content": text}], prompt + completion)
        self._history = (self._history + [entry])[-HISTORY_LIMIT:]
        return PolicyReply(text=text, prompt_ids=prompt, completion_ids=completion, logprobs=logprobs,
                           finish_reason=finish_reason,
                           usage={"prompt_tokens": len(prompt), "completion_tokens": len(completion)})

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
