"""GRPO with `use_vllm: true, vllm_mode: colocate` on vLLM's CPU build: two steps of real episodes, and the
trainer's weights reach vLLM after each update (its sampling logprobs are those of the checkpoint just saved)."""

from __future__ import annotations

import json
import os

import pytest

from tests.engine.rollout_bundles import make_bundle

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = [pytest.mark.torch, pytest.mark.vllm]


def forward_logprobs(model, ids: list[int], mask: list[int]) -> list[float]:
    """log p(token) at every masked-in position of one sequence under `model` (temperature 1, no top-p)."""
    import torch

    with torch.no_grad():
        log_probs = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0].float(), dim=-1)
    return [float(log_probs[position - 1, ids[position]]) for position, bit in enumerate(mask) if bit]


def test_two_colocate_steps_sync_the_trained_weights_into_vllm(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("vllm")
    torch.set_num_threads(1)
    from transformers import AutoModelForCausalLM

    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo
    from sandmle.rl.rollouts import default_episode
    from sandmle.rl.tiny_model import VLLM_CPU_HEAD_DIM, build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint", head_dim=VLLM_CPU_HEAD_DIM)
    task = make_bundle(tmp_path / "tasks", kind="binary")

    def episode(task_dir, **options):
        # A real episode through the sandbox and the grader; its reward is its first sampled token's id, so the random
        # model's group has a spread (the grade gives every reply of an untrained model the same 0) and the update
        # moves the weights.
        trajectory = default_episode(task_dir, **options)
        trajectory.rewards["dense"]["total"] = trajectory.tokens[0]["completion_ids"][0] / 400.0
        return trajectory

    config = load_train_config({"model": str(checkpoint), "tasks": [str(task)], "output_dir": str(tmp_path / "run"),
                                "group_size": 4, "tasks_per_step": 1, "steps": 2, "max_turns": 1,
                                "max_tokens": 8, "save_every": 1, "learning_rate": 0.05, "concurrency": 4,
                                "generation_wait_s": 60.0,  # one flush per turn: all four episodes' turns
                                "use_vllm": True, "vllm_mode": "colocate"})
    lines = []
    result = train_grpo(config, on_step=lines.append, episode_fn=episode)
    assert result["steps_done"] == 2 and [line["step"] for line in lines] == [1, 2]
    # Token-level truncated importance weights by default, as the trainer applied them: each token's weight is its
    # trainer/vLLM probability ratio cut at the cap (vLLM samples in bfloat16 here, so the ratios sit near 1).
    assert {key: result["trainer"][key] for key in ("importance_sampling", "importance_sampling_cap", "loss_type",
                                                    "use_vllm")} == {"importance_sampling": "token_truncate",
                                                                     "importance_sampling_cap": 2.0,
                                                                     "loss_type": "grpo", "use_vllm": True}
    for line in lines:
        assert 0.5 < line["importance_ratio_min"] <= line["importance_ratio_mean"] <= line["importance_ratio_max"] <= 2.0
    for line in lines:  # one vLLM call answered all four episodes' turn
        assert line["generate_calls"] == 1 and line["mean_batch_size"] == 4.0 and line["tokens_per_s"] > 0

    initial = AutoModelForCausalLM.from_pretrained(str(checkpoint)).eval()
    updated = AutoModelForCausalLM.from_pretrained(str(tmp_path / "run" / "checkpoint-1")).eval()
    for step, sampled_by, other in ((1, initial, updated), (2, updated, initial)):
        trajectories = [json.loads(line) for line in open(lines[step - 1]["trajectories"])]
        assert len(trajectories) == 4 and all(t["error"] is None for t in trajectories)
        for trajectory in trajectories:
            sequence = trajectory["sequence"]
            recorded = [value for value, bit in zip(sequence["logprobs"], sequence["mask"]) if bit]
            # vLLM sampled step 1 with the initial weights (no update yet: unchanged) and step 2 with step 1's update.
            # (vLLM runs the float32 checkpoint in bfloat16 on CPU: up to about 0.015 apart; the update moves them by 2.)
            assert recorded == pytest.approx(forward_logprobs(sampled_by, sequence["ids"], sequence["mask"]), abs=0.05)
        gaps = [abs(a - b) for t in trajectories
                for a, b in zip(forward_logprobs(sampled_by, t["sequence"]["ids"], t["sequence"]["mask"]),
                                forward_logprobs(other, t["sequence"]["ids"], t["sequence"]["mask"]))]
        assert max(gaps) > 0.5  # the update moved these logprobs ten times the tolerance above  # the update moved these logprobs far more than the tolerance above
