"""The audit plays react's sandmle dialect (SandMLE's released grammar) and any feedback mode, records how it played,
and its coverage names each way a run plays differently; the bundle digest covers every file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandmle.agents.policies.base import SamplingParams
from sandmle.agents.scaffolds.react_sandmle import parse_tool_call
from sandmle.audit import AuditConfig, run_audit
from sandmle.audit.attacks.feedback import EMPTY_THINK, NO_THINK, THINK_AFTER
from sandmle.audit.coverage import (RECORDED_BEFORE, PlaySettings, bundle_digest, coverage_gaps, coverage_record,
                                    judge_identity, runnable_attacks)
from sandmle.audit.policy import AttackPolicy
from sandmle.audit.registry import Code, Feedback, Raw
from sandmle.errors import UsageError
from sandmle.sandbox import SandboxPool
from tests.engine.rollout_bundles import make_bundle


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=2, steps_per_zygote=1000, preload=()) as shared:
        yield shared


def _replies(steps, reply_format: str, *, count: int) -> list[str]:
    policy = AttackPolicy(steps, attack="test", is_lower_better=False)
    sampling = SamplingParams(reply_format=reply_format)
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    return [policy.generate(messages, sampling=sampling).text for _ in range(count)]


def test_each_step_renders_in_sandmles_released_grammar():
    steps = [Code("print('hi')\n", "look"), Feedback("score"), Feedback("validate"), Raw({"react": "studio only"}),
             Raw(THINK_AFTER)]
    code, score, validate, after, finish = _replies(steps, "react_sandmle", count=5)
    assert parse_tool_call(code) == ("python", "print('hi')") and code.startswith("<think>look</think>")
    for call in (score, validate):  # the dialect's one feedback tool
        kind, argument = parse_tool_call(call)
        assert kind == "json" and argument["name"] == "Score"
    assert after.startswith("<tool_call>") and "<think>" in after  # the studio-only Raw step was skipped
    assert finish.endswith("<answer>submission</answer>")
    assert {"react_sandmle"} <= set(NO_THINK) & set(EMPTY_THINK) & set(THINK_AFTER)


def test_a_sandmle_dialect_audit_plays_its_grammar_and_records_it(pool, tmp_path):
    task = make_bundle(tmp_path / "tasks", kind="binary", seed=0)
    config = AuditConfig(scaffolds=("react",), attacks=("feedback_probe", "format_without_work"),
                         scaffold_options={"react": {"dialect": "sandmle"}})
    report = run_audit([task], out_dir=tmp_path / "out", pool=pool, config=config)
    # A <think> after the call earns no format credit (the scaffold once counted thinking anywhere in the reply).
    assert report.passed, [(v["attack"], v["problems"]) for v in report.failing]
    assert report.scaffold_options == {"react": {"dialect": "sandmle"}} and report.feedback == ["score"]
    probe = next(v for v in report.verdicts if v["attack"] == "feedback_probe")
    turns = json.loads((tmp_path / "out" / probe["evidence"]).read_text())["trajectory"]["turns"]
    kinds = [turn.get("kind") for turn in turns if turn["role"] == "tool"]
    assert "score" in kinds and "python" in kinds and "format_error" not in kinds
    seen = "\n".join(turn.get("observation") or "" for turn in turns)
    assert "best public score 0." in seen  # the climb read the Score tool's JSON


def test_score_answers_lets_the_feedback_attack_learn_private_labels(pool, tmp_path):
    task = make_bundle(tmp_path / "tasks", kind="binary", seed=0)
    config = AuditConfig(scaffolds=("react",), attacks=("feedback_probe",), feedback="score_answers",
                         scaffold_options={"react": {"dialect": "sandmle"}})
    report = run_audit([task], out_dir=tmp_path / "out", pool=pool, config=config)
    assert not report.passed and report.feedback == ["score_answers"]
    assert "carry private information" in report.failing[0]["problems"][0]


def test_audit_config_refuses_what_a_run_could_not_play():
    with pytest.raises(UsageError, match="dialect"):
        AuditConfig(scaffolds=("react",), scaffold_options={"react": {"dialect": "klingon"}})
    with pytest.raises(UsageError, match="does not play"):
        AuditConfig(scaffolds=("aide",), scaffold_options={"react": {"dialect": "sandmle"}})
    with pytest.raises(UsageError, match="episode budgets"):
        AuditConfig(scaffolds=("react",), scaffold_options={"react": {"max_turns": 2}})
    with pytest.raises(UsageError, match="feedback"):
        AuditConfig(feedback="shout")


def test_the_digest_covers_every_file_of_the_bundle(tmp_path):
    task = make_bundle(tmp_path, kind="binary", seed=0)
    before = bundle_digest(task)
    with (task / "task.json").open("ab") as handle:
        handle.write(b" ")
    appended = bundle_digest(task)
    assert appended != before
    (task / "notes.txt").symlink_to("/etc/hostname")
    assert bundle_digest(task) != appended


def _complete(**played) -> dict:
    return coverage_record(attacks=[attack.name for attack in runnable_attacks()], scaffolds=["react", "aira"],
                           tasks={"t": "d"}, reward="dense", task_sets=["s"], **played)


def test_coverage_names_each_way_a_run_plays_differently():
    coverage = _complete()
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="react"), tasks={"t": "d"}) == []
    # Less feedback than the audit played is covered; score_answers only by itself.
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="react", feedback="validate"), tasks={"t": "d"}) == []
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="react", feedback="score_answers"), tasks={"t": "d"}) \
        == ["feedback score_answers not audited (the audit played score): its Score tool grades against the private "
            "answers, so it needs an audit that played it"]
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="aira", scaffold_options={"search": "mcts"}),
                         tasks={"t": "d"}) == ["scaffold aira option search=mcts not audited (the audit played "
                                               "search=greedy)"]
    # The tree sizes the audit sets itself are no gap.
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="aira", scaffold_options={"num_drafts": 2}),
                         tasks={"t": "d"}) == []
    judge = judge_identity("http://judge.example:8000/v1", "m")
    assert judge == {"model": "m", "host": "judge.example:8000"}
    rubric = PlaySettings(scaffold="react", reward="dense+rubric", judge=judge)
    assert coverage_gaps(coverage, play=rubric, tasks={"t": "d"})[0].endswith(
        "with its judge m at judge.example:8000: the audit ran no judge (studio audits run none)")
    judged = coverage_record(attacks=[a.name for a in runnable_attacks()] + ["rubric_claims", "judge_injection"],
                             scaffolds=["react"], tasks={"t": "d"}, reward="dense", judge=judge)
    assert coverage_gaps(judged, play=rubric, tasks={"t": "d"}) == []
    other = judge_identity("http://other.example/v1", "m")
    assert "the audit's judge was m at judge.example:8000" in coverage_gaps(
        judged, play=PlaySettings(scaffold="react", reward="rubric", judge=other), tasks={"t": "d"})[0]
    # SFT plays no feedback of its own; a record without a version vouches for nothing.
    assert coverage_gaps(coverage, play=PlaySettings(scaffold="react", feedback=None), tasks={"t": "d"}) == []
    old = {key: value for key, value in coverage.items() if key != "version"}
    assert coverage_gaps(old, play=PlaySettings(scaffold="react"), tasks={"t": "d"}) == [RECORDED_BEFORE]
    assert coverage_gaps({}, play=PlaySettings(scaffold="react"), tasks={"t": "d"}) == [RECORDED_BEFORE]


def test_the_cli_plays_the_dialect_and_feedback_it_is_given(tmp_path, capsys):
    from sandmle.cli import main

    task = make_bundle(tmp_path / "tasks", kind="binary", seed=0)
    out = tmp_path / "cli"
    assert main(["audit", str(task), "--scaffold", "react", "--attack", "feedback_probe", "--scaffold-option",
                 "react.dialect=sandmle", "--feedback", "score_answers", "--out", str(out)]) == 1
    saved = json.loads((out / "audit.json").read_text())
    assert saved["scaffold_options"] == {"react": {"dialect": "sandmle"}} and saved["feedback"] == ["score_answers"]
    assert "carry private information" in capsys.readouterr().err
    assert main(["audit", str(task), "--scaffold", "aide", "--scaffold-option", "dialect=sandmle",
                 "--out", str(out)]) == 2


def test_an_adaptive_runs_successors_are_audited_as_the_run_plays(iris_results, tmp_path):
    """The studio's gate lets an adaptive run pass because each successor is audited on the run's scaffold, options
    and feedback before the draw: the controller hands them on, and the successor's audit plays them."""
    from sandmle.rl.config import load_train_config
    from sandmle.rl.frontier_controller import FrontierController
    from sandmle.rl.successor_jobs import audit_problems

    tasks = [result.bundle_dir for result in iris_results]
    config = load_train_config({"model": "m", "tasks": [str(t) for t in tasks], "output_dir": str(tmp_path / "run"),
                                "environments": "adaptive", "frontier_evidence": 4, "group_size": 2,
                                "tasks_per_step": 1, "steps": 100, "feedback": "score_answers",
                                "scaffold_options": {"dialect": "sandmle"}})
    from concurrent.futures import Future

    requests = []

    def held(fn, **kwargs):  # kept unfinished: only what the controller asks for is checked here
        requests.append(kwargs)
        return Future()

    controller = FrontierController(tasks, config=config, out_dir=tmp_path / "env", submit=held)
    controller.record(0, [1.0, 1.0, 1.0, 1.0])
    controller.after_step(1, lambda slot: None)
    assert requests and requests[0]["scaffold_options"] == {"dialect": "sandmle"}
    assert requests[0]["feedback"] == "score_answers"
    task = make_bundle(tmp_path / "successor", kind="binary", seed=0)
    problems = audit_problems(task, scaffold="react", out_dir=tmp_path / "audits", feedback="score_answers",
                              scaffold_options={"dialect": "sandmle"})
    assert problems and all(problem.startswith("feedback_probe on react:") for problem in problems), problems
