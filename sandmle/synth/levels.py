"""Difficulty levels of a task lineage: one table mapping an integer level onto synthesis's knobs.

A lineage is a task and its successors. A successor keeps its root's domain and hidden rule (it is the same problem)
and changes, by level, what a learner must overcome to earn each milestone:
- training rows: fewer rows carry less evidence of the rule, so every learned model (the agent's included) recovers
  less of it; more rows make it easier to find;
- noise strength: label noise, missing values, outliers, misspellings, duplicates and unit slips scaled up bury the
  rule deeper and punish a pipeline that does not clean (noise.NOISE_CAPS still bounds each kind);
- milestone spacing: median, bronze and silver move part of the way towards gold (harder) or towards the constant
  baseline (easier). Gold stays where the skilled reference set it, so it is still certified reachable.
A successor's first try draws its rows from the root's seed, so one lineage's levels differ by these knobs alone
and success falls with the level; a new draw of rows at every level moved a fixed program's outcome more than a
level step did. A retry (the critic refused a try) or another rng draws new rows.
Level 0 is what `synthesize` makes. Its spec carries no level, so its bytes and task id are unchanged; a successor's
spec records its level and the knobs used, so the spec alone rebuilds it (the table may change later, specs do not).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sandmle.errors import UsageError


@dataclass(frozen=True)
class Level:
    level: int
    n_train: int | None  # training rows; None keeps the lineage's own
    noise_scale: float  # multiplies the root recipe's noise intensities
    milestone_shift: float  # share of the way median/bronze/silver move to gold (> 0) or to the baseline (< 0)
    why: str

    def to_dict(self) -> dict:
        return asdict(self)


LEVELS = {
    -4: Level(-4, 200, 0.5, -0.5, "most rows, half the noise, median/bronze/silver halfway down to the baseline"),
    -3: Level(-3, None, 0.75, -0.2, "three quarters of the noise, lower milestones a fifth of the way down"),
    -2: Level(-2, None, 0.9, -0.1, "a tenth less noise, lower milestones a tenth of the way down"),
    -1: Level(-1, None, 0.95, -0.05, "a little less noise, lower milestones a twentieth of the way down"),
    0: Level(0, None, 1.0, 0.0, "the task as synthesis makes it"),
    1: Level(1, None, 1.1, 0.1, "a tenth more noise, median/bronze/silver a tenth of the way to gold"),
    2: Level(2, 120, 1.25, 0.25, "120 rows, a quarter more noise, median/bronze/silver a quarter of the way to gold"),
    3: Level(3, 80, 1.5, 0.5, "80 rows, half again the noise, median/bronze/silver halfway to gold"),
}
# The steps are fine near 0 and coarse at the ends. Measured with a fixed learner (bench/level_spread: the reply
# menu's fitted program as an unseeded small forest, on iris and wine roots): the lower milestones sit close
# together and far from the constant baseline, so moving them a quarter of the way down (the first table's level
# -1) took most tasks from "median at best" straight to silver or gold; a twentieth to a tenth is where a program's
# outcome varies from episode to episode (the frontier a GRPO group learns from). A level 4 of 50 rows, twice the
# noise and milestones three quarters of the way to gold was no harder than level 3 (1 of 4 tasks solved on iris and
# on wine, against 2 and 0): with so few rows the skilled reference, which sets gold, loses more than a plain model
# does. So the table stops at 3.
MIN_LEVEL, MAX_LEVEL = min(LEVELS), max(LEVELS)


def check_level(level: object) -> int:
    """The level as an int, or a UsageError naming the table's range."""
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise UsageError(f"level: {level!r} is not a level of the table ({MIN_LEVEL} to {MAX_LEVEL})")
    return level


def level_of(task: dict) -> int:
    """A bundle's level from its task.json (0 for a task made before levels, or by synthesize)."""
    difficulty = (task.get("spec") or {}).get("difficulty") or {}
    return int(difficulty.get("level", 0))


def milestone_shift(spec_difficulty: dict | None) -> float:
    return float((spec_difficulty or {}).get("milestone_shift", 0.0))


def level_table() -> list[dict]:
    """The table as rows, for the CLI, the README and the studio."""
    return [LEVELS[level].to_dict() for level in sorted(LEVELS)]
