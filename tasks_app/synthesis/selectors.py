"""Reads of synthesis runs."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from tasks_app.models import Seed, SynthesisRun


def synthesis_run_list(*, seed: Seed | None = None) -> QuerySet[SynthesisRun]:
    runs = (SynthesisRun.objects.select_related("seed", "created_by").annotate(task_count=Count("tasks"))
            .order_by("-created_at", "-id"))
    return runs.filter(seed=seed) if seed else runs


def synthesis_run_list_rows(*, seed: Seed | None = None) -> QuerySet[SynthesisRun]:
    """Runs for a list page: no row shows the summary JSON."""
    return synthesis_run_list(seed=seed).defer("summary")
