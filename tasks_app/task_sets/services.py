"""Writes of task sets: from listed approved tasks, or from every approved task a filter matches."""

from __future__ import annotations

from django.db import transaction

from studio.errors import ServiceError
from tasks_app.models import SynthesizedTask, TaskSet
from tasks_app.seeds.services import SEED_NAME_PATTERN


def _task_set_name_check(name: str) -> None:
    if not SEED_NAME_PATTERN.match(name or ""):
        raise ServiceError("use 2-80 lowercase letters, digits, '-' or '_'", field="name")
    if TaskSet.objects.filter(name=name).exists():
        raise ServiceError(f"a task set named {name!r} already exists", field="name")


@transaction.atomic
def task_set_create_matching(*, name: str, tasks, description: str = "", user=None, field: str = "filter") -> TaskSet:
    """A task set of every approved task in the queryset `tasks` (a picker's filter), linked in bulk inserts.

    The ids never travel through the client: at 10,000 matching tasks a checkbox per task is not a form anyone
    can post, and reading them back in batches keeps SQLite under its bound-variable limit.
    """
    _task_set_name_check(name)
    task_pks = list(tasks.filter(status=SynthesizedTask.Status.APPROVED).order_by().values_list("pk", flat=True))
    if not task_pks:
        raise ServiceError("no approved task matches the filter", field=field)
    task_set = TaskSet.objects.create(name=name, description=description, created_by=user)
    link = TaskSet.tasks.through
    link.objects.bulk_create([link(taskset_id=task_set.pk, synthesizedtask_id=pk) for pk in task_pks], batch_size=500)
    return task_set


@transaction.atomic
def task_set_create(*, name: str, task_ids: list[str], description: str = "", user=None) -> TaskSet:
    _task_set_name_check(name)
    tasks = list(SynthesizedTask.objects.filter(task_id__in=task_ids))
    missing = sorted(set(task_ids) - {task.task_id for task in tasks})
    if missing:
        raise ServiceError(f"unknown tasks: {', '.join(missing[:5])}", field="task_ids")
    unapproved = sorted(task.task_id for task in tasks if task.status != SynthesizedTask.Status.APPROVED)
    if unapproved:
        raise ServiceError(f"only approved tasks form task sets; not approved: {', '.join(unapproved[:5])}", field="task_ids")
    if not tasks:
        raise ServiceError("a task set needs at least one approved task", field="task_ids")
    task_set = TaskSet.objects.create(name=name, description=description, created_by=user)
    task_set.tasks.set(tasks)
    return task_set
