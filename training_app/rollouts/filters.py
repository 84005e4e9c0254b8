"""The query filters of the rollout batch and trajectory API lists (django-filter)."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import IdFilter, boolean_filter, name_filter
from sandmle_web.jobs import JobState
from training_app.models import RolloutBatch, Trajectory

MILESTONES = [(name, name) for name in ("gold", "silver", "bronze", "median", "none")]


class RolloutBatchFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    scaffold = django_filters.ChoiceFilter(choices=RolloutBatch.Scaffold.choices)
    feedback = django_filters.ChoiceFilter(choices=RolloutBatch.Feedback.choices)
    policy = django_filters.CharFilter(max_length=500)
    task_set = name_filter("task_set__name", "the task set's name")

    class Meta:
        model = RolloutBatch
        fields = ["state", "scaffold", "feedback", "policy", "task_set"]


class TrajectoryFilter(django_filters.FilterSet):
    batch = IdFilter(field_name="batch_id", help_text="the rollout batch's id")
    scaffold = django_filters.ChoiceFilter(field_name="batch__scaffold", choices=RolloutBatch.Scaffold.choices)
    task = name_filter("task__task_id", "the task's id")
    termination = django_filters.CharFilter(max_length=32, help_text="how the episode ended, e.g. submitted")
    milestone = django_filters.ChoiceFilter(method="filter_milestone", choices=MILESTONES,
                                            help_text="the best milestone reached; none for no medal")
    valid_submission = boolean_filter()

    class Meta:
        model = Trajectory
        fields = ["batch", "scaffold", "task", "termination", "milestone", "valid_submission"]

    def filter_milestone(self, queryset, name, value):
        return queryset.filter(milestone="" if value == "none" else value)
