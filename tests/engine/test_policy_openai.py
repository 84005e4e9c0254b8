"""The `openai` policy against a local chat-completions server: replies, logprobs, retries, timeouts, the API key."""

from __future__ import annotations

import threading
import time

import pytest

from sandmle.agents import SamplingParams, make_policy
from sandmle.episodes.runner import EpisodeConfig, run_batch, run_episode
from sandmle.llm.client import LLMError
from tests.chat_server import ChatServer, completion
from tests.engine.rollout_bundles import COPY_SAMPLE, make_bundle

SECRET = "sk-test-do-not-log-4242"
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}]


def fast_policy(server, **options):
    return make_policy(f"openai:test-model@{server.base_url}", **{"timeout_s": 5, "max_retries": 2, "backoff_s": 0.01, **options})


def test_reply_text_logprobs_usage_and_finish_reason(chat_server):
    chat_server.script(completion("hi there", finish_reason="length", logprobs=[("hi", -0.25), (" there", -1.5)]))
    reply = fast_policy(chat_server).generate(MESSAGES, sampling=SamplingParams(temperature=0.7, top_p=0.9, max_tokens=8, seed=3))
    assert reply.text == "hi there"
    assert reply.logprobs == [-0.25, -1.5]
    assert reply.finish_reason == "length"
    assert reply.usage == {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    assert reply.prompt_ids is None and reply.completion_ids is None  # a chat endpoint gives no token ids
    sent = chat_server.requests[0]
    assert sent["messages"] == MESSAGES and sent["model"] == "test-model"
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"], sent["seed"], sent["logprobs"]) == (0.7, 0.9, 8, 3, True)


def test_server_without_logprobs_and_one_that_refuses_them(chat_server):
    chat_server.script("plain")
    assert fast_policy(chat_server).generate(MESSAGES, sampling=SamplingParams()).logprobs is None

    def refuse_logprobs(request):
        if request.get("logprobs"):
            return (400, {"error": {"message": "logprobs is not supported by this model"}})
        return completion("without logprobs")

    chat_server.reply_fn = refuse_logprobs
    policy = fast_policy(chat_server)
    first = policy.generate(MESSAGES, sampling=SamplingParams())
    second = policy.generate(MESSAGES, sampling=SamplingParams())
    assert first.text == second.text == "without logprobs" and first.logprobs is None
    # Refused once, then not asked for again.
    assert [bool(r.get("logprobs")) for r in chat_server.requests[1:]] == [True, False, False]


def test_other_client_errors_are_raised(chat_server):
    chat_server.script((400, {"error": {"message": "unknown model"}}))
    with pytest.raises(LLMError, match="HTTP 400.*unknown model"):
        fast_policy(chat_server).generate(MESSAGES, sampling=SamplingParams(logprobs=False))


def test_retries_with_backoff_on_5xx_and_429(chat_server):
    arrivals = []
    replies = [(503, {"error": "busy"}), (429, {"error": "slow down"}), completion("finally")]

    def answer(request):
        arrivals.append(time.monotonic())
        return replies.pop(0)

    chat_server.reply_fn = answer
    reply = fast_policy(chat_server, backoff_s=0.2).generate(MESSAGES, sampling=SamplingParams())
    assert reply.text == "finally"
    gaps = [later - earlier for earlier, later in zip(arrivals, arrivals[1:])]
    assert len(gaps) == 2 and gaps[0] >= 0.2 and gaps[1] >= 0.4  # exponential: 0.2 s, then 0.4 s


def test_timeout_is_retried_then_reported(chat_server):
    release = threading.Event()
    calls = []

    def slow_then_fast(request):
        calls.append(request)
        if len(calls) == 1:
            release.wait(3)  # longer than the client's timeout
        return completion("in time")

    chat_server.reply_fn = slow_then_fast
    started = time.monotonic()
    assert fast_policy(chat_server, timeout_s=0.3).generate(MESSAGES, sampling=SamplingParams()).text == "in time"
    assert time.monotonic() - started < 2.5 and len(calls) == 2

    calls.clear()
    chat_server.reply_fn = lambda request: (release.wait(3), completion("too late"))[1]
    with pytest.raises(LLMError, match="giving up after 2 attempts.*Timeout"):
        fast_policy(chat_server, timeout_s=0.3, max_retries=1).generate(MESSAGES, sampling=SamplingParams())
    release.set()


def test_api_key_comes_from_the_named_variable_and_is_never_recorded(tmp_path, monkeypatch, chat_server):
    monkeypatch.setenv("RUN_POLICY_KEY", SECRET)
    task_dir = make_bundle(tmp_path, kind="binary")
    chat_server.script("<think>done</think><answer>submission.csv</answer>")
    trajectories = run_batch([task_dir], scaffold="react", policy_spec=f"openai:test-model@{chat_server.base_url}",
                             samples=1, concurrency=1, config=EpisodeConfig(), pool=None,
                             policy_options={"api_key_env": "RUN_POLICY_KEY", "backoff_s": 0.01})
    assert chat_server.requests[0]["_headers"]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in trajectories[0].to_json()
    policy = fast_policy(chat_server, api_key_env="RUN_POLICY_KEY")
    assert SECRET not in repr(policy) and SECRET not in repr(policy.client)

    # A failing endpoint ends the episode with an error that does not carry the key either.
    chat_server.reply_fn = lambda request: (500, {"error": "down"})
    failed = run_episode(task_dir, scaffold="react", policy=policy, config=EpisodeConfig())
    assert failed.termination == "error" and "HTTP 500" in failed.error
    assert SECRET not in failed.to_json()


def test_react_episode_end_to_end_against_the_local_server(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    script = [
        ("<think>copy the sample</think><python>" + COPY_SAMPLE + "</python>", [("<think>", -0.5), ("copy", -0.1)]),
        ("<think>check</think><validate/>", [("<think>", -0.2)]),
        ("<think>done</think><answer>submission.csv</answer>", [("<answer>", -0.05)]),
    ]

    def react_reply(request):
        text, logprobs = script[sum(m["role"] == "assistant" for m in request["messages"])]
        return completion(text, logprobs=logprobs)

    with ChatServer(reply_fn=react_reply) as server:
        trajectory = run_episode(task_dir, scaffold="react", policy=fast_policy(server),
                                 config=EpisodeConfig(feedback="validate", sampling=SamplingParams(max_tokens=256)))
        requests = server.requests

    assert trajectory.error is None, trajectory.error
    assert trajectory.termination == "answered" and trajectory.policy == "openai:test-model"
    assert trajectory.grade.valid_submission is True and trajectory.format_rate == 1.0
    replies = [t for t in trajectory.turns if t["role"] == "assistant"]
    assert [t["logprobs"] for t in replies] == [[-0.5, -0.1], [-0.2], [-0.05]]
    assert all(t["extra"]["finish_reason"] == "stop" and t["extra"]["usage"]["completion_tokens"] >= 1 for t in replies)
    # The server saw the growing conversation: the tool observations came back as user messages.
    assert [len(r["messages"]) for r in requests] == [2, 4, 6]
    assert "copied" in requests[1]["messages"][-1]["content"]
    assert "Submission is valid." in requests[2]["messages"][-1]["content"]
    assert all(r["max_tokens"] == 256 for r in requests)
    # Chat endpoints give no token ids: no token records, so no training sequence is guessed from text.
    assert trajectory.tokens == [] and trajectory.sequence is None
