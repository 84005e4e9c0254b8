"""Rows of the review workflow: comments, decisions, the audit history and saved queue views."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tasks_app.tasks.models import SynthesizedTask


class ReviewComment(models.Model):
    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    body = models.TextField()
    class Visibility(models.TextChoices):
        REVIEWERS = "reviewers"  # reviewers discuss the hidden rule: by default nobody else reads along
        EVERYONE = "everyone"

    verdict = models.CharField(max_length=16, blank=True, default="")  # approved / rejected / "" for a remark
    visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.REVIEWERS)
    # Threads: a reply names the comment it answers; resolving the thread's first comment resolves the thread.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    # A comment on one turn of one trajectory of the task (string reference: training_app imports this module).
    trajectory = models.ForeignKey("training_app.Trajectory", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="turn_comments")
    turn = models.PositiveIntegerField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="resolved_comments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]


class ReviewDecision(models.Model):
    """One reviewer's verdict on a task in one review round, with the reason they gave."""

    class Verdict(models.TextChoices):
        APPROVE = "approve", "approve"
        REJECT = "reject", "reject"
        REQUEST_CHANGES = "request_changes", "request changes"

    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="review_decisions")
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    reason = models.TextField()
    review_round = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["task", "review_round"], name="decision_task_round")]


class TaskAuditEntry(models.Model):
    """One change of a task's status or assignee: who, when, from what to what, why, and through which route."""

    class Kind(models.TextChoices):
        STATUS = "status"
        ASSIGNMENT = "assignment"

    class Via(models.TextChoices):
        SYNTHESIS = "synthesis"  # stored by a synthesis run: the critic validated or rejected it
        REGENERATE = "regenerate"  # stored by a regeneration run, as a new version of a task
        REVIEW = "review"  # one reviewer's decision or assignment
        BULK = "bulk"  # the same, applied to a selection in the queue
        REOPEN = "reopen"  # sent back to review after changes were requested, or withdrawn from approval
        RETIRE = "retire"  # an approved task retired by a reviewer
        FRONTIER = "frontier"  # stored by a frontier run, as a harder or easier successor of a task

    task = models.ForeignKey(SynthesizedTask, on_delete=models.CASCADE, related_name="audit_entries")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="task_audit_entries")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.STATUS)
    from_value = models.CharField(max_length=150, blank=True, default="")  # a status, or an assignee's username
    to_value = models.CharField(max_length=150, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    via = models.CharField(max_length=16, choices=Via.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["task", "created_at"], name="audit_task_created")]


class SavedReviewView(models.Model):
    """A reviewer's named set of review-queue filters, listed on the queue."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_review_views")
    name = models.CharField(max_length=80)
    filters = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="one_saved_view_name_per_owner")]

    def __str__(self) -> str:
        return self.name
