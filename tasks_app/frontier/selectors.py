"""Reads of frontier runs: a set's runs, one run with its before/after table, a task's lineage."""

from __future__ import annotations

from django.db.models import QuerySet

from tasks_app.frontier.models import FrontierRun
from tasks_app.models import SynthesizedTask, TaskSet

# Host paths of bundles (whose private/ holds the answers) never leave the worker's side.
PATH_KEYS = ("task_dir", "bundle_dir", "out_dir", "tasks")


def frontier_run_list(*, task_set: TaskSet | None = None) -> QuerySet[FrontierRun]:
    runs = FrontierRun.objects.select_related("task_set", "new_task_set", "created_by").order_by("-created_at", "-id")
    return runs.filter(task_set=task_set) if task_set is not None else runs


def frontier_run_get(*, run_id: int) -> FrontierRun:
    return frontier_run_list().get(id=run_id)


def _without_paths(value: dict) -> dict:
    return {key: item for key, item in value.items() if key not in PATH_KEYS}


def frontier_table(*, run: FrontierRun) -> list[dict]:
    """One row per task of the report: level, rate before, action, successor (with its review status now), rate
    after; no host paths."""
    rows = [_without_paths(row) | {"successor": _without_paths(row["successor"]) if row.get("successor") else None}
            for row in (run.result or {}).get("rows", [])]
    successor_ids = [row["successor"]["task_id"] for row in rows if (row["successor"] or {}).get("task_id")]
    statuses = dict(SynthesizedTask.objects.filter(task_id__in=successor_ids).values_list("task_id", "status"))
    for row in rows:
        if row["successor"]:
            row["successor"]["review_status"] = statuses.get(row["successor"].get("task_id"), "")
    return rows


def frontier_summary(*, run: FrontierRun) -> dict:
    """The report's counts and band, without its rows or paths."""
    result = run.result or {}
    return {key: result[key] for key in ("band", "policy", "samples", "moved", "kept", "failed") if key in result}


def task_lineage(*, task: SynthesizedTask) -> dict:
    """A task's parent (for a successor) and its own successors, for the task page."""
    return {"parent": task.parent if task.parent_id else None,
            "successors": list(task.successors.order_by("level", "task_id").only("task_id", "status", "level",
                                                                                  "level_reason", "parent_id"))}
