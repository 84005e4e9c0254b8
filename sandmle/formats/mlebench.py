"""MLE-bench's layout: export a bundle as a registry competition plus prepared data, import a prepared competition."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import yaml

from sandmle.errors import UsageError
from sandmle.formats.bundle_io import imported_bundle
from sandmle.formats.grade_template import grade_source, prepare_source
from sandmle.formats.leaderboard import leaderboard_for, thresholds_from_leaderboard
from sandmle.grading import load_grading
from sandmle.metrics import get_metric

# Our ladder (HumanRank's reference scores) travels beside the competition so a re-import grades the same way;
# MLE-bench ignores files it does not know.
LADDER_FILE = "sandmle_ladder.json"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_task(task_dir: Path, out_dir: Path) -> Path:
    """Write competitions/<id>/ and data/<id>/prepared/{public,private} under out_dir; return the competition folder."""
    from sandmle.evaluation.campaign import task_id_of

    task_dir, out_dir = Path(task_dir), Path(out_dir)
    grading = load_grading(task_dir)
    task_id = task_id_of(task_dir)
    competition = out_dir / "competitions" / task_id
    prepared = out_dir / "data" / task_id / "prepared"
    competition.mkdir(parents=True, exist_ok=True)
    (prepared / "private").mkdir(parents=True, exist_ok=True)
    shutil.copytree(task_dir / "public", prepared / "public", dirs_exist_ok=True)
    # The answers keep their leaderboard column: grade.py scores the private rows, as our grader does.
    shutil.copyfile(task_dir / "private" / "answers.csv", prepared / "private" / "test.csv")
    shutil.copyfile(task_dir / "public" / "description.md", competition / "description.md")
    config = {
        "id": task_id,
        "name": task_id,
        "competition_type": "simple",
        "awards_medals": True,
        "prizes": None,
        "description": f"mlebench/competitions/{task_id}/description.md",
        "dataset": {"answers": f"{task_id}/prepared/private/test.csv",
                    "sample_submission": f"{task_id}/prepared/public/sample_submission.csv"},
        "grader": {"name": grading["metric"], "grade_fn": f"mlebench.competitions.{task_id}.grade:grade"},
        "preparer": f"mlebench.competitions.{task_id}.prepare:prepare",
    }
    (competition / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    prediction = get_metric(grading["metric"]).prediction
    (competition / "grade.py").write_text(grade_source(task_id, grading, prediction), encoding="utf-8")
    (competition / "prepare.py").write_text(prepare_source(task_id), encoding="utf-8")
    (competition / "__init__.py").write_text("", encoding="utf-8")
    scores = leaderboard_for(grading["milestones"], is_lower_better=bool(grading["is_lower_better"]))
    pd.DataFrame({"teamName": [f"team-{rank}" for rank in range(1, len(scores) + 1)], "score": scores}).to_csv(
        competition / "leaderboard.csv", index=False, float_format="%.17g")
    (competition / LADDER_FILE).write_text(json.dumps(grading.get("ladder") or {}, indent=2) + "\n")
    checksums = {"private": {"test.csv": _sha256(prepared / "private" / "test.csv")},
                 "public": {path.relative_to(prepared / "public").as_posix(): _sha256(path)
                            for path in sorted((prepared / "public").rglob("*")) if path.is_file()}}
    (competition / "checksums.yaml").write_text(yaml.safe_dump(checksums, sort_keys=True), encoding="utf-8")
    return competition


def read_leaderboard(path: Path) -> list[float]:
    if not path.is_file():
        raise UsageError(f"SRC: {path.name} not found beside the competition")
    scores = pd.read_csv(path)["score"].dropna().astype(float).tolist()
    if not scores:
        raise UsageError("SRC: leaderboard.csv has no scores")
    return scores


def import_competition(source: Path, out_dir: Path, *, data_dir: Path | None = None) -> Path:
    """A prepared MLE-bench competition (its registry folder, data under data_dir) as a bundle in out_dir/<id>."""
    source = Path(source)
    if not (source / "config.yaml").is_file():
        raise UsageError(f"SRC: {source} holds no config.yaml (expected a competitions/<id> folder)")
    config = yaml.safe_load((source / "config.yaml").read_text()) or {}
    task_id = str(config.get("id") or source.name)
    data_dir = Path(data_dir) if data_dir else source.parent.parent / "data"
    answers_path = data_dir / config.get("dataset", {}).get("answers", f"{task_id}/prepared/private/test.csv")
    public_dir = data_dir / task_id / "prepared" / "public"
    if not public_dir.is_dir() or not answers_path.is_file():
        raise UsageError(f"--data: no prepared data for {task_id} (needs {task_id}/prepared/public and the answers)")
    scores = read_leaderboard(source / "leaderboard.csv")
    ladder_path = source / LADDER_FILE
    ladder = json.loads(ladder_path.read_text()) if ladder_path.is_file() else None
    description = source / "description.md"
    return imported_bundle(
        out_dir / task_id, task_id=task_id, public_dir=public_dir, answers=pd.read_csv(answers_path, dtype=str,
                                                                                         keep_default_na=False),
        metric_name=str((config.get("grader") or {}).get("name", "")), thresholds=thresholds_from_leaderboard(scores),
        leaderboard_scores=scores, ladder=ladder, description=description.read_text() if description.is_file() else None,
        source_format="mlebench")


__all__ = ["export_task", "import_competition"]
