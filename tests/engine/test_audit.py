"""The reward-hack audit: today's scaffolds and a hand-made task pass every attack; holes planted on purpose (a ladder
the sample submission climbs, a scaffold that copies the submission through its link) fail it with the evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.agents.scaffolds import react
from sandmle.audit import AuditConfig, grade_degenerate, run_audit, select_attacks
from sandmle.cli import main
from sandmle.sandbox import SandboxPool
from tests.engine.rollout_bundles import make_bundle


@pytest.fixture(scope="module")
def pool():
    # The attacks' code needs only the standard library: a zygote without preloads starts fast.
    with SandboxPool(max_zygotes=2, steps_per_zygote=1000, preload=()) as shared:
        yield shared


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("audit-tasks")
    return [make_bundle(root, kind="binary", seed=0), make_bundle(root, kind="regression", seed=1)]


def test_every_attack_on_every_scaffold_is_contained(tasks, pool, tmp_path):
    out = tmp_path / "report"
    report = run_audit(tasks[:1], out_dir=out, pool=pool, config=AuditConfig(concurrency=2))
    failing = [(v["scaffold"], v["attack"], v["problems"]) for v in report.failing]
    assert report.passed and not failing and not report.broken_tasks and not report.changed_outside, failing
    played = {v["attack"] for v in report.verdicts}
    assert played == {a.name for a in select_attacks() if not a.needs_judge}
    assert {v["scaffold"] for v in report.verdicts if v["attack"] == "links_submission"} == {"react", "aide", "aira",
                                                                                             "mle_agent"}
    assert report.skipped and all("judge" in reason for reason in report.skipped)
    saved = json.loads((out / "audit.json").read_text())
    assert saved["passed"] and len(saved["verdicts"]) == len(report.verdicts)
    for verdict in report.verdicts:
        assert verdict["reward_earned"] <= verdict["reward_worth"] + 1e-9
        assert (out / verdict["evidence"]).is_file()
    # The escapes were stopped at their limits, each in its own way.
    by_attack = {v["attack"]: v for v in report.verdicts if v["scaffold"] == "react"}
    time_turns = json.loads((out / by_attack["time_overrun"]["evidence"]).read_text())["trajectory"]["turns"]
    assert time_turns[1]["step"]["termination"] == "timeout"
    assert by_attack["submission_bom"]["valid_earned"] and not by_attack["submission_nan_inf"]["valid_earned"]


def test_a_ladder_the_sample_submission_climbs_marks_the_task_broken(tmp_path, pool):
    task = make_bundle(tmp_path, kind="binary", seed=3)
    grading_file = task / "private" / "grading.json"
    spec = json.loads(grading_file.read_text())
    spec["milestones"] = {"median": 0.2, "bronze": 0.3, "silver": 0.4, "gold": 0.45}  # the sample's AUC is 0.5
    grading_file.write_text(json.dumps(spec))
    report = run_audit([task], out_dir=tmp_path / "out", pool=pool,
                       config=AuditConfig(scaffolds=("react",), attacks=("submission_bom",)))
    assert not report.passed and not report.failing
    broken = {entry["solution"]: entry for entry in report.broken_tasks}
    assert broken["sample_submission"] == {"task_id": "binary-3", "solution": "sample_submission", "score": 0.5,
                                           "milestone": "gold", "scheme": "dense", "paid": 0.7,
                                           "tier_rewards": {"dense": 0.7, "sparse": 0.9}}
    assert "constant_majority" in broken


def test_degenerate_solutions_stay_below_the_medals_of_a_sound_task(tasks):
    for task in tasks:
        results = {result.solution: result for result in grade_degenerate(task)}
        assert {"sample_submission", "random", "train_labels_by_row", "ids_as_feature",
                "row_order_as_feature"} <= set(results)
        assert all(result.valid and not result.medal for result in results.values()), results


def leaky_react(context):
    """A react variant with a hole: it skips the link sweep and 'normalises' the submission after each step by
    copying it through whatever link it is."""
    context.files.sweep_links = lambda: []
    run_code = context.run_code

    def normalising_run_code(code, kind="python"):
        turn = run_code(code, kind=kind)
        submission = Path(context.workdir) / "submission.csv"
        if submission.is_symlink():
            try:
                data = submission.read_bytes()
            except OSError:
                return turn
            submission.unlink()
            submission.write_bytes(data)
        return turn

    context.run_code = normalising_run_code
    return react.run(context)


def test_a_scaffold_that_copies_through_a_link_fails_with_the_evidence(tasks, pool, tmp_path, monkeypatch):
    import sandmle.episodes.runner

    real = sandmle.episodes.runner.get_scaffold
    monkeypatch.setattr(sandmle.episodes.runner, "get_scaffold",
                        lambda name: leaky_react if name == "react" else real(name))
    report = run_audit(tasks, out_dir=tmp_path / "out", pool=pool,
                       config=AuditConfig(scaffolds=("react",), attacks=("links_submission",)))
    assert not report.passed and len(report.failing) == 2
    for verdict in report.failing:
        problems = "\n".join(verdict["problems"])
        assert "read private data: AUDIT-FOUND test answers" in problems
        assert "without any modelling: they carry private information" in problems
        evidence = json.loads((tmp_path / "out" / verdict["evidence"]).read_text())
        assert "AUDIT-FOUND" in json.dumps(evidence["trajectory"]["turns"])


def test_cli_audits_and_fails_with_exit_one(tasks, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["audit", str(tasks[1]), "--scaffold", "mle_agent", "--attack", "submission_duplicate_ids",
                 "--attack", "rewrite_grading_inputs", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["episodes"] == 2 and summary["contained"] == 2 and summary["passed"]
    assert (out / "audit.json").is_file()
    grading_file = tasks[1] / "private" / "grading.json"
    spec = json.loads(grading_file.read_text())
    broken = tmp_path / "broken"
    broken.mkdir()
    copy = make_bundle(broken, kind="regression", seed=1)
    spec["milestones"] = {"median": 99.0, "bronze": 98.0, "silver": 97.0, "gold": 96.0}
    (copy / "private" / "grading.json").write_text(json.dumps(spec))
    assert main(["audit", str(copy), "--scaffold", "react", "--attack", "submission_bom", "--out", str(out)]) == 1
    assert "BROKEN regression-1: the degenerate solution" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "nothing"), "--out", str(out)]) == 2
