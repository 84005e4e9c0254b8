"""X-Forwarded-Proto is believed only when SANDMLE_TRUSTED_PROXY says a proxy in front sets it."""

from __future__ import annotations

import importlib

import pytest


def _settings_with(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("SANDMLE_TRUSTED_PROXY", raising=False)
    else:
        monkeypatch.setenv("SANDMLE_TRUSTED_PROXY", value)
    import sandmle_web.settings as module

    try:
        return importlib.reload(module)
    finally:
        monkeypatch.undo()
        importlib.reload(module)


@pytest.mark.parametrize("value", [None, "0"])
def test_header_is_ignored_without_a_trusted_proxy(monkeypatch, value):
    assert not hasattr(_settings_with(monkeypatch, value), "SECURE_PROXY_SSL_HEADER")


def test_header_is_used_behind_a_trusted_proxy(monkeypatch):
    assert _settings_with(monkeypatch, "1").SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")


def test_forged_header_does_not_make_a_request_secure(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert settings.SECURE_PROXY_SSL_HEADER is None  # Django's default: the header means nothing
    response = client.get("/login/", HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 301 and response["Location"].startswith("https://")
