"""Rows of training runs (jobs), their metric lines and checkpoints."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.models import TaskSet


class TrainingRun(Job):
    """A GRPO or SFT job on a task set; `config` is the engine's resolved TrainConfig.to_dict(), files in output_dir."""

    class Kind(models.TextChoices):
        GRPO = "grpo", "GRPO"
        SFT = "sft", "SFT"

    name = models.CharField(max_length=200, blank=True, default="")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.GRPO)
    task_set = models.ForeignKey(TaskSet, on_delete=models.PROTECT, related_name="training_runs")
    config = models.JSONField(default=dict)
    output_dir = models.CharField(max_length=500, blank=True, default="")
    queue = models.CharField(max_length=16, default="gpu")
    task_names = ("workers.training.run_training",)
    # True when the policy is a tiny random model (build_tiny_checkpoint): its curves prove wiring, not learning.
    smoke_model = models.BooleanField(default=False)
    result = models.JSONField(default=dict, blank=True)  # the trainer's return: steps_done, checkpoints, stopped
    # Why the set was not known to be safe when the run was launched (never audited, or its last audit failed).
    audit_warning = models.CharField(max_length=300, blank=True, default="")

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["-created_at"], name="trainrun_created")]  # lists: newest first


class TrainingMetric(models.Model):
    """One line of the run's metrics.jsonl (plus the step's trajectories file)."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="metrics")
    step = models.PositiveIntegerField()
    metrics = models.JSONField(default=dict)

    class Meta:
        ordering = ["step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="one_metric_row_per_run_step")]


class TrainingCheckpoint(models.Model):
    """A checkpoint-<step>/ directory in save_pretrained format, loadable as hf:<path>."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="checkpoints")
    step = models.PositiveIntegerField()
    path = models.CharField(max_length=500)

    class Meta:
        ordering = ["step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="one_checkpoint_per_run_step")]
