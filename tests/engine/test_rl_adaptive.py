"""Adaptive environments in a real CPU GRPO run (issue 51): a task the policy saturates is replaced mid-run by a
harder successor of its lineage, made and audited by a worker process beside training, and the next step draws it;
the run's metrics and event log say what happened; a run killed mid-synthesis resumes with its set, lineages and
pending successor. The policy is the tiny Qwen3 whose reply menu holds only the
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
        "max_turns": 1, "max_tokens": 12, "learning_rate": 0.0, "concurrency": 2, "eval_every": 0,
        "save_every": 10, "step_timeout_s": 60.0, **keys})


def wait_for_successor(output_dir: Path, count: int = 1, timeout_s: float = 240.0) -> None:
    """Block the run's step callback until the worker has made (and audited) `count` successors: the step itself
    never waits, so the test does, to make the step that draws it deterministic."""
    deadline = time.monotonic() + timeout_s
    while len(list((output_dir / "environments" / "made").glob("*.json"))) < count:
        assert time.monotonic() < deadline, "no successor made in time"
        time.sleep(0.5)


def test_a_run_killed_mid_synthesis_resumes_with_its_set_lineages_and_pending_successor(
        iris_results, fitting_checkpoint, tmp_path):
    """SIGKILL to the run's whole process group (trainer and synthesis workers) while a successor is in the making;
    `resume` restores the set, each lineage's level and history, and makes the same pending successor again."""
    import os
    import signal
    import subprocess
    import sys

    import yaml

    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.run_files import CURRICULUM_FILE

    from sandmle.synth.successor import successor

    root = iris_results[0]
    # The fitted program earns a medal on this lineage up to level 2, not at level 3 (tests/engine/test_frontier.py).
    parent = successor(root.bundle_dir, 2, out_dir=tmp_path / "start")
    output_dir = tmp_path / "run"
    config = adaptive_config(fitting_checkpoint, [parent.bundle_dir], output_dir, steps=6, save_every=1)
    config_file = tmp_path / "adaptive.yaml"
    config_file.write_text(yaml.safe_dump({k: v for k, v in config.to_dict().items() if k != "kind"}))
    child = subprocess.Popen([sys.executable, "-m", "sandmle.cli", "grpo", "--config", str(config_file)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1"})
    saved_file = output_dir / "checkpoint-2" / CURRICULUM_FILE.format(rank=0)
    deadline = time.monotonic() + 300
    try:
        while not (saved_file.is_file() and (output_dir / "checkpoint-2" / "trainer_state.json").is_file()):
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint-2 in time"
            time.sleep(0.2)
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # mid-synthesis: the successor takes far longer than a step
        child.wait()
    saved = json.loads(saved_file.read_text())["environments"]
    assert not list((output_dir / "environments" / "made").glob("*.json"))  # killed before the worker finished
    (pending,) = saved["pending"]
    assert (pending["slot"], pending["level"], pending["requested_step"]) == (0, 3, 2)
    assert saved["slots"][0]["outcomes"] == [1, 1, 1, 1] and saved["slots"][0]["level"] == 2
    assert saved["versions"] == {root.task_id: 1} and saved["counts"]["made"] == 1

    lines: list[dict] = []

    def on_step(line: dict) -> None:
        lines.append(line)
        if line["step"] == 3:
            wait_for_successor(output_dir)

    result = train_grpo(config, resume=True, on_step=on_step)
    assert result["steps_done"] == 6 and lines[0]["step"] == 3
    made = json.loads(next((output_dir / "environments" / "made").glob("*.json")).read_text())
    assert made["status"] == "validated" and made["level"] == 3 and made["reason"] == pending["reason"]
    assert (output_dir / "environments" / "made" / f"{parent.bundle_dir.name}-3-{pending['rng']}.json").is_file()
    step4 = [json.loads(row) for row in (output_dir / "trajectories" / "step-000004.jsonl").read_text().splitlines()]
    assert {row["task_id"] for row in step4} == {made["task_id"]}
    log = [json.loads(row) for row in (output_dir / "environments" / "environments.jsonl").read_text().splitlines()]
    # One request (before the kill), its successor accepted after the resume: nothing asked for twice. Out of the
    # fitted program's reach, level 3 asks to go back down only after twice the evidence (steps 4 and 5).
    assert [(entry["event"], entry["step"], entry["level"]) for entry in log] == [
        ("requested", 2, 3), ("accepted", 4, 3), ("requested", 6, 2)]
    assert lines[1]["successors_made"] == 1 and lines[1]["successors_accepted"] == 1
    # The step line says what happened and where the set stands.
    assert made["audit"]["passed"] is True and made["reason"] == "step 2: success 1.00 above the band 0.2-0.8 at level 2"
    assert [e["event"] for e in lines[1]["environment_events"]] == ["accepted"]
    assert lines[1]["environment_events"][0]["parent"] == parent.task_id and lines[1]["level_mean"] == 3.0
    assert lines[0]["successors_pending"] == 1 and lines[0]["frontier_share"] == 0.0  # 1.0: above the band
    assert "zero_std_group_share" in lines[0] and lines[0]["reward_mean"] >= 0.5
