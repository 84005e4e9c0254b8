"""API tokens are revoked from the token page and by DELETE /api/token/; a revoked token is refused at once."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.services import user_token


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def test_delete_revokes_the_callers_token_and_the_next_request_is_refused(users):
    key = user_token(user=users["viewer"])
    api = _api(key)
    assert api.get("/api/seeds/").status_code == 200
    response = api.delete("/api/token/")
    assert response.status_code == 200 and response.json() == {"username": "viewer", "revoked": True}
    refused = api.get("/api/seeds/")  # the same client, the very next request: DRF looks the key up each time
    assert refused.status_code == 401 and "invalid token" in refused.json()["detail"].lower()
    assert not Token.objects.filter(key=key).exists()


def test_an_admin_revokes_another_users_token_and_others_may_not(users):
    curator_key = user_token(user=users["curator"])
    denied = _api(user_token(user=users["reviewer"])).delete("/api/token/", {"username": "curator"}, format="json")
    assert denied.status_code == 403 and "admin" in denied.json()["detail"].lower()
    assert _api(curator_key).get("/api/seeds/").status_code == 200
    admin = _api(user_token(user=users["admin"]))
    assert admin.delete("/api/token/", {"username": "nobody"}, format="json").json()["username"][0].startswith("no user")
    assert admin.delete("/api/token/", {"username": "curator"}, format="json").json()["revoked"] is True
    assert _api(curator_key).get("/api/seeds/").status_code == 401


def test_anonymous_delete_is_401(db):
    response = APIClient().delete("/api/token/")
    assert response.status_code == 401 and response.json()["detail"]


def test_a_new_token_from_sign_in_works_after_revocation(users):
    api = _api(user_token(user=users["viewer"]))
    api.delete("/api/token/")
    fresh = APIClient().post("/api/token/", {"username": "viewer", "password": "pw-viewer"}, format="json").json()["token"]
    assert _api(fresh).get("/api/seeds/").status_code == 200


def test_the_token_page_revokes_and_rotates(client_for, users):
    old_key = user_token(user=users["curator"])
    page = client_for("curator")
    assert b"You hold an API token" in page.get("/account/token/").content
    rotated = page.post("/account/token/", {"action": "rotate"})
    new_key = rotated.context["new_key"]
    assert rotated.status_code == 200 and new_key.encode() in rotated.content and new_key != old_key
    assert _api(old_key).get("/api/seeds/").status_code == 401
    assert page.post("/account/token/", {"action": "revoke"}).status_code == 302
    assert _api(new_key).get("/api/seeds/").status_code == 401
    assert b"You hold no API token" in page.get("/account/token/").content


def test_the_token_page_lets_only_admins_revoke_for_others(client_for, users):
    viewer_key = user_token(user=users["viewer"])
    assert client_for("curator").post("/account/token/", {"action": "revoke", "username": "viewer"}).status_code == 403
    assert _api(viewer_key).get("/api/seeds/").status_code == 200
    assert client_for("admin").post("/account/token/", {"action": "revoke", "username": "viewer"}).status_code == 302
    assert _api(viewer_key).get("/api/seeds/").status_code == 401


def test_the_token_page_needs_sign_in(client, db):
    response = client.get("/account/token/")
    assert response.status_code == 302 and "/login/" in response["Location"]
