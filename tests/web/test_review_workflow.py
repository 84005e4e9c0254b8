"""The review workflow's services and routes: the approval quorum, request changes, reasons, assignment to reviewers
only, bulk actions with an audit row per task, threaded turn comments, and what viewers never reach."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from accounts.services import user_create
from sandmle_web.errors import ServiceError
from tasks_app.models import ReviewDecision, SynthesizedTask, TaskAuditEntry
from tasks_app.review import services as review_services


@pytest.fixture
def pending(stored_tasks):
    return [task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW]


@pytest.fixture
def reviewer2(db):
    return user_create(username="reviewer2", password="pw-reviewer2", role=Role.REVIEWER)


def test_two_distinct_approvals_with_min_approvals_2(settings, pending, users, reviewer2):
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 2
    task = pending[0]
    task = review_services.review_decide(task=task, user=users["reviewer"], verdict="approve", reason="clear rule")
    task = review_services.review_decide(task=task, user=users["reviewer"], verdict="approve", reason="again")
    assert task.status == "pending_review" and review_services.approvals_in_round(task=task) == 1
    task = review_services.review_decide(task=task, user=reviewer2, verdict="approve", reason="agree")
    assert task.status == "approved" and task.reviewed_by == reviewer2
    change = task.audit_entries.filter(kind="status").last()
    assert (change.from_value, change.to_value, change.actor, change.reason) == (
        "pending_review", "approved", reviewer2, "agree")


def test_request_changes_ends_the_round_and_reopen_starts_afresh(settings, pending, users, reviewer2):
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 2
    task = review_services.review_decide(task=pending[0], user=users["reviewer"], verdict="approve", reason="ok")
    with pytest.raises(ServiceError) as refused:
        review_services.review_decide(task=task, user=reviewer2, verdict="request_changes", reason="  ")
    assert refused.value.field == "reason"
    task = review_services.review_decide(task=task, user=reviewer2, verdict="request_changes", reason="typo in title")
    assert task.status == "needs_changes"
    task = review_services.review_reopen(task=task, user=reviewer2, reason="regenerated the text")
    assert task.status == "pending_review" and task.review_round == 2
    assert review_services.approvals_in_round(task=task) == 0


def test_only_reviewers_are_assignees(pending, users):
    with pytest.raises(ServiceError) as refused:
        review_services.review_assign(task=pending[0], user=users["reviewer"], assignee=users["curator"])
    assert refused.value.field == "assignee"
    task = review_services.review_assign(task=pending[0], user=users["reviewer"], assignee=users["admin"])
    assert task.assigned_to == users["admin"]
    assert task.audit_entries.get(kind="assignment").to_value == "admin"


def test_bulk_action_records_each_task(pending, stored_tasks, users):
    ids = [task.task_id for task in stored_tasks] + ["no-such-task"]
    outcome = review_services.review_bulk(task_ids=ids, user=users["reviewer"], action="reject", reason="too easy")
    assert outcome["no-such-task"] == "no such task"
    for task in pending:
        assert outcome[task.task_id] == "ok"
        assert TaskAuditEntry.objects.get(task=task, via="bulk", kind="status").reason == "too easy"
        assert ReviewDecision.objects.get(task=task).verdict == "reject"


def test_viewer_cannot_decide_assign_or_read_reviewer_comments(pending, users, api_for, client_for):
    task = pending[0]
    review_services.comment_add(task=task, user=users["reviewer"], body="the rule is x3 above 0.7")
    viewer = api_for("viewer")
    assert viewer.post(f"/api/tasks/{task.task_id}/reviews/", {"verdict": "approve", "reason": "x"},
                       format="json").status_code == 403
    assert viewer.post(f"/api/tasks/{task.task_id}/assignment/", {"assignee": "viewer"},
                       format="json").status_code == 403
    assert viewer.get(f"/api/tasks/{task.task_id}/threads/").json() == []
    assert "x3 above" not in client_for("viewer").get(f"/tasks/{task.task_id}/").content.decode()
    with pytest.raises(ServiceError):
        review_services.review_decide(task=task, user=users["viewer"], verdict="approve", reason="x")


def test_decision_api_needs_a_reason_and_reports_the_quorum(pending, api_for):
    api = api_for("reviewer")
    bad = api.post(f"/api/tasks/{pending[0].task_id}/reviews/", {"verdict": "approve"}, format="json")
    assert bad.status_code == 400 and "reason" in bad.json()
    good = api.post(f"/api/tasks/{pending[0].task_id}/reviews/", {"verdict": "approve", "reason": "fine"},
                    format="json")
    assert good.status_code == 201 and good.json()["status"] == "approved"
    audit = api_for("viewer").get(f"/api/tasks/{pending[0].task_id}/audit/").json()
    assert [entry["to_value"] for entry in audit if entry["kind"] == "status"][-1] == "approved"
    assert audit[-1]["reason"] == ""  # review reasons are for reviewers


def test_queue_page_filters_and_saved_views(pending, client_for):
    client = client_for("reviewer")
    page = client.get("/review/?difficulty=nonsense")
    assert page.status_code == 400 and b"difficulty" in page.content
    assert pending[0].task_id.encode() in client.get("/review/").content
    client.post("/review/saved-views/", {"name": "iris only", "seed": "iris"})
    assert b"iris only" in client.get("/review/").content


def test_turn_comment_thread_and_resolve(finished_batch, users, client_for):
    trajectory = finished_batch.trajectories.first()
    client = client_for("reviewer")
    response = client.post(f"/trajectories/{trajectory.id}/turns/0/comments/", {"body": "odd tool call"})
    assert response.status_code == 302
    root = trajectory.turn_comments.get()
    assert root.turn == 0 and root.task_id == trajectory.task_id
    client.post(f"/trajectories/{trajectory.id}/turns/0/comments/", {"body": "agreed", "parent": root.id})
    client.post(f"/comments/{root.id}/resolve/", {"resolved": "1"})
    root.refresh_from_db()
    assert root.resolved_by == users["reviewer"] and root.replies.get().body == "agreed"
    from django.urls import reverse

    assert b"odd tool call" in client.get(reverse("trajectory-detail", args=[trajectory.id])).content
    bad = client.post(f"/trajectories/{trajectory.id}/turns/9999/comments/", {"body": "x"})
    assert bad.status_code == 400


def test_turn_comments_sit_under_their_own_turn(finished_batch, client_for):
    from django.urls import reverse

    trajectory = finished_batch.trajectories.first()
    client = client_for("reviewer")
    client.post(f"/trajectories/{trajectory.id}/turns/0/comments/", {"body": "first turn looks off"})
    html = client.get(reverse("trajectory-detail", args=[trajectory.id])).content.decode()
    assert '<a class="turn-comment-count" href="#turn-0">1 comment</a>' in html
    first, second = html.index('id="turn-at-0"'), html.index('id="turn-at-1"')  # the turns, each an anchor
    assert first < html.index('id="turn-0"') < html.index("first turn looks off") < second
    assert second < html.index('id="turn-1"') and "Comment on turn 2" in html[second:]
    assert 'id="turn-comments"' not in html  # no section apart: every thread is on a turn the record holds
