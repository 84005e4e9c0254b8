"""Writing an imported competition as our bundle: public/private split, metric by name, grading.json, an 'imported' mark."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from sandmle.bundle import bundle_hash, file_hashes, write_json
from sandmle.errors import UsageError
from sandmle.metrics import METRICS, get_metric

# Names other layouts give our metrics (MLE-bench graders and MLE-Dojo configs spell them their own way).
METRIC_ALIASES = {"auc": "roc_auc", "auc_roc": "roc_auc", "roc_auc_score": "roc_auc", "logloss": "log_loss",
                  "multi_class_log_loss": "log_loss", "f1_macro": "macro_f1", "mean_absolute_error": "mae",
                  "root_mean_squared_error": "rmse", "accuracy_score": "accuracy", "r2_score": "r2"}
# Files a folder may hold beside the agent's data that carry answers or graders: never copied into public/.
PRIVATE_NAMES = {"answer.csv", "answers.csv", "solution.csv", "test_answer.csv", "evaluator.py", "grade.py"}


def metric_by_name(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = METRIC_ALIASES.get(key, key)
    if key not in METRICS:
        raise UsageError(f"metric: {name!r} is not one SandMLE grades ({', '.join(sorted(METRICS))})")
    return key


def public_split(ids: pd.Series) -> np.ndarray:
    """Which answer rows score the episode's feedback ('public', 3 in 10 by row order) and which the grade."""
    return np.where(np.arange(len(ids)) % 10 < 3, "public", "private")


def _grading(answers: pd.DataFrame, sample_columns: list[str], metric_name: str, thresholds: dict) -> dict:
    metric = get_metric(metric_name)
    id_column = sample_columns[0]
    target_candidates = [c for c in answers.columns if c not in (id_column, "leaderboard")]
    if id_column not in answers.columns or not target_candidates:
        raise UsageError(f"answers: expected the id column {id_column!r} and a target column")
    target = sample_columns[1] if len(sample_columns) == 2 and sample_columns[1] in answers.columns \
        else target_candidates[0]
    if metric.prediction == "value":
        task_type, labels = "regression", None
    elif metric.prediction == "probability" and len(sample_columns) > 2:
        task_type, labels = "multiclass", [str(c) for c in sample_columns[1:]]
    else:
        labels = sorted(map(str, answers[target].unique()))
        task_type = "binary" if len(labels) == 2 else "multiclass"
    if task_type not in metric.task_types:
        raise UsageError(f"metric: {metric_name} does not grade a {task_type} task")
    return {"metric": metric_name, "is_lower_better": bool(thresholds["is_lower_better"]), "task_type": task_type,
            "id_column": id_column, "target_column": target, "labels": labels, "submission_columns": sample_columns,
            "milestones": {name: float(thresholds[name]) for name in ("gold", "silver", "bronze", "median")}}


def imported_bundle(task_dir: Path, *, task_id: str, public_dir: Path, answers: pd.DataFrame, metric_name: str,
                    thresholds: dict, leaderboard_scores: list[float] | None, ladder: dict | None,
                    description: str | None, source_format: str) -> Path:
    """Write the bundle; answers go only to private/, answer-like files of the source never reach public/."""
    task_dir = Path(task_dir)
    if task_dir.exists():
        raise UsageError(f"--out: {task_dir.name} already exists there")
    metric_name = metric_by_name(metric_name)
    sample = Path(public_dir) / "sample_submission.csv"
    if not sample.is_file():
        raise UsageError("SRC: no sample_submission.csv among the public files")
    sample_columns = [str(c) for c in pd.read_csv(sample, nrows=0).columns]
    (task_dir / "private").mkdir(parents=True)
    for path in sorted(Path(public_dir).rglob("*")):
        if path.is_symlink() or not path.is_file() or path.name.lower() in PRIVATE_NAMES:
            continue
        target = task_dir / "public" / path.relative_to(public_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    if description is not None:
        (task_dir / "public" / "description.md").write_text(description, encoding="utf-8")
    answers = answers.copy()
    if "leaderboard" not in answers.columns:
        answers["leaderboard"] = public_split(answers[answers.columns[0]])
    answers.to_csv(task_dir / "private" / "answers.csv", index=False)
    grading = _grading(answers, sample_columns, metric_name, thresholds)
    # HumanRank's reference scores: the source's ladder, else its leaderboard, else the four thresholds themselves.
    grading["ladder"] = ladder or {f"team-{rank}": score for rank, score in enumerate(leaderboard_scores or [], 1)} \
        or dict(grading["milestones"])
    write_json(grading, task_dir / "private" / "grading.json")
    write_json({"description": f"imported from a {source_format} competition; its hidden rule is not known"},
               task_dir / "private" / "rule.json")
    hashes = file_hashes(task_dir)
    write_json({"task_id": task_id, "generator_version": f"imported-{source_format}", "imported": True,
                "source_format": source_format, "spec": {}, "bundle_sha256": bundle_hash(hashes), "files": hashes},
               task_dir / "task.json")
    return task_dir
