"""Viewers cannot filter, search or order by hidden fields (the rule family), on pages or in the API."""

from __future__ import annotations

from tasks_app.models import SynthesizedTask


def test_viewer_rule_family_filter_is_ignored_on_the_page(client_for, stored_tasks):
    task = next(task for task in stored_tasks if task.rule_family)
    wrong = "no-such-family"
    viewer = client_for("viewer")
    # Filtering by a family that matches nothing must not empty the viewer's list: the filter is not applied.
    page = viewer.get("/tasks/", {"rule_family": wrong})
    assert task.task_id.encode() in page.content
    reviewer = client_for("reviewer")
    assert task.task_id.encode() not in reviewer.get("/tasks/", {"rule_family": wrong}).content
    assert task.task_id.encode() in reviewer.get("/tasks/", {"rule_family": task.rule_family}).content


def test_viewer_rule_family_filter_is_ignored_in_the_api(api_for, stored_tasks):
    total = SynthesizedTask.objects.count()
    for params in ({"rule_family": "no-such-family"}, {"ordering": "rule_family"}, {"search": "threshold"}):
        body = api_for("viewer").get("/api/tasks/", params).json()
        rows = body["results"] if isinstance(body, dict) else body
        assert len(rows) == total, params
        assert all("rule_family" not in row for row in rows)
