"""The task-set picker at scale: filter and page the approved tasks, make a set from every task a filter matches."""

from __future__ import annotations

import itertools
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

_serial = itertools.count()


def _add_tasks(users, count: int, **fields) -> list:
    """`count` task rows in one bulk insert (approved unless told otherwise); only the columns the picker reads."""
    from tasks_app.models import Seed, SynthesizedTask

    seed, _ = Seed.objects.get_or_create(name="picker-seed", defaults=dict(
        source="upload", target="y", task_type="binary", metric="auc", modality="tabular", n_rows=10, n_features=2))
    values = {"status": "approved", "domain_id": "mine_ventilation", "rule_family": "piecewise_bands",
              "modality": "tabular", "difficulty": "easy"} | fields
    return SynthesizedTask.objects.bulk_create([
        SynthesizedTask(task_id=f"pick-{next(_serial)}", seed=seed, title=f"Task on {values['domain_id']}",
                        reviewed_by=users["reviewer"], **values) for _ in range(count)])


@pytest.fixture
def mixed_tasks(users):
    """60 approved ventilation tasks, 15 approved hard cheese tasks of another rule, 10 pending ones."""
    return {"ventilation": _add_tasks(users, 60),
            "cheese": _add_tasks(users, 15, domain_id="cheese_ripening", rule_family="threshold", difficulty="hard"),
            "pending": _add_tasks(users, 10, status="pending_review", domain_id="cheese_ripening")}


def _picker_ids(response) -> list[str]:
    html = response.content.decode()
    table = html[html.index('id="task-picker"'):html.index("</table>", html.index('id="task-picker"'))]
    return re.findall(r'name="task_ids" value="([^"]+)"', table)


def _set_ids(name: str) -> set[str]:
    from tasks_app.models import TaskSet

    return set(TaskSet.objects.get(name=name).tasks.values_list("task_id", flat=True))


def test_picker_searches_filters_and_pages_only_approved_tasks(client_for, mixed_tasks):
    client = client_for("curator")
    first = client.get("/task-sets/")
    assert first.status_code == 200 and len(_picker_ids(first)) == 50  # the shared pager's page size
    assert "1–50 of 75" in first.content.decode() and "Create from all 75 matching tasks" in first.content.decode()
    second = client.get("/task-sets/?tasks_page=2")
    assert len(_picker_ids(second)) == 25 and not set(_picker_ids(first)) & set(_picker_ids(second))

    cheese = client.get("/task-sets/?q=cheese")
    assert set(_picker_ids(cheese)) == {task.task_id for task in mixed_tasks["cheese"]}  # no pending ones
    assert 'name="q" value="cheese"' in cheese.content.decode()
    assert len(_picker_ids(client.get("/task-sets/?difficulty=hard&q=ripening+task"))) == 15
    assert _picker_ids(client.get("/task-sets/?q=cheese+ventilation")) == []  # every word must match


def test_a_curator_makes_a_set_from_every_matching_task_without_posting_ids(client_for, mixed_tasks):
    response = client_for("curator").post("/task-sets/?q=mine_ventilation&tasks_page=2",
                                          {"name": "vent-set", "description": "all of them", "selection": "matching"})
    assert response.status_code == 302
    assert _set_ids("vent-set") == {task.task_id for task in mixed_tasks["ventilation"]}


def test_the_checked_path_still_takes_just_the_checked_tasks(client_for, mixed_tasks):
    client = client_for("curator")
    picked = [task.task_id for task in mixed_tasks["cheese"][:2]]
    assert client.post("/task-sets/?q=cheese", {"name": "two-set", "task_ids": picked}).status_code == 302
    assert _set_ids("two-set") == set(picked)
    pending = mixed_tasks["pending"][0].task_id
    refused = client.post("/task-sets/", {"name": "bad-set", "task_ids": [pending]})
    assert refused.status_code == 400 and b"not approved" in refused.content
    assert pending.encode() in refused.content  # the checked box is kept for the curator to fix


@pytest.mark.parametrize("url,data,field", [
    ("/task-sets/", {"name": "none-set"}, "task_ids"),
    ("/task-sets/?q=nothing-like-this", {"name": "none-set", "selection": "matching"}, "selection"),
    ("/task-sets/", {"name": "none-set", "selection": "everything"}, "selection"),
    ("/task-sets/?difficulty=impossible", {"name": "none-set", "selection": "matching"}, "difficulty"),
])
def test_bad_picker_input_is_a_400_naming_the_field(client_for, mixed_tasks, url, data, field):
    from tasks_app.models import TaskSet

    response = client_for("curator").post(url, data)
    assert response.status_code == 400 and f'data-field="{field}"' in response.content.decode()
    assert not TaskSet.objects.filter(name="none-set").exists()


def test_a_bad_picker_page_number_is_a_400_naming_its_parameter(client_for, mixed_tasks):
    response = client_for("curator").get("/task-sets/?q=cheese&tasks_page=zero")
    assert response.status_code == 400 and 'data-field="tasks_page"' in response.content.decode()


def test_the_rule_family_filter_is_ignored_for_non_reviewers(client_for, mixed_tasks):
    url = "/task-sets/?rule_family=threshold"
    assert len(_picker_ids(client_for("reviewer").get(url))) == 15
    curator_page = client_for("curator").get(url)
    assert "Create from all 75 matching tasks" in curator_page.content.decode()
    assert 'name="rule_family"' not in curator_page.content.decode()
    client_for("curator").post(url, {"name": "rule-set", "selection": "matching"})
    assert len(_set_ids("rule-set")) == 75  # the set's size says nothing about any task's rule


def test_viewers_see_no_picker_and_may_not_post(client_for, mixed_tasks):
    client = client_for("viewer")
    assert 'id="task-picker"' not in client.get("/task-sets/").content.decode()
    assert client.post("/task-sets/?q=cheese", {"name": "v-set", "selection": "matching"}).status_code == 403


def test_the_api_takes_a_filter_as_well_as_ids(api_for, mixed_tasks):
    api = api_for("curator")
    made = api.post("/api/task-sets/", {"name": "api-hard", "filter": {"difficulty": "hard", "q": "cheese"}},
                    format="json")
    assert made.status_code == 201
    assert set(made.json()["task_ids"]) == {task.task_id for task in mixed_tasks["cheese"]}
    ignored = api.post("/api/task-sets/", {"name": "api-rule", "filter": {"rule_family": "threshold"}}, format="json")
    assert ignored.status_code == 201 and len(ignored.json()["task_ids"]) == 75
    by_reviewer = api_for("reviewer").post("/api/task-sets/", {"name": "api-rule-r", "filter": {"rule_family": "threshold"}},
                                           format="json")
    assert by_reviewer.status_code == 201 and len(by_reviewer.json()["task_ids"]) == 15

    both = api.post("/api/task-sets/", {"name": "api-x", "task_ids": ["pick-0"], "filter": {}}, format="json")
    assert both.status_code == 400 and "either task_ids or filter" in both.json()["task_ids"][0]
    bad = api.post("/api/task-sets/", {"name": "api-x", "filter": {"difficulty": "impossible"}}, format="json")
    assert bad.status_code == 400 and "difficulty" in bad.json()["filter"]
    empty = api.post("/api/task-sets/", {"name": "api-x", "filter": {"q": "no-such-words"}}, format="json")
    assert empty.status_code == 400 and "no approved task" in empty.json()["filter"][0]


def _queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code in (200, 302), response.status_code
    return len(captured)


def test_picker_page_and_set_from_filter_run_the_same_queries_for_3_and_300_tasks(client_for, users):
    from tasks_app.models import TaskSet

    client = client_for("curator")
    _add_tasks(users, 3)
    TaskSet.objects.create(name="qc-existing")  # an empty list of sets skips its row query; the 300 case has one
    _queries(lambda: client.get("/task-sets/?q=ventilation"))  # warm: session, content types
    few_page = _queries(lambda: client.get("/task-sets/?q=ventilation"))
    few_make = _queries(lambda: client.post("/task-sets/?q=ventilation", {"name": "qc-few", "selection": "matching"}))
    client.get("/task-sets/")  # shows (and so clears) the "created" message, which would cost the next page a query
    _add_tasks(users, 297)
    many_page = _queries(lambda: client.get("/task-sets/?q=ventilation"))
    many_make = _queries(lambda: client.post("/task-sets/?q=ventilation", {"name": "qc-many", "selection": "matching"}))
    assert few_page == many_page, f"picker page: {few_page} queries for 3 tasks, {many_page} for 300"
    assert few_make == many_make, f"set from a filter: {few_make} queries for 3 tasks, {many_make} for 300"
    assert len(_set_ids("qc-many")) == 300
