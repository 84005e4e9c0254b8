"""ReAct in SandMLE's released dialect, replayed from scripted replies in that format: <tool_call> with python <code>
or a Score JSON call, <tool_response> layout, <answer>, budgets of the upstream preset and context pruning."""

from __future__ import annotations

from sandmle.agents.scaffolds.react_sandmle import parse_tool_call, prune
from sandmle.episodes.runner import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle


def python_call(code: str, thinking: str = "") -> str:
    return f"<think>{thinking}</think>\n<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>" if thinking \
        else f"<tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>"


NOISY_COPY = COPY_SAMPLE + "for line in range(30):\n    print('line', line)\nimport sys\nprint('warn', file=sys.stderr)\n"


def test_sandmle_dialect_episode(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([
        # Thinking holds braces, a <code> block and a tool call of its own: none of it is parsed.
        python_call("import os\nprint(sorted(os.listdir('/public')))",
                    thinking='maybe {"name": "Score"}? <tool_call>\npython\n<code>print("thinking")</code></tool_call>'),
        python_call("while True:\n    pass", thinking="a loop"),
        "I will now write the file.",  # no thinking, no tool call: a format miss, and no tool response
        python_call(NOISY_COPY, thinking="write"),
        '<think>grade it</think>\n<tool_call>\n{"name": "Score", "arguments": {"competition_id": "binary-0"}}\n</tool_call>',
        "<think>oops</think><tool_call>\n{name: Score\n</tool_call>",
        '<think>and another</think><tool_call>\n{"name": "Search", "arguments": {}}\n</tool_call>',
        "<think>done</think>\n<answer>submission</answer>",
    ])
    config = EpisodeConfig(feedback="score", step_timeout_s=2.0,
                           scaffold_options={"preset": "upstream", "step_timeout_s": 2.0})
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "answered"
    options = trajectory.extra["scaffold_options"]
    assert options["dialect"] == "sandmle" and options["max_turns"] == 15 and options["max_tokens"] == 4096
    first_messages, sampling = policy.calls[0]
    assert sampling.max_tokens == 4096 and sampling.reply_format == "react_sandmle"
    assert "<tool_call>" in first_messages[0]["content"] and '"name": "Score"' in first_messages[0]["content"]
    assert "## Competition ID: binary-0" in first_messages[1]["content"]
    assert "within 2 seconds" in first_messages[1]["content"] and "up to 15 turns" in first_messages[1]["content"]
    responses = [m["content"] for m in policy.calls[-1][0] if m["role"] == "user"][1:]
    assert all(r.startswith("<tool_response>\n") and r.endswith("\n</tool_response>") for r in responses)
    assert "[Output]\n['description.md'" in responses[0] and "submission.csv not found" in responses[0]
    assert "thinking" not in trajectory.turns[1]["code"]
    assert responses[1].startswith("<tool_response>\n[Timeout] Python execution timed out after 2s.")
    # The missed turn got no tool response: the next call ends with it, as the released loop does.
    assert policy.calls[3][0][-1] == {"role": "assistant", "content": "I will now write the file."}
    # The last 20 lines of stdout with a truncation note, then stderr, then the note on submission.csv.
    assert "line 29" in responses[2] and "line 8\n" not in responses[2] and "...[truncated 11 lines]" in responses[2]
    assert "[Stderr]\nwarn" in responses[2] and "submission.csv found" in responses[2]
    assert responses[3].startswith("<tool_response>\nSubmission OK. But you do not reach the bronze threshold")
    assert '"score_primary (main competition metric for current code)": 0.5' in responses[3]
    assert "Tool call is not a valid JSON" in responses[4]
    assert "Tool Search not found. Available tools: ['PythonInterpreter', 'Score']" in responses[5]
    # SandMLE's format rate: the turns that open with a non-empty <think> (all but the third).
    assert abs(trajectory.format_rate - 7 / 8) < 1e-9
    assert trajectory.extra["submission_choice"]["rule"] == "final_file"
    assert trajectory.grade.valid_submission is True and trajectory.grade.score == 0.5


def test_sandmle_dialect_without_feedback_hides_the_score_tool(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")
    policy = ScriptedPolicy([
        '<think>grade</think><tool_call>{"name": "Score", "arguments": {}}</tool_call>',
        # An unclosed tool call and code block still run (the released parser reads to the end).
        "<think>write</think><tool_call>\npython\n<code>\n" + COPY_SAMPLE,
    ])
    config = EpisodeConfig(feedback="none", max_turns=2, scaffold_options={"dialect": "sandmle"})
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config)
    assert '"name": "Score"' not in policy.calls[0][0][0]["content"]
    assert "Tool Score is not available" in policy.calls[1][0][-1]["content"]
    assert trajectory.termination == "max_turns" and trajectory.grade.valid_submission is True


def test_parse_tool_call_takes_the_last_code_block():
    assert parse_tool_call("no call") is None
    assert parse_tool_call("<tool_call>\npython\n<code>a=1</code>\n<code>b=2</code></tool_call>") == ("python", "b=2")
    assert parse_tool_call("<tool_call>\npython\nprint(3)\n</tool_call>") == ("python", "print(3)")
    assert parse_tool_call('<tool_call>{"name": "Score"}</tool_call>') == ("json", {"name": "Score"})
    assert parse_tool_call("<tool_call>[1, 2]</tool_call>") == ("json", None)


def test_prune_drops_failed_tool_turns_then_keeps_the_last_exchange():
    class Context:
        context_tokens = 90

        @staticmethod
        def count_tokens(text):
            return len(text) // 4 + 1

    head = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    turns = []
    for index in range(4):
        result = "Error: boom" if index == 0 else f"ok {index}"
        turns += [{"role": "assistant", "content": f"<tool_call>{index}</tool_call>" + "x" * 40},
                  {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"}]
    assert prune(Context, head + turns) == head + turns[2:]  # the failed turn 0 goes first
    Context.context_tokens = 40
    assert prune(Context, head + turns) == head + turns[-2:]
    Context.context_tokens = 10_000
    assert prune(Context, head + turns) == head + turns
