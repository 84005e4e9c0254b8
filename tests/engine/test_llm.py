"""Tests of the OpenAI-compatible chat client and schema-checked JSON replies against a real local HTTP server."""

from __future__ import annotations

import socket

import pytest

from sandmle.llm.client import ChatClient, LLMError, chat_json, extract_json_object
from tests.chat_server import completion


def test_chat_sends_options_and_parses_reply(chat_server, chat_client):
    chat_server.script(completion("hello there", logprobs=[("hello", -0.1), (" there", -0.5)]))
    reply = chat_client.chat([{"role": "user", "content": "hi"}], temperature=0.0, max_tokens=5, logprobs=True, seed=7, stop=["\n"])
    assert reply.text == "hello there"
    assert reply.finish_reason == "stop"
    assert reply.logprobs == [-0.1, -0.5]
    assert reply.tokens == ["hello", " there"]
    assert reply.usage["total_tokens"] >= 2
    sent = chat_server.requests[0]
    assert sent["model"] == "test-model"
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 5 and sent["seed"] == 7 and sent["stop"] == ["\n"]
    assert sent["logprobs"] is True
    assert "top_p" not in sent
    assert sent["_headers"]["authorization"] == "Bearer test-key"


def test_api_key_from_environment(chat_server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "from-env")
    chat_server.script("ok")
    client = ChatClient(chat_server.base_url, "m", api_key_env="MY_KEY")
    client.chat([{"role": "user", "content": "x"}])
    assert chat_server.requests[0]["_headers"]["authorization"] == "Bearer from-env"
    assert "from-env" not in repr(client)


def test_retries_on_429_and_5xx(chat_server, chat_client):
    chat_server.script((429, {"error": "slow down"}), (503, {"error": "busy"}), "finally")
    assert chat_client.chat([{"role": "user", "content": "x"}]).text == "finally"
    assert len(chat_server.requests) == 3


def test_gives_up_after_retries(chat_server, chat_client):
    chat_server.script(*[(500, {"error": "down"})] * 3)
    with pytest.raises(LLMError, match="giving up after 3 attempts.*HTTP 500"):
        chat_client.chat([{"role": "user", "content": "x"}])


def test_client_error_is_not_retried(chat_server, chat_client):
    chat_server.script((400, {"error": {"message": "bad model"}}), "never")
    with pytest.raises(LLMError, match="HTTP 400.*bad model"):
        chat_client.chat([{"role": "user", "content": "x"}])
    assert len(chat_server.requests) == 1


def test_connection_refused_is_retried_then_reported():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatClient(f"http://127.0.0.1:{port}/v1", "m", api_key="k", max_retries=1, backoff_s=0.01, timeout_s=2)
    with pytest.raises(LLMError, match="cannot reach"):
        client.chat([{"role": "user", "content": "x"}])


def test_extract_json_prefers_fence_and_skips_junk():
    assert extract_json_object('Sure! ```json\n{"a": 1}\n``` and {"b": 2}') == {"a": 1}
    assert extract_json_object('prefix {not json} then {"b": [1, 2]} tail') == {"b": [1, 2]}
    with pytest.raises(ValueError):
        extract_json_object("no object here [1, 2]")


SCHEMA = {
    "type": "object",
    "properties": {"met": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["met", "reason"],
}


def test_chat_json_feeds_back_errors_until_valid(chat_server, chat_client):
    chat_server.script("I think yes", '{"met": "yes", "reason": "x"}', 'Here: ```json\n{"met": true, "reason": "uses KFold"}\n```')
    obj, log = chat_json(chat_client, [{"role": "user", "content": "judge"}], schema=SCHEMA, attempts=3)
    assert obj == {"met": True, "reason": "uses KFold"}
    assert log[0].startswith("attempt 1: no JSON object")
    assert "schema violation at met" in log[1]
    assert log[2] == "attempt 3: valid"
    third = chat_server.requests[2]["messages"]
    assert third[-2] == {"role": "assistant", "content": '{"met": "yes", "reason": "x"}'}
    assert "schema violation at met" in third[-1]["content"]


def test_chat_json_raises_after_attempts(chat_server, chat_client):
    chat_server.script('{"met": 1}', '{"reason": "r"}')
    with pytest.raises(LLMError, match="no valid JSON after 2 attempts"):
        chat_json(chat_client, [{"role": "user", "content": "judge"}], schema=SCHEMA, attempts=2)
