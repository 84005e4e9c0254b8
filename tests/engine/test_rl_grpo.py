"""GRPO through the real sandbox: a tiny Qwen3 with the tabular reply menu trains two steps on a hand-made bundle (its
replies run code, get grades and gradients), and its checkpoint runs as hf: with the menu it carries."""

from __future__ import annotations

import json
import os

import pytest

from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def test_two_steps_through_the_sandbox_write_a_checkpoint_the_hf_policy_runs(tmp_path):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.agents import SamplingParams, make_policy
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.episodes.runner import EpisodeConfig, run_episode
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", reply_menu=TABULAR_REPLY_MENU)
    task = make_bundle(tmp_path / "tasks", kind="regression")
    config = load_train_config({"model": str(checkpoint), "tasks": [str(task)], "output_dir": str(tmp_path / "run"),
                                "group_size": 4, "tasks_per_step": 1, "steps": 2, "max_turns": 1,
                                "max_tokens": 12, "save_every": 2, "learning_rate": 1e-4, "concurrency": 2})
    lines = []
    result = train_grpo(config, on_step=lines.append)

    # The reference's settings by default, read back from the trainer (no vLLM here, so no importance weights).
    assert result.pop("trainer") == {"loss_type": "grpo", "weight_decay": 0.01, "importance_sampling": "off",
                                     "importance_sampling_cap": None, "epsilon_low": 0.2, "epsilon_high": 0.28,
                                     "beta": 0.0, "scale_rewards": "group", "use_vllm": False,
                                     "rollout_mode": "sync", "loss_normalizer": "trained"}
    assert result == {"steps_done": 2, "checkpoints": [str(tmp_path / "run" / "checkpoint-2")],
                      "output_dir": str(tmp_path / "run"), "stopped": False, "failures": {
                          "episodes": 8, "failed": 0, "share": 0.0, "commonest_reason": None, "commonest_count": 0,
                          "line": ""}}
    assert [line["step"] for line in lines] == [1, 2] and lines[1]["checkpoint"] == result["checkpoints"][0]
    written = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    for key in ("step", "reward_mean", "reward_std", "zero_std_group_share", "valid_rate", "medal_rate", "mean_turns",
                "tokens", "loss", "grad_norm", "learning_rate", "step_s", "generation_s", "sandbox_s", "update_s",
                "generate_calls", "mean_batch_size", "tokens_per_s", "wait_s"):
        assert all(key in line for line in written), key
    # Both episodes of a step share the model's calls: at most one per turn (two turns), each for both replies.
    assert all(1 <= line["generate_calls"] <= 4 and line["mean_batch_size"] >= 1.0 for line in written)
    trajectories = [json.loads(line) for line in open(lines[0]["trajectories"])]
    assert len(trajectories) == 4 and all(t["scaffold"] == "react" and t["grade"] is not None for t in trajectories)
    # Every reply ran its program in the sandbox; the fitted model's was graded valid.
    assert all(t["turns"][1]["step"]["termination"] == "ok" for t in trajectories)
    dense = [t["rewards"]["dense"]["total"] for t in trajectories]
    chosen = [t["turns"][0]["extra"]["usage"]["menu_choice"] for t in trajectories]
    assert all(t["grade"]["valid_submission"] == (choice != 2) for t, choice in zip(trajectories, chosen))
    # The rewards trained on are the grade's, under the run's scheme; they differ, so the update had a gradient.
    assert written[0]["reward_mean"] == pytest.approx(sum(dense) / 4) and written[0]["reward_mean"] >= 0.1
    assert max(dense) - min(dense) > 0.1 and written[0]["reward_std"] > 0 and written[0]["grad_norm"] > 0
    assert written[0]["tokens"] == 4  # one sampled token a reply; the menu's forced text is masked out
    assert (tmp_path / "run" / "config.yaml").is_file()

    policy = make_policy(f"hf:{result['checkpoints'][0]}")
    assert policy.replies == TABULAR_REPLY_MENU  # the menu travelled in the checkpoint's config
    episode = run_episode(task, scaffold="react", policy=policy,
                          config=EpisodeConfig(max_turns=1, sampling=SamplingParams(max_tokens=8)))
    assert episode.error is None and episode.tokens and episode.turns[1]["step"]["termination"] == "ok"
