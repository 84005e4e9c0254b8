"""Every form page refuses a POST without a CSRF token (403), for a signed-in user with every role it needs."""

from __future__ import annotations

import pytest
from django.test import Client

FORM_POSTS = ["/seeds/", "/seeds/iris/", "/account/token/", "/logout/", "/login/"]


@pytest.mark.parametrize("path", FORM_POSTS)
def test_post_without_a_csrf_token_is_403(users, path):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["admin"])
    response = client.post(path, {"action": "revoke", "name": "x", "count": 1, "username": "u", "password": "p"})
    assert response.status_code == 403, (path, response.status_code)


def test_the_session_api_needs_csrf_too(users):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["admin"])
    response = client.delete("/api/token/")
    assert response.status_code == 403 and "csrf" in response.json()["detail"].lower()
