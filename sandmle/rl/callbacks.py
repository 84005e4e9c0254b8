"""Trainer callbacks that turn TRL's steps into metrics.jsonl lines, checkpoints with curriculum state, and stops."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from transformers import TrainerCallback

from sandmle.rl.rollouts import step_metrics


class StepReporter(TrainerCallback):
    """Writes one line per optimizer step; a step that saves reports its checkpoint in the same line.

    transformers logs a step before it saves it, so a saving step's line waits for on_save.
    """

    def __init__(self, files: Any, *, on_step: Callable[[dict], None] | None,
                 should_stop: Callable[[], bool] | None, provenance: dict | None = None) -> None:
        self.files = files
        self.provenance = provenance  # written into every checkpoint folder (sandmle/rl/provenance.py)
        self.on_step = on_step
        self.should_stop = should_stop
        self.stopped = False
        self.checkpoints: list[str] = []
        self.deferred: dict | None = None
        self.last_reported = 0
        self.step_started = time.monotonic()

    def step_fields(self, state: Any) -> dict:
        return {}

    def on_train_begin(self, args, state, control, **kwargs):
        self.step_started = time.monotonic()
        self.last_reported = state.global_step

    def on_step_end(self, args, state, control, **kwargs):
        if self.should_stop is not None and self.should_stop():
            self.stopped = True
            control.should_save = True
            control.should_training_stop = True
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        if "loss" not in logs or state.global_step <= self.last_reported:
            return
        now = time.monotonic()
        line = {"step": state.global_step, **self.step_fields(state),
                "loss": logs.get("loss"), "grad_norm": logs.get("grad_norm"),
                "learning_rate": logs.get("learning_rate"), "step_s": now - self.step_started}
        for stat in ("min", "mean", "max"):  # TRL's vLLM importance weights, when the run applies them
            if f"sampling/importance_sampling_ratio/{stat}" in logs:
                line[f"importance_ratio_{stat}"] = logs[f"sampling/importance_sampling_ratio/{stat}"]
        # Under rollout_mode async the rollouts ran beside the last update: only the wait for them holds a step up.
        waited = line["rollout_wait_s"] if "rollout_wait_s" in line else line.get("rollout_s", 0.0)
        line["update_s"] = max(line["step_s"] - waited - line.get("eval_s", 0.0), 0.0)
        self.step_started = now
        self.last_reported = state.global_step
        if control.should_save:
            self.deferred = line
        else:
            self.emit(line, None)

    def on_save(self, args, state, control, **kwargs):
        checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if self.provenance is not None and state.is_world_process_zero:
            from sandmle.rl.provenance import write_provenance

            write_provenance(checkpoint, self.provenance)
        self.save_extra(checkpoint)
        self.checkpoints.append(str(checkpoint))
        if self.deferred is not None:
            self.emit(self.deferred, str(checkpoint))
            self.deferred = None

    def save_extra(self, checkpoint: Path) -> None:
        pass

    def emit(self, line: dict, checkpoint: str | None) -> None:
        self.files.append_metrics(line)
        if self.on_step is not None:
            self.on_step({**line, "checkpoint": checkpoint, **self.callback_extra(line)})

    def callback_extra(self, line: dict) -> dict:
        return {}


class RunCallback(StepReporter):
    """The GRPO run's reporter: rollout metrics, periodic evaluation, curriculum state beside each checkpoint."""

    def __init__(self, run: Any) -> None:
        from sandmle.rl.provenance import training_provenance

        super().__init__(run.files, on_step=run.on_step, should_stop=run.should_stop,
                         provenance=training_provenance(run.config))
        self.run = run

    def on_step_end(self, args, state, control, **kwargs):
        config = self.run.config
        if config.eval_tasks and config.eval_every and state.global_step % config.eval_every == 0:
            self.run.pending_eval = self.run.evaluate(self.run.trainer, state.global_step)
        control = super().on_step_end(args, state, control, **kwargs)
        self.run.stopped = self.stopped
        return control

    def step_fields(self, state: Any) -> dict:
        config = self.run.config
        fields = step_metrics(self.run.current, group_size=config.group_size,
                              reward_scheme=config.reward) if self.run.current else {}
        fields.update(self.run.pending_eval)
        fields.update(getattr(self.run, "environment_metrics", {}))
        fields.update(getattr(self.run, "async_metrics", {}))
        self.run.pending_eval = {}
        return fields

    def save_extra(self, checkpoint: Path) -> None:
        self.run.files.write_curriculum(checkpoint, self.run.curriculum_state(), rank=self.run.rank)

    def on_save(self, args, state, control, **kwargs):
        super().on_save(args, state, control, **kwargs)
        self.run.checkpoints = list(dict.fromkeys(self.run.checkpoints + self.checkpoints))

    def callback_extra(self, line: dict) -> dict:
        return {"trajectories": str(self.run.files.trajectory_path(line["step"]))}
