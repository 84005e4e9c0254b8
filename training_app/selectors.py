"""Reads of the training side: rollout batches and trajectories."""

from __future__ import annotations

from django.db.models import QuerySet

from training_app.models import RolloutBatch, Trajectory


def rollout_batch_list() -> QuerySet[RolloutBatch]:
    return RolloutBatch.objects.select_related("task_set", "created_by")


def rollout_batch_get(*, batch_id: int) -> RolloutBatch:
    return RolloutBatch.objects.select_related("task_set").get(id=batch_id)


def trajectory_list(*, batch: RolloutBatch, task_id: str = "") -> QuerySet[Trajectory]:
    trajectories = Trajectory.objects.filter(batch=batch).select_related("task").defer("record")
    return trajectories.filter(task__task_id=task_id) if task_id else trajectories


def trajectory_get(*, trajectory_id: int) -> Trajectory:
    return Trajectory.objects.select_related("batch", "task").get(id=trajectory_id)
