"""Reads of task sets."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from tasks_app.models import TaskSet


def task_set_list() -> QuerySet[TaskSet]:
    return TaskSet.objects.annotate(task_count=Count("tasks")).order_by("name")


def task_set_get(*, name: str) -> TaskSet:
    return TaskSet.objects.get(name=name)
