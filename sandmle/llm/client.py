"""A small client for any OpenAI-compatible chat-completions endpoint, plus schema-checked JSON replies."""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema


class LLMError(RuntimeError):
    """The endpoint could not give a usable reply (bad request, exhausted retries, invalid JSON).

    `status` is the HTTP status of a refused request (None for transport errors and unusable bodies).
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class ChatReply:
    """One completion: its text, why it stopped, token usage and (when asked) per-token logprobs."""

    text: str
    finish_reason: str | None
    usage: dict = field(default_factory=dict)
    logprobs: list[float] | None = None
    tokens: list[str] | None = None
    raw: dict = field(default_factory=dict)


# Statuses worth retrying: the server is busy or failing transiently; anything else is the caller's fault.
_RETRY_STATUSES = {408, 409, 429} | set(range(500, 600))


class ChatClient:
    """Sends chat-completion requests to `base_url` (e.g. http://host:8000/v1) for one model."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get(api_key_env)
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s

    def __repr__(self) -> str:  # never show the key
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def chat(
        self,
        messages: list[dict],
        *,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        logprobs: bool = False,
        response_format: dict | None = None,
        seed: int | None = None,
        stop: list[str] | str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ChatReply:
        """Send one request, retrying connection errors, 429 and 5xx with exponential backoff. `extra` adds
        server-specific fields (vLLM's return_token_ids); the reply's `raw` body carries what they return."""
        payload: dict[str, Any] = {"model": self.model, "messages": messages, **(extra or {})}
        optional = {
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
            "response_format": response_format,
            "seed": seed,
            "stop": stop,
        }
        payload.update({key: value for key, value in optional.items() if value is not None})
        if logprobs:
            payload["logprobs"] = True
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = self._post(payload, headers)
        return _parse_reply(body)

    def _answer_text(self, response, limit: int) -> str:
        # A broken or hostile endpoint may echo the request's Authorization header into its error body; that text ends
        # up in job errors and task logs that viewers read, so the key is cut out before it is quoted.
        text = response.text
        if self.api_key:
            text = text.replace(self.api_key, "[api key redacted]")
        return text[:limit]

    def _post(self, payload: dict, headers: dict) -> dict:
        last_problem = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * (2 ** (attempt - 1)))
            try:
                response = httpx.post(self.endpoint, json=payload, headers=headers, timeout=self.timeout_s)
            except httpx.TransportError as error:
                last_problem = f"cannot reach {self.endpoint}: {type(error).__name__}: {error}"
                continue
            if response.status_code in _RETRY_STATUSES:
                last_problem = f"{self.endpoint} answered HTTP {response.status_code}: {self._answer_text(response, 300)}"
                continue
            if response.status_code >= 400:
                raise LLMError(f"{self.endpoint} answered HTTP {response.status_code}: {self._answer_text(response, 500)}",
                               status=response.status_code)
            try:
                return response.json()
            except ValueError:
                raise LLMError(f"{self.endpoint} answered non-JSON: {self._answer_text(response, 300)!r}") from None
        raise LLMError(f"giving up after {self.max_retries + 1} attempts; last: {last_problem}")


def _parse_reply(body: dict) -> ChatReply:
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError):
        raise LLMError(f"reply has no choices: {json.dumps(body)[:300]}") from None
    token_logprobs = None
    tokens = None
    content_logprobs = (choice.get("logprobs") or {}).get("content") if isinstance(choice.get("logprobs"), dict) else None
    if content_logprobs:
        token_logprobs = [float(entry["logprob"]) for entry in content_logprobs]
        tokens = [str(entry.get("token", "")) for entry in content_logprobs]
    return ChatReply(
        text=message.get("content") or "",
        finish_reason=choice.get("finish_reason"),
        usage=dict(body.get("usage") or {}),
        logprobs=token_logprobs,
        tokens=tokens,
        raw=body,
    )


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_json_object(text: str) -> dict:
    """Return the first JSON object in `text`, preferring a ```json fence; raise ValueError if none parses."""
    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (index for index, char in enumerate(candidate) if char == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    raise ValueError("no JSON object found in the reply")


def parse_json_reply(text: str, validator: jsonschema.protocols.Validator) -> tuple[dict | None, str]:
    """The reply's JSON object and "", or None and what is wrong: no object in it, or the schema's best complaint."""
    try:
        candidate = extract_json_object(text)
    except ValueError as parse_error:
        return None, str(parse_error)
    error = jsonschema.exceptions.best_match(validator.iter_errors(candidate))
    if error is None:
        return candidate, ""
    path = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return None, f"schema violation at {path}: {error.message[:300]}"


def chat_json(
    client: ChatClient,
    messages: list[dict],
    *,
    schema: dict,
    attempts: int = 3,
    **chat_options: Any,
) -> tuple[dict, list[str]]:
    """Ask for a JSON object matching `schema`, feeding each parse or validation error back; return (object, log)."""
    instruction = (
        "Answer with one JSON object only, matching this JSON Schema:\n" + json.dumps(schema, indent=None)
    )
    conversation = list(messages) + [{"role": "user", "content": instruction}]
    log: list[str] = []
    validator = jsonschema.Draft202012Validator(schema)
    for attempt in range(1, attempts + 1):
        reply = client.chat(conversation, **chat_options)
        candidate, problem = parse_json_reply(reply.text, validator)
        if candidate is not None:
            log.append(f"attempt {attempt}: valid")
            return candidate, log
        log.append(f"attempt {attempt}: {problem}")
        conversation += [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": f"That reply was not acceptable ({problem}). " + instruction},
        ]
    raise LLMError(f"no valid JSON after {attempts} attempts: " + "; ".join(log))
