"""REST framework permissions and view decorators for the roles."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from accounts.roles import Role, has_role


class _RolePermission(BasePermission):
    role = Role.VIEWER
    message = "This needs the viewer role."

    def has_permission(self, request, view) -> bool:
        return has_role(request.user, self.role)


class IsViewer(_RolePermission):
    role = Role.VIEWER
    message = "This needs the viewer role."


class IsCurator(_RolePermission):
    role = Role.CURATOR
    message = "This needs the curator role."


class IsReviewer(_RolePermission):
    role = Role.REVIEWER
    message = "This needs the reviewer role."


def role_required(role: Role):
    """Page decorator: anonymous users go to the login page; signed-in users without the role get 403."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, role):
                raise PermissionDenied(f"This page needs the {role.group_name} role.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
