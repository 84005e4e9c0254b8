"""Writes of task sets: create (from listed approved tasks, or every approved task a filter matches), edit, clone,
retire."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

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


@transaction.atomic
def task_set_update(*, task_set: TaskSet, name: str | None = None, description: str | None = None,
                    add_task_ids: list[str] = (), remove_task_ids: list[str] = ()) -> TaskSet:
    """Rename, describe, and add approved tasks to or remove tasks from a set; a retired set is read-only."""
    if task_set.retired_at is not None:
        raise ServiceError(f"task set {task_set.name} is retired; clone it to change it", field="name")
    if name is not None and name != task_set.name:
        _task_set_name_check(name)
        task_set.name = name
    if description is not None:
        task_set.description = description
    task_set.save(update_fields=["name", "description"])
    if add_task_ids:
        tasks = list(SynthesizedTask.objects.filter(task_id__in=add_task_ids))
        missing = sorted(set(add_task_ids) - {task.task_id for task in tasks})
        if missing:
            raise ServiceError(f"unknown tasks: {', '.join(missing[:5])}", field="add_task_ids")
        unapproved = sorted(task.task_id for task in tasks if task.status != SynthesizedTask.Status.APPROVED)
        if unapproved:
            raise ServiceError(f"only approved tasks join a set; not approved: {', '.join(unapproved[:5])}",
                               field="add_task_ids")
        task_set.tasks.add(*tasks)
    if remove_task_ids:
        held = set(task_set.tasks.filter(task_id__in=remove_task_ids).values_list("task_id", flat=True))
        missing = sorted(set(remove_task_ids) - held)
        if missing:
            raise ServiceError(f"not in the set: {', '.join(missing[:5])}", field="remove_task_ids")
        task_set.tasks.remove(*task_set.tasks.filter(task_id__in=remove_task_ids))
    if not task_set.tasks.exists():
        raise ServiceError("a task set keeps at least one task", field="remove_task_ids")
    return task_set


@transaction.atomic
def task_set_clone(*, task_set: TaskSet, name: str, user=None, description: str | None = None) -> TaskSet:
    """A new, live set with the same tasks (retired ones too: a clone reproduces the set as it was)."""
    _task_set_name_check(name)
    clone = TaskSet.objects.create(name=name, created_by=user,
                                   description=task_set.description if description is None else description)
    link = TaskSet.tasks.through
    task_pks = task_set.tasks.order_by().values_list("pk", flat=True)
    link.objects.bulk_create([link(taskset_id=clone.pk, synthesizedtask_id=pk) for pk in task_pks], batch_size=500)
    return clone


def task_set_retire(*, task_set: TaskSet) -> TaskSet:
    """Retire a set: its batches, campaigns and runs keep pointing at it; launch forms no longer offer it."""
    if task_set.retired_at is not None:
        raise ServiceError(f"task set {task_set.name} is already retired", field="name")
    TaskSet.objects.filter(pk=task_set.pk, retired_at=None).update(retired_at=timezone.now())
    task_set.refresh_from_db()
    return task_set
