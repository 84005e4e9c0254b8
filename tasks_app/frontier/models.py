"""Rows of frontier runs: the job that re-levels a task set for one policy, and the successors each run stored."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from sandmle_web.jobs import Job
from tasks_app.task_sets.models import TaskSet
from tasks_app.tasks.models import SynthesizedTask

SAMPLES_MAX = 64


class FrontierRun(Job):
    """The engine's relevel_tasks over a set's bundles for one policy; `result` is its FrontierReport.to_dict()
    (bundle paths included: the API and pages leave them out). `new_task_set` holds the kept tasks, and each
    successor once a reviewer approves it (tasks_app.frontier.joining)."""

    task_set = models.ForeignKey(TaskSet, on_delete=models.PROTECT, related_name="frontier_runs")
    policy = models.CharField(max_length=500)
    samples = models.PositiveIntegerField(default=4, validators=[MinValueValidator(1), MaxValueValidator(SAMPLES_MAX)])
    band_low = models.FloatField(default=0.2)
    band_high = models.FloatField(default=0.8)
    scaffold = models.CharField(max_length=16, default="react")
    out_dir = models.CharField(max_length=500, blank=True, default="")
    result = models.JSONField(default=dict, blank=True)
    new_task_set = models.ForeignKey(TaskSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    queue = models.CharField(max_length=16, default="sandbox")  # gpu for a local checkpoint (hf:)

    task_names = ("workers.frontier.run_frontier",)

    class Meta(Job.Meta):
        app_label = "tasks_app"
        indexes = [models.Index(fields=["task_set", "-created_at"], name="frontier_set_created")]

    def __str__(self) -> str:
        return f"frontier run #{self.id} of {self.task_set_id}"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("frontier-run-detail", kwargs={"run_id": self.id})

    def new_task_set_name(self) -> str:
        """The name the run's new set has, or will have once its first successor is approved."""
        suffix = f"-frontier-{self.id}"
        return self.task_set.name[:80 - len(suffix)] + suffix


class FrontierSuccessor(models.Model):
    """A validated successor a run stored; on approval it joins the run's new set in its parent's place."""

    run = models.ForeignKey(FrontierRun, on_delete=models.CASCADE, related_name="successors")
    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="frontier_links")

    class Meta:
        app_label = "tasks_app"
        constraints = [models.UniqueConstraint(fields=["run", "task"], name="one_link_per_run_successor")]
