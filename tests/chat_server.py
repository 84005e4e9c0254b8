"""A local OpenAI-compatible chat-completions server for tests: scripted replies, recorded requests, a free port."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# A reply is the assistant text, a full chat-completion dict, or (status, body) to simulate a failing server.
Reply = str | dict | tuple[int, Any]


def completion(text: str, *, finish_reason: str = "stop", logprobs: list[tuple[str, float]] | None = None) -> dict:
    """Build a chat-completion response body the way OpenAI's API shapes it."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": finish_reason,
    }
    if logprobs is not None:
        choice["logprobs"] = {"content": [{"token": token, "logprob": value, "top_logprobs": []} for token, value in logprobs]}
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [choice],
        "usage": {"prompt_tokens": 1, "completion_tokens": max(1, len(text.split())), "total_tokens": 1 + max(1, len(text.split()))},
    }


class ChatServer:
    """Serves POST /v1/chat/completions on 127.0.0.1 from a script of replies or a reply function."""

    def __init__(self, replies: list[Reply] | None = None, reply_fn: Callable[[dict], Reply] | None = None) -> None:
        self.replies: list[Reply] = list(replies or [])
        self.reply_fn = reply_fn
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        # A short poll interval: shutdown() waits for the loop to notice, which would add half a second per test.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "ChatServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "ChatServer":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def script(self, *replies: Reply) -> None:
        """Queue replies, served in order; when the queue is empty the reply function (or an error) answers."""
        with self._lock:
            self.replies.extend(replies)

    def _next_reply(self, request: dict) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.pop(0)
        if self.reply_fn is not None:
            return self.reply_fn(request)
        return (500, {"error": {"message": "chat server has no scripted reply left"}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: Any) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test): nothing to answer

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    request = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "body is not JSON"}})
                    return
                request["_headers"] = {key.lower(): value for key, value in self.headers.items()}
                reply = server._next_reply(request)
                if isinstance(reply, tuple):
                    self._send(reply[0], reply[1])
                elif isinstance(reply, dict):
                    self._send(200, reply)
                else:
                    self._send(200, completion(str(reply)))

        return Handler


@pytest.fixture
def chat_server():
    """A started ChatServer with an empty script; call .script(...) or set .reply_fn, read .requests."""
    with ChatServer() as server:
        yield server


@pytest.fixture
def chat_client(chat_server):
    """A sandmle.llm.client.ChatClient pointed at `chat_server`, with fast retries."""
    from sandmle.llm.client import ChatClient

    return ChatClient(chat_server.base_url, "test-model", api_key="test-key", timeout_s=5, max_retries=2, backoff_s=0.01)
