"""One GRPO step through SandMLEGRPOTrainer's own loss on a fixed batch of 16 episodes split over however many
processes run it (torchrun, gloo on CPU): each episode's weight in the step, the step's logged loss and the gradient
DDP leaves; then one real step of TRL's training loop on the same episodes. test_rl_ddp_weights.py runs it in 2
processes and in 1 and compares.

An episode's weight is read off the advantages: the step is on-policy (the ratio is 1), so each trained episode's
token mean is -advantage and d(step objective)/d(advantage) is minus its weight. DDP averages the gradients over the
processes, so the objective it descends is the mean of the processes' losses: a weight is -advantage.grad / processes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

EPISODES = 16
GROUP_SIZE = 4
TASKS_PER_STEP = EPISODES // GROUP_SIZE
PROMPT_TOKENS, COMPLETION_TOKENS = 5, 10
# Masked whole (env_mask all 0, as a timed-out episode is): 1 of rank 0's 8 episodes and 5 of rank 1's 8 when two
# processes split the batch, as issue 66 measured.
MASKED = (2, 8, 9, 11, 13, 15)
FIXED_NORMALIZER = 20.0  # loss_normalizer as a number: every trained episode weighs 1/20 (the release: 256)


def fixed_batch() -> dict:
    """16 episodes of different lengths (so token means differ from token sums), 6 of them masked whole."""
    import torch

    generator = torch.Generator().manual_seed(66)
    lengths = torch.randint(3, COMPLETION_TOKENS + 1, (EPISODES,), generator=generator)
    completion_mask = (torch.arange(COMPLETION_TOKENS)[None, :] < lengths[:, None]).long()
    tool_mask = torch.ones(EPISODES, COMPLETION_TOKENS, dtype=torch.long)
    tool_mask[:, 1] = 0  # a tool observation inside every reply: not the model's tokens
    tool_mask[list(MASKED)] = 0
    return {"prompt_ids": torch.randint(3, 300, (EPISODES, PROMPT_TOKENS), generator=generator),
            "prompt_mask": torch.ones(EPISODES, PROMPT_TOKENS, dtype=torch.long),
            "completion_ids": torch.randint(3, 300, (EPISODES, COMPLETION_TOKENS), generator=generator),
            "completion_mask": completion_mask, "tool_mask": tool_mask,
            "advantages": torch.randn(EPISODES, generator=generator)}


def build_trainer(checkpoint: Path, output_dir: Path):
    """The trainer train_grpo builds for a 4-task, group-4 step (micro-batches of 4), on this process's share."""
    from datasets import Dataset

    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import load_model, trainer_args
    from sandmle.rl.grpo_trainer import SandMLEGRPOTrainer

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    config = load_train_config({"model": str(checkpoint), "tasks": ["t"], "output_dir": str(output_dir),
                                "group_size": GROUP_SIZE, "tasks_per_step": TASKS_PER_STEP})
    tokenizer, model, _ = load_model(config)
    return SandMLEGRPOTrainer(model=model, reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
                              args=trainer_args(config), train_dataset=Dataset.from_dict({"prompt": ["x"]}),
                              processing_class=tokenizer, rollout_func=lambda prompts, trainer: {})


def step(trainer, *, per_process_count: bool = False) -> dict:
    """This process's share of the batch through one optimizer step's micro-batches (forward and backward through
    the DDP-wrapped model), with the trainer's own count of the step's trained episodes; `per_process_count` counts
    this process's alone, as the loss did before issue 66 (the control)."""
    import torch

    from sandmle.rl.grpo_trainer import trained_episodes

    accelerator = trainer.accelerator
    rank, processes = accelerator.process_index, accelerator.num_processes
    share = EPISODES // processes
    batch = fixed_batch()
    advantages = batch.pop("advantages").requires_grad_(True)
    rows = slice(rank * share, (rank + 1) * share)
    local = {name: tensor[rows] for name, tensor in batch.items()}
    trainer.model.train()
    trainer.model.zero_grad()
    if trainer.model_wrapped is trainer.model:
        trainer.model_wrapped = accelerator.prepare_model(trainer.model)  # DDP under several processes
    wrapped = trainer.model_wrapped
    micro = trainer.args.per_device_train_batch_size
    trainer.current_gradient_accumulation_steps = share // micro  # the Trainer's loop sets it each step
    if per_process_count:
        trainer._trained_episodes = trained_episodes(local) * processes
    else:
        trainer._trained_episodes = trainer.step_trained_episodes(local)
    loss_sum = torch.zeros(())
    for start in range(0, share, micro):
        inputs = {name: tensor[start:start + micro] for name, tensor in local.items()}
        inputs["advantages"] = advantages[rows][start:start + micro]
        loss = trainer._compute_loss(wrapped, inputs)
        loss.backward()
        loss_sum += loss.detach()
    # The Trainer logs the mean over processes of each one's summed micro-batch losses.
    logged_loss = accelerator.reduce(loss_sum, reduction="mean")
    weights = -accelerator.reduce(advantages.grad, reduction="sum") / processes
    return {"weights": weights.detach().clone(), "logged_loss": float(logged_loss),
            "trained_episodes": trainer._trained_episodes,
            "grads": {name: p.grad.detach().clone() for name, p in trainer.model.named_parameters()
                      if p.grad is not None}}


REWARDS = [0.1, 0.9, 0.4, 0.7, 0.2, 0.2, 0.8, 0.5, 0.3, 0.6, 0.9, 0.1, 0.0, 1.0, 0.4, 0.6]


def train_one_step(checkpoint: Path, output_dir: Path) -> dict:
    """One real optimizer step of TRL's loop at learning rate 0 on the same 16 episodes, returned by the rollout
    function (each process its share, as GRPORun.rollout returns its own), scored by fixed rewards: generation, the
    count of trained episodes, TRL's shuffle into micro-batches and DDP all as a run has them. Returns the logged
    loss and the gradient the optimizer would have applied."""
    import torch
    from datasets import Dataset
    from transformers import TrainerCallback

    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import load_model, trainer_args
    from sandmle.rl.grpo_trainer import SandMLEGRPOTrainer

    config = load_train_config({"model": str(checkpoint), "tasks": ["t"], "output_dir": str(output_dir),
                                "group_size": GROUP_SIZE, "tasks_per_step": TASKS_PER_STEP, "steps": 1,
                                "learning_rate": 0.0, "save_every": 1000})
    tokenizer, model, _ = load_model(config)
    batch = fixed_batch()
    lengths = batch["completion_mask"].sum(-1).tolist()

    def rollout(prompts: list, trainer) -> dict:
        share = len(prompts)
        first = trainer.accelerator.process_index * share
        episodes = range(first, first + share)
        return {"prompt_ids": [batch["prompt_ids"][e].tolist() for e in episodes],
                "completion_ids": [batch["completion_ids"][e, :lengths[e]].tolist() for e in episodes],
                "env_mask": [batch["tool_mask"][e, :lengths[e]].tolist() for e in episodes],
                "logprobs": [[0.0] * lengths[e] for e in episodes],
                "episode_reward": [REWARDS[e] for e in episodes]}

    seen: dict = {}

    class Capture(TrainerCallback):
        def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
            seen["grads"] = {name.removeprefix("module."): p.grad.detach().clone()
                             for name, p in model.named_parameters() if p.grad is not None}

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                seen["logged_loss"] = logs["loss"]

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    processes = int(os.environ.get("WORLD_SIZE", "1"))
    dataset = Dataset.from_dict({"prompt": [f"task slot {i}" for i in range(TASKS_PER_STEP * processes)]})
    trainer = SandMLEGRPOTrainer(model=model, reward_funcs=[lambda episode_reward, **_: episode_reward],
                                 args=trainer_args(config), train_dataset=dataset, processing_class=tokenizer,
                                 rollout_func=rollout, callbacks=[Capture()])
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # the test reads the log through Capture
    trainer.train()
    return {"trained_episodes": trainer._trained_episodes, **seen}


def main(checkpoint: str, out_dir: str) -> None:
    import torch

    torch.set_num_threads(1)
    trainer = build_trainer(Path(checkpoint), Path(out_dir) / "run")
    results = {"whole_step": step(trainer), "per_process": step(trainer, per_process_count=True),
               "processes": trainer.accelerator.num_processes}
    trainer.loss_normalizer = FIXED_NORMALIZER
    results["fixed"] = step(trainer)
    results["train"] = train_one_step(Path(checkpoint), Path(out_dir) / "train")
    if trainer.accelerator.is_main_process:
        torch.save(results, Path(out_dir) / "step.pt")


if __name__ == "__main__":
    main(*sys.argv[1:])
