"""Training runs (GRPO, SFT) on the `gpu` queue, one per worker (prefetch 1); a redelivered message finds the row
claimed and does nothing, and one whose worker died resumes from the run's last checkpoint."""

from __future__ import annotations

from celery import shared_task

from workers import held_job


@shared_task(name="workers.training.run_training", acks_late=True, reject_on_worker_lost=True)
def run_training(run_id: int) -> bool:
    from training_app.models import TrainingRun
    from training_app.runs.services import training_run_execute

    with held_job(TrainingRun, run_id) as worker:
        return training_run_execute(run_id=run_id, worker=worker)
