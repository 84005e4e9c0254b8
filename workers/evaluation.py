"""Evaluation campaigns: on the `sandbox` queue for the baseline and served policies, on `gpu` when a policy is a
local checkpoint (hf:); the service picks the queue when it enqueues. A redelivered message finds the row claimed."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.evaluation.run_campaign", acks_late=True)
def run_campaign(campaign_id: int) -> bool:
    from training_app.campaign_services import campaign_execute

    return campaign_execute(campaign_id=campaign_id, worker=socket.gethostname())
