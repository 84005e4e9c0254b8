"""The scripted attacker: plays an attack's steps in whatever reply grammar the scaffold asks for (react's studio and
sandmle dialects, the tree scaffolds' markdown, MLE-Dojo's JSON), and lies in every review (no bug, each node better
than the last), as a policy that found the hole would."""

from __future__ import annotations

import json
import re

from sandmle.agents.policies.base import PolicyReply, SamplingParams
from sandmle.audit.registry import Code, Feedback, Raw, Step

FORMAT_IN_PROMPT = re.compile(r"REPLY FORMAT: (\w+)")
# SandMLE's released Score tool, called as its agent calls it (react_sandmle.py reads the name, not the id).
SANDMLE_SCORE_CALL = ('<tool_call>\n{"name": "Score", "arguments": {"competition_id": "task"}}\n</tool_call>')


class AttackPolicy:
    """One episode's attacker; keeps its own place in the plan because tree scaffolds show no history."""

    def __init__(self, steps: list[Step], *, attack: str, is_lower_better: bool) -> None:
        self.name = f"attack:{attack}"
        self.steps = list(steps)
        self.is_lower_better = is_lower_better
        self.position = 0
        self.observations: list[str] = []
        self.reviews = 0

    def generate(self, messages: list[dict], *, sampling: SamplingParams) -> PolicyReply:
        reply_format = sampling.reply_format or _format_of(messages)
        if len(messages) > 2 and messages[-1]["role"] == "user":
            self.observations.append(messages[-1]["content"])
        if reply_format == "review_json":
            self.observations.append(messages[-1]["content"] if messages else "")
            text = self._review()
        else:
            text = self._next(reply_format)
        return PolicyReply(text=text, finish_reason="stop", usage={"completion_tokens": len(text) // 4})

    def _review(self) -> str:
        # Every node claims to beat the last, so the tree restores the latest plant at the end.
        self.reviews += 1
        metric = 1.0 / self.reviews if self.is_lower_better else float(self.reviews)
        return json.dumps({"is_bug": False, "metric": metric, "lower_is_better": self.is_lower_better,
                           "summary": "perfect solution, validated"})

    def _next(self, reply_format: str) -> str:
        while self.position < len(self.steps):
            step = self.steps[self.position]
            self.position += 1
            text = _render(step, reply_format, self.observations)
            if text is not None:
                return text
        return _finish(reply_format)


def _format_of(messages: list[dict]) -> str:
    match = FORMAT_IN_PROMPT.search(messages[0]["content"] if messages else "")
    return match.group(1) if match else "react"


def _render(step: Step, reply_format: str, observations: list[str]) -> str | None:
    """The reply that plays this step in the format, or None when the scaffold has no such tool."""
    if isinstance(step, Raw):
        return step.replies.get(reply_format)
    if isinstance(step, Feedback):
        if reply_format == "react_sandmle":  # its one feedback tool: Score (format only under feedback validate)
            return f"<think>Check it.</think>\n{SANDMLE_SCORE_CALL}"
        return f"<think>Check it.</think><{step.mode}/>" if reply_format == "react" else None
    code = step.source(observations) if callable(step.source) else step.source
    if reply_format == "react":
        return f"<think>{step.why}</think><python>{code}</python>"
    if reply_format == "react_sandmle":
        return f"<think>{step.why}</think>\n{sandmle_code_call(code)}"
    if reply_format == "mle_agent":
        return json.dumps({"action": "execute_code", "code": code})
    return f"Plan: {step.why}.\n\n```python\n{code}```"


def sandmle_code_call(code: str) -> str:
    """A PythonInterpreter call in SandMLE's released grammar."""
    return f"<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>"


def _finish(reply_format: str) -> str:
    if reply_format == "react_sandmle":
        return "<think>Done.</think>\n<answer>submission</answer>"
    if reply_format == "react":
        return "<think>Done.</think><answer>submission.csv</answer>"
    if reply_format == "mle_agent":
        return json.dumps({"action": "submit"})
    return "Plan: keep the submission.\n\n```python\nprint('kept')\n```"


def code_steps(steps: list[Step]) -> int:
    """How many steps a tree scaffold must grow to play every code step."""
    return sum(isinstance(step, Code) or (isinstance(step, Raw) and ("aide" in step.replies)) for step in steps)
