"""Rows of latency studies (jobs)."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.models import SynthesizedTask


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
