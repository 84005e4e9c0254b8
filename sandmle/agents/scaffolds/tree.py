"""The solution tree shared by AIDE and AIRA: nodes, code extraction, the review, the greedy policy, memory and the
final choice (the best node by validation metric, as aideml and aira-dojo return it)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from sandmle.agents.scaffolds.base import EpisodeContext
from sandmle.agents.scaffolds.replies import json_object, split_thinking

CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
MEMORY_SEPARATOR = "\n-------------------------------\n"
# aideml retries a reply without plan or code this many times (extra calls, not steps).
PLAN_AND_CODE_TRIES = 3


@dataclass
class Node:
    """One solution: its plan, code, output, review and the submission it wrote."""

    node_id: int
    operator: str
    parent: int | None
    plan: str = ""
    code: str = ""
    output: str = ""
    is_bug: bool = True
    metric: float | None = None
    summary: str = ""
    review_flipped: bool = False  # the review claimed the other metric direction (ignored: the task fixes it)
    debug_depth: int = 0
    submission: Path | None = None
    children: list[int] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0


def extract_plan_and_code(text: str) -> tuple[str, str | None, bool]:
    """The plan, the code and whether the reply held exactly one code block; thinking is never read.

    Several blocks are joined in order, as aideml's extract_code does; a reply of bare code without fences has none.
    """
    _, answer = split_thinking(text)
    blocks = CODE_BLOCK.findall(answer)
    plan = CODE_BLOCK.sub("", answer).strip()
    if not blocks:
        return plan, None, False
    return plan, "\n\n".join(blocks), len(blocks) == 1


def review(context: EpisodeContext, node: Node, *, lower_is_better: bool) -> None:
    """A second policy call returns JSON {is_bug, metric, lower_is_better, summary} after its thinking.

    The metric's direction comes from the task, never from the review: AIDE trusts the model's
    `lower_is_better`, and one flipped answer then makes it keep the worst node.
    """
    if node.code == "":
        return  # no program ran: the node stays a bug and there is nothing to review
    messages = [
        {"role": "system", "content": "You are a Kaggle grandmaster attending a competition. You wrote code for this "
         "task and now judge the output of its run: say whether it failed or has a bug, and report what it found.\n"
         "REPLY FORMAT: review_json\n"
         'Reply with JSON only: {"is_bug": bool, "summary": str (if a bug, the fix; else 2-3 sentences of findings), '
         '"metric": the validation metric the program printed or null, "lower_is_better": bool}.'},
        {"role": "user", "content": f"# Task description\n{context.description}\n\n# Implementation\n```python\n"
         f"{node.code}\n```\n\n# Execution output\n```\n{node.output}\n```"},
    ]
    reply, turn = context.ask(messages, reply_format="review_json", kind="review")
    try:
        verdict = json_object(split_thinking(reply.text)[1])
        metric = verdict.get("metric")
        node.metric = float(metric) if isinstance(metric, (int, float)) and not isinstance(metric, bool) else None
        # As aira-dojo fills a missing is_bug: a bug exactly when no metric was reported.
        node.is_bug = bool(verdict.get("is_bug", node.metric is None))
        node.summary = str(verdict.get("summary", ""))
        claimed = verdict.get("lower_is_better")
        node.review_flipped = isinstance(claimed, bool) and claimed != lower_is_better
    except (ValueError, TypeError, AttributeError):
        turn.well_formed = False
        node.is_bug, node.metric, node.summary = True, None, "review was not valid JSON"
    if node.metric is not None and node.metric != node.metric:
        node.metric = None  # NaN compares false with everything and would break the ranking
    if node.metric is None:
        node.is_bug = True  # both originals: no metric, no good node
    if not (node.submission and context.files.exists(node.submission.relative_to(context.workdir))):
        # Without a submission file a node is a bug whatever the review says.
        node.is_bug = True
    if node.is_bug:
        node.metric = None


def task_lower_is_better(context: EpisodeContext) -> bool:
    grading_file = context.task_dir / "private" / "grading.json"
    return bool(json.loads(grading_file.read_text()).get("is_lower_better", False))


def node_quality(node: Node, lower_is_better: bool) -> float:
    if node.is_bug or node.metric is None:
        return float("-inf")
    return -node.metric if lower_is_better else node.metric


def good_nodes(nodes: list[Node]) -> list[Node]:
    return [n for n in nodes if not n.is_bug and n.metric is not None]


def greedy_choice(nodes: list[Node], rng: random.Random, *, num_drafts: int, debug_prob: float, max_debug_depth: int,
                  lower_is_better: bool, crossover_prob: float = 0.0) -> tuple[str, list[Node]]:
    """aideml's and aira-dojo's greedy search policy: draft until num_drafts drafts exist; with debug_prob debug a
    random buggy leaf of debug depth <= max_debug_depth; draft when no node is good; else improve the best node.
    crossover_prob (0 upstream) crosses the two best good nodes instead of improving."""
    if sum(n.operator == "draft" for n in nodes) < num_drafts:
        return "draft", []
    if rng.random() < debug_prob:
        debuggable = [n for n in nodes if n.is_bug and not n.children and n.debug_depth <= max_debug_depth]
        if debuggable:
            return "debug", [rng.choice(debuggable)]
    ranked = sorted(good_nodes(nodes), key=lambda n: node_quality(n, lower_is_better), reverse=True)
    if not ranked:
        return "draft", []
    if crossover_prob and len(ranked) >= 2 and rng.random() < crossover_prob:
        return "crossover", ranked[:2]
    return "improve", ranked[:1]


def node_summary(node: Node) -> str:
    """One node as the originals' memory shows it: its design, and for a good node its results and metric."""
    if not (node.plan and node.code):
        return ""
    text = ("Debug plan: " if node.operator == "debug" else "Design: ") + node.plan + "\n"
    if not node.is_bug:
        text += f"Results: {node.summary}\nValidation Metric: {node.metric}\n"
    return text


def journal_memory(nodes: list[Node]) -> str:
    """Every good node (aideml's journal summary, aira-dojo's simple memory)."""
    return MEMORY_SEPARATOR.join(s for s in (node_summary(n) for n in good_nodes(nodes)) if s)


def debug_memory(nodes: list[Node], parent: Node) -> str:
    """aira-dojo's debug memory: the buggy ancestors of the node being debugged, up to the last good one."""
    by_id = {n.node_id: n for n in nodes}
    chain, cursor = [], parent
    while cursor is not None and cursor.is_bug:
        chain.append(node_summary(cursor))
        cursor = by_id.get(cursor.parent) if cursor.parent is not None else None
    return MEMORY_SEPARATOR.join(s for s in reversed(chain) if s)


def ask_plan_and_code(context: EpisodeContext, messages: list[dict], *, reply_format: str, kind: str):
    """aideml's plan_and_code_query: a reply without a plan or code is asked again, up to 3 calls in all."""
    for attempt in range(PLAN_AND_CODE_TRIES):
        reply, turn = context.ask(messages, reply_format=reply_format, kind=kind if not attempt else f"{kind}_retry")
        plan, code, _ = extract_plan_and_code(reply.text)
        if code is not None and plan:
            break
        turn.well_formed = False
    return reply, turn


def execute_node(context: EpisodeContext, node: Node, text: str, turn) -> None:
    plan, code, well_formed = extract_plan_and_code(text)
    turn.well_formed = well_formed
    node.plan = plan
    if code is None:
        node.output, node.is_bug = "No code block found in the reply.", True
        context.tool_note("format_error", node.output, well_formed=False)
        return
    node.code = code
    turn.code = code
    context.files.remove("submission.csv")  # a link or a directory here is removed itself, never followed
    step_turn = context.run_code(code)
    node.output = step_turn.observation
    node.submission = context.keep_submission(f"node{node.node_id}")
    if context.last_refusal:
        node.output += "\n" + context.last_refusal
    if context.feedback != "none" and node.submission:
        node.output += "\n" + context.check_submission("validate")


def finish_with_best(context: EpisodeContext, nodes: list[Node], lower_is_better: bool, *, original: str) -> None:
    """The best good node by validation metric is the submission (its test score is the grade); with no good node
    there is no submission, as aideml's and aira-dojo's get_best_node() returns None."""
    good = good_nodes(nodes)
    if good:
        best = max(good, key=lambda n: node_quality(n, lower_is_better))
        context.choose_submission("best_validation_node", f"{original}: the good node with the best validation "
                                  "metric", best.submission, node=best.node_id, metric=best.metric)
        context.tool_note("select", f"selected node {best.node_id} (metric {best.metric})")
    else:
        context.choose_submission("best_validation_node", f"{original}: no good node, so no submission", None,
                                  node=None, metric=None)


def tree_row(node: Node) -> dict:
    return {"id": node.node_id, "operator": node.operator, "parent": node.parent, "is_bug": node.is_bug,
            "metric": node.metric, "summary": node.summary, "debug_depth": node.debug_depth,
            "review_flipped": node.review_flipped}


def remaining(context: EpisodeContext, steps_done: int, steps: int) -> str:
    return (f"<TOTAL_TIME_REMAINING: {max(context.time_left(), 0):.0f} seconds>\n"
            f"<TOTAL_STEPS_REMAINING: {max(steps - steps_done, 0)}>")
