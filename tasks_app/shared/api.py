"""What the task side's APIs share: a service's refusal as a 400 naming its field, the curator check, the reviewer
context."""

from __future__ import annotations

from rest_framework.exceptions import PermissionDenied, ValidationError

from accounts.permissions import IsCurator
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError


def service_call(call):
    """Turn a service's refusal into a 400 naming the field at fault."""
    try:
        return call()
    except ServiceError as error:
        raise ValidationError({error.field: [str(error)]}) from None


def refuse_unless_curator(request, view) -> None:
    if not IsCurator().has_permission(request, view):
        raise PermissionDenied(IsCurator.message)


def reviewer_context(request) -> dict:
    return {"request": request, "is_reviewer": has_role(request.user, Role.REVIEWER)}
