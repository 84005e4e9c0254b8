"""The query filters of the synthesis run list API (django-filter): a malformed value is a 400 naming its field."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import name_filter
from sandmle_web.jobs import JobState
from tasks_app.models import SynthesisRun


class SynthesisRunFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    seed = name_filter("seed__name", "the seed's name")

    class Meta:
        model = SynthesisRun
        fields = ["state", "seed"]
