"""Batched sampling on a transformers causal LM: left-padded prompts, one KV cache, per-row settings and seeds.

Each row keeps its own temperature schedule (EAD), top-p, stop strings, token limit and torch.Generator seeded from
the sample's seed and its prompt length, so a row draws the same tokens whatever else shares its batch (up to the
float noise of padding) and a resumed run redraws them. Each sampled token's logprob is taken under the distribution
it was drawn from (temperature and top-p applied).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sandmle.agents.policies.base import SamplingParams

SEED_STRIDE = 1_000_003  # the seed of a turn: sample seed x stride + prompt length (fresh randomness every turn)


@dataclass
class SampledRow:
    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: str  # "stop" (end-of-turn token or a stop string) or "length"


def turn_seed(sampling: SamplingParams, prompt_length: int) -> int:
    return (sampling.seed or 0) * SEED_STRIDE + prompt_length


def sample_token(torch: Any, logits: Any, temperature: float, top_p: float, generator: Any) -> tuple[int, float]:
    """One token from one row's logits; greedy at temperature 0 (logprob 0)."""
    if temperature <= 0:
        return int(torch.argmax(logits)), 0.0
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
    return token, float(log_probs[token])


def prefill(model: Any, prompts: list[list[int]]) -> tuple[Any, Any]:
    """Each prompt's forward pass alone, then their KV caches left-padded into one; returns it and each prompt's
    last logits. Alone, a prompt needs no padding mask, so attention keeps its causal kernel: a padded batch would
    build a rows x heads x width x width attention matrix on CPU (a gigabyte for 16 prompts of 2,000 tokens)."""
    import torch
    import torch.nn.functional as F
    from transformers.cache_utils import DynamicCache

    device = next(model.parameters()).device
    width = max(len(p) for p in prompts)
    layers: list[list[tuple[Any, Any]]] = []
    last_logits = []
    for prompt in prompts:
        output = model(input_ids=torch.tensor([prompt], dtype=torch.long, device=device), use_cache=True)
        last_logits.append(output.logits[0, -1].float().cpu())
        layers.append([(layer.keys, layer.values) for layer in output.past_key_values.layers])
    cache = DynamicCache(config=model.config)
    for index in range(len(layers[0])):
        keys = [F.pad(row[index][0], (0, 0, width - row[index][0].shape[2], 0)) for row in layers]
        values = [F.pad(row[index][1], (0, 0, width - row[index][1].shape[2], 0)) for row in layers]
        cache.update(torch.cat(keys), torch.cat(values), index)
    return cache, torch.stack(last_logits)


def sample_batch(model: Any, prompts: list[list[int]], samplings: list[SamplingParams], *, pad_id: int,
                 eos_ids: set[int], temperature_at: Callable[[int, SamplingParams], float],
                 hit_stop: Callable[[list[int], list[str]], bool]) -> list[SampledRow]:
    """Samples one reply per prompt: prompts prefilled one by one into one left-padded cache, then one batched
    decoding step per token; rows that finish stop growing (they feed padding)."""
    import torch

    device = next(model.parameters()).device
    rows = len(prompts)
    width = max(len(p) for p in prompts)
    attention = torch.zeros((rows, width), dtype=torch.long, device=device)
    for row, prompt in enumerate(prompts):
        attention[row, width - len(prompt):] = 1
    positions = torch.tensor([[len(p)] for p in prompts], dtype=torch.long, device=device)  # of the next token
    generators = [torch.Generator(device="cpu").manual_seed(turn_seed(s, len(p))) for p, s in zip(prompts, samplings)]
    results = [SampledRow([], [], "length") for _ in prompts]
    active = [s.max_tokens > 0 for s in samplings]
    with torch.no_grad():
        past, logits = prefill(model, prompts)
        while True:
            next_tokens = []
            for row, sampling in enumerate(samplings):
                if not active[row]:
                    next_tokens.append(pad_id)
                    continue
                result = results[row]
                token, logprob = sample_token(torch, logits[row], temperature_at(len(result.completion_ids), sampling),
                                              sampling.top_p, generators[row])
                result.completion_ids.append(token)
                result.logprobs.append(logprob)
                if token in eos_ids or (sampling.stop and hit_stop(result.completion_ids, sampling.stop)):
                    result.finish_reason = "stop"
                    active[row] = False
                elif len(result.completion_ids) >= sampling.max_tokens:
                    active[row] = False
                next_tokens.append(token)
            if not any(active):
                break
            attention = torch.cat([attention, torch.ones((rows, 1), dtype=torch.long, device=device)], dim=1)
            output = model(input_ids=torch.tensor(next_tokens, dtype=torch.long, device=device).unsqueeze(1),
                           attention_mask=attention, position_ids=positions, past_key_values=past, use_cache=True)
            past = output.past_key_values
            logits = output.logits[:, -1].float().cpu()
            positions = positions + 1
    return results
