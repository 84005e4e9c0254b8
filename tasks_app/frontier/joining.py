"""A frontier run's new set: made with the kept tasks, and joined by each successor when a reviewer approves it.

Kept apart from services.py, so the review workflow can call it without importing the frontier's writes (which
import the review workflow's audit record)."""

from __future__ import annotations

from tasks_app.frontier.models import FrontierRun
from tasks_app.task_sets.models import TaskSet, TaskSetChange
from tasks_app.tasks.models import SynthesizedTask


def new_task_set_with(*, run: FrontierRun, tasks: list[SynthesizedTask]) -> TaskSet | None:
    """Add approved `tasks` to the run's new set, making it first when it does not exist yet (a set is never empty:
    with no task to hold it waits for the first approved successor)."""
    tasks = [task for task in tasks if task.status == SynthesizedTask.Status.APPROVED]
    if not tasks:
        return run.new_task_set
    task_set = run.new_task_set
    created = False
    if task_set is None:
        task_set, created = TaskSet.objects.get_or_create(name=run.new_task_set_name(), defaults={
            "description": (f"{run.task_set.name} re-levelled for {run.policy} into the band "
                            f"{run.band_low:g}-{run.band_high:g} by frontier run #{run.id}"),
            "created_by": run.created_by})
        FrontierRun.objects.filter(id=run.id).update(new_task_set=task_set)
        run.new_task_set = task_set
    if task_set.retired_at is None:
        held = set(task_set.tasks.filter(id__in=[task.id for task in tasks]).values_list("task_id", flat=True))
        added = sorted({task.task_id for task in tasks} - held)
        task_set.tasks.add(*tasks)
        # The set's history names the run; the set's owner is the run's creator, who launched it.
        if created:
            TaskSetChange.objects.create(task_set=task_set, actor=run.created_by, what=TaskSetChange.What.CREATED,
                                         details={"task_ids": added, "frontier_run": run.id})
        elif added:
            TaskSetChange.objects.create(task_set=task_set, actor=None, what=TaskSetChange.What.TASKS_ADDED,
                                         details={"task_ids": added, "frontier_run": run.id})
    return task_set


def successor_approved(*, task: SynthesizedTask) -> None:
    """An approved successor joins the new set of each finished run that stored it (a retired set stays as it was)."""
    for run in FrontierRun.objects.filter(successors__task=task, state="succeeded").select_related(
            "task_set", "new_task_set", "created_by"):
        new_task_set_with(run=run, tasks=[task])
