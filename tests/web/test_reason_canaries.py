"""Every reason a person writes about a task (a review decision, a bulk action, sending it back, an assignment, retiring
it, retiring a set) and every reviewers-only comment is planted with its own canary; a viewer and a curator crawl every
page and endpoint that shows the task, its sets or the studio's activity and find none; a reviewer finds every one,
which proves they were planted. The list they rely on is tasks_app.shared.reason_visibility's, and it classifies every
way an audit entry is made."""

from __future__ import annotations

import pytest

from tasks_app.models import TaskAuditEntry
from tasks_app.shared.reason_visibility import MACHINE_REASON_VIA, REVIEWER_ONLY_REASON_VIA

CANARIES = {
    "bulk_assign": "canary-bulk-assign-1f0c", "assign": "canary-assign-92d4", "review": "canary-review-3a7e",
    "reopen": "canary-reopen-c51b", "bulk": "canary-bulk-decide-8e26", "retire": "canary-retire-7d03",
    "comment": "canary-comment-44af", "reply": "canary-reply-b9e0", "set_retire": "canary-set-retire-0c6d",
}
TASK_CANARIES = {key: value for key, value in CANARIES.items() if key != "set_retire"}


def test_every_audit_via_is_either_reviewer_only_or_machine_written():
    assert REVIEWER_ONLY_REASON_VIA | MACHINE_REASON_VIA == set(TaskAuditEntry.Via.values)
    assert not REVIEWER_ONLY_REASON_VIA & MACHINE_REASON_VIA
    assert {"review", "bulk", "reopen", "retire"} <= REVIEWER_ONLY_REASON_VIA


@pytest.fixture
def planted(stored_tasks, users):
    """A task taken through every written step, each reason a canary; then retired, and a set of it retired."""
    from tasks_app.review import services as review
    from tasks_app.task_sets import services as task_sets

    reviewer = users["reviewer"]
    task = next(task for task in stored_tasks if task.status == "pending_review")
    assert review.review_bulk(task_ids=[task.task_id], user=reviewer, action="assign", assignee=reviewer,
                              reason=CANARIES["bulk_assign"]) == {task.task_id: "ok"}
    review.review_assign(task=task, user=reviewer, assignee=None, reason=CANARIES["assign"])
    review.review_decide(task=task, user=reviewer, verdict="request_changes", reason=CANARIES["review"])
    review.review_reopen(task=task, user=reviewer, reason=CANARIES["reopen"])
    assert review.review_bulk(task_ids=[task.task_id], user=reviewer, action="approve",
                              reason=CANARIES["bulk"]) == {task.task_id: "ok"}
    comment = review.task_comment_add(task=task, user=reviewer, body=CANARIES["comment"])
    review.comment_add(task=task, user=reviewer, body=CANARIES["reply"], parent=comment)
    task_set = task_sets.task_set_create(name="canary-reasons", task_ids=[task.task_id], user=users["curator"])
    task.refresh_from_db()
    review.review_retire(task=task, user=reviewer, reason=CANARIES["retire"])
    task_sets.task_set_retire(task_set=task_set, user=reviewer, reason=CANARIES["set_retire"])
    return task, task_set


def _crawl(page, api, task, task_set) -> dict[str, str]:
    """Every page and endpoint a role may open that shows the task, its sets, its history or recent activity."""
    pages = [f"/tasks/{task.task_id}/", "/tasks/", f"/tasks/?q={task.task_id}", "/review/", "/task-sets/",
             f"/task-sets/{task_set.name}/", "/"]
    endpoints = [f"/api/tasks/{task.task_id}/", f"/api/tasks/{task.task_id}/audit/", f"/api/tasks/{task.task_id}/threads/",
                 f"/api/tasks/{task.task_id}/reviews/", "/api/tasks/", "/api/review/queue/", "/api/task-sets/",
                 f"/api/task-sets/{task_set.name}/", f"/api/task-sets/{task_set.name}/history/"]
    seen = {}
    for url in pages:
        response = page.get(url)
        seen[url] = (response.status_code, response.content.decode())
    for url in endpoints:
        response = api.get(url)
        seen[f"api {url}"] = (response.status_code, response.content.decode())
    return seen


@pytest.mark.parametrize("role", ["viewer", "curator"])
def test_no_written_reason_or_reviewers_comment_reaches_a_non_reviewer(planted, client_for, api_for, role):
    task, task_set = planted
    seen = _crawl(client_for(role), api_for(role), task, task_set)
    served = {url for url, (code, _) in seen.items() if code == 200}
    # The task's page, its history and its sets are theirs to read; the review queue and decisions are not.
    assert {f"/tasks/{task.task_id}/", f"api /api/tasks/{task.task_id}/audit/",
            f"/task-sets/{task_set.name}/", f"api /api/task-sets/{task_set.name}/history/", "/"} <= served
    assert seen["/review/"][0] == 403 and seen[f"api /api/tasks/{task.task_id}/reviews/"][0] == 403
    leaks = {url: [key for key, canary in CANARIES.items() if canary in body] for url, (_, body) in seen.items()}
    assert not {url: keys for url, keys in leaks.items() if keys}
    # The history still says who did what, and when: only the words are withheld.
    audit = api_for(role).get(f"/api/tasks/{task.task_id}/audit/").json()
    assert {entry["via"] for entry in audit} >= {"review", "bulk", "reopen", "retire"}
    assert all(entry["reason"] == "" for entry in audit if entry["via"] != "synthesis")


def test_a_reviewer_reads_every_planted_reason(planted, client_for, api_for):
    task, task_set = planted
    seen = _crawl(client_for("reviewer"), api_for("reviewer"), task, task_set)
    everything = "".join(body for _, body in seen.values())
    assert [key for key, canary in CANARIES.items() if canary not in everything] == []
    audit = api_for("reviewer").get(f"/api/tasks/{task.task_id}/audit/").content.decode()
    for key in ("bulk_assign", "assign", "review", "reopen", "bulk", "retire"):
        assert CANARIES[key] in audit, key
