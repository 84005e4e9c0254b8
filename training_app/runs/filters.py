"""The query filters of the training run list API (django-filter)."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import boolean_filter, name_filter
from sandmle_web.jobs import JobState
from training_app.models import TrainingRun


class TrainingRunFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    kind = django_filters.ChoiceFilter(choices=TrainingRun.Kind.choices)
    task_set = name_filter("task_set__name", "the task set's name")
    smoke_model = boolean_filter()

    class Meta:
        model = TrainingRun
        fields = ["state", "kind", "task_set", "smoke_model"]
