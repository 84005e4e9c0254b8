"""The studio's one pager: pages of 50, links that keep the filters, a stale page number lands on the last page,
a malformed one is a 400 naming it; every list page carries it."""

from __future__ import annotations

import re

import pytest
from django.test import RequestFactory

from sandmle_web.paging import PageParameterError, paginate


@pytest.fixture
def many_tasks(users):
    """120 tasks of one seed: 80 approved, 40 pending review."""
    from tasks_app.models import Seed, SynthesisRun, SynthesizedTask

    seed = Seed.objects.create(name="pg-seed", source="upload", target="y", task_type="multiclass",
                               metric="accuracy", modality="tabular", n_rows=150, n_features=4)
    run = SynthesisRun.objects.create(seed=seed, count=120, state="succeeded")
    SynthesizedTask.objects.bulk_create([
        SynthesizedTask(task_id=f"pg-task-{i:03d}", run=run, seed=seed, modality="tabular",
                        status="approved" if i % 3 else "pending_review", title=f"Paged task {i}")
        for i in range(120)
    ])
    return SynthesizedTask.objects.order_by("task_id")


def _request(query: str):
    return RequestFactory().get(f"/tasks/?{query}")


def test_pages_of_50_with_links_that_keep_the_filters(many_tasks):
    first = paginate(_request("status=approved&seed=pg-seed"), many_tasks.filter(status="approved"))
    assert (first.number, first.paginator.num_pages, len(first.object_list)) == (1, 2, 50)
    assert first.links.first == "" and first.links.previous == ""
    assert first.links.next == "?status=approved&seed=pg-seed&page=2" == first.links.last

    last = paginate(_request("status=approved&seed=pg-seed&page=2"), many_tasks.filter(status="approved"))
    assert [task.task_id for task in last.object_list][-1] == "pg-task-119" and len(last.object_list) == 30
    assert last.links.previous == last.links.first == "?status=approved&seed=pg-seed&page=1"
    assert last.links.next == "" == last.links.last


def test_a_page_past_the_end_shows_the_last_and_an_empty_list_has_one_page(many_tasks):
    assert paginate(_request("page=999"), many_tasks).number == 3
    empty = paginate(_request(""), many_tasks.none())
    assert (empty.number, empty.paginator.num_pages, list(empty.object_list)) == (1, 1, [])


@pytest.mark.parametrize("raw", ["abc", "0", "-1", "1.5", "\u00b2", "9" * 30, "1e3"])
def test_a_malformed_page_number_is_refused_naming_the_parameter(many_tasks, raw):
    with pytest.raises(PageParameterError, match="page: expected a whole number"):
        paginate(RequestFactory().get("/tasks/", {"page": raw}), many_tasks)


def test_task_list_page_two_keeps_the_filter_in_its_links(client_for, many_tasks):
    response = client_for("viewer").get("/tasks/", {"status": "approved", "page": "2"})
    html = response.content.decode()
    assert response.status_code == 200 and "Page 2 of 2" in html and "51–80 of 80" in html
    shown = set(re.findall(r"pg-task-\d+", html))
    assert len(shown) == 30 and all(int(name.rsplit("-", 1)[1]) % 3 for name in shown)
    assert 'href="?status=approved&amp;page=1" rel="first"' in html


def test_a_malformed_page_on_a_list_page_is_a_400_naming_it(client_for, many_tasks):
    response = client_for("viewer").get("/tasks/", {"page": "lots"})
    assert response.status_code == 400 and b"page: expected a whole number" in response.content


def test_a_batch_is_paged_by_task_so_a_group_never_splits(client_for, users, many_tasks):
    from tasks_app.models import TaskSet
    from training_app.models import RolloutBatch, Trajectory

    task_set = TaskSet.objects.create(name="pg-set")
    batch = RolloutBatch.objects.create(task_set=task_set, scaffold="react", policy="baseline", samples=3)
    tasks = list(many_tasks[:30])
    Trajectory.objects.bulk_create([Trajectory(batch=batch, task=task, sample_index=s, termination="submitted",
                                               record={"turns": []}) for task in tasks for s in range(3)])
    client = client_for("viewer")
    first, second = (client.get(f"/rollouts/{batch.id}/", {"page": p}).content.decode() for p in ("1", "2"))
    assert "Page 1 of 2" in first and "Page 2 of 2" in second
    for html, expected in ((first, tasks[:25]), (second, tasks[25:])):
        groups = re.findall(r'<tr><td><a href="/tasks/(pg-task-\d+)/">.*?</tr>', html, flags=re.S)
        assert groups == [task.task_id for task in expected]
    assert second.count("/trajectories/") == 5 * 3


@pytest.mark.parametrize("role,url", [
    ("viewer", "/seeds/"), ("viewer", "/synthesis/"), ("viewer", "/tasks/"), ("viewer", "/task-sets/"),
    ("viewer", "/rollouts/"), ("viewer", "/training/"), ("viewer", "/campaigns/"),
])
def test_every_list_page_carries_the_pager_and_refuses_a_bad_page(client_for, users, role, url):
    """One page shows its count and no pager: first, previous, next and last would all be dead links."""
    client = client_for(role)
    page = client.get(url)
    assert page.status_code == 200
    assert b'class="pager"' not in page.content and b"Page 1 of 1" not in page.content
    assert client.get(url, {"page": "x"}).status_code == 400
