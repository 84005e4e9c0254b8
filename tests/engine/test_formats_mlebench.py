"""MLE-bench export and import: the registry files, the grader we export (grade.py) against our own grading, MLE-bench's
medal rules (restated here) on the exported leaderboard, the round trip."""

from __future__ import annotations

import importlib.util
import json
import statistics

import numpy as np
import pandas as pd
import pytest
import yaml

from sandmle.formats.mlebench import export_task, import_competition
from sandmle.tasks.grading import grade_submission
from tests.engine.rollout_bundles import make_bundle


# MLE-bench is not on PyPI, so its own grader cannot run in CI. These two functions restate its rules from its source:
# github.com/openai/mle-bench, mlebench/grade_helpers.py, Grader.is_lower_better and Grader.rank_score (the
# get_thresholds ladder by number of teams, after kaggle.com/progression, and the medal comparisons).
def thresholds_by_mlebench_rules(scores: list[float]) -> dict:
    """Medal thresholds, median and direction of a best-first leaderboard, by MLE-bench's rules (restated)."""
    n = len(scores)
    if n < 100:
        gold, silver, bronze = max(1, int(n * 0.1)), max(1, int(n * 0.2)), max(1, int(n * 0.4))
    elif n < 250:
        gold, silver, bronze = 10, int(n * 0.2), int(n * 0.4)
    elif n < 1000:
        gold, silver, bronze = 10 + int(n * 0.002), 50, 100
    else:
        gold, silver, bronze = 10 + int(n * 0.002), int(n * 0.05), int(n * 0.1)
    return {"gold": scores[gold - 1], "silver": scores[silver - 1], "bronze": scores[bronze - 1],
            "median": statistics.median(scores), "is_lower_better": scores[0] < scores[-1]}


def medals_by_mlebench_rules(score: float, rules: dict) -> dict:
    """Medals and above-median of a score against thresholds_by_mlebench_rules's output (restated)."""
    better_or_equal = (lambda a, b: a <= b) if rules["is_lower_better"] else (lambda a, b: a >= b)
    strictly_better = (lambda a, b: a < b) if rules["is_lower_better"] else (lambda a, b: a > b)
    gold = better_or_equal(score, rules["gold"])
    silver = not gold and better_or_equal(score, rules["silver"])
    bronze = not gold and not silver and better_or_equal(score, rules["bronze"])
    return {"gold_medal": gold, "silver_medal": silver, "bronze_medal": bronze, "any_medal": gold or silver or bronze,
            "above_median": strictly_better(score, rules["median"])}


def load_exported_grader(path):
    """The grade.py our exporter wrote, imported as MLE-bench's registry would import its grade_fn."""
    spec = importlib.util.spec_from_file_location("exported_grade", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def submission_near_answers(task_dir, tmp_path, *, noise: float, seed: int = 0):
    """A plausible submission: the answers blurred by noise (probabilities for classes, values for regression)."""
    grading = pd.read_json(task_dir / "private" / "grading.json", typ="series")
    answers = pd.read_csv(task_dir / "private" / "answers.csv", dtype=str)
    rng = np.random.default_rng(seed)
    target = grading["target_column"]
    frame = pd.DataFrame({"id": answers["id"]})
    if grading["task_type"] == "regression":
        frame[target] = answers[target].astype(float) + rng.normal(scale=noise, size=len(answers))
    elif grading["task_type"] == "binary":
        frame[target] = np.clip((answers[target] == grading["labels"][1]) * 0.6 + 0.2
                                + rng.normal(scale=noise, size=len(answers)), 0, 1)
    else:
        scores = rng.random((len(answers), len(grading["labels"]))) * noise
        for i, label in enumerate(grading["labels"]):
            scores[:, i] += (answers[target] == str(label)).to_numpy()
        scores /= scores.sum(axis=1, keepdims=True)
        for i, label in enumerate(grading["labels"]):
            frame[str(label)] = scores[:, i]
    path = tmp_path / f"submission-{noise}.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regression"])
def test_export_writes_what_mlebench_reads_and_the_restated_rules_give_our_thresholds(tmp_path, kind):
    task_dir = make_bundle(tmp_path / "tasks", kind=kind, rows=100)
    out = tmp_path / "export"
    competition = export_task(task_dir, out)
    task_id = task_dir.name
    assert competition == out / "competitions" / task_id
    config = yaml.safe_load((competition / "config.yaml").read_text())
    assert config["id"] == task_id and config["awards_medals"] is True
    assert config["description"] == f"mlebench/competitions/{task_id}/description.md"
    assert config["grader"]["grade_fn"] == f"mlebench.competitions.{task_id}.grade:grade"
    assert config["preparer"] == f"mlebench.competitions.{task_id}.prepare:prepare"
    assert (out / "data" / config["dataset"]["answers"]).is_file()
    assert (out / "data" / config["dataset"]["sample_submission"]).is_file()
    assert not (out / "data" / task_id / "prepared" / "public" / "answers.csv").exists()
    checksums = yaml.safe_load((competition / "checksums.yaml").read_text())
    assert set(checksums) == {"private", "public"} and "test.csv" in checksums["private"]
    grade_text = (competition / "grade.py").read_text()
    imported = {line.split()[1].split(".")[0] for line in grade_text.splitlines() if line.startswith(("import ", "from "))}
    assert imported <= {"numpy", "pandas", "sklearn", "mlebench"}

    grading = pd.read_json(task_dir / "private" / "grading.json", typ="series")
    rules = thresholds_by_mlebench_rules(pd.read_csv(competition / "leaderboard.csv")["score"].tolist())
    assert rules["is_lower_better"] == grading["is_lower_better"]
    for name in ("gold", "silver", "bronze", "median"):
        assert rules[name] == pytest.approx(grading["milestones"][name], abs=1e-12)

    # Graded as MLE-bench would: the exported grade.py on the exported files, the score rounded to 5 decimals
    # (Grader.__call__), medals by the restated rules; it must agree with our own grader on the bundle.
    exported_grader = load_exported_grader(competition / "grade.py")
    answers = pd.read_csv(out / "data" / config["dataset"]["answers"])
    for noise in (0.05, 0.6, 2.0):
        submission = submission_near_answers(task_dir, tmp_path, noise=noise)
        ours = grade_submission(task_dir, submission)
        exported_score = round(exported_grader.grade(pd.read_csv(submission), answers), 5)
        assert exported_score == pytest.approx(ours.score, abs=1e-5)
        medals = medals_by_mlebench_rules(exported_score, rules)
        # Rounding to 5 decimals can move a score across a threshold only when it lies that close to one.
        if all(abs(exported_score - rules[m]) > 1e-5 for m in ("gold", "silver", "bronze", "median")):
            assert medals == {key: getattr(ours, key) for key in medals}

    broken = pd.read_csv(submission).drop(columns=[pd.read_csv(submission).columns[-1]])
    with pytest.raises(exported_grader.InvalidSubmissionError):
        exported_grader.grade(broken, answers)


def test_export_then_import_gives_the_same_report(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="multiclass", rows=100)
    competition = export_task(task_dir, tmp_path / "export")
    imported = import_competition(competition, tmp_path / "imported")
    task = json.loads((imported / "task.json").read_text())
    assert task["imported"] is True and task["source_format"] == "mlebench"
    assert not (imported / "public" / "answers.csv").exists()
    for noise in (0.1, 1.0):
        submission = submission_near_answers(task_dir, tmp_path, noise=noise, seed=1)
        assert grade_submission(imported, submission).to_dict() == grade_submission(task_dir, submission).to_dict()


def test_import_of_a_competition_without_our_extras_uses_its_leaderboard(tmp_path):
    task_dir = make_bundle(tmp_path / "tasks", kind="regression", rows=100)
    competition = export_task(task_dir, tmp_path / "export")
    (competition / "sandmle_ladder.json").unlink()
    answers = tmp_path / "export" / "data" / task_dir.name / "prepared" / "private" / "test.csv"
    pd.read_csv(answers).drop(columns=["leaderboard"]).to_csv(answers, index=False)
    pd.DataFrame({"score": [0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 2.0, 2.5, 3.0, 4.0]}).to_csv(competition / "leaderboard.csv")
    imported = import_competition(competition, tmp_path / "imported")
    grading = json.loads((imported / "private" / "grading.json").read_text())
    assert grading["is_lower_better"] is True and grading["metric"] == "rmse"
    assert grading["milestones"] == {"gold": 0.5, "silver": 0.7, "bronze": 1.1, "median": 1.4}
    assert len(grading["ladder"]) == 10
    split = pd.read_csv(imported / "private" / "answers.csv")["leaderboard"]
    assert set(split) == {"public", "private"}
    report = grade_submission(imported, submission_near_answers(task_dir, tmp_path, noise=0.1))
    assert report.valid_submission and report.gold_medal


def test_export_and_import_commands(tmp_path):
    import subprocess
    import sys

    task_dir = make_bundle(tmp_path / "tasks", kind="binary", rows=60)
    run = lambda *args: subprocess.run([sys.executable, "-m", "sandmle", *map(str, args)],  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    done = run("export", task_dir, "--format", "mlebench", "--out", tmp_path / "export")
    assert done.returncode == 0, done.stderr
    done = run("import", tmp_path / "export" / "competitions" / task_dir.name, "--format", "mlebench",
               "--out", tmp_path / "imported")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "imported" / task_dir.name / "private" / "grading.json").is_file()
    again = run("import", tmp_path / "export" / "competitions" / task_dir.name, "--format", "mlebench",
                "--out", tmp_path / "imported")
    assert again.returncode == 2 and "already exists" in again.stderr and again.stderr.count("\n") == 1


def test_an_imported_competition_runs_in_a_campaign(tmp_path):
    from sandmle.evaluation.campaign import CampaignSpec, run_campaign

    task_dir = make_bundle(tmp_path / "tasks", kind="binary", rows=60)
    imported = import_competition(export_task(task_dir, tmp_path / "export"), tmp_path / "imported")
    spec = CampaignSpec(policies=["baseline"], scaffolds=["react"], tasks=[imported], seeds=1, feedback="validate",
                        max_turns=4, time_budget_s=120.0)
    report = run_campaign(spec, tmp_path / "campaign")
    assert report["complete"] and report["cells"][0]["metrics"]["valid_rate"]["mean"] == 1.0
