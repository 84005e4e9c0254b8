"""Batched sampling on a transformers causal LM: left-padded prompts, one KV cache, per-row settings and seeds.

Each row keeps its own temperature schedule (EAD), top-p, stop strings, token limit and torch.Generator seeded from
the sample's seed and its prompt length, so a row draws the same tokens whatever else shares its batch (up to the
float noise of padding) and a resumed run redraws them. Each sampled token's logprob is taken under the distribution
it was drawn from (temperature and top-p applied).

On CPU, decoding a batch is bound by memory traffic over the KV cache, so two things keep it near one read of the
cache a step: a decoding step's attention reads each key/value head once for its group of query heads, padding mask
or not (grouped_query_attention), and rows that finished leave the batch once half of it has (their cache is
dropped, not fed padding).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from sandmle.agents.policies.base import SamplingParams

SEED_STRIDE = 1_000_003  # the seed of a turn: sample seed x stride + prompt length (fresh randomness every turn)


@dataclass
class SampledRow:
    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: str  # "stop" (end-of-turn token or a stop string) or "length"
    # The temperature and the log-probabilities of the distribution the first and the latest token were drawn from;
    # their entropies are taken once, in `edges`, not at every decoding step.
    _first: tuple[float, Any] | None = None
    _last: tuple[float, Any] | None = None

    def note(self, temperature: float, log_probs: Any) -> None:
        if self._first is None:
            self._first = (temperature, log_probs)
        self._last = (temperature, log_probs)

    @property
    def edges(self) -> dict[str, float]:
        """temperature_first/last and entropy_first/last (nats); {} before a token was drawn."""
        if self._first is None or self._last is None:
            return {}
        return {"temperature_first": self._first[0], "entropy_first": _entropy(self._first[1]),
                "temperature_last": self._last[0], "entropy_last": _entropy(self._last[1])}


def _entropy(log_probs: Any) -> float:
    """Of a drawn-from distribution; 0 for a greedy choice (None)."""
    if log_probs is None:
        return 0.0
    return float(-(log_probs.exp() * log_probs.nan_to_num(neginf=0.0)).sum())


def turn_seed(sampling: SamplingParams, prompt_length: int) -> int:
    return (sampling.seed or 0) * SEED_STRIDE + prompt_length


def sample_token(torch: Any, logits: Any, temperature: float, top_p: float, generator: Any,
                 row: SampledRow | None = None) -> tuple[int, float]:
    """One token from one row's logits; greedy at temperature 0 (logprob 0). `row` notes the temperature and the
    entropy of the distribution drawn from."""
    if temperature <= 0:
        if row is not None:
            row.note(0.0, None)
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
    if row is not None:
        row.note(temperature, log_probs)
    return token, float(log_probs[token])


GROUPED_SDPA = "sdpa_grouped_query"  # our attention function's name in transformers' AttentionInterface


def grouped_sdpa_attention(module: Any, query: Any, key: Any, value: Any, attention_mask: Any, dropout: float = 0.0,
                           scaling: float | None = None, is_causal: bool | None = None, **kwargs: Any) -> tuple:
    """transformers' sdpa attention, except for a decoding step (one query token) on CPU at inference: there each
    group of query heads that shares a key/value head attends as that head's queries, one pass over the cached keys
    and values for the group. transformers instead repeats every cached key and value once per query head whenever a
    mask is given (CUDA's kernels take no mask with grouped heads): with the padding mask of a batch, a copy of the
    whole KV cache in every layer at every step, four times the time of the attention itself here."""
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    batch, heads, length, head_dim = query.shape
    kv_heads = key.shape[1]
    if (length != 1 or heads == kv_heads or query.device.type != "cpu" or torch.is_grad_enabled()
            or kwargs.get("position_bias") is not None or (attention_mask is not None and attention_mask.shape[1] != 1)):
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    # Query head h reads key/value head h // group (transformers' repeat_kv order): (batch, kv_heads, group, dim).
    grouped = query.reshape(batch, kv_heads, heads // kv_heads, head_dim)
    output = torch.nn.functional.scaled_dot_product_attention(grouped, key, value, attn_mask=attention_mask,
                                                              dropout_p=dropout, scale=scaling)
    return output.reshape(batch, heads, 1, head_dim).transpose(1, 2).contiguous(), None


@contextlib.contextmanager
def grouped_query_attention(model: Any) -> Iterator[None]:
    """Runs the block with grouped_sdpa_attention in place of a CPU model's sdpa attention, then puts sdpa back (the
    model may be the trainer's own: training keeps transformers' attention)."""
    config = getattr(model, "config", None)
    if (getattr(config, "_attn_implementation", None) != "sdpa" or not hasattr(model, "set_attn_implementation")
            or next(model.parameters()).device.type != "cpu"):
        yield
        return
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask

    AttentionInterface.register(GROUPED_SDPA, grouped_sdpa_attention)
    ALL_MASK_ATTENTION_FUNCTIONS.register(GROUPED_SDPA, sdpa_mask)  # the same boolean masks as sdpa
    model.set_attn_implementation(GROUPED_SDPA)
    try:
        yield
    finally:
        model.set_attn_implementation("sdpa")


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
    decoding step per token; a finished row feeds padding until half the batch has finished, then the finished rows
    leave it."""
    import torch

    device = next(model.parameters()).device
    width = max(len(p) for p in prompts)
    attention = torch.zeros((len(prompts), width), dtype=torch.long, device=device)
    for row, prompt in enumerate(prompts):
        attention[row, width - len(prompt):] = 1
    positions = torch.tensor([[len(p)] for p in prompts], dtype=torch.long, device=device)  # of the next token
    generators = [torch.Generator(device="cpu").manual_seed(turn_seed(s, len(p))) for p, s in zip(prompts, samplings)]
    results = [SampledRow([], [], "length") for _ in prompts]
    active = [s.max_tokens > 0 for s in samplings]
    in_batch = list(range(len(prompts)))  # the row (index into prompts) at each position of the decoding batch
    with torch.no_grad(), grouped_query_attention(model):
        past, logits = prefill(model, prompts)
        while True:
            next_tokens = []
            for position, row in enumerate(in_batch):
                if not active[row]:
                    next_tokens.append(pad_id)
                    continue
                result, sampling = results[row], samplings[row]
                token, logprob = sample_token(torch, logits[position], temperature_at(len(result.completion_ids),
                                                                                      sampling),
                                              sampling.top_p, generators[row], result)
                result.completion_ids.append(token)
                result.logprobs.append(logprob)
                if token in eos_ids or (sampling.stop and hit_stop(result.completion_ids, sampling.stop)):
                    result.finish_reason = "stop"
                    active[row] = False
                elif len(result.completion_ids) >= sampling.max_tokens:
                    active[row] = False
                next_tokens.append(token)
            staying = [position for position, row in enumerate(in_batch) if active[row]]
            if not staying:
                break
            if 2 * len(staying) <= len(in_batch):  # half the batch is done: drop it (one copy of the cache)
                keep = torch.tensor(staying, dtype=torch.long, device=device)
                past.batch_select_indices(keep)
                attention, positions = attention[keep], positions[keep]
                next_tokens = [next_tokens[position] for position in staying]
                in_batch = [in_batch[position] for position in staying]
            attention = torch.cat([attention, torch.ones((len(in_batch), 1), dtype=torch.long, device=device)], dim=1)
            output = model(input_ids=torch.tensor(next_tokens, dtype=torch.long, device=device).unsqueeze(1),
                           attention_mask=attention, position_ids=positions, past_key_values=past, use_cache=True)
            past = output.past_key_values
            logits = output.logits[:, -1].float().cpu()
            positions = positions + 1
    return results
