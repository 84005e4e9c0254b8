"""Puts the signed-in user's role flags into every template."""

from accounts.roles import Role, has_role


def roles(request):
    user = getattr(request, "user", None)
    return {
        "is_curator": has_role(user, Role.CURATOR),
        "is_reviewer": has_role(user, Role.REVIEWER),
        "is_admin": has_role(user, Role.ADMIN),
    }
