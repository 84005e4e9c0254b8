"""No silent waits: with a real redis broker and no worker on it, the dashboard and a queued job's page and progress
say that no worker consumes the job's queue and how long the job has waited; a running job's line carries neither a
stray elapsed time nor half a summary."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from sandmle_web import worker_queues
from tests.integration.processes import app_on_broker, redis_server


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


@pytest.fixture
def broker_without_workers(redis_url):
    with app_on_broker(redis_url):
        yield


@pytest.fixture
def queued_run(users):
    from tasks_app.models import Seed, SynthesisRun

    seed = Seed.objects.create(name="wait-seed", source="upload", target="y", task_type="binary", metric="roc_auc",
                               modality="tabular", n_rows=10, n_features=2)
    run = SynthesisRun.objects.create(seed=seed, count=2, created_by=users["curator"])
    SynthesisRun.objects.filter(id=run.id).update(enqueued_at=timezone.now() - timedelta(minutes=7))
    return run


def test_a_queued_job_says_no_worker_takes_its_queue_and_how_long_it_waited(client_for, broker_without_workers,
                                                                           queued_run):
    from tasks_app.models import SynthesisRun

    client = client_for("viewer")
    dashboard = client.get("/").content.decode()
    assert 'id="unserved-queues"' in dashboard and "default, sandbox, gpu queues" in dashboard
    page = client.get(f"/synthesis/{queued_run.id}/").content.decode()
    assert "waiting for 7\xa0minutes in the default queue" in page
    assert "no worker consumes the default queue" in page
    progress = client.get(f"/jobs/tasks_app.synthesisrun/{queued_run.id}/progress/").json()
    assert progress["wait"].startswith("waiting for 7\xa0minutes in the default queue; no worker consumes")
    # Under a minute the wait is in seconds (Django's timesince alone says "0 minutes").
    SynthesisRun.objects.filter(id=queued_run.id).update(enqueued_at=timezone.now() - timedelta(seconds=40))
    wait = client.get(f"/jobs/tasks_app.synthesisrun/{queued_run.id}/progress/").json()["wait"]
    assert re.match(r"waiting for 4\d s in the default queue", wait), wait
    # The heading badge names the same progress URL the bar polls, so the script keeps the two alike.
    assert f'data-job-state="/jobs/tasks_app.synthesisrun/{queued_run.id}/progress/"' in page


def test_without_a_broadcasting_broker_nothing_is_claimed(client_for, queued_run):
    worker_queues.forget()  # the tests' filesystem broker cannot ask workers anything
    client = client_for("viewer")
    assert 'id="unserved-queues"' not in client.get("/").content.decode()
    assert "no worker" not in client.get(f"/synthesis/{queued_run.id}/").content.decode()


def test_a_running_synthesis_shows_neither_half_a_summary_nor_a_stray_time(client_for, queued_run):
    from tasks_app.models import SynthesisRun

    SynthesisRun.objects.filter(id=queued_run.id).update(state="running", started_at=timezone.now(),
                                                         progress_message="", summary={"done": 1})
    page = client_for("viewer").get(f"/synthesis/{queued_run.id}/").content.decode()
    assert "rejected by the critic" not in page and " s</small>" not in page
    assert "waiting for" not in page
