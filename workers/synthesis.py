"""The synthesis job: runs a SynthesisRun row on the `default` queue.

Idempotent, so a message whose worker died is run again (acks_late + reject_on_worker_lost): the run re-claims its
row once the heartbeat is stale and skips the tasks it already stored."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.synthesis.run_synthesis", acks_late=True, reject_on_worker_lost=True)
def run_synthesis(run_id: int) -> bool:
    from tasks_app.models import SynthesisRun
    from tasks_app.synthesis.services import synthesis_run_execute

    with held_job(SynthesisRun, run_id) as worker:
        return synthesis_run_execute(run_id=run_id, worker=worker)


@shared_task(name="workers.synthesis.regenerate_task", acks_late=True, reject_on_worker_lost=True)
def regenerate_task(run_id: int) -> bool:
    from tasks_app.models import SynthesisRun
    from tasks_app.tasks.regenerate import task_regenerate_execute

    with held_job(SynthesisRun, run_id) as worker:
        return task_regenerate_execute(run_id=run_id, worker=worker)
