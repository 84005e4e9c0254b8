"""Rows of task sets: the set (its owner is whoever made it) and its history of changes."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tasks_app.tasks.models import SynthesizedTask


# A set's description is a sentence or a paragraph; the forms, the API and the services refuse longer ones.
DESCRIPTION_MAX_CHARS = 2000


class TaskSet(models.Model):
    name = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True, default="")
    tasks = models.ManyToManyField(SynthesizedTask, related_name="task_sets")
    # The set's owner: with reviewers and admins, the only one who may edit, retire or restore it.
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    # A retired set stays readable (its batches, campaigns and runs point at it) but is offered to no launch form.
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def may_be_changed_by(self, user) -> bool:
        """A set is edited, retired or restored by whoever made it, or by a reviewer or admin; not by another curator
        (an audited set must not gain unaudited tasks behind its owner's back)."""
        from accounts.roles import Role, has_role

        return has_role(user, Role.REVIEWER) or (has_role(user, Role.CURATOR) and self.created_by_id == user.id)

    def change_refusal(self) -> str:
        """What a 403 says to anyone else."""
        owner = self.created_by.username if self.created_by_id else "nobody"
        return f"Only the set's owner ({owner}), reviewers and admins may change it; clone it to make your own."


class TaskSetChange(models.Model):
    """One change to a set, who made it and when; `details` holds what changed (task ids, old and new text)."""

    class What(models.TextChoices):
        CREATED = "created"
        RENAMED = "renamed"
        DESCRIBED = "described", "description changed"
        TASKS_ADDED = "tasks_added", "tasks added"
        TASKS_REMOVED = "tasks_removed", "tasks removed"
        RETIRED = "retired"
        RESTORED = "restored"

    task_set = models.ForeignKey(TaskSet, on_delete=models.CASCADE, related_name="changes")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="task_set_changes")
    at = models.DateTimeField(auto_now_add=True)
    what = models.CharField(max_length=16, choices=What.choices)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["task_set", "at"], name="task_set_change_set_at")]
