"""An adaptive run's environments/ folder as the frontier controller writes it, without synthesis: the real
controller (sandmle/rl/frontier_controller.py) driven by recorded successes, with a submit that "makes" each successor
at once as a copy of its parent under a new task id (lineage in task.json, the worker's made/ record beside it)."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import Future
from pathlib import Path

HIDDEN_RULE_MARK = "successor-rule-canary-7731"


def instant_successor(*, parent_dir: str, level: int, out_dir: str, reason: str, rng: int, review: str,
                      scaffold: str, scaffold_options: dict | None = None, feedback: str | None = None) -> dict:
    """What make_successor returns for a validated successor, made as a copy of the parent (no calibration)."""
    parent = json.loads((Path(parent_dir) / "task.json").read_text())
    lineage = parent.get("lineage") or {"root": parent["task_id"], "root_spec": parent["spec"]}
    task_id = f"{lineage['root']}-l{level}-r{rng}"
    task_dir = Path(out_dir) / "tasks" / f"{Path(parent_dir).name}-{level}-{rng}" / task_id
    shutil.copytree(parent_dir, task_dir)
    spec = parent["spec"] | {"difficulty": {**(parent["spec"].get("difficulty") or {}), "level": level}}
    task = parent | {"task_id": task_id, "spec": spec, "lineage": {"root": lineage["root"], "parent": parent["task_id"],
                                                     "level": level, "reason": reason,
                                                     "root_spec": lineage["root_spec"]}}
    (task_dir / "task.json").write_text(json.dumps(task))
    rule = json.loads((task_dir / "private" / "rule.json").read_text())
    (task_dir / "private" / "rule.json").write_text(json.dumps(rule | {"note": HIDDEN_RULE_MARK}))
    result = {"status": "validated", "task_id": task_id, "task_dir": str(task_dir), "seconds": 0.1, "audit": None}
    record = Path(out_dir) / "made" / f"{Path(parent_dir).name}-{level}-{rng}.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"parent_dir": parent_dir, "level": level, "reason": reason, **result}))
    return result


def instant_submit(fn, **kwargs) -> Future:
    future = Future()
    future.set_result(instant_successor(**kwargs))
    return future


def adaptive_controller(task_dirs: list, output_dir: Path, *, review: str = "audit"):
    """The real controller over `task_dirs` with review `review`, writing under output_dir/environments."""
    from sandmle.rl.config import load_train_config
    from sandmle.rl.frontier_controller import FrontierController

    config = load_train_config({"model": "m", "tasks": [str(t) for t in task_dirs], "output_dir": str(output_dir),
                                "environments": "adaptive", "frontier_evidence": 2, "group_size": 2,
                                "tasks_per_step": 1, "steps": 100, "adaptive_review": review})
    return FrontierController(task_dirs, config=config, out_dir=Path(output_dir) / "environments",
                              submit=instant_submit)


def saturate_first_task(controller, step: int) -> None:
    """Slot 0 solved every time, slot 1 never: slot 0 asks for a harder successor, slot 1 for an easier one."""
    controller.record(0, [1.0, 1.0])
    if len(controller.slots) > 1:
        controller.record(1, [0.0, 0.0])
    controller.after_step(step, lambda slot: None)
