"""Writes of frontier runs: create (checked before any work), execute on a worker (the engine re-levels the set),
store each validated successor for review beside its parent, and make the new set.

Task sets hold approved tasks only (tasks_app.task_sets.services), and a successor is a new task waiting for review:
so the new set starts with the kept tasks that are approved, and each successor joins it once a reviewer approves
it (tasks_app.frontier.joining, called by the review workflow). A set with no task yet is made at that first approval.
"""

from __future__ import annotations

import json
import queue
import threading
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.jobs import JobState, describe_failure
from sandmle_web.queues import Queue
from tasks_app.frontier import checks
from tasks_app.frontier.joining import new_task_set_with
from tasks_app.frontier.models import FrontierRun, FrontierSuccessor
from tasks_app.models import SynthesizedTask, TaskSet
from tasks_app.review.difficulty import task_difficulty
from tasks_app.review.models import TaskAuditEntry
from tasks_app.review.services import audit_record

Status = SynthesizedTask.Status


@transaction.atomic
def frontier_run_create(*, task_set: TaskSet, user, policy: str, samples: int = 4, band_low: float = 0.2,
                        band_high: float = 0.8, scaffold: str = "react") -> FrontierRun:
    """Check every input with the engine's and the studio's rules, then queue: `gpu` next to a local checkpoint
    (hf:), `sandbox` otherwise (the episodes run agent code)."""
    from sandmle.agents.scaffolds import SCAFFOLDS

    if task_set.retired_at is not None:
        raise ServiceError(f"task set {task_set.name} is retired; clone it to re-level its tasks", field="task_set")
    if not task_set.tasks.exists():
        raise ServiceError("the task set has no tasks", field="task_set")
    if scaffold not in SCAFFOLDS:
        raise ServiceError(f"expected one of {', '.join(SCAFFOLDS)}", field="scaffold")
    samples = checks.samples_checked(samples)
    band_low, band_high = checks.band_checked(band_low=band_low, band_high=band_high)
    policy = checks.policy_checked(policy, user=user)
    run_queue = Queue.GPU if policy.startswith("hf:") else Queue.SANDBOX
    run = FrontierRun.objects.create(task_set=task_set, policy=policy, samples=samples, band_low=band_low,
                                     band_high=band_high, scaffold=scaffold, created_by=user, queue=run_queue.value)
    # A random suffix: SQLite may hand a deleted row's id out again, and a run must never find another's bundles.
    run.out_dir = str(Path(settings.DATA_DIR) / "bundles" / f"frontier-{run.id}-{uuid.uuid4().hex[:12]}")
    run.save(update_fields=["out_dir"])
    enqueue(run.task_name(), args=(run.id,), queue=run_queue)
    return run


def _read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def successor_store(*, run: FrontierRun, parent: SynthesizedTask, successor: dict) -> SynthesizedTask:
    """A frontier run's validated successor as a task waiting for review, linked to the run."""
    task = successor_task_store(parent=parent, successor=successor, actor=run.created_by,
                                origin=f"frontier run #{run.id} ({run.policy})")
    FrontierSuccessor.objects.get_or_create(run=run, task=task)
    return task


def successor_task_store(*, parent: SynthesizedTask, successor: dict, origin: str, actor=None) -> SynthesizedTask:
    """A validated successor (bundle_dir, task_id, level, reason) as a task waiting for review: its parent's seed,
    its own bundle, spec and ladder, and its lineage; `origin` names what made it (a frontier run, a training run's
    step). A successor already stored (the same spec from an earlier run) keeps its row and review state."""
    bundle = Path(successor["bundle_dir"])
    task_json = _read_json(bundle / "task.json")
    grading = _read_json(bundle / "private" / "grading.json")
    spec = task_json.get("spec") if isinstance(task_json.get("spec"), dict) else {}
    lineage = task_json.get("lineage") if isinstance(task_json.get("lineage"), dict) else {}
    domain = spec.get("domain") or {}
    ladder = grading.get("ladder") if isinstance(grading.get("ladder"), dict) else {}
    metric = str(grading.get("metric") or spec.get("metric") or parent.metric)
    level = int(lineage.get("level", successor.get("level", parent.level + 1)))
    reason = str(lineage.get("reason") or successor.get("reason") or "")[:300]
    task, created = SynthesizedTask.objects.get_or_create(task_id=successor["task_id"], defaults=dict(
        run=None, seed=parent.seed, status=Status.PENDING_REVIEW, title=str(domain.get("title", parent.title))[:300],
        domain_id=str(domain.get("domain_id", parent.domain_id))[:100], sector=str(domain.get("sector", parent.sector))[:100],
        rule_family=str((spec.get("rule") or {}).get("family", parent.rule_family))[:100],
        modality=str((spec.get("dna") or {}).get("modality", parent.modality))[:16],
        task_type=str(grading.get("task_type") or parent.task_type)[:16], metric=metric[:32],
        milestones=dict(grading.get("milestones") or {}), ladder=ladder, spec=spec,
        log=[{"stage": "frontier", "message": f"successor of {parent.task_id} at level {level} by {origin}: "
                                              f"{reason}"}],
        bundle_dir=str(bundle), bundle_sha256=str(task_json.get("bundle_sha256", ""))[:64],
        difficulty=task_difficulty(ladder=ladder, metric=metric),
        parent=parent, level=level, level_reason=reason,
    ))
    if created:
        audit_record(task=task, actor=actor, from_value="", to_value=Status.PENDING_REVIEW,
                     reason=f"successor of {parent.task_id} at level {level}: {reason}", via=TaskAuditEntry.Via.FRONTIER)
    return task


def _store_outcome(*, run: FrontierRun, report) -> None:
    """The report's successors as tasks, the new set of the kept approved tasks, and the report itself.

    The engine copies each kept task into out_dir to make a complete set on disk; the studio keeps the kept task's
    own row instead (its reviews, trajectories and other sets stay with it)."""
    tasks_by_id = {task.task_id: task for task in run.task_set.tasks.all()}
    successors, kept = [], []
    for row in report.rows:
        successor = row.successor or {}
        parent = tasks_by_id.get(row.task_id)
        if parent is None:
            continue
        if successor.get("status") == "validated":
            successors.append(successor_store(run=run, parent=parent, successor=successor))
        elif parent.status == Status.APPROVED:  # kept, or its successor was rejected: only approved tasks join a set
            kept.append(parent)
    approved_successors = [task for task in successors if task.status == Status.APPROVED]  # stored before, approved
    FrontierRun.objects.filter(id=run.id).update(result=report.to_dict())
    new_task_set_with(run=run, tasks=kept + approved_successors)


def frontier_run_execute(*, run_id: int, worker: str = "") -> bool:
    """Claim a queued run and re-level its set; the engine works on a thread of its own and reports progress through
    a queue, so every database write happens here, in the job's thread."""
    from sandmle.evaluation.frontier import relevel_tasks

    if not FrontierRun.claim(run_id, worker=worker):
        return False
    run = FrontierRun.objects.select_related("task_set", "created_by").get(id=run_id)
    task_dirs = sorted(Path(task.bundle_dir) for task in run.task_set.tasks.all())
    reports: queue.Queue = queue.Queue()
    outcome: dict = {}
    cancelled = threading.Event()
    try:
        policy = checks.policy_checked(run.policy, user=run.created_by)  # the roots or hosts may have changed since
    except ServiceError as error:
        FrontierRun.finish(run.id, state=JobState.FAILED, error=f"policy: {error}")
        return True

    def relevel() -> None:
        try:
            outcome["report"] = relevel_tasks(
                task_dirs, policy=policy, out_dir=Path(run.out_dir), samples=run.samples,
                band=(run.band_low, run.band_high), scaffold=run.scaffold,
                progress=lambda done, total, message: reports.put((done, total, message)),
                should_cancel=cancelled.is_set)
        except Exception as error:  # reported on the row below
            outcome["error"] = error

    runner = threading.Thread(target=relevel, name=f"frontier-run-{run.id}", daemon=True)
    runner.start()
    while runner.is_alive() or not reports.empty():
        try:
            done, total, message = reports.get(timeout=0.2)
        except queue.Empty:
            if not FrontierRun.beat(run.id):
                cancelled.set()
            continue
        if not FrontierRun.beat(run.id, progress=done / max(total, 1), message=str(message)):
            cancelled.set()
    runner.join()
    if "error" in outcome:
        FrontierRun.finish(run.id, state=JobState.FAILED, error=describe_failure(outcome["error"]))
        raise outcome["error"]
    if cancelled.is_set():
        FrontierRun.finish(run.id, state=JobState.CANCELLED)
        return True
    try:
        with transaction.atomic():
            _store_outcome(run=run, report=outcome["report"])
    except Exception as error:
        FrontierRun.finish(run.id, state=JobState.FAILED, error=describe_failure(error))
        raise
    FrontierRun.finish(run.id, state=JobState.SUCCEEDED)
    return True
