"""MLE-Dojo import: a prepared competition built here becomes a bundle that grades and ranks by its leaderboard."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sandmle.errors import UsageError
from sandmle.formats.mledojo import import_competition
from sandmle.grading import grade_submission
from tests.engine.rollout_bundles import make_bundle


def dojo_folder(tmp_path):
    bundle = make_bundle(tmp_path / "tasks", kind="binary", rows=100)
    source = tmp_path / "dojo" / "loan-default"
    (source / "data" / "public").mkdir(parents=True)
    (source / "data" / "private").mkdir()
    for path in (bundle / "public").iterdir():
        (source / "data" / "public" / path.name).write_bytes(path.read_bytes())
    answers = pd.read_csv(bundle / "private" / "answers.csv").drop(columns=["leaderboard"])
    answers.to_csv(source / "data" / "private" / "test_answer.csv", index=False)
    # 20 teams, unsorted as Kaggle exports them: MLE-bench's rules for N < 100 give positions 2, 4 and 8.
    scores = [0.60 + 0.02 * i for i in range(20)]
    pd.DataFrame({"TeamName": [f"t{i}" for i in range(20)], "Score": scores[::-1][::2] + scores[::-1][1::2]}).to_csv(
        source / "private_leaderboard.csv", index=False)
    return bundle, source


def test_mledojo_import_takes_thresholds_from_the_leaderboard(tmp_path):
    bundle, source = dojo_folder(tmp_path)
    imported = import_competition(source, tmp_path / "imported", metric="auc")
    grading = json.loads((imported / "private" / "grading.json").read_text())
    assert grading["metric"] == "roc_auc" and grading["is_lower_better"] is False
    assert grading["milestones"]["gold"] == pytest.approx(0.96)     # position 2 of 0.98, 0.96, ...
    assert grading["milestones"]["silver"] == pytest.approx(0.92)   # position 4
    assert grading["milestones"]["bronze"] == pytest.approx(0.84)   # position 8
    assert grading["milestones"]["median"] == pytest.approx(0.79)   # between 0.80 and 0.78
    assert len(grading["ladder"]) == 20 and json.loads((imported / "task.json").read_text())["imported"] is True
    report = grade_submission(imported, bundle / "public" / "sample_submission.csv")
    assert report.valid_submission and report.score == 0.5 and report.position_score == 0.0


def test_mledojo_import_needs_the_metric_named(tmp_path):
    _, source = dojo_folder(tmp_path)
    with pytest.raises(UsageError, match="^--metric: "):
        import_competition(source, tmp_path / "imported")
    with pytest.raises(UsageError, match="^metric: "):
        import_competition(source, tmp_path / "imported", metric="bleu")
