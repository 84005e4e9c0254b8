"""The grpo loss's rescaling to the step's trained episodes leaves a mixture-of-experts router loss as TRL scales it:
on a tiny Qwen3-MoE, SandMLEGRPOTrainer's micro-batch loss is TRL's policy term times rows x accumulation steps /
trained episodes, plus TRL's router term unchanged."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch


def tiny_moe_checkpoint(path):
    """The tiny tokenizer beside a 2-layer Qwen3-MoE (4 experts, 2 a token) that declares a router loss."""
    from transformers import AutoTokenizer, Qwen3MoeConfig, Qwen3MoeForCausalLM

    from sandmle.rl.tiny_model import build_tiny_checkpoint

    directory = build_tiny_checkpoint(path)
    tokenizer = AutoTokenizer.from_pretrained(str(directory))
    config = Qwen3MoeConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                            num_experts=4, num_experts_per_tok=2, num_hidden_layers=2, num_attention_heads=4,
                            num_key_value_heads=2, head_dim=16, router_aux_loss_coef=0.5,
                            eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    Qwen3MoeForCausalLM(config).save_pretrained(str(directory))
    return directory


def test_router_loss_keeps_trl_s_scale(tmp_path):
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer

    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import load_model, trainer_args
    from sandmle.rl.grpo_trainer import SandMLEGRPOTrainer

    torch.set_num_threads(1)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    checkpoint = tiny_moe_checkpoint(tmp_path / "checkpoint")
    config = load_train_config({"model": str(checkpoint), "tasks": ["t"], "output_dir": str(tmp_path / "run"),
                                "group_size": 2, "tasks_per_step": 2})
    tokenizer, model, _ = load_model(config)
    trainer = SandMLEGRPOTrainer(model=model, reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
                                 args=trainer_args(config), train_dataset=Dataset.from_dict({"prompt": ["x"]}),
                                 processing_class=tokenizer, rollout_func=lambda prompts, trainer: {})
    assert trainer.aux_loss_enabled and trainer.router_aux_loss_coef == 0.5
    model.train()
    trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps
    assert trainer.current_gradient_accumulation_steps == 2  # 4 episodes in micro-batches of 2
    trainer._trained_episodes = 3  # one of the step's 4 episodes masked whole
    generator = torch.Generator().manual_seed(3)
    inputs = {"prompt_ids": torch.randint(3, 300, (2, 5), generator=generator),
              "prompt_mask": torch.ones(2, 5, dtype=torch.long),
              "completion_ids": torch.randint(3, 300, (2, 8), generator=generator),
              "completion_mask": torch.ones(2, 8, dtype=torch.long),
              "advantages": torch.tensor([1.5, -0.5])}

    with torch.no_grad():
        ours = trainer._compute_loss(model, inputs)
        trl = GRPOTrainer._compute_loss(trainer, model, inputs)
        trainer.aux_loss_enabled = False
        ours_policy = trainer._compute_loss(model, inputs)
        trl_policy = GRPOTrainer._compute_loss(trainer, model, inputs)
    scale = 2 * 2 / 3  # rows x accumulation steps / trained episodes of the step
    router = trl - trl_policy
    assert router.abs() > 1e-3  # TRL added a router term: 0.5 x the load-balancing loss / 2 accumulation steps
    assert torch.allclose(ours_policy, trl_policy * scale, rtol=0, atol=1e-6)
    assert torch.allclose(ours - ours_policy, router, rtol=0, atol=1e-6)
