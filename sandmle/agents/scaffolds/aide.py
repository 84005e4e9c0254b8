"""AIDE: a solution tree grown by draft, improve and debug operators with greedy improvement of the best good node."""

from __future__ import annotations

import random

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.tree import Node, execute_node, node_quality, review, task_lower_is_better

SYSTEM = (
    "You are a Kaggle grandmaster. REPLY FORMAT: aide\n"
    "Reply with a short plan in prose followed by exactly one ```python``` code block that trains a model and "
    "writes /workdir/submission.csv. Data is read-only under /public."
)


def operator_prompt(context: EpisodeContext, operator: str, parent: Node | None) -> list[dict]:
    task = f"{context.description}\n\nFiles:\n{context.file_listing}"
    if operator == "draft":
        instruction = "Draft a first solution."
    elif operator == "improve":
        instruction = f"Improve this solution (validation metric {parent.metric}).\n```python\n{parent.code}\n```"
    else:
        instruction = f"Debug this solution; it failed.\n```python\n{parent.code}\n```\nOutput:\n{parent.output[-3000:]}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{task}\n\n{instruction}"}]


def choose(nodes: list[Node], rng: random.Random, *, num_drafts: int, debug_prob: float, max_debug_depth: int,
           lower_is_better: bool) -> tuple[str, Node | None]:
    drafts = [n for n in nodes if n.operator == "draft"]
    if len(drafts) < num_drafts:
        return "draft", None
    buggy_leaves = [n for n in nodes if n.is_bug and not n.children and n.debug_depth < max_debug_depth]
    if buggy_leaves and rng.random() < debug_prob:
        return "debug", rng.choice(buggy_leaves)
    good = [n for n in nodes if not n.is_bug and n.metric is not None]
    if not good:
        return "draft", None
    return "improve", max(good, key=lambda n: node_quality(n, lower_is_better))


def run(context: EpisodeContext) -> str:
    options = context.options
    num_drafts = int(options.get("num_drafts", 5))
    debug_prob = float(options.get("debug_prob", 0.5))
    max_debug_depth = int(options.get("max_debug_depth", 3))
    steps = int(options.get("steps", context.max_turns))
    rng = random.Random(context.sampling.seed or 0)
    lower_is_better = task_lower_is_better(context)
    nodes: list[Node] = []
    termination = "max_turns"
    for _ in range(steps):
        operator, parent = choose(nodes, rng, num_drafts=num_drafts, debug_prob=debug_prob,
                                  max_debug_depth=max_debug_depth, lower_is_better=lower_is_better)
        node = Node(node_id=len(nodes), operator=operator, parent=parent.node_id if parent else None,
                    debug_depth=(parent.debug_depth + 1) if operator == "debug" and parent else 0)
        try:
            reply, turn = context.ask(operator_prompt(context, operator, parent), reply_format="aide", kind=operator)
            execute_node(context, node, reply.text, turn)
            review(context, node, lower_is_better=lower_is_better)
        except EpisodeBudgetExceeded:
            termination = "time_budget"
            break
        nodes.append(node)
        if parent:
            parent.children.append(node.node_id)
        if context.time_left() <= 0:
            termination = "time_budget"
            break
    finish_with_best(context, nodes, lower_is_better)
    context.options["tree"] = [tree_row(n) for n in nodes]
    return termination


def finish_with_best(context: EpisodeContext, nodes: list[Node], lower_is_better: bool) -> None:
    good = [n for n in nodes if not n.is_bug and n.metric is not None]
    if good:
        best = max(good, key=lambda n: node_quality(n, lower_is_better))
        context.restore_submission(best.submission)
        context.tool_note("select", f"selected node {best.node_id} (metric {best.metric})")
    else:
        # A node may have written a file the reviewer doubted; the latest one is still better than none.
        written = [n for n in nodes if n.submission]
        if written:
            context.restore_submission(written[-1].submission)


def tree_row(node: Node) -> dict:
    return {"id": node.node_id, "operator": node.operator, "parent": node.parent, "is_bug": node.is_bug,
            "metric": node.metric, "summary": node.summary, "debug_depth": node.debug_depth,
            "review_flipped": node.review_flipped}
