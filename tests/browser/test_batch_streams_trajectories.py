"""A running rollout batch's page in headless Chromium shows each trajectory as its episode is stored, without a
reload and before the batch ends (the worker writes each row as its episode finishes)."""

from __future__ import annotations

import pytest
from django.utils import timezone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_trajectories_appear_while_the_batch_runs(login, live_server, users):
    from tasks_app.models import Seed, SynthesizedTask
    from tasks_app.task_sets.services import task_set_create
    from training_app.models import RolloutBatch, Trajectory

    seed = Seed.objects.create(name="stream-seed", source="upload", target="y", task_type="binary", metric="roc_auc",
                               modality="tabular", n_rows=10, n_features=2)
    task = SynthesizedTask.objects.create(task_id="stream-task", seed=seed, status="approved", title="t")
    task_set = task_set_create(name="stream-set", task_ids=[task.task_id], user=users["curator"])
    batch = RolloutBatch.objects.create(task_set=task_set, scaffold="react", policy="baseline", samples=2,
                                        state="running", started_at=timezone.now(), progress=0.0)
    page = login("viewer")
    page.goto(f"{live_server.url}/rollouts/{batch.id}/")
    assert "No trajectories yet." in page.locator("#trajectories").inner_text()
    assert page.locator("#batch-state").inner_text() == "running"

    Trajectory.objects.create(batch=batch, task=task, sample_index=0, termination="submitted", milestone="gold",
                              valid_submission=True, reward=1.0, record={})
    RolloutBatch.objects.filter(id=batch.id).update(progress=0.5, progress_message="1 of 2 episodes stored")
    page.wait_for_selector("#trajectories a.state", timeout=15_000)
    assert "#0 gold 1.00" in page.locator("#trajectories").inner_text()
    assert page.locator("#batch-state").inner_text() == "running"  # the heading still agrees with the bar
