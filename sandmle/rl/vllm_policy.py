"""The GPU path's policy: each reply is sampled by TRL's own vLLM engine (colocate or server), with its token ids
and logprobs. A thin pass-through to trl.generation.VLLMGeneration; it cannot run on the CPU test machines."""

from __future__ import annotations

from typing import Any

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.agents.policies.hf import HFPolicy


class VLLMTurnPolicy(HFPolicy):
    """Prompt ids as the hf policy builds them (a reply's sampled ids are never re-tokenised); sampling by vLLM.

    TRL syncs the trainer's weights into vLLM before each rollout_func call, so every reply is on-policy. One reply
    per call: episodes take turns (TimedPolicy's lock); batching turns across episodes is left to a later change.
    """

    def __init__(self, trainer: Any, tokenizer: Any) -> None:
        model = trainer.accelerator.unwrap_model(trainer.model)
        policy = HFPolicy.from_model(model, tokenizer, name="vllm:training")
        self.__dict__.update(policy.__dict__)
        self.generation = trainer.vllm_generation

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        prompt = self.prompt_ids(messages)
        if self.generation.mode == "server":
            # The client directly, not VLLMGeneration.generate: that one gathers prompts from every training process,
            # a collective call that episodes of different lengths on different processes would deadlock.
            output = self.generation.vllm_client.generate(prompts=[prompt], n=1, temperature=sampling.temperature,
                                                          top_p=sampling.top_p, max_tokens=sampling.max_tokens,
                                                          logprobs=0)
            completions, logprobs = output["completion_ids"], output.get("logprobs")
        else:  # colocate: this process's own engine
            self.generation.max_completion_length = sampling.max_tokens  # read at each generate() call
            _, completions, logprobs, _ = self.generation.generate([prompt], None, num_generations=1)
        completion = [int(t) for t in completions[0]]
        sampled = [float(values[0]) if values and values[0] is not None else None for values in (logprobs or [[]])[0]]
        text = self.tokenizer.decode(completion, skip_special_tokens=True)
        conversation = [{"role": m["role"], "content": m["content"]} for m in messages]
        self._history = (self._history + [(conversation + [{"role": "assistant", "content": text}], prompt + completion)])[-64:]
        finish = "stop" if completion and completion[-1] in self._eos_ids() else "length"
        return PolicyReply(text=text, prompt_ids=prompt, completion_ids=completion, logprobs=sampled or None,
                           finish_reason=finish, usage={"prompt_tokens": len(prompt), "completion_tokens": len(completion)})
