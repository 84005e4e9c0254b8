"""The query filters of the campaign list API (django-filter)."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import name_filter
from sandmle_web.jobs import JobState
from training_app.models import EvalCampaign


class CampaignFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    task_set = name_filter("task_set__name", "the task set's name")

    class Meta:
        model = EvalCampaign
        fields = ["state", "task_set"]
