"""MLE-Agent's control flow under a scripted policy: strict JSON actions, bad JSON, the advise -> code -> debug loop."""

from __future__ import annotations

import json

from sandmle.agents.scaffolds.mle_agent import parse_action
from sandmle.rollout import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import (
    COPY_SAMPLE, FAILING_CODE, NEVER_ENDING_CODE, ScriptedPolicy, make_bundle,
)


def action(name: str, **fields) -> str:
    return json.dumps({"action": name, **fields})


def test_mle_agent_actions_bad_json_and_debug_loop(tmp_path):
    task_dir = make_bundle(tmp_path, kind="multiclass")
    policy = ScriptedPolicy([
        action("request_info", info_type="overview"),
        action("request_info", info_type="sample_submission"),
        action("request_info", info_type="leaderboard"),
        '{"action": "execute_code", "code": "print(1)"',  # truncated JSON
        '```json\n{"action": "submit"}\n```',  # fenced: not strict JSON
        action("train_model"),
        action("validate_code"),  # no code
        action("validate_code", code="import os\nprint(sorted(os.listdir('/public')))"),
        action("execute_code", code=FAILING_CODE),
        action("execute_code", code=NEVER_ENDING_CODE),
        action("execute_code", code=COPY_SAMPLE),
        action("submit"),
    ])
    config = EpisodeConfig(feedback="validate", step_timeout_s=2.0)
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=config)

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "answered"
    observations = [t["observation"] for t in trajectory.turns if t["role"] == "tool"]
    assert "Predict `species`" in observations[0] and "/public/train.csv" in observations[0]
    assert observations[1].startswith("id,0,1,2")
    assert observations[2].startswith("Unknown info_type 'leaderboard'")
    assert "not valid JSON" in observations[3] and "not valid JSON" in observations[4]
    assert "'action' must be one of" in observations[5]
    assert "validate_code needs a string 'code'" in observations[6]
    assert "train.csv" in observations[7]
    # The debug loop: a traceback or a timeout comes back with the request to fix it.
    assert "the column is not there" in observations[8]
    assert "time limit" in observations[9]
    # Each observation is the next user message the policy sees, with the debug request or the validation.
    assert "the column is not there" in policy.calls[9][0][-1]["content"]
    assert "Debug: fix the error" in policy.calls[9][0][-1]["content"]
    assert "copied" in policy.calls[11][0][-1]["content"] and "Submission is valid." in policy.calls[11][0][-1]["content"]
    assert "Debug: fix the error" not in policy.calls[11][0][-1]["content"]
    assert [t["kind"] for t in trajectory.turns if t["role"] == "tool"][7:11] == [
        "validate_code", "execute_code", "execute_code", "execute_code"]
    assert abs(trajectory.format_rate - 7 / 12) < 1e-9
    assert trajectory.grade["valid_submission"] is True
    assert trajectory.rewards["dense"]["components"]["valid"] == 0.2


def test_mle_agent_advises_first_and_hides_feedback_when_off(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")
    policy = ScriptedPolicy([action("execute_code", code=COPY_SAMPLE)] * 2)
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=EpisodeConfig(max_turns=2))

    first_prompt = policy.calls[0][0]
    assert "REPLY FORMAT: mle_agent" in first_prompt[0]["content"]
    assert first_prompt[1]["content"].startswith("Advise:") and "Predict `price`" in first_prompt[1]["content"]
    assert "Submission is" not in policy.calls[1][0][-1]["content"]
    assert trajectory.termination == "max_turns"
    assert trajectory.grade["valid_submission"] is True  # no submit action: the file written is still graded


def test_mle_agent_time_budget(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([action("submit")])
    trajectory = run_episode(task_dir, scaffold="mle_agent", policy=policy, config=EpisodeConfig(time_budget_s=0.0))
    assert trajectory.termination == "time_budget" and policy.calls == []
    assert trajectory.grade["submission_exists"] is False


def test_parse_action_is_strict():
    assert parse_action(' {"action": "submit"} \n') == ({"action": "submit"}, "")
    assert parse_action('{"action": "execute_code", "code": 3}')[0] is None
    assert parse_action('[{"action": "submit"}]')[1] == "'action' must be one of request_info, validate_code, execute_code, submit"
    assert parse_action("Sure! Here is the action: {}")[1].startswith("reply is not valid JSON")
