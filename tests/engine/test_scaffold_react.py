"""ReAct's control flow under a scripted policy: tool calls, malformed turns, timeouts, feedback and the context limit."""

from __future__ import annotations

from sandmle.agents import SamplingParams
from sandmle.agents.scaffolds.react import fit_context, parse_reply
from sandmle.episodes.runner import EpisodeConfig, run_episode
from tests.engine.rollout_bundles import COPY_SAMPLE, ScriptedPolicy, make_bundle


def test_react_episode_with_malformed_turns_and_timeout(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy([
        "<think>look</think><python>print('hello from the sandbox')</python>",
        "I forgot the tool call.",
        "<think>two at once</think><python>print(1)</python><validate/>",
        "<think>loop</think><python>while True:\n    pass</python>",
        f"<think>write</think><python>{COPY_SAMPLE}</python>",
        "<think>check</think><validate/>",
        "<think>done</think><answer>submission.csv</answer>",
    ])
    config = EpisodeConfig(feedback="validate", step_timeout_s=2.0)
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config, workdir=tmp_path / "work")

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "answered"
    observations = [t["observation"] for t in trajectory.turns if t["role"] == "tool"]
    assert "hello from the sandbox" in observations[0]
    assert "Format error: no tool call" in observations[1]
    assert "Format error: 2 tool calls" in observations[2]
    timeout_turn = [t for t in trajectory.turns if t["step"] and t["step"]["termination"] == "timeout"]
    assert len(timeout_turn) == 1 and "time limit" in timeout_turn[0]["observation"]
    assert "Submission is valid." in observations[5]
    assert abs(trajectory.format_rate - 5 / 7) < 1e-9
    assert trajectory.grade.valid_submission is True
    assert set(trajectory.rewards) >= {"dense", "sparse"}
    # The policy saw the observation of its code in the next prompt.
    second_prompt = policy.calls[1][0]
    assert "hello from the sandbox" in second_prompt[-1]["content"]


def test_react_stops_at_max_turns_and_without_feedback_tools(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")
    policy = ScriptedPolicy(reply_fn=lambda messages, sampling: "<think>again</think><python>print(2)</python>")
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=EpisodeConfig(max_turns=3))
    assert trajectory.termination == "max_turns"
    assert len(policy.calls) == 3
    assert "<validate/>" not in policy.calls[0][0][0]["content"]
    assert trajectory.grade.submission_exists is False


def test_parse_reply_finds_every_tool_call():
    thinking, calls = parse_reply("<think>plan <python>not a call</python></think><score/>")
    assert thinking.startswith("plan")
    assert calls == [("score", "")]


def test_context_limit_drops_failed_turns_then_keeps_last_two(tmp_path):
    class Context:
        context_tokens = 60

        class sampling:
            max_tokens = 10

        @staticmethod
        def count_tokens(text):
            return len(text) // 4 + 1

    head = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    turns = []
    for index in range(4):
        turns += [{"role": "assistant", "content": f"reply {index} " + "x" * 40}, {"role": "user", "content": f"obs {index}"}]
    kept, overflow = fit_context(Context, head + turns, failed={0})
    assert not overflow
    assert kept == head + turns[2:]  # dropping the failed turn 0 is enough
    Context.context_tokens = 45
    kept, overflow = fit_context(Context, head + turns, failed={0})
    assert not overflow
    assert kept == head + turns[-4:]  # still too long: only the last two turns stay
    Context.context_tokens = 30
    assert fit_context(Context, head + turns, failed={0})[1] is True
    Context.context_tokens = 10_000
    kept, overflow = fit_context(Context, head + turns, failed={0})
    assert kept == head + turns


def test_react_time_budget_ends_the_episode(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy(reply_fn=lambda messages, sampling: "<think>wait</think><python>import time\ntime.sleep(1.5)</python>")
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=EpisodeConfig(time_budget_s=1.0))
    assert trajectory.termination == "time_budget"
    assert len(policy.calls) == 1


def test_react_context_overflow_ends_the_episode(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    policy = ScriptedPolicy(reply_fn=lambda messages, sampling: "<think>print a lot</think><python>print('x' * 8000)</python>")
    config = EpisodeConfig(context_tokens=1200, sampling=SamplingParams(max_tokens=100))
    trajectory = run_episode(task_dir, scaffold="react", policy=policy, config=config)
    # The long observation stays among the last two turns, so trimming cannot make room.
    assert trajectory.termination == "context"
    assert len(policy.calls) == 1


def test_react_score_feedback_and_feedback_off(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    replies = [f"<think>write</think><python>{COPY_SAMPLE}</python>", "<think>score it</think><score/>",
               "<think>done</think><answer>submission.csv</answer>"]
    scored = run_episode(task_dir, scaffold="react", policy=ScriptedPolicy(list(replies)),
                         config=EpisodeConfig(feedback="score"))
    observation = [t["observation"] for t in scored.turns if t["kind"] == "score"][0]
    assert observation.startswith("Submission is valid. Score on the public split:") and "higher is better" in observation

    no_feedback = ScriptedPolicy(list(replies))
    silent = run_episode(task_dir, scaffold="react", policy=no_feedback, config=EpisodeConfig(feedback="none"))
    assert "<score/>" not in no_feedback.calls[0][0][0]["content"]
    assert [t["observation"] for t in silent.turns if t["kind"] == "score"] == ["Feedback is not available in this run."]
    assert silent.termination == "answered" and silent.grade.valid_submission is True


def test_react_answer_without_a_submission_is_graded_invalid(tmp_path):
    task_dir = make_bundle(tmp_path, kind="regression")
    trajectory = run_episode(task_dir, scaffold="react", policy=ScriptedPolicy(["<answer>submission.csv</answer>"]),
                             config=EpisodeConfig())
    # The call runs, but a reply that does not open with a non-empty <think> earns no format reward (SandMLE's rule).
    assert trajectory.termination == "answered" and trajectory.format_rate == 0.0
    assert trajectory.grade.submission_exists is False
    assert trajectory.rewards["dense"]["total"] == 0.0
