"""Writes of task sets: create (from listed approved tasks, or every approved task a filter matches), edit, clone,
retire and restore; each change is a row of the set's history (TaskSetChange). Who may change a set is the callers'
check (TaskSet.may_be_changed_by), as who may cancel a job is."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from sandmle_web.errors import ServiceError
from tasks_app.models import SynthesizedTask, TaskSet, TaskSetChange
from tasks_app.seeds.services import SEED_NAME_PATTERN
from tasks_app.task_sets.models import DESCRIPTION_MAX_CHARS


MAX_RETIRE_REASON_CHARS = 5000
What = TaskSetChange.What


def task_set_change_record(*, task_set: TaskSet, actor, what: str, details: dict | None = None) -> TaskSetChange:
    return TaskSetChange.objects.create(task_set=task_set, actor=actor if getattr(actor, "pk", None) else None,
                                        what=what, details=details or {})


def _task_set_description_check(description: str | None) -> None:
    if description is not None and len(description) > DESCRIPTION_MAX_CHARS:
        raise ServiceError(f"{len(description):,} characters; at most {DESCRIPTION_MAX_CHARS:,}", field="description")


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
    _task_set_description_check(description)
    task_pks = list(tasks.filter(status=SynthesizedTask.Status.APPROVED).order_by().values_list("pk", flat=True))
    if not task_pks:
        raise ServiceError("no approved task matches the filter", field=field)
    task_set = TaskSet.objects.create(name=name, description=description, created_by=user)
    link = TaskSet.tasks.through
    link.objects.bulk_create([link(taskset_id=task_set.pk, synthesizedtask_id=pk) for pk in task_pks], batch_size=500)
    task_set_change_record(task_set=task_set, actor=user, what=What.CREATED,
                           details={"task_count": len(task_pks), "from": "filter"})
    return task_set


@transaction.atomic
def task_set_create(*, name: str, task_ids: list[str], description: str = "", user=None) -> TaskSet:
    _task_set_name_check(name)
    _task_set_description_check(description)
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
    task_set_change_record(task_set=task_set, actor=user, what=What.CREATED,
                           details={"task_ids": sorted(task.task_id for task in tasks)})
    return task_set


@transaction.atomic
def task_set_update(*, task_set: TaskSet, user=None, name: str | None = None, description: str | None = None,
                    add_task_ids: list[str] = (), remove_task_ids: list[str] = ()) -> TaskSet:
    """Rename, describe, and add approved tasks to or remove tasks from a set; a retired set is read-only. Each
    change that happened is one history row; a no-op edit writes none."""
    if task_set.retired_at is not None:
        raise ServiceError(f"task set {task_set.name} is retired; restore or clone it to change it", field="name")
    _task_set_description_check(description)
    changes = []
    if name is not None and name != task_set.name:
        _task_set_name_check(name)
        changes.append((What.RENAMED, {"from": task_set.name, "to": name}))
        task_set.name = name
    if description is not None and description != task_set.description:
        changes.append((What.DESCRIBED, {"from": task_set.description, "to": description}))
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
        held = set(task_set.tasks.filter(task_id__in=add_task_ids).values_list("task_id", flat=True))
        added = sorted({task.task_id for task in tasks} - held)
        task_set.tasks.add(*tasks)
        if added:
            changes.append((What.TASKS_ADDED, {"task_ids": added}))
    if remove_task_ids:
        held = set(task_set.tasks.filter(task_id__in=remove_task_ids).values_list("task_id", flat=True))
        missing = sorted(set(remove_task_ids) - held)
        if missing:
            raise ServiceError(f"not in the set: {', '.join(missing[:5])}", field="remove_task_ids")
        task_set.tasks.remove(*task_set.tasks.filter(task_id__in=remove_task_ids))
        changes.append((What.TASKS_REMOVED, {"task_ids": sorted(held)}))
    if not task_set.tasks.exists():
        raise ServiceError("a task set keeps at least one task", field="remove_task_ids")
    for what, details in changes:
        task_set_change_record(task_set=task_set, actor=user, what=what, details=details)
    return task_set


@transaction.atomic
def task_set_clone(*, task_set: TaskSet, name: str, user=None, description: str | None = None) -> TaskSet:
    """A new, live set with the same tasks (retired ones too: a clone reproduces the set as it was)."""
    _task_set_name_check(name)
    _task_set_description_check(description)
    clone = TaskSet.objects.create(name=name, created_by=user,
                                   description=task_set.description if description is None else description)
    link = TaskSet.tasks.through
    task_pks = task_set.tasks.order_by().values_list("pk", flat=True)
    link.objects.bulk_create([link(taskset_id=clone.pk, synthesizedtask_id=pk) for pk in task_pks], batch_size=500)
    task_set_change_record(task_set=clone, actor=user, what=What.CREATED,
                           details={"cloned_from": task_set.name, "task_count": len(task_pks)})
    return clone


@transaction.atomic
def task_set_retire(*, task_set: TaskSet, user=None, reason: str = "") -> TaskSet:
    """Retire a set: its batches, campaigns and runs keep pointing at it; launch forms no longer offer it. The reason,
    if any, goes into the set's history (reviewers read it: a reviewer's reason may name the hidden rule)."""
    reason = (reason or "").strip()
    if len(reason) > MAX_RETIRE_REASON_CHARS:
        raise ServiceError(f"keep the reason under {MAX_RETIRE_REASON_CHARS} characters", field="reason")
    if not TaskSet.objects.filter(pk=task_set.pk, retired_at=None).update(retired_at=timezone.now()):
        raise ServiceError(f"task set {task_set.name} is already retired", field="name")
    task_set_change_record(task_set=task_set, actor=user, what=What.RETIRED, details={"reason": reason} if reason else {})
    task_set.refresh_from_db()
    return task_set


@transaction.atomic
def task_set_restore(*, task_set: TaskSet, user=None) -> TaskSet:
    """Undo a retirement: launch forms offer the set again and it may be edited."""
    if not TaskSet.objects.filter(pk=task_set.pk, retired_at__isnull=False).update(retired_at=None):
        raise ServiceError(f"task set {task_set.name} is not retired", field="name")
    task_set_change_record(task_set=task_set, actor=user, what=What.RESTORED)
    task_set.refresh_from_db()
    return task_set
