"""Adaptive environments in a real CPU GRPO run (issue 51): a task the policy saturates is replaced mid-run by a
harder successor of its lineage, made and audited by a worker process beside training, and the next step draws it;
the run's metrics and event log say what happened. The policy is the tiny Qwen3 whose reply menu holds only the
fitted extra-trees program, so success measures the task, not the draw (tests/engine/test_frontier.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def fitting_checkpoint(tmp_path_factory):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    fit = TABULAR_REPLY_MENU[0]
    menu = [fit, fit.replace("<think>Fit", "<think>Train", 1)]
    return build_tiny_checkpoint(tmp_path_factory.mktemp("fit-menu") / "checkpoint", reply_menu=menu)


def adaptive_config(checkpoint, tasks, output_dir, **keys):
    from sandmle.rl.config import load_train_config

    return load_train_config({
        "model": str(checkpoint), "tasks": [str(t) for t in tasks], "output_dir": str(output_dir),
        "environments": "adaptive", "frontier_evidence": 2, "group_size": 2, "tasks_per_step": 1, "steps": 4,
        "max_turns": 1, "max_response_tokens": 12, "learning_rate": 0.0, "concurrency": 2, "eval_every": 0,
        "save_every": 10, "step_timeout_s": 60.0, **keys})


def wait_for_successor(output_dir: Path, count: int = 1, timeout_s: float = 240.0) -> None:
    """Block the run's step callback until the worker has made (and audited) `count` successors: the step itself
    never waits, so the test does, to make the step that draws it deterministic."""
    deadline = time.monotonic() + timeout_s
    while len(list((output_dir / "environments" / "made").glob("*.json"))) < count:
        assert time.monotonic() < deadline, "no successor made in time"
        time.sleep(0.5)


def test_a_saturated_task_is_replaced_by_a_harder_successor_that_the_next_step_draws(
        iris_results, fitting_checkpoint, tmp_path):
    from sandmle.rl.grpo import train_grpo

    parent = iris_results[0]  # the fitted trees earn a medal at level 0, not at level 1
    output_dir = tmp_path / "run"
    config = adaptive_config(fitting_checkpoint, [parent.bundle_dir], output_dir)
    lines: list[dict] = []

    def on_step(line: dict) -> None:
        lines.append(line)
        if line["step"] == 2:
            wait_for_successor(output_dir)

    result = train_grpo(config, on_step=on_step)
    assert result["steps_done"] == 4
    rewards = [line["reward_mean"] for line in lines]
    assert rewards[0] >= 0.5 and rewards[1] >= 0.5  # saturated: both episodes of each step succeed

    made = json.loads(next((output_dir / "environments" / "made").glob("*.json")).read_text())
    assert made["status"] == "validated" and made["level"] == 1 and made["audit"]["passed"] is True
    assert made["reason"] == "step 2: success 1.00 above the band 0.2-0.8 at level 0"
    # Step 3 drew the successor (its trajectories are on the new task), and the step line says why.
    step3 = [json.loads(row) for row in (output_dir / "trajectories" / "step-000003.jsonl").read_text().splitlines()]
    assert {row["task_id"] for row in step3} == {made["task_id"]}
    assert [e["event"] for e in lines[2]["environment_events"]] == ["accepted"]
    assert lines[2]["environment_events"][0]["parent"] == parent.task_id
    assert lines[2]["successors_accepted"] == 1 and lines[2]["level_mean"] == 1.0
    assert lines[1]["successors_made"] == 1 and lines[1]["successors_pending"] == 1
    assert lines[0]["frontier_share"] is None or lines[0]["frontier_share"] == 0.0  # 1.0: above the band
    assert "zero_std_group_share" in lines[0]
    # The harder task is out of the fitted program's reach, but moving back needs twice the evidence: no flap yet.
    assert lines[3]["successors_made"] == 1
    log = [json.loads(row) for row in (output_dir / "environments" / "environments.jsonl").read_text().splitlines()]
    assert [entry["event"] for entry in log] == ["requested", "accepted"]
