"""Saving an adaptive run's current frontier as a task set (issue 56): the set is the curriculum state saved beside
the last checkpoint, only once every task in it is approved, and the set page says where it came from; viewers
cannot save."""

from __future__ import annotations

import json
from pathlib import Path

from tasks_app.models import SynthesizedTask, TaskSet
from tasks_app.review import services as review_services
from tests.web.test_adaptive_run_page import audit_run  # noqa: F401 (a fixture)


def _checkpoint(run, controller, step: int) -> None:
    """checkpoint-<step>/ as the trainer leaves it: trainer_state.json and the curriculum state with the frontier."""
    folder = Path(run.output_dir) / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "trainer_state.json").write_text("{}")
    (folder / "curriculum-rank0.json").write_text(json.dumps({"environments": controller.state()}))


def test_the_frontier_is_saved_once_its_successors_are_approved(client_for, audit_run, users, settings):  # noqa: F811
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1
    run, controller = audit_run
    _checkpoint(run, controller, 4)
    frontier = [slot.task_id for slot in controller.slots]
    page = client_for("curator").get(f"/training/{run.id}/").content.decode()
    assert 'id="frontier-now"' in page and all(task_id in page for task_id in frontier)
    refused = client_for("curator").post(f"/training/{run.id}/frontier-set/", {"name": "frontier-4"}, follow=True)
    assert "review these first" in refused.content.decode() and not TaskSet.objects.filter(name="frontier-4")
    for task in SynthesizedTask.objects.filter(task_id__in=frontier, status="pending_review"):
        review_services.review_decide(task=task, user=users["reviewer"], verdict="approve", reason="fine")
    response = client_for("curator").post(f"/training/{run.id}/frontier-set/", {"name": "frontier-4"})
    assert response.status_code == 302 and response.url == "/task-sets/frontier-4/"
    saved = TaskSet.objects.get(name="frontier-4")
    assert sorted(saved.tasks.values_list("task_id", flat=True)) == sorted(frontier)
    set_page = client_for("viewer").get("/task-sets/frontier-4/").content.decode()
    assert f"The frontier of training run #{run.id} adaptive at step 4" in set_page


def test_a_viewer_cannot_save_and_a_run_without_checkpoint_says_so(client_for, audit_run):  # noqa: F811
    run, controller = audit_run
    assert client_for("viewer").post(f"/training/{run.id}/frontier-set/", {"name": "x-set"}).status_code == 403
    response = client_for("curator").post(f"/training/{run.id}/frontier-set/", {"name": "x-set"}, follow=True)
    assert "no checkpoint with a frontier yet" in response.content.decode()
    assert not TaskSet.objects.filter(name="x-set").exists()
