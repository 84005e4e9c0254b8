"""Training runs (GRPO, SFT) on the `gpu` queue, one per worker (prefetch 1); a redelivered message finds the row
claimed and does nothing."""

from __future__ import annotations

import socket

from celery import shared_task


@shared_task(name="workers.training.run_training", acks_late=True)
def run_training(run_id: int) -> bool:
    from training_app.training_services import training_run_execute

    return training_run_execute(run_id=run_id, worker=socket.gethostname())
