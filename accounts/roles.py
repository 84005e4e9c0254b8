"""The roles of the studio and who holds them: each role includes the ones below it."""

from __future__ import annotations

from enum import IntEnum


class Role(IntEnum):
    VIEWER = 1  # reads seeds, tasks (public side), jobs and results
    CURATOR = 2  # creates seeds, runs synthesis, launches rollouts and jobs
    REVIEWER = 3  # also sees hidden rules and private files; approves or rejects tasks
    ADMIN = 4  # everything, including users

    @property
    def group_name(self) -> str:
        return self.name.lower()


def user_role(user) -> Role | None:
    """The highest role a user holds; superusers are admins; anonymous users have none."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return Role.ADMIN
    cached = getattr(user, "_sandmle_role", "unset")
    if cached != "unset":
        return cached
    names = set(user.groups.values_list("name", flat=True))
    held = [role for role in Role if role.group_name in names]
    role = max(held) if held else None
    user._sandmle_role = role
    return role


def has_role(user, role: Role) -> bool:
    held = user_role(user)
    return held is not None and held >= role
