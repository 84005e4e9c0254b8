"""Rows of the training side: rollout batches and their trajectories, evaluation campaigns and their episodes,
training runs and latency studies."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.models import SynthesizedTask, TaskSet


class RolloutBatch(Job):
    class Scaffold(models.TextChoices):
        REACT = "react"
        AIDE = "aide"
        AIRA = "aira"
        MLE_AGENT = "mle_agent"

    class Feedback(models.TextChoices):
        NONE = "none"
        VALIDATE = "validate"
        SCORE = "score"

    name = models.CharField(max_length=200, blank=True, default="")
    task_set = models.ForeignKey(TaskSet, on_delete=models.PROTECT, related_name="rollout_batches")
    scaffold = models.CharField(max_length=16, choices=Scaffold.choices)
    policy = models.CharField(max_length=500)  # baseline | openai:MODEL@URL | hf:PATH
    samples = models.PositiveIntegerField(default=1)
    concurrency = models.PositiveIntegerField(default=2)
    feedback = models.CharField(max_length=16, choices=Feedback.choices, default=Feedback.SCORE)
    max_turns = models.PositiveIntegerField(default=15)
    queue = models.CharField(max_length=16, default="sandbox")
    task_names = ("workers.rollouts.run_rollout_batch",)
    summary = models.JSONField(default=dict, blank=True)

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["-created_at"], name="rollout_created")]  # lists: newest first


class Trajectory(models.Model):
    batch = models.ForeignKey(RolloutBatch, on_delete=models.CASCADE, related_name="trajectories")
    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="trajectories")
    sample_index = models.PositiveIntegerField()
    termination = models.CharField(max_length=32)
    valid_submission = models.BooleanField(default=False)
    milestone = models.CharField(max_length=16, blank=True, default="")
    score = models.FloatField(null=True, blank=True)
    reward = models.FloatField(default=0.0)  # the dense reward, the training default
    format_rate = models.FloatField(default=0.0)
    n_turns = models.PositiveIntegerField(default=0)
    wall_s = models.FloatField(default=0.0)
    record = models.JSONField()  # the engine's Trajectory.to_dict(): turns, tokens, masks, grade, rewards
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task_id", "sample_index"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "task", "sample_index"], name="one_trajectory_per_sample")
        ]
        # A task's rollout statistics (task and queue pages) aggregate these columns only: the index covers them,
        # so 100,000 trajectories with their heavy records are never read for a list.
        indexes = [models.Index(fields=["task", "milestone", "valid_submission", "reward"], name="traj_task_stats")]


class EvalCampaign(Job):
    """Policies x scaffolds x a task set x seeds; the engine's CampaignSpec as JSON, its files under out_dir."""

    name = models.CharField(max_length=200, blank=True, default="")
    task_set = models.ForeignKey(TaskSet, on_delete=models.PROTECT, related_name="campaigns")
    spec = models.JSONField(default=dict)  # CampaignSpec.to_dict() minus the task paths, which come from task_set
    out_dir = models.CharField(max_length=500, blank=True, default="")
    queue = models.CharField(max_length=16, default="sandbox")
    task_names = ("workers.evaluation.run_campaign",)
    report = models.JSONField(default=dict, blank=True)  # transfer_report() of the episodes so far

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["-created_at"], name="campaign_created")]  # lists: newest first

    @property
    def total_episodes(self) -> int:
        return len(self.spec.get("policies", [])) * len(self.spec.get("scaffolds", [])) * \
            int(self.spec.get("seeds", 1)) * self.task_set.tasks.count()


class CampaignEpisode(models.Model):
    """One finished episode of a campaign, keyed as the engine keys it (policy|scaffold|task|seed)."""

    campaign = models.ForeignKey(EvalCampaign, on_delete=models.CASCADE, related_name="episodes")
    key = models.CharField(max_length=800)
    policy = models.CharField(max_length=500)
    scaffold = models.CharField(max_length=16)
    task_id = models.CharField(max_length=100)
    seed = models.PositiveIntegerField()
    milestone = models.CharField(max_length=16, blank=True, default="")
    valid_submission = models.BooleanField(default=False)
    score = models.FloatField(null=True, blank=True)
    n_turns = models.PositiveIntegerField(default=0)
    record = models.JSONField()  # the engine's episode record: key, policy, scaffold, task_id, seed, report, trajectory

    class Meta:
        ordering = ["policy", "scaffold", "task_id", "seed"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="one_episode_per_campaign_key")]
        # A cell's episodes: filtered by campaign, policy and scaffold, in the list's order.
        indexes = [models.Index(fields=["campaign", "policy", "scaffold", "task_id", "seed"], name="episode_cell")]


class TrainingRun(Job):
    """A GRPO or SFT job on a task set; `config` is the engine's resolved TrainConfig.to_dict(), files in output_dir."""

    class Kind(models.TextChoices):
        GRPO = "grpo"
        SFT = "sft"

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


class LatencyStudy(Job):
    """The paper's per-step speed-up, measured on the workers: a task's spec at full scale (or a real table a curator
    uploaded) against its synthesized size, the same reference pipelines through the same sandbox, `seeds` repeats."""

    name = models.CharField(max_length=200, blank=True, default="")
    task = models.ForeignKey(SynthesizedTask, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="latency_studies")
    # Or a seed dataset: a task spec is drawn from its DNA on the worker (no calibration: steps are timed, not graded).
    seed = models.ForeignKey("tasks_app.Seed", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="latency_studies")
    table_path = models.CharField(max_length=500, blank=True, default="")  # the uploaded CSV, under the data dir
    table_name = models.CharField(max_length=200, blank=True, default="")
    target = models.CharField(max_length=200, blank=True, default="")
    full_rows = models.PositiveIntegerField(null=True, blank=True)  # a table: at most this many training rows
    seeds = models.PositiveIntegerField(default=3)
    pipelines = models.JSONField(default=list)
    queue = models.CharField(max_length=16, default="sandbox")
    task_names = ("workers.latency.run_latency_study",)
    result = models.JSONField(default=dict, blank=True)  # the engine's study: runs per seed, medians, speedup

    class Meta(Job.Meta):
        verbose_name_plural = "latency studies"

    @property
    def source_label(self) -> str:
        if self.table_name:
            return f"table {self.table_name} ({self.target})"
        if self.seed_id:
            return f"seed {self.seed.name}" if self.seed else "a deleted seed"
        return f"task {self.task.task_id}" if self.task else "a deleted task"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("latency-detail", kwargs={"study_id": self.id})


# The audits' rows live in their feature folder; imported here so Django registers them with this app.
from training_app.audits.models import AuditVerdict, DegenerateScore, TaskSetAudit  # noqa: E402,F401
