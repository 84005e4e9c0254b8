"""Rows of synthesized tasks with their hidden rules, ladders and review state."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tasks_app.seeds.models import Seed
from tasks_app.synthesis.models import SynthesisRun


class SynthesizedTask(models.Model):
    class Status(models.TextChoices):
        # The labels are the one way pages spell a status (studio's `status_word` filter), lower case as in a badge.
        DRAFT = "draft", "draft"
        PENDING_REVIEW = "pending_review", "pending review"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"
        NEEDS_CHANGES = "needs_changes", "changes requested"  # back to pending review when reopened
        RETIRED = "retired", "retired"  # withdrawn by a reviewer after approval: kept with its history, out of new task sets

    class Difficulty(models.TextChoices):
        # From the calibration ladder's headroom (tasks_app.review.difficulty): how much of the oracle's lead over
        # the baseline the learned references recover. "" for tasks without a ladder.
        EASY = "easy"
        MEDIUM = "medium"
        HARD = "hard"

    class RejectedBy(models.TextChoices):
        NONE = ""
        VALIDATOR = "validator"
        REVIEWER = "reviewer"

    task_id = models.CharField(max_length=100, unique=True)
    run = models.ForeignKey(SynthesisRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="tasks")
    seed = models.ForeignKey(Seed, on_delete=models.CASCADE, related_name="tasks")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT, db_index=True)
    rejected_by = models.CharField(max_length=16, choices=RejectedBy.choices, blank=True, default="")
    reasons = models.JSONField(default=list, blank=True)
    title = models.CharField(max_length=300, blank=True, default="")
    domain_id = models.CharField(max_length=100, blank=True, default="")
    sector = models.CharField(max_length=100, blank=True, default="")
    rule_family = models.CharField(max_length=100, blank=True, default="")
    modality = models.CharField(max_length=16, blank=True, default="")
    task_type = models.CharField(max_length=16, blank=True, default="")
    metric = models.CharField(max_length=32, blank=True, default="")
    milestones = models.JSONField(default=dict, blank=True)
    ladder = models.JSONField(default=dict, blank=True)
    spec = models.JSONField(default=dict, blank=True)
    log = models.JSONField(default=list, blank=True)
    bundle_dir = models.CharField(max_length=500, blank=True, default="")
    bundle_sha256 = models.CharField(max_length=64, blank=True, default="")
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_tasks"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="reviewed_tasks"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    difficulty = models.CharField(max_length=8, choices=Difficulty.choices, blank=True, default="", db_index=True)
    # Approvals count within one round; a reject or a request for changes ends the round (tasks_app.review.services).
    review_round = models.PositiveIntegerField(default=1)
    # A frontier successor's lineage (tasks_app.frontier): the task it replaces, its level (0 for a root task) and
    # why it was made ("solved 16 of 16 at level 1"), as the bundle's task.json records it.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="successors")
    level = models.IntegerField(default=0)
    level_reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "task_id"]
        # Each list filter followed by the list's order, so a filtered page reads rows in order from an index
        # instead of sorting 10,000 tasks; the review queue reads pending tasks oldest first.
        indexes = [
            models.Index(fields=["-created_at", "task_id"], name="task_created"),
            models.Index(fields=["status", "-created_at", "task_id"], name="task_status_created"),
            models.Index(fields=["status", "created_at", "task_id"], name="task_status_oldest"),
            models.Index(fields=["seed", "-created_at", "task_id"], name="task_seed_created"),
            models.Index(fields=["modality", "-created_at", "task_id"], name="task_modality_created"),
            models.Index(fields=["domain_id", "-created_at", "task_id"], name="task_domain_created"),
            models.Index(fields=["rule_family", "-created_at", "task_id"], name="task_family_created"),
            models.Index(fields=["run", "-created_at", "task_id"], name="task_run_created"),
        ]

    def __str__(self) -> str:
        return self.task_id
