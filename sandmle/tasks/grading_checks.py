"""The one check of a bundle's grading numbers (milestones and ladder), run by synthesis, every importer and every read
of grading.json: each a finite number of sane size inside its metric's range, the milestones ordered in the metric's
direction, and a median that some submission can fall short of (else every submission is above median, or gold).

A refusal names the field, so an importer's reviewer and the CLI see which number was wrong.
"""

from __future__ import annotations

import math

from sandmle.errors import UsageError
from sandmle.tasks import metrics

MILESTONE_ORDER = ("median", "bronze", "silver", "gold")  # worst to best
# Real scores (accuracies, losses, RMSEs of prices in cents) stay far below this; a 1e308 or a 50-digit integer does not.
MAX_SCORE_MAGNITUDE = 1e12
MAX_LADDER_ENTRIES = 1000  # a leaderboard-made ladder has one entry per team; the largest MLE-bench boards hold ~7,000
MAX_LADDER_NAME_CHARS = 200


def _score(value: object, *, field_name: str, metric: metrics.Metric) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{field_name}: expected a number, got {str(value)[:40]!r}")
    if isinstance(value, int) and abs(value) > MAX_SCORE_MAGNITUDE:
        raise UsageError(f"{field_name}: {str(value)[:40]} is larger than any {metric.name} score "
                         f"(at most {MAX_SCORE_MAGNITUDE:g} in size)")
    number = float(value)
    if not math.isfinite(number):
        raise UsageError(f"{field_name}: expected a finite number, got {value!r}")
    if abs(number) > MAX_SCORE_MAGNITUDE:
        raise UsageError(f"{field_name}: {number:g} is larger than any {metric.name} score "
                         f"(at most {MAX_SCORE_MAGNITUDE:g} in size)")
    low, high = metric.score_range
    if not low <= number <= high:
        raise UsageError(f"{field_name}: {number:g} lies outside {metric.name}'s range [{low:g}, {high:g}]")
    return number


def checked_grading_numbers(grading: dict) -> tuple[dict[str, float], dict[str, float]]:
    """The milestones and ladder of a grading.json-shaped dict as floats, or UsageError naming the first bad field."""
    try:
        metric = metrics.get_metric(grading.get("metric"))
    except (ValueError, TypeError) as error:
        raise UsageError(f"metric: {error}") from None
    lower = grading.get("is_lower_better")
    if not isinstance(lower, bool):
        raise UsageError(f"is_lower_better: expected true or false, got {str(lower)[:40]!r}")
    if lower != metric.is_lower_better:
        raise UsageError(f"is_lower_better: {metric.name} is {'lower' if metric.is_lower_better else 'higher'} "
                         "is better, not the other way")
    raw = grading.get("milestones")
    if not isinstance(raw, dict):
        raise UsageError("milestones: expected an object with median, bronze, silver and gold")
    missing = [name for name in MILESTONE_ORDER if name not in raw]
    if missing:
        raise UsageError(f"milestones: no {', '.join(missing)}")
    milestones = {name: _score(raw[name], field_name=f"milestones.{name}", metric=metric) for name in MILESTONE_ORDER}
    sign = -1.0 if lower else 1.0
    for worse, better in zip(MILESTONE_ORDER, MILESTONE_ORDER[1:]):
        if sign * milestones[better] < sign * milestones[worse]:
            relation = "at most" if lower else "at least"
            raise UsageError(f"milestones.{better}: {milestones[better]:g} must be {relation} "
                             f"milestones.{worse} ({milestones[worse]:g}) for {metric.name}")
    worst = metric.score_range[1] if lower else metric.score_range[0]
    if milestones["median"] == worst:
        raise UsageError(f"milestones.median: {milestones['median']:g} is {metric.name}'s worst score, so every "
                         "submission would reach it")
    raw_ladder = grading.get("ladder")
    if raw_ladder is None:
        return milestones, {}
    if not isinstance(raw_ladder, dict):
        raise UsageError(f"ladder: expected an object of name: score, got {type(raw_ladder).__name__}")
    if len(raw_ladder) > MAX_LADDER_ENTRIES:
        raise UsageError(f"ladder: {len(raw_ladder)} entries, at most {MAX_LADDER_ENTRIES}")
    ladder = {}
    for name, value in raw_ladder.items():
        if not isinstance(name, str) or not name or len(name) > MAX_LADDER_NAME_CHARS:
            raise UsageError(f"ladder: {str(name)[:40]!r} is not a name of 1 to {MAX_LADDER_NAME_CHARS} characters")
        ladder[name] = _score(value, field_name=f"ladder[{name[:40]!r}]", metric=metric)
    return milestones, ladder


def check_grading(grading: dict) -> None:
    """Raise UsageError naming the field when `grading`'s numbers could not grade a submission sensibly."""
    checked_grading_numbers(grading)
