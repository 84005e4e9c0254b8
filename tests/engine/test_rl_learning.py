"""GRPO wiring on a tiny environment: the reward rises (and not with the advantage flipped), lr 0 changes nothing,
and a run stopped at step k and resumed repeats step k+1 exactly."""

from __future__ import annotations

import json
import os

import pytest

from tests.engine.rl_env import checkpoint, make_dummy_tasks, written_token_episode  # noqa: F401 (a fixture)

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def config_for(tmp_path, checkpoint, **settings):
    from sandmle.rl.config import load_train_config

    base = {"model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 2), "output_dir": str(tmp_path / "run"),
            "group_size": 4, "tasks_per_step": 2, "steps": 3, "learning_rate": 3e-3, "max_tokens": 8,
            "save_every": 100, "seed": 3, "concurrency": 1}
    return load_train_config({**base, **settings})


def rewards_by_step(output_dir):
    lines = [json.loads(line) for line in (output_dir / "metrics.jsonl").read_text().splitlines()]
    return [line["reward_mean"] for line in lines], lines


def test_reward_rises_and_not_with_the_advantage_flipped(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    curves = {}
    for sign in (1.0, -1.0):
        config = config_for(tmp_path / str(sign), checkpoint, steps=10, learning_rate=2e-2, tasks_per_step=4)
        train_grpo(config, episode_fn=written_token_episode, advantage_sign=sign)
        curves[sign], _ = rewards_by_step(config.output_dir)
    start = sum(curves[1.0][:3]) / 3
    assert curves[1.0][0] == pytest.approx(curves[-1.0][0])  # identical first step: only the update differs
    assert sum(curves[1.0][-3:]) / 3 > start + 0.15, curves
    assert sum(curves[-1.0][-3:]) / 3 < start + 0.02, curves


def test_learning_rate_zero_leaves_every_weight_bit_identical(tmp_path, checkpoint):
    import torch
    from safetensors.torch import load_file

    from sandmle.rl.grpo import train_grpo

    config = config_for(tmp_path, checkpoint, learning_rate=0.0, steps=2, save_every=2)
    result = train_grpo(config, episode_fn=written_token_episode)
    before = load_file(str(checkpoint / "model.safetensors"))
    after = load_file(str(config.output_dir / "checkpoint-2" / "model.safetensors"))
    assert result["steps_done"] == 2 and set(before) == set(after)
    assert all(torch.equal(before[name], after[name]) for name in before)
    _, lines = rewards_by_step(config.output_dir)
    assert lines[-1]["grad_norm"] > 0  # there was a gradient; a zero step size kept it out of the weights


def test_resume_after_a_stop_repeats_the_next_step_exactly(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    whole = config_for(tmp_path / "whole", checkpoint, steps=3)
    train_grpo(whole, episode_fn=written_token_episode)
    _, uninterrupted = rewards_by_step(whole.output_dir)

    broken = config_for(tmp_path / "broken", checkpoint, steps=3)
    seen = []
    first = train_grpo(broken, episode_fn=written_token_episode, on_step=seen.append,
                       should_stop=lambda: len(seen) >= 1)
    assert first["stopped"] and first["steps_done"] == 2  # polled after step 2's update, saved there
    assert seen[0]["trajectories"].endswith("step-000001.jsonl")
    second = train_grpo(broken, resume=True, episode_fn=written_token_episode)
    assert second["steps_done"] == 3 and not second["stopped"]
    _, resumed = rewards_by_step(broken.output_dir)
    assert [line["step"] for line in resumed] == [1, 2, 3]
    for key in ("reward_mean", "reward_std", "loss", "grad_norm"):
        assert resumed[2][key] == pytest.approx(uninterrupted[2][key], rel=1e-6, abs=1e-9), key
