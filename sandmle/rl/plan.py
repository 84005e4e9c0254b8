"""What a GRPO run will need, from its settings alone (`sandmle grpo --plan`): no model, tokenizer or GPU is touched.

The step: `group_size x tasks_per_step` episodes, split over the training processes by `sandmle/rl/process_split.py`
(whose refusal becomes the plan's `problem`); each process trains `episodes / processes` episodes in micro-batches of
`micro_batch_size` (default `group_size`), so TRL's `gradient_accumulation_steps` = episodes a process / micro-batch,
as `sandmle.rl.grpo.trainer_args` sets it (`per_device_train_batch_size` = the micro-batch).

The longest trained sequence: the first prompt plus at most `max_episode_tokens` tokens after it (rollouts.py cuts
there), and a single token sequence only exists while the context was never trimmed, so the last turn's prompt fits
the scaffold's `context_tokens` and its reply `max_tokens`: longest = context_tokens + min(max_tokens,
max_episode_tokens). It is a bound (the config has no key bounding one observation, so max_turns x (max_tokens +
observation) cannot be bounded more tightly from the settings).

GPU memory a process, in bytes (P parameters, N processes, w = 2 for bf16 weights, 4 for fp32):
- DDP (every process holds everything): weights w*P + gradients w*P + AdamW's m and v 2*w*P (torch keeps them in
  the parameters' dtype, and the trainer loads the model in that dtype): 4*w*P, 8 B/param in bf16, 16 in fp32.
- ZeRO-3 (DeepSpeed, `configs/accelerate/zero3.yaml`): 16 B/param divided by N: 2 (bf16 weights) + 2 (bf16
  gradients) + 12 (fp32 master weights, Adam m and v), the mixed-precision Adam figure of the ZeRO paper
  (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", section 3.1:
  2P + 2P + K*P with K = 12), all three partitioned over the N processes (stage 3).
- LoRA trains a few adapters: their gradients and optimizer states are left out (weights only).
- Activations of the largest micro-batch: micro x seq x hidden x layers x k bytes with k = 34, the per-layer bytes of
  a transformer layer in 16-bit per token per hidden unit from Korthikanti et al. 2022 ("Reducing Activation
  Recomputation in Large Transformer Models", section 4.1: s*b*h*(34 + 5*a*s/h)), without the 5*a*s/h attention
  scores term, which flash/SDPA attention does not store. With gradient checkpointing each layer keeps only its
  input (k = 2 bytes, one bf16 value) and one layer is recomputed at a time: micro x seq x hidden x (2 x layers + 34).
- Logits: micro x min(seq, max_episode_tokens) x vocab x w (TRL asks the model for the completion's logits only).
The estimate leaves out the CUDA context, allocator fragmentation and collective buffers (a few GB).

The parameter count comes from the model's config.json (hidden_size, num_hidden_layers, intermediate_size,
vocab_size, num_attention_heads, num_key_value_heads, head_dim, tie_word_embeddings; num_experts with
moe_intermediate_size for a mixture of experts: memory holds every expert), or from a given count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandmle.rl.process_split import check_process_split
from sandmle.settings import ConfigError

GIB = 1 << 30
# Bytes a parameter takes under ZeRO's mixed-precision Adam (the ZeRO paper, section 3.1): 2 + 2 + 12.
ZERO_BYTES_PER_PARAM = 16
# Korthikanti et al. 2022: a 16-bit transformer layer stores 34 bytes per token per hidden unit (flash attention).
ACTIVATION_BYTES_PER_LAYER = 34
# Gradient checkpointing keeps each layer's bf16 input: 2 bytes per token per hidden unit per layer.
CHECKPOINT_BYTES_PER_LAYER = 2
SHARDINGS = ("ddp", "zero3")


@dataclass(frozen=True)
class ModelShape:
    """What the memory estimate needs from a model: its parameters and, where config.json gave them, its sizes."""

    params: float
    hidden_size: int | None = None
    num_hidden_layers: int | None = None
    vocab_size: int | None = None
    source: str = ""


@dataclass(frozen=True)
class Memory:
    """GPU bytes one process needs under one sharding."""

    sharding: str
    weights: float
    gradients: float
    optimizer: float
    activations: float | None
    logits: float | None

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + (self.activations or 0) + (self.logits or 0)


@dataclass(frozen=True)
class Plan:
    processes: int
    group_size: int
    tasks_per_step: int
    episodes: int
    episodes_per_process: float
    micro_batch: int
    accumulation: int | None
    longest_sequence: int
    gradient_checkpointing: bool
    bf16: bool
    lora: bool
    model: ModelShape | None
    memory: dict[str, Memory] = field(default_factory=dict)
    problem: str | None = None  # why the run cannot start as planned (process_split's refusal)

    @property
    def runs(self) -> bool:
        return self.problem is None


def count_params(shape: dict[str, Any]) -> float:
    """Parameters of a decoder-only transformer from its config.json: embeddings (and an untied head), per layer the
    attention projections, the gated MLP (every expert, plus the router, for a mixture of experts) and two norms."""
    hidden = int(shape["hidden_size"])
    layers = int(shape["num_hidden_layers"])
    vocab = int(shape["vocab_size"])
    heads = int(shape["num_attention_heads"])
    kv_heads = int(shape.get("num_key_value_heads") or heads)
    head_dim = int(shape.get("head_dim") or hidden // heads)
    attention = hidden * head_dim * (2 * heads + 2 * kv_heads)  # q and o; k and v
    experts = int(shape.get("num_experts") or shape.get("num_local_experts") or 0)
    if experts:
        expert_size = int(shape.get("moe_intermediate_size") or shape["intermediate_size"])
        mlp = experts * 3 * hidden * expert_size + hidden * experts
    else:
        mlp = 3 * hidden * int(shape["intermediate_size"])  # gate, up and down projections
    embeddings = vocab * hidden * (1 if shape.get("tie_word_embeddings") else 2)
    return float(embeddings + layers * (attention + mlp + 2 * hidden) + hidden)


def model_shape(model: str | Path | None, params: float | None = None) -> ModelShape | None:
    """The shape from `model`/config.json where it exists (only that file is read), else the given count, else None."""
    path = Path(model) / "config.json" if model else None
    if path is not None and path.is_file():
        try:
            shape = json.loads(path.read_text())
            shape = {**shape.get("text_config", {}), **shape} if "hidden_size" not in shape else shape
            return ModelShape(count_params(shape), int(shape["hidden_size"]), int(shape["num_hidden_layers"]),
                              int(shape["vocab_size"]), source=str(path))
        except (ValueError, KeyError, TypeError) as error:
            raise ConfigError("model", f"{path} does not give the model's shape ({error})") from None
    if params is not None:
        return ModelShape(float(params), source="--params")
    return None


def memory_estimate(model: ModelShape, *, sharding: str, processes: int, micro_batch: int, sequence: int,
                    completion: int, bf16: bool, gradient_checkpointing: bool, lora: bool) -> Memory:
    """One process's GPU bytes under `sharding` (ddp or zero3), by the formula of this module's docstring."""
    if sharding not in SHARDINGS:
        raise ValueError(f"sharding {sharding!r}: expected one of {', '.join(SHARDINGS)}")
    width = 2 if bf16 else 4
    params = model.params
    if sharding == "ddp":
        weights, gradients, optimizer = width * params, width * params, 2 * width * params
    else:
        weights, gradients = 2 * params / processes, 2 * params / processes
        optimizer = (ZERO_BYTES_PER_PARAM - 4) * params / processes
    if lora:
        gradients = optimizer = 0.0
    activations = logits = None
    if model.hidden_size and model.num_hidden_layers:
        tokens = micro_batch * sequence * model.hidden_size
        if gradient_checkpointing:
            activations = float(tokens * (CHECKPOINT_BYTES_PER_LAYER * model.num_hidden_layers
                                          + ACTIVATION_BYTES_PER_LAYER))
        else:
            activations = float(tokens * ACTIVATION_BYTES_PER_LAYER * model.num_hidden_layers)
    if model.vocab_size:
        logits = float(micro_batch * min(sequence, completion) * model.vocab_size * width)
    return Memory(sharding, weights, gradients, optimizer, activations, logits)


def training_processes(processes: int | None = None, environ: dict[str, str] | None = None) -> int:
    """The given count, else the launch's WORLD_SIZE (torchrun, accelerate) or ACCELERATE_NUM_PROCESSES, else 1."""
    import os

    if processes is not None:
        return processes
    environ = os.environ if environ is None else environ
    for name in ("WORLD_SIZE", "ACCELERATE_NUM_PROCESSES"):
        if environ.get(name, "").strip():
            return int(environ[name])
    return 1


def plan_run(values: dict[str, Any], *, processes: int, params: float | None = None) -> Plan:
    """The plan of a checked GRPO config's values (`load_train_config(...).values`) on `processes` processes."""
    if processes < 1:
        raise ConfigError("processes", f"{processes}: at least 1")
    group, tasks = values["group_size"], values["tasks_per_step"]
    micro = values["micro_batch_size"] or group  # as sandmle.rl.grpo.trainer_args defaults it
    episodes = group * tasks
    problem = None
    try:
        check_process_split(tasks_per_step=tasks, group_size=group, micro_batch=micro, processes=processes)
    except ConfigError as error:
        problem = str(error)
    accumulation = None if problem else episodes // processes // micro  # trainer_args' gradient_accumulation_steps
    sequence = values["context_tokens"] + min(values["max_tokens"], values["max_episode_tokens"])
    model = model_shape(values.get("model"), params)
    memory = {}
    if model is not None:
        for sharding in SHARDINGS:
            memory[sharding] = memory_estimate(
                model, sharding=sharding, processes=processes, micro_batch=micro, sequence=sequence,
                completion=values["max_episode_tokens"], bf16=values["bf16"],
                gradient_checkpointing=values["gradient_checkpointing"], lora=bool(values.get("lora")))
    return Plan(processes=processes, group_size=group, tasks_per_step=tasks, episodes=episodes,
                episodes_per_process=episodes / processes, micro_batch=micro, accumulation=accumulation,
                longest_sequence=sequence, gradient_checkpointing=values["gradient_checkpointing"],
                bf16=values["bf16"], lora=bool(values.get("lora")), model=model, memory=memory, problem=problem)
