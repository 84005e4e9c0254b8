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


def _job_kinds():
    """Each job model with the task that runs a row of it and the queue that row goes to."""
    from tasks_app.models import SynthesisRun
    from training_app.models import EvalCampaign, RolloutBatch, TrainingRun

    def synthesis_task(row) -> str:
        # A regeneration is a one-task synthesis run whose summary names the task it replaces (tasks_app.regenerate).
        return "workers.synthesis.regenerate_task" if row.summary.get("regenerates") else "workers.synthesis.run_synthesis"

    kinds = [
        (SynthesisRun, synthesis_task, lambda row: "default"),
        (RolloutBatch, lambda row: "workers.rollouts.run_rollout_batch", lambda row: row.queue),
        (EvalCampaign, lambda row: "workers.evaluation.run_campaign", lambda row: row.queue),
        (TrainingRun, lambda row: "workers.training.run_training", lambda row: row.queue),
    ]
    try:  # latency studies are rerun whole: a study is a set of timings, none of them worth keeping half-done
        from training_app.models import LatencyStudy
    except ImportError:
        return kinds
    return kinds + [(LatencyStudy, lambda row: "workers.latency.run_latency_study", lambda row: row.queue)]


@shared_task(name="workers.system.sweep_lost_jobs")
def sweep_lost_jobs() -> dict:
    """Run by beat: lost running jobs go back to the queue (or fail once out of claims), lost messages are resent."""
    from sandmle_web.dispatch import enqueue

    report = {}
    for model, task_name, queue in _job_kinds():
        requeued, failed = model.sweep_stale()
        resent = model.unsent()
        for row in model.objects.filter(id__in=requeued + resent):
            enqueue(task_name(row), args=(row.id,), queue=queue(row))
        if requeued or failed or resent:
            log.warning("%s: requeued %s, failed %s, resent %s", model.__name__, requeued, failed, resent)
        report[model.__name__] = {"requeued": len(requeued), "failed": failed, "resent": len(resent)}
    return report

