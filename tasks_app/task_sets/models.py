"""Rows of task sets."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tasks_app.tasks.models import SynthesizedTask


class TaskSet(models.Model):
    name = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True, default="")
    tasks = models.ManyToManyField(SynthesizedTask, related_name="task_sets")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    # A retired set stays readable (its batches, campaigns and runs point at it) but is offered to no launch form.
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
