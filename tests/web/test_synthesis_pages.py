"""Synthesis runs in the studio: launch from a seed's page or the API, field errors, progress, the tasks a run made."""

from __future__ import annotations

import pytest

from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services


@pytest.fixture
def iris(db):
    seed_services.seeds_load_bundled()
    return Seed.objects.get(name="iris")


def test_curator_launches_from_the_seed_page(client_for, iris, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for("curator").post("/seeds/iris/", {"count": 2, "rng": 3})
    run = SynthesisRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/synthesis/{run.id}/"
    assert (run.seed, run.count, run.rng, run.state) == (iris, 2, 3, JobState.QUEUED)
    assert len(callbacks) == 1  # enqueued once, after the commit
    page = client_for("viewer").get(f"/synthesis/{run.id}/")
    assert page.status_code == 200 and b"queued" in page.content


def test_bad_count_on_the_page_is_a_400_with_the_field(client_for, iris):
    response = client_for("curator").post("/seeds/iris/", {"count": 0, "rng": 0})
    assert response.status_code == 400 and b"greater than or equal to 1" in response.content
    assert not SynthesisRun.objects.exists()


def test_viewer_cannot_launch(client_for, api_for, iris):
    assert client_for("viewer").post("/seeds/iris/", {"count": 1, "rng": 0}).status_code == 403
    assert api_for("viewer").post("/api/synthesis-runs/", {"seed": "iris", "count": 1}, format="json").status_code == 403
    assert not SynthesisRun.objects.exists()


@pytest.mark.parametrize("body, field, words", [
    ({"seed": "nope", "count": 1}, "seed", "no seed named"),
    ({"seed": "iris", "count": 500}, "count", "200"),
    ({"seed": "iris", "count": 1, "llm_url": "http://127.0.0.1:9/v1"}, "llm_model", "both"),
])
def test_api_field_errors(api_for, iris, body, field, words):
    response = api_for("curator").post("/api/synthesis-runs/", body, format="json")
    assert response.status_code == 400 and words in str(response.json()[field]), response.json()
    assert not SynthesisRun.objects.exists()


def test_run_executes_and_lists_its_tasks(api_for, client_for, iris, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        created = api_for("curator").post("/api/synthesis-runs/", {"seed": "iris", "count": 1, "rng": 2}, format="json")
    assert created.status_code == 201
    run_id = created.json()["id"]
    assert synthesis_services.synthesis_run_execute(run_id=run_id, worker="test") is True
    assert synthesis_services.synthesis_run_execute(run_id=run_id, worker="again") is False  # a redelivery does nothing
    detail = api_for("viewer").get(f"/api/synthesis-runs/{run_id}/").json()
    assert detail["state"] == JobState.SUCCEEDED and detail["progress"] == 1.0
    run = SynthesisRun.objects.get(id=run_id)
    task = run.tasks.get()
    assert run.summary["tasks"] == 1
    page = client_for("viewer").get(f"/synthesis/{run_id}/")
    assert page.status_code == 200 and task.task_id.encode() in page.content
    listed = api_for("viewer").get("/api/tasks/", {"run": run_id}).json()
    assert task.task_id in str(listed)


def test_cancel_a_queued_run(api_for, users, iris, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = synthesis_services.synthesis_run_create(seed=iris, count=1, user=users["curator"])  # the creator cancels
    response = api_for("curator").post(f"/api/synthesis-runs/{run.id}/cancel/")
    assert response.status_code == 200 and response.json()["state"] == JobState.CANCELLED
    assert synthesis_services.synthesis_run_execute(run_id=run.id, worker="late") is False
