"""TRL's GRPO loss on a rollout batch ignores the environment's tokens: distorting their log-probabilities moves
neither the loss nor any gradient, while distorting a model token's does."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def loss_and_grads(trainer, inputs, perturbed_tokens):
    """The trainer's own loss and gradients, with the model's log-probabilities of the given completion tokens
    distorted (scaled and shifted, so the distortion carries gradient too).

    TRL 1.16 scores tokens through the model's fused head (`fused_lm_head=True`), which returns per-token
    log-probabilities aligned with the labels rather than logits, so the hook edits those.
    """
    import torch

    model = trainer.model
    model.zero_grad()

    def distort(module, args, kwargs, output):
        log_probs = output.log_probs
        factor = torch.ones_like(log_probs)
        offset = log_probs.shape[1] - inputs["completion_ids"].shape[1]
        for token in perturbed_tokens:
            factor[:, offset + token] = 3.0
        output.log_probs = log_probs * factor + (factor - 1.0) * 0.7
        return output

    handle = model.register_forward_hook(distort, with_kwargs=True)
    try:
        loss = trainer._compute_loss(model, inputs)
        loss.backward()
    finally:
        handle.remove()
    return loss.detach().clone(), {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def test_masked_tokens_do_not_reach_loss_or_gradient(tmp_path):
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer

    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import load_model, trainer_args
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    torch.set_num_threads(1)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    checkpoint = build_tiny_checkpoint(tmp_path / "checkpoint")
    config = load_train_config({"model": str(checkpoint), "tasks": ["t"], "output_dir": str(tmp_path / "run"),
                                "group_size": 2, "tasks_per_step": 1})
    tokenizer, model, _ = load_model(config)
    trainer = GRPOTrainer(model=model, reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
                          args=trainer_args(config), train_dataset=Dataset.from_dict({"prompt": ["x"]}),
                          processing_class=tokenizer, rollout_func=lambda prompts, trainer: {})
    prompt_length, completion_length = 5, 10
    generator = torch.Generator().manual_seed(1)
    # Reply tokens 0-2, a tool observation 3-6, reply tokens 7-9 (the runner's layout for two turns).
    tool_mask = torch.tensor([[1, 1, 1, 0, 0, 0, 0, 1, 1, 1]] * 2)
    inputs = {"prompt_ids": torch.randint(3, 300, (2, prompt_length), generator=generator),
              "prompt_mask": torch.ones(2, prompt_length, dtype=torch.long),
              "completion_ids": torch.randint(3, 300, (2, completion_length), generator=generator),
              "completion_mask": torch.ones(2, completion_length, dtype=torch.long),
              "tool_mask": tool_mask, "advantages": torch.tensor([1.0, -1.0]),
              "num_items_in_batch": tool_mask.sum()}
    tool_positions = [j for j in range(completion_length) if not tool_mask[0, j]]
    model_positions = [7]

    base_loss, base_grads = loss_and_grads(trainer, inputs, [])
    tool_loss, tool_grads = loss_and_grads(trainer, inputs, tool_positions)
    assert torch.equal(base_loss, tool_loss)
    assert base_grads.keys() == tool_grads.keys() and base_grads
    assert all(torch.equal(base_grads[name], tool_grads[name]) for name in base_grads)
    _, model_grads = loss_and_grads(trainer, inputs, model_positions)
    assert any(not torch.equal(base_grads[name], model_grads[name]) for name in base_grads)
