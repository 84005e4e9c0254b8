"""The query filters of the training side's API lists (django-filter): a malformed value is a 400 naming its field."""

from __future__ import annotations

import django_filters

from sandmle_web.api_lists import IdFilter
from sandmle_web.jobs import JobState
from training_app.models import EvalCampaign, RolloutBatch, TrainingRun, Trajectory

# NullBooleanField reads "maybe" as no filter at all; a strict choice makes it a 400 naming the field.
BOOLEAN_CHOICES = [("true", "true"), ("false", "false")]


def _boolean_filter(**kwargs) -> django_filters.TypedChoiceFilter:
    return django_filters.TypedChoiceFilter(choices=BOOLEAN_CHOICES, coerce=lambda value: value == "true", **kwargs)


MILESTONES = [(name, name) for name in ("gold", "silver", "bronze", "median", "none")]


def _name_filter(field_name: str, help_text: str) -> django_filters.CharFilter:
    return django_filters.CharFilter(field_name=field_name, max_length=150, help_text=help_text)


class RolloutBatchFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    scaffold = django_filters.ChoiceFilter(choices=RolloutBatch.Scaffold.choices)
    feedback = django_filters.ChoiceFilter(choices=RolloutBatch.Feedback.choices)
    policy = django_filters.CharFilter(max_length=500)
    task_set = _name_filter("task_set__name", "the task set's name")

    class Meta:
        model = RolloutBatch
        fields = ["state", "scaffold", "feedback", "policy", "task_set"]


class TrajectoryFilter(django_filters.FilterSet):
    batch = IdFilter(field_name="batch_id", help_text="the rollout batch's id")
    scaffold = django_filters.ChoiceFilter(field_name="batch__scaffold", choices=RolloutBatch.Scaffold.choices)
    task = _name_filter("task__task_id", "the task's id")
    termination = django_filters.CharFilter(max_length=32, help_text="how the episode ended, e.g. submitted")
    milestone = django_filters.ChoiceFilter(method="filter_milestone", choices=MILESTONES,
                                            help_text="the best milestone reached; none for no medal")
    valid_submission = _boolean_filter()

    class Meta:
        model = Trajectory
        fields = ["batch", "scaffold", "task", "termination", "milestone", "valid_submission"]

    def filter_milestone(self, queryset, name, value):
        return queryset.filter(milestone="" if value == "none" else value)


class TrainingRunFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    kind = django_filters.ChoiceFilter(choices=TrainingRun.Kind.choices)
    task_set = _name_filter("task_set__name", "the task set's name")
    smoke_model = _boolean_filter()

    class Meta:
        model = TrainingRun
        fields = ["state", "kind", "task_set", "smoke_model"]


class CampaignFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=JobState.choices)
    task_set = _name_filter("task_set__name", "the task set's name")

    class Meta:
        model = EvalCampaign
        fields = ["state", "task_set"]
