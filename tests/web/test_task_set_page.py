"""A task set as a first-class object: its page (tasks, stats, flags), edit, clone, retire, the launch links that
preselect it, and the same actions through the API with field-level 400s."""

from __future__ import annotations

import itertools
import re

import pytest

_serial = itertools.count()


def _tasks(users, count: int, **fields) -> list:
    from tasks_app.models import Seed, SynthesizedTask

    seed, _ = Seed.objects.get_or_create(name="set-page-seed", defaults=dict(
        source="upload", target="y", task_type="binary", metric="auc", modality="tabular", n_rows=10, n_features=2))
    values = {"status": "approved", "domain_id": "mine_ventilation", "rule_family": "piecewise_bands",
              "modality": "tabular", "metric": "roc_auc", "difficulty": "medium",
              "ladder": {"baseline": 0.5, "linear": 0.8, "oracle": 0.9}} | fields
    return SynthesizedTask.objects.bulk_create([
        SynthesizedTask(task_id=f"setpage-{next(_serial)}", seed=seed, title="Ventilation task",
                        reviewed_by=users["reviewer"], **values) for _ in range(count)])


@pytest.fixture
def page_set(users):
    from tasks_app.task_sets.services import task_set_create

    tasks = _tasks(users, 3)
    task_set = task_set_create(name="page-set", task_ids=[task.task_id for task in tasks], user=users["curator"],
                               description="three ventilation tasks")
    return task_set, tasks


def _solve_rows(task, milestones: list[str]):
    """Trajectories of `task` with the given milestones, in a finished batch of the set (for success rates)."""
    from training_app.models import RolloutBatch, Trajectory

    batch = RolloutBatch.objects.create(name=f"b-{next(_serial)}", task_set=task.task_sets.first(), scaffold="react",
                                        policy="baseline")
    Trajectory.objects.bulk_create([Trajectory(batch=batch, task=task, sample_index=index, milestone=milestone, termination="submitted", record={},
                                               reward=1.0 if milestone == "gold" else 0.0)
                                    for index, milestone in enumerate(milestones)])


def test_the_list_links_each_set_to_its_page_with_stats_and_flags(client_for, page_set):
    task_set, tasks = page_set
    client = client_for("viewer")
    assert '<a href="/task-sets/page-set/">page-set</a>' in client.get("/task-sets/").content.decode()
    _solve_rows(tasks[0], ["gold", "gold"])  # every sample solves it: GRPO's flag
    _solve_rows(tasks[1], ["gold", "none"])
    page = client.get("/task-sets/page-set/")
    html = page.content.decode()
    assert page.status_code == 200 and "three ventilation tasks" in html
    for task in tasks:
        assert f'href="/tasks/{task.task_id}/"' in html
    row = re.search(rf"<tr><td><a href=\"/tasks/{tasks[0].task_id}/\">.*?</tr>", html, re.S).group(0)
    assert "0.75" in row and "v1" in row and "1.00 solved" in row and "medium" in row  # headroom (0.8-0.5)/(0.9-0.5)
    assert 'id="set-flagged"' in html and "1 task that every sample solves" in html
    # Viewers read; curators launch work on the set and edit it, as everywhere in the studio.
    assert 'id="set-actions"' not in html and "/rollouts/?task_set=page-set" not in html and 'id="edit-set"' not in html
    assert 'id="set-audit"' in html and "never audited" in html
    curator_html = client_for("curator").get("/task-sets/page-set/").content.decode()
    assert "/rollouts/?task_set=page-set#rollout-form" in curator_html and "/training/?task_set=page-set" in curator_html
    assert "/campaigns/?task_set=page-set" in curator_html and 'id="edit-set"' in curator_html


@pytest.mark.parametrize("path", ["/rollouts/", "/campaigns/", "/training/"])
def test_launch_forms_preselect_the_set_named_in_the_link(client_for, page_set, users, path):
    from tasks_app.task_sets.services import task_set_create

    task_set_create(name="aaa-first", task_ids=[page_set[1][0].task_id], user=users["curator"])
    client = client_for("curator")
    assert re.search(r'<option value="page-set" selected>', client.get(f"{path}?task_set=page-set").content.decode())
    plain = client.get(path).content.decode()
    assert '<option value="page-set" selected>' not in plain and "aaa-first" in plain
    # An unknown name leaves the form as it was rather than failing.
    assert client.get(f"{path}?task_set=nope").status_code == 200


def test_edit_adds_and_removes_tasks_and_shows_errors_at_their_fields(client_for, page_set, users):
    task_set, tasks = page_set
    extra = _tasks(users, 1)[0]
    pending = _tasks(users, 1, status="pending_review")[0]
    client = client_for("curator")
    assert client.get("/task-sets/page-set/edit/").status_code == 200
    response = client.post("/task-sets/page-set/edit/", {"name": "page-set-2", "description": "edited",
                                                         "add_task_ids": extra.task_id,
                                                         "remove_task_ids": [tasks[0].task_id]})
    assert response.status_code == 302 and response["Location"] == "/task-sets/page-set-2/"
    task_set.refresh_from_db()
    assert task_set.name == "page-set-2" and task_set.description == "edited"
    assert set(task_set.tasks.values_list("task_id", flat=True)) == {tasks[1].task_id, tasks[2].task_id, extra.task_id}
    refused = client.post("/task-sets/page-set-2/edit/", {"name": "Bad Name!", "add_task_ids": pending.task_id})
    assert refused.status_code == 400 and 'data-field="name"' in refused.content.decode()
    refused = client.post("/task-sets/page-set-2/edit/", {"name": "page-set-2", "add_task_ids": pending.task_id})
    html = refused.content.decode()
    assert refused.status_code == 400 and 'data-field="add_task_ids"' in html and pending.task_id in html
    assert task_set.tasks.count() == 3  # nothing of the refused edit stuck


def test_clone_copies_and_retire_hides_the_set_from_launch_forms(client_for, page_set, api_for):
    task_set, tasks = page_set
    client = client_for("curator")
    response = client.post("/task-sets/page-set/clone/", {"name": "page-copy"})
    assert response.status_code == 302 and response["Location"] == "/task-sets/page-copy/"
    from tasks_app.models import TaskSet

    copy = TaskSet.objects.get(name="page-copy")
    assert set(copy.tasks.all()) == set(tasks) and copy.description == task_set.description
    taken = client.post("/task-sets/page-set/clone/", {"name": "page-copy"})
    assert taken.status_code == 400 and "already exists" in taken.content.decode()
    assert client.post("/task-sets/page-set/retire/").status_code == 302
    assert 'value="page-set"' not in client.get("/rollouts/").content.decode()
    assert "retired" in client.get("/task-sets/page-set/").content.decode()
    assert client.get("/task-sets/page-set/edit/").status_code == 400
    launched = api_for("curator").post("/api/rollout-batches/", {"task_set": "page-set", "scaffold": "react",
                                                                 "samples": 1, "max_turns": 2}, format="json")
    assert launched.status_code == 400 and "retired" in launched.json()["task_set"][0]


def test_the_api_edits_clones_and_retires_with_field_level_errors(api_for, page_set, users):
    task_set, tasks = page_set
    pending = _tasks(users, 1, status="pending_review")[0]
    api = api_for("curator")
    response = api.patch("/api/task-sets/page-set/", {"description": "via api", "remove_task_ids": [tasks[0].task_id]},
                         format="json")
    assert response.status_code == 200 and response.json()["description"] == "via api"
    assert sorted(response.json()["task_ids"]) == sorted(task.task_id for task in tasks[1:])
    bad = api.patch("/api/task-sets/page-set/", {"add_task_ids": [pending.task_id]}, format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["add_task_ids"]
    bad = api.patch("/api/task-sets/page-set/", {"remove_task_ids": [task.task_id for task in tasks[1:]]},
                    format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["remove_task_ids"]  # a set keeps one task at least
    assert api.patch("/api/task-sets/page-set/", {"name": "No!"}, format="json").json().keys() == {"name"}
    clone = api.post("/api/task-sets/page-set/clone/", {"name": "api-copy"}, format="json")
    assert clone.status_code == 201 and clone.json()["description"] == "via api"
    assert api.post("/api/task-sets/page-set/clone/", {}, format="json").json().keys() == {"name"}
    retired = api.post("/api/task-sets/page-set/retire/")
    assert retired.status_code == 200 and retired.json()["retired_at"]
    again = api.post("/api/task-sets/page-set/retire/")
    assert again.status_code == 400 and "already retired" in again.json()["name"][0]
    assert api_for("viewer").post("/api/task-sets/api-copy/retire/").status_code == 403
