"""Reads of the training side: rollout batches and trajectories."""

from __future__ import annotations

from django.db.models import F, QuerySet

from training_app.models import RolloutBatch, Trajectory

def rollout_batch_list() -> QuerySet[RolloutBatch]:
    return RolloutBatch.objects.select_related("task_set", "created_by").order_by("-created_at", "-id")


def rollout_batch_get(*, batch_id: int) -> RolloutBatch:
    return RolloutBatch.objects.select_related("task_set").get(id=batch_id)


def batch_task_ids(*, batch: RolloutBatch) -> QuerySet:
    """The primary keys of the tasks a batch has trajectories of, in task order: what its detail page pages over.

    Read from the (batch, task, sample_index) unique index alone, so a batch of 100,000 trajectories pages cheaply.
    """
    return Trajectory.objects.filter(batch=batch).order_by("task_id").values_list("task_id", flat=True).distinct()


# The columns a batch page's sample link shows; read as plain rows, since building ~250 model instances (with their
# tasks) per page cost more than the page's queries.
SAMPLE_COLUMNS = ("id", "sample_index", "valid_submission", "milestone", "termination", "reward")


def trajectory_groups(*, batch: RolloutBatch, task_pks) -> list[tuple[str, list[dict]]]:
    """The trajectories of the given tasks of a batch, grouped by task in batch_task_ids' order, samples in order."""
    groups: dict[str, list[dict]] = {}
    rows = (Trajectory.objects.filter(batch=batch, task_id__in=list(task_pks)).order_by("task_id", "sample_index")
            .values(*SAMPLE_COLUMNS, task_name=F("task__task_id")))
    for row in rows:
        groups.setdefault(row["task_name"], []).append(row)
    return list(groups.items())


def trajectory_get(*, trajectory_id: int) -> Trajectory:
    """One trajectory with its record (its own page is the one place that reads it) and light batch and task rows."""
    return (Trajectory.objects.select_related("batch", "task")
            .defer("batch__summary", "task__spec", "task__log", "task__ladder")
            .get(id=trajectory_id))
