"""MLE-Agent replayed in MLE-Dojo's format: {"action", "params"} JSON after thinking, ```json fences, repair calls that
are not steps, error/reflection feedback, and the best test-scored submission over all execute_code calls."""

from __future__ import annotations

import json

from sandmle.agents.scaffolds.mle_agent import parse_action
from sandmle.episodes.runner import EpisodeConfig, run_episode
from sandmle.tasks.grading import grade_submission
from tests.engine.rollout_bundles import FAILING_CODE, ScriptedPolicy, constant_submission_code, make_bundle

THINKING = '<think>Reply {"action": ...} JSON; maybe ```python\nprint(1)\n``` first? No.}</think>\n'


def action(name: str, **params) -> str:
    return json.dumps({"action": name, "params": params})


def test_mle_agent_repairs_feedback_and_best_test_scored_submission(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")  # rmse: lower is better
    policy = ScriptedPolicy([
        THINKING + "```json\n" + action("request_info", info_type="overview") + "\n```",
        action("request_info", info_type="leaderboard"),
        '{"action": "execute_code", "params": {"code": "print(1)"}',  # truncated JSON
        "Sure: " + action("validate_code", code="print(2)"),  # repair 1: still not strict JSON
        action("validate_code", code="import os\nprint(sorted(os.listdir('/public')))"),  # repair 2 works
        action("execute_code", code=FAILING_CODE),
        THINKING + action("execute_code", code=constant_submission_code(50.0)),
        action("execute_code", code=constant_submission_code(1.0)),
        action("execute_code", code=constant_submission_code(100.0)),
        action("request_info", info_type="output_path"),
    ])
    config = EpisodeConfig(feedback="validate", step_timeout_s=5.0, max_turns=8)
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "max_turns" and len(policy.calls) == 10
    first = policy.calls[0][0]
    assert [m["role"] for m in first] == ["user"] and "You have 8 actions in all." in first[0]["content"]
    # The fenced reply after thinking was read; the overview came back in the reflection template.
    assert "Predict `price`" in policy.calls[1][0][-1]["content"]
    assert "#### Results Start ####" in policy.calls[1][0][-1]["content"]
    assert "You still have 7 actions available." in policy.calls[1][0][-1]["content"]
    # An unknown info type is an error; MLE-Dojo answers it in its error template.
    assert "Execution failed" in policy.calls[2][0][-1]["content"]
    assert "Invalid info type: leaderboard" in policy.calls[2][0][-1]["content"]
    # Repairs: one user message with the broken reply and the error; they are not steps.
    repair = policy.calls[3][0]
    assert len(repair) == 1 and "### Response Start ###" in repair[0]["content"]
    kinds = [t["kind"] for t in trajectory.turns if t["role"] == "assistant"]
    assert kinds.count("repair") == 2 and len(kinds) == 10
    # The truncated reply and the first repair are malformed turns; the working repair is not.
    assert [t["well_formed"] for t in trajectory.turns if t["role"] == "assistant"][2:5] == [False, False, True]
    assert "train.csv" in policy.calls[5][0][-1]["content"]
    assert "the column is not there" in policy.calls[6][0][-1]["content"]
    assert "Execution failed" in policy.calls[6][0][-1]["content"]
    assert "Submission is valid." in policy.calls[7][0][-1]["content"]
    # The best test score over the execute_code calls is graded, not the last file written (100.0).
    choice = trajectory.extra["submission_choice"]
    assert choice["rule"] == "best_test_score" and choice["execute_call"] == 3 and choice["file"] == "execute3.csv"
    work = tmp_path / "work"
    scores = {call: grade_submission(task_dir, work / ".nodes" / f"execute{call}.csv", split="private").score
              for call in (2, 3, 4)}
    assert min(scores, key=scores.get) == 3
    assert trajectory.grade.score == scores[3] and trajectory.grade.valid_submission is True


def test_mle_agent_stops_after_three_failed_repairs(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([action("execute_code", code=constant_submission_code(0.4))] + ["not json"] * 4)
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=EpisodeConfig(max_turns=5))
    assert trajectory.termination == "parse_error" and len(policy.calls) == 5
    # The valid submission of the first step still counts.
    assert trajectory.grade.valid_submission is True


def test_mle_agent_policy_error_keeps_the_grade(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([action("execute_code", code=constant_submission_code(0.3))])  # then it raises
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=EpisodeConfig(max_turns=5))
    assert trajectory.termination == "error" and "no reply left" in trajectory.error
    assert trajectory.grade.valid_submission is True
    assert trajectory.rewards["dense"]["components"]["valid"] == 0.2


def test_mle_agent_history_length_and_prompt_token_limit(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy(reply_fn=lambda messages, sampling: action("validate_code", code="print('x' * 400)"))
    config = EpisodeConfig(max_turns=6, scaffold_options={"history_length": 1})
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=config)
    assert trajectory.termination == "max_turns"
    assert [len(call[0]) for call in policy.calls] == [1, 3, 4, 4, 4, 4]  # the first exchange + the last one
    small = EpisodeConfig(max_turns=6, scaffold_options={"context_tokens": 700})
    policy = ScriptedPolicy(reply_fn=lambda messages, sampling: action("validate_code", code="print('x' * 2000)"))
    assert run_episode(task_dir, scaffold="mle_agent", policy=policy, config=small).termination == "context"
    assert len(policy.calls) < 6


def test_mle_agent_time_budget(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([action("request_info", info_type="overview")])
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=EpisodeConfig(time_budget_s=0.0))
    assert trajectory.termination == "time_budget" and policy.calls == []
    assert trajectory.grade.submission_exists is False
    assert trajectory.extra["submission_choice"]["file"] is None


def test_parse_action_follows_mle_dojo():
    assert parse_action(' {"action": "request_info", "params": {"info_type": "overview"}} \n')[0] is not None
    assert parse_action(THINKING + '```json\n{"action": "validate_code", "params": {"code": "x=1"}}\n```')[0] == {
        "action": "validate_code", "params": {"code": "x=1"}}
    assert parse_action('{"action": "execute_code", "params": {"code": 3}}')[1] == "'code' must be a string"
    assert parse_action('{"action": "submit", "params": {}}')[1].startswith("Invalid action 'submit'")
    assert parse_action('{"action": "execute_code", "code": "x"}')[1].startswith("Response must contain exactly")
    assert parse_action("Sure! Here is the action: {}")[1].startswith("reply is not valid JSON")
    assert parse_action("<think>only thinking {}</think>")[1] == "Empty response"
