"""Revoking API tokens: the token page and `DELETE /api/token/`; a user revokes their own, an admin anyone's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.shortcuts import redirect, render
from rest_framework import status
from rest_framework.response import Response

from accounts import services
from accounts.roles import Role, has_role


def _target_user(actor: User, username: str) -> tuple[User | None, str]:
    """The user whose token is meant (the actor unless a username is given) and, where refused, why."""
    if not username or username == actor.username:
        return actor, ""
    if not has_role(actor, Role.ADMIN):
        return None, "Only admins may revoke another user's token."
    target = User.objects.filter(username=username).first()
    return (target, "") if target else (None, f"no user named {username!r}")


def token_revoke_api(request) -> Response:
    """DELETE /api/token/ (optionally with `username`, admins only): 200 saying whether a token was revoked."""
    if not request.user.is_authenticated:
        return Response({"detail": "Authentication credentials were not provided."},
                        status=status.HTTP_401_UNAUTHORIZED)
    username = str(request.data.get("username", "") if hasattr(request.data, "get") else "") \
        or request.query_params.get("username", "")
    target, refusal = _target_user(request.user, username)
    if target is None:
        code = status.HTTP_403_FORBIDDEN if refusal.startswith("Only") else status.HTTP_400_BAD_REQUEST
        return Response({"username": [refusal]} if code == 400 else {"detail": refusal}, status=code)
    revoked = services.user_token_revoke(user=target)
    return Response({"username": target.username, "revoked": revoked})


@login_required
def token_page(request):
    """Shows whether the user holds a token; POST revokes it or issues a new one (shown once)."""
    new_key, status_code = "", 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        target, refusal = _target_user(request.user, request.POST.get("username", "").strip())
        if target is None or action not in ("revoke", "rotate") or (action == "rotate" and target != request.user):
            messages.error(request, refusal or "Choose revoke, or rotate for your own token.")
            status_code = 403 if refusal.startswith("Only") else 400
        elif action == "revoke":
            revoked = services.user_token_revoke(user=target)
            messages.success(request, f"{target.username}'s API token was revoked." if revoked
                             else f"{target.username} held no API token.")
            return redirect("account-token")
        else:
            new_key = services.user_token_rotate(user=request.user)
    from rest_framework.authtoken.models import Token

    context = {"has_token": Token.objects.filter(user=request.user).exists(), "new_key": new_key,
               "is_admin": has_role(request.user, Role.ADMIN)}
    return render(request, "accounts/token.html", context, status=status_code)
