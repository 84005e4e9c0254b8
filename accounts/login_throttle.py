"""Brute-force protection for sign-in: failed attempts counted per account and per client, in Django's cache.

Django and DRF have no per-account lockout (DRF's throttles count requests, not failed passwords), so this counts
`user_login_failed` signals; the page login and /api/token/ both authenticate through it.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.dispatch import receiver


def _client(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is as forgeable as X-Forwarded-Proto without a trusted proxy.
    return (getattr(request, "META", {}) or {}).get("REMOTE_ADDR", "") or "unknown"


def _keys(*, username: str, request) -> list[tuple[str, int]]:
    return [
        (f"login-fail:account:{(username or '').strip().lower()[:150]}", settings.SANDMLE_LOGIN_MAX_FAILURES_ACCOUNT),
        (f"login-fail:client:{_client(request)}", settings.SANDMLE_LOGIN_MAX_FAILURES_CLIENT),
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
