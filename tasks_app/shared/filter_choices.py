"""The choices of the task filters (lists, review queue, task-set picker): a select of what exists, not free text.

Each is a callable, so django-filter reads the rows when a form is built, not when the module is imported; a value
outside them is a 400 naming its field, as any other bad filter."""

from __future__ import annotations

from django import forms
from django.db.models import Q

from tasks_app.models import Seed, SynthesizedTask


def _values(field: str, queryset) -> list[tuple[str, str]]:
    values = queryset.exclude(**{field: ""}).order_by(field).values_list(field, flat=True).distinct()
    return [(value, value) for value in values]


def seed_choices() -> list[tuple[str, str]]:
    """Every seed by name (a filter on a seed without tasks finds none, and says so)."""
    return _values("name", Seed.objects.all())


def modality_choices() -> list[tuple[str, str]]:
    """The modalities of the seeds (tabular, text, image): the ones tasks can have."""
    return _values("modality", Seed.objects.all())


def domain_choices() -> list[tuple[str, str]]:
    """The domains tasks were mutated into."""
    return _values("domain_id", SynthesizedTask.objects.filter(~Q(domain_id="")))


def rule_family_choices() -> list[tuple[str, str]]:
    """The engine's rule families (their names are public; which task has which is not)."""
    from sandmle.synth.rules import FAMILIES

    return [(name, name) for name in sorted(FAMILIES)]


def rule_family_select() -> forms.Select:
    """The page's select of rule families for a filter that takes any text: for viewers the filter ignores the rule
    family, whatever its value, so a made-up name must not be a 400 (which would tell a real name from a false one)."""
    return forms.Select(choices=[("", "any")] + rule_family_choices())
