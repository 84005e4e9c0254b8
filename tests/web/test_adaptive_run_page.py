"""An adaptive GRPO run on its page (issue 56), its environments/ folder written by the real frontier controller
(tests/adaptive_runs.py): each lineage's success chart with level changes, the successor table with reasons,
accepted successors stored as tasks with their lineage, and under review hold the waiting successors that only
reviewers approve or reject (the verdict written where the controller waits) and whose hidden rules only they see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.rl import environment_log
from sandmle_web.jobs import JobState
from tasks_app.models import SynthesizedTask
from tests.adaptive_runs import HIDDEN_RULE_MARK, adaptive_controller, saturate_first_task
from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import TrainingMetric, TrainingRun
from training_app.runs.services import step_store


def _episode(task_id: str, total: float) -> dict:
    return {"task_id": task_id, "rewards": {"dense": {"total": total}}}


def adaptive_run(task_set, users, tmp_path, *, review: str) -> tuple[TrainingRun, object]:
    """A run row over the set's tasks and its controller; steps 1-2 saturate the first task, so a successor is asked
    for (and made at once) after step 2 and collected after step 3."""
    from sandmle.rl.config import load_train_config

    tasks = sorted(str(task.bundle_dir) for task in task_set.tasks.all())
    out = tmp_path / "adaptive-run"
    config = load_train_config({"model": checkpoint_dir(tmp_path), "output_dir": str(out), "tasks": tasks,
                                "steps": 8, "group_size": 2, "tasks_per_step": 1, "environments": "adaptive",
                                "frontier_evidence": 2, "adaptive_review": review})
    run = TrainingRun.objects.create(name="adaptive", kind="grpo", task_set=task_set, config=config.to_dict(),
                                     output_dir=str(out), queue="gpu", created_by=users["curator"],
                                     state=JobState.RUNNING, progress=0.3)
    return run, adaptive_controller(tasks, out, review=review)


def play_step(run, controller, step: int, by_task: dict[str, float]) -> None:
    """One step as the trainer would leave it: the controller's decisions, the step's episodes and its line."""
    saturate_first_task(controller, step)
    path = run.output_dir + f"/trajectories/step-{step:06d}.jsonl"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("".join(json.dumps(_episode(task, total)) + "\n" for task, total in by_task.items()))
    step_store(run=run, line={"step": step, "reward_mean": 0.5, "trajectories": path} | controller.metrics([0]))


@pytest.fixture
def audit_run(task_set, users, tmp_path):
    run, controller = adaptive_run(task_set, users, tmp_path, review="audit")
    first = controller.slots[0].task_id
    for step in (1, 2, 3):
        play_step(run, controller, step, {first: 1.0})
    play_step(run, controller, 4, {controller.slots[0].task_id: 0.0})
    return run, controller


def test_the_page_charts_each_lineage_and_tables_each_successor(client_for, audit_run):
    run, controller = audit_run
    response = client_for("viewer").get(f"/training/{run.id}/")
    page = response.content.decode()
    assert response.status_code == 200 and 'id="environments"' in page
    figure = json.loads(page.split('id="lineage-figure" type="application/json">')[1].split("</script>")[0])
    root = controller.slots[0].root
    (line, marks) = [trace for trace in figure["data"] if trace["legendgroup"] == root]
    assert line["x"] == [1, 2, 3, 4] and line["y"] == [1.0, 1.0, 1.0, 0.0]
    assert marks["x"] == [2, 4] and marks["text"] == ["level 1", "level 2"]  # asked at steps 1 and 3
    other = [trace for trace in figure["data"] if trace["legendgroup"] == controller.slots[1].root]
    assert other[-1]["text"] == ["level -1"] and other[-1]["marker"]["color"] != marks["marker"]["color"]
    assert 'id="frontier-curve"' in page  # the step lines' frontier_share and level_mean, on two axes
    rows = environment_log.successor_rows(run.output_dir + "/environments")
    assert rows[0]["outcome"] == "accepted" and rows[0]["task_id"] in page and "above the band" in page


def test_an_accepted_successor_is_a_task_with_its_lineage(client_for, audit_run):
    run, controller = audit_run
    first, second = (row["task_id"] for row in environment_log.successor_rows(run.output_dir + "/environments")
                     if row["slot"] == 0 and row["outcome"] == "accepted")
    successor = SynthesizedTask.objects.get(task_id=second)
    assert second == controller.slots[0].task_id and successor.status == "pending_review" and successor.level == 2
    assert successor.parent.task_id == first and successor.parent.parent.task_id == controller.slots[0].root
    assert successor.level_reason.startswith("step 3:")
    page = client_for("reviewer").get(f"/tasks/{successor.task_id}/").content.decode()
    assert 'id="lineage-parent"' in page and "at level 2" in page and "step 3: success 1.00" in page


@pytest.fixture
def held_run(task_set, users, tmp_path):
    run, controller = adaptive_run(task_set, users, tmp_path, review="hold")
    first = controller.slots[0].task_id
    for step in (1, 2, 3):
        play_step(run, controller, step, {first: 1.0})
    return run, controller


def test_under_hold_the_page_says_who_waits_and_a_reviewer_approves(client_for, held_run, settings):
    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1
    run, controller = held_run
    env = run.output_dir + "/environments"
    waiting, _ = environment_log.waiting_successors(env)  # slot 0's harder and slot 1's easier successor
    page = client_for("reviewer").get(f"/training/{run.id}/").content.decode()
    assert "2 successors wait for a reviewer" in page and HIDDEN_RULE_MARK in page
    response = client_for("reviewer").post(f"/training/{run.id}/successors/{waiting['task_id']}/decide/",
                                           {"verdict": "approve", "reason": "reads sensibly"})
    assert response.status_code == 302
    assert environment_log.verdict_of(env, waiting["task_id"]) == "approved"
    assert SynthesizedTask.objects.get(task_id=waiting["task_id"]).status == "approved"
    replaced = []
    controller.after_step(4, replaced.append)
    assert replaced == [0]


def test_a_viewer_cannot_approve_nor_see_a_successors_hidden_rule(client_for, held_run):
    """The attack: a viewer posts the approve form by hand and reads every page the successor appears on."""
    run, controller = held_run
    env = run.output_dir + "/environments"
    waiting, _ = environment_log.waiting_successors(env)  # slot 0's harder and slot 1's easier successor
    viewer = client_for("viewer")
    page = viewer.get(f"/training/{run.id}/").content.decode()
    assert "2 successors wait for a reviewer" in page and HIDDEN_RULE_MARK not in page
    assert "Approve</button>" not in page
    response = viewer.post(f"/training/{run.id}/successors/{waiting['task_id']}/decide/",
                           {"verdict": "approve", "reason": "let me"})
    assert response.status_code == 403
    assert environment_log.verdict_of(env, waiting["task_id"]) is None
    task = SynthesizedTask.objects.filter(task_id=waiting["task_id"]).first()
    assert task is None or task.status == "pending_review"
    curator = client_for("curator").post(f"/training/{run.id}/successors/{waiting['task_id']}/decide/",
                                         {"verdict": "approve", "reason": "let me"})
    assert curator.status_code == 403 and environment_log.verdict_of(env, waiting["task_id"]) is None
    # stored as a task (the worker's sync), its page keeps the rule from viewers as any task's does
    from training_app.adaptive.services import adaptive_successors_sync

    adaptive_successors_sync(run=run)
    task_page = client_for("viewer").get(f"/tasks/{waiting['task_id']}/").content.decode()
    assert HIDDEN_RULE_MARK not in task_page and "Only reviewers see hidden rules" in task_page


def test_a_reviewer_cannot_decide_a_successor_that_does_not_wait(client_for, held_run):
    run, _ = held_run
    response = client_for("reviewer").post(f"/training/{run.id}/successors/..%2Fescape/decide/",
                                           {"verdict": "approve", "reason": "x"})
    assert response.status_code in (302, 404)
    assert not list((Path(run.output_dir) / "environments").glob("**/*.approved"))
