"""The dashboard and the job endpoints: counts, running jobs with progress, recent activity, poll and cancel."""

from __future__ import annotations

from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun


def _running_run(users) -> SynthesisRun:
    seed = Seed.objects.get(name="iris")
    run = SynthesisRun.objects.create(seed=seed, count=3, created_by=users["curator"])
    assert SynthesisRun.claim(run.id, worker="test")
    SynthesisRun.beat(run.id, progress=1 / 3, message="1/3 tasks")
    return run


def test_dashboard_shows_counts_running_jobs_and_activity(client_for, users, stored_tasks):
    run = _running_run(users)
    html = client_for("viewer").get("/").content.decode()
    pending = sum(task.status == "pending_review" for task in stored_tasks)
    assert f'Pending review</span><span class="num">{pending}</span>' in html  # one spelling: the choice's label
    assert f"/jobs/tasks_app.synthesisrun/{run.id}/progress/" in html and "1/3 tasks" in html
    assert f"started synthesis run #{run.id}" in html


def test_progress_endpoint_reports_the_row(client_for, users, stored_tasks):
    run = _running_run(users)
    body = client_for("viewer").get(f"/jobs/tasks_app.synthesisrun/{run.id}/progress/").json()
    assert body["state"] == "running" and body["progress"] == round(1 / 3, 4) and body["finished"] is False
    assert client_for("viewer").get("/jobs/tasks_app.nothing/1/progress/").status_code == 404
    assert client_for("viewer").get(f"/jobs/tasks_app.synthesisrun/{run.id + 99}/progress/").status_code == 404


def test_cancel_needs_a_curator_and_stays_on_this_site(client_for, users, stored_tasks):
    run = _running_run(users)
    url = f"/jobs/tasks_app.synthesisrun/{run.id}/cancel/"
    assert client_for("viewer").post(url).status_code == 403
    response = client_for("curator").post(url, {"next": "https://elsewhere.example/"})
    assert response.status_code == 302 and response["Location"] == f"/synthesis/{run.id}/"
    run.refresh_from_db()
    assert run.cancel_requested and SynthesisRun.beat(run.id) is False
    queued = SynthesisRun.objects.create(seed=run.seed, count=1, created_by=users["curator"])
    client_for("curator").post(f"/jobs/tasks_app.synthesisrun/{queued.id}/cancel/")
    queued.refresh_from_db()
    assert queued.state == JobState.CANCELLED
