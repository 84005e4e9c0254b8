"""The API lists H4's page test does not cover run as many queries for 30 rows as for 3, and reject bad filters."""

from __future__ import annotations

import pytest

from tests.web.test_query_counts import Rows, _queries

API_LISTS = [
    ("viewer", "/api/trajectories/"), ("viewer", "/api/rollout-batches/{batch}/trajectories/"),
    ("viewer", "/api/trajectories/?scaffold=react&milestone=bronze&ordering=-reward"),
    ("viewer", "/api/training-runs/"), ("viewer", "/api/campaigns/"), ("viewer", "/api/task-sets/"),
    ("reviewer", "/api/tasks/?task_set=qc-set&ordering=rule_family"), ("viewer", "/api/tasks/?limit=500"),
]


@pytest.fixture
def rows(users):
    return Rows(users)


@pytest.mark.parametrize("role,url", API_LISTS)
def test_api_list_query_count_is_constant(api_for, rows, role, url):
    url = url.format(batch=rows.batch.id)
    client = api_for(role)
    rows.grow_to(3)
    _queries(client, url)  # warm: token, content types
    few = _queries(client, url)
    rows.grow_to(30)
    assert _queries(client, url) == few, url


@pytest.mark.parametrize("url,field", [
    ("/api/tasks/?status=nope", "status"), ("/api/tasks/?difficulty=x", "difficulty"),
    ("/api/tasks/?ordering=spec", "ordering"), ("/api/trajectories/?batch=1.5", "batch"),
    ("/api/trajectories/?valid_submission=maybe", "valid_submission"), ("/api/campaigns/?state=done", "state"),
    ("/api/training-runs/?kind=ppo", "kind"), ("/api/rollout-batches/?scaffold=x", "scaffold"),
])
def test_bad_filter_values_are_400s_naming_the_field(api_for, db, url, field):
    response = api_for("viewer").get(url)
    assert response.status_code == 400 and field in response.json(), (url, response.content)
