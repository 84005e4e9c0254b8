"""Writing an imported competition as our bundle: public/private split, metric by name, grading.json, an 'imported' mark."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from sandmle.errors import UsageError
from sandmle.formats.source_files import PublicFiles, finite_number, flag, plain_id
from sandmle.sandbox.host_files import remove_tree
from sandmle.tasks.bundle import bundle_hash, file_hashes, write_json
from sandmle.tasks.grading_checks import check_grading
from sandmle.tasks.metrics import METRICS, get_metric

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


def _validated_numbers(thresholds: dict, leaderboard_scores: list | None, ladder: dict | None) -> tuple:
    """Every number the source gave, checked now: one bad value would otherwise fail every later grade of the task."""
    checked = {"is_lower_better": flag(thresholds["is_lower_better"], field_name="is_lower_better")}
    for name in ("gold", "silver", "bronze", "median"):
        checked[name] = finite_number(thresholds[name], field_name=f"{name}_threshold")
    scores = None if leaderboard_scores is None else [finite_number(score, field_name=f"leaderboard score {rank}")
                                                      for rank, score in enumerate(leaderboard_scores, 1)]
    if ladder is not None:
        if not isinstance(ladder, dict):
            raise UsageError(f"ladder: expected an object of name: score, got {type(ladder).__name__}")
        ladder = {str(name)[:200]: finite_number(score, field_name=f"ladder[{str(name)[:40]!r}]")
                  for name, score in ladder.items()}
    return checked, scores, ladder


def imported_bundle(out_dir: Path, *, task_id: str, public: PublicFiles, answers: pd.DataFrame, metric_name: str,
                    thresholds: dict, leaderboard_scores: list[float] | None, ladder: dict | None,
                    description: str | None, source_format: str) -> Path:
    """Write OUT/<id>; answers go only to private/, answer-like files of the source never reach public/.

    The bundle is built in a hidden folder beside its place and renamed there at the end, so a refused import
    leaves nothing behind.
    """
    task_id = plain_id(task_id, field_name="id")
    out_dir = Path(out_dir)
    task_dir = out_dir / task_id
    if task_dir.exists() or task_dir.is_symlink():
        raise UsageError(f"--out: {task_id} already exists there")
    metric_name = metric_by_name(metric_name)
    thresholds, leaderboard_scores, ladder = _validated_numbers(thresholds, leaderboard_scores, ladder)
    if "sample_submission.csv" not in public.names():
        raise UsageError("SRC: no sample_submission.csv among the public files")
    folder, relative = public.files["sample_submission.csv"]
    sample_columns = [str(c) for c in folder.read_csv(relative, nrows=0).columns]
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".importing-{task_id}-", dir=out_dir))
    try:
        (staging / "private").mkdir()
        agent_files = PublicFiles({target: source for target, source in public.files.items()
                                   if PurePosixPath(target).name.lower() not in PRIVATE_NAMES})
        agent_files.copy_into(staging / "public")
        if description is not None:
            (staging / "public" / "description.md").write_text(description, encoding="utf-8")
        answers = answers.copy()
        if "leaderboard" not in answers.columns:
            answers["leaderboard"] = public_split(answers[answers.columns[0]])
        answers.to_csv(staging / "private" / "answers.csv", index=False)
        grading = _grading(answers, sample_columns, metric_name, thresholds)
        # HumanRank's reference scores: the source's ladder, else its leaderboard, else the four thresholds.
        board = {f"team-{rank}": score for rank, score in enumerate(leaderboard_scores or [], 1)}
        grading["ladder"] = ladder or board or dict(grading["milestones"])
        check_grading(grading)
        write_json(grading, staging / "private" / "grading.json")
        write_json({"description": f"imported from a {source_format} competition; its hidden rule is not known"},
                   staging / "private" / "rule.json")
        hashes = file_hashes(staging)
        write_json({"task_id": task_id, "generator_version": f"imported-{source_format}", "imported": True,
                    "source_format": source_format, "spec": {}, "bundle_sha256": bundle_hash(hashes),
                    "files": hashes}, staging / "task.json")
        os.chmod(staging, 0o755)
        os.rename(staging, task_dir)
    except BaseException:
        remove_tree(staging)
        raise
    return task_dir
