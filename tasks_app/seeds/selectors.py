"""Reads of seeds."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from tasks_app.models import Seed


def seed_list() -> QuerySet[Seed]:
    return Seed.objects.select_related("dna").annotate(task_count=Count("tasks")).order_by("name")


def seed_list_rows() -> QuerySet[Seed]:
    """Seeds by name with their number of tasks, for the list page: the DNA's JSON is left for the seed's own page."""
    return Seed.objects.annotate(task_count=Count("tasks")).order_by("name")


def seed_get(*, name: str) -> Seed:
    return Seed.objects.select_related("dna").get(name=name)
