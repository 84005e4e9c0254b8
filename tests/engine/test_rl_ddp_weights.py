"""GRPO's loss in 2 training processes (torchrun, gloo on CPU, DDP) weighs every trained episode of the step as one
process does on the whole batch: 1 / the step's trained episodes, to 1e-6, and the gradient DDP leaves is the
1-process one, though rank 0 masks 1 of its 8 episodes and rank 1 masks 5; one real step of TRL's training loop on
those episodes logs the same loss and leaves the same gradient in 2 processes as in 1. The count of each process's own episodes
(the loss before issue 66) is the control: it weighs rank 0's episodes 1/14 and rank 1's 1/6."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine import ddp_loss_step
from tests.engine.ddp_loss_step import EPISODES, FIXED_NORMALIZER, MASKED

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch
REPO = Path(__file__).resolve().parents[2]
TRAINED = [episode for episode in range(EPISODES) if episode not in MASKED]


def two_process_step(checkpoint: Path, out_dir: Path) -> dict:
    import torch

    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO), "TOKENIZERS_PARALLELISM": "false"}
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                           "-m", "tests.engine.ddp_loss_step", str(checkpoint), str(out_dir)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]
    return torch.load(out_dir / "step.pt")


def test_two_processes_weigh_each_trained_episode_as_one_process_does(tmp_path):
    import torch

    from sandmle.rl.tiny_model import build_tiny_checkpoint

    torch.set_num_threads(1)
    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint")
    two = two_process_step(checkpoint, tmp_path / "two")
    trainer = ddp_loss_step.build_trainer(checkpoint, tmp_path / "one" / "run")
    assert two["processes"] == 2 and trainer.accelerator.num_processes == 1
    # One process trains the whole batch in 4 micro-batches of 4; each of the two, its 8 episodes in 2.
    assert trainer.args.gradient_accumulation_steps == 4
    one = ddp_loss_step.step(trainer)
    trainer.loss_normalizer = FIXED_NORMALIZER
    one_fixed = ddp_loss_step.step(trainer)

    whole = two["whole_step"]
    assert whole["trained_episodes"] == one["trained_episodes"] == len(TRAINED) == 10
    expected = torch.tensor([0.1 if episode in TRAINED else 0.0 for episode in range(EPISODES)])
    assert torch.allclose(whole["weights"], expected, rtol=0, atol=1e-6)
    assert torch.allclose(whole["weights"], one["weights"], rtol=0, atol=1e-6)
    # The logged loss is the step's sequence-mean-token-mean: on-policy, each trained token mean is -advantage.
    advantages = ddp_loss_step.fixed_batch()["advantages"]
    assert whole["logged_loss"] == pytest.approx(-advantages[TRAINED].mean().item(), abs=1e-6)
    assert whole["logged_loss"] == pytest.approx(one["logged_loss"], abs=1e-6)
    assert whole["grads"].keys() == one["grads"].keys() and len(one["grads"]) > 10
    for name, gradient in one["grads"].items():
        assert torch.allclose(whole["grads"][name], gradient, rtol=0, atol=1e-6), name

    # The control: each process's own count weighs rank 0's 7 trained episodes 1/14 and rank 1's 3 1/6, and logs
    # the mean of the two processes' means.
    alone = two["per_process"]["weights"]
    assert torch.allclose(alone[[e for e in TRAINED if e < 8]], torch.tensor(1 / 14), atol=1e-6)
    assert torch.allclose(alone[[e for e in TRAINED if e >= 8]], torch.tensor(1 / 6), atol=1e-6)
    assert abs(two["per_process"]["logged_loss"] - whole["logged_loss"]) > 0.05

    # The same episodes through one real step of TRL's loop (the rollout function, the count where the step is
    # scored, TRL's shuffle into micro-batches, DDP): the logged loss and the gradient the optimizer gets agree too.
    trained = ddp_loss_step.train_one_step(checkpoint, tmp_path / "one" / "train")
    assert two["train"]["trained_episodes"] == trained["trained_episodes"] == 10
    assert two["train"]["logged_loss"] == pytest.approx(trained["logged_loss"], abs=1e-6)
    assert two["train"]["grads"].keys() == trained["grads"].keys() == one["grads"].keys()
    for name, gradient in trained["grads"].items():
        assert torch.allclose(two["train"]["grads"][name], gradient, rtol=0, atol=1e-6), name

    # loss_normalizer as a number: every trained episode weighs 1 / that number, in 2 processes as in 1.
    fixed = expected * 10 / FIXED_NORMALIZER
    assert torch.allclose(two["fixed"]["weights"], fixed, rtol=0, atol=1e-6)
    assert torch.allclose(one_fixed["weights"], fixed, rtol=0, atol=1e-6)
