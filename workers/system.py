"""Housekeeping tasks: an echo for reachability checks and the sweep that fails jobs whose worker died."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.system.echo")
def echo(payload):
    """Return what was sent, with the worker's host name: proves a message went broker -> worker -> results."""
    return {"payload": payload, "worker": socket.gethostname()}


@shared_task(name="workers.system.fail_stale_jobs")
def fail_stale_jobs() -> dict:
    from tasks_app.models import SynthesisRun
    from training_app.models import EvalCampaign, RolloutBatch

    return {model.__name__: model.fail_stale() for model in (SynthesisRun, RolloutBatch, EvalCampaign)}
