"""Named GRPO recipes: each key a preset sets, with the source of its value; a preset applies before the user's keys.

`sandmle-paper` is the authors' recipe as their released trainer runs it; `cpu-smoke` is a run that visibly learns
on two CPU cores with the reply-menu tiny model (`sandmle tiny-model --reply-menu`).
"""

from __future__ import annotations

from typing import Any

PAPER = "SandMLE's rLLM/verl recipe"
RELEASED_AGENT = "SandMLE's released ReAct agent (examples/deepresearch)"

# {preset: {key: (value, where the value comes from)}}
RUN_PRESETS: dict[str, dict[str, tuple[Any, str]]] = {
    "sandmle-paper": {
        "scaffold": ("react", RELEASED_AGENT),
        "scaffold_options": ({"dialect": "sandmle", "output_lines": 20},
                             f"{RELEASED_AGENT}: <tool_call>/<code>, a Score tool, <answer>; 20-line output tails"),
        "feedback": ("score_answers", f"{RELEASED_AGENT}: its Score tool grades against the real answers"),
        "reward": ("dense", f"{PAPER}: the dense milestone reward"),
        "group_size": (4, f"{PAPER}: 4 rollouts per task"),
        "tasks_per_step": (16, f"{PAPER}: 16 tasks per step, 64 episodes"),
        "learning_rate": (1e-6, f"{PAPER}: actor lr 1e-6"),
        "kl_coef": (0.0, f"{PAPER}: no KL term"),
        "clip_low": (0.2, f"{PAPER}: clip ratio low 0.2"),
        "clip_high": (0.28, f"{PAPER}: clip ratio high 0.28"),
        "loss_type": ("grpo", f"{PAPER}: loss_agg_mode seq-mean-token-mean"),
        "max_tokens": (32768, f"{PAPER}: responses up to 32k tokens"),
        "max_episode_tokens": (32768, f"{PAPER}: responses up to 32k tokens (the whole multi-turn response)"),
        "max_turns": (15, f"{PAPER} and {RELEASED_AGENT}: at most 15 turns"),
        "temperature": (1.0, f"{PAPER}: rollout temperature 1.0"),
        "masked_in_baseline": ("reference", f"{PAPER}: masked episodes stay in their group's statistics"),
        "mask_step_timeout_share": (0.2, f"{PAPER}: timed-out and failed episodes masked"),
        "importance_sampling": ("off", f"{PAPER}: old log-probs recomputed, no importance weight"),
        "weight_decay": (0.01, f"{PAPER}: verl's actor optimizer default"),
        "step_timeout_s": (300.0, f"{PAPER}: 300 s a sandboxed run"),
        "time_budget_s": (1200.0, f"{RELEASED_AGENT}: 20 minutes an episode"),
        "context_tokens": (32768, f"{RELEASED_AGENT}: a 32k context"),
        "epochs": (20.0, f"{PAPER}: 20 epochs over the task set"),
        # What an 8B policy needs on 80 GB GPUs (issue 66): ~40k-token episodes, 4 a forward by default, do not fit.
        "micro_batch_size": (2, f"{PAPER}: ppo_micro_batch_size_per_gpu 2, two episodes a forward/backward"),
        "gradient_checkpointing": (True, f"{PAPER}: enable_gradient_checkpointing"),
        "bf16": (True, f"{PAPER}: bf16 parameters"),
    },
    "cpu-smoke": {
        "group_size": (4, "a group the tiny model's three replies can split"),
        "tasks_per_step": (1, "one task a step: a step takes seconds on two cores"),
        "steps": (6, "enough steps for the reward to rise visibly"),
        "learning_rate": (0.03, "large: the reply menu's one sampled token moves in a few steps"),
        "max_turns": (1, "one reply runs one program: the choice is the whole episode"),
        "max_tokens": (12, "the menu samples one token a reply"),
        "concurrency": (2, "two cores"),
        "save_every": (6, "one checkpoint, at the end"),
        "eval_every": (0, "no evaluation"),
        "step_timeout_s": (60.0, "a tabular fit on a small bundle"),
    },
}
RUN_PRESET_NAMES = tuple(RUN_PRESETS)


def preset_values(name: str) -> dict[str, Any]:
    """The settings a preset sets (copies, so a caller may change them)."""
    return {key: (dict(value) if isinstance(value, dict) else value) for key, (value, _) in RUN_PRESETS[name].items()}


def preset_report(values: dict[str, Any]) -> dict[str, Any]:
    """What a resolved run's preset set and what the user changed: {"preset", "set": {key: value}, "changed":
    {key: {"preset": value, "run": value}}} (empty for a run without a preset)."""
    name = values.get("preset")
    if not name:
        return {"preset": None, "set": {}, "changed": {}}
    set_by_preset = preset_values(name)
    changed = {key: {"preset": value, "run": values.get(key)} for key, value in set_by_preset.items()
               if values.get(key) != value}
    return {"preset": name, "set": set_by_preset, "changed": changed}
