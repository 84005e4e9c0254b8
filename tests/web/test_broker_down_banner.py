"""With the job queue unreachable (the app pointed at a closed port), pages carry a banner instead of failing, and a
launch saves its job row (queued, to be sent by the sweep) instead of answering 500."""

from __future__ import annotations

import pytest

from sandmle_web import broker
from tests.integration.processes import free_port


@pytest.fixture
def broker_down():
    from sandmle_web.celery import app

    saved = (app.conf.broker_url, app.conf.broker_transport_options, app._pool, app.amqp._producer_pool)
    app.conf.broker_url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    app.conf.broker_transport_options = {"socket_connect_timeout": 1}
    app._pool = app.amqp._producer_pool = None  # the next send connects to the closed port
    broker._last.update(at=float("-inf"))
    yield
    app.conf.broker_url, app.conf.broker_transport_options = saved[0], saved[1]
    app._pool, app.amqp._producer_pool = saved[2], saved[3]
    broker._last.update(at=float("-inf"))


def test_pages_say_the_queue_is_down(client_for, broker_down):
    response = client_for("viewer").get("/")
    assert response.status_code == 200
    assert 'id="job-queue-down"' in response.content.decode()
    assert broker.QUEUE_DOWN_MESSAGE in response.content.decode()


def test_no_banner_while_the_queue_is_up(client_for):
    broker._last.update(at=float("-inf"))
    assert 'id="job-queue-down"' not in client_for("viewer").get("/").content.decode()


def test_launch_with_the_queue_down_saves_the_job(api_for, task_set, broker_down, django_capture_on_commit_callbacks):
    from sandmle_web.jobs import JobState
    from training_app.models import RolloutBatch

    with django_capture_on_commit_callbacks(execute=True):
        response = api_for("curator").post("/api/rollout-batches/", {"task_set": task_set.name, "scaffold": "react",
                                                                     "policy": "baseline", "samples": 1}, format="json")
    assert response.status_code == 201, response.content
    batch = RolloutBatch.objects.get(id=response.json()["id"])
    assert batch.state == JobState.QUEUED  # saved; the sweep sends its message once the queue is back
    # The refused send marked it overdue: the sweep's next run resends it, without waiting a heartbeat timeout.
    assert RolloutBatch.unsent() == [batch.id]
    assert RolloutBatch.unsent() == []  # resent just now


def test_a_delivered_launch_is_not_resent_early(task_set):
    from sandmle_web.jobs import mark_unsent
    from training_app.models import RolloutBatch

    batch = RolloutBatch.objects.create(task_set=task_set, scaffold="react", policy="baseline", samples=1)
    assert RolloutBatch.unsent() == []  # its first message is on its way
    assert mark_unsent("workers.system.echo", (batch.id,)) == 0  # not a job's task: nothing to mark
    assert mark_unsent("workers.rollouts.run_rollout_batch", (batch.id,)) == 1
    assert RolloutBatch.unsent() == [batch.id]
