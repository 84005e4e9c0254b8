"""Rollout statistics flowing back to tasks: success rate and reward spread over a task's trajectories, in one query.

A task that every sample solves, or that no sample solves, gives GRPO's group-normalised advantage nothing to learn
from (all rewards of a group alike); the studio flags such tasks so a reviewer can retire or regenerate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from django.db.models import Avg, Count, Max, Min, Q, StdDev

from tasks_app.shared import training_hooks

MEDALS = ("bronze", "silver", "gold")  # a sample "solves" a task when it earns a medal
MIN_SAMPLES_TO_FLAG = 2


@dataclass(frozen=True)
class TaskRolloutStats:
    samples: int
    solved: int
    valid: int
    mean_reward: float
    min_reward: float
    max_reward: float
    reward_std: float

    @property
    def success_rate(self) -> float:
        return self.solved / self.samples if self.samples else 0.0

    @property
    def valid_rate(self) -> float:
        return self.valid / self.samples if self.samples else 0.0

    @property
    def reward_spread(self) -> float:
        return self.max_reward - self.min_reward

    @property
    def flag(self) -> str:
        """'all solve' / 'none solve' when the task teaches GRPO nothing; '' otherwise."""
        if self.samples < MIN_SAMPLES_TO_FLAG:
            return ""
        if self.solved == self.samples:
            return "all solve"
        if self.solved == 0:
            return "none solve"
        return ""


def rollout_stats_by_task(*, task_ids: Iterable[int]) -> dict[int, TaskRolloutStats]:
    """Stats per task primary key over all its trajectories (every batch), in one grouped query.

    Reads only scalar columns of Trajectory, never the heavy `record`.
    """
    ids = list(task_ids)
    if not ids:
        return {}
    rows = (
        training_hooks.trajectories().filter(task_id__in=ids).values("task_id")
        .annotate(samples=Count("id"), solved=Count("id", filter=Q(milestone__in=MEDALS)),
                  valid=Count("id", filter=Q(valid_submission=True)), mean_reward=Avg("reward"),
                  min_reward=Min("reward"), max_reward=Max("reward"), reward_std=StdDev("reward"))
        .order_by()
    )
    return {
        row["task_id"]: TaskRolloutStats(
            samples=row["samples"], solved=row["solved"], valid=row["valid"], mean_reward=row["mean_reward"] or 0.0,
            min_reward=row["min_reward"] or 0.0, max_reward=row["max_reward"] or 0.0,
            reward_std=row["reward_std"] or 0.0,
        )
        for row in rows
    }


def attach_rollout_stats(tasks: Iterable) -> list:
    """The tasks as a list, each with `.rollout_stats` (None before any rollout): one query for the whole page."""
    tasks = list(tasks)
    stats = rollout_stats_by_task(task_ids=[task.pk for task in tasks])
    for task in tasks:
        task.rollout_stats = stats.get(task.pk)
    return tasks
