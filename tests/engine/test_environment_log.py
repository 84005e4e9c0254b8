"""Reading an adaptive run's environments/ folder (sandmle/rl/environment_log.py) as the real controller writes it:
successor rows with their fates, waiting successors under review hold released by the verdict file, lineage success
rates by step, and links or odd ids refused."""

from __future__ import annotations

import os

import pytest

from sandmle.rl import environment_log as log
from tests.adaptive_runs import adaptive_controller, saturate_first_task


def test_rows_follow_requests_to_their_fates(iris_results, tmp_path):
    controller = adaptive_controller([r.bundle_dir for r in iris_results], tmp_path, review="audit")
    controller.successors_per_step = controller.per_step = 2
    saturate_first_task(controller, 2)
    assert [row["outcome"] for row in log.successor_rows(tmp_path / "environments")] == ["pending", "pending"]
    controller.after_step(3, lambda slot: None)
    rows = log.successor_rows(tmp_path / "environments")
    assert [(row["level"], row["outcome"], row["outcome_step"]) for row in rows] == [(1, "accepted", 3),
                                                                                       (-1, "accepted", 3)]
    assert rows[0]["parent"] == iris_results[0].task_id and rows[0]["task_id"].endswith("-l1-r0")
    assert "above the band" in rows[0]["reason"] and log.waiting_successors(tmp_path / "environments") == []


def test_under_hold_a_successor_waits_until_its_verdict_file(iris_results, tmp_path):
    controller = adaptive_controller([iris_results[0].bundle_dir], tmp_path, review="hold")
    env = tmp_path / "environments"
    saturate_first_task(controller, 2)
    controller.after_step(3, lambda slot: pytest.fail("replaced before a reviewer approved"))
    (waiting,) = log.waiting_successors(env)
    assert log.verdict_of(env, waiting["task_id"]) is None
    log.write_verdict(env, waiting["task_id"], approved=True)
    replaced = []
    controller.after_step(4, replaced.append)
    assert replaced == [0] and log.waiting_successors(env) == []
    assert log.successor_rows(env)[0]["outcome"] == "accepted"
    with pytest.raises(ValueError):
        log.write_verdict(env, "../escape", approved=True)


def test_a_reviewer_rejection_is_a_rejected_row(iris_results, tmp_path):
    controller = adaptive_controller([iris_results[0].bundle_dir], tmp_path, review="hold")
    env = tmp_path / "environments"
    saturate_first_task(controller, 2)
    controller.after_step(3, lambda slot: None)
    log.write_verdict(env, log.waiting_successors(env)[0]["task_id"], approved=False)
    controller.after_step(4, lambda slot: None)
    assert log.successor_rows(env)[0]["reasons"] == ["a reviewer rejected it"]


def test_lineage_rates_count_success_by_the_run_threshold_and_root(iris_results, tmp_path):
    root = iris_results[0].task_id
    roots = log.lineage_roots([iris_results[0].bundle_dir],
                              [{"event": "accepted", "task_id": "succ", "root": root}])
    assert roots == {root: root, "succ": root}

    def episode(task, total):
        return {"task_id": task, "rewards": {"dense": {"total": total}}}

    steps = [(1, [episode(root, 0.9), episode(root, 0.1)]), (2, [episode("succ", 0.9), episode("other", 0.0)])]
    rates = log.lineage_rates(steps, roots=roots, scheme="dense", threshold=0.5)
    assert rates == {root: {"steps": [1, 2], "rates": [0.5, 1.0]}, "other": {"steps": [2], "rates": [0.0]}}


def test_a_linked_event_log_is_not_read(tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"event": "requested", "slot": 0}\n')
    (tmp_path / "environments").mkdir()
    os.symlink(secret, tmp_path / "environments" / "environments.jsonl")
    assert log.read_events(tmp_path / "environments") == []
