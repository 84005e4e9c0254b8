"""The source of an exported competition's grade.py: our grading rule for one task using only pandas, numpy and sklearn."""

from __future__ import annotations

import pprint

# The exported file must run inside MLE-bench with nothing of ours installed, so it carries the task's grading
# settings as a literal and reimplements the scoring of sandmle/tasks/grading.py for them.
GRADE_SOURCE = '''"""Grader for {task_id}, exported by SandMLE: grade(submission, answers) -> float, as MLE-bench calls it."""

import numpy as np
import pandas as pd
from sklearn import metrics

try:
    from mlebench.grade_helpers import InvalidSubmissionError
except ImportError:  # graded outside MLE-bench
    class InvalidSubmissionError(Exception):
        """The submission cannot be graded."""

GRADING = {grading}


def _score(metric, y_true, y_pred, labels):
    if metric == "accuracy":
        return metrics.accuracy_score(y_true, y_pred)
    if metric == "macro_f1":
        return metrics.f1_score(y_true, y_pred, average="macro", labels=labels)
    if metric == "rmse":
        return float(np.sqrt(metrics.mean_squared_error(y_true, y_pred)))
    if metric == "mae":
        return metrics.mean_absolute_error(y_true, y_pred)
    if metric == "r2":
        return metrics.r2_score(y_true, y_pred)
    if metric == "roc_auc":
        if y_pred.ndim == 1:
            return metrics.roc_auc_score(y_true, y_pred)
        return metrics.roc_auc_score(y_true, y_pred, multi_class="ovr", labels=labels)
    if metric == "log_loss":
        if y_pred.ndim == 1:
            y_pred = np.column_stack([1.0 - y_pred, y_pred])
        return metrics.log_loss(y_true, y_pred, labels=labels)
    raise ValueError("unknown metric " + metric)


def grade(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    id_column, target = GRADING["id_column"], GRADING["target_column"]
    columns = GRADING["submission_columns"]
    if sorted(map(str, submission.columns)) != sorted(columns):
        raise InvalidSubmissionError("expected exactly the columns " + ", ".join(columns))
    submission = submission.astype({{id_column: str}})
    answers = answers.astype({{id_column: str, target: str}})
    if len(submission) != len(answers) or set(submission[id_column]) != set(answers[id_column]):
        raise InvalidSubmissionError("expected one row for each test id")
    if submission[id_column].duplicated().any():
        raise InvalidSubmissionError("an id appears more than once")
    # Rows marked public were the episode's feedback split; the score is the private split's, as SandMLE grades.
    if "leaderboard" in answers.columns:
        answers = answers[answers["leaderboard"] == "private"]
    merged = answers[[id_column, target]].merge(submission, on=id_column, how="left", suffixes=("_true", ""))
    y_true = merged[target + "_true" if target + "_true" in merged else target]
    labels = [str(label) for label in GRADING["labels"] or []] or None
    predicted = [column for column in columns if column != id_column]
    try:
        if GRADING["prediction"] == "label":
            if not set(merged[target].astype(str)) <= set(labels):
                raise InvalidSubmissionError("a prediction is not one of the labels")
            return float(_score(GRADING["metric"], y_true.to_numpy(), merged[target].astype(str).to_numpy(), labels))
        values = merged[predicted].astype(float)
        if not np.isfinite(values.to_numpy()).all():
            raise InvalidSubmissionError("a prediction is not a finite number")
        if GRADING["prediction"] == "value":
            return float(_score(GRADING["metric"], y_true.astype(float).to_numpy(), values[target].to_numpy(), None))
        if GRADING["task_type"] == "binary":
            positive = (y_true == labels[1]).astype(int).to_numpy()
            return float(_score(GRADING["metric"], positive, values[target].to_numpy(), [0, 1]))
        return float(_score(GRADING["metric"], y_true.to_numpy(), values[labels].to_numpy(), labels))
    except (ValueError, KeyError) as error:
        raise InvalidSubmissionError(str(error)) from None
'''

PREPARE_SOURCE = '''"""Preparer for {task_id}, exported by SandMLE: its data is already prepared under <data>/{task_id}/prepared."""

from pathlib import Path


def prepare(raw: Path, public: Path, private: Path) -> None:
    for folder in (public, private):
        if not Path(folder).is_dir() or not any(Path(folder).iterdir()):
            raise FileNotFoundError(f"{{folder}} is empty: copy the exported prepared/ folders into the data directory")
'''


def grade_source(task_id: str, grading: dict, prediction: str) -> str:
    settings = {key: grading.get(key) for key in ("metric", "task_type", "target_column", "labels",
                                                  "submission_columns")}
    settings["id_column"] = grading.get("id_column", "id")
    settings["prediction"] = prediction
    return GRADE_SOURCE.format(task_id=task_id, grading=pprint.pformat(settings, sort_dicts=False))


def prepare_source(task_id: str) -> str:
    return PREPARE_SOURCE.format(task_id=task_id)
