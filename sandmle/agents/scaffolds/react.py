"""ReAct: <think>…</think> then exactly one tool call per turn, ending with <answer>…</answer>.

Two dialects: `studio` (<python>, <validate/>, <score/>, <observation>) and `sandmle`, the grammar of SandMLE's
released agent (react_sandmle.py), so a checkpoint trained there is evaluated in its own format.
"""

from __future__ import annotations

import re

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.replies import OPENING_THINK, split_thinking

TOOL_PATTERN = re.compile(r"<python>(.*?)</python>|<(validate|score)\s*/>|<answer>(.*?)</answer>", re.S)
THINK_PATTERN = re.compile(r"<think>(.*?)</think>", re.S)


def system_prompt(feedback: str) -> str:
    tools = ["<python>CODE</python> runs Python in /workdir (data is read-only under /public)"]
    if feedback in ("validate", "score", "score_answers"):
        tools.append("<validate/> checks /workdir/submission.csv's format")
    if feedback == "score":
        tools.append("<score/> scores /workdir/submission.csv on the public part of the test set")
    if feedback == "score_answers":
        tools.append("<score/> scores /workdir/submission.csv on the test set")
    tools.append("<answer>submission.csv</answer> ends the episode with /workdir/submission.csv as your submission")
    return (
        "You are a machine learning engineer solving a competition in a sandbox.\n"
        "REPLY FORMAT: react\n"
        "Each reply: <think>your reasoning</think> followed by exactly one tool call:\n- " + "\n- ".join(tools)
    )


def parse_reply(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The thinking and every tool call found, as (tool, argument) pairs."""
    thinking, answer = split_thinking(text)
    calls = []
    for match in TOOL_PATTERN.finditer(answer):
        if match.group(1) is not None:
            calls.append(("python", match.group(1).strip("\n")))
        elif match.group(2):
            calls.append((match.group(2), ""))
        else:
            calls.append(("answer", match.group(3).strip()))
    return thinking, calls


def fit_context(context: EpisodeContext, messages: list[dict], failed: set[int]) -> tuple[list[dict], bool]:
    """Drops failed tool turns first, then keeps only the system and task messages and the last two turns."""
    def size(history: list[dict]) -> int:
        return sum(context.count_tokens(m["content"]) for m in history)

    limit = context.context_tokens - context.sampling.max_tokens
    if size(messages) <= limit:
        return messages, False
    # messages[2k], messages[2k+1] (k >= 1) are turn k's reply and observation.
    kept = messages[:2] + [m for i, m in enumerate(messages[2:]) if (i // 2) not in failed]
    if size(kept) > limit:
        kept = messages[:2] + messages[-4:]
    return kept, size(kept) > limit


def run(context: EpisodeContext) -> str:
    if context.options.get("dialect", "studio") == "sandmle":
        from sandmle.agents.scaffolds.react_sandmle import run as run_sandmle

        return run_sandmle(context)
    messages = [
        {"role": "system", "content": system_prompt(context.feedback)},
        {"role": "user", "content": f"{context.description}\n\nFiles:\n{context.file_listing}"},
    ]
    failed_turns: set[int] = set()
    for turn_index in range(context.max_turns):
        messages, overflow = fit_context(context, messages, failed_turns)
        if overflow:
            return "context"
        if len(messages) < 2 + 2 * turn_index:
            failed_turns = set()
        try:
            reply, turn = context.ask(messages, reply_format="react")
        except EpisodeBudgetExceeded:
            return "time_budget"
        thinking, calls = parse_reply(reply.text)
        turn.thinking = thinking
        messages.append({"role": "assistant", "content": reply.text})
        if len(calls) != 1:
            turn.well_formed = False
            problem = "no tool call" if not calls else f"{len(calls)} tool calls"
            note = context.tool_note("format_error", f"Format error: {problem}. Reply with <think>…</think> and exactly one tool call.", well_formed=False)
            messages.append({"role": "user", "content": note.observation})
            failed_turns.add((len(messages) - 4) // 2)
            continue
        # SandMLE's format reward counts a turn only if it opens with a non-empty <think>; the call still runs.
        opening = OPENING_THINK.match(reply.text)
        turn.well_formed = bool(opening and opening.group(1).strip())
        tool, argument = calls[0]
        if tool == "answer":
            context.tool_note("answer", argument)
            return "answered"
        if tool == "python":
            turn.code = argument
            step_turn = context.run_code(argument)
            observation = step_turn.observation
            if step_turn.step and step_turn.step.get("termination") != "ok":
                failed_turns.add((len(messages) - 2) // 2)
        else:
            observation = context.check_submission(tool)
            context.tool_note(tool, observation)
        left = f"[{context.max_turns - turn_index - 1} turns and {max(context.time_left(), 0):.0f} seconds left]"
        messages.append({"role": "user", "content": f"<observation>\n{observation}\n</observation>\n{left}"})
        if context.time_left() <= 0:
            return "time_budget"
    return "max_turns"
