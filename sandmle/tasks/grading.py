"""Grading of a submission against a task bundle's private answers: validation, metric, milestones, HumanRank."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from sandmle.untrusted import bounded_json
from sandmle.errors import UsageError
from sandmle.sandbox.host_files import EpisodeDir, RefusedFile
from sandmle.tasks import metrics
from sandmle.tasks.grade_report import GradeReport
from sandmle.tasks.grading_checks import check_grading

SPLITS = ("public", "private", "all")
MILESTONES = ("gold", "silver", "bronze", "median")
# Multiclass probability rows may carry rounding from a CSV writer; 1e-3 accepts 6-digit floats, rejects real errors.
PROBABILITY_SUM_TOLERANCE = 1e-3
_MAX_LISTED = 5
_MAX_LISTED_CHARS = 40
# A submission field is an id or a number; 128 bytes each is several times any real one (a UUID, a 17-digit float).
SUBMISSION_BYTES_PER_FIELD = 128
SUBMISSION_SLACK_BYTES = 1 << 20


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
        # NaN is read, so that check_grading names the milestone that holds it.
        grading = bounded_json.loads(grading_path.read_bytes(), allow_nan=True)
    except ValueError as error:  # not JSON, not UTF-8, or nested past bounded_json.MAX_DEPTH
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
        check_grading(grading)
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


def answer_row_count(task_dir: Path) -> int:
    """How many test ids the task has (the rows of private/answers.csv)."""
    return len(_load_answers(task_dir))


def _listed(values) -> str:
    values = [str(value) if len(str(value)) <= _MAX_LISTED_CHARS else str(value)[:_MAX_LISTED_CHARS] + "…"
              for value in values]
    shown = ", ".join(repr(value) for value in values[:_MAX_LISTED])
    return shown + (f" and {len(values) - _MAX_LISTED} more" if len(values) > _MAX_LISTED else "")


def submission_byte_cap(grading: dict, test_rows: int) -> int:
    """The largest submission read for a task: generous bytes per field for every test row, plus slack."""
    return SUBMISSION_SLACK_BYTES + test_rows * len(grading["submission_columns"]) * SUBMISSION_BYTES_PER_FIELD


def _locate(submission: Path, episode_dir: Path | None) -> tuple[EpisodeDir, str]:
    """The directory the submission is opened from (never through a link) and its path inside it."""
    submission = Path(submission)
    if episode_dir is None:
        return EpisodeDir(submission.parent), submission.name
    try:
        return EpisodeDir(Path(episode_dir)), submission.relative_to(episode_dir).as_posix()
    except ValueError:
        return EpisodeDir(submission.parent), submission.name


def _structure_errors(text: str, expected: list[str], test_rows: int) -> list[str]:
    """One streaming pass of the csv module before pandas: the header names the expected columns once each, no row
    has more fields than the header, and there are at most twice the test rows. pandas then parses a frame whose
    size is bounded by the task's own, whatever the file holds, so a hostile file costs time linear in its capped size.
    """
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, [])
        if len(header) != len(set(header)) or set(header) != set(expected):
            duplicated = sorted({column for column in header if header.count(column) > 1}) if len(header) < 1000 else []
            missing = [column for column in expected if column not in header]
            extra = sorted(set(header) - set(expected))
            parts = [f"missing columns {_listed(missing)}"] if missing else []
            parts += [f"unexpected columns {_listed(extra)}"] if extra else []
            parts += [f"repeated columns {_listed(duplicated)}"] if duplicated or not parts else []
            return [f"wrong columns: {'; '.join(parts)} (expected exactly {_listed(expected)})"]
        rows = 0
        for line, row in enumerate(reader, start=2):
            if not row:
                continue
            rows += 1
            if len(row) > len(header):
                return [f"not a parseable CSV: line {line} has {len(row)} fields, the header {len(header)}"]
            if rows > 2 * test_rows + 10:
                return [f"submission has more than {2 * test_rows + 10} rows, expected {test_rows} (one per test id)"]
    except csv.Error as error:
        return [f"not a parseable CSV: {error}"]
    return []


def _read_submission(files: EpisodeDir, name: str, *, expected: list[str], test_rows: int,
                     byte_cap: int) -> tuple[pd.DataFrame | None, list[str]]:
    shown = Path(name).name
    if not files.exists(name):
        return None, [f"submission file {shown} does not exist"]
    try:
        data = files.read_bytes(name, max_bytes=byte_cap)
    except RefusedFile as refusal:
        return None, [f"submission {refusal}"]
    if not data[:65536].strip():
        return None, [f"submission {shown} is empty"]
    if b"\x00" in data:
        return None, [f"submission {shown} is binary, not a CSV text file"]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, [f"submission {shown} is not a parseable CSV: it is not UTF-8 text"]
    structure = _structure_errors(text, expected, test_rows)
    if structure:
        return None, [f"submission {shown} is {structure[0]}" if structure[0].startswith("not a parseable") else structure[0]]
    try:
        frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as error:
        return None, [f"submission {shown} is not a parseable CSV: {str(error).strip().splitlines()[0]}"]
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


def _check(submission: Path, grading: dict, answers: pd.DataFrame,
           episode_dir: Path | None) -> tuple[pd.DataFrame | None, list[str]]:
    id_column = grading.get("id_column", "id")
    expected = [str(column) for column in grading["submission_columns"]]
    files, name = _locate(submission, episode_dir)
    frame, errors = _read_submission(files, name, expected=expected, test_rows=len(answers),
                                     byte_cap=submission_byte_cap(grading, len(answers)))
    if frame is None:
        return None, errors
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


def validate_submission(task_dir: Path, submission: Path, *, split: str = "private",
                        episode_dir: Path | None = None) -> list[str]:
    """Return every reason the submission cannot be graded; an empty list means it is valid.

    The file is opened from episode_dir (default: its own directory) without following any link, and only if it is a
    regular file no larger than the task can need (`submission_byte_cap`).
    """
    if split not in SPLITS:
        raise UsageError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    grading = load_grading(task_dir)
    return _check(Path(submission), grading, _load_answers(task_dir), episode_dir)[1]


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


def grade_submission(task_dir: Path, submission: Path, *, split: str = "private",
                     episode_dir: Path | None = None) -> GradeReport:
    """Validate and score a submission file on one split of the hidden answers; reads only the file and private/.

    The submission is read as validate_submission reads it: never through a link, refused above the task's cap.
    """
    if split not in SPLITS:
        raise UsageError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    task_dir = Path(task_dir)
    grading = load_grading(task_dir)
    answers = _load_answers(task_dir)
    frame, errors = _check(Path(submission), grading, answers, episode_dir)
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
        submission_exists=_locate(submission, episode_dir)[0].exists(_locate(submission, episode_dir)[1]),
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
