"""AIRA's control flow under a scripted policy: operators, scoped memory, greedy and UCT search, the format check."""

from __future__ import annotations

import random

import pytest

from sandmle.agents.scaffolds.aira import backpropagate, greedy_choice, uct_choice
from sandmle.agents.scaffolds.tree import Node
from sandmle.rollout import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import (
    FAILING_CODE, HEADER_ONLY_SUBMISSION, ScriptedPolicy, constant_submission_code, make_bundle, reply_with_code,
    review_json,
)


def operator_prompt(policy, call_index):
    return policy.calls[call_index][0][-1]["content"]


def test_aira_format_check_marks_invalid_submissions_and_crossover_uses_scoped_memory(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([
        reply_with_code("Draft A.", constant_submission_code(0.6, note="draft A")),
        review_json(is_bug=False, metric=0.6, summary="constant A"),
        # The review believes this one; the format check finds the file has no rows and makes it a bug.
        reply_with_code("Draft B.", HEADER_ONLY_SUBMISSION),
        review_json(is_bug=False, metric=0.99, summary="too good to be true"),
        reply_with_code("Draft C.", constant_submission_code(0.7, note="draft C")),
        review_json(is_bug=False, metric=0.7, summary="constant C"),
        reply_with_code("Cross A and C.", constant_submission_code(0.9, note="crossed")),
        review_json(is_bug=False, metric=0.9, summary="crossed"),
    ])
    config = EpisodeConfig(max_turns=4, feedback="validate",
                           scaffold_options={"num_drafts": 3, "debug_prob": 0.0, "crossover_prob": 1.0})
    trajectory = run_episode(task_dir, scaffold="aira", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    tree = trajectory.extra["tree"]
    assert [n["operator"] for n in tree] == ["draft", "draft", "draft", "crossover"]
    assert tree[1]["is_bug"] is True and tree[1]["metric"] is None
    assert tree[1]["summary"].startswith("invalid submission:")
    # Drafts see every earlier draft; the crossover sees only the branches of its two parents (C then A).
    assert "node 0 (draft): 0.6 constant A" in operator_prompt(policy, 2)
    crossover_prompt = operator_prompt(policy, 6)
    assert "Combine the strengths" in crossover_prompt
    assert "draft C" in crossover_prompt and "draft A" in crossover_prompt
    assert "node 2 (draft)" in crossover_prompt and "node 0 (draft)" in crossover_prompt
    assert "node 1" not in crossover_prompt
    assert tree[3]["parent"] == 2
    # With validation feedback the format errors reach the node's output, which the policy's next prompt can see.
    draft_b_review = policy.calls[3][0][-1]["content"]
    assert "Submission is invalid" in draft_b_review
    assert "0.9" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.grade["valid_submission"] is True


def test_aira_greedy_debugs_then_improves_within_the_branch(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([
        reply_with_code("Draft A.", constant_submission_code(0.6)),
        review_json(is_bug=False, metric=0.6, summary="constant A"),
        reply_with_code("Draft B.", FAILING_CODE),
        review_json(is_bug=True, metric=None, summary="ValueError"),
        reply_with_code("Fix B.", constant_submission_code(0.7, note="fixed B")),
        review_json(is_bug=False, metric=0.7, summary="fixed B"),
        "```python\nprint('improve without a plan')\n``` and ```python\nprint(2)\n```",
        review_json(is_bug=True, metric=None),
    ])
    config = EpisodeConfig(max_turns=4, scaffold_options={"num_drafts": 2, "debug_prob": 1.0, "crossover_prob": 0.0})
    trajectory = run_episode(task_dir, scaffold="aira", policy=policy, config=config, workdir=tmp_path / "work")

    tree = trajectory.extra["tree"]
    assert [(n["operator"], n["parent"]) for n in tree] == [("draft", None), ("draft", None), ("debug", 1), ("improve", 2)]
    debug_prompt = operator_prompt(policy, 4)
    assert "the column is not there" in debug_prompt and "node 1 (draft): bug" in debug_prompt
    assert "node 0" not in debug_prompt
    improve_prompt = operator_prompt(policy, 6)
    assert "Improve this solution (validation metric 0.7)" in improve_prompt
    assert "node 2 (debug)" in improve_prompt and "node 1 (draft)" in improve_prompt and "node 0" not in improve_prompt
    assert [t["well_formed"] for t in trajectory.turns if t["role"] == "assistant"] == [True] * 6 + [False, True]
    # The last node wrote nothing: the best good node's file is restored.
    assert "0.7" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]


def test_aira_mcts_episode_backpropagates_visits(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")

    def reply(messages, sampling):
        if sampling.reply_format == "review_json":
            return review_json(is_bug=False, metric=0.5 + 0.01 * len(messages[-1]["content"]) % 0.4)
        return reply_with_code("Try a constant.", constant_submission_code(0.55))

    policy = ScriptedPolicy(reply_fn=reply)
    config = EpisodeConfig(max_turns=5, scaffold_options={"search": "mcts", "num_drafts": 2})
    trajectory = run_episode(task_dir, scaffold="aira", policy=policy, config=config)

    assert trajectory.error is None, trajectory.error
    tree = trajectory.extra["tree"]
    assert len(tree) == 5 and [n["operator"] for n in tree[:2]] == ["draft", "draft"]
    assert all(n["parent"] is not None for n in tree[2:])
    assert trajectory.grade["valid_submission"] is True


def test_aira_rejects_an_unknown_search_policy(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    trajectory = run_episode(task_dir, scaffold="aira", policy=ScriptedPolicy([]),
                             config=EpisodeConfig(scaffold_options={"search": "beam"}))
    assert trajectory.termination == "error" and "AIRA search 'beam'" in trajectory.error


def test_uct_selection_and_backpropagation():
    good = Node(node_id=0, operator="draft", parent=None, is_bug=False, metric=0.8)
    buggy = Node(node_id=1, operator="draft", parent=None)
    nodes = [good, buggy]
    backpropagate(nodes, good, lower_is_better=False)
    backpropagate(nodes, buggy, lower_is_better=False)
    assert (good.visits, good.value, buggy.visits, buggy.value) == (1, 1.0, 1, 0.0)
    settings = {"num_drafts": 2, "lower_is_better": False, "max_debug_depth": 3, "crossover_prob": 0.0}
    # Equal visits give equal exploration bonuses, so the better mean value wins.
    assert uct_choice(nodes, random.Random(0), **settings) == ("improve", [good])
    child = Node(node_id=2, operator="improve", parent=0, is_bug=False, metric=0.9)
    good.children.append(2)
    nodes.append(child)
    backpropagate(nodes, child, lower_is_better=False)
    assert (good.visits, child.visits, child.value) == (2, 1, 1.0) and good.value == 2.0
    # An unvisited node is tried first: a fresh buggy draft gets debugged.
    fresh_bug = Node(node_id=3, operator="draft", parent=None)
    assert uct_choice(nodes + [fresh_bug], random.Random(0), **{**settings, "num_drafts": 3}) == ("debug", [fresh_bug])
    # A buggy node at the debug depth limit sends the search back to drafting.
    deep_bug = Node(node_id=3, operator="draft", parent=None, debug_depth=3)
    assert uct_choice(nodes + [deep_bug], random.Random(0), **{**settings, "num_drafts": 3}) == ("draft", [])


@pytest.mark.parametrize("debug_prob, expected", [(1.0, "debug"), (0.0, "improve")])
def test_greedy_choice_debug_probability(debug_prob, expected):
    good = Node(node_id=0, operator="draft", parent=None, is_bug=False, metric=0.8)
    buggy = Node(node_id=1, operator="draft", parent=None)
    operator, parents = greedy_choice([good, buggy], random.Random(0), num_drafts=2, lower_is_better=False,
                                      max_debug_depth=3, debug_prob=debug_prob, crossover_prob=0.0)
    assert operator == expected and parents == ([buggy] if expected == "debug" else [good])
