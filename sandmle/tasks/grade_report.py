"""The grader's report on one submission as a typed record, read back from the JSON that trajectories store."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass
class GradeReport:
    """MLE-bench's report fields plus the milestone reached, HumanRank position score, errors and split.

    The grader fills every field. The defaults are what a stored record that predates a field reads as: nothing
    reached, no score, no threshold.
    """

    competition_id: str = ""
    score: float | None = None
    gold_threshold: float | None = None
    silver_threshold: float | None = None
    bronze_threshold: float | None = None
    median_threshold: float | None = None
    gold_medal: bool = False
    silver_medal: bool = False
    bronze_medal: bool = False
    any_medal: bool = False
    above_median: bool = False
    submission_exists: bool = False
    valid_submission: bool = False
    is_lower_better: bool = False
    milestone: str | None = None
    position_score: float = 0.0
    errors: list[str] = field(default_factory=list)
    split: str = "private"

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradeReport:
        """A report as stored: keys it lacks take their defaults, keys this version does not know are left out."""
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        if "errors" in values:
            values["errors"] = list(values["errors"] or [])
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> GradeReport:
        return cls.from_dict(json.loads(text))


def stored_grade(value: Any) -> GradeReport | None:
    """A record's `grade` (or a campaign episode's `report`): None where the episode was never graded."""
    if isinstance(value, GradeReport):
        return value
    return GradeReport.from_dict(value) if isinstance(value, dict) else None
