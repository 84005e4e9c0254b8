"""Tests of the reward schemes: dense and sparse from grade reports, rubric and dense+rubric with a real local judge."""

from __future__ import annotations

import json

import pytest

from sandmle.errors import UsageError
from sandmle.grading import GradeReport
from sandmle.rewards import REWARD_SCHEMES, compute_reward
from tests.chat_server import chat_client, chat_server  # noqa: F401  (fixtures)


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
    {"role": "assistant", "content": "cv", "code": "cross_val_score(model, X, y, cv=5)", "observation": "0.81"},
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
