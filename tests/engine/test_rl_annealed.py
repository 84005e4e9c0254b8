"""temperature_schedule annealed (EAD) in GRPO: replies open hot and close cool, the decay grows with the steps taken,
every token trains with an importance weight against the distribution it was drawn from, the schedule restarts
with each reply or runs over the episode, and settings that cannot work are refused with the key named."""

from __future__ import annotations

import json
import os

import pytest

from tests.engine.rl_env import checkpoint, make_dummy_tasks, written_token_episode  # noqa: F401 (a fixture)

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch

ANNEALED = {"temperature_schedule": "annealed", "temperature_max": 1.2, "temperature_min": 0.1, "anneal_decay": 4.0,
            "anneal_skip_tokens": 2, "anneal_decay_growth": 1.0}


def config_for(tmp_path, checkpoint, **changes):
    from sandmle.rl.config import load_train_config

    base = {"model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 2),
            "output_dir": str(tmp_path / "run"), "group_size": 4, "tasks_per_step": 2, "steps": 3,
            "learning_rate": 1e-2, "max_tokens": 8, "save_every": 100, "seed": 3, "concurrency": 1,
            **ANNEALED}
    return load_train_config({**base, **changes})


def test_an_annealed_run_opens_hot_closes_cool_and_weights_every_token(tmp_path, checkpoint):
    from sandmle.rl.grpo import train_grpo

    steps_seen = []

    def episode(task_dir, **kwargs):
        steps_seen.append(kwargs["config"].sampling.ead_training_step)
        trajectory = written_token_episode(task_dir, **kwargs)
        return trajectory

    config = config_for(tmp_path, checkpoint)
    result = train_grpo(config, episode_fn=episode)
    lines = [json.loads(line) for line in (config.output_dir / "metrics.jsonl").read_text().splitlines()]
    assert result["trainer"]["importance_sampling"] == "token_truncate" and result["trainer"]["rollout_mode"] == "sync"
    # Each step samples with the decay of the steps taken before it (d_s = d_0 + growth x s).
    assert steps_seen == [0] * 8 + [1] * 8 + [2] * 8
    for line in lines:
        # Sampled at tau != 1 after the skipped tokens, trained at 1: the weights are not all 1, and stay capped.
        assert 0 < line["importance_ratio_min"] <= line["importance_ratio_max"] <= 2.0
        assert line["importance_ratio_min"] < 0.999 or line["importance_ratio_max"] > 1.001


def test_the_hf_policy_reports_the_temperature_and_entropy_where_a_reply_opens_and_closes(checkpoint):
    from sandmle.agents import SamplingParams, make_policy
    from sandmle.agents.policies.schedule import sampling_schedule
    from sandmle.rl.config import load_train_config
    from sandmle.rl.rollouts import reply_edge_means

    values = load_train_config({"model": "m", "tasks": ["t"], "output_dir": "o", **ANNEALED}).values
    sampling = SamplingParams(max_tokens=8, seed=5, **sampling_schedule(values))
    policy = make_policy(f"hf:{checkpoint}")
    reply = policy.generate([{"role": "user", "content": "Write."}], sampling=sampling)
    usage = reply.usage
    assert usage["temperature_first"] == 1.0  # a skipped (template) token
    assert len(reply.completion_ids) < 4 or usage["temperature_last"] == pytest.approx(0.1)  # cooled to the floor
    assert len(reply.completion_ids) < 4 or usage["entropy_last"] < usage["entropy_first"]
    means = reply_edge_means([{"turns": [{"role": "assistant", "extra": {"usage": usage}}]}])
    assert means["reply_temperature_first"] == 1.0 and set(means) == {
        "reply_temperature_first", "reply_temperature_last", "reply_entropy_first", "reply_entropy_last"}


def test_episode_scope_runs_the_schedule_on_over_the_episode_and_reply_scope_restarts_it(tmp_path, checkpoint):
    from sandmle.agents import SamplingParams, make_policy
    from sandmle.episodes.runner import EpisodeConfig, run_episode
    from tests.engine.rollout_bundles import make_bundle

    task = make_bundle(tmp_path / "tasks", kind="regression")
    for scope in ("reply", "episode"):
        policy = make_policy(f"hf:{checkpoint}")
        seen = []
        generate = policy.generate_batch

        def spy(requests, generate=generate, seen=seen):
            seen.extend(sampling for _, sampling in requests)
            return generate(requests)

        policy.generate_batch = spy
        sampling = SamplingParams(max_tokens=6, ead=True, ead_warmup_tokens=2, ead_decay=4.0, ead_scope=scope)
        episode = run_episode(task, scaffold="react", policy=policy,
                              config=EpisodeConfig(max_turns=3, sampling=sampling, step_timeout_s=20))
        replies = [turn for turn in episode.turns if turn["role"] == "assistant"]
        assert len(seen) == len(replies) >= 2
        if scope == "reply":
            assert all(s.ead_offset == 0 for s in seen)
        else:  # each reply starts where the episode's sampled tokens left off
            totals = [sum(len(r["completion_ids"]) for r in replies[:k]) for k in range(len(replies))]
            assert [s.ead_offset for s in seen] == totals and totals[1] > 0


@pytest.mark.parametrize(("changes", "key", "words"), [
    ({"importance_sampling": "off"}, "importance_sampling", "needs importance weights"),
    ({"temperature_min": 1.5}, "temperature_min", "above temperature_max"),
    ({"anneal_scope": "turn"}, "anneal_scope", ""),
    ({"temperature_schedule": "cosine"}, "temperature_schedule", ""),
])
def test_annealed_settings_that_cannot_work_are_refused_with_the_key(tmp_path, changes, key, words):
    from sandmle.settings import ConfigError

    with pytest.raises(ConfigError) as refused:
        config_for(tmp_path, tmp_path / "model", **changes)
    assert refused.value.key == key and words in str(refused.value)


def test_annealed_with_vllm_in_training_is_refused_before_any_model_loads(tmp_path):
    pytest.importorskip("vllm")
    from sandmle.settings import ConfigError

    with pytest.raises(ConfigError, match="temperature_schedule: annealed trains on the hf backend"):
        config_for(tmp_path, tmp_path / "model", use_vllm=True)
