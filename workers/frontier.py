"""Frontier runs (re-levelling a task set for a policy): on the `sandbox` queue when the policy is served over HTTP
(or is the baseline), on the `gpu` queue when it is a local checkpoint; the service picks the queue when it enqueues.
The claim makes a redelivered message do nothing."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.frontier.run_frontier", acks_late=True, reject_on_worker_lost=True)
def run_frontier(run_id: int) -> bool:
    from tasks_app.frontier.models import FrontierRun
    from tasks_app.frontier.services import frontier_run_execute

    with held_job(FrontierRun, run_id) as worker:
        return frontier_run_execute(run_id=run_id, worker=worker)
