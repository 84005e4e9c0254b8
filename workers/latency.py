"""Latency studies on the `sandbox` queue: every timed pipeline is a sandboxed step. A redelivered message finds the
row claimed and does nothing."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.latency.run_latency_study", acks_late=True)
def run_latency_study(study_id: int) -> bool:
    from training_app.latency.services import latency_study_execute

    return latency_study_execute(study_id=study_id, worker=socket.gethostname())
