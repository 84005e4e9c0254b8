"""Reads of synthesized tasks: filtered lists, one task, counts by status."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from tasks_app.models import SynthesizedTask

# A task row of a list never shows these: the spec and the synthesis log are the heavy JSON of a task (kilobytes
# each), read only on the task's own page. Deferring them (rather than listing the columns a row shows) keeps every
# light column a template may add loaded, so a new column never turns into one query per row.
TASK_HEAVY_FIELDS = ("spec", "log")


def task_list(
    *, status: str = "", seed: str = "", modality: str = "", rule_family: str = "", run_id: int | None = None
) -> QuerySet[SynthesizedTask]:
    tasks = SynthesizedTask.objects.select_related("seed", "assigned_to", "reviewed_by")
    if status:
        tasks = tasks.filter(status=status)
    if seed:
        tasks = tasks.filter(seed__name=seed)
    if modality:
        tasks = tasks.filter(modality=modality)
    if rule_family:
        tasks = tasks.filter(rule_family=rule_family)
    if run_id:
        tasks = tasks.filter(run_id=run_id)
    return tasks


def task_list_rows(**filters) -> QuerySet[SynthesizedTask]:
    """`task_list` for a page of rows: the same filters, without the heavy JSON."""
    return task_list(**filters).defer(*TASK_HEAVY_FIELDS)


def task_get(*, task_id: str) -> SynthesizedTask:
    return SynthesizedTask.objects.select_related("seed", "run", "assigned_to", "reviewed_by").get(task_id=task_id)


def task_counts() -> dict[str, int]:
    counts = dict(SynthesizedTask.objects.values_list("status").annotate(n=Count("id")).order_by())
    return {status: counts.get(status, 0) for status in SynthesizedTask.Status.values}
