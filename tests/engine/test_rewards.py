"""Tests of the reward schemes: dense and sparse from grade reports, rubric and dense+rubric with a real local judge."""

from __future__ import annotations

import json

import pytest

from sandmle.errors import UsageError
from sandmle.rewards.schemes import REWARD_SCHEMES, RewardBreakdown, compute_reward, reward_scheme
from sandmle.tasks.grade_report import GradeReport
from tests.chat_server import ChatServer


def report(milestone=None, valid=True) -> GradeReport:
    order = ["gold", "silver", "bronze", "median"]
    reached = {name: milestone is not None and order.index(name) >= order.index(milestone) for name in order}
    return GradeReport("t", 0.5 if valid else None, 0.9, 0.8, 0.7, 0.5, milestone == "gold", milestone == "silver",
                       milestone == "bronze", reached["bronze"], reached["median"], True, valid, False, milestone, 0.5)


@pytest.mark.parametrize("milestone,expected", [("gold", 0.9), ("silver", 0.8), ("bronze", 0.7), ("median", 0.3), (None, 0.2)])
def test_dense(milestone, expected):
    breakdown = compute_reward("dense", report=report(milestone), format_rate=0.5)
    assert breakdown.total == pytest.approx(expected + 0.05)
    assert set(breakdown.components) == {"valid", "milestone", "format"}


def test_dense_invalid_gets_format_only():
    assert compute_reward("dense", report=report(None, valid=False), format_rate=1.0).total == pytest.approx(0.1)


def test_sparse():
    assert compute_reward("sparse", report=report("gold"), format_rate=1.0).total == pytest.approx(1.0)
    assert compute_reward("sparse", report=report("silver"), format_rate=1.0).total == pytest.approx(0.1)


def test_registry_and_bad_arguments():
    assert {"dense", "sparse", "rubric", "dense+rubric"} <= set(REWARD_SCHEMES)
    with pytest.raises(UsageError):
        compute_reward("nope", report=report(), format_rate=1.0)
    with pytest.raises(UsageError):
        compute_reward("dense", report=report(), format_rate=1.5)


TRAJECTORY = {"turns": [
    {"role": "assistant", "content": "look at data", "code": "df.describe()", "observation": "count 200"},
    {"role": "tool", "code": "cross_val_score(model, X, y, cv=5)", "observation": "0.81", "step": {"termination": "ok"}},
]}


def judge_by_keyword(request: dict):
    asked = request["messages"][1]["content"]
    met = "cross-validation" in asked or "inspects" in asked
    return json.dumps({"met": met, "reason": "seen in turn 2" if met else "not seen"})


def test_rubric_sums_weights_of_met_criteria(chat_server, chat_client):
    chat_server.reply_fn = judge_by_keyword
    breakdown = compute_reward("rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY, judge=chat_client)
    assert breakdown.total == pytest.approx(0.7)
    assert breakdown.components == {"cross_validation": 0.4, "missing_values": 0.0, "inspects_data": 0.3}
    assert breakdown.details["verdicts"]["missing_values"]["reason"] == "not seen"
    assert "cross_val_score" in chat_server.requests[0]["messages"][1]["content"]


def test_rubric_custom_criteria_and_judge_failure(chat_server, chat_client):
    chat_server.script("not json", "still not", "nope")
    criteria = [{"name": "only", "description": "does anything", "weight": 1.0}]
    breakdown = compute_reward("rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY, judge=chat_client, criteria=criteria)
    assert breakdown.total == 0.0 and breakdown.details["verdicts"]["only"]["reason"].startswith("judge failed")
    with pytest.raises(UsageError, match="sum to 1"):
        compute_reward("rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY, judge=chat_client,
                       criteria=[{"name": "a", "description": "x", "weight": 0.5}])


def test_dense_plus_rubric(chat_server, chat_client):
    chat_server.reply_fn = judge_by_keyword
    breakdown = compute_reward("dense+rubric", report=report("gold"), format_rate=1.0, trajectory=TRAJECTORY,
                               judge=chat_client, rubric_weight=0.5)
    assert breakdown.total == pytest.approx(0.5 * 1.0 + 0.5 * 0.7)
    assert breakdown.components["dense.milestone"] == pytest.approx(0.35)


@pytest.mark.parametrize("milestone,value", [("gold", 0.7), ("silver", 0.6), ("bronze", 0.5), ("median", 0.1), (None, 0.0)])
@pytest.mark.parametrize("format_rate", [0.0, 0.4, 1.0])
def test_dense_components_are_sandmles(milestone, value, format_rate):
    breakdown = compute_reward("dense", report=report(milestone), format_rate=format_rate)
    assert breakdown.components == pytest.approx({"valid": 0.2, "milestone": value, "format": 0.1 * format_rate})
    assert breakdown.total == pytest.approx(sum(breakdown.components.values()))


@pytest.mark.parametrize("milestone,gold", [("gold", 0.9), ("silver", 0.0), (None, 0.0)])
def test_sparse_components(milestone, gold):
    breakdown = compute_reward("sparse", report=report(milestone), format_rate=0.3)
    assert breakdown.components == pytest.approx({"gold": gold, "format": 0.03})
    assert compute_reward("sparse", report=report(None, valid=False), format_rate=0.3).total == pytest.approx(0.03)


@pytest.mark.parametrize("name", ["dense", "sparse"])
def test_schemes_are_pure_functions_of_report_and_format_rate(name):
    graded = report("silver")
    before = graded.to_dict()
    first = compute_reward(name, report=graded, format_rate=0.5, trajectory=TRAJECTORY)
    second = compute_reward(name, report=graded, format_rate=0.5)  # the trajectory does not enter these schemes
    assert first == second and graded.to_dict() == before


def test_a_new_scheme_is_one_small_function():
    @reward_scheme("medal_only")
    def medal_only(*, report, format_rate, trajectory=None):
        return RewardBreakdown("medal_only", float(report.any_medal), {"medal": float(report.any_medal)})

    try:
        assert compute_reward("medal_only", report=report("bronze"), format_rate=0.0).total == 1.0
        assert compute_reward("medal_only", report=report("median"), format_rate=1.0).total == 0.0
    finally:
        del REWARD_SCHEMES["medal_only"]


def test_rubric_and_dense_rubric_need_their_inputs(chat_client):
    with pytest.raises(UsageError, match="judge"):
        compute_reward("rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY)
    with pytest.raises(UsageError, match="trajectory"):
        compute_reward("rubric", report=report(), format_rate=1.0, judge=chat_client)
    with pytest.raises(UsageError, match="rubric_weight"):
        compute_reward("dense+rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY, judge=chat_client,
                       rubric_weight=1.5)


def test_judge_answering_off_schema_or_failing_is_a_clear_zero(chat_server, chat_client):
    # cross_validation is checked from the code, not asked. Judged criterion 1: three answers that parse but break
    # the schema; 2: server errors until retries run out.
    chat_server.script('{"met": "yes", "reason": "sure"}', '{"reason": "forgot met"}', '["met"]',
                       (500, {"error": "down"}), (503, {"error": "busy"}), (500, {"error": "down"}))
    breakdown = compute_reward("rubric", report=report(), format_rate=1.0, trajectory=TRAJECTORY, judge=chat_client)
    assert breakdown.details["judge_failures"] == ["missing_values", "inspects_data"]
    assert breakdown.components == {"cross_validation": 0.4, "missing_values": 0.0, "inspects_data": 0.0}
    assert breakdown.total == pytest.approx(0.4)
    assert "schema violation" in breakdown.details["verdicts"]["missing_values"]["reason"]
    assert "HTTP 500" in breakdown.details["verdicts"]["inspects_data"]["reason"]


def test_unreachable_judge_gives_dense_plus_zero_rubric():
    from sandmle.llm.client import ChatClient

    with ChatServer() as gone:
        url = gone.base_url
    judge = ChatClient(url, "judge", api_key="k", timeout_s=2, max_retries=1, backoff_s=0.01)  # the port is closed now
    breakdown = compute_reward("dense+rubric", report=report("gold"), format_rate=1.0, trajectory=TRAJECTORY,
                               judge=judge, rubric_weight=0.25)
    assert breakdown.total == pytest.approx(0.75 * 1.0 + 0.25 * 0.4)  # only the code-checked criterion is met
    assert breakdown.details["judge_failures"] == ["missing_values", "inspects_data"]
    assert all("cannot reach" in verdict["reason"] for verdict in breakdown.details["verdicts"].values()
               if verdict["decided_by"] == "judge")


def test_episode_with_a_judge_stores_rubric_and_dense_plus_rubric(tmp_path, chat_server, chat_client):
    """A run that configures a judge gets both rubric schemes on every trajectory, each criterion judged once."""
    from sandmle.episodes.runner import EpisodeConfig, run_episode
    from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle

    def judge(request: dict):
        asked = request["messages"][1]["content"]
        # The judge sees the policy's own words, not only its code: "inspects" is met by the thinking text.
        met = "inspects" in asked and "I look at the columns first" in asked
        return json.dumps({"met": met, "reason": "thinking says so" if met else "not seen"})

    chat_server.reply_fn = judge
    policy = ScriptedPolicy([f"<think>I look at the columns first</think><python>{COPY_SAMPLE}</python>",
                             "<think>done</think><answer>submission.csv</answer>"])
    config = EpisodeConfig(rubric_judge=chat_client, rubric_weight=0.5)
    trajectory = run_episode(make_bundle(tmp_path, kind="binary"), scaffold="react", policy=policy, config=config)
    assert trajectory.error is None, trajectory.error
    rewards = trajectory.rewards
    assert set(rewards) == {"dense", "sparse", "rubric", "dense+rubric"}
    assert rewards["rubric"]["total"] == pytest.approx(0.3)
    assert rewards["dense+rubric"]["total"] == pytest.approx(0.5 * rewards["dense"]["total"] + 0.5 * 0.3)
    # One call per judged criterion, shared by both schemes; cross-validation is checked from the code (none ran).
    assert len(chat_server.requests) == 2
    assert rewards["rubric"]["details"]["verdicts"]["cross_validation"]["met"] is False
    with pytest.raises(UsageError, match="rubric weight"):
        EpisodeConfig(rubric_weight=1.5)
