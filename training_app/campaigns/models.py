"""Rows of evaluation campaigns (jobs) and their episodes."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.models import TaskSet


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
    n_turns = models.PositiveIntegerField(default=0)  # the turns max_turns bounds (sandmle.evaluation.metrics)
    record = models.JSONField()  # the engine's episode record: key, policy, scaffold, task_id, seed, report, trajectory

    class Meta:
        ordering = ["policy", "scaffold", "task_id", "seed"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="one_episode_per_campaign_key")]
        # A cell's episodes: filtered by campaign, policy and scaffold, in the list's order.
        indexes = [models.Index(fields=["campaign", "policy", "scaffold", "task_id", "seed"], name="episode_cell")]
