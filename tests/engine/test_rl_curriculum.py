"""Task sampling: learnability weights p(1-p), a state that resumes the same draws, and DAPO's dynamic sampling."""

from __future__ import annotations

import json
import os

import pytest

from sandmle.rl.curriculum import TaskSampler
from tests.engine.rl_env import make_dummy_tasks, written_token_episode

os.environ.setdefault("OMP_NUM_THREADS", "1")


def test_learnability_prefers_tasks_with_mixed_outcomes():
    sampler = TaskSampler(3, mode="learnability", seed=0)
    sampler.record(0, [1.0] * 8)  # always solved
    sampler.record(1, [1.0, 0.0] * 4)  # half the time
    sampler.record(2, [0.0] * 8)  # never
    weights = sampler.weights()
    assert weights[1] == pytest.approx(0.25) and weights[0] == weights[2] < 0.05
    draws = [index for _ in range(200) for index in sampler.draw(1)]
    assert draws.count(1) > 0.7 * len(draws)
    assert sorted(TaskSampler(3, seed=1).draw(3)) == [0, 1, 2]  # no repeats while the set allows


def test_state_round_trip_gives_the_same_draws():
    sampler = TaskSampler(5, mode="learnability", seed=4)
    sampler.record(2, [1.0, 0.0])
    state = json.loads(json.dumps(sampler.state()))
    ahead = [sampler.draw(2) for _ in range(5)]
    restored = TaskSampler(5, mode="learnability", seed=99)
    restored.load_state(state)
    assert [restored.draw(2) for _ in range(5)] == ahead


def constant_on_task0(task_dir, **kwargs):
    trajectory = written_token_episode(task_dir, **kwargs)
    if task_dir.name == "task0":
        trajectory.rewards = {"dense": {"total": 0.5}}  # every episode of task0 scores the same: no spread
    return trajectory


@pytest.mark.torch
def test_dynamic_sampling_replaces_groups_without_spread(tmp_path):
    pytest.importorskip("torch").set_num_threads(1)
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    config = load_train_config({"model": str(build_tiny_checkpoint(tmp_path / "checkpoint")),
                                "tasks": make_dummy_tasks(tmp_path / "tasks", 2), "output_dir": str(tmp_path / "run"),
                                "group_size": 2, "tasks_per_step": 2, "steps": 1, "max_tokens": 6,
                                "dynamic_sampling": True, "dynamic_sampling_rounds": 3, "concurrency": 1})
    lines = []
    train_grpo(config, episode_fn=constant_on_task0, on_step=lines.append)
    trajectories = [json.loads(line) for line in open(lines[0]["trajectories"])]
    line = lines[0]
    assert line["groups_drawn"] > 2 and line["groups_dropped"] >= 1
    # Every group drawn is either in the step or reported dropped; the step keeps its size.
    assert len(trajectories) == 4 and line["groups_drawn"] == 2 + line["groups_dropped"]
    assert any(t["task_id"] == "task1" for t in trajectories)
