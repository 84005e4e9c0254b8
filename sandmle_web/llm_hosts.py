"""The admin's allow-list of LLM endpoint hosts: the deployment's key goes only to hosts named here.

SANDMLE_LLM_ALLOWED_HOSTS lists host names (or host:port); empty means only SANDMLE_LLM_URL's host. Forms, the API
and the workers all check a URL here, so a row written before a change of the list is refused when it runs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def allowed_hosts() -> list[str]:
    configured = [host.strip().lower() for host in settings.SANDMLE_LLM_ALLOWED_HOSTS if host.strip()]
    if configured:
        return configured
    default = urlsplit(settings.SANDMLE_LLM_URL or "").hostname
    return [default.lower()] if default else []


def llm_url_refusal(url: str) -> str:
    """Why `url` may not be sent the deployment's key ("" when it may)."""
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


def openai_policy_refusal(policy: str) -> str:
    """Why an `openai:MODEL@URL` policy may not run here (malformed, or a host the admin does not allow); "" when it
    may. The rollout and frontier launches share it."""
    model, _, url = policy[len("openai:"):].partition("@")
    if not model or not url.startswith(("http://", "https://")):
        return "write an OpenAI-compatible policy as openai:MODEL@http(s)://HOST/v1"
    return llm_url_refusal(url)  # the deployment's key goes along: only to hosts the admin allows
