"""Frontier runs (a task set re-levelled for a policy) in the studio: every bad input refused by field from the API and
the form before anything is made, the queue chosen by the policy, viewers reading but never launching, and a run on
the real engine (the baseline policy on the fixture's iris set) storing its successors for review beside their parents,
the new set, the pages, and a successor joining the new set once approved."""

from __future__ import annotations

import pytest

from tasks_app.frontier.models import FrontierRun
from tasks_app.models import SynthesizedTask
from tasks_app.review import services as review_services
from tests.checkpoint_dirs import checkpoint_dir
from workers.frontier import run_frontier


def _launch(api_for, the_set, role: str = "curator", **change):
    body = {"task_set": the_set.name, "policy": "baseline", "samples": 2, "band_low": 0.2, "band_high": 0.8, **change}
    return api_for(role).post("/api/frontier-runs/", body, format="json")


@pytest.mark.parametrize("change, field", [
    ({"band_low": -0.1}, "band_low"), ({"band_high": 1.5}, "band_high"),
    ({"band_low": 0.8, "band_high": 0.2}, "band_high"), ({"band_low": 0.5, "band_high": 0.5}, "band_high"),
    ({"policy": "hf:models/missing"}, "policy"), ({"policy": "nonsense"}, "policy"),
    ({"policy": "openai:m@ftp://host"}, "policy"), ({"samples": 0}, "samples"), ({"samples": 65}, "samples"),
    ({"scaffold": "nope"}, "scaffold"), ({"task_set": "missing-set"}, "task_set"),
])
def test_bad_launches_are_400_with_the_field(api_for, task_set, change, field, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = _launch(api_for, task_set, **change)
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not FrontierRun.objects.exists() and not callbacks


def test_a_retired_set_is_refused(api_for, task_set):
    assert api_for("curator").post(f"/api/task-sets/{task_set.name}/retire/").status_code in (200, 201)
    response = _launch(api_for, task_set)
    assert response.status_code == 400 and "retired" in response.json()["task_set"][0]
    assert not FrontierRun.objects.exists()


@pytest.mark.parametrize("change, field", [
    ({"band_low": "-0.1"}, "band_low"), ({"band_low": "0.9"}, "band_high"), ({"policy": "hf:models/missing"}, "policy"),
    ({"samples": "65"}, "samples"),
])
def test_the_form_shows_each_refusal_at_its_field(client_for, task_set, change, field):
    body = {"policy": "baseline", "samples": "2", "band_low": "0.2", "band_high": "0.8", "scaffold": "react", **change}
    response = client_for("curator").post(f"/task-sets/{task_set.name}/frontier/", body)
    assert response.status_code == 400
    assert f'data-field="{field}"' in response.content.decode()
    assert not FrontierRun.objects.exists()


def test_viewers_read_but_cannot_launch(api_for, client_for, task_set):
    assert _launch(api_for, task_set, role="viewer").status_code == 403
    body = {"policy": "baseline", "samples": "2", "band_low": "0.2", "band_high": "0.8", "scaffold": "react"}
    assert client_for("viewer").post(f"/task-sets/{task_set.name}/frontier/", body).status_code == 403
    assert not FrontierRun.objects.exists()
    page = client_for("viewer").get(f"/task-sets/{task_set.name}/").content.decode()
    assert 'id="set-frontier"' in page and 'id="frontier-form"' not in page
    assert 'id="frontier-form"' in client_for("curator").get(f"/task-sets/{task_set.name}/").content.decode()


def test_a_launch_queues_on_the_queue_its_policy_needs(api_for, client_for, task_set, settings,
                                                       django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = _launch(api_for, task_set)
    assert response.status_code == 201, response.json()
    assert response.json()["state"] == "queued" and response.json()["queue"] == "sandbox" and len(callbacks) == 1
    checkpoint_dir(settings.DATA_DIR)
    with django_capture_on_commit_callbacks(execute=False):
        on_gpu = _launch(api_for, task_set, policy="hf:models/any")
    assert on_gpu.status_code == 201, on_gpu.json()
    assert on_gpu.json()["queue"] == "gpu" and on_gpu.json()["policy"].startswith("hf:/")
    body = {"policy": "baseline", "samples": "3", "band_low": "0.1", "band_high": "0.9", "scaffold": "react"}
    with django_capture_on_commit_callbacks(execute=False):
        from_form = client_for("curator").post(f"/task-sets/{task_set.name}/frontier/", body)
    run = FrontierRun.objects.order_by("-id").first()
    assert from_form.status_code == 302 and from_form["Location"] == f"/frontier-runs/{run.id}/"
    assert (run.samples, run.band_low, run.band_high, run.queue) == (3, 0.1, 0.9, "sandbox")


def test_a_run_on_the_real_engine_stores_successors_and_the_new_set(api_for, client_for, task_set, users,
                                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        launched = _launch(api_for, task_set, samples=2)
    run_id = launched.json()["id"]
    assert run_frontier(run_id) is True
    assert run_frontier(run_id) is False  # a redelivered message finds the row claimed
    run = FrontierRun.objects.get(id=run_id)
    assert run.state == "succeeded", run.error
    parents = {task.task_id: task for task in task_set.tasks.all()}
    rows = run.result["rows"]
    assert sorted(row["task_id"] for row in rows) == sorted(parents)
    assert run.result["band"] == [0.2, 0.8] and run.result["samples"] == 2
    for row in rows:
        assert 0.0 <= row["rate"] <= 1.0 and row["action"] in ("keep", "harder", "easier")
        inside = run.band_low <= row["rate"] <= run.band_high
        assert (row["action"] == "keep") == (inside or bool(row["note"])) and row["samples"] == 2
    validated = [row for row in rows if (row["successor"] or {}).get("status") == "validated"]
    assert validated, rows  # the baseline solves one iris task every time: it gets a harder successor
    for row in validated:
        successor = SynthesizedTask.objects.get(task_id=row["successor"]["task_id"])
        parent = parents[row["task_id"]]
        assert successor.parent == parent and successor.level == row["successor"]["level"] != parent.level
        assert successor.status == "pending_review" and successor.seed == parent.seed and successor.level_reason
        assert successor.bundle_dir == row["successor"]["bundle_dir"] and successor.bundle_sha256
    kept = {row["task_id"] for row in rows if row not in validated}
    if kept:
        assert run.new_task_set.name == f"{task_set.name}-frontier-{run.id}"
        assert set(run.new_task_set.tasks.values_list("task_id", flat=True)) == kept
    else:
        assert run.new_task_set is None

    detail = api_for("viewer").get(f"/api/frontier-runs/{run.id}/").json()
    assert detail["state"] == "succeeded" and len(detail["rows"]) == len(rows)
    assert detail["new_task_set"] == (run.new_task_set.name if run.new_task_set else None)
    assert "bundle_dir" not in str(detail) and "task_dir" not in str(detail)  # host paths stay on the worker side
    page = client_for("viewer").get(f"/frontier-runs/{run.id}/")
    assert page.status_code == 200 and 'id="frontier-table"' in page.content.decode()
    for row in rows:
        assert row["task_id"] in page.content.decode()
    assert f"/frontier-runs/{run.id}/" in client_for("viewer").get(f"/task-sets/{task_set.name}/").content.decode()

    for row in validated:  # the lineage on both task pages, and the successor joins the new set once approved
        successor = SynthesizedTask.objects.get(task_id=row["successor"]["task_id"])
        own = client_for("viewer").get(f"/tasks/{successor.task_id}/").content.decode()
        assert f"Successor of <a href=\"/tasks/{row['task_id']}/\">{row['task_id']}</a> at level {successor.level}" in own
        assert successor.task_id in client_for("viewer").get(f"/tasks/{row['task_id']}/").content.decode()
        review_services.task_approve(task=successor, user=users["reviewer"])
        run.refresh_from_db()
        assert run.new_task_set.tasks.filter(task_id=successor.task_id).exists()


def test_a_set_with_no_kept_task_is_made_when_the_first_successor_is_approved(task_set, iris_results, users,
                                                                            client_for):
    """Every task moved: the run's new set waits for an approved task, then holds the successor in its parent's place."""
    from tasks_app.frontier.models import FrontierSuccessor
    from tasks_app.synthesis import services as synthesis_services

    parent = task_set.tasks.order_by("task_id").first()
    run = FrontierRun.objects.create(task_set=task_set, policy="baseline", created_by=users["curator"],
                                     state="succeeded", result={"rows": [], "moved": 1, "kept": 0, "failed": 0})
    result = next(result for result in iris_results if result.task_id == parent.task_id)
    successor = synthesis_services.synthesized_task_store(
        run=parent.run, result=type(result)(**{**result.__dict__, "task_id": parent.task_id + "-l1"}))
    SynthesizedTask.objects.filter(id=successor.id).update(parent=parent, level=1,
                                                             level_reason="solved 2 of 2 at level 0")
    FrontierSuccessor.objects.create(run=run, task=successor)
    page = client_for("viewer").get(f"/frontier-runs/{run.id}/").content.decode()
    assert f"{task_set.name}-frontier-{run.id}</code> is made when a reviewer approves the first successor" in page
    successor.refresh_from_db()
    review_services.task_approve(task=successor, user=users["reviewer"])
    run.refresh_from_db()
    assert run.new_task_set.name == f"{task_set.name}-frontier-{run.id}"
    assert list(run.new_task_set.tasks.values_list("task_id", flat=True)) == [successor.task_id]
    history = [(change.what, change.actor, change.details) for change in run.new_task_set.changes.all()]
    assert history == [("created", users["curator"], {"task_ids": [successor.task_id], "frontier_run": run.id})]
    own_page = client_for("viewer").get(f"/tasks/{successor.task_id}/").content.decode()
    assert "at level 1: solved 2 of 2 at level 0" in own_page
    parent_page = client_for("viewer").get(f"/tasks/{parent.task_id}/").content.decode()
    assert 'id="lineage-successors"' in parent_page and successor.task_id in parent_page
