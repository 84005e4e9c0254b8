"""A job is cancelled only by its creator, a reviewer or an admin, on the page and in the API."""

from __future__ import annotations

from accounts.roles import Role
from accounts.services import user_create
from sandmle_web.jobs import JobState
from tasks_app.models import Seed, SynthesisRun


def test_only_creator_reviewers_and_admins_cancel(db, users, client, api_for):
    from rest_framework.test import APIClient

    from accounts.services import user_token

    seed = Seed.objects.create(name="iris", source="bundled", target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)
    other = user_create(username="curator2", password="pw-curator2", role=Role.CURATOR)
    runs = [SynthesisRun.objects.create(seed=seed, count=1, created_by=users["curator"]) for _ in range(3)]
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=other)}")
    assert stranger.post(f"/api/synthesis-runs/{runs[0].id}/cancel/").status_code == 403
    client.force_login(other)
    assert client.post(f"/synthesis/{runs[0].id}/").status_code == 403
    runs[0].refresh_from_db()
    assert runs[0].state == JobState.QUEUED and not runs[0].cancel_requested
    for role, run in zip(("curator", "reviewer", "admin"), runs):
        assert api_for(role).post(f"/api/synthesis-runs/{run.id}/cancel/").json()["state"] == JobState.CANCELLED


def test_other_cancel_routes_hold_the_same_rule(db, users, client):
    """The studio's generic cancel and the campaign page and API refuse a curator who did not start the job."""
    from rest_framework.test import APIClient

    from accounts.services import user_token
    from tasks_app.models import TaskSet
    from training_app.models import EvalCampaign

    seed = Seed.objects.create(name="iris", source="bundled", target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)
    run = SynthesisRun.objects.create(seed=seed, count=1, created_by=users["curator"])
    task_set = TaskSet.objects.create(name="cancel-set", created_by=users["curator"])
    campaign = EvalCampaign.objects.create(task_set=task_set, spec={"policies": ["baseline"]},
                                           created_by=users["curator"])
    other = user_create(username="curator2", password="pw-curator2", role=Role.CURATOR)
    client.force_login(other)
    assert client.post(f"/jobs/tasks_app.synthesisrun/{run.id}/cancel/").status_code == 403
    assert client.post(f"/campaigns/{campaign.id}/").status_code == 403
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=other)}")
    assert stranger.post(f"/api/campaigns/{campaign.id}/cancel/").status_code == 403
    run.refresh_from_db()
    campaign.refresh_from_db()
    assert not run.cancel_requested and not campaign.cancel_requested
    client.force_login(users["reviewer"])
    client.post(f"/jobs/tasks_app.synthesisrun/{run.id}/cancel/")
    run.refresh_from_db()
    assert run.state == JobState.CANCELLED


def test_cancellation_records_who_and_when_and_the_page_shows_it(db, users, client, api_for):
    seed = Seed.objects.create(name="iris", source="bundled", target="target", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)
    run = SynthesisRun.objects.create(seed=seed, count=1, created_by=users["curator"])
    assert api_for("reviewer").post(f"/api/synthesis-runs/{run.id}/cancel/").status_code == 200
    run.refresh_from_db()
    assert run.cancel_requested_by == users["reviewer"] and run.cancel_requested_at is not None
    first_at = run.cancel_requested_at
    api_for("admin").post(f"/api/synthesis-runs/{run.id}/cancel/")  # a second request keeps the first actor
    run.refresh_from_db()
    assert run.cancel_requested_by == users["reviewer"] and run.cancel_requested_at == first_at
    client.force_login(users["viewer"])
    page = client.get(f"/synthesis/{run.id}/").content.decode()
    assert "Cancel requested by reviewer" in page
