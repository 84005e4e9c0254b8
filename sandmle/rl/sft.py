"""The SFT baseline: trajectories exported as a conversational dataset, and TRL's SFTTrainer on the assistant's tokens."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Callable

from sandmle.errors import UsageError
from sandmle.rl.config import TrainConfig, save_resolved
from sandmle.rl.run_files import RunFiles, last_checkpoint
from sandmle.rl.trackers import check_trackers, run_name, tracker_setup
from sandmle.settings import ConfigError
from sandmle.tasks.grade_report import stored_grade


def trajectory_messages(trajectory: dict) -> list[dict]:
    """The conversation as the policy saw it at its last reply (the scaffold's own rendering of every observation),
    plus that reply; rebuilt from the turns when the messages were not recorded."""
    replies = [turn for turn in trajectory.get("turns") or [] if turn.get("role") == "assistant"]
    if replies and replies[-1].get("messages"):
        seen = [{"role": m["role"], "content": m["content"]} for m in replies[-1]["messages"]]
        return seen + [{"role": "assistant", "content": replies[-1].get("text", "")}]
    messages: list[dict] = []
    for turn in trajectory.get("turns") or []:
        if turn.get("role") == "assistant":
            messages.append({"role": "assistant", "content": turn.get("text", "")})
        elif turn.get("role") == "tool" and messages:
            messages.append({"role": "user", "content": f"<observation>\n{turn.get('observation', '')}\n</observation>"})
    return messages


def trajectory_dialect(trajectory: dict) -> str | None:
    """The reply grammar a react episode spoke (studio or sandmle, from the options it ran with); None elsewhere."""
    if trajectory.get("scaffold") != "react":
        return None
    return ((trajectory.get("extra") or {}).get("scaffold_options") or {}).get("dialect", "studio")


def _recorded(trajectory: dict) -> bool:
    replies = [turn for turn in trajectory.get("turns") or [] if turn.get("role") == "assistant"]
    return bool(replies and replies[-1].get("messages"))


def _passes(trajectory: dict, *, min_reward: float | None, milestone: str | None, scaffold: str | None,
            policy: str | None, reward_scheme: str, dialect: str | None = None) -> bool:
    if scaffold is not None and trajectory.get("scaffold") != scaffold:
        return False
    # A dialect's conversation is the scaffold's own messages: rebuilt from the turns, it would read as the studio's.
    if dialect is not None and (trajectory_dialect(trajectory) != dialect or (dialect != "studio"
                                                                             and not _recorded(trajectory))):
        return False
    if policy is not None and trajectory.get("policy") != policy:
        return False
    grade = stored_grade(trajectory.get("grade"))
    if milestone is not None:
        order = ["none", "median", "bronze", "silver", "gold"]
        if grade is None or not grade.valid_submission:
            return False
        reached = grade.milestone or "none"
        if order.index(reached if reached in order else "none") < order.index(milestone):
            return False
    if min_reward is not None:
        reward = (trajectory.get("rewards") or {}).get(reward_scheme, {}).get("total")
        if reward is None or reward < min_reward:
            return False
    return True


def export_sft_dataset(trajectories: Iterable[dict], out: Path, *, min_reward: float | None = None,
                       milestone: str | None = None, scaffold: str | None = None, policy: str | None = None,
                       reward_scheme: str = "dense", scaffold_options: dict | None = None) -> int:
    """Writes one `{"messages": [...]}` line per trajectory that passes every filter; returns the rows written.

    `milestone` keeps valid submissions at that milestone or better (median < bronze < silver < gold).
    `scaffold_options` with a `dialect` (react's, checked by the scaffolds' one validator) keeps the react
    conversations in that dialect, as the policy saw them: the dialect the SFT run will train in.
    """
    dialect = None
    if scaffold_options:
        from sandmle.agents.scaffolds.options import check_scaffold_options

        try:
            dialect = check_scaffold_options(scaffold or "react", scaffold_options).get("dialect")
        except UsageError as error:
            raise ConfigError("scaffold_options", str(error)) from None
    if milestone is not None and milestone not in ("median", "bronze", "silver", "gold"):
        raise ConfigError("milestone", f"{milestone!r}: expected median, bronze, silver or gold")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with out.open("w") as handle:
        for trajectory in trajectories:
            if not _passes(trajectory, min_reward=min_reward, milestone=milestone, scaffold=scaffold, policy=policy,
                           reward_scheme=reward_scheme, dialect=dialect):
                continue
            messages = trajectory_messages(trajectory)
            if not any(m["role"] == "assistant" for m in messages):
                continue
            handle.write(json.dumps({"messages": messages, "task_id": trajectory.get("task_id")}) + "\n")
            written += 1
    return written


def train_sft(config: TrainConfig, *, resume: bool = False, on_step: Callable[[dict], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> dict:
    """TRL's SFTTrainer with assistant_only_loss on the exported conversations; checkpoints as GRPO's (hf:PATH)."""
    if config.kind != "sft":
        raise ConfigError("kind", f"train_sft needs an sft configuration, not {config.kind}")
    if not Path(config.model).is_dir():
        raise ConfigError("model", f"checkpoint directory not found: {config.model}")
    for path in config.dataset:
        if not Path(path).is_file():
            raise ConfigError("dataset", f"file not found: {path}")
    check_trackers(config)
    checkpoint = last_checkpoint(config.output_dir) if resume else None
    if resume and checkpoint is None:
        raise ConfigError("output_dir", f"--resume: no checkpoint-<step>/ in {config.output_dir}")
    import torch
    from datasets import load_dataset
    from transformers import set_seed
    from trl import SFTConfig, SFTTrainer

    from sandmle.rl.callbacks import StepReporter
    from sandmle.rl.grpo import load_model

    set_seed(config.seed)
    files = RunFiles(config.output_dir)
    files.start(config, resumed_step=int(checkpoint.name.rsplit("-", 1)[1]) if checkpoint else 0)
    save_resolved(config, config.output_dir / "config.yaml")
    tokenizer, model, peft_config = load_model(config)
    dataset = load_dataset("json", data_files=list(config.dataset), split="train").select_columns(["messages"])
    report_to, tracker_callbacks = tracker_setup(config)
    args = SFTConfig(output_dir=str(config.output_dir), assistant_only_loss=True, max_length=config.max_length,
                     per_device_train_batch_size=config.batch_size,
                     gradient_accumulation_steps=config.gradient_accumulation_steps,
                     learning_rate=config.learning_rate, num_train_epochs=config.epochs, max_steps=config.steps or -1,
                     save_strategy="steps", save_steps=config.save_every, logging_steps=1, report_to=report_to,
                     run_name=run_name(config), seed=config.seed, use_cpu=not torch.cuda.is_available(),
                     bf16=config.bf16, gradient_checkpointing=config.gradient_checkpointing, disable_tqdm=True,
                     packing=False)
    from sandmle.rl.provenance import training_provenance

    reporter = StepReporter(files, on_step=on_step, should_stop=should_stop, provenance=training_provenance(config))
    trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer,
                         peft_config=peft_config, callbacks=[reporter, *tracker_callbacks])
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    return {"steps_done": trainer.state.global_step, "checkpoints": files.existing_checkpoints(),
            "output_dir": str(config.output_dir), "stopped": reporter.stopped}
