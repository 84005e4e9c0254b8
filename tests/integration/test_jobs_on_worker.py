"""Jobs end to end through a real worker on the filesystem broker: a synthesis run, then a rollout batch."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection

from sandmle_web.jobs import JobState
from tests.integration.processes import celery_worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _wait_finished(model, job_id: int, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = model.objects.get(id=job_id)
        if job.is_finished:
            return job
        time.sleep(0.3)
    raise AssertionError(f"{model.__name__} {job_id} still {model.objects.get(id=job_id).state} after {timeout_s} s")


def test_synthesis_then_rollouts_on_a_real_worker(api_for, users):
    from tasks_app.models import SynthesisRun, SynthesizedTask
    from tasks_app.review.services import task_approve
    from tasks_app.seeds.services import seeds_load_bundled
    from training_app.models import RolloutBatch, Trajectory

    seeds_load_bundled()
    with celery_worker(database_name=connection.settings_dict["NAME"], broker_url="filesystem://",
                       data_dir=str(settings.DATA_DIR)):
        response = api_for("curator").post("/api/synthesis-runs/", {"seed": "wine", "count": 2, "rng": 3}, format="json")
        assert response.status_code == 201, response.content
        run = _wait_finished(SynthesisRun, response.json()["id"], timeout_s=180)
        assert run.state == JobState.SUCCEEDED, run.error
        tasks = list(SynthesizedTask.objects.filter(run=run))
        assert len(tasks) == 2 and run.summary["tasks"] == 2
        pending = [task for task in tasks if task.status == "pending_review"]
        assert pending, [task.reasons for task in tasks]
        for task in pending:
            task_approve(task=task, user=users["reviewer"])
        api = api_for("curator")
        assert api.post("/api/task-sets/", {"name": "wine-set", "task_ids": [t.task_id for t in pending]},
                        format="json").status_code == 201
        response = api.post("/api/rollout-batches/", {"task_set": "wine-set", "scaffold": "react", "policy": "baseline",
                                                      "samples": 2, "concurrency": 2}, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["queue"] == "sandbox"
        batch = _wait_finished(RolloutBatch, response.json()["id"], timeout_s=300)
    assert batch.state == JobState.SUCCEEDED, batch.error
    assert Trajectory.objects.filter(batch=batch).count() == 2 * len(pending)
    assert batch.summary["valid_rate"] > 0
