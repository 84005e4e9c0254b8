"""The query filters of the seed list API (django-filter): a malformed value is a 400 naming its field."""

from __future__ import annotations

import django_filters

from tasks_app.models import Seed


class SeedFilter(django_filters.FilterSet):
    source = django_filters.ChoiceFilter(choices=Seed.Source.choices)
    task_type = django_filters.ChoiceFilter(choices=[(name, name) for name in ("binary", "multiclass", "regression")])
    modality = django_filters.CharFilter(max_length=16)

    class Meta:
        model = Seed
        fields = ["source", "task_type", "modality"]
