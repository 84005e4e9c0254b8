"""Grading of a submission against a task bundle's private answers: validation, metric, milestones, HumanRank."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sandmle import metrics
from sandmle.errors import UsageError

SPLITS = ("public", "private", "all")
MILESTONES = ("gold", "silver", "bronze", "median")
# Multiclass probability rows may carry rounding from a CSV writer; 1e-3 accepts 6-digit floats, rejects real errors.
PROBABILITY_SUM_TOLERANCE = 1e-3
_MAX_LISTED = 5


@dataclass
class GradeReport:
    """MLE-bench's report fields plus the milestone reached, HumanRank position score, errors and split."""

    competition_id: str
    score: float | None
    gold_threshold: float
    silver_threshold: float
    bronze_threshold: float
    median_threshold: float
    gold_medal: bool
    silver_medal: bool
    bronze_medal: bool
    any_medal: bool
    above_median: bool
    submission_exists: bool
    valid_submission: bool
    is_lower_better: bool
    milestone: str | None
    position_score: float
    errors: list[str] = field(default_factory=list)
    split: str = "private"

    def to_dict(self) -> dict:
        return asdict(self)


REQUIRED_GRADING_KEYS = ("metric", "is_lower_better", "task_type", "target_column", "submission_columns", "milestones")


def load_grading(task_dir: Path) -> dict:
    """Read private/grading.json, raising UsageError when the task bundle is not usable."""
    task_dir = Path(task_dir)
    if not task_dir.is_dir():
        raise UsageError(f"task directory {task_dir} does not exist")
    grading_path = task_dir / "private" / "grading.json"
    if not grading_path.is_file():
        raise UsageError(f"{grading_path} not found: not a task bundle")
    try:
        grading = json.loads(grading_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{grading_path} is not valid JSON: {error}") from None
    if not isinstance(grading, dict):
        raise UsageError(f"{grading_path} must hold a JSON object")
    missing = [key for key in REQUIRED_GRADING_KEYS if key not in grading]
    if missing:
        raise UsageError(f"{grading_path} lacks {', '.join(missing)}")
    missing_milestones = [name for name in MILESTONES if name not in (grading["milestones"] or {})]
    if missing_milestones:
        raise UsageError(f"{grading_path} has no {', '.join(missing_milestones)} milestone")
    try:
        metrics.get_metric(grading["metric"])
    except ValueError as error:
        raise UsageError(f"{grading_path}: {error}") from None
    return grading


def _task_id(task_dir: Path) -> str:
    task_json = Path(task_dir) / "task.json"
    if task_json.is_file():
        return str(json.loads(task_json.read_text()).get("task_id", Path(task_dir).name))
    return Path(task_dir).name


def _load_answers(task_dir: Path) -> pd.DataFrame:
    # Everything as text: ids and labels are compared exactly as they are written, never through float parsing.
    return pd.read_csv(Path(task_dir) / "private" / "answers.csv", dtype=str, keep_default_na=False)


def _listed(values) -> str:
    values = [str(value) for value in values]
    shown = ", ".join(repr(value) for value in values[:_MAX_LISTED])
    return shown + (f" and {len(values) - _MAX_LISTED} more" if len(values) > _MAX_LISTED else "")


def _read_submission(submission: Path) -> tuple[pd.DataFrame | None, list[str]]:
    if not submission.exists():
        return None, [f"submission file {submission.name} does not exist"]
    if not submission.is_file():
        return None, [f"submission {submission.name} is not a file"]
    head = submission.read_bytes()[:65536]
    if not head.strip():
        return None, [f"submission {submission.name} is empty"]
    if b"\x00" in head:
        return None, [f"submission {submission.name} is binary, not a CSV text file"]
    try:
        frame = pd.read_csv(submission, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as error:
        return None, [f"submission {submission.name} is not a parseable CSV: {str(error).strip().splitlines()[0]}"]
    return frame, []


def _prediction_errors(frame: pd.DataFrame, grading: dict, prediction_columns: list[str], metric: metrics.Metric) -> list[str]:
    errors: list[str] = []
    if metric.prediction == "label":
        allowed = {str(label) for label in grading.get("labels") or []}
        column = prediction_columns[0]
        outside = sorted(set(frame[column]) - allowed)
        if outside:
            errors.append(f"column {column!r} has values outside the label set {_listed(sorted(allowed))}: {_listed(outside)}")
        return errors
    numeric = {}
    for column in prediction_columns:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad_rows = frame.index[~np.isfinite(values.to_numpy(dtype=float))]
        if len(bad_rows):
            examples = _listed(frame.loc[bad_rows[:_MAX_LISTED], column])
            errors.append(f"column {column!r} has {len(bad_rows)} non-numeric, NaN or infinite values (e.g. {examples})")
        numeric[column] = values
    if errors or metric.prediction != "probability":
        return errors
    for column, values in numeric.items():
        out = int(((values < 0) | (values > 1)).sum())
        if out:
            errors.append(f"column {column!r} has {out} probabilities outside [0, 1]")
    if len(prediction_columns) > 1 and not errors:
        sums = pd.DataFrame(numeric).sum(axis=1)
        off = frame.index[(sums - 1.0).abs() > PROBABILITY_SUM_TOLERANCE]
        if len(off):
            errors.append(
                f"{len(off)} rows have probabilities not summing to 1 (within {PROBABILITY_SUM_TOLERANCE}), "
                f"e.g. id {frame.loc[off[0], grading.get('id_column', 'id')]!r} sums to {sums[off[0]]:.6g}"
            )
    return errors


def _check(task_dir: Path, submission: Path, grading: dict, answers: pd.DataFrame) -> tuple[pd.DataFrame | None, list[str]]:
    frame, errors = _read_submission(Path(submission))
    if frame is None:
        return None, errors
    id_column = grading.get("id_column", "id")
    expected = [str(column) for column in grading["submission_columns"]]
    missing = [column for column in expected if column not in frame.columns]
    extra = [column for column in frame.columns if column not in expected]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing columns {_listed(missing)}")
        if extra:
            parts.append(f"unexpected columns {_listed(extra)}")
        return None, [f"wrong columns: {'; '.join(parts)} (expected exactly {_listed(expected)})"]
    if len(frame) != len(answers):
        errors.append(f"submission has {len(frame)} rows, expected {len(answers)} (one per test id)")
    duplicated = frame[id_column][frame[id_column].duplicated()].unique()
    if len(duplicated):
        errors.append(f"{len(duplicated)} ids appear more than once: {_listed(duplicated)}")
    known = set(answers[id_column])
    given = set(frame[id_column])
    if known - given:
        errors.append(f"{len(known - given)} test ids are missing: {_listed(sorted(known - given))}")
    if given - known:
        errors.append(f"{len(given - known)} ids are not test ids: {_listed(sorted(given - known))}")
    metric = metrics.get_metric(grading["metric"])
    errors += _prediction_errors(frame, grading, [column for column in expected if column != id_column], metric)
    return (None if errors else frame), errors


def validate_submission(task_dir: Path, submission: Path, *, split: str = "private") -> list[str]:
    """Return every reason the submission cannot be graded; an empty list means it is valid."""
    if split not in SPLITS:
        raise UsageError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    grading = load_grading(task_dir)
    return _check(Path(task_dir), Path(submission), grading, _load_answers(task_dir))[1]


def _score_frame(frame: pd.DataFrame, answers: pd.DataFrame, grading: dict, split: str) -> float:
    id_column = grading.get("id_column", "id")
    target = grading["target_column"]
    rows = answers if split == "all" else answers[answers["leaderboard"] == split]
    merged = rows.merge(frame, on=id_column, how="left", suffixes=("_true", ""))
    y_true = merged[f"{target}_true" if f"{target}_true" in merged else target]
    metric = metrics.get_metric(grading["metric"])
    labels = [str(label) for label in grading.get("labels") or []] or None
    if metric.prediction == "label":
        return metrics.score(metric.name, y_true.to_numpy(), merged[target].to_numpy(), labels=labels)
    if metric.prediction == "value":
        return metrics.score(metric.name, y_true.astype(float).to_numpy(), merged[target].astype(float).to_numpy())
    if grading["task_type"] == "binary":
        # labels[1] is the positive class; scoring 0/1 truth keeps sklearn from guessing the positive label.
        positive = (y_true == labels[1]).astype(int).to_numpy()
        return metrics.score(metric.name, positive, merged[target].astype(float).to_numpy(), labels=[0, 1])
    probabilities = merged[labels].astype(float).to_numpy()
    return metrics.score(metric.name, y_true.to_numpy(), probabilities, labels=labels)


def _reaches(score: float, threshold: float, is_lower_better: bool) -> bool:
    return score <= threshold if is_lower_better else score >= threshold


def position_score(score: float | None, ladder: dict | list, *, is_lower_better: bool) -> float:
    """HumanRank (N - p + 1) / N against the ladder's N scores; p = 1 + number of ladder scores strictly better.

    A tie with a ladder entry takes that entry's rank (standard competition ranking), so matching the best
    reference gives 1.0; a score worse than every entry gets p = N + 1 and so 0.0; an invalid one 0.0.
    """
    values = [float(value) for value in (ladder.values() if isinstance(ladder, dict) else ladder) if value is not None]
    if score is None or not values or (isinstance(score, float) and math.isnan(score)):
        return 0.0
    strictly_better = sum(1 for value in values if (value < score if is_lower_better else value > score))
    n = len(values)
    return (n - (strictly_better + 1) + 1) / n


def grade_submission(task_dir: Path, submission: Path, *, split: str = "private") -> GradeReport:
    """Validate and score a submission file on one split of the hidden answers; reads only the file and private/."""
    if split not in SPLITS:
        raise UsageError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    task_dir = Path(task_dir)
    grading = load_grading(task_dir)
    answers = _load_answers(task_dir)
    frame, errors = _check(task_dir, Path(submission), grading, answers)
    is_lower_better = bool(grading["is_lower_better"])
    thresholds = {name: float(grading["milestones"][name]) for name in MILESTONES}
    score = None
    if frame is not None:
        try:
            score = _score_frame(frame, answers, grading, split)
        except ValueError as error:
            errors.append(f"the metric {grading['metric']} could not score this submission: {error}")
        if score is not None and not math.isfinite(score):
            errors.append(f"the metric {grading['metric']} gave a non-finite score")
            score = None
    reached = {name: score is not None and _reaches(score, thresholds[name], is_lower_better) for name in MILESTONES}
    milestone = next((name for name in MILESTONES if reached[name]), None)
    return GradeReport(
        competition_id=_task_id(task_dir),
        score=score,
        gold_threshold=thresholds["gold"],
        silver_threshold=thresholds["silver"],
        bronze_threshold=thresholds["bronze"],
        median_threshold=thresholds["median"],
        gold_medal=reached["gold"],
        silver_medal=reached["silver"] and not reached["gold"],
        bronze_medal=reached["bronze"] and not reached["silver"],
        any_medal=reached["bronze"],
        above_median=reached["median"],
        submission_exists=Path(submission).is_file(),
        valid_submission=score is not None,
        is_lower_better=is_lower_better,
        milestone=milestone,
        position_score=position_score(score, grading.get("ladder") or {}, is_lower_better=is_lower_better),
        errors=errors,
        split=split,
    )


FEEDBACK_MODES = ("none", "validate", "score")


def feedback_text(report: GradeReport, mode: str) -> str:
    """The text an agent sees after submitting during an episode: nothing, format check only, or public score."""
    if mode not in FEEDBACK_MODES:
        raise UsageError(f"feedback mode must be one of {', '.join(FEEDBACK_MODES)}, not {mode!r}")
    if mode == "none":
        return ""
    if not report.valid_submission:
        return "Submission is invalid:\n" + "\n".join(f"- {error}" for error in report.errors)
    if mode == "validate":
        return "Submission is valid."
    direction = "lower is better" if report.is_lower_better else "higher is better"
    return (
        f"Submission is valid. Score on the {report.split} split: {report.score:.6g} ({direction}).\n"
        f"Thresholds: gold {report.gold_threshold:.6g}, silver {report.silver_threshold:.6g}, "
        f"bronze {report.bronze_threshold:.6g}, median {report.median_threshold:.6g}.\n"
        f"Milestone reached: {report.milestone or 'none'}."
    )
