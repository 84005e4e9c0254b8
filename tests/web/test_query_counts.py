"""List pages and API lists run the same number of queries for 3 rows as for 30: no N+1."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tasks_app.models import SynthesisRun, SynthesizedTask


def _make_tasks(users, stored_tasks, count: int) -> None:
    template = next(task for task in stored_tasks if task.status == "pending_review")
    run = SynthesisRun.objects.create(seed=template.seed, count=count, created_by=users["curator"])
    SynthesizedTask.objects.bulk_create([
        SynthesizedTask(task_id=f"{template.task_id}-copy-{run.id}-{index}", run=run, seed=template.seed,
                        status="pending_review", title=template.title, rule_family=template.rule_family,
                        milestones=template.milestones, ladder=template.ladder, spec=template.spec,
                        bundle_dir=template.bundle_dir, assigned_to=users["reviewer"])
        for index in range(count)
    ])


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(captured)


@pytest.mark.parametrize("role,url", [
    ("viewer", "/tasks/"), ("reviewer", "/review/"), ("viewer", "/synthesis/"), ("viewer", "/seeds/"),
    ("viewer", "/"), ("viewer", "/api/tasks/"), ("reviewer", "/api/tasks/"), ("viewer", "/api/synthesis-runs/"),
])
def test_same_query_count_at_3_and_30_rows(client_for, api_for, users, stored_tasks, url, role):
    client = api_for(role) if url.startswith("/api/") else client_for(role)
    _make_tasks(users, stored_tasks, 1)
    _queries(client, url)  # warm: sessions, content types
    few = _queries(client, url)
    _make_tasks(users, stored_tasks, 27)
    many = _queries(client, url)
    assert few == many, f"{url}: {few} queries for a few rows, {many} for 30"
