"""ReAct in SandMLE's released dialect (examples/deepresearch): <tool_call> with `python` and <code>, or a JSON
Score call; results as <tool_response> user messages; <answer> ends; failed tool turns pruned when the context fills."""

from __future__ import annotations

import json
import re

from sandmle.agents.scaffolds.base import SCORING_FEEDBACK, EpisodeBudgetExceeded, EpisodeContext
from sandmle.agents.scaffolds.replies import OPENING_THINK, split_thinking

LAST_CODE_BLOCK = re.compile(r"<code>(?!.*<code>)(.*?)</code>", re.S | re.I)
ANY_CODE_BLOCK = re.compile(r"<code>(.*?)</code>", re.S | re.I)
TOOL_TAGS = ("<code>", "</code>", "<tool_call>", "</tool_call>", "<think>", "</think>")


def system_prompt(feedback: str) -> str:
    score_rule = ("- After writing a submission, grade it with the Score tool; while the score is unsatisfying, "
                  "refine the code and grade again.\n") if feedback != "none" else ""
    score_call = (
        "\n- To grade /workdir/submission.csv, call the Score tool with a JSON object:\n"
        "<tool_call>\n"
        '{"name": "Score", "arguments": {"competition_id": "the competition id given in the task"}}\n'
        "</tool_call>\n") if feedback != "none" else ""
    return (
        "You are a seasoned Kaggle competitor. Write one Python script that trains a model and writes "
        "`submission.csv` for the dataset described by the user.\n\n"
        "Rules:\n"
        "- Only the libraries already installed may be used; nothing can be installed.\n"
        "- Write, run and revise the script with the PythonInterpreter tool.\n" + score_rule +
        "- Stay brief and on task.\n\n"
        "Loop:\n"
        "1) Each turn, reason and propose or revise the script, then wait for the tool's feedback.\n"
        "2) Run the script until it finishes cleanly and writes the file. Each reply holds exactly ONE "
        "<tool_call> block; never several.\n"
        "3) Read at least one tool result (it comes back inside <tool_response></tool_response>) before you stop. "
        "Reply <answer>submission</answer> only when the feedback looks good; otherwise keep iterating.\n\n"
        "Tool calls go inside <tool_call></tool_call> tags:\n"
        "- Code to run is written exactly like this:\n"
        "<tool_call>\n"
        "python\n"
        "<code>\n"
        "# your Python code\n"
        "print(\"Hello World\")\n"
        "</code>\n"
        "</tool_call>\n"
        "Keep the tool name `python` and the <code></code> tags." + score_call
    )


def user_prompt(context: EpisodeContext, competition_id: str) -> str:
    return (
        "Solve the task below, following its requirements exactly.\n\n"
        f"## Description\n\n## Competition ID: {competition_id}\n\n{context.description}\n\n"
        "## Dataset Folder:\n/public/\n\n"
        "Requirements for your code:\n"
        "- No GPU is available here; the code runs on CPU.\n"
        f"- Every Python run must finish within {context.step_timeout_s:g} seconds.\n"
        f"- You may take up to {context.max_turns} turns in all.\n"
        "- Load the data from the dataset folder above; first check its files and their formats (file types, "
        "columns, row counts).\n"
        "- Match the columns of sample_submission.csv exactly and write submission.csv to the current directory "
        "(/workdir).\n"
        "- Only common preinstalled libraries; no installs.\n"
        "- Do not show progress bars: the context window is small. Silence them where a function draws one.\n"
    )


def tail(text: str, lines: int) -> str:
    """The last `lines` lines, with a note of how many were cut (as the released tool does)."""
    kept = text.strip().splitlines()
    if len(kept) <= lines:
        return "\n".join(kept)
    return "\n".join(kept[-lines:] + [f"...[truncated {len(kept) - lines} lines]"])


def python_result(context: EpisodeContext, step: dict, lines: int) -> str:
    """The released PythonInterpreter's layout: stdout and stderr tails, a note on submission.csv, or a timeout line."""
    timeout = context.step_timeout_s
    if step.get("termination") == "timeout":
        return (f"[Timeout] Python execution timed out after {timeout:g}s. Optimise your code so that it finishes "
                f"within {timeout:g}s.")
    stdout, stderr = tail(step.get("stdout") or "", lines), tail(step.get("stderr") or "", lines)
    if step.get("termination") not in ("ok", "timeout", None) and not stderr:
        stderr = f"exit code {step.get('exit_code')}, {step.get('termination')}"
    found = context.submission_exists()
    if stdout:
        note = ("Note: submission.csv found at /workdir/submission.csv." if found
                else "Note: submission.csv not found.")
        if stderr:
            return f"[Output]\n{stdout}\n\n[Stderr]\n{stderr}\n\n{note}"
        return f"[Output]\n{stdout}\n\n" + note.replace("Note: ", "Note: no stderr, and ")
    if stderr:
        return (f"No stdout, but submission.csv found at /workdir/submission.csv. Stderr:\n{stderr}" if found
                else f"No stdout and submission.csv not found. Stderr:\n{stderr}")
    return "No stdout, but submission.csv found at /workdir/submission.csv." if found \
        else "No stdout and submission.csv not found."


def score_result(context: EpisodeContext) -> str:
    """The released Score tool's answer: "Submission OK. Details: {...}" or why not; on our public split, or on the
    real answers under score_answers (as the released tool grades)."""
    from sandmle.tasks import grading

    if context.feedback == "none":
        return "Tool Score is not available in this run. Available tools: ['PythonInterpreter']"
    if not context.submission_exists():
        return ("[Error] submission file not found at /workdir/submission.csv. Revise your Python code to "
                "generate submission.csv.")
    report = (context.score_submission() if context.feedback in SCORING_FEEDBACK else
              grading.grade_submission(context.task_dir, context.submission_path, split="public",
                                       episode_dir=context.workdir))
    if not report.valid_submission:
        return ("Submission csv is invalid. Revise your Python code to write another submission.csv. "
                "Detailed issue: " + "; ".join(report.errors))
    if context.feedback == "validate":
        return "Submission OK. Scores are not available in this run; the file's format is valid."
    metrics = {
        "score_primary (main competition metric for current code)": report.score,
        "metric_lower_is_better (true means lower score is better)": report.is_lower_better,
        "threshold_gold (score needed for gold tier)": report.gold_threshold,
        "threshold_silver (score needed for silver tier)": report.silver_threshold,
        "threshold_bronze (score needed for bronze tier)": report.bronze_threshold,
        "threshold_median (median submission score)": report.median_threshold,
        "submission_path": "/workdir/submission.csv",
    }
    short = report.score > report.bronze_threshold if report.is_lower_better else report.score < report.bronze_threshold
    if short:
        return ("Submission OK. But you do not reach the bronze threshold to get the medal. Revise your Python code "
                f"to improve your score. Details: {json.dumps(metrics)}")
    return f"Submission OK. Details: {json.dumps(metrics)}"


def parse_tool_call(answer: str) -> tuple[str, object] | None:
    """("python", code) or ("json", object | None) for the reply's first <tool_call>; None without one."""
    if "<tool_call>" not in answer:
        return None
    body = answer.split("<tool_call>", 1)[1]
    call = body.split("</tool_call>", 1)[0].strip() if "</tool_call>" in body else body.strip()
    if "python" in call.lower() or "<code>" in call.lower():
        if "<code>" in answer and "</code>" in answer:
            blocks = LAST_CODE_BLOCK.findall(answer) or ANY_CODE_BLOCK.findall(answer)
        elif "<code>" in answer:
            blocks = [answer.split("<code>", 1)[1]]
        else:
            blocks = [call.replace("python", "", 1)]
        code = "\n\n".join(block.strip() for block in blocks if block.strip())
        for tag in TOOL_TAGS:
            code = code.replace(tag, "")
        return "python", code
    try:
        value = json.loads(call)
    except ValueError:
        return "json", None
    return "json", value if isinstance(value, dict) else None


def prune(context: EpisodeContext, messages: list[dict]) -> list[dict]:
    """When the history is over the context: drop tool turns whose response mentions an error, then keep only the
    task and the last exchange (the released agent's order)."""
    def size(history: list[dict]) -> int:
        return sum(context.count_tokens(m["content"]) for m in history)

    if size(messages) <= context.context_tokens:
        return messages
    pruned, index = messages[:2], 2
    while index < len(messages):
        message = messages[index]
        pair = index + 1 < len(messages) and "<tool_response>" in messages[index + 1]["content"]
        if message["role"] == "assistant" and "<tool_call>" in message["content"] and pair:
            if "error" not in messages[index + 1]["content"].lower():
                pruned += [message, messages[index + 1]]
            index += 2
            continue
        pruned.append(message)
        index += 1
    if size(pruned) > context.context_tokens:
        pruned = messages[:2] + messages[-2:]
    return pruned


def run(context: EpisodeContext) -> str:
    lines = int(context.options.get("output_lines", 20))
    competition_id = context.task_id
    messages = [{"role": "system", "content": system_prompt(context.feedback)},
                {"role": "user", "content": user_prompt(context, competition_id)}]
    context.submission_choice = {"rule": "final_file",
                                 "reason": "SandMLE grades the run folder's submission.csv when the episode ends"}
    for _ in range(context.max_turns):
        messages = prune(context, messages)
        if sum(context.count_tokens(m["content"]) for m in messages) > context.context_tokens:
            return "context"  # even the task and the last exchange are over the limit (the released agent goes on)
        try:
            reply, turn = context.ask(messages, reply_format="react_sandmle")
        except EpisodeBudgetExceeded:
            return "time_budget"
        thinking, answer = split_thinking(reply.text)
        # SandMLE's format reward counts turns that open with a non-empty <think>: a <think> written after the call
        # (the audit's format_without_work plays one) is thinking, but earns no format credit.
        opening = OPENING_THINK.match(reply.text)
        turn.well_formed = bool(opening and opening.group(1).strip())
        if "<tool_response>" in answer:  # a reply that writes its own tool response is cut there
            answer = answer[: answer.index("<tool_response>")]
        content = reply.text if "<tool_response>" not in reply.text else reply.text[: reply.text.index("<tool_response>")]
        messages.append({"role": "assistant", "content": content.strip()})
        call = parse_tool_call(answer)
        if call is not None:
            kind, argument = call
            if kind == "python":
                turn.code = str(argument)
                step_turn = context.run_code(str(argument))
                result = python_result(context, step_turn.step or {}, lines)
            elif argument is None or not isinstance(argument.get("name"), str):
                result = 'Error: Tool call is not a valid JSON. Tool call must contain a valid "name" and "arguments" field.'
                context.tool_note("format_error", result, well_formed=False)
            elif argument["name"] in ("Score", "SynScore"):
                result = score_result(context)
                context.tool_note("score", result)
            else:
                tools = ["PythonInterpreter"] + (["Score"] if context.feedback != "none" else [])
                result = f"Tool {argument['name']} not found. Available tools: {tools}"
                context.tool_note("format_error", result, well_formed=False)
            messages.append({"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"})
        if "<answer>" in answer and "</answer>" in answer:
            context.tool_note("answer", answer.split("<answer>", 1)[1].split("</answer>", 1)[0].strip())
            return "answered"
        if context.time_left() <= 0:
            return "time_budget"
    return "max_turns"
