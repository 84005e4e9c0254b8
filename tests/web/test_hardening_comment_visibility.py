"""Review comments are for reviewers unless shared with everyone: enforced on the page and in the API."""

from __future__ import annotations

import pytest

from tasks_app.models import ReviewComment, SynthesizedTask
from tasks_app.review import services as review_services

SECRET = "the rule is x3 above 0.7"
SHARED = "description typo in paragraph two"


@pytest.fixture
def discussed(stored_tasks, users):
    task = next(task for task in stored_tasks if task.status == SynthesizedTask.Status.PENDING_REVIEW)
    review_services.task_comment_add(task=task, user=users["reviewer"], body=SECRET)  # default: reviewers only
    review_services.task_comment_add(task=task, user=users["reviewer"], body=SHARED, visibility="everyone")
    return task


def test_viewers_and_curators_see_only_shared_comments(discussed, client_for, api_for):
    for role in ("viewer", "curator"):
        page = client_for(role).get(f"/tasks/{discussed.task_id}/").content.decode()
        assert SHARED in page and SECRET not in page
        body = api_for(role).get(f"/api/tasks/{discussed.task_id}/").json()
        assert [comment["body"] for comment in body["comments"]] == [SHARED]


def test_reviewers_see_every_comment(discussed, client_for, api_for):
    page = client_for("reviewer").get(f"/tasks/{discussed.task_id}/").content.decode()
    assert SHARED in page and SECRET in page
    bodies = {comment["body"] for comment in api_for("reviewer").get(f"/api/tasks/{discussed.task_id}/").json()["comments"]}
    assert bodies == {SHARED, SECRET}


def test_visibility_is_chosen_when_commenting(stored_tasks, api_for, client_for):
    task = stored_tasks[0]
    api = api_for("reviewer")
    assert api.post(f"/api/tasks/{task.task_id}/threads/", {"body": "a"}, format="json").json()["visibility"] == "reviewers"
    shared = api.post(f"/api/tasks/{task.task_id}/threads/", {"body": "b", "visibility": "everyone"}, format="json")
    assert shared.status_code == 201 and shared.json()["visibility"] == "everyone"
    bad = api.post(f"/api/tasks/{task.task_id}/threads/", {"body": "c", "visibility": "world"}, format="json")
    assert bad.status_code == 400 and "visibility" in bad.json()
    client_for("reviewer").post(f"/tasks/{task.task_id}/", {"verdict": "comment", "body": "d", "visibility": "everyone"})
    assert ReviewComment.objects.get(body="d").visibility == "everyone"
