"""AIDE's control flow under a scripted policy: draft/improve/debug operators, the review and malformed replies."""

from __future__ import annotations

import random

from sandmle.agents.scaffolds.aide import choose
from sandmle.agents.scaffolds.tree import Node, extract_plan_and_code
from sandmle.episodes.runner import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import (
    FAILING_CODE, NEVER_ENDING_CODE, ScriptedPolicy, constant_submission_code, make_bundle, reply_with_code,
    review_json,
)


def policy_turns(trajectory):
    return [t for t in trajectory.turns if t["role"] == "assistant"]


# Served Qwen3 without a reasoning parser: thinking in the reply text, with braces and a fenced block in it.
THINKING = ("<think>The review wants {\"is_bug\": true} style JSON; a quick idea:\n```python\n"
            "print('written while thinking')\n```\nbut that is only a sketch {not json}.</think>\n")


def test_aide_operators_review_direction_thinking_and_malformed_replies(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")  # roc_auc: higher is better
    best_code = constant_submission_code(0.8, note="debugged")
    policy = ScriptedPolicy([
        THINKING + reply_with_code("Draft: a constant.", constant_submission_code(0.6)),
        # The review claims lower is better; AIDE would then rank 0.6 above 0.8. The task's direction wins.
        THINKING + review_json(is_bug=False, metric=0.6, lower_is_better=True, summary="draft one"),
        reply_with_code("Draft: read a column.", FAILING_CODE),
        review_json(is_bug=True, metric=None, summary="KeyError"),
        # Two code blocks: ill-formed; aideml joins them, so both run.
        reply_with_code("Fix it.", best_code) + "\n```python\nprint('second block')\n```",
        "```json\n" + review_json(is_bug=False, metric=0.8, lower_is_better=True, summary="fixed") + "\n```",
        "<think>```python\nprint('code only in thinking')\n```</think>I would tune it, but wrote no code.",
        reply_with_code("Improve by running forever.", NEVER_ENDING_CODE),  # the retry aideml makes
        review_json(is_bug=True, metric=None, summary="timed out"),
        reply_with_code("Debug the endless loop.", FAILING_CODE),
        THINKING + "It failed, I think.",  # no JSON after the thinking: the node is a bug
    ])
    config = EpisodeConfig(max_turns=5, step_timeout_s=2.0,
                           scaffold_options={"num_drafts": 2, "debug_prob": 1.0, "max_debug_depth": 1})
    trajectory = run_episode(task_dir, scaffold="aide", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "max_turns"
    tree = trajectory.extra["tree"]
    assert [(n["operator"], n["parent"], n["debug_depth"]) for n in tree] == [
        ("draft", None, 0), ("draft", None, 0), ("debug", 1, 1), ("improve", 2, 0), ("debug", 3, 1)]
    assert [n["is_bug"] for n in tree] == [False, True, False, True, True]
    assert tree[0]["review_flipped"] is True and tree[0]["metric"] == 0.6
    turns = policy_turns(trajectory)
    # Code written inside the thinking never runs; the thinking stays in the trajectory.
    assert "written while thinking" not in turns[0]["code"] and "written while thinking" in turns[0]["thinking"]
    assert "second block" in turns[4]["code"]
    first_prompt = policy.calls[0][0][-1]["content"]
    assert "<TOTAL_STEPS_REMAINING: 5>" in first_prompt and "hold-out validation set" in first_prompt
    assert "-> train.csv has 112 rows and 6 columns." in first_prompt  # the data preview
    # The improve operator took the best good node by the task's direction (0.8 > 0.6), not the review's, and
    # remembers every good node (aideml's journal summary).
    improve_prompt = policy.calls[6][0][-1]["content"]
    assert "# Previous solution" in improve_prompt and "debugged" in improve_prompt
    assert "Validation Metric: 0.8" in improve_prompt and "Validation Metric: 0.6" in improve_prompt
    debug_prompt = policy.calls[4][0][-1]["content"]
    assert "# Buggy implementation" in debug_prompt and "the column is not there" in debug_prompt
    kinds = [t["kind"] for t in turns]
    assert kinds == ["draft", "review", "draft", "review", "debug", "review", "improve", "improve_retry", "review",
                     "debug", "review"]
    assert any(t["step"] and t["step"]["termination"] == "timeout" for t in trajectory.turns)
    assert [t["well_formed"] for t in turns].count(False) == 3
    # The best node's submission is graded, and the trajectory says why it was chosen.
    assert "0.8" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.extra["submission_choice"] | {"reason": ""} == {
        "rule": "best_validation_node", "reason": "", "file": "node2.csv", "node": 2, "metric": 0.8}
    assert trajectory.grade.valid_submission is True and trajectory.grade.score == 0.5


def test_aide_lower_is_better_task_num_drafts_and_bad_review(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")  # rmse: lower is better
    policy = ScriptedPolicy([
        reply_with_code("Draft A.", constant_submission_code(3.0)),
        review_json(is_bug=False, metric=3.0, lower_is_better=False),
        reply_with_code("Draft B.", constant_submission_code(1.0)),
        review_json(is_bug=False, metric=1.0, lower_is_better=False),
        reply_with_code("Draft C.", constant_submission_code(2.0)),
        "The run looks fine to me.",  # not JSON: the node counts as a bug
        reply_with_code("Improve B.", constant_submission_code(0.9)),
        review_json(is_bug=False, metric=0.9),
    ])
    config = EpisodeConfig(max_turns=4, scaffold_options={"num_drafts": 3, "debug_prob": 0.0})
    trajectory = run_episode(task_dir, scaffold="aide", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    tree = trajectory.extra["tree"]
    assert [n["operator"] for n in tree] == ["draft", "draft", "draft", "improve"]
    assert tree[2]["is_bug"] is True and tree[2]["summary"] == "review was not valid JSON"
    assert tree[3]["parent"] == 1  # the lowest rmse, although the reviews called higher better
    reviews = [t for t in policy_turns(trajectory) if t["kind"] == "review"]
    assert [t["well_formed"] for t in reviews] == [True, True, False, True]
    assert "0.9" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.extra["submission_choice"]["node"] == 3


def test_aide_debug_depth_limit_returns_to_drafting(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    failing_reply = reply_with_code("Try.", FAILING_CODE)
    bug_review = review_json(is_bug=True, metric=None)
    policy = ScriptedPolicy([failing_reply, bug_review] * 5)
    config = EpisodeConfig(max_turns=5, scaffold_options={"num_drafts": 1, "debug_prob": 1.0, "max_debug_depth": 2})
    trajectory = run_episode(task_dir, scaffold="aide", policy=policy, config=config)

    tree = trajectory.extra["tree"]
    # aideml debugs leaves whose debug depth is <= max_debug_depth, so a branch reaches depth 3.
    assert [(n["operator"], n["debug_depth"]) for n in tree] == [
        ("draft", 0), ("debug", 1), ("debug", 2), ("debug", 3), ("draft", 0)]
    # No good node: no submission, as aideml's get_best_node() returns None.
    assert trajectory.extra["submission_choice"]["file"] is None
    assert trajectory.grade.submission_exists is False and trajectory.grade.valid_submission is False


def test_choose_follows_aide_search_policy():
    rng = random.Random(0)
    good = Node(node_id=0, operator="draft", parent=None, is_bug=False, metric=0.7)
    better = Node(node_id=1, operator="draft", parent=None, is_bug=False, metric=0.9)
    buggy = Node(node_id=2, operator="draft", parent=None)
    settings = {"num_drafts": 3, "max_debug_depth": 3, "lower_is_better": False}
    assert choose([good, better], rng, debug_prob=1.0, **settings) == ("draft", None)
    assert choose([good, better, buggy], rng, debug_prob=1.0, **settings) == ("debug", buggy)
    assert choose([good, better, buggy], rng, debug_prob=0.0, **settings) == ("improve", better)
    assert choose([good, better, buggy], rng, debug_prob=0.0, **{**settings, "lower_is_better": True}) == ("improve", good)
    assert choose([buggy, Node(node_id=3, operator="draft", parent=None), Node(node_id=4, operator="draft", parent=None)],
                  rng, debug_prob=0.0, **settings) == ("draft", None)


def test_plan_and_code_extraction():
    assert extract_plan_and_code("Plan.\n```python\nprint(1)\n```") == ("Plan.", "print(1)\n", True)
    plan, code, single = extract_plan_and_code("Two.\n```python\na=1\n```\n```python\nb=2\n```")
    assert (code, single) == ("a=1\n\n\nb=2\n", False)
    assert extract_plan_and_code("no code at all") == ("no code at all", None, False)
    # Thinking closed without its opening tag (the template put <think> in the prompt) is not read either.
    assert extract_plan_and_code("```python\nx=1\n```</think>Plan.\n```python\ny=2\n```") == ("Plan.", "y=2\n", True)


def test_a_policy_error_mid_search_still_grades_the_best_node(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")
    policy = ScriptedPolicy([
        reply_with_code("Draft A.", constant_submission_code(1.0)),
        review_json(is_bug=False, metric=1.0),
        reply_with_code("Draft B.", constant_submission_code(50.0)),
    ])  # the review of B finds no reply left: the policy raises
    config = EpisodeConfig(max_turns=4, scaffold_options={"num_drafts": 2})
    trajectory = run_episode(task_dir, scaffold="aide", policy=policy, config=config, workdir=tmp_path / "work")
    assert trajectory.termination == "error" and "no reply left" in trajectory.error
    assert trajectory.extra["submission_choice"]["node"] == 0
    assert "1.0" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.grade.valid_submission is True and trajectory.rewards["dense"]["components"]["valid"] == 0.2
