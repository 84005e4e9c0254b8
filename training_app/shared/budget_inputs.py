"""An episode's budgets as the rollout and campaign forms and APIs take them: the engine's one declaration
(sandmle/episodes/budget.py) as form fields and API fields, under the keys, types, defaults and ranges the CLI and
YAML use, checked by the engine's table so a bad value is refused with its key named."""

from __future__ import annotations

from typing import Any

from django import forms
from rest_framework import serializers

from training_app.shared.presentation import TURNS_HELP
from sandmle_web.errors import ServiceError


def _entries() -> list[dict]:
    from sandmle.episodes.budget import budget_fields

    return [field.describe() for field in budget_fields()]


def _help(entry: dict) -> str:
    return TURNS_HELP if entry["key"] == "max_turns" else entry["help"]


def checked_budgets(given: dict[str, Any]) -> dict[str, Any]:
    """Every budget key, checked by the engine's table with its default where `given` has none; a bad value is a
    ServiceError on its own field."""
    from sandmle.episodes.budget import budget_fields
    from sandmle.settings import ConfigError, check_settings

    try:
        return check_settings({key: value for key, value in given.items() if value is not None},
                              budget_fields())
    except ConfigError as error:
        raise ServiceError(str(error).partition(": ")[2], field=error.key) from None


def add_budget_fields(form: forms.Form) -> None:
    """The budgets as typed fields with the engine's defaults and ranges (optional: blank means the default)."""
    for entry in _entries():
        kind = forms.IntegerField if entry["type"] == "int" else forms.FloatField
        form.fields[entry["key"]] = kind(required=False, initial=entry["default"], min_value=entry["min"],
                                         max_value=entry["max"], help_text=_help(entry))


class BudgetInputs(serializers.Serializer):
    """Adds every budget as its own API field, typed, defaulted and bounded as the engine declares it."""

    def get_fields(self):
        fields = super().get_fields()
        for entry in _entries():
            kind = serializers.IntegerField if entry["type"] == "int" else serializers.FloatField
            fields[entry["key"]] = kind(required=False, default=entry["default"], min_value=entry["min"],
                                        max_value=entry["max"], help_text=_help(entry))
        return fields
