"""rollout_mode async: the next step's episodes run on a behaviour copy of the weights while this step trains; no
sample lags more than max_staleness versions, none is dropped, the importance weights are TRL's on the recorded
behaviour logprobs, the run still learns, and a failing worker ends the run with its error instead of a hang."""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import pytest

from tests.engine.rl_env import checkpoint, make_dummy_tasks, written_token_episode  # noqa: F401 (a fixture)

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def versioned_episode(task_dir, **kwargs):
    """The wiring tests' one-reply episode, keeping the reply's usage (where the behaviour version is stamped)."""
    policy = kwargs["policy"]
    replies = []
    generate = policy.generate

    def recording(messages, *, sampling):
        reply = generate(messages, sampling=sampling)
        replies.append(reply)
        return reply

    policy_view = _Recording(policy, recording)
    trajectory = written_token_episode(task_dir, **{**kwargs, "policy": policy_view})
    trajectory.turns[0]["extra"] = {"usage": dict(replies[0].usage)}  # where the scaffolds keep it
    return trajectory


class _Recording:
    def __init__(self, policy, generate):
        self._policy, self.generate = policy, generate

    def __getattr__(self, name):
        return getattr(self._policy, name)


def config_for(tmp_path, checkpoint, **settings):
    from sandmle.rl.config import load_train_config

    base = {"model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 2),
            "output_dir": str(tmp_path / "run"), "group_size": 4, "tasks_per_step": 4, "steps": 10,
            "learning_rate": 2e-2, "max_tokens": 8, "save_every": 100, "seed": 3, "concurrency": 1,
            "rollout_mode": "async"}
    return load_train_config({**base, **settings})


def test_an_async_run_learns_with_every_sample_within_the_staleness_bound(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    config = config_for(tmp_path, checkpoint)
    result = train_grpo(config, episode_fn=versioned_episode)
    lines = [json.loads(line) for line in (config.output_dir / "metrics.jsonl").read_text().splitlines()]
    rewards = [line["reward_mean"] for line in lines]
    assert result["steps_done"] == 10 and result["trainer"]["rollout_mode"] == "async"
    assert result["trainer"]["importance_sampling"] == "token_truncate"
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.15, rewards
    # Step 1 trains on the initial weights' samples; every later step on samples its worker made one version back
    # (made while the previous step trained): the overlap happened, the bound held; every step kept all its groups.
    assert lines[0]["staleness_max"] == 0 and all(line["staleness_max"] == 1 for line in lines[1:])
    assert all(line["rollout_wait_s"] >= 0 and line["staleness_mean"] <= 1 and line["groups_drawn"] == 4 for line in lines)
    # The importance weights: exactly 1 where the weights that sampled are the trained ones, around 1 after.
    assert lines[0]["importance_ratio_min"] == pytest.approx(1.0, abs=1e-4)
    assert lines[0]["importance_ratio_max"] == pytest.approx(1.0, abs=1e-4)
    assert all(0 < line["importance_ratio_min"] <= line["importance_ratio_max"] <= 2.0 for line in lines)
    assert any(abs(line["importance_ratio_mean"] - 1.0) > 1e-3 for line in lines[1:])
    assert not [t for t in threading.enumerate() if t.name == "sandmle-rollout-worker"]


def test_a_larger_staleness_lets_the_worker_run_further_ahead(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    config = config_for(tmp_path, checkpoint, steps=4, max_staleness=2, learning_rate=1e-3)
    train_grpo(config, episode_fn=versioned_episode)
    lines = [json.loads(line) for line in (config.output_dir / "metrics.jsonl").read_text().splitlines()]
    assert all(line["staleness_max"] <= 2 for line in lines) and lines[0]["staleness_max"] == 0


def test_a_worker_that_fails_ends_the_run_with_its_error(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    def broken(task_dir, **_):
        raise OSError("the sandbox is gone")

    config = config_for(tmp_path, checkpoint, steps=3)
    with pytest.raises(OSError, match="the sandbox is gone"):  # raised on the worker's thread, re-raised here
        train_grpo(config, episode_fn=broken)
    assert not [t for t in threading.enumerate() if t.name == "sandmle-rollout-worker"]


def test_importance_weights_match_a_direct_computation():
    torch = pytest.importorskip("torch")
    from sandmle.rl.grpo_trainer import importance_weights

    trained = torch.tensor([[-0.5, -1.0, -2.0], [-0.1, -3.0, 0.0]])
    behaviour = torch.tensor([[-1.5, -1.0, -0.2], [-0.1, -0.5, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    gaps = (trained - behaviour) * mask
    token = importance_weights(gaps, mode="token_truncate", cap=2.0)
    assert token[0].tolist() == pytest.approx([2.0, 1.0, math.exp(-1.8)])  # e^1 cut at the cap
    assert token[1].tolist() == pytest.approx([1.0, math.exp(-2.5), 1.0])
    masked = importance_weights(gaps, mode="token_mask", cap=2.0)
    assert masked[0].tolist() == pytest.approx([0.0, 1.0, math.exp(-1.8)])
    sequence = importance_weights(gaps, mode="sequence_truncate", cap=2.0)
    assert sequence[:, 0].tolist() == pytest.approx([math.exp(1.0 - 1.8), math.exp(-2.5)])


@pytest.mark.parametrize(("changes", "key", "words"), [
    ({"importance_sampling": "off"}, "importance_sampling", "need importance weights"),
    ({"environments": "adaptive", "frontier_evidence": 1}, "rollout_mode", "use sync with environments adaptive"),
    ({"max_staleness": 0}, "max_staleness", ""),
    ({"rollout_mode": "later"}, "rollout_mode", ""),
])
def test_async_settings_that_cannot_work_are_refused_with_the_key(tmp_path, changes, key, words):
    from sandmle.settings import ConfigError

    with pytest.raises(ConfigError) as refused:
        config_for(tmp_path, Path(tmp_path / "model"), **changes)
    assert refused.value.key == key and words in str(refused.value)


def test_through_the_sandbox_each_reply_records_the_weights_that_wrote_it(tmp_path):
    """The reply-menu model through the real scaffold, sandbox and grader: the versions travel in each turn."""
    from sandmle.agents.policies.menu import TABULAR_REPLY_MENU
    from sandmle.rl.async_rollouts import reply_versions
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.tiny_model import build_tiny_checkpoint
    from tests.engine.rollout_bundles import make_bundle

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", reply_menu=TABULAR_REPLY_MENU)
    task = make_bundle(tmp_path / "tasks", kind="regression")
    config = load_train_config({"model": str(checkpoint), "tasks": [str(task)], "output_dir": str(tmp_path / "run"),
                                "group_size": 2, "tasks_per_step": 1, "steps": 3, "max_turns": 1,
                                "max_tokens": 12, "save_every": 3, "learning_rate": 1e-3, "concurrency": 2,
                                "rollout_mode": "async"})
    lines = []
    train_grpo(config, on_step=lines.append)
    assert [line["staleness_max"] for line in lines] == [0, 1, 1]
    for line in lines:
        trajectories = [json.loads(row) for row in open(line["trajectories"])]
        # Step s trains version s-1; its episodes were written by version s-2 (s-1 for the first step).
        assert {tuple(reply_versions(t)) for t in trajectories} == {(max(line["step"] - 2, 0),)}
        assert all(t["grade"] is not None for t in trajectories)
