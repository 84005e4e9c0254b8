"""Regenerating a task: the same seed and rule family with a new rng, as a new version linked to the one it replaces.

The regeneration is a synthesis run of one task (a job row, so it shows live progress and can be cancelled); the run's
summary records which task it regenerates, which links the versions without a schema change.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings
from django.db import transaction

from sandmle_web.dispatch import enqueue
from sandmle_web.errors import ServiceError
from sandmle_web.jobs import JobState, describe_failure
from sandmle_web.queues import Queue
from tasks_app.models import SynthesisRun, SynthesizedTask
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services
from tasks_app.synthesis.models import RNG_MAX

REGENERATES = "regenerates"  # key of SynthesisRun.summary naming the previous version's task_id
PUBLIC_DIFF_FIELDS = ("title", "domain_id", "sector", "modality", "task_type", "metric", "bundle_sha256")


@transaction.atomic
def task_regenerate(*, task: SynthesizedTask, user, rng: int | None = None) -> SynthesisRun:
    """Queue a one-task synthesis run from the task's seed, restricted to its rule family, with a new rng."""
    if rng is None:
        rng = secrets.randbelow(RNG_MAX + 1)
    if not 0 <= rng <= RNG_MAX:
        raise ServiceError(f"rng must be between 0 and {RNG_MAX}", field="rng")
    if rng == task.spec.get("rng_seed") or SynthesisRun.objects.filter(seed=task.seed, rng=rng, count=1,
                                                                        summary__regenerates=task.task_id).exists():
        raise ServiceError("this rng already made a version of the task; pick another", field="rng")
    # The run row is public (viewers list and read runs): it names the previous version, never its rule family,
    # which the worker reads from that version. The version's noise strength is no secret: the run lists it.
    scale = (task.spec.get("noise") or {}).get("scale")
    run = SynthesisRun.objects.create(seed=task.seed, count=1, rng=rng, created_by=user,
                                      summary={REGENERATES: task.task_id},
                                      controls={} if scale is None else {"noise_scale": float(scale)})
    enqueue("workers.synthesis.regenerate_task", args=(run.id,), queue=Queue.DEFAULT)
    return run


def task_regenerate_execute(*, run_id: int, worker: str = "") -> bool:
    """Claim a regeneration run and synthesize its one task; False when another worker has it already.

    Like synthesis_services.synthesis_run_execute, but the engine is asked for the previous version's rule family only,
    at its noise strength, and the new task's log says what it replaces.
    """
    from sandmle.synth import synthesize

    if not SynthesisRun.claim(run_id, worker=worker):
        return False
    run = SynthesisRun.objects.select_related("seed").get(id=run_id)
    previous_id = run.summary.get(REGENERATES, "")
    previous = SynthesizedTask.objects.filter(task_id=previous_id).only("rule_family").first()
    family = previous.rule_family if previous else None
    try:
        SynthesisRun.beat(run.id, progress=0.05, message=f"regenerating {previous_id}")
        results = synthesize(seed_services.seed_engine_object(seed=run.seed), count=1, rng=run.rng,
                             out_dir=Path(settings.DATA_DIR) / "bundles" / f"run-{run.id}",
                             families=(family,) if family else None,
                             noise_scale=(run.controls or {}).get("noise_scale", 1.0))
        if not SynthesisRun.beat(run.id, progress=0.95, message="storing the new version"):
            SynthesisRun.finish(run.id, state=JobState.CANCELLED)
            return True
        stored = []
        for result in results:
            result.log.append({"stage": "regenerate", "message": f"new version of {previous_id} (rng {run.rng})"})
            stored.append(synthesis_services.synthesized_task_store(run=run, result=result))
        validated = sum(task.status == SynthesizedTask.Status.PENDING_REVIEW for task in stored)
        SynthesisRun.objects.filter(id=run.id).update(summary=run.summary | {
            "tasks": len(stored), "validated": validated, "rejected": len(stored) - validated,
            "task_ids": [task.task_id for task in stored],
        })
        SynthesisRun.finish(run.id, state=JobState.SUCCEEDED)
    except Exception as error:
        SynthesisRun.finish(run.id, state=JobState.FAILED, error=describe_failure(error))
        raise
    return True


def previous_version(task: SynthesizedTask) -> SynthesizedTask | None:
    previous_id = (task.run.summary or {}).get(REGENERATES) if task.run_id else None
    return SynthesizedTask.objects.filter(task_id=previous_id).first() if previous_id else None


def newer_versions(task: SynthesizedTask) -> list[SynthesizedTask]:
    return list(SynthesizedTask.objects.filter(run__summary__regenerates=task.task_id).order_by("created_at"))


def regenerations_of(task: SynthesizedTask) -> list[SynthesisRun]:
    """Regeneration runs started from this task (queued, running or finished), newest first."""
    return list(SynthesisRun.objects.filter(summary__regenerates=task.task_id).order_by("-created_at")[:5])


def version_number(task: SynthesizedTask, *, limit: int = 50) -> int:
    number, current = 1, task
    while number < limit:
        current = previous_version(current)
        if current is None:
            break
        number += 1
    return number


def _flatten(value, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        flat: dict[str, object] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def version_diff(previous: SynthesizedTask, current: SynthesizedTask, *, include_private: bool) -> list[dict]:
    """What changed from the previous version: public fields, milestones and ladder for everyone; the spec (hidden
    rule, noise recipe) only with include_private, since a spec names the rule."""
    before = {name: getattr(previous, name) for name in PUBLIC_DIFF_FIELDS}
    after = {name: getattr(current, name) for name in PUBLIC_DIFF_FIELDS}
    before |= _flatten({"milestones": previous.milestones, "ladder": previous.ladder})
    after |= _flatten({"milestones": current.milestones, "ladder": current.ladder})
    if include_private:
        before |= _flatten({"rule_family": previous.rule_family, "spec": {k: v for k, v in previous.spec.items() if k != "dna"}})
        after |= _flatten({"rule_family": current.rule_family, "spec": {k: v for k, v in current.spec.items() if k != "dna"}})
    rows = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old != new:
            rows.append({"field": key, "before": _short(old), "after": _short(new)})
    return rows


def _short(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    text = str(value)
    return text if len(text) <= 160 else text[:160] + "…"
