"""The solution tree shared by AIDE and AIRA: nodes, code-block extraction and the structured review."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from sandmle.agents.scaffolds.base import EpisodeContext

CODE_BLOCK = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


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
    """The plan, the code and whether the reply held exactly one code block."""
    blocks = CODE_BLOCK.findall(text)
    plan = CODE_BLOCK.sub("", text).strip()
    if len(blocks) != 1:
        return plan, (blocks[0] if blocks else None), False
    return plan, blocks[0], True


def review(context: EpisodeContext, node: Node, *, lower_is_better: bool) -> None:
    """A second policy call returns JSON {is_bug, metric, lower_is_better, summary}.

    The metric's direction comes from the task, never from the review: AIDE trusts the model's
    `lower_is_better`, and one flipped answer then makes it keep the worst node.
    """
    if node.code == "":
        return  # no program ran: the node stays a bug and there is nothing to review
    messages = [
        {"role": "system", "content": "You review the output of a machine learning program.\nREPLY FORMAT: review_json\n"
         'Reply with JSON only: {"is_bug": bool, "metric": number or null, "lower_is_better": bool, "summary": str}.'},
        {"role": "user", "content": f"Program:\n```python\n{node.code}\n```\nOutput:\n{node.output}"},
    ]
    reply, turn = context.ask(messages, reply_format="review_json", kind="review")
    try:
        verdict = json.loads(reply.text[reply.text.find("{"): reply.text.rfind("}") + 1])
        node.is_bug = bool(verdict.get("is_bug", True))
        metric = verdict.get("metric")
        node.metric = float(metric) if metric is not None else None
        node.summary = str(verdict.get("summary", ""))
        claimed = verdict.get("lower_is_better")
        node.review_flipped = isinstance(claimed, bool) and claimed != lower_is_better
    except (ValueError, TypeError, AttributeError):
        turn.well_formed = False
        node.is_bug, node.metric, node.summary = True, None, "review was not valid JSON"
    if node.metric is not None and node.metric != node.metric:
        node.metric = None  # NaN compares false with everything and would break the ranking
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


def execute_node(context: EpisodeContext, node: Node, text: str, turn) -> None:
    plan, code, well_formed = extract_plan_and_code(text)
    turn.well_formed = well_formed
    node.plan = plan
    turn.thinking = plan
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
