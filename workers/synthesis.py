"""The synthesis job: runs a SynthesisRun row on the `default` queue."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.synthesis.run_synthesis", acks_late=True)
def run_synthesis(run_id: int) -> bool:
    from tasks_app.services import synthesis_run_execute

    return synthesis_run_execute(run_id=run_id, worker=socket.gethostname())


@shared_task(name="workers.synthesis.regenerate_task", acks_late=True)
def regenerate_task(run_id: int) -> bool:
    from tasks_app.regenerate import task_regenerate_execute

    return task_regenerate_execute(run_id=run_id, worker=socket.gethostname())
