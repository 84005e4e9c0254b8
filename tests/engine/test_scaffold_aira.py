"""AIRA's control flow under a scripted policy: operators, scoped memory, greedy and UCT search, the format check."""

from __future__ import annotations

import random

import pytest

from sandmle.agents.scaffolds.aira import backpropagate, greedy_choice, uct_choice
from sandmle.agents.scaffolds.tree import Node
from sandmle.episodes.runner import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import (
    FAILING_CODE, HEADER_ONLY_SUBMISSION, ScriptedPolicy, constant_submission_code, make_bundle, reply_with_code,
    review_json,
)


def operator_prompt(policy, call_index):
    return policy.calls[call_index][0][-1]["content"]


THINKING = "<think>Maybe {\"metric\": 1.0}? A sketch:\n```python\nprint('thinking only')\n```\n}</think>"


def test_aira_format_check_and_crossover_with_branch_memory_variant(tmp_path):
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
                           scaffold_options={"preset": "studio", "num_drafts": 3, "debug_prob": 0.0,
                                             "crossover_prob": 1.0})
    trajectory = run_episode(task_dir, scaffold="aira", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    assert trajectory.extra["scaffold_options"]["memory"] == "branch"
    tree = trajectory.extra["tree"]
    assert [n["operator"] for n in tree] == ["draft", "draft", "draft", "crossover"]
    assert tree[1]["is_bug"] is True and tree[1]["metric"] is None
    assert tree[1]["summary"].startswith("invalid submission:")
    # Branch memory: drafts see every earlier draft; the crossover only its two parents' branches (C then A).
    assert "node 0 (draft): Design: Draft A." in operator_prompt(policy, 2)
    crossover_prompt = operator_prompt(policy, 6)
    assert "# Solutions to combine" in crossover_prompt
    assert "draft C" in crossover_prompt and "draft A" in crossover_prompt
    assert "node 2 (draft)" in crossover_prompt and "node 0 (draft)" in crossover_prompt
    assert "node 1" not in crossover_prompt
    assert tree[3]["parent"] == 2
    # With validation feedback the format errors reach the node's output, which the review sees.
    draft_b_review = policy.calls[3][0][-1]["content"]
    assert "Submission is invalid" in draft_b_review
    assert "0.9" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.grade.valid_submission is True


def test_aira_upstream_greedy_debug_memory_and_memory_of_every_good_node(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([
        THINKING + reply_with_code("Draft A.", constant_submission_code(0.6)),
        THINKING + review_json(is_bug=False, metric=0.6, summary="constant A"),
        reply_with_code("Draft B.", FAILING_CODE),
        review_json(is_bug=True, metric=None, summary="ValueError"),
        reply_with_code("Fix B.", constant_submission_code(0.7, note="fixed B")),
        THINKING + "```json\n" + review_json(is_bug=False, metric=0.7, summary="fixed B") + "\n```",
        "```python\nprint('improve without a plan')\n```",  # no plan: asked again (not a step)
        reply_with_code("Improve by printing.", "print(2)\n"),
        review_json(is_bug=True, metric=None),
    ])
    # No options: the upstream greedy defaults (5 drafts would be too many here, so 2).
    config = EpisodeConfig(max_turns=4, scaffold_options={"num_drafts": 2})
    trajectory = run_episode(task_dir, scaffold="aira", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    options = trajectory.extra["scaffold_options"]
    assert (options["debug_prob"], options["max_debug_depth"], options["crossover_prob"], options["memory"]) == (
        1.0, 20, 0.0, "all")
    tree = trajectory.extra["tree"]
    assert [(n["operator"], n["parent"]) for n in tree] == [("draft", None), ("draft", None), ("debug", 1), ("improve", 2)]
    assert tree[0]["metric"] == 0.6  # the review's JSON after thinking with braces
    debug_prompt = operator_prompt(policy, 4)
    # Debug memory: the buggy branch up to its last good node, so Draft B but not the good Draft A.
    assert "the column is not there" in debug_prompt and "Design: Draft B." in debug_prompt
    assert "Draft A." not in debug_prompt
    improve_prompt = operator_prompt(policy, 6)
    assert "# Previous solution" in improve_prompt and "fixed B" in improve_prompt
    # Memory of every good node (aira-dojo's simple memory), the data preview and the steps left.
    assert "Validation Metric: 0.6" in improve_prompt and "Validation Metric: 0.7" in improve_prompt
    assert "# Data overview" in improve_prompt and "<TOTAL_STEPS_REMAINING: 1>" in improve_prompt
    assert "thinking only" not in "".join(t["code"] for t in trajectory.turns)
    assert [t["well_formed"] for t in trajectory.turns if t["role"] == "assistant"] == [True] * 6 + [False, True, True]
    # The last node is a bug: the best good node's file (0.7) is graded.
    assert "0.7" in (tmp_path / "work" / "submission.csv").read_text().splitlines()[1]
    assert trajectory.extra["submission_choice"]["node"] == 2
    assert trajectory.grade.valid_submission is True and trajectory.grade.score == 0.5  # a constant's AUC


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
    assert trajectory.grade.valid_submission is True


def test_aira_rejects_an_unknown_search_policy(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    trajectory = run_episode(task_dir, scaffold="aira", policy=ScriptedPolicy([]),
                             config=EpisodeConfig(scaffold_options={"search": "beam"}))
    assert trajectory.termination == "error" and "scaffold option 'search' of aira: 'beam'" in trajectory.error


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
