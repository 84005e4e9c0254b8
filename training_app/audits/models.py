"""Rows of task-set audits: the job, one verdict per attack x scaffold x task, and each task's degenerate scores."""

from __future__ import annotations

from django.db import models

from sandmle_web.jobs import Job
from tasks_app.task_sets.models import TaskSet


class TaskSetAudit(Job):
    """The engine's run_audit over a task set's bundles; `summary` is the report's summary, broken tasks, changes
    outside the episodes and skipped attacks; `passed` is None until the audit finished every episode."""

    task_set = models.ForeignKey(TaskSet, on_delete=models.PROTECT, related_name="audits")
    scaffolds = models.JSONField(default=list)
    attacks = models.JSONField(default=list, blank=True)  # empty: every attack
    out_dir = models.CharField(max_length=500, blank=True, default="")
    planned = models.PositiveIntegerField(default=0)  # episodes the audit plays in all
    summary = models.JSONField(default=dict, blank=True)
    passed = models.BooleanField(null=True, blank=True)
    # The scheme degenerate solutions are judged under (a tier it pays breaks a task): dense pays every tier.
    reward_scheme = models.CharField(max_length=16, default="dense")
    # How its episodes play, as a run would: {scaffold: options} (react's dialect) and one feedback mode for every
    # episode ("": each attack's own, the public score).
    scaffold_options = models.JSONField(default=dict, blank=True)
    feedback = models.CharField(max_length=16, blank=True, default="")
    # What the audit played (sandmle.audit.coverage.coverage_record): attacks, scaffolds and their settings, feedback
    # modes, reward scheme and judge, task sets and each task's bundle digest; the training gate vouches for exactly
    # that. {} (or a record without a version) for audits made before it was kept.
    coverage = models.JSONField(default=dict, blank=True)
    queue = models.CharField(max_length=16, default="sandbox")
    task_names = ("workers.audits.run_task_set_audit",)

    @property
    def partial_note(self) -> str:
        """"" for an audit that played every attack on every scaffold; else "partial: ..." naming what it left out."""
        from sandmle.agents.scaffolds import SCAFFOLDS
        from sandmle.audit.coverage import partial_note

        return partial_note(self.coverage, all_scaffolds=tuple(SCAFFOLDS))

    class Meta(Job.Meta):
        app_label = "training_app"
        # The set page and the launch check read a set's newest audit.
        indexes = [models.Index(fields=["task_set", "-created_at"], name="audit_set_created")]


class AuditVerdict(models.Model):
    """One attack on one scaffold and task; `record` is the engine's Verdict, `evidence` its file under out_dir."""

    audit = models.ForeignKey(TaskSetAudit, on_delete=models.CASCADE, related_name="verdicts")
    task_id = models.CharField(max_length=100)
    scaffold = models.CharField(max_length=16)
    attack = models.CharField(max_length=80)
    family = models.CharField(max_length=32)
    passed = models.BooleanField()
    reward_earned = models.FloatField(default=0.0)
    reward_worth = models.FloatField(default=0.0)
    problems = models.JSONField(default=list)
    evidence = models.CharField(max_length=500, blank=True, default="")
    record = models.JSONField(default=dict)

    class Meta:
        app_label = "training_app"
        ordering = ["passed", "task_id", "scaffold", "attack"]  # failing cases first
        constraints = [models.UniqueConstraint(fields=["audit", "task_id", "scaffold", "attack"],
                                               name="one_verdict_per_audit_case")]


class DegenerateScore(models.Model):
    """A degenerate solution's private-split grade on one task in one audit; `medal` marks the task broken."""

    audit = models.ForeignKey(TaskSetAudit, on_delete=models.CASCADE, related_name="degenerate_scores")
    task_id = models.CharField(max_length=100, db_index=True)
    solution = models.CharField(max_length=40)
    score = models.FloatField(null=True, blank=True)
    milestone = models.CharField(max_length=16, blank=True, default="")
    valid = models.BooleanField(default=False)
    medal = models.BooleanField(default=False)

    class Meta:
        app_label = "training_app"
        ordering = ["task_id", "solution"]
        constraints = [models.UniqueConstraint(fields=["audit", "task_id", "solution"],
                                               name="one_degenerate_score_per_audit_task")]
