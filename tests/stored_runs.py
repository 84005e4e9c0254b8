"""Two stored GRPO runs that differ in the reward scheme only, as the paper's dense-vs-sparse ablation: their metric
rows and step files shaped as the trainer writes them (for pages that read runs without training one)."""

from __future__ import annotations

import json

import pytest

from sandmle_web.jobs import JobState
from tests.checkpoint_dirs import checkpoint_dir
from training_app.models import TrainingMetric, TrainingRun


def record(task: str, group: str, index: int, dense: float, sparse: float, termination: str = "submitted") -> dict:
    return {"task_id": task, "group_id": group, "sample_index": index, "termination": termination,
            "rewards": {"dense": {"total": dense, "components": {"valid": min(dense, 0.2), "milestone": dense - min(dense, 0.2)}},
                        "sparse": {"total": sparse, "components": {"gold": sparse}}},
            "grade": {"score": 0.5 + dense / 10}, "turns": [{"role": "assistant", "text": "x"}],
            "tokens": [{"turn": 0, "prompt_ids": [1], "completion_ids": [2], "mask": [0, 1], "logprobs": [-1.0]}],
            "sequence": {"ids": [1, 2], "mask": [0, 1], "logprobs": [None, -1.0], "prompt_length": 1}}


def stored_run(task_set, users, tmp_path, *, name: str, reward: str, lines: list[dict], records: dict[int, list[dict]]):
    """A finished run's rows: its config as the engine resolves it, each step's line and JSONL file."""
    from sandmle.rl.config import load_train_config

    out = tmp_path / f"out-{name}"
    config = load_train_config({"model": checkpoint_dir(tmp_path), "output_dir": str(out), "steps": len(lines),
                                "group_size": 2, "reward": reward,
                                "tasks": sorted(str(task.bundle_dir) for task in task_set.tasks.all())})
    run = TrainingRun.objects.create(name=name, kind="grpo", task_set=task_set, config=config.to_dict(),
                                     output_dir=str(out), queue="gpu", created_by=users["curator"],
                                     state=JobState.SUCCEEDED, progress=1.0)
    (out / "trajectories").mkdir(parents=True)
    for line in lines:
        path = out / "trajectories" / f"step-{line['step']:06d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records.get(line["step"], [])))
        TrainingMetric.objects.create(run=run, step=line["step"], metrics=line | {"trajectories": str(path)})
    return run


@pytest.fixture
def two_runs(task_set, users, tmp_path):
    """The paper's ablation as two stored runs: sparse gives no spread (nothing learned), dense does."""
    base = {"loss": 0.0, "grad_norm": 0.0, "tokens": 40, "sequence_tokens": 90, "truncated_episodes": 0,
            "masked_episodes": 1, "terminations": {"submitted": 3, "time_budget": 1}, "generation_s": 1.0,
            "sandbox_s": 0.5, "update_s": 0.2}
    sparse = stored_run(task_set, users, tmp_path, name="sparse", reward="sparse",
                        lines=[base | {"step": s, "reward_mean": 0.0, "reward_std": 0.0, "zero_std_group_share": 1.0}
                               for s in (1, 2)],
                        records={1: [record("t1", "g1", 0, 0.2, 0.0), record("t1", "g1", 1, 0.6, 0.0)]})
    dense = stored_run(task_set, users, tmp_path, name="dense", reward="dense",
                       lines=[base | {"step": s, "reward_mean": 0.4, "reward_std": 0.2, "zero_std_group_share": 0.0,
                                      "grad_norm": 0.3, "mean_batch_size": 2.0} for s in (1, 2)],
                       records={1: [record("t1", "g1", 0, 0.2, 0.0), record("t1", "g1", 1, 0.6, 0.0),
                                    record("<script>alert(1)</script>", "g2", 0, 0.5, 0.0, "time_budget"),
                                    record("<script>alert(1)</script>", "g2", 1, 0.5, 0.0)]})
    return sparse, dense


