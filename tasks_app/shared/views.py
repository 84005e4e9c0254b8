"""What the task side's pages share: a service's refusal shown on the form field at fault."""

from __future__ import annotations

from studio.errors import ServiceError


def form_errors_from(form, error: ServiceError) -> None:
    form.add_error(error.field if error.field in form.fields else None, str(error))
