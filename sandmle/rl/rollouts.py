"""A GRPO step's rollouts: whole ReAct episodes through the one runner, turned into TRL's per-sample token record."""

from __future__ import annotations

import statistics
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sandmle.generation import BatchedPolicy, ConcurrentPolicy, GenerationStats
from sandmle.rollout import EpisodeConfig, Trajectory, run_episode

# Episodes that ran out of wall-clock time are cut mid-thought: their tokens say nothing about the policy's choices.
MASKED_TERMINATIONS = ("time_budget", "error")

EpisodeFn = Callable[..., Trajectory]


def default_episode(task_dir: Path, *, scaffold: str, policy: Any, config: EpisodeConfig, pool: Any,
                    sample_index: int, group_id: str) -> Trajectory:
    return run_episode(task_dir, scaffold=scaffold, policy=policy, config=config, pool=pool,
                       sample_index=sample_index, group_id=group_id)


@dataclass
class EpisodeSample:
    """One episode as GRPO trains on it: completion = everything after the first prompt, env_mask 1 on sampled tokens."""

    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    logprobs: list[float | None]
    reward: float | None  # None: masked out (TRL then leaves it out of the group baseline and gives it no advantage)
    truncated: bool = False


def episode_sample(trajectory: dict, *, reward_scheme: str, max_episode_tokens: int, pad_id: int) -> EpisodeSample:
    """The trajectory's flattened token sequence, cut to the token budget; rewards from the grade, never from text."""
    sequence = trajectory.get("sequence")
    reward_entry = (trajectory.get("rewards") or {}).get(reward_scheme)
    masked = trajectory.get("termination") in MASKED_TERMINATIONS or reward_entry is None or sequence is None
    if sequence is None:
        # No single sequence (no reply at all, or a trimmed context broke the token prefix): keep the first reply's
        # tokens for shape only, with every position masked, rather than guess a mask from text.
        records = trajectory.get("tokens") or []
        prompt = list(records[0]["prompt_ids"]) if records else [pad_id]
        completion = list(records[0]["completion_ids"]) if records else [pad_id]
        return EpisodeSample(prompt, completion, [0] * len(completion), [None] * len(completion), None)
    start = sequence["prompt_length"]
    ids, mask, logprobs = sequence["ids"][start:], sequence["mask"][start:], sequence["logprobs"][start:]
    truncated = len(ids) > max_episode_tokens
    ids, mask, logprobs = ids[:max_episode_tokens], mask[:max_episode_tokens], logprobs[:max_episode_tokens]
    if masked or not any(mask):
        mask = [0] * len(mask)
    reward = None if masked or not any(mask) else float(reward_entry["total"])
    return EpisodeSample(list(sequence["ids"][:start]), list(ids), list(mask), list(logprobs), reward, truncated)


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
        with policy.episode():
            return episode_fn(task_dir, scaffold=scaffold, policy=policy, config=config, pool=pool, sample_index=slot,
                              group_id=f"{first_slot + group * group_size}:{Path(task_dir).name}")

    workers = max(1, min(concurrency, len(jobs)))
    policy.expect(workers)
    with ThreadPoolExecutor(max_workers=workers) as executor:
        return list(executor.map(one, jobs))


def group_has_spread(samples: list[EpisodeSample]) -> bool:
    rewards = [s.reward for s in samples if s.reward is not None]
    return len(rewards) >= 2 and max(rewards) - min(rewards) > 1e-9


def step_metrics(rollouts: StepRollouts, *, group_size: int) -> dict[str, Any]:
    """The rollout half of a metrics.jsonl line."""
    rewards = [s.reward for s in rollouts.samples if s.reward is not None]
    groups = [rollouts.samples[i:i + group_size] for i in range(0, len(rollouts.samples), group_size)]
    grades = [t.get("grade") or {} for t in rollouts.trajectories]
    turns = [sum(1 for turn in t.get("turns", []) if turn["role"] == "assistant") for t in rollouts.trajectories]
    terminations: dict[str, int] = {}
    for t in rollouts.trajectories:
        terminations[t["termination"]] = terminations.get(t["termination"], 0) + 1
    count = len(rollouts.trajectories) or 1
    sandbox_s = sum(turn.get("wall_s") or 0.0 for t in rollouts.trajectories for turn in t.get("turns", [])
                    if turn.get("step") is not None)
    return {
        "reward_mean": statistics.fmean(rewards) if rewards else 0.0,
        "reward_std": statistics.pstdev(rewards) if len(rewards) > 1 else 0.0,
        "zero_std_group_share": sum(not group_has_spread(g) for g in groups) / len(groups) if groups else 0.0,
        "valid_rate": sum(bool(g.get("valid_submission")) for g in grades) / count,
        "medal_rate": sum(bool(g.get("any_medal")) for g in grades) / count,
        "mean_turns": statistics.fmean(turns) if turns else 0.0,
        "tokens": sum(sum(s.env_mask) for s in rollouts.samples),
        "sequence_tokens": sum(len(s.prompt_ids) + len(s.completion_ids) for s in rollouts.samples),
        "masked_episodes": sum(s.reward is None for s in rollouts.samples),
        "truncated_episodes": sum(s.truncated for s in rollouts.samples),
        "terminations": terminations,
        "groups_drawn": rollouts.groups_drawn,
        "groups_dropped": rollouts.groups_dropped,
        **rollouts.generation.summary(),
        "sandbox_s": sandbox_s,
        "rollout_s": rollouts.rollout_s,
    }
