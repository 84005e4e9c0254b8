"""One episode's record, as the runner builds it and as JSONL files and database rows store it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from sandmle.tasks.grade_report import GradeReport, stored_grade


@dataclass
class Trajectory:
    """Everything one episode produced: turns, token records, grade, rewards, timings."""

    task_id: str
    scaffold: str
    policy: str
    sample_index: int = 0
    group_id: str = ""
    turns: list[dict] = field(default_factory=list)
    tokens: list[dict] = field(default_factory=list)
    sequence: dict | None = None
    # None when grading never ran (the episode failed before or inside the grader).
    grade: GradeReport | None = None
    rewards: dict[str, dict] = field(default_factory=dict)
    format_rate: float = 0.0
    termination: str = "error"
    error: str | None = None
    wall_s: float = 0.0
    mean_step_latency_s: float | None = None
    feedback: str = "none"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Trajectory:
        """A record as stored: keys it lacks take their defaults (older records), keys this version does not know are
        left out; the grade becomes a GradeReport."""
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in record.items() if key in known}
        values.setdefault("task_id", "")
        values.setdefault("scaffold", "")
        values.setdefault("policy", "")
        values["grade"] = stored_grade(values.get("grade"))
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> Trajectory:
        return cls.from_dict(json.loads(text))
