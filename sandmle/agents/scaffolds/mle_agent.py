"""MLE-Dojo's agent: strict JSON actions (request_info, validate_code, execute_code, submit) in an advise -> code -> debug loop."""

from __future__ import annotations

import json

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext

ACTIONS = ("request_info", "validate_code", "execute_code", "submit")
INFO_TYPES = ("overview", "files", "sample_submission", "output_path")


def system_prompt(feedback: str) -> str:
    return (
        "You are an MLE agent in an interactive environment.\n"
        "REPLY FORMAT: mle_agent\n"
        "Reply with one JSON object and nothing else, one of:\n"
        '{"action": "request_info", "info_type": "overview" | "files" | "sample_submission" | "output_path"}\n'
        '{"action": "validate_code", "code": "..."}  runs code to check it works (output only)\n'
        '{"action": "execute_code", "code": "..."}   runs code that writes /workdir/submission.csv'
        + (" and reports the submission's " + ("public score" if feedback == "score" else "validity") if feedback != "none" else "")
        + "\n"
        '{"action": "submit"}  ends the episode with /workdir/submission.csv\n'
        "Work in a loop: advise (plan), code, and debug from the errors you see."
    )


def parse_action(text: str) -> tuple[dict | None, str]:
    """The action object, or None and the reason it is not a valid action."""
    try:
        action = json.loads(text.strip())
    except json.JSONDecodeError as error:
        return None, f"reply is not valid JSON ({error.msg} at position {error.pos})"
    if not isinstance(action, dict) or action.get("action") not in ACTIONS:
        return None, f"'action' must be one of {', '.join(ACTIONS)}"
    if action["action"] in ("validate_code", "execute_code") and not isinstance(action.get("code"), str):
        return None, f"{action['action']} needs a string 'code'"
    return action, ""


def request_info(context: EpisodeContext, info_type: object) -> tuple[str, bool]:
    """The information asked for, and whether the info type was one of those offered."""
    if info_type == "overview":
        return f"{context.description}\n\nFiles:\n{context.file_listing}", True
    if info_type == "files":
        return context.file_listing, True
    if info_type == "sample_submission":
        with (context.task_dir / "public" / "sample_submission.csv").open() as sample:
            return "".join(line for _, line in zip(range(6), sample)), True
    if info_type == "output_path":
        return "Write the submission to /workdir/submission.csv.", True
    return f"Unknown info_type {info_type!r}: expected {', '.join(INFO_TYPES)}.", False


def run(context: EpisodeContext) -> str:
    messages = [
        {"role": "system", "content": system_prompt(context.feedback)},
        {"role": "user", "content": "Advise: read the task and plan an approach, then act.\n\n" + context.description},
    ]
    for _ in range(context.max_turns):
        try:
            reply, turn = context.ask(messages, reply_format="mle_agent")
        except EpisodeBudgetExceeded:
            return "time_budget"
        messages.append({"role": "assistant", "content": reply.text})
        action, problem = parse_action(reply.text)
        if action is None:
            turn.well_formed = False
            observation = context.tool_note("format_error", f"Invalid action: {problem}.", well_formed=False).observation
        elif action["action"] == "submit":
            context.tool_note("submit", "submission.csv")
            return "answered"
        elif action["action"] == "request_info":
            info, known = request_info(context, action.get("info_type", "overview"))
            turn.well_formed = known
            observation = context.tool_note("request_info", info, well_formed=known).observation
        else:
            turn.code = action["code"]
            step_turn = context.run_code(action["code"], kind=action["action"])
            observation = step_turn.observation
            if action["action"] == "execute_code" and context.feedback != "none":
                observation += "\n" + context.check_submission(context.feedback)
            if step_turn.step and step_turn.step.get("termination") != "ok":
                observation += "\nDebug: fix the error above and try again."
        messages.append({"role": "user", "content": observation})
        if context.time_left() <= 0:
            return "time_budget"
    return "max_turns"
