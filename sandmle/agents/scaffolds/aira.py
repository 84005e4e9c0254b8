"""AIRA-dojo: draft, improve, debug and crossover operators with scoped memory, a greedy or an MCTS (UCT) search policy."""

from __future__ import annotations

import math
import random

from sandmle.agents.scaffolds.aide import finish_with_best, tree_row
from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.tree import Node, execute_node, node_quality, review, task_lower_is_better
from sandmle.errors import UsageError

SEARCH_POLICIES = ("greedy", "mcts")

SYSTEM = (
    "You are an AI research agent. REPLY FORMAT: aira\n"
    "Reply with a plan followed by exactly one ```python``` code block that writes /workdir/submission.csv. "
    "Data is read-only under /public."
)


def scoped_memory(nodes: list[Node], operator: str, parents: list[Node]) -> str:
    """Drafts see every earlier draft's summary; other operators see only their own branch's history."""
    if operator == "draft":
        scope = [n for n in nodes if n.operator == "draft"]
    else:
        by_id = {n.node_id: n for n in nodes}
        scope = []
        for parent in parents:
            cursor = parent
            while cursor is not None:
                scope.append(cursor)
                cursor = by_id.get(cursor.parent) if cursor.parent is not None else None
    lines = [f"- node {n.node_id} ({n.operator}): {'bug' if n.is_bug else n.metric} {n.summary}" for n in scope]
    return "Memory:\n" + "\n".join(lines) if lines else ""


def operator_prompt(context: EpisodeContext, operator: str, parents: list[Node], memory: str) -> list[dict]:
    task = f"{context.description}\n\nFiles:\n{context.file_listing}"
    if operator == "draft":
        instruction = "Draft a new solution different from those in memory."
    elif operator == "improve":
        instruction = f"Improve this solution (validation metric {parents[0].metric}).\n```python\n{parents[0].code}\n```"
    elif operator == "debug":
        instruction = f"Debug this solution; it failed.\n```python\n{parents[0].code}\n```\nOutput:\n{parents[0].output[-3000:]}"
    else:
        instruction = "Combine the strengths of these two solutions into one.\n" + "\n".join(
            f"```python\n{p.code}\n```" for p in parents)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{task}\n\n{memory}\n\n{instruction}"}]


def greedy_choice(nodes, rng, *, num_drafts, lower_is_better, max_debug_depth, debug_prob=0.5, crossover_prob=0.2):
    """AIDE's greedy policy plus crossover: draft up to num_drafts, debug a buggy leaf with debug_prob, else
    cross the two best good nodes with crossover_prob, else improve the best."""
    if sum(n.operator == "draft" for n in nodes) < num_drafts:
        return "draft", []
    good = sorted((n for n in nodes if not n.is_bug), key=lambda n: node_quality(n, lower_is_better), reverse=True)
    buggy = [n for n in nodes if n.is_bug and not n.children and n.debug_depth < max_debug_depth]
    if buggy and (not good or rng.random() < debug_prob):
        return "debug", [rng.choice(buggy)]
    if len(good) >= 2 and rng.random() < crossover_prob:
        return "crossover", good[:2]
    if good:
        return "improve", good[:1]
    return "draft", []


def uct_score(node: Node, parent_visits: int, exploration: float) -> float:
    """UCT: mean value plus an exploration bonus that shrinks as the node is visited; unvisited nodes first."""
    if node.visits == 0:
        return float("inf")
    return node.value / node.visits + exploration * math.sqrt(math.log(max(parent_visits, 1)) / node.visits)


def uct_choice(nodes, rng, *, num_drafts, lower_is_better, max_debug_depth, debug_prob=0.5, crossover_prob=0.2,
               exploration=1.414, expand_prob=0.5):
    """Selects a node by UCT from the drafts down; buggy nodes are debugged, good ones improved or crossed.

    Every node can be expanded (improved or debugged), so the descent stops at a node with `expand_prob`
    or at a leaf, instead of only at leaves as in game-tree MCTS.
    """
    if sum(n.operator == "draft" for n in nodes) < num_drafts or not nodes:
        return "draft", []
    by_id = {n.node_id: n for n in nodes}
    frontier = [n for n in nodes if n.parent is None]
    parent_visits = sum(n.visits for n in frontier)
    while True:
        chosen = max(frontier, key=lambda n: (uct_score(n, parent_visits, exploration), -n.node_id))
        children = [by_id[c] for c in chosen.children]
        if not children or rng.random() < expand_prob:
            break
        frontier, parent_visits = children, chosen.visits
    if chosen.is_bug:
        return ("debug", [chosen]) if chosen.debug_depth < max_debug_depth else ("draft", [])
    good = sorted((n for n in nodes if not n.is_bug and n.node_id != chosen.node_id),
                  key=lambda n: node_quality(n, lower_is_better), reverse=True)
    if good and rng.random() < crossover_prob:
        return "crossover", [chosen, good[0]]
    return "improve", [chosen]


def backpropagate(nodes: list[Node], node: Node, lower_is_better: bool) -> None:
    good = [n for n in nodes if not n.is_bug]
    reward = 0.0
    if not node.is_bug:
        quality = node_quality(node, lower_is_better)
        reward = sum(node_quality(n, lower_is_better) <= quality for n in good) / max(len(good), 1)
    by_id = {n.node_id: n for n in nodes}
    cursor = node
    while cursor is not None:
        cursor.visits += 1
        cursor.value += reward
        cursor = by_id.get(cursor.parent) if cursor.parent is not None else None


def format_check(context: EpisodeContext, node: Node) -> None:
    """Every step's submission is checked against the task's format; an invalid file makes the node a bug."""
    from sandmle.grading import validate_submission

    if node.submission is None:
        return
    errors = validate_submission(context.task_dir, node.submission, split="public", episode_dir=context.workdir)
    if errors:
        node.is_bug, node.metric = True, None
        node.summary = "invalid submission: " + "; ".join(errors[:3])
        if context.feedback != "none":
            node.output += "\nSubmission format errors:\n" + "\n".join(errors)


def run(context: EpisodeContext) -> str:
    options = context.options
    search = options.get("search", "greedy")
    if search not in SEARCH_POLICIES:
        raise UsageError(f"AIRA search {search!r}: expected one of {', '.join(SEARCH_POLICIES)}")
    num_drafts = int(options.get("num_drafts", 3))
    max_debug_depth = int(options.get("max_debug_depth", 3))
    debug_prob = float(options.get("debug_prob", 0.5))
    crossover_prob = float(options.get("crossover_prob", 0.2))
    steps = int(options.get("steps", context.max_turns))
    rng = random.Random(context.sampling.seed or 0)
    lower_is_better = task_lower_is_better(context)
    choose = uct_choice if search == "mcts" else greedy_choice
    nodes: list[Node] = []
    termination = "max_turns"
    for _ in range(steps):
        operator, parents = choose(nodes, rng, num_drafts=num_drafts, lower_is_better=lower_is_better,
                                   max_debug_depth=max_debug_depth, debug_prob=debug_prob, crossover_prob=crossover_prob)
        node = Node(node_id=len(nodes), operator=operator, parent=parents[0].node_id if parents else None,
                    debug_depth=parents[0].debug_depth + 1 if operator == "debug" else 0)
        memory = scoped_memory(nodes, operator, parents)
        try:
            reply, turn = context.ask(operator_prompt(context, operator, parents, memory), reply_format="aira", kind=operator)
            execute_node(context, node, reply.text, turn)
            review(context, node, lower_is_better=lower_is_better)
            format_check(context, node)
        except EpisodeBudgetExceeded:
            termination = "time_budget"
            break
        nodes.append(node)
        if parents:
            parents[0].children.append(node.node_id)
        backpropagate(nodes, node, lower_is_better)
        if context.time_left() <= 0:
            termination = "time_budget"
            break
    finish_with_best(context, nodes, lower_is_better)
    context.options["tree"] = [tree_row(n) for n in nodes]
    return termination
