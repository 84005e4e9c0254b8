"""What the task page shows beyond the row: charts, the task's DNA beside its seed's, versions and rollout stats.

Heavy parts (reading the bundle, plotly figures, measuring DNA) are cached by the bundle's hash: a bundle never
changes under the same hash, so the cache never goes stale.
"""

from __future__ import annotations

import json

import pandas as pd
from django.core.cache import cache

from sandmle.synth.noise import describe_recipe

from tasks_app.frontier.selectors import task_lineage
from tasks_app.seeds.dna_page import seed_feature_names
from tasks_app.shared import training_hooks
from tasks_app.tasks import bundle_files, charts, regenerate
from tasks_app.tasks.dna import dna_comparison, task_dna
from tasks_app.tasks.rollout_stats import rollout_stats_by_task

CACHE_SECONDS = 3600


def _target(task) -> str:
    return (task.spec.get("domain") or {}).get("target_name", "")


def _column_ranges(task) -> list[dict]:
    """Unit, declared range and observed range of each named column, over the public train and test rows."""
    from sandmle.synth.plausibility import column_ranges

    frames = [charts.read_public_frame(task.bundle_dir, name) for name in ("train.csv", "test.csv")] if task.bundle_dir else []
    frames = [frame for frame in frames if frame is not None]
    return column_ranges(task.spec or {}, pd.concat(frames, ignore_index=True)) if frames else []


def _public_charts(task) -> dict:
    target = _target(task)
    return {
        "column_ranges": _column_ranges(task),
        "feature_charts": charts.feature_distribution_charts(task.bundle_dir, target=target),
        "label_chart": charts.label_balance_chart(task.bundle_dir, target=target, task_type=task.task_type),
        "task_dna": task_dna(bundle_dir=task.bundle_dir, target=target, task_type=task.task_type,
                             metric=task.metric, modality=task.modality),
    }


def task_presentation(*, task, include_private: bool) -> dict:
    key = f"task-page:3:{task.bundle_sha256 or task.task_id}"  # 3: a chart for every feature column
    public = cache.get(key)
    if public is None:
        public = _public_charts(task)
        cache.set(key, public, CACHE_SECONDS)
    # Headroom and which reference set each milestone are grading data; they read as calibration, not as the rule.
    grading = bundle_files.read_json(task.bundle_dir, "private/grading.json") if task.bundle_dir else {}
    ladder_chart = charts.ladder_chart(
        ladder=task.ladder, milestones=task.milestones, milestone_sources=grading.get("milestone_sources"),
        is_lower_better=bool(grading.get("is_lower_better", False)), headroom=grading.get("headroom"),
        metric=task.metric,
    )
    seed_dna = task.seed.dna.data if hasattr(task.seed, "dna") else {}
    previous = regenerate.previous_version(task)
    rule_columns = (((task.spec or {}).get("rule") or {}).get("features") or []) if include_private else []
    feature_charts, more_feature_charts = charts.feature_charts_split(public["feature_charts"], first=rule_columns)
    return {
        "feature_charts": feature_charts, "more_feature_charts": more_feature_charts,
        "feature_chart_total": len(public["feature_charts"]),
        "rule_columns": rule_columns, "column_ranges": public.get("column_ranges", []), "label_chart": public["label_chart"], "ladder_chart": ladder_chart,
        "headroom": grading.get("headroom"), "milestone_sources": grading.get("milestone_sources") or {},
        # Every feature column is charted, in the file's order, the order task_dna measured them in: their names.
        "dna_rows": dna_comparison(seed_dna, public["task_dna"], seed_names=seed_feature_names(seed=task.seed),
                                   task_names=[chart["name"] for chart in public["feature_charts"]]),
        # The rule stage names the hidden rule family and the columns it reads: reviewers only.
        "synthesis_log": [readable_log_entry(entry) for entry in task.log or []
                          if include_private or entry.get("stage") != "rule"],
        "rollout_stats": rollout_stats_by_task(task_ids=[task.pk]).get(task.pk),
        "previous_version": previous,
        "version_number": regenerate.version_number(task),
        "version_diff": regenerate.version_diff(previous, task, include_private=include_private) if previous else [],
        "newer_versions": regenerate.newer_versions(task),
        "regeneration_runs": regenerate.regenerations_of(task),
        "degenerate_scores": _degenerate_scores(task),
        "lineage": task_lineage(task=task),
    }


def _degenerate_scores(task) -> list[dict]:
    """What learning nothing scores on this task, from its newest audit, with what each priced reward scheme pays for
    its tier: shown beside the ladder; a row is broken when it reaches a medal or a tier the audit's scheme pays."""
    from sandmle.audit.degenerate import stored_tier_rewards

    rows = []
    for row in training_hooks.degenerate_scores(task_id=task.task_id):
        scheme = (row.audit.summary or {}).get("reward_scheme") or "dense"
        paid = stored_tier_rewards(row.milestone, valid=row.valid)
        rows.append({"audit_id": row.audit_id, "solution": row.solution, "score": row.score, "valid": row.valid,
                     "milestone": row.milestone, "medal": row.medal, "scheme": scheme,
                     "dense": paid.get("dense", 0.0), "sparse": paid.get("sparse", 0.0),
                     "broken": row.medal or paid.get(scheme, 0.0) > 0})
    return rows


def readable_log_entry(entry: dict) -> dict:
    """A synthesis log line as the page shows it: tasks made before the engine worded its noise recipe logged it as
    JSON ("recipe {...}", with escapes such as \\u00b3); those read as the engine words them now."""
    message = str(entry.get("message", ""))
    if entry.get("stage") == "noise" and message.startswith("recipe {"):
        try:
            return entry | {"message": "recipe: " + describe_recipe(json.loads(message.removeprefix("recipe ")))}
        except (ValueError, TypeError, KeyError, AttributeError):  # not a recipe after all: shown as stored
            return entry
    return entry
