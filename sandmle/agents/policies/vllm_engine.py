"""`hf:PATH` on an in-process vLLM engine: the evaluation path of a checkpoint where vLLM is installed and a GPU
is present (or SANDMLE_HF_ENGINE=vllm asks for it, as vLLM's CPU build allows). Prompt ids are built as the hf policy
builds them and each flush of episodes' turns is one `LLM.generate` with every row's own settings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.agents.policies.hf import HFPolicy
from sandmle.errors import UsageError

ENGINES = ("auto", "hf", "vllm")


def choose_engine(checkpoint: Path, engine: str | None = None) -> str:
    """"vllm" or "hf" for a checkpoint: an explicit choice, else SANDMLE_HF_ENGINE, else vLLM when it is installed
    and CUDA is there (the CPU build is for tests and benches: its warm-up outweighs a short job). A LoRA adapter
    directory stays on hf (vLLM loads full checkpoints)."""
    import importlib.util

    engine = engine or os.environ.get("SANDMLE_HF_ENGINE") or "auto"
    if engine not in ENGINES:
        raise UsageError(f"engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if (Path(checkpoint) / "adapter_config.json").is_file():
        return "hf"
    installed = importlib.util.find_spec("vllm") is not None
    if engine == "vllm":
        if not installed:
            raise UsageError("engine vllm: vLLM is not installed here")
        return "vllm"
    if engine == "hf" or not installed:
        return "hf"
    import torch

    return "vllm" if torch.cuda.is_available() else "hf"


def colocate_generate(llm: Any, prompts: list[list[int]],
                      samplings: list[SamplingParams]) -> list[tuple[list[int], list, str]]:
    """One `LLM.generate` over every row, each with its own temperature, top-p, limit, stop strings and seed;
    returns (completion ids, their logprobs, finish reason) per row."""
    from vllm import SamplingParams as VLLMSampling

    from sandmle.agents.policies.schedule import schedule_xargs

    # An annealed row goes at temperature 1.0 with its schedule: the engine's AnnealedTemperature processor sets
    # each token's temperature.
    params = [VLLMSampling(n=1, temperature=1.0 if s.ead else s.temperature, top_p=s.top_p, max_tokens=s.max_tokens,
                           stop=s.stop or None, seed=s.seed, logprobs=0, extra_args=schedule_xargs(s) or None)
              for s in samplings]
    outputs = llm.generate([{"prompt_token_ids": ids} for ids in prompts], sampling_params=params, use_tqdm=False)
    results = []
    for output in outputs:
        sample = output.outputs[0]
        completion = [int(t) for t in sample.token_ids]
        logprobs = [float(step[token].logprob) for step, token in zip(sample.logprobs or [], completion)] or None
        results.append((completion, logprobs, "stop" if sample.finish_reason == "stop" else "length"))
    return results


class VLLMEnginePolicy(HFPolicy):
    """A checkpoint directory on vLLM; the same prompt ids, reply records and history as the hf policy."""

    engine = "vllm"

    def __init__(self, *, checkpoint: str | Path, max_model_len: int = 8192) -> None:
        path = Path(checkpoint)
        if not path.is_dir():
            raise FileNotFoundError(f"checkpoint directory not found: {path}")
        from transformers import AutoConfig, AutoTokenizer
        from vllm import LLM

        self.name = f"hf:{path.name}"
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        if not getattr(self.tokenizer, "chat_template", None):
            raise UsageError(f"tokenizer in {path} has no chat_template")
        self._history = []
        config = AutoConfig.from_pretrained(str(path))
        eos = getattr(config, "eos_token_id", None)
        self._config_eos = {eos} if isinstance(eos, int) else set(eos or [])
        length = min(max_model_len, int(getattr(config, "max_position_embeddings", max_model_len)))
        import torch

        # vLLM's CPU build ends the engine on a seeded request whose prompt is prefilled in chunks ("CPU Generator
        # does not use offset"), and every episode's turn is seeded: on CPU, whole prompts only (as tests/vllm_server).
        whole_prompts = {} if torch.cuda.is_available() else {"enable_chunked_prefill": False,
                                                               "max_num_batched_tokens": length}
        from sandmle.agents.policies.vllm_schedule import AnnealedTemperature

        # Processed logprobs: each token's under the distribution it was drawn from (temperature, the annealed
        # schedule, top-p), as the hf policy records them and importance weights need them.
        self.llm = LLM(model=str(path), max_model_len=length, seed=0, logits_processors=[AnnealedTemperature],
                       logprobs_mode="processed_logprobs", **whole_prompts)

    def _eos_ids(self) -> set[int]:
        ids = set(self._config_eos)
        if isinstance(self.tokenizer.eos_token_id, int):
            ids.add(self.tokenizer.eos_token_id)
        return ids

    def generate_batch(self, requests: list[tuple[list[dict], SamplingParams]]) -> list[PolicyReply]:
        prompts = [self.prompt_ids(messages) for messages, _ in requests]
        sampled = colocate_generate(self.llm, prompts, [sampling for _, sampling in requests])
        return [self.reply(messages, prompt, completion, logprobs, finish)
                for (messages, _), prompt, (completion, logprobs, finish) in zip(requests, prompts, sampled)]
