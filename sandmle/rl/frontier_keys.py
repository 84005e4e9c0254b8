"""The keys of adaptive environments in a GRPO run (the frontier controller, sandmle/rl/frontier_controller.py), with
the checks that need several keys at once: a band inside [0, 1], a level range inside the level table, and enough
steps for a task to gather its evidence twice (once to move, once to train on what it moved to)."""

from __future__ import annotations

import math
from typing import Any

from sandmle.errors import UsageError
from sandmle.evaluation.frontier import DEFAULT_BAND, check_band
from sandmle.settings import Field
from sandmle.synth import levels

ENVIRONMENTS = ("fixed", "adaptive")
ADAPTIVE_KEYS = ("environments", "frontier_band", "frontier_evidence", "level_range", "max_versions_per_lineage",
                 "adaptive_review", "successors_per_step", "max_pending_successors", "successor_timeout_s")
ADAPTIVE_REVIEW = ("audit", "hold")


def adaptive_fields() -> list[Field]:
    """The adaptive keys (ADAPTIVE_KEYS) as the config table's Field objects."""
    fields = [
        Field("environments", "choice", "fixed", "fixed: train on the given tasks; adaptive: a task whose recent "
              "success rate leaves frontier_band is replaced by a harder or easier successor of its lineage, "
              "made beside training", choices=ENVIRONMENTS),
        Field("frontier_band", "band", list(DEFAULT_BAND), "[LOW, HIGH] success rates a task should stay "
              "between (above HIGH: harder successor; below LOW: easier one)", check=check_band_value),
        Field("frontier_evidence", "int", 8, "episodes a task plays before it may move (twice that before it "
              "may move back the way it came)", min=1, max=10_000),
        Field("level_range", "levels", [levels.MIN_LEVEL, levels.MAX_LEVEL], "[LOWEST, HIGHEST] levels a "
              f"lineage may reach (the table runs {levels.MIN_LEVEL} to {levels.MAX_LEVEL})", check=check_level_range),
        Field("max_versions_per_lineage", "int", 4, "successors a lineage may take in one run", min=1,
              max=100),
        Field("adaptive_review", "choice", "audit", "audit: a successor replaces its parent once it passes the "
              "reward-hack audit; hold: once a reviewer approves it as well", choices=ADAPTIVE_REVIEW),
        Field("successors_per_step", "int", 1, "successors requested after one step at most (synthesis must "
              "not starve the sandbox)", min=1, max=64),
        Field("max_pending_successors", "int", 2, "successors being made at once (the queue's bound)", min=1,
              max=64),
        Field("successor_timeout_s", "float", 900.0, "a successor not ready after this long is given up (its "
              "parent stays)", min=1.0, max=7 * 86400.0),
    ]
    assert tuple(f.key for f in fields) == ADAPTIVE_KEYS
    return fields


def check_band_value(key: str, value: Any) -> list[float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise UsageError(f"{key}: expected [LOW, HIGH], two numbers, not {value!r}"[:200])
    try:
        low, high = check_band(value)
    except UsageError as error:
        raise UsageError(f"{key}: {str(error).removeprefix('band: ')}") from None
    return [low, high]


def check_level_range(key: str, value: Any) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise UsageError(f"{key}: expected [LOWEST, HIGHEST], two whole levels, not {value!r}"[:200])
    low, high = value
    if low > high:
        raise UsageError(f"{key}: {low} to {high} is inverted (LOWEST must not be above HIGHEST)")
    if low < levels.MIN_LEVEL or high > levels.MAX_LEVEL:
        raise UsageError(f"{key}: {low} to {high} reaches beyond the level table ({levels.MIN_LEVEL} to "
                         f"{levels.MAX_LEVEL})")
    return [low, high]


def steps_needed(values: dict) -> int:
    """Steps in which, drawn evenly, each task plays frontier_evidence episodes twice."""
    per_step = values["tasks_per_step"] * values["group_size"]
    return math.ceil(2 * values["frontier_evidence"] * len(values["tasks"]) / per_step)


def check_adaptive(values: dict) -> str | None:
    """The key and problem of an adaptive run that could never move a task, else None."""
    if values.get("environments") != "adaptive":
        return None
    needed = steps_needed(values)
    if values["steps"] < needed:
        return (f"steps: {values['steps']} are too few for adaptive environments: each of {len(values['tasks'])} "
                f"task(s) needs frontier_evidence {values['frontier_evidence']} episodes twice (once to move, once "
                f"to train on the successor), {needed} steps of {values['tasks_per_step']} x {values['group_size']}")
    return None
