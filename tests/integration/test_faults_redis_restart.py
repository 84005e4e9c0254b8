"""A Redis restart in the middle of a rollout batch: redis-server is killed and started again on the same port (empty:
no persistence); the worker reconnects, the batch completes and no finished episode is lost or run twice."""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from sandmle_web.jobs import JobState
from tests.integration.fault_tally import tally
from tests.integration.processes import KillableWorker, RedisServer, worker_env

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_rollout_batch_completes_across_a_redis_restart(task_set, record_property, django_capture_on_commit_callbacks):
    from celery import Celery

    from training_app.models import RolloutBatch, Trajectory
    from training_app.rollouts import services

    redis = RedisServer()
    env = worker_env(database_name=str(settings.DATABASES["default"]["NAME"]), broker_url=redis.url,
                     data_dir=str(settings.DATA_DIR))
    worker = KillableWorker(env=env, data_dir=str(settings.DATA_DIR), concurrency=1, label="redis-restart")
    try:
        with django_capture_on_commit_callbacks(execute=False):
            batch = services.rollout_batch_create(task_set=task_set, scaffold="react", policy="baseline", samples=4,
                                                  concurrency=1)
        Celery(broker=redis.url).send_task("workers.rollouts.run_rollout_batch", args=(batch.id,), queue="sandbox")
        deadline = time.monotonic() + 120
        while not Trajectory.objects.filter(batch_id=batch.id).exists():
            assert time.monotonic() < deadline, "no episode finished"
            time.sleep(0.2)
        before = set(Trajectory.objects.filter(batch_id=batch.id).values_list("id", flat=True))
        redis.kill()
        time.sleep(1.0)
        redis.restart()
        deadline = time.monotonic() + 180
        while not (batch := RolloutBatch.objects.get(id=batch.id)).is_finished:
            assert time.monotonic() < deadline, f"batch still {batch.state}"
            time.sleep(0.3)
        log = worker.log()
    finally:
        worker.stop()
        redis.stop()
    total = task_set.tasks.count() * 4
    pairs = list(Trajectory.objects.filter(batch=batch).values_list("task__task_id", "sample_index"))
    tally(record_property, faults=1, jobs_completed=int(batch.state == JobState.SUCCEEDED), expected=total, keys=pairs)
    assert batch.state == JobState.SUCCEEDED, batch.error
    assert batch.attempts == 1  # the worker kept it through the outage; nothing had to take it over
    assert len(pairs) == total == len(set(pairs))
    assert before <= set(Trajectory.objects.filter(batch=batch).values_list("id", flat=True))
    assert "database is locked" not in log
