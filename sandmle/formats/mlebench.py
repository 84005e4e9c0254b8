"""MLE-bench's layout: export a bundle as a registry competition plus prepared data, import a prepared competition."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import yaml

from sandmle.untrusted import bounded_json
from sandmle.errors import UsageError
from sandmle.formats.bundle_io import imported_bundle
from sandmle.formats.grade_template import grade_source, prepare_source
from sandmle.formats.leaderboard import leaderboard_for, thresholds_from_leaderboard
from sandmle.formats.source_files import PublicFiles, SourceFolder, SourceLimits, finite_number, inside_path, plain_id
from sandmle.tasks.grading import load_grading
from sandmle.tasks.metrics import get_metric

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


def read_leaderboard(source: SourceFolder) -> list[float]:
    if not source.is_file("leaderboard.csv"):
        raise UsageError("SRC: leaderboard.csv not found beside the competition")
    board = source.read_csv("leaderboard.csv")
    if "score" not in board.columns:
        raise UsageError("SRC: leaderboard.csv has no score column")
    scores = [finite_number(score, field_name=f"leaderboard.csv score on row {row}")
              for row, score in enumerate(board["score"].dropna().tolist(), 1)]
    if not scores:
        raise UsageError("SRC: leaderboard.csv has no scores")
    return scores


def import_competition(source: Path, out_dir: Path, *, data_dir: Path | None = None,
                       limits: SourceLimits | None = None) -> Path:
    """A prepared MLE-bench competition (its registry folder, data under data_dir) as a bundle in out_dir/<id>.

    Both folders are untrusted (source_files.py): every path config.yaml names must stay inside the data directory.
    """
    source = Path(source)
    if not source.is_dir():
        raise UsageError(f"SRC: {source} is not a folder")
    competition = SourceFolder(source, label="SRC", limits=limits)
    if not competition.is_file("config.yaml"):
        raise UsageError(f"SRC: {source} holds no config.yaml (expected a competitions/<id> folder)")
    try:
        config = yaml.safe_load(competition.read_text("config.yaml")) or {}
    except yaml.YAMLError as error:
        raise UsageError(f"SRC: config.yaml is not YAML: {str(error).splitlines()[0]}") from None
    if not isinstance(config, dict):
        raise UsageError("SRC: config.yaml is not a mapping")
    task_id = plain_id(config.get("id") or competition.root.name, field_name="config.yaml id")
    dataset = config.get("dataset") or {}
    if not isinstance(dataset, dict):
        raise UsageError("SRC: config.yaml's dataset is not a mapping")
    answers_relative = inside_path(dataset.get("answers", f"{task_id}/prepared/private/test.csv"),
                                   field_name="config.yaml dataset.answers")
    if data_dir:
        data = SourceFolder(Path(data_dir), label="--data", share_with=competition)
    else:
        # SRC is <root>/competitions/<id>; the data sits at <root>/data, a folder of the same download.
        above = SourceFolder(competition.root.parent.parent, label="SRC/../..", share_with=competition)
        if not above.is_dir("data"):
            raise UsageError(f"--data: no data directory beside {source.parent} (give --data)")
        data = above.sub("data", label="--data")
    public_relative = f"{task_id}/prepared/public"
    if not data.is_dir(public_relative) or not data.is_file(answers_relative):
        raise UsageError(f"--data: no prepared data for {task_id} (needs {task_id}/prepared/public and the answers)")
    public_folder = data.sub(public_relative)
    public = PublicFiles()
    for relative in public_folder.files():
        public.add(public_folder, relative)
    scores = read_leaderboard(competition)
    ladder = None
    if competition.is_file(LADDER_FILE):
        try:
            # NaN is read, so that the grading check names the ladder entry that holds it.
            ladder = bounded_json.loads(competition.read_text(LADDER_FILE), allow_nan=True)
        except ValueError as error:  # not JSON, or nested past bounded_json.MAX_DEPTH
            raise UsageError(f"SRC: {LADDER_FILE} is not usable JSON ({error})") from None
    description = competition.read_text("description.md") if competition.is_file("description.md") else None
    grader = config.get("grader") or {}
    return imported_bundle(
        out_dir, task_id=task_id, public=public,
        answers=data.read_csv(answers_relative, dtype=str, keep_default_na=False),
        metric_name=str(grader.get("name", "") if isinstance(grader, dict) else ""),
        thresholds=thresholds_from_leaderboard(scores), leaderboard_scores=scores, ladder=ladder,
        description=description, source_format="mlebench")


__all__ = ["export_task", "import_competition"]
