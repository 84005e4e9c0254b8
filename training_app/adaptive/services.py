"""Writes of adaptive runs: successors stored as tasks (accepted ones, and under review hold the ones waiting), a
reviewer's verdict written where the controller waits for it, and a run's current frontier saved as a task set."""

from __future__ import annotations

import json
from pathlib import Path

from django.db import transaction

from accounts.roles import Role, has_role
from sandmle.rl import environment_log
from sandmle_web.errors import ServiceError
from tasks_app.frontier.services import successor_task_store
from tasks_app.models import SynthesizedTask, TaskSet
from tasks_app.review import services as review_services
from tasks_app.task_sets import services as task_set_services
from training_app.adaptive.selectors import environments_dir, frontier_now, is_adaptive, is_held
from training_app.models import TrainingRun

Status = SynthesizedTask.Status


def _successor_store(*, run: TrainingRun, record: dict) -> SynthesizedTask | None:
    """One made successor as a task under review, below its parent's row (None while the parent has no row)."""
    try:
        lineage = json.loads((Path(record["task_dir"]) / "task.json").read_text()).get("lineage") or {}
    except (OSError, ValueError):
        return None
    parent = SynthesizedTask.objects.filter(task_id=str(lineage.get("parent") or "")).first()
    if parent is None:
        return None
    successor = {"bundle_dir": record["task_dir"], "task_id": record["task_id"], "level": record.get("level"),
                 "reason": record.get("reason", "")}
    return successor_task_store(parent=parent, successor=successor, actor=run.created_by,
                                origin=f"training run #{run.id}")


def adaptive_successors_sync(*, run: TrainingRun) -> list[SynthesizedTask]:
    """Store each accepted successor (and under review hold each waiting one) as a task, in the order they were made
    (a parent before its successor); under hold, a task whose review ended on the review page gets its verdict file."""
    if not is_adaptive(run):
        return []
    env = environments_dir(run)
    accepted = {row["task_id"] for row in environment_log.successor_rows(env) if row["outcome"] == "accepted"}
    waiting = {record["task_id"] for record in environment_log.waiting_successors(env)} if is_held(run) else set()
    stored = []
    for record in environment_log.made_successors(env):
        if record.get("status") != "validated" or record["task_id"] not in accepted | waiting:
            continue
        task = _successor_store(run=run, record=record)
        if task is None:
            continue
        stored.append(task)
        if task.task_id in waiting and task.status in (Status.APPROVED, Status.REJECTED):
            environment_log.write_verdict(env, task.task_id, approved=task.status == Status.APPROVED)
    return stored


def adaptive_successor_decide(*, run: TrainingRun, task_id: str, user, approve: bool, reason: str) -> SynthesizedTask:
    """A reviewer's verdict on a waiting successor: recorded as a review of its task (the quorum rule applies), and
    once the task is approved or rejected, the file the run's controller waits for. Not one transaction: the file is
    written only after the review is committed, so no rolled-back decision can release a successor."""
    if not has_role(user, Role.REVIEWER):
        raise ServiceError("approving or rejecting a successor needs the reviewer role", field="user")
    env = environments_dir(run)
    record = next((r for r in environment_log.waiting_successors(env) if r["task_id"] == task_id), None)
    if not is_held(run) or record is None:
        raise ServiceError(f"no successor {task_id!r} waits for a reviewer in this run", field="task_id")
    task = _successor_store(run=run, record=record)
    if task is None:
        raise ServiceError(f"the parent of {task_id!r} is not a task of the studio", field="task_id")
    verdict = review_services.Verdict.APPROVE if approve else review_services.Verdict.REJECT
    task = review_services.review_decide(task=task, user=user, verdict=verdict, reason=reason)
    if task.status in (Status.APPROVED, Status.REJECTED):
        environment_log.write_verdict(env, task.task_id, approved=task.status == Status.APPROVED)
    return task


@transaction.atomic
def adaptive_frontier_save(*, run: TrainingRun, name: str, user) -> TaskSet:
    """The run's frontier at its last checkpoint as a task set for later runs; its description says where it came
    from. Task sets hold approved tasks only: a successor still under review is named, and nothing is saved."""
    frontier = frontier_now(run)
    if frontier is None:
        raise ServiceError("the run has no checkpoint with a frontier yet (one every save_every steps)", field="run")
    adaptive_successors_sync(run=run)
    task_ids = list(dict.fromkeys(frontier["task_ids"]))
    found = dict(SynthesizedTask.objects.filter(task_id__in=task_ids).values_list("task_id", "status"))
    unapproved = [task_id for task_id in task_ids if found.get(task_id) != Status.APPROVED]
    if unapproved:
        raise ServiceError(f"only approved tasks form task sets; review these first: {', '.join(unapproved[:5])}",
                           field="name")
    description = (f"The frontier of training run #{run.id}{' ' + run.name if run.name else ''} at step "
                   f"{frontier['step']} (its checkpoint's curriculum state), from task set {run.task_set.name}.")
    return task_set_services.task_set_create(name=name, task_ids=task_ids, description=description, user=user)
