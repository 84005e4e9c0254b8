"""Evaluation campaigns: on the `sandbox` queue for the baseline and served policies, on `gpu` when a policy is a
local checkpoint (hf:); the service picks the queue when it enqueues. A redelivered message finds the row claimed;
one whose worker died resumes the campaign, whose finished episodes are never rerun."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.evaluation.run_campaign", acks_late=True, reject_on_worker_lost=True)
def run_campaign(campaign_id: int) -> bool:
    from training_app.campaigns.services import campaign_execute
    from training_app.models import EvalCampaign

    with held_job(EvalCampaign, campaign_id) as worker:
        return campaign_execute(campaign_id=campaign_id, worker=worker)
