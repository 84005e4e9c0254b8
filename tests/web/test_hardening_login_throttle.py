"""After too many wrong passwords, /login/ and /api/token/ refuse even the right one, per account and per client."""

from __future__ import annotations

import warnings

import pytest
from django.core.cache import cache
from django.core.cache.backends.base import CacheKeyWarning
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def fresh_counts(settings):
    settings.SANDMLE_LOGIN_MAX_FAILURES_ACCOUNT = 3
    settings.SANDMLE_LOGIN_MAX_FAILURES_CLIENT = 5
    cache.clear()
    yield
    cache.clear()


def test_page_login_locks_the_account_after_failures(client, users):
    for _ in range(3):
        assert client.post("/login/", {"username": "viewer", "password": "wrong"}).status_code == 200
    response = client.post("/login/", {"username": "viewer", "password": "pw-viewer"})
    assert response.status_code == 429 and b"Too many failed sign-ins for this account" in response.content
    assert "_auth_user_id" not in client.session


def test_token_endpoint_locks_the_account_too(users):
    api = APIClient()
    for _ in range(3):
        assert api.post("/api/token/", {"username": "curator", "password": "wrong"}).status_code == 400
    response = api.post("/api/token/", {"username": "curator", "password": "pw-curator"})
    assert response.status_code == 429 and "this account" in response.json()["detail"]


def test_one_client_is_stopped_across_accounts(client, users):
    for name in ("viewer", "curator", "reviewer", "admin", "viewer"):
        client.post("/login/", {"username": name, "password": "wrong"})
    response = APIClient().post("/api/token/", {"username": "reviewer", "password": "pw-reviewer"})
    assert response.status_code == 429 and "this address" in response.json()["detail"]


def test_the_right_password_works_below_the_limit(client, users):
    client.post("/login/", {"username": "viewer", "password": "wrong"})
    assert client.post("/login/", {"username": "viewer", "password": "pw-viewer"}).status_code == 302


def test_api_requests_are_throttled_per_user(api_for, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    # DRF binds the rates when the class is defined; the deployment sets them with SANDMLE_API_*_RATE.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "2/minute", "anon": "2/minute"})
    viewer = api_for("viewer")
    assert [viewer.get("/api/seeds/").status_code for _ in range(3)] == [200, 200, 429]


def test_an_odd_username_is_counted_under_a_safe_cache_key(client, users):
    # Spaces, a newline, a tab, an emoji and 300 characters: raw, each would make the cache warn (or memcached refuse).
    odd = ("bad name\n\t🦀 " * 30)[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheKeyWarning)
        for _ in range(3):
            assert client.post("/login/", {"username": odd, "password": "wrong"}).status_code == 200
        response = client.post("/login/", {"username": odd, "password": "wrong"})
        token = APIClient().post("/api/token/", {"username": odd, "password": "wrong"})
    assert response.status_code == 429 and b"Too many failed sign-ins for this account" in response.content
    assert token.status_code == 429 and "this account" in token.json()["detail"]
