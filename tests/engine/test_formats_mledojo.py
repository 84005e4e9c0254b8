"""MLE-Dojo import: a competition prepared here in the layout MLE-Dojo's prepare/mle.py writes (raw/, data/public with
description.txt, data/private with test_answer.csv and the rank,score leaderboards) becomes a bundle that grades and
ranks by its private leaderboard; raw/ never reaches the agent's files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sandmle.errors import UsageError
from sandmle.formats.mledojo import import_competition
from sandmle.tasks.grading import grade_submission
from tests.engine.rollout_bundles import make_bundle

# 20 teams as MLE-Dojo's info/private_leaderboard.csv holds them: rank 1 first, the best score first (higher wins).
SCORES = [round(0.98 - 0.02 * i, 2) for i in range(20)]


def dojo_folder(tmp_path, *, board: pd.DataFrame | None = None):
    bundle = make_bundle(tmp_path / "tasks", kind="binary", rows=100)
    source = tmp_path / "prepared" / "loan-default"
    public, private, raw = source / "data" / "public", source / "data" / "private", source / "raw"
    for folder in (public, private, raw):
        folder.mkdir(parents=True)
    for path in (bundle / "public").iterdir():
        if path.name != "description.md":
            (public / path.name).write_bytes(path.read_bytes())
    (public / "description.txt").write_text("Predict loan defaults.\n")
    answers = pd.read_csv(bundle / "private" / "answers.csv").drop(columns=["leaderboard"])
    answers.to_csv(private / "test_answer.csv", index=False)
    answers.to_csv(raw / "train_with_labels.csv", index=False)  # the Kaggle download: labels of everything
    board = board if board is not None else pd.DataFrame({"rank": range(1, 21), "score": SCORES})
    board.to_csv(private / "private_leaderboard.csv", index=False)
    pd.DataFrame({"rank": range(1, 4), "score": [0.5, 0.4, 0.3]}).to_csv(private / "public_leaderboard.csv",
                                                                         index=False)
    return bundle, source


def test_mledojo_import_takes_thresholds_from_the_private_leaderboard(tmp_path):
    bundle, source = dojo_folder(tmp_path)
    imported = import_competition(source, tmp_path / "imported", metric="auc")
    assert imported.name == "loan-default"
    grading = json.loads((imported / "private" / "grading.json").read_text())
    assert grading["metric"] == "roc_auc" and grading["is_lower_better"] is False
    # MLE-bench's rules for N < 100: positions 2, 4 and 8 of 0.98, 0.96, ...; the median of all 20.
    assert grading["milestones"]["gold"] == pytest.approx(0.96)
    assert grading["milestones"]["silver"] == pytest.approx(0.92)
    assert grading["milestones"]["bronze"] == pytest.approx(0.84)
    assert grading["milestones"]["median"] == pytest.approx(0.79)
    assert len(grading["ladder"]) == 20 and json.loads((imported / "task.json").read_text())["imported"] is True
    public_files = {path.name for path in (imported / "public").rglob("*")}
    assert "train_with_labels.csv" not in public_files and "test_answer.csv" not in public_files
    assert {"description.md", "description.txt", "sample_submission.csv"} <= public_files
    assert (imported / "public" / "description.md").read_text() == "Predict loan defaults.\n"
    report = grade_submission(imported, bundle / "public" / "sample_submission.csv")
    assert report.valid_submission and report.score == 0.5 and report.position_score == 0.0


def test_the_data_folder_itself_and_a_board_read_by_its_second_column(tmp_path):
    board = pd.DataFrame({"TeamName": [f"t{i}" for i in range(20)], "Private": SCORES[::-1]})  # no rank: any order
    _, source = dojo_folder(tmp_path, board=board)
    imported = import_competition(source / "data", tmp_path / "imported", metric="roc_auc")
    grading = json.loads((imported / "private" / "grading.json").read_text())
    assert imported.name == "loan-default" and grading["milestones"]["gold"] == pytest.approx(0.96)


def test_a_metric_whose_direction_contradicts_the_ranks_is_refused(tmp_path):
    _, source = dojo_folder(tmp_path)
    with pytest.raises(UsageError, match="^--metric: rmse is lower-is-better, but private_leaderboard.csv ranks"):
        import_competition(source, tmp_path / "imported", metric="rmse")


def test_mledojo_import_needs_the_metric_and_the_required_files(tmp_path):
    _, source = dojo_folder(tmp_path)
    with pytest.raises(UsageError, match="^--metric: "):
        import_competition(source, tmp_path / "imported")
    with pytest.raises(UsageError, match="^metric: "):
        import_competition(source, tmp_path / "imported", metric="bleu")
    (source / "data" / "public" / "description.txt").unlink()
    with pytest.raises(UsageError, match="lacks data/public/description.txt"):
        import_competition(source, tmp_path / "imported", metric="auc")
    with pytest.raises(UsageError, match="is not a prepared MLE-Dojo competition"):
        import_competition(source / "raw", tmp_path / "imported", metric="auc")
