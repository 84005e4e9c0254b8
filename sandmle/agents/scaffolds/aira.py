"""AIRA-dojo (facebookresearch/aira-dojo): the AIRA draft, improve and debug operators under the greedy policy of
configs/solver/mlebench/greedy.yaml (memory of every good node, debug memory of the buggy branch), or MCTS (UCT);
crossover and branch memory are named variants."""

from __future__ import annotations

import math
import random

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.preview import data_preview
from sandmle.agents.scaffolds.tree import (
    MEMORY_SEPARATOR, Node, ask_plan_and_code, debug_memory, execute_node, finish_with_best, greedy_choice,
    journal_memory, node_quality, node_summary, remaining, review, task_lower_is_better, tree_row,
)
from sandmle.errors import UsageError

SEARCH_POLICIES = ("greedy", "mcts")

SYSTEM = ("You are a Kaggle Grandmaster attending a high-stakes competition. REPLY FORMAT: aira\n"
          "Reply with one idea or plan in natural language, then a SINGLE markdown code block (```python) holding a "
          "self-contained script.")

GOAL = {
    "draft": "Provide EXACTLY ONE IDEA and ONE CODE IMPLEMENTATION of it, different from the ideas explored before, "
             "that uses the available resources well and is likely to perform strongly. Be specific about data "
             "processing, feature engineering, the model and its optimisation, and the evaluation. No exploratory "
             "data analysis.",
    "improve": "Provide EXACTLY ONE IDEA that improves the existing solution below, different from the improvements "
               "explored before, and ONE CODE IMPLEMENTATION of it. Keep the evaluation consistent. No exploratory "
               "data analysis.",
    "debug": "Fix the bugs of the solution below without changing its core idea or method. Review the earlier "
             "debugging attempts, the buggy code and its output.",
    "crossover": "Combine the strengths of the solutions below into ONE new solution and implement it.",
}
HEADING = {"draft": "# Idea to implement", "improve": "# Improvement idea to implement", "debug": "# Bug fix plan",
           "crossover": "# Combined idea to implement"}


def branch_memory(nodes: list[Node], operator: str, parents: list[Node]) -> str:
    """The studio's variant: drafts see every earlier draft; other operators only their parents' branches."""
    if operator == "draft":
        scope = [n for n in nodes if n.operator == "draft"]
    else:
        by_id, scope = {n.node_id: n for n in nodes}, []
        for parent in parents:
            cursor = parent
            while cursor is not None:
                scope.append(cursor)
                cursor = by_id.get(cursor.parent) if cursor.parent is not None else None
    return MEMORY_SEPARATOR.join(f"node {n.node_id} ({n.operator}): {node_summary(n) or 'no plan or code'}"
                                 for n in scope)


def operator_memory(nodes: list[Node], operator: str, parents: list[Node], variant: str) -> str:
    if variant == "branch":
        return branch_memory(nodes, operator, parents)
    if operator == "debug":
        return debug_memory(nodes, parents[0])
    return journal_memory(nodes)


def operator_prompt(context: EpisodeContext, operator: str, parents: list[Node], *, memory: str, preview: str,
                    status: str, k_fold: int) -> list[dict]:
    sections = [f"# Goal\n{GOAL[operator]}", f"# Task description\n````\n{context.description}\n````"]
    if operator == "improve":
        sections.append(f"# Previous solution\n## Code\n```python\n{parents[0].code}\n```\n## Terminal output\n"
                        f"```\n{parents[0].output[-3000:]}\n```")
    if operator == "debug":
        sections.append(f"# Buggy implementation\n```python\n{parents[0].code}\n```\n\n# Execution output (error)\n"
                        f"```\n{parents[0].output[-3000:]}\n```")
    if operator == "crossover":
        sections.append("# Solutions to combine\n" + "\n".join(f"```python\n{p.code}\n```" for p in parents))
    title = {"debug": "# Previous debugging attempts", "improve": "# Previously explored improvement ideas"}.get(
        operator, "# Previously explored ideas")
    sections.append(f"{title}\n````markdown\n{memory or '(No memory available.)'}\n````")
    if preview:
        sections.append(f"# Data overview\n````\n{preview}\n````")
    evaluation = f"{k_fold}-fold cross-validation" if k_fold > 1 else "a hold-out validation set"
    sections.append(
        "**CONSTRAINTS**:\n"
        f"- The solution must finish within {context.step_timeout_s:g} seconds; prefer vectorised operations.\n"
        "- Keep stdout clean.\n"
        "**DATA**: prepared and read-only in /public; nothing needs unzipping.\n"
        "**COMPUTE**: CPU only; numpy, pandas, scikit-learn and scipy are installed, nothing can be installed.\n"
        f"{status}\n\n"
        "**RESPONSE FORMAT**: a SINGLE markdown code block with a SELF-CONTAINED Python script that:\n"
        "1. implements the idea END-TO-END;\n"
        f"2. PRINTS the evaluation metric measured by {evaluation};\n"
        "3. SAVES the test predictions to /workdir/submission.csv.\n"
        f"Format:\n{HEADING[operator]}\n<the idea or plan>\n\n```python\n<the implementation>\n```")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(sections)}]


def uct_score(node: Node, parent_visits: int, exploration: float) -> float:
    """UCT: mean value plus an exploration bonus that shrinks as the node is visited; unvisited nodes first."""
    if node.visits == 0:
        return float("inf")
    return node.value / node.visits + exploration * math.sqrt(math.log(max(parent_visits, 1)) / node.visits)


def uct_choice(nodes, rng, *, num_drafts, lower_is_better, max_debug_depth, debug_prob=1.0, crossover_prob=0.0,
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
    """Every step's submission is checked against the task's format (aira-dojo's VALID_SOLUTION from the grader's
    validation): an invalid file makes the node a bug."""
    from sandmle.tasks.grading import validate_submission

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
    settings = {"num_drafts": int(options.get("num_drafts", 5)), "max_debug_depth": int(options.get("max_debug_depth", 20)),
                "debug_prob": float(options.get("debug_prob", 1.0)),
                "crossover_prob": float(options.get("crossover_prob", 0.0))}
    if search == "mcts":
        settings["exploration"] = float(options.get("exploration", 1.414))
    memory_variant, k_fold = options.get("memory", "all"), int(options.get("k_fold", 5))
    steps = int(options.get("steps", context.max_turns))
    preview = data_preview(context.task_dir / "public") if options.get("data_preview", True) else ""
    rng = random.Random(context.sampling.seed or 0)
    lower_is_better = task_lower_is_better(context)
    choose = uct_choice if search == "mcts" else greedy_choice
    nodes: list[Node] = []
    termination = "max_turns"
    try:
        for step in range(steps):
            operator, parents = choose(nodes, rng, lower_is_better=lower_is_better, **settings)
            node = Node(node_id=len(nodes), operator=operator, parent=parents[0].node_id if parents else None,
                        debug_depth=parents[0].debug_depth + 1 if operator == "debug" else 0)
            messages = operator_prompt(context, operator, parents,
                                       memory=operator_memory(nodes, operator, parents, memory_variant),
                                       preview=preview, status=remaining(context, step, steps), k_fold=k_fold)
            try:
                reply, turn = ask_plan_and_code(context, messages, reply_format="aira", kind=operator)
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
    finally:
        finish_with_best(context, nodes, lower_is_better, original="aira-dojo")
        context.options["tree"] = [tree_row(n) for n in nodes]
    return termination
