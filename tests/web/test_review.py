"""The review workflow: queue, claim, comments, approve/reject with a compare-and-set, hidden rules for reviewers only."""

from __future__ import annotations

import pytest

from sandmle_web.errors import ServiceError
from tasks_app.models import SynthesizedTask
from tasks_app.review import services as review_services
from tasks_app.seeds import services as seed_services
from tasks_app.synthesis import services as synthesis_services


@pytest.fixture
def pending(stored_tasks):
    tasks = [task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW]
    assert tasks, [task.reasons for task in stored_tasks]
    return tasks[0]


def test_queue_lists_pending_tasks_for_reviewers_only(client_for, pending):
    assert pending.task_id.encode() in client_for("reviewer").get("/review/").content
    assert client_for("curator").get("/review/").status_code == 403


def test_hidden_rule_only_for_reviewers(client_for, api_for, pending):
    assert b"Only reviewers see hidden rules" in client_for("viewer").get(f"/tasks/{pending.task_id}/").content
    page = client_for("reviewer").get(f"/tasks/{pending.task_id}/")
    assert b"rule.json" in page.content and b"Only reviewers" not in page.content
    assert "hidden_rule" not in api_for("curator").get(f"/api/tasks/{pending.task_id}/").json()
    body = api_for("reviewer").get(f"/api/tasks/{pending.task_id}/").json()
    assert body["hidden_rule"]["family"] == pending.rule_family


def test_approve_through_the_page(client_for, pending, users):
    response = client_for("reviewer").post(f"/tasks/{pending.task_id}/", {"verdict": "approve", "body": "fine"})
    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.status == "approved" and pending.reviewed_by == users["reviewer"]
    assert pending.comments.get().verdict == "approved"


def test_reject_needs_a_reason(client_for, api_for, pending):
    assert client_for("reviewer").post(f"/tasks/{pending.task_id}/", {"verdict": "reject", "body": ""}).status_code == 400
    reviews = f"/api/tasks/{pending.task_id}/reviews/"
    response = api_for("reviewer").post(reviews, {"verdict": "reject", "reason": ""}, format="json")
    assert response.status_code == 400 and "reason" in response.json()
    response = api_for("reviewer").post(reviews, {"verdict": "reject", "reason": "rule too easy"}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "rejected"
    pending.refresh_from_db()
    assert pending.rejected_by == "reviewer"


def test_second_decision_is_refused(api_for, pending):
    reviews = f"/api/tasks/{pending.task_id}/reviews/"
    assert api_for("reviewer").post(reviews, {"verdict": "approve", "reason": "fine"}, format="json").status_code == 201
    response = api_for("admin").post(reviews, {"verdict": "reject", "reason": "late"}, format="json")
    assert response.status_code == 400 and "not pending review" in response.json()["status"][0]


def test_claim_and_comment(users, pending):
    review_services.task_assign(task=pending, user=users["reviewer"])
    with pytest.raises(ServiceError):
        review_services.task_assign(task=pending, user=users["admin"])
    review_services.task_comment_add(task=pending, user=users["admin"], body="look at feature 3")
    assert pending.comments.count() == 1


def test_task_set_takes_only_approved_tasks(api_for, users, pending):
    response = api_for("curator").post("/api/task-sets/", {"name": "set1", "task_ids": [pending.task_id]}, format="json")
    assert response.status_code == 400 and "not approved" in response.json()["task_ids"][0]
    review_services.task_approve(task=pending, user=users["reviewer"])
    response = api_for("curator").post("/api/task-sets/", {"name": "set1", "task_ids": [pending.task_id]}, format="json")
    assert response.status_code == 201 and response.json()["task_ids"] == [pending.task_id]


def test_validator_rejections_are_kept_with_reasons(db, users, iris_results):
    from tasks_app.models import Seed, SynthesisRun

    seed_services.seeds_load_bundled()
    run = SynthesisRun.objects.create(seed=Seed.objects.get(name="iris"), count=1)
    result = iris_results[0]
    rejected = type(result)(**{**result.__dict__, "task_id": result.task_id + "-r", "status": "rejected",
                               "reasons": ["ladder is flat: oracle barely beats the baseline"]})
    task = synthesis_services.synthesized_task_store(run=run, result=rejected)
    assert task.status == "rejected" and task.rejected_by == "validator" and "flat" in task.reasons[0]
