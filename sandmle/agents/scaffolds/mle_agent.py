"""MLE-Agent (MLE-Dojo's mledojo/agent/mleagent): JSON actions {"action", "params"} (request_info, validate_code,
execute_code), error or reflection feedback with the actions and seconds left, up to 3 repair calls for an unparsable
reply, and the best test-scored submission over all execute_code calls."""

from __future__ import annotations

import json

from sandmle.agents.scaffolds.base import EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.replies import JSON_FENCE, split_thinking

ACTIONS = ("request_info", "validate_code", "execute_code")
INFO_TYPES = ("overview", "sample_submission", "data_structure", "data_path", "output_path")
FORMATS = (
    '{"action": "request_info", "params": {"info_type": "<info_type>"}}\nor\n'
    '{"action": "validate_code", "params": {"code": "<code>"}}\nor\n'
    '{"action": "execute_code", "params": {"code": "<code>"}}\n'
    "- Must be valid JSON\n- No other text or formatting"
)


def instruction(context: EpisodeContext) -> str:
    scored = {"score": "a score on the public part of the test set", "validate": "a check of the file's format",
              "none": "no evaluation in this run"}[context.feedback]
    return (
        "You are a top-ranked Kaggle grandmaster with long competition experience. Solve the competition below, "
        "aiming for the best leaderboard position within a limited number of steps. Use machine learning methods: "
        "random guesses or rules without ML will be cancelled.\n\n"
        f"You have {context.max_turns} actions in all.\n"
        f"You have {context.time_left():.0f} seconds in all, code execution included.\n\n"
        "You have exactly three actions, each with params, and get feedback after each:\n"
        f"1. request_info: competition information. params: info_type (str), one of: {', '.join(map(repr, INFO_TYPES))}. "
        "Feedback: the information.\n"
        "2. validate_code: run (partial) code to debug it or print information. params: code (str). Feedback: "
        "whether it ran, its error or its output.\n"
        "3. execute_code: run complete code that writes the submission. params: code (str). Feedback: the run's "
        f"result, the submission's status and {scored}.\n\n"
        "Code requirements:\n- Request all the information first.\n- Read every data file from the data path.\n"
        "- Save the submission to the output path; it must match the test data's length.\n"
        "- Never add, delete or change files in the data path.\n- Use print to see information in the feedback.\n"
        "- No plots.\n- Follow the sample submission's format.\n"
        "- Code must be self-contained; no state carries over between runs.\n"
        "- Code for a submission must run completely, otherwise it counts as failed.\n"
        "- Keep improving your model, parameters, data processing and algorithm.\n\n"
        "Only an execute_code action whose code runs and writes a valid submission earns a leaderboard position.\n\n"
        f"Reply in exactly one of these formats:\n{FORMATS}"
    )


def feedback_message(context: EpisodeContext, observation: str, *, failed: bool, actions_left: int) -> str:
    seconds = f"{max(context.time_left(), 0):.0f}"
    if failed:
        return (f"Execution failed, details below:\n\n#### Error Start ####\n{observation}\n#### Error End ####\n\n"
                f"You still have {actions_left} actions available.\nYou still have {seconds} seconds left.\n\n"
                "Output your next action strictly following the response format requirements.")
    return (f"The results of your previous action:\n\n#### Results Start ####\n{observation}\n#### Results End ####\n\n"
            f"You still have {actions_left} actions available.\nYou still have {seconds} seconds left.\n"
            "Keep improving your model, parameters, data processing and algorithm.\n\n"
            "Output your next action strictly following the response format requirements.")


def repair_prompt(response: str, error: str) -> str:
    return ("The response cannot be parsed as valid JSON. Fix the error following the response format requirements. "
            "Fix only the JSON format, not the contents, and make sure <code> is runnable as it stands.\n\n"
            f"### Response Start ###\n{response}\n### Response End ###\n\n### Error Start ###\n{error}\n"
            f"### Error End ###\n\nReply in exactly one of these formats:\n{FORMATS}")


def parse_action(text: str) -> tuple[dict | None, str]:
    """(action with params, "") or (None, the error); thinking removed, a ```json fence stripped, then strict JSON."""
    _, answer = split_thinking(text)
    fenced = JSON_FENCE.search(answer) if "```json" in answer else None
    if fenced:
        answer = fenced.group(1)
    if not answer.strip():
        return None, "Empty response"
    try:
        action = json.loads(answer)
    except json.JSONDecodeError as error:
        return None, f"reply is not valid JSON ({error.msg} at position {error.pos})"
    if not isinstance(action, dict):
        return None, f"Response must be a JSON object, got {type(action).__name__}"
    if set(action) != {"action", "params"}:
        return None, f"Response must contain exactly the keys action and params, got: {sorted(action)}"
    if action["action"] not in ACTIONS:
        return None, f"Invalid action {action['action']!r}. Must be one of: {', '.join(ACTIONS)}"
    params = action["params"]
    wanted = "info_type" if action["action"] == "request_info" else "code"
    if not isinstance(params, dict) or set(params) != {wanted}:
        return None, f"{action['action']!r} params must contain exactly: {wanted}"
    if not isinstance(params[wanted], str):
        return None, f"{wanted!r} must be a string"
    return action, ""


def request_info(context: EpisodeContext, info_type: str) -> tuple[str, bool]:
    """The information asked for, and whether the info type is one MLE-Dojo offers."""
    from sandmle.agents.scaffolds.preview import file_tree

    public = context.task_dir / "public"
    if info_type == "overview":
        return context.description, True
    if info_type == "sample_submission":
        import pandas as pd

        return str(pd.read_csv(public / "sample_submission.csv").head(3).to_dict()), True
    if info_type == "data_structure":
        return "\n".join(file_tree(public)), True
    if info_type == "data_path":
        return "/public", True
    if info_type == "output_path":
        return "/workdir (write /workdir/submission.csv)", True
    return f"Invalid info type: {info_type}. Available info types: {', '.join(INFO_TYPES)}", False


def history(messages: list[dict], length) -> list[dict]:
    """MLE-Dojo's truncated history: the first exchange and the last `length` exchanges ("all": everything)."""
    if length == "all":
        return messages
    return messages[:2] + messages[2:][-2 * int(length):]


class BestSubmission:
    """MLE-Dojo keeps the best raw test score over every execute_code call; each such submission is kept aside."""

    def __init__(self, context: EpisodeContext) -> None:
        self.context, self.kept, self.score, self.call = context, None, None, None

    def offer(self, call: int) -> None:
        from sandmle.tasks.grading import grade_submission

        kept = self.context.keep_submission(f"execute{call}")
        if kept is None:
            return
        report = grade_submission(self.context.task_dir, kept, split="private", episode_dir=self.context.workdir)
        if not report.valid_submission or report.score is None:
            return
        better = self.score is None or (report.score < self.score if report.is_lower_better else report.score > self.score)
        if better:
            self.kept, self.score, self.call = kept, report.score, call

    def choose(self) -> None:
        reason = ("MLE-Dojo: the best test score over all execute_code calls" if self.kept is not None
                  else "MLE-Dojo: no execute_code call wrote a valid submission")
        self.context.choose_submission("best_test_score", reason, self.kept, execute_call=self.call, score=self.score)


def run(context: EpisodeContext) -> str:
    length, repairs = context.options.get("history_length", "all"), int(context.options.get("repair_attempts", 3))
    messages = [{"role": "user", "content": instruction(context)}]
    best = BestSubmission(context)
    executed = 0
    try:
        for step in range(context.max_turns):
            shown = history(messages, length)
            if sum(context.count_tokens(m["content"]) for m in shown) >= context.context_tokens:
                return "context"  # MLE-Dojo's agent ends at its prompt-token limit
            try:
                reply, turn = context.ask(shown, reply_format="mle_agent")
                messages.append({"role": "assistant", "content": reply.text})
                action, problem = parse_action(reply.text)
                turn.well_formed = action is not None  # a repaired reply still counts as a malformed turn
                attempt = 0
                while action is None and attempt < repairs:
                    # A repair call sees only the broken reply and the error; it is not a step.
                    attempt += 1
                    fixed, repair_turn = context.ask([{"role": "user", "content": repair_prompt(reply.text, problem)}],
                                                     reply_format="mle_agent", kind="repair")
                    action, problem = parse_action(fixed.text)
                    repair_turn.well_formed = action is not None
            except EpisodeBudgetExceeded:
                return "time_budget"
            if action is None:
                context.tool_note("format_error", f"Unparsable action after {repairs} repairs: {problem}.",
                                  well_formed=False)
                return "parse_error"  # MLE-Dojo's agent returns "Error" and the run stops
            name, params = action["action"], action["params"]
            failed = False
            if name == "request_info":
                observation, known = request_info(context, params["info_type"])
                failed = not known
                context.tool_note("request_info", observation, well_formed=known)
            else:
                turn.code = params["code"]
                step_turn = context.run_code(params["code"], kind=name)
                observation = step_turn.observation
                failed = bool(step_turn.step and step_turn.step.get("termination") != "ok")
                if name == "execute_code":
                    executed += 1
                    best.offer(executed)
                    if context.feedback != "none":
                        observation += "\n" + context.check_submission(context.feedback)
            messages.append({"role": "user", "content": feedback_message(
                context, observation, failed=failed, actions_left=context.max_turns - step - 1)})
            if context.time_left() <= 0:
                return "time_budget"
        return "max_turns"
    finally:
        best.choose()
