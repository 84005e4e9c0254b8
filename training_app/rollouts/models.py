"""Rows of rollout batches (jobs) and their trajectories."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.models import SynthesizedTask, TaskSet


class RolloutBatch(Job):
    class Scaffold(models.TextChoices):
        # Labels as the field spells them (papers and their repositories), never Django's "React" / "Mle Agent".
        REACT = "react", "ReAct"
        AIDE = "aide", "AIDE"
        AIRA = "aira", "AIRA"
        MLE_AGENT = "mle_agent", "MLE-Agent"

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
    # An episode's budgets by their keys (sandmle/episodes/budget.py), checked with every key filled in.
    budgets = models.JSONField(default=dict, blank=True)
    # The scaffold's options and preset, checked by the engine (sandmle.agents.scaffolds.options).
    scaffold_options = models.JSONField(default=dict, blank=True)
    # The sampling schedule's keys, checked by the engine (checked_schedule): {} samples at one temperature.
    schedule = models.JSONField(default=dict, blank=True)
    queue = models.CharField(max_length=16, default="sandbox")
    task_names = ("workers.rollouts.run_rollout_batch",)
    summary = models.JSONField(default=dict, blank=True)

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["-created_at"], name="rollout_created")]  # lists: newest first

    def episode_budgets(self) -> dict:
        """Every budget key: the stored ones, the engine's defaults for keys declared after the batch was made."""
        from sandmle.episodes.budget import BUDGET_DEFAULTS

        return {**BUDGET_DEFAULTS, **(self.budgets or {})}

    @property
    def max_turns(self) -> int:
        return int(self.episode_budgets()["max_turns"])


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
    n_turns = models.PositiveIntegerField(default=0)  # the turns max_turns bounds (sandmle.evaluation.metrics)
    n_records = models.PositiveIntegerField(default=0)  # every stored record (policy and tool turns): comment anchors
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
