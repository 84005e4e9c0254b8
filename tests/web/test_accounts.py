"""Roles, login and the createadmin command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from accounts.roles import Role, has_role, user_role


def test_roles_are_ordered(users):
    assert user_role(users["viewer"]) == Role.VIEWER
    assert has_role(users["reviewer"], Role.CURATOR)
    assert not has_role(users["curator"], Role.REVIEWER)
    assert has_role(users["admin"], Role.ADMIN) and users["admin"].is_superuser


def test_login_page_and_redirect(client, users):
    assert client.get("/login/").status_code == 200
    response = client.get("/seeds/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    response = client.post("/login/", {"username": "viewer", "password": "pw-viewer"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_wrong_password_says_so(client, users):
    response = client.post("/login/", {"username": "viewer", "password": "nope"})
    assert response.status_code == 200 and b"match" in response.content and b"Please try again" in response.content


def test_user_without_role_gets_403(client, db):
    client.force_login(User.objects.create_user("norole", password="x"))
    assert client.get("/seeds/").status_code == 403


def test_createadmin_prints_credentials_and_token(db):
    out = StringIO()
    call_command("createadmin", "--username", "boss", stdout=out)
    text = out.getvalue()
    assert "username: boss" in text and "password: " in text and "api token: " in text
    password = text.split("password: ")[1].split()[0]
    assert User.objects.get(username="boss").check_password(password)
    with pytest.raises(CommandError, match="already exists"):
        call_command("createadmin", "--username", "boss", stdout=StringIO())
    call_command("createadmin", "--username", "boss", "--if-missing", stdout=StringIO())


def test_api_token_authentication(api_for, client, users):
    assert api_for("viewer").get("/api/seeds/").status_code == 200
    assert client.get("/api/seeds/").status_code in (401, 403)
    response = client.post("/api/token/", {"username": "viewer", "password": "pw-viewer"})
    assert response.status_code == 200 and len(response.json()["token"]) == 40
