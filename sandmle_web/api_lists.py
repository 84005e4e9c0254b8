"""What every API list shares beyond pagination: ordering by a whitelist only, and strict whole-number id filters.

DRF's OrderingFilter drops a field it does not know without a word; a client that misspells `-created_at` then
reads an order it did not ask for. Here an unknown field is a 400 naming `ordering`. Fields a view lists in
`reviewer_ordering_fields` exist for reviewers only: for anyone else they are dropped like on the pages, so
ordering never becomes a way to read a hidden value (sorting by rule family reveals it).
"""

from __future__ import annotations

import django_filters
from django import forms
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter

from accounts.roles import Role, has_role

ID_MAX = 2**63 - 1  # the database's integer: larger ids would overflow the query, not just match nothing


class StrictOrderingFilter(OrderingFilter):
    def _allowed(self, request, view) -> tuple[set[str], set[str]]:
        public = set(getattr(view, "ordering_fields", None) or ())
        hidden = set(getattr(view, "reviewer_ordering_fields", ()))
        if has_role(request.user, Role.REVIEWER):
            return public | hidden, set()
        return public, hidden

    def get_ordering(self, request, queryset, view):
        raw = request.query_params.get(self.ordering_param)
        if not raw:
            return self.get_default_ordering(view)
        allowed, dropped = self._allowed(request, view)
        ordering = []
        for term in (part.strip() for part in raw.split(",")):
            name = term.removeprefix("-")
            if name in dropped:
                continue
            if name not in allowed:
                raise ValidationError({self.ordering_param: [
                    f"cannot order by {term!r}; expected one of {', '.join(sorted(allowed))} (prefix - for descending)"
                ]})
            ordering.append(term)
        # A stable tiebreak keeps limit/offset pages from repeating or skipping rows of equal keys.
        return ordering + ["pk"] if ordering else self.get_default_ordering(view)

    def get_schema_operation_parameters(self, view):
        fields = sorted(getattr(view, "ordering_fields", None) or ())
        hidden = sorted(getattr(view, "reviewer_ordering_fields", ()))
        described = ", ".join(fields) + (f"; reviewers also {', '.join(hidden)}" if hidden else "")
        return [{
            "name": self.ordering_param, "required": False, "in": "query",
            "description": f"Comma-separated fields to order by, - for descending: {described}.",
            "schema": {"type": "string"},
        }]


class IdField(forms.IntegerField):
    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=ID_MAX, **kwargs)


class IdFilter(django_filters.NumberFilter):
    """A row id: ASCII digits only, 1 to the database's largest integer ('²', '1.5' and 2**70 are 400s)."""

    field_class = IdField


def name_filter(field_name: str, help_text: str) -> django_filters.CharFilter:
    """A filter on a related row's name (a seed's, a task set's, a user's), bounded in length."""
    return django_filters.CharFilter(field_name=field_name, max_length=150, help_text=help_text)


# NullBooleanField reads "maybe" as no filter at all; a strict choice makes it a 400 naming the field.
BOOLEAN_CHOICES = [("true", "true"), ("false", "false")]


def boolean_filter(**kwargs) -> django_filters.TypedChoiceFilter:
    return django_filters.TypedChoiceFilter(choices=BOOLEAN_CHOICES, coerce=lambda value: value == "true", **kwargs)
