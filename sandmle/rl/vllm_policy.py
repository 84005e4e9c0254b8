"""GRPO's vLLM backend: every flush of the episodes' turns is one generate call on TRL's vLLM engine (colocate) or
server, with the sampled token ids and their logprobs; plus the CPU-only weight sync that colocate needs."""

from __future__ import annotations

from typing import Any

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.agents.policies.hf import HFPolicy
from sandmle.agents.policies.vllm_engine import colocate_generate


class VLLMTurnPolicy(HFPolicy):
    """Prompt ids as the hf policy builds them (a reply's sampled ids are never re-tokenised); sampling by vLLM.

    TRL syncs the trainer's weights into vLLM before each rollout_func call, so every reply is on-policy. EAD's
    per-token temperature is the hf backend's alone: vLLM samples each reply at its fixed temperature.
    """

    engine = "vllm"

    def __init__(self, trainer: Any, tokenizer: Any) -> None:
        model = trainer.accelerator.unwrap_model(trainer.model)
        policy = HFPolicy.from_model(model, tokenizer, name="vllm:training")
        self.__dict__.update(policy.__dict__)
        self.generation = trainer.vllm_generation

    def generate_batch(self, requests: list[tuple[list[dict], SamplingParams]]) -> list[PolicyReply]:
        prompts = [self.prompt_ids(messages) for messages, _ in requests]
        samplings = [sampling for _, sampling in requests]
        if self.generation.mode == "server":
            sampled = self._server(prompts, samplings)
        else:
            sampled = colocate_generate(self.generation.llm, prompts, samplings)
        eos_ids = self._eos_ids()
        return [self.reply(messages, prompt, completion, logprobs,
                           "stop" if finish == "stop" or (completion and completion[-1] in eos_ids) else "length")
                for (messages, _), prompt, (completion, logprobs, finish) in zip(requests, prompts, sampled)]

    def _server(self, prompts: list[list[int]], samplings: list[SamplingParams]) -> list[tuple[list[int], list, str]]:
        """One client call per distinct setting (usually one for the whole flush). The client directly, not
        VLLMGeneration.generate: that one gathers prompts from every training process, a collective call that
        episodes of different lengths on different processes would deadlock. The server takes no per-row seed."""
        results: list[Any] = [None] * len(prompts)
        groups: dict[tuple, list[int]] = {}
        for row, sampling in enumerate(samplings):
            groups.setdefault((sampling.temperature, sampling.top_p, sampling.max_tokens), []).append(row)
        for (temperature, top_p, max_tokens), rows in groups.items():
            output = self.generation.vllm_client.generate(prompts=[prompts[r] for r in rows], n=1,
                                                          temperature=temperature, top_p=top_p,
                                                          max_tokens=max_tokens, logprobs=0)
            logprobs = output.get("logprobs") or [None] * len(rows)
            for row, completion, values in zip(rows, output["completion_ids"], logprobs):
                sampled = [float(v[0]) if v and v[0] is not None else None for v in (values or [])]
                results[row] = ([int(t) for t in completion], sampled or None, "length")
        return results


def named_weights(model: Any) -> list[tuple[str, Any]]:
    """The trainer model's weights under vLLM's names; the output head too when it is tied to the embeddings
    (model.named_parameters() lists a tied tensor once, under the embedding's name)."""
    weights = [(name, param.data) for name, param in model.named_parameters()]
    names = {name for name, _ in weights}
    if getattr(model.config, "tie_word_embeddings", False) and "lm_head.weight" not in names:
        weights.append(("lm_head.weight", model.get_output_embeddings().weight.data))
    return weights


def cpu_reload_weights(generation: Any) -> None:
    """The colocate weight sync on CPU builds of vLLM, in place of TRL's per-parameter `load_weights`.

    vLLM's CPU backend repacks every linear layer's weight once loaded and replaces `layer.weight` with an empty
    Parameter that has no `weight_loader` (vllm/model_executor/layers/utils.py, dispatch_cpu_unquantized_gemm with
    remove_weight=True), so TRL's `model.load_weights([(name, param)])` fails with "'Parameter' object has no attribute
    'weight_loader'". The model runner's `reload_weights` loads a checkpoint-format iterator through the layers' own
    process-after-loading path (repacking included); CUDA keeps the parameters, so this is used on CPU only.
    Needs vLLM in this process (VLLM_ENABLE_V1_MULTIPROCESSING=0).
    """
    model = generation.accelerator.unwrap_model(generation.model)
    runner = generation.llm.llm_engine.model_executor.driver_worker.model_runner
    runner.reload_weights(weights_iterator=iter(named_weights(model)), is_checkpoint_format=True)
    generation.llm.reset_prefix_cache()


def use_cpu_weight_sync(trainer: Any) -> bool:
    """Routes a CPU colocate run's weight syncs through cpu_reload_weights; False where TRL's own sync applies."""
    import torch

    generation = getattr(trainer, "vllm_generation", None)
    if generation is None or generation.mode != "colocate" or torch.cuda.is_available():
        return False
    if hasattr(generation.accelerator.unwrap_model(generation.model), "merge_adapter"):
        raise ValueError("vllm_mode colocate on CPU syncs full weights only: train without lora, or on a GPU")
    generation.sync_weights = lambda: cpu_reload_weights(generation)
    return True
