"""Reads of the training side: rollout batches and trajectories."""

from __future__ import annotations

from django.db.models import QuerySet

from training_app.models import RolloutBatch, Trajectory

# The task columns a trajectory row needs: a bare select_related("task") would read each task's spec and synthesis
# log (kilobytes each) for every row of a list.
TASK_COLUMNS_OF_A_ROW = ("task__task_id", "task__title")


def rollout_batch_list() -> QuerySet[RolloutBatch]:
    return RolloutBatch.objects.select_related("task_set", "created_by").order_by("-created_at", "-id")


def rollout_batch_get(*, batch_id: int) -> RolloutBatch:
    return RolloutBatch.objects.select_related("task_set").get(id=batch_id)


def trajectory_list(*, batch: RolloutBatch, task_id: str = "") -> QuerySet[Trajectory]:
    """A batch's trajectories as rows: scalar columns only, never the heavy `record`."""
    trajectories = (Trajectory.objects.filter(batch=batch).select_related("task")
                    .only(*[field.name for field in Trajectory._meta.concrete_fields if field.name != "record"],
                          *TASK_COLUMNS_OF_A_ROW))
    return trajectories.filter(task__task_id=task_id) if task_id else trajectories


def batch_task_ids(*, batch: RolloutBatch) -> QuerySet:
    """The primary keys of the tasks a batch has trajectories of, in task order: what its detail page pages over.

    Read from the (batch, task, sample_index) unique index alone, so a batch of 100,000 trajectories pages cheaply.
    """
    return Trajectory.objects.filter(batch=batch).order_by("task_id").values_list("task_id", flat=True).distinct()


def trajectory_groups(*, batch: RolloutBatch, task_pks) -> list[tuple[str, list[Trajectory]]]:
    """The trajectories of the given tasks of a batch, grouped by task in batch_task_ids' order, samples in order."""
    groups: dict[str, list[Trajectory]] = {}
    rows = trajectory_list(batch=batch).filter(task_id__in=list(task_pks)).order_by("task_id", "sample_index")
    for trajectory in rows:
        groups.setdefault(trajectory.task.task_id, []).append(trajectory)
    return list(groups.items())


def trajectory_get(*, trajectory_id: int) -> Trajectory:
    """One trajectory with its record (its own page is the one place that reads it) and light batch and task rows."""
    return (Trajectory.objects.select_related("batch", "task")
            .defer("batch__summary", "task__spec", "task__log", "task__ladder")
            .get(id=trajectory_id))
