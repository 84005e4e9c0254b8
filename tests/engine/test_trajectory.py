"""Trajectory and GradeReport records: exact round trips, and records stored by older versions still read."""

from __future__ import annotations

import json

from sandmle.episodes.trajectory import Trajectory
from sandmle.tasks.grade_report import GradeReport, stored_grade


def graded_report(**changes) -> GradeReport:
    values = dict(competition_id="task-1", score=0.91, gold_threshold=0.95, silver_threshold=0.9,
                  bronze_threshold=0.85, median_threshold=0.7, gold_medal=False, silver_medal=True,
                  bronze_medal=False, any_medal=True, above_median=True, submission_exists=True,
                  valid_submission=True, is_lower_better=False, milestone="silver", position_score=0.8,
                  errors=[], split="private")
    return GradeReport(**{**values, **changes})


def full_trajectory(grade: GradeReport | None) -> Trajectory:
    return Trajectory(task_id="task-1", scaffold="react", policy="baseline", sample_index=2, group_id="0:task-1",
                      turns=[{"role": "assistant", "text": "hi", "step": None, "wall_s": 0.1}],
                      tokens=[{"ids": [1, 2], "mask": [1, 1]}], sequence={"ids": [1, 2], "mask": [1, 1]},
                      grade=grade, rewards={"dense": {"name": "dense", "total": 0.8, "components": {}}},
                      format_rate=1.0, termination="submitted", wall_s=3.5, mean_step_latency_s=0.2,
                      feedback="score", extra={"reward_from": {"score": 0.91}})


def test_a_graded_trajectory_round_trips_exactly_through_dicts_and_json():
    trajectory = full_trajectory(graded_report())
    record = trajectory.to_dict()
    assert isinstance(record["grade"], dict) and record["grade"]["milestone"] == "silver"
    assert Trajectory.from_dict(record).to_dict() == record
    assert Trajectory.from_dict(record) == trajectory
    assert Trajectory.from_json(trajectory.to_json()).to_dict() == record
    assert json.loads(trajectory.to_json()) == record


def test_a_trajectory_never_graded_keeps_grade_none():
    trajectory = full_trajectory(None)
    trajectory.termination, trajectory.error = "error", "RuntimeError: boom"
    record = trajectory.to_dict()
    assert record["grade"] is None
    again = Trajectory.from_dict(record)
    assert again.grade is None and again.to_dict() == record


def test_an_invalid_grade_with_errors_round_trips():
    report = graded_report(score=None, valid_submission=False, any_medal=False, silver_medal=False, milestone=None,
                           above_median=False, position_score=0.0, errors=["submission.csv is missing column id"])
    record = full_trajectory(report).to_dict()
    again = Trajectory.from_dict(record)
    assert again.grade.errors == ["submission.csv is missing column id"] and again.grade.score is None
    assert again.to_dict() == record
    assert GradeReport.from_json(report.to_json()) == report


def test_an_old_record_lacking_newer_keys_reads_with_defaults():
    old = {"task_id": "task-1", "scaffold": "react", "policy": "baseline", "turns": [], "termination": "submitted",
           "grade": {"score": 0.97, "valid_submission": True}, "rewards": {"dense": {"total": 0.3}}}
    trajectory = Trajectory.from_dict(old)
    assert trajectory.grade.score == 0.97 and trajectory.grade.valid_submission is True
    assert trajectory.grade.milestone is None and trajectory.grade.any_medal is False
    assert trajectory.grade.errors == [] and trajectory.grade.gold_threshold is None
    assert trajectory.feedback == "none" and trajectory.extra == {} and trajectory.sequence is None
    # Reading it again from what it now writes changes nothing.
    assert Trajectory.from_dict(trajectory.to_dict()).to_dict() == trajectory.to_dict()


def test_keys_a_later_version_adds_are_left_out_rather_than_refused():
    record = full_trajectory(graded_report()).to_dict()
    record["from_the_future"] = 1
    record["grade"] = {**record["grade"], "new_field": "x"}
    trajectory = Trajectory.from_dict(record)
    assert "from_the_future" not in trajectory.to_dict() and "new_field" not in trajectory.grade.to_dict()


def test_stored_grade_reads_dicts_and_reports_and_leaves_none_for_no_grade():
    report = graded_report()
    assert stored_grade(report) is report
    assert stored_grade(report.to_dict()) == report
    assert stored_grade(None) is None and stored_grade("not a grade") is None
    assert stored_grade({}) == GradeReport()
