"""The one check of every outbound model endpoint a user can name: the admin's allow-list of hosts and of key variables.

SANDMLE_LLM_ALLOWED_HOSTS lists host names (or host:port); empty means only SANDMLE_LLM_URL's host. SANDMLE_LLM_KEY_ENVS
lists the environment variables whose value may go along as a key. Synthesis LLMs, `openai:` policies (rollouts,
campaigns, frontier runs), a training run's rubric judge and its vLLM server all pass here: in the form, the API and
again in the worker, so a row written before a change of either list is refused when it runs, before any request.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from django.conf import settings


def allowed_hosts() -> list[str]:
    configured = [host.strip().lower() for host in settings.SANDMLE_LLM_ALLOWED_HOSTS if host.strip()]
    if configured:
        return configured
    default = urlsplit(settings.SANDMLE_LLM_URL or "").hostname
    return [default.lower()] if default else []


def llm_url_refusal(url: str) -> str:
    """Why `url`'s host may not be sent the deployment's key ("" when it may): the host part of endpoint_refusal."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "not a valid URL"
    host = (parts.hostname or "").lower()
    allowed = allowed_hosts()
    if host and (host in allowed or (port is not None and f"{host}:{port}" in allowed)):
        return ""
    listed = ", ".join(allowed) or "none"
    return f"{host or url!r} is not an allowed LLM host (allowed: {listed}; the admin sets SANDMLE_LLM_ALLOWED_HOSTS)"


def endpoint_refusal(url: str) -> str:
    """Why a worker may not send requests to `url` ("" when it may): an http(s) base URL, no credentials in it, on a
    host the admin allows. Every endpoint a user names gets the deployment's key, prompts or weights: one rule."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "use an http(s) base URL such as http://host:8000/v1"
    if parts.username or parts.password:
        return "keep credentials out of the URL; name the variable holding the key instead"
    return llm_url_refusal(url)  # a port that is not a number is refused there too


def key_env_refusal(name: str) -> str:
    """Why the environment variable `name` may not be read as an endpoint's key ("" when it may).

    A free choice would let a curator send the worker's SECRET_KEY or database password to an endpoint; the message
    does not list the allowed names, which only admins see (they set SANDMLE_LLM_KEY_ENVS)."""
    if name in settings.SANDMLE_LLM_KEY_ENVS:
        return ""
    return (f"{name!r} is not an allowed key variable (the admin lists them in SANDMLE_LLM_KEY_ENVS; leave it blank "
            f"for the deployment's key)")


def openai_policy_refusal(policy: str) -> str:
    """Why an `openai:MODEL@URL` policy may not run here (malformed, or an endpoint the admin does not allow); "" when
    it may. The rollout, campaign and frontier launches and their workers share it."""
    model, _, url = policy[len("openai:"):].partition("@")
    if not model or not url.startswith(("http://", "https://")):
        return "write an OpenAI-compatible policy as openai:MODEL@http(s)://HOST/v1"
    return endpoint_refusal(url)  # the deployment's key goes along: only to hosts the admin allows


def shown_endpoint(url: str) -> str:
    """`url` as a page shows it: without credentials or a query a row written before the checks might hold."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host  # an IPv6 address keeps its brackets
        netloc = f"{host}:{parts.port}" if parts.port is not None else host
    except ValueError:
        return ""
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
