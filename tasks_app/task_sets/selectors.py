"""Reads of task sets: the list, the names launch forms offer, a set's tasks with their stats, and its history."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from tasks_app.models import SynthesizedTask, TaskSet, TaskSetChange
from tasks_app.review.difficulty import headroom_of
from tasks_app.shared.reason_visibility import visible_set_change_details
from tasks_app.tasks import regenerate
from tasks_app.tasks.rollout_stats import attach_rollout_stats


def task_set_list() -> QuerySet[TaskSet]:
    return TaskSet.objects.annotate(task_count=Count("tasks")).order_by("name")


def task_set_get(*, name: str) -> TaskSet:
    return TaskSet.objects.get(name=name)


def task_set_launch_names() -> list[str]:
    """The sets a launch form offers: live ones (a retired set stays readable but starts no new work)."""
    return list(TaskSet.objects.filter(retired_at=None).order_by("name").values_list("name", flat=True))


def task_set_launch_initial(*, query, names: list[str]) -> dict:
    """A launch form's initial set: the one named by ?task_set= (the set page's launch links), when it is offered."""
    chosen = query.get("task_set", "")
    return {"task_set": chosen} if chosen in names else {}


def task_set_task_rows(*, task_set: TaskSet) -> list[SynthesizedTask]:
    """The set's tasks, each with `.rollout_stats` (success rate, spread, all-solve / none-solve flag), `.headroom`
    (the share of the oracle's lead the references recover) and `.version_number`."""
    tasks = attach_rollout_stats(task_set.tasks.select_related("seed").order_by("task_id"))
    for task in tasks:
        task.headroom = headroom_of(ladder=task.ladder, metric=task.metric)
        task.version_number = regenerate.version_number(task)
    return tasks


def task_set_summary(*, tasks: list[SynthesizedTask]) -> dict:
    """Counts over a set's task rows: by difficulty, flagged for GRPO, retired or withdrawn since the set was made."""
    by_difficulty: dict[str, int] = {}
    for task in tasks:
        by_difficulty[task.difficulty or "unknown"] = by_difficulty.get(task.difficulty or "unknown", 0) + 1
    return {
        "tasks": len(tasks),
        "by_difficulty": sorted(by_difficulty.items()),
        "flagged": sum(1 for task in tasks if task.rollout_stats and task.rollout_stats.flag),
        "not_approved": sum(1 for task in tasks if task.status != SynthesizedTask.Status.APPROVED),
    }


def task_set_history(*, task_set: TaskSet, user) -> list[TaskSetChange]:
    """The set's changes, oldest first, each with `.visible_details`: what `user` may read of them (a retire reason
    only for reviewers)."""
    changes = list(task_set.changes.select_related("actor"))
    for change in changes:
        change.visible_details = visible_set_change_details(change, user=user)
    return changes
