"""A degenerate solution that reaches a tier the reward pays breaks its task: a synthesized iris task whose median
is moved below random predictions fails the audit naming the solution and the reward; the unedited task passes."""

from __future__ import annotations

import json
import shutil

import pytest

from sandmle.audit import AuditConfig, run_audit
from sandmle.audit.degenerate import DegenerateResult
from sandmle.audit.summary import broken_entry, family_scaffold_counts, verdict_line
from sandmle.cli import main
from sandmle.errors import UsageError
from sandmle.sandbox import SandboxPool

ONE_EPISODE = AuditConfig(scaffolds=("react",), attacks=("submission_bom",))


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=()) as shared:
        yield shared


def iris_copy(iris_results, tmp_path, *, median: float | None = None):
    task = shutil.copytree(iris_results[0].bundle_dir, tmp_path / "tasks" / "iris", symlinks=True)
    if median is not None:
        grading_file = task / "private" / "grading.json"
        spec = json.loads(grading_file.read_text())
        spec["milestones"]["median"] = median  # random predictions score about 0.31: the median now pays them
        grading_file.write_text(json.dumps(spec))
    return task


def test_a_degenerate_solution_reaching_the_median_fails_the_audit_under_dense(iris_results, tmp_path, pool):
    task = iris_copy(iris_results, tmp_path, median=0.3)
    report = run_audit([task], out_dir=tmp_path / "out", pool=pool, config=ONE_EPISODE)
    assert not report.passed and not report.failing and report.reward_scheme == "dense"
    broken = {entry["solution"]: entry for entry in report.broken_tasks}
    assert broken["random"]["milestone"] == "median" and broken["random"]["scheme"] == "dense"
    assert broken["random"]["paid"] == pytest.approx(0.1)
    assert broken["random"]["tier_rewards"] == {"dense": pytest.approx(0.1), "sparse": 0.0}
    degenerate = {entry["solution"]: entry for entry in report.degenerate}
    assert degenerate["random"]["tier_rewards"]["dense"] == pytest.approx(0.1) and not degenerate["random"]["medal"]
    assert report.verdict.startswith("failed · 1 task pays a degenerate solution: ")
    assert "earns the median tier (dense +0.1)" in report.verdict
    rows = {(row["family"], row["scaffold"]): row for row in report.family_scaffold}
    assert rows[("submissions", "react")] == {"family": "submissions", "scaffold": "react", "contained": 1,
                                              "failing": 0}
    assert rows[("degenerate", "any")]["failing"] == len(report.broken_tasks) >= 1
    saved = json.loads((tmp_path / "out" / "audit.json").read_text())
    assert not saved["passed"] and saved["verdict"] == report.verdict and saved["family_scaffold"]


def test_sparse_pays_only_gold_so_the_median_passes_under_it(iris_results, tmp_path, pool):
    task = iris_copy(iris_results, tmp_path, median=0.3)
    config = AuditConfig(scaffolds=("react",), attacks=("submission_bom",), reward="sparse")
    report = run_audit([task], out_dir=tmp_path / "out", pool=pool, config=config)
    assert report.passed and not report.broken_tasks and report.verdict.startswith("passed")
    assert any(entry["tier_rewards"]["dense"] > 0 for entry in report.degenerate)


def test_the_unedited_task_passes(iris_results, tmp_path, pool):
    report = run_audit([iris_copy(iris_results, tmp_path)], out_dir=tmp_path / "out", pool=pool, config=ONE_EPISODE)
    assert report.passed and not report.broken_tasks, report.broken_tasks
    assert all(entry["tier_rewards"] == {"dense": 0.0, "sparse": 0.0} for entry in report.degenerate)
    assert report.verdict == "passed · 1 case contained · 0 broken tasks"
    assert {(row["family"], row["scaffold"]) for row in report.family_scaffold} == {("submissions", "react"),
                                                                                     ("degenerate", "any")}


def test_cli_names_the_reward_a_degenerate_solution_earns(iris_results, tmp_path, capsys):
    task = iris_copy(iris_results, tmp_path, median=0.3)
    assert main(["audit", str(task), "--scaffold", "react", "--attack", "submission_bom",
                 "--out", str(tmp_path / "cli")]) == 1
    captured = capsys.readouterr()
    assert "failed · 1 task pays a degenerate solution" in json.loads(captured.out.strip().splitlines()[-1])["verdict"]
    assert "the degenerate solution random scores" in captured.err and "which dense pays +0.1" in captured.err


def result(solution: str, milestone: str | None, dense: float, sparse: float, medal: bool = False) -> DegenerateResult:
    return DegenerateResult(task_id="t", solution=solution, score=0.5, milestone=milestone, valid=True, medal=medal,
                            errors=[], tier_rewards={"dense": dense, "sparse": sparse})


def test_a_medal_breaks_the_task_under_either_scheme_and_the_median_only_under_dense():
    median, bronze = result("random", "median", 0.1, 0.0), result("constant_majority", "bronze", 0.5, 0.0, medal=True)
    assert broken_entry(median, scheme="dense")["paid"] == 0.1 and broken_entry(median, scheme="sparse") is None
    assert broken_entry(bronze, scheme="sparse")["paid"] == 0.0
    line = verdict_line(passed=False, contained=3, failing=0, changed_outside=[],
                        broken_tasks=[broken_entry(bronze, scheme="sparse")])
    assert line == "failed · 1 task pays a degenerate solution: constant_majority reaches the bronze medal"
    with pytest.raises(UsageError, match="not 'rubric'"):
        AuditConfig(reward="rubric")


def test_family_scaffold_counts_put_the_degenerate_solutions_last():
    verdicts = [{"family": "links", "scaffold": "aide", "passed": True},
                {"family": "links", "scaffold": "aide", "passed": False},
                {"family": "escapes", "scaffold": "react", "passed": True}]
    degenerate = [{"task_id": "t", "solution": "random"}, {"task_id": "t", "solution": "sample_submission"}]
    rows = family_scaffold_counts(verdicts, degenerate=degenerate, broken=[{"task_id": "t", "solution": "random"}])
    assert rows == [{"family": "escapes", "scaffold": "react", "contained": 1, "failing": 0},
                    {"family": "links", "scaffold": "aide", "contained": 1, "failing": 1},
                    {"family": "degenerate", "scaffold": "any", "contained": 1, "failing": 1}]
