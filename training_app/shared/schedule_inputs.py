"""The sampling schedule (Exploratory Annealed Decoding) as the rollout and campaign forms and APIs take it: the
engine's one key table (sandmle/agents/policies/schedule.py) as form fields under one group, and one API field."""

from __future__ import annotations

from django import forms
from rest_framework import serializers

SCHEDULE_GROUP = "Sampling schedule"


def _schedule_entries() -> list[dict]:
    from sandmle.agents.policies.schedule import schedule_fields

    return [field.describe() for field in schedule_fields()]


def add_schedule_fields(form: forms.Form) -> None:
    """The schedule's keys as fields, typed, defaulted and explained as the engine's table says; ranges stay the
    engine's (checked_schedule names the key it refuses), so the form, the API and the CLI agree."""
    for entry in _schedule_entries():
        help_text = entry["help"] + (f" · reference: {entry['reference']}" if entry.get("reference") else "")
        options = {"required": False, "initial": entry["default"], "help_text": help_text}
        if entry["type"] == "choice":
            form.fields[entry["key"]] = forms.ChoiceField(choices=[(c, c) for c in entry["choices"]], **options)
        elif entry["type"] == "int":
            form.fields[entry["key"]] = forms.IntegerField(**options)
        else:
            form.fields[entry["key"]] = forms.FloatField(**options)


def clean_schedule(form: forms.Form, cleaned: dict) -> None:
    """Moves the schedule's keys out of `cleaned` into one checked `schedule` ({} for the constant one); a bad key
    is an error on its own field."""
    from sandmle.agents.policies.schedule import SCHEDULE_KEYS
    from sandmle.agents.policies.schedule import checked_schedule
    from sandmle.settings import ConfigError

    given = {key: cleaned.pop(key) for key in SCHEDULE_KEYS if key in cleaned}
    try:
        cleaned["schedule"] = checked_schedule({key: value for key, value in given.items() if value not in (None, "")})
    except ConfigError as error:
        form.add_error(error.key if error.key in form.fields else None, str(error).partition(": ")[2])


def schedule_groups(form: forms.Form, title: str) -> list[tuple[str, bool, list]]:
    """(title, open, bound fields): the form's own fields, then the schedule's, folded unless annealed or in error."""
    from sandmle.agents.policies.schedule import SCHEDULE_KEYS

    own = [form[key] for key in form.fields if key not in SCHEDULE_KEYS]
    schedule = [form[key] for key in SCHEDULE_KEYS if key in form.fields]
    annealed = form.is_bound and form.data.get("temperature_schedule") == "annealed"
    return [(title, True, own), (SCHEDULE_GROUP, annealed or any(field.errors for field in schedule), schedule)]


class ScheduleField(serializers.DictField):
    """A `schedule` mapping of the schedule's keys, checked by the engine: {} (constant) or every key filled in; a bad
    key is named inside the field's error ({"schedule": {"temperature_min": [...]}})."""

    def __init__(self, **kwargs):
        from sandmle.agents.policies.schedule import SCHEDULE_KEYS

        kwargs.setdefault("help_text", "the sampling schedule: {} samples at the temperature throughout; "
                                       "{\"temperature_schedule\": \"annealed\"} is Exploratory Annealed Decoding, "
                                       f"with the keys {', '.join(SCHEDULE_KEYS[1:])} (the engine's defaults fill "
                                       "the rest)")
        super().__init__(required=False, default=dict, **kwargs)

    def to_internal_value(self, data):
        from sandmle.agents.policies.schedule import checked_schedule
        from sandmle.settings import ConfigError

        try:
            return checked_schedule(super().to_internal_value(data))
        except ConfigError as error:
            raise serializers.ValidationError({error.key: [str(error).partition(": ")[2]]}) from None
