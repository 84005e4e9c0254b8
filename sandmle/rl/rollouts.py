"""A GRPO step's rollouts: whole ReAct episodes through the one runner, turned into TRL's per-sample token record."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sandmle.episodes.runner import EpisodeConfig, run_episode
from sandmle.episodes.threads import run_episodes
from sandmle.episodes.trajectory import Trajectory
from sandmle.evaluation.metrics import episode_turns, outcome_rates
from sandmle.generation import BatchedPolicy, ConcurrentPolicy, GenerationStats
from sandmle.tasks.grade_report import stored_grade

# Episodes that ran out of wall-clock time are cut mid-thought, and an error stopped the policy mid-episode: their
# tokens say nothing about the policy's choices, so they get no loss. Whether their reward still counts in their
# group's statistics is the run's `masked_in_baseline` (sandmle.rl.config).
MASKED_TERMINATIONS = ("time_budget", "error")

EpisodeFn = Callable[..., Trajectory]


def default_episode(task_dir: Path, *, scaffold: str, policy: Any, config: EpisodeConfig, pool: Any,
                    sample_index: int, group_id: str) -> Trajectory:
    return run_episode(task_dir, scaffold=scaffold, policy=policy, config=config, pool=pool,
                       sample_index=sample_index, group_id=group_id)


@dataclass
class EpisodeSample:
    """One episode as GRPO trains on it: completion = everything after the first prompt, env_mask 1 on sampled tokens.

    `reward` is what the episode adds to its group's mean and spread (None: left out of them; TRL then gives it no
    advantage); `trained` False masks it from the loss whole (env_mask all 0), `mask_reason` says why.
    """

    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    logprobs: list[float | None]
    reward: float | None
    truncated: bool = False
    trained: bool = True
    mask_reason: str | None = None


def step_timeout_share(trajectory: dict) -> float:
    """The share of the episode's sandbox steps that hit the step timeout (0 without steps)."""
    turns = trajectory.get("turns") if isinstance(trajectory.get("turns"), list) else []
    steps = [turn["step"] for turn in turns if isinstance(turn, dict) and isinstance(turn.get("step"), dict)]
    return sum(step.get("termination") == "timeout" for step in steps) / len(steps) if steps else 0.0


def _reward_entry(trajectory: dict, reward_scheme: str) -> dict | None:
    rewards = trajectory.get("rewards")
    entry = rewards.get(reward_scheme) if isinstance(rewards, dict) else None
    return entry if isinstance(entry, dict) else None


def mask_reason(trajectory: dict, *, reward_scheme: str, mask_step_timeout_share: float) -> str | None:
    """Why the episode must not train (None: it trains): how it ended, too many step timeouts, no reward, no sequence."""
    if trajectory.get("termination") in MASKED_TERMINATIONS:
        return str(trajectory["termination"])
    if _reward_entry(trajectory, reward_scheme) is None:
        return "no_reward"
    if step_timeout_share(trajectory) > mask_step_timeout_share:
        return "step_timeouts"
    if trajectory.get("sequence") is None:
        return "no_sequence"
    return None


def baseline_reward(trajectory: dict, *, reward_scheme: str, masked_in_baseline: str = "reference",
                    mask_step_timeout_share: float = 0.2) -> tuple[float | None, str | None]:
    """(the reward the episode adds to its group's statistics or None, why it is masked from the loss or None).

    A masked episode that took a turn keeps its reward for the group baseline under `masked_in_baseline=reference`
    (rLLM computes group statistics over every episode that took steps, then drops the masked ones from the loss);
    under `exclude` it is left out of the baseline too.
    """
    reason = mask_reason(trajectory, reward_scheme=reward_scheme, mask_step_timeout_share=mask_step_timeout_share)
    entry = _reward_entry(trajectory, reward_scheme)
    in_baseline = entry is not None and (
        reason is None or (masked_in_baseline == "reference" and bool(trajectory.get("tokens"))))
    try:
        return (float(entry["total"]) if in_baseline else None), reason
    except (KeyError, TypeError, ValueError):
        return None, reason or "no_reward"


def episode_sample(trajectory: dict, *, reward_scheme: str, max_episode_tokens: int, pad_id: int,
                   masked_in_baseline: str = "reference", mask_step_timeout_share: float = 0.2) -> EpisodeSample:
    """The trajectory's flattened token sequence, cut to the token budget; rewards from the grade, never from text."""
    reward, reason = baseline_reward(trajectory, reward_scheme=reward_scheme, masked_in_baseline=masked_in_baseline,
                                     mask_step_timeout_share=mask_step_timeout_share)
    sequence = trajectory.get("sequence")
    if sequence is None:
        # No single sequence (no reply at all, or a trimmed context broke the token prefix): keep the first reply's
        # tokens for shape only, with every position masked, rather than guess a mask from text.
        records = trajectory.get("tokens") or []
        prompt = list(records[0]["prompt_ids"]) if records else [pad_id]
        ids = list(records[0]["completion_ids"]) if records else [pad_id]
        mask, logprobs, truncated = [0] * len(ids), [None] * len(ids), False
    else:
        start = sequence["prompt_length"]
        prompt = list(sequence["ids"][:start])
        ids, mask, logprobs = sequence["ids"][start:], sequence["mask"][start:], sequence["logprobs"][start:]
        truncated = len(ids) > max_episode_tokens
        ids, mask, logprobs = ids[:max_episode_tokens], mask[:max_episode_tokens], logprobs[:max_episode_tokens]
        if reason is None and not any(mask):
            reason = "no_sampled_tokens"  # every token forced or cut off: nothing the policy chose is left to train
            if masked_in_baseline == "exclude":
                reward = None
    if reason is not None:
        mask = [0] * len(mask)
    return EpisodeSample(prompt, list(ids), list(mask), list(logprobs), reward, truncated, trained=reason is None,
                         mask_reason=reason)


@dataclass
class StepRollouts:
    """What one step's rollouts produced, in group order, plus the bookkeeping its metrics line reports."""

    trajectories: list[dict] = field(default_factory=list)
    samples: list[EpisodeSample] = field(default_factory=list)
    task_indices: list[int] = field(default_factory=list)
    groups_drawn: int = 0
    groups_dropped: int = 0
    rollout_s: float = 0.0
    generation: GenerationStats = field(default_factory=GenerationStats)


def run_groups(task_dirs: list[Path], task_indices: list[int], *, group_size: int, first_slot: int,
               episode_fn: EpisodeFn, scaffold: str, policy: BatchedPolicy | ConcurrentPolicy, config: EpisodeConfig, pool: Any,
               concurrency: int) -> list[Trajectory]:
    """G episodes per drawn task, on `concurrency` threads; a failing episode is an "error" trajectory, not a crash.

    Every episode is live in the policy's generation layer while it runs, so their turns go out in shared batches.

    Each episode's sample index is its slot in the whole run (`first_slot` onwards), so its sampling seed is unique
    and a resumed run re-draws exactly the same samples.
    """
    jobs = [(group, index, k) for group, index in enumerate(task_indices) for k in range(group_size)]

    def one(job: tuple[int, int, int]) -> Trajectory:
        group, index, k = job
        slot = first_slot + group * group_size + k
        task_dir = task_dirs[index]
        return episode_fn(task_dir, scaffold=scaffold, policy=policy, config=config, pool=pool, sample_index=slot,
                          group_id=f"{first_slot + group * group_size}:{Path(task_dir).name}")

    return run_episodes(jobs, one, policy=policy, concurrency=concurrency)


def group_has_spread(samples: list[EpisodeSample]) -> bool:
    rewards = [s.reward for s in samples if s.reward is not None]
    return len(rewards) >= 2 and max(rewards) - min(rewards) > 1e-9


def reward_component_means(trajectories: list[dict], *, reward_scheme: str,
                           counted: list[bool] | None = None) -> dict[str, float]:
    """Each part of the scheme's reward (dense: valid, milestone, format; sparse: gold, format; a rubric's items),
    averaged over the counted episodes (all by default) as their totals are: the means sum to the mean reward.

    An episode without the scheme's entry, or without a part another one has, adds 0 to that part.
    """
    kept = [t for k, t in enumerate(trajectories) if counted is None or counted[k]]
    entries = [_reward_entry(t, reward_scheme) or {} for t in kept]
    names = list(dict.fromkeys(name for entry in entries for name in entry.get("components") or {}))
    return {name: sum(float((entry.get("components") or {}).get(name, 0.0)) for entry in entries) / len(entries)
            for name in names} if entries else {}


REPLY_EDGES = ("temperature_first", "temperature_last", "entropy_first", "entropy_last")


def reply_edge_means(trajectories: list[dict]) -> dict[str, float]:
    """The mean temperature and entropy (nats) of the distributions the replies' first and last sampled tokens came
    from (`reply_temperature_first`, ...): how hot a step opened its replies and how cool it closed them. Empty for a
    policy that reports neither (the scripted baseline, an API model)."""
    values: dict[str, list[float]] = {name: [] for name in REPLY_EDGES}
    for trajectory in trajectories:
        for turn in trajectory.get("turns") or []:
            usage = ((turn.get("extra") or {}).get("usage") if isinstance(turn, dict) else None) or {}
            for name in REPLY_EDGES:
                if isinstance(usage.get(name), (int, float)):
                    values[name].append(float(usage[name]))
    return {f"reply_{name}": statistics.fmean(found) for name, found in values.items() if found}


def step_metrics(rollouts: StepRollouts, *, group_size: int, reward_scheme: str = "dense") -> dict[str, Any]:
    """The rollout half of a metrics.jsonl line."""
    rewards = [s.reward for s in rollouts.samples if s.reward is not None]
    groups = [rollouts.samples[i:i + group_size] for i in range(0, len(rollouts.samples), group_size)]
    turns = [episode_turns(t) for t in rollouts.trajectories]
    terminations: dict[str, int] = {}
    for t in rollouts.trajectories:
        terminations[t["termination"]] = terminations.get(t["termination"], 0) + 1
    mask_reasons: dict[str, int] = {}
    for sample in rollouts.samples:
        if sample.mask_reason is not None:
            mask_reasons[sample.mask_reason] = mask_reasons.get(sample.mask_reason, 0) + 1
    sandbox_s = sum(turn.get("wall_s") or 0.0 for t in rollouts.trajectories for turn in t.get("turns", [])
                    if turn.get("step") is not None)
    return {
        "reward_mean": statistics.fmean(rewards) if rewards else 0.0,
        "reward_std": statistics.pstdev(rewards) if len(rewards) > 1 else 0.0,
        "reward_components": reward_component_means(rollouts.trajectories, reward_scheme=reward_scheme,
                                                    counted=[s.reward is not None for s in rollouts.samples]),
        "zero_std_group_share": sum(not group_has_spread(g) for g in groups) / len(groups) if groups else 0.0,
        **outcome_rates(stored_grade(t.get("grade")) for t in rollouts.trajectories),
        "mean_turns": statistics.fmean(turns) if turns else 0.0,
        "tokens": sum(sum(s.env_mask) for s in rollouts.samples),
        "sequence_tokens": sum(len(s.prompt_ids) + len(s.completion_ids) for s in rollouts.samples),
        "masked_episodes": sum(not s.trained for s in rollouts.samples),
        "mask_reasons": mask_reasons,
        "truncated_episodes": sum(s.truncated for s in rollouts.samples),
        "terminations": terminations,
        "groups_drawn": rollouts.groups_drawn,
        "groups_dropped": rollouts.groups_dropped,
        **rollouts.generation.summary(),
        "sandbox_s": sandbox_s,
        "rollout_s": rollouts.rollout_s,
        **reply_edge_means(rollouts.trajectories),
    }
