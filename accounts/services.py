"""Writes of accounts: users with a role, API tokens."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.roles import Role


@transaction.atomic
def user_create(*, username: str, password: str, role: Role, email: str = "") -> User:
    """Create a user holding `role` (admins are also Django superusers, so the admin site works)."""
    if User.objects.filter(username=username).exists():
        raise ValueError(f"a user named {username!r} already exists")
    if role == Role.ADMIN:
        user = User.objects.create_superuser(username=username, email=email, password=password)
    else:
        user = User.objects.create_user(username=username, email=email, password=password)
    user.groups.add(Group.objects.get_or_create(name=role.group_name)[0])
    return user


def user_token(*, user: User) -> str:
    """The user's API token, created on first use."""
    return Token.objects.get_or_create(user=user)[0].key


def user_token_revoke(*, user: User) -> bool:
    """Delete the user's API token; DRF looks the token up on every request, so it is refused from the next one on."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def user_token_rotate(*, user: User) -> str:
    """Revoke the user's token and issue a new one."""
    with transaction.atomic():
        user_token_revoke(user=user)
        return Token.objects.create(user=user).key
