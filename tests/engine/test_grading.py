"""Tests of submission validation, metric scoring (against scikit-learn), milestones, HumanRank and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from sandmle.cli import main
from sandmle.errors import UsageError
from sandmle.tasks import metrics
from sandmle.tasks.grading import feedback_text, grade_submission, position_score, validate_submission

RNG = np.random.default_rng(0)
N = 40
SPLIT = ["public" if i % 10 < 3 else "private" for i in range(N)]  # ~30% public, uncorrelated with i % 3 labels


def make_task(root: Path, *, metric: str, task_type: str, labels, target="y", lower=False, milestones=None, ladder=None) -> Path:
    task = root / "task"
    (task / "private").mkdir(parents=True)
    (task / "public").mkdir()
    ids = [f"r{i}" for i in range(N)]
    if task_type == "regression":
        truth = np.round(RNG.normal(size=N), 4)
    else:
        truth = [labels[i % len(labels)] for i in range(N)]
    pd.DataFrame({"id": ids, target: truth, "leaderboard": SPLIT}).to_csv(task / "private" / "answers.csv", index=False)
    probability = metric in ("roc_auc", "log_loss")
    columns = ["id"] + ([str(label) for label in labels] if probability and task_type == "multiclass" else [target])
    grading = {
        "metric": metric, "is_lower_better": lower, "task_type": task_type, "id_column": "id", "target_column": target,
        "labels": labels, "submission_columns": columns,
        # Ordered in the metric's direction, as every grading file must be (sandmle.tasks.grading_checks).
        "milestones": milestones or ({"median": 0.9, "bronze": 0.8, "silver": 0.7, "gold": 0.5} if lower else
                                     {"median": 0.5, "bronze": 0.7, "silver": 0.8, "gold": 0.9}),
        "ladder": ladder or {"baseline": 0.5, "linear": 0.7, "ensemble": 0.85, "oracle": 0.95},
    }
    (task / "private" / "grading.json").write_text(json.dumps(grading))
    (task / "task.json").write_text(json.dumps({"task_id": "t-1"}))
    return task


def truth_of(task: Path) -> pd.DataFrame:
    return pd.read_csv(task / "private" / "answers.csv", dtype=str)


def write(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def label_task(tmp_path):
    return make_task(tmp_path, metric="accuracy", task_type="multiclass", labels=["a", "b", "c"])


def label_submission(task, tmp_path, flip_every=4, labels=("a", "b")):
    answers = truth_of(task)
    predicted = [(labels[0] if value != labels[0] else labels[1]) if i % flip_every == 0 else value for i, value in enumerate(answers["y"])]
    return write(tmp_path / "sub.csv", pd.DataFrame({"id": answers["id"], "y": predicted})), answers, predicted


@pytest.mark.parametrize("split", ["private", "public", "all"])
def test_accuracy_matches_sklearn_on_each_split(label_task, tmp_path, split):
    sub, answers, predicted = label_submission(label_task, tmp_path)
    report = grade_submission(label_task, sub, split=split)
    mask = np.ones(N, bool) if split == "all" else answers["leaderboard"].to_numpy() == split
    assert report.valid_submission and report.errors == [] and report.split == split
    assert report.score == pytest.approx(skm.accuracy_score(answers["y"][mask], np.array(predicted)[mask]))


def test_macro_f1_matches_sklearn(tmp_path):
    task = make_task(tmp_path, metric="macro_f1", task_type="multiclass", labels=[0, 1, 2])
    sub, answers, predicted = label_submission(task, tmp_path, flip_every=3, labels=("0", "1"))
    mask = answers["leaderboard"] == "private"
    expected = skm.f1_score(answers["y"][mask], pd.Series(predicted)[mask], average="macro", labels=["0", "1", "2"])
    assert grade_submission(task, sub).score == pytest.approx(expected)


@pytest.mark.parametrize("metric", ["roc_auc", "log_loss"])
def test_binary_probability_uses_labels1_as_positive(tmp_path, metric):
    task = make_task(tmp_path, metric=metric, task_type="binary", labels=["yes", "no"], lower=metric == "log_loss")
    answers = truth_of(task)
    positive = (answers["y"] == "no").astype(int).to_numpy()
    proba = np.clip(0.6 * positive + 0.4 * RNG.random(N), 0.01, 0.99)
    sub = write(tmp_path / "sub.csv", pd.DataFrame({"id": answers["id"], "y": proba}))
    mask = answers["leaderboard"] == "private"
    expected = skm.roc_auc_score(positive[mask], proba[mask]) if metric == "roc_auc" else skm.log_loss(positive[mask], proba[mask])
    assert grade_submission(task, sub).score == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("metric", ["roc_auc", "log_loss"])
def test_multiclass_probability_matches_sklearn(tmp_path, metric):
    labels = ["a", "b", "c"]
    task = make_task(tmp_path, metric=metric, task_type="multiclass", labels=labels, lower=metric == "log_loss")
    answers = truth_of(task)
    raw = RNG.random((N, 3)) + np.eye(3)[[labels.index(v) for v in answers["y"]]]
    proba = raw / raw.sum(axis=1, keepdims=True)
    sub = write(tmp_path / "sub.csv", pd.DataFrame({"id": answers["id"], **{k: proba[:, i] for i, k in enumerate(labels)}}))
    mask = (answers["leaderboard"] == "private").to_numpy()
    if metric == "roc_auc":
        expected = skm.roc_auc_score(answers["y"][mask], proba[mask], multi_class="ovr", labels=labels)
    else:
        expected = skm.log_loss(answers["y"][mask], proba[mask], labels=labels)
    assert grade_submission(task, sub).score == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("metric,function", [
    ("rmse", lambda y, p: np.sqrt(skm.mean_squared_error(y, p))),
    ("mae", skm.mean_absolute_error),
    ("r2", skm.r2_score),
])
def test_regression_metrics_match_sklearn(tmp_path, metric, function):
    task = make_task(tmp_path, metric=metric, task_type="regression", labels=None, lower=metric != "r2")
    answers = truth_of(task)
    truth = answers["y"].astype(float).to_numpy()
    predicted = truth + RNG.normal(scale=0.3, size=N)
    sub = write(tmp_path / "sub.csv", pd.DataFrame({"id": answers["id"][::-1], "y": predicted[::-1]}))  # order must not matter
    mask = (answers["leaderboard"] == "private").to_numpy()
    assert grade_submission(task, sub).score == pytest.approx(function(truth[mask], predicted[mask]), rel=1e-6)


def test_missing_file_and_empty_and_binary(label_task, tmp_path):
    report = grade_submission(label_task, tmp_path / "nope.csv")
    assert not report.submission_exists and not report.valid_submission and report.score is None
    assert "does not exist" in report.errors[0]
    (tmp_path / "empty.csv").write_text("")
    assert "is empty" in validate_submission(label_task, tmp_path / "empty.csv")[0]
    (tmp_path / "bin.csv").write_bytes(b"\x89PNG\x00\x00\x01")
    assert "binary" in validate_submission(label_task, tmp_path / "bin.csv")[0]
    (tmp_path / "bad.csv").write_text('id,y\n"r0,a\nr1,b,c,d\n')
    assert "not a parseable CSV" in validate_submission(label_task, tmp_path / "bad.csv")[0]


def test_wrong_columns(label_task, tmp_path):
    answers = truth_of(label_task)
    sub = write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"], "target": answers["y"]}))
    [error] = validate_submission(label_task, sub)
    assert "missing columns 'y'" in error and "unexpected columns 'target'" in error


def test_row_count_duplicates_missing_and_unknown_ids(label_task, tmp_path):
    answers = truth_of(label_task)
    frame = pd.DataFrame({"id": answers["id"], "y": answers["y"]})
    frame.loc[0, "id"] = "r1"
    frame.loc[2, "id"] = "zzz"
    frame = pd.concat([frame, frame.iloc[[5]]])
    errors = validate_submission(label_task, write(tmp_path / "s.csv", frame))
    assert any(f"{N + 1} rows, expected {N}" in e for e in errors)
    assert any("ids appear more than once: 'r1', 'r5'" in e for e in errors)
    assert any("test ids are missing: 'r0', 'r2'" in e for e in errors)
    assert any("not test ids: 'zzz'" in e for e in errors)


def test_labels_outside_label_set(label_task, tmp_path):
    answers = truth_of(label_task)
    frame = pd.DataFrame({"id": answers["id"], "y": answers["y"]})
    frame.loc[3, "y"] = "d"
    [error] = validate_submission(label_task, write(tmp_path / "s.csv", frame))
    assert "outside the label set" in error and "'d'" in error


def test_non_numeric_nan_and_out_of_range(tmp_path):
    task = make_task(tmp_path, metric="roc_auc", task_type="binary", labels=[0, 1])
    answers = truth_of(task)
    frame = pd.DataFrame({"id": answers["id"], "y": ["0.5"] * N})
    frame.loc[1, "y"] = "high"
    frame.loc[2, "y"] = ""
    frame.loc[3, "y"] = "nan"
    [error] = validate_submission(task, write(tmp_path / "s.csv", frame))
    assert "3 non-numeric, NaN or infinite" in error
    frame["y"] = "0.5"
    frame.loc[4, "y"] = "1.5"
    [error] = validate_submission(task, write(tmp_path / "s.csv", frame))
    assert "1 probabilities outside [0, 1]" in error


def test_multiclass_rows_must_sum_to_one(tmp_path):
    task = make_task(tmp_path, metric="log_loss", task_type="multiclass", labels=["a", "b", "c"], lower=True)
    answers = truth_of(task)
    frame = pd.DataFrame({"id": answers["id"], "a": 0.2, "b": 0.3, "c": 0.5})
    frame.loc[7, "c"] = 0.6
    [error] = validate_submission(task, write(tmp_path / "s.csv", frame))
    assert "1 rows have probabilities not summing to 1" in error and "'r7'" in error


def test_milestones_medals_and_position(label_task, tmp_path):
    answers = truth_of(label_task)
    sub = write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"], "y": answers["y"]}))
    report = grade_submission(label_task, sub)
    assert report.score == 1.0 and report.milestone == "gold" and report.gold_medal and report.any_medal
    assert not report.silver_medal and report.above_median and report.position_score == 1.0
    assert report.competition_id == "t-1"
    as_dict = report.to_dict()
    for key in ("score", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold", "valid_submission", "is_lower_better"):
        assert key in as_dict


def test_position_score_ranks_and_ties():
    ladder = {"baseline": 0.5, "linear": 0.7, "ensemble": 0.85, "oracle": 0.95}
    assert position_score(0.99, ladder, is_lower_better=False) == 1.0
    assert position_score(0.95, ladder, is_lower_better=False) == 1.0  # a tie takes the entry's rank
    assert position_score(0.8, ladder, is_lower_better=False) == 0.5
    assert position_score(0.1, ladder, is_lower_better=False) == 0.0
    assert position_score(0.6, ladder, is_lower_better=True) == 0.75
    assert position_score(None, ladder, is_lower_better=False) == 0.0


def test_lower_is_better_milestones(tmp_path):
    task = make_task(tmp_path, metric="rmse", task_type="regression", labels=None, lower=True,
                     milestones={"median": 1.0, "bronze": 0.5, "silver": 0.3, "gold": 0.1})
    answers = truth_of(task)
    predicted = answers["y"].astype(float) + 0.4
    report = grade_submission(task, write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"], "y": predicted})))
    assert report.score == pytest.approx(0.4) and report.milestone == "bronze" and report.bronze_medal and not report.gold_medal


def test_feedback_modes(label_task, tmp_path):
    sub, _, _ = label_submission(label_task, tmp_path)
    report = grade_submission(label_task, sub, split="public")
    assert feedback_text(report, "none") == ""
    assert feedback_text(report, "validate") == "Submission is valid."
    text = feedback_text(report, "score")
    assert "public split" in text and "gold 0.9" in text and f"{report.score:.6g}" in text
    bad = grade_submission(label_task, tmp_path / "missing.csv")
    assert feedback_text(bad, "validate").startswith("Submission is invalid:\n- submission file")
    with pytest.raises(UsageError):
        feedback_text(report, "loud")


def test_unusable_task_dir_raises_usage_error(tmp_path):
    with pytest.raises(UsageError):
        grade_submission(tmp_path / "none", tmp_path / "s.csv")
    with pytest.raises(UsageError):
        grade_submission(tmp_path, tmp_path / "s.csv")


def test_missing_columns_only(label_task, tmp_path):
    answers = truth_of(label_task)
    [error] = validate_submission(label_task, write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"]})))
    assert error == "wrong columns: missing columns 'y' (expected exactly 'id', 'y')"


def test_non_numeric_regression_predictions(tmp_path):
    task = make_task(tmp_path, metric="rmse", task_type="regression", labels=None, lower=True)
    answers = truth_of(task)
    frame = pd.DataFrame({"id": answers["id"], "y": "0.5"})
    frame.loc[[1, 2, 3], "y"] = ["abc", "inf", ""]
    report = grade_submission(task, write(tmp_path / "s.csv", frame))
    assert not report.valid_submission and report.score is None and report.submission_exists
    assert report.errors == ["column 'y' has 3 non-numeric, NaN or infinite values (e.g. 'abc', 'inf', '')"]


def test_multiclass_probability_out_of_range(tmp_path):
    task = make_task(tmp_path, metric="log_loss", task_type="multiclass", labels=["a", "b", "c"], lower=True)
    answers = truth_of(task)
    frame = pd.DataFrame({"id": answers["id"], "a": 0.2, "b": 0.3, "c": 0.5})
    frame.loc[4, ["a", "b"]] = [-0.1, 0.6]
    assert validate_submission(task, write(tmp_path / "s.csv", frame)) == ["column 'a' has 1 probabilities outside [0, 1]"]


def test_report_keeps_mle_bench_field_names(label_task, tmp_path):
    sub, _, _ = label_submission(label_task, tmp_path)
    fields = grade_submission(label_task, sub).to_dict()
    mle_bench = {"competition_id", "score", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold",
                 "gold_medal", "silver_medal", "bronze_medal", "any_medal", "above_median", "submission_exists",
                 "valid_submission", "is_lower_better"}
    assert mle_bench <= set(fields) and {"milestone", "position_score", "errors", "split"} <= set(fields)


def test_score_feedback_uses_a_public_part_disjoint_from_the_private_grade(label_task, tmp_path):
    """Right on every public row and wrong on every private one: feedback says gold, the final grade says nothing."""
    answers = truth_of(label_task)
    public = answers["leaderboard"] == "public"
    wrong = answers["y"].map({"a": "b", "b": "c", "c": "a"})
    sub = write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"], "y": answers["y"].where(public, wrong)}))
    feedback = grade_submission(label_task, sub, split="public")
    final = grade_submission(label_task, sub, split="private")
    assert 0 < public.sum() < N and feedback.score == 1.0 and final.score == 0.0
    assert "Score on the public split: 1" in feedback_text(feedback, "score") and feedback.milestone == "gold"
    assert final.milestone is None and final.valid_submission
    assert grade_submission(label_task, sub, split="all").score == pytest.approx(public.mean())
    with pytest.raises(UsageError):
        grade_submission(label_task, sub, split="leaderboard")


def test_a_metric_registered_by_name_grades_tasks_that_name_it(tmp_path):
    median_ae = metrics.Metric("median_absolute_error", lambda y, p, labels=None: float(skm.median_absolute_error(y, p)),
                               True, "value", ("regression",))
    metrics.register(median_ae)
    try:
        task = make_task(tmp_path, metric="median_absolute_error", task_type="regression", labels=None, lower=True)
        answers = truth_of(task)
        truth = answers["y"].astype(float).to_numpy()
        predicted = truth + RNG.normal(scale=0.5, size=N)
        report = grade_submission(task, write(tmp_path / "s.csv", pd.DataFrame({"id": answers["id"], "y": predicted})))
        mask = (answers["leaderboard"] == "private").to_numpy()
        assert report.score == pytest.approx(skm.median_absolute_error(truth[mask], predicted[mask]))
    finally:
        del metrics.METRICS["median_absolute_error"]


def test_unknown_metric_or_broken_grading_json_is_a_usage_error(label_task, tmp_path):
    grading_path = label_task / "private" / "grading.json"
    grading = json.loads(grading_path.read_text())
    grading_path.write_text(json.dumps({**grading, "metric": "vibes"}))
    with pytest.raises(UsageError, match="unknown metric 'vibes'"):
        grade_submission(label_task, tmp_path / "s.csv")
    grading_path.write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        grade_submission(label_task, tmp_path / "s.csv")
    grading_path.write_text(json.dumps({key: value for key, value in grading.items() if key != "milestones"}))
    with pytest.raises(UsageError, match="lacks milestones"):
        grade_submission(label_task, tmp_path / "s.csv")


def test_cli_grade_prints_the_report_and_reward(label_task, tmp_path):
    sub, _, _ = label_submission(label_task, tmp_path)
    done = subprocess.run([sys.executable, "-m", "sandmle.cli", "grade", str(label_task), str(sub), "--reward", "sparse",
                           "--split", "public"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["report"]["split"] == "public" and out["reward"]["name"] == "sparse"
    assert out["reward"]["total"] == pytest.approx(sum(out["reward"]["components"].values()))


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """The command line's own entry point, in-process (an interpreter start per case would dominate the test)."""
    try:
        code = main(["grade", *map(str, args)])
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_grade_exit_codes(label_task, tmp_path, capsys):
    sub, _, _ = label_submission(label_task, tmp_path)
    code, out, _err = run_cli(capsys, label_task, tmp_path / "missing.csv")
    assert code == 0 and json.loads(out)["report"]["valid_submission"] is False  # graded, though invalid
    code, out, _err = run_cli(capsys, label_task, sub, "--reward", "dense", "--format-rate", "0.5")
    assert code == 0 and json.loads(out)["reward"]["components"]["format"] == pytest.approx(0.05)
    (tmp_path / "not_a_bundle").mkdir()
    for args, message in [((tmp_path / "nowhere", sub), "does not exist"),
                          ((tmp_path / "not_a_bundle", sub), "not a task bundle"),
                          ((label_task, sub, "--reward", "median"), "invalid choice"),
                          ((label_task, sub, "--format-rate", "1.5"), "format_rate must be in [0, 1]"),
                          ((label_task,), "required")]:
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1 and message in err, (args, err)


def test_grade_command_choices_match_the_engine():
    """The command line names splits and schemes without importing pandas; they must be the engine's own."""
    from sandmle.commands import grade as grade_command
    from sandmle.rewards import schemes as rewards
    from sandmle.tasks import grading

    assert set(grade_command.SPLITS) == set(grading.SPLITS)
    assert set(grade_command.REWARDS) <= set(rewards.REWARD_SCHEMES)
