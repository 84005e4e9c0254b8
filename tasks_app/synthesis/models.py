"""Rows of synthesis runs (jobs) and the limits of their inputs."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.seeds.models import Seed

# The rng seeds numpy and is stored in a signed 64-bit column; 2**32 seeds are more than any curator needs.
RNG_MAX = 2**32 - 1
MIN_TRAIN_ROWS = 50  # the engine draws 50 to MAX_TRAIN training rows; fewer leave its references nothing to learn


class SynthesisRun(Job):
    seed = models.ForeignKey(Seed, on_delete=models.CASCADE, related_name="synthesis_runs")
    count = models.PositiveIntegerField()
    rng = models.BigIntegerField(default=0)
    llm_url = models.CharField(max_length=500, blank=True, default="")
    llm_model = models.CharField(max_length=200, blank=True, default="")
    llm_key_env = models.CharField(max_length=100, blank=True, default="")  # "" = settings.SANDMLE_LLM_KEY_ENV
    summary = models.JSONField(default=dict, blank=True)
    # The curator's engine controls (tasks_app.synthesis.services._check_controls): rule_family, n_train,
    # until_passing, noise_scale, and the targets min_headroom and difficulty; absent ones take the engine's
    # defaults. The rule family is shown to reviewers only.
    controls = models.JSONField(default=dict, blank=True)

    task_names = ("workers.synthesis.run_synthesis", "workers.synthesis.regenerate_task")

    class Meta(Job.Meta):
        # The run lists (all runs, a seed's runs) order by newest first.
        indexes = [models.Index(fields=["-created_at"], name="synthrun_created"),
                   models.Index(fields=["seed", "-created_at"], name="synthrun_seed_created")]

    def task_name(self) -> str:
        # A regeneration is a one-task synthesis run whose summary names the task it replaces
        # (tasks_app.tasks.regenerate).
        return self.task_names[1] if self.summary.get("regenerates") else self.task_names[0]
