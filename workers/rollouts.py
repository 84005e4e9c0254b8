"""Rollout batches: on the `sandbox` queue when the policy is served over HTTP (or is the baseline),
on the `gpu` queue when it is a local transformers checkpoint; the service picks the queue when it enqueues."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.rollouts.run_rollout_batch", acks_late=True)
def run_rollout_batch(batch_id: int) -> bool:
    from training_app.services import rollout_batch_execute

    return rollout_batch_execute(batch_id=batch_id, worker=socket.gethostname())
