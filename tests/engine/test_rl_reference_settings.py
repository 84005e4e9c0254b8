"""The reference trainer's settings reach TRL as named: one real CPU step of the tiny Qwen3 per setting, its loss
computed by hand from the step's own trajectories (rewards, masks, token counts) and read back from the trainer."""

from __future__ import annotations

import json
import os
import statistics

import pytest

from tests.engine.rl_env import checkpoint, make_dummy_tasks, written_token_episode  # noqa: F401 (a fixture)

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def hostile_mix_episode(task_dir, **options):
    """The tiny written-token episode, with two of every four episodes masked: one spent its time budget, one had 1
    of its 2 sandbox steps time out (a share of 0.5). Both took turns and have a reward from their grade."""
    trajectory = written_token_episode(task_dir, **options)
    kind = options["sample_index"] % 4
    if kind == 0:
        trajectory.termination = "time_budget"
    if kind == 1:
        trajectory.turns += [{"role": "tool", "step": {"termination": "ok"}},
                             {"role": "tool", "step": {"termination": "timeout"}}]
    return trajectory


def expected_loss(records: list[dict], *, loss_type: str, masked_in_baseline: str, share: float, group_size: int):
    """On-policy (ratio 1) every sampled token's loss is -advantage; aggregate as the loss type says."""
    terms = []  # (advantage, sampled tokens) of each trained episode
    for start in range(0, len(records), group_size):
        group = records[start:start + group_size]
        masked = []
        for record in group:
            steps = [t["step"] for t in record["turns"] if t.get("step")]
            timeouts = sum(s["termination"] == "timeout" for s in steps) / len(steps) if steps else 0.0
            masked.append(record["termination"] == "time_budget" or timeouts > share)
        baseline = [r["rewards"]["dense"]["total"] for r, m in zip(group, masked)
                    if masked_in_baseline == "reference" or not m]
        mean, std = statistics.fmean(baseline), statistics.stdev(baseline)
        for record, m in zip(group, masked):
            if not m:
                advantage = (record["rewards"]["dense"]["total"] - mean) / (std + 1e-4)
                terms.append((advantage, sum(record["sequence"]["mask"][record["sequence"]["prompt_length"]:])))
    if loss_type == "grpo":  # the mean over trained episodes of each one's token mean
        return -sum(a for a, _ in terms) / len(terms), len(terms)
    return -sum(a * n for a, n in terms) / sum(n for _, n in terms), len(terms)  # dapo: one token mean


@pytest.mark.parametrize("loss_type, masked_in_baseline, share", [
    ("grpo", "reference", 0.2), ("grpo", "exclude", 0.2), ("dapo", "reference", 0.2), ("grpo", "reference", 1.0)])
def test_one_step_uses_the_loss_baseline_and_timeout_rule_it_was_given(tmp_path, checkpoint, loss_type,
                                                                      masked_in_baseline, share):
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo

    config = load_train_config({
        "model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 2), "output_dir": str(tmp_path / "run"),
        "group_size": 4, "tasks_per_step": 2, "steps": 1, "learning_rate": 1e-3, "max_tokens": 8,
        "save_every": 100, "seed": 5, "concurrency": 1, "loss_type": loss_type, "masked_in_baseline": masked_in_baseline,
        "mask_step_timeout_share": share})
    lines = []
    result = train_grpo(config, episode_fn=hostile_mix_episode, on_step=lines.append)
    assert result["trainer"]["loss_type"] == loss_type and result["trainer"]["weight_decay"] == 0.01
    records = [json.loads(line) for line in open(lines[0]["trajectories"])]
    loss, trained = expected_loss(records, loss_type=loss_type, masked_in_baseline=masked_in_baseline, share=share,
                                  group_size=4)
    # Two micro-batches of 4 (accumulated): the loss is still one mean over the whole step's trained episodes.
    assert lines[0]["loss"] == pytest.approx(loss, rel=1e-3, abs=1e-5)
    masked = 8 - trained
    assert lines[0]["masked_episodes"] == masked == (2 if share == 1.0 else 4)
    assert lines[0]["mask_reasons"] == ({"time_budget": 2} if share == 1.0 else {"time_budget": 2, "step_timeouts": 2})


@pytest.mark.parametrize("mode", ["off", "token_truncate", "token_mask", "sequence_truncate", "sequence_mask"])
def test_each_importance_sampling_mode_reaches_trl_as_named(tmp_path, mode):
    """The colocate test trains with the default (token_truncate) through vLLM's CPU build and reads back the ratios;
    each other mode must reach TRL's GRPOConfig under its own name, with the cap."""
    pytest.importorskip("vllm")
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import trainer_args

    config = load_train_config({"model": "m", "tasks": ["t"], "output_dir": str(tmp_path / "run"), "use_vllm": True,
                                "importance_sampling": mode, "importance_sampling_cap": 4.5, "tasks_per_step": 1})
    args = trainer_args(config)
    assert args.vllm_importance_sampling_correction == (mode != "off") and args.loss_type == "grpo"
    if mode != "off":
        assert args.vllm_importance_sampling_mode == mode and args.vllm_importance_sampling_clip_max == 4.5
