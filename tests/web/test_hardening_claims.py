"""A claim holds: a decision on a task another reviewer claimed is refused with the reason, unless from an admin."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from accounts.services import user_create
from tasks_app.models import SynthesizedTask
from tasks_app.review import services as review_services


@pytest.fixture
def claimed(stored_tasks, users):
    task = next(task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW)
    review_services.task_assign(task=task, user=users["reviewer"])
    return task


def test_other_reviewer_cannot_decide_a_claimed_task(claimed, api_for, client_for, db):
    from rest_framework.test import APIClient

    from accounts.services import user_token

    other = user_create(username="reviewer2", password="pw-reviewer2", role=Role.REVIEWER)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=other)}")
    for verdict in ("approve", "reject"):
        response = api.post(f"/api/tasks/{claimed.task_id}/reviews/", {"verdict": verdict, "reason": "mine now"},
                            format="json")
        assert response.status_code == 400
        assert "claimed by reviewer" in response.json()["assigned_to"][0]
    claimed.refresh_from_db()
    assert claimed.status == SynthesizedTask.Status.PENDING_REVIEW and claimed.assigned_to.username == "reviewer"


def test_claimant_and_admin_may_decide(claimed, api_for, stored_tasks, users):
    response = api_for("reviewer").post(f"/api/tasks/{claimed.task_id}/reviews/", {"verdict": "approve",
                                                                                   "reason": "fine"}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "approved"


def test_admin_overrides_a_claim(claimed, api_for):
    response = api_for("admin").post(f"/api/tasks/{claimed.task_id}/reviews/", {"verdict": "reject",
                                                                                "reason": "duplicate"}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "rejected"
