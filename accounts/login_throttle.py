"""Brute-force protection for sign-in: failed attempts counted per account and per client, in Django's cache.

Django and DRF have no per-account lockout (DRF's throttles count requests, not failed passwords), so this counts
`user_login_failed` signals; the page login and /api/token/ both authenticate through it.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.dispatch import receiver


def _client(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is as forgeable as X-Forwarded-Proto without a trusted proxy.
    return (getattr(request, "META", {}) or {}).get("REMOTE_ADDR", "") or "unknown"


def _digest(value: str) -> str:
    # A typed username may hold spaces, control characters, non-ASCII or run past 250 characters: Django's cache warns
    # on such keys (CacheKeyWarning) and memcached rejects them, so the key carries a fixed-length hex digest instead.
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _keys(*, username: str, request) -> list[tuple[str, int]]:
    account = str(username or "").strip().lower()[:150]
    return [
        (f"login-fail:account:{_digest(account)}", settings.SANDMLE_LOGIN_MAX_FAILURES_ACCOUNT),
        (f"login-fail:client:{_digest(_client(request))}", settings.SANDMLE_LOGIN_MAX_FAILURES_CLIENT),
    ]


def blocked_reason(*, username: str, request) -> str:
    """Why sign-in is refused right now ("" when it is not): too many failures for the account or the client."""
    account, client = _keys(username=username, request=request)
    minutes = max(1, settings.SANDMLE_LOGIN_WINDOW_S // 60)
    if cache.get(account[0], 0) >= account[1]:
        return f"Too many failed sign-ins for this account; try again in {minutes} minutes."
    if cache.get(client[0], 0) >= client[1]:
        return f"Too many failed sign-ins from this address; try again in {minutes} minutes."
    return ""


@receiver(user_login_failed)
def count_failure(sender, credentials, request=None, **kwargs) -> None:
    for key, _ in _keys(username=credentials.get("username", ""), request=request):
        if cache.add(key, 1, timeout=settings.SANDMLE_LOGIN_WINDOW_S):
            continue
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=settings.SANDMLE_LOGIN_WINDOW_S)
