"""Named reward schemes that turn a grade report (and optionally the trajectory) into one scalar for RL."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from sandmle.errors import UsageError
from sandmle.grading import GradeReport


@dataclass
class RewardBreakdown:
    """The total reward and the named parts it was summed from (plus any judge verdicts)."""

    name: str
    total: float
    components: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


RewardFn = Callable[..., RewardBreakdown]
REWARD_SCHEMES: dict[str, RewardFn] = {}


def reward_scheme(name: str) -> Callable[[RewardFn], RewardFn]:
    """Register a scheme under `name`; the function takes report, format_rate, trajectory and options."""

    def register(function: RewardFn) -> RewardFn:
        REWARD_SCHEMES[name] = function
        return function

    return register


def compute_reward(name: str, *, report: GradeReport, format_rate: float, trajectory: dict | None = None, **options) -> RewardBreakdown:
    """Compute the named reward scheme; unknown names raise UsageError."""
    if name not in REWARD_SCHEMES:
        raise UsageError(f"unknown reward scheme {name!r}; expected one of {', '.join(sorted(REWARD_SCHEMES))}")
    if not 0.0 <= format_rate <= 1.0:
        raise UsageError(f"format_rate must be in [0, 1], not {format_rate}")
    return REWARD_SCHEMES[name](report=report, format_rate=format_rate, trajectory=trajectory, **options)


# SandMLE's dense milestone values: medals dominate, reaching the median is a small step up from nothing.
DENSE_MILESTONE_VALUES = {"gold": 0.7, "silver": 0.6, "bronze": 0.5, "median": 0.1}


@reward_scheme("dense")
def dense_reward(*, report: GradeReport, format_rate: float, trajectory: dict | None = None) -> RewardBreakdown:
    components = {
        "valid": 0.2 * float(report.valid_submission),
        "milestone": DENSE_MILESTONE_VALUES.get(report.milestone, 0.0) if report.valid_submission else 0.0,
        "format": 0.1 * format_rate,
    }
    return RewardBreakdown("dense", sum(components.values()), components)


@reward_scheme("sparse")
def sparse_reward(*, report: GradeReport, format_rate: float, trajectory: dict | None = None) -> RewardBreakdown:
    components = {"gold": 0.9 * float(report.valid_submission and report.gold_medal), "format": 0.1 * format_rate}
    return RewardBreakdown("sparse", sum(components.values()), components)


@dataclass(frozen=True)
class Criterion:
    """One checklist item the judge answers yes/no about the whole trajectory."""

    name: str
    description: str
    weight: float


DEFAULT_CRITERIA = (
    Criterion("cross_validation", "validates the model with cross-validation or a held-out split before submitting", 0.4),
    Criterion("missing_values", "handles the missing values in the data (imputes, drops, or uses a model that accepts them)", 0.3),
    Criterion("inspects_data", "inspects the data (shapes, columns, target distribution) before modelling", 0.3),
)

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"met": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["met", "reason"],
}


def _as_criteria(criteria) -> list[Criterion]:
    parsed = [item if isinstance(item, Criterion) else Criterion(**item) for item in criteria]
    if not parsed:
        raise UsageError("the rubric needs at least one criterion")
    total = sum(item.weight for item in parsed)
    if abs(total - 1.0) > 1e-6 or any(item.weight < 0 for item in parsed):
        raise UsageError(f"rubric weights must be non-negative and sum to 1, not {total:g}")
    return parsed


def render_trajectory(trajectory: dict, *, max_chars_per_field: int = 2000) -> str:
    """The trajectory as plain text for a judge; long fields keep their head and tail."""

    def clip(text: str) -> str:
        if len(text) <= max_chars_per_field:
            return text
        half = max_chars_per_field // 2
        return text[:half] + "\n[...clipped...]\n" + text[-half:]

    lines = []
    for index, turn in enumerate(trajectory.get("turns") or [], start=1):
        lines.append(f"## Turn {index} ({turn.get('role', '?')})")
        for key in ("thinking", "text", "content", "code", "observation"):
            if turn.get(key):
                lines.append(f"[{key}]\n{clip(str(turn[key]))}")
    return "\n".join(lines) or "(empty trajectory)"


@reward_scheme("rubric")
def rubric_reward(
    *, report: GradeReport, format_rate: float, trajectory: dict | None = None, judge=None, criteria=DEFAULT_CRITERIA, attempts: int = 3
) -> RewardBreakdown:
    """Sum of the weights of the criteria a judge model finds met; a criterion the judge cannot answer counts 0.

    Such criteria are listed in details["judge_failures"] (with why, in their verdicts), so a run can tell an
    unmet criterion from a judge that failed.
    """
    from sandmle.llm import LLMError, chat_json

    if judge is None:
        raise UsageError("the rubric reward needs judge=ChatClient(...)")
    if trajectory is None:
        raise UsageError("the rubric reward needs the trajectory")
    transcript = render_trajectory(trajectory)
    components: dict[str, float] = {}
    verdicts: dict[str, dict] = {}
    judge_failures: list[str] = []
    for criterion in _as_criteria(criteria):
        messages = [
            {"role": "system", "content": "You judge a machine-learning agent's work. Answer only about the criterion asked."},
            {"role": "user", "content": f"Trajectory:\n{transcript}\n\nCriterion: the agent {criterion.description}.\nIs it met?"},
        ]
        try:
            verdict, log = chat_json(judge, messages, schema=VERDICT_SCHEMA, attempts=attempts, temperature=0.0)
        except LLMError as error:
            # One unreachable or confused judge call must not sink a whole training step: score it 0, keep why.
            verdict, log = {"met": False, "reason": f"judge failed: {error}"}, [str(error)]
            judge_failures.append(criterion.name)
        components[criterion.name] = criterion.weight * float(verdict["met"])
        verdicts[criterion.name] = {"met": bool(verdict["met"]), "reason": verdict["reason"], "weight": criterion.weight, "log": log}
    return RewardBreakdown("rubric", sum(components.values()), components,
                           {"verdicts": verdicts, "judge_failures": judge_failures})


@reward_scheme("dense+rubric")
def dense_rubric_reward(
    *, report: GradeReport, format_rate: float, trajectory: dict | None = None, rubric_weight: float = 0.2, **rubric_options
) -> RewardBreakdown:
    """(1 - rubric_weight) * dense + rubric_weight * rubric, so the total stays in [0, 1]."""
    if not 0.0 <= rubric_weight <= 1.0:
        raise UsageError(f"rubric_weight must be in [0, 1], not {rubric_weight}")
    dense = dense_reward(report=report, format_rate=format_rate)
    rubric = rubric_reward(report=report, format_rate=format_rate, trajectory=trajectory, **rubric_options)
    return combine_dense_rubric(dense, rubric, rubric_weight=rubric_weight)


def combine_dense_rubric(dense: RewardBreakdown, rubric: RewardBreakdown, *, rubric_weight: float) -> RewardBreakdown:
    """The dense+rubric breakdown from the two already judged, so a run that stores both calls the judge once."""
    components = {f"dense.{key}": (1 - rubric_weight) * value for key, value in dense.components.items()}
    components.update({f"rubric.{key}": rubric_weight * value for key, value in rubric.components.items()})
    return RewardBreakdown("dense+rubric", sum(components.values()), components, rubric.details)
