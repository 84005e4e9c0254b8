"""Withdrawing an approved task: reviewers send it back to review (a new round) or retire it, each with a reason in
the audit trail; curators cannot; a retired task joins no new set."""

from __future__ import annotations

import pytest


@pytest.fixture
def approved(users):
    from tasks_app.models import Seed, SynthesizedTask

    seed = Seed.objects.create(name="withdraw-seed", source="upload", target="y", task_type="binary", metric="roc_auc",
                               modality="tabular", n_rows=10, n_features=2)
    return [SynthesizedTask.objects.create(task_id=f"withdraw-{index}", seed=seed, status="approved", title="t",
                                           reviewed_by=users["reviewer"]) for index in range(2)]


def test_a_reviewer_sends_an_approved_task_back_to_review_with_its_reason(client_for, approved):
    task = approved[0]
    client = client_for("reviewer")
    page = client.get(f"/tasks/{task.task_id}/").content.decode()
    assert 'id="reopen-form"' in page and 'id="retire-form"' in page
    response = client.post(f"/tasks/{task.task_id}/review/reopen/", {"reason": "the rule leaks through row order"})
    assert response.status_code == 302
    task.refresh_from_db()
    assert (task.status, task.review_round) == ("pending_review", 2)
    entry = task.audit_entries.order_by("-id").first()
    assert (entry.from_value, entry.to_value, entry.via, entry.reason) == (
        "approved", "pending_review", "reopen", "the rule leaks through row order")
    assert "the rule leaks through row order" in client.get(f"/tasks/{task.task_id}/").content.decode()


def test_a_reviewer_retires_an_approved_task_and_no_new_set_takes_it(client_for, api_for, approved):
    task, other = approved
    client = client_for("reviewer")
    assert client.post(f"/tasks/{task.task_id}/review/retire/", {"reason": ""}).status_code == 400  # say why
    assert client.post(f"/tasks/{task.task_id}/review/retire/", {"reason": "duplicate of another"}).status_code == 302
    task.refresh_from_db()
    assert task.status == "retired"
    entry = task.audit_entries.order_by("-id").first()
    assert (entry.from_value, entry.to_value, entry.via) == ("approved", "retired", "retire")
    refused = api_for("curator").post("/api/task-sets/", {"name": "with-retired", "task_ids": [task.task_id]},
                                      format="json")
    assert refused.status_code == 400 and list(refused.json()) == ["task_ids"]
    again = api_for("reviewer").post(f"/api/tasks/{task.task_id}/retire/", {"reason": "again"}, format="json")
    assert again.status_code == 400 and list(again.json()) == ["status"]


def test_the_api_withdraws_for_reviewers_only(api_for, approved):
    task, other = approved
    assert api_for("curator").post(f"/api/tasks/{task.task_id}/retire/", {"reason": "x"},
                                   format="json").status_code == 403
    assert api_for("reviewer").post(f"/api/tasks/{task.task_id}/retire/", {}, format="json").json().keys() == {"reason"}
    response = api_for("reviewer").post(f"/api/tasks/{other.task_id}/reopen/", {"reason": "recheck"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "pending_review"
    task.refresh_from_db()
    assert task.status == "approved"
