"""Housekeeping tasks: an echo for reachability checks and the sweep that takes up jobs whose worker died."""

from __future__ import annotations

import logging
import socket

from celery import shared_task

log = logging.getLogger(__name__)


@shared_task(name="workers.system.echo")
def echo(payload):
    """Return what was sent, with the worker's host name: proves a message went broker -> worker -> results."""
    return {"payload": payload, "worker": socket.gethostname()}


@shared_task(name="workers.system.sweep_lost_jobs")
def sweep_lost_jobs() -> dict:
    """Run by beat: lost running jobs go back to the queue (or fail once out of claims), lost messages are resent."""
    from sandmle_web.dispatch import enqueue
    from sandmle_web.jobs import job_models

    report = {}
    for model in job_models():
        requeued, failed = model.sweep_stale()
        resent = model.unsent()
        for row in model.objects.filter(id__in=requeued + resent):
            enqueue(row.task_name(), args=(row.id,), queue=row.queue_name())
        if requeued or failed or resent:
            log.warning("%s: requeued %s, failed %s, resent %s", model.__name__, requeued, failed, resent)
        report[model.__name__] = {"requeued": len(requeued), "failed": failed, "resent": len(resent)}
    return report

