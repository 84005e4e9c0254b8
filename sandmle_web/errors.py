"""The refusal every service of the studio raises: a request that cannot be carried out as asked, naming its field."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request that cannot be carried out as asked; `field` names the input at fault."""

    def __init__(self, message: str, *, field: str = "non_field_errors"):
        super().__init__(message)
        self.field = field


def form_errors_from(form, error: ServiceError) -> None:
    """Shows a service's refusal on a page's form: at the field it names, or at the top when the form has no such
    field."""
    form.add_error(error.field if error.field in form.fields else None, str(error))
