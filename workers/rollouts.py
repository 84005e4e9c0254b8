"""Rollout batches: on the `sandbox` queue when the policy is served over HTTP (or is the baseline),
on the `gpu` queue when it is a local transformers checkpoint; the service picks the queue when it enqueues.

Idempotent (trajectories are keyed by batch, task and sample; a resumed batch runs only the missing ones), so a
message whose worker died is run again."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.rollouts.run_rollout_batch", acks_late=True, reject_on_worker_lost=True)
def run_rollout_batch(batch_id: int) -> bool:
    from training_app.models import RolloutBatch
    from training_app.rollouts.services import rollout_batch_execute

    with held_job(RolloutBatch, batch_id) as worker:
        return rollout_batch_execute(batch_id=batch_id, worker=worker)
